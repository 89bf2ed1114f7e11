"""The engine's ready queue: a binary max-heap on sequence numbers, with C++'s heap moves.

torch keeps ready nodes in a std::priority_queue ordered by sequence number only, so nodes
with equal numbers (every AccumulateGrad has the largest) come out in the order the
standard library's push_heap / pop_heap leave them. The same moves here give the same
order, which decides the order of the ops a TorchDispatchMode sees in backward.
"""

from __future__ import annotations

from typing import Any


class ReadyQueue:
    __slots__ = ("_heap",)

    def __init__(self) -> None:
        self._heap: list[Any] = []

    def __bool__(self) -> bool:
        return bool(self._heap)

    def push(self, node: Any) -> None:
        heap = self._heap
        heap.append(node)
        if len(heap) > 1:  # a lone node is already in place
            _sift_up(heap, len(heap) - 1, 0, node)

    def pop(self) -> Any:
        heap = self._heap
        top = heap[0]
        last = heap.pop()
        if heap:
            _adjust_heap(heap, 0, len(heap), last)
        return top


def _less(a: Any, b: Any) -> bool:
    return a._sequence_nr < b._sequence_nr


def _sift_up(heap: list, hole: int, top: int, value: Any) -> None:
    parent = (hole - 1) // 2
    while hole > top and _less(heap[parent], value):
        heap[hole] = heap[parent]
        hole = parent
        parent = (hole - 1) // 2
    heap[hole] = value


def _adjust_heap(heap: list, hole: int, length: int, value: Any) -> None:
    """Move the hole at `hole` down to a leaf along the larger children (the right one on a
    tie), then sift `value` up from there: libstdc++'s __adjust_heap."""
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if _less(heap[child], heap[child - 1]):
            child -= 1
        heap[hole] = heap[child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        heap[hole] = heap[child - 1]
        hole = child - 1
    _sift_up(heap, hole, top, value)
