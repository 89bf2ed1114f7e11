"""Output layouts: which strides a new result gets, as PyTorch chooses them.

- `elementwise_strides`: TensorIterator's rule for the result of a pointwise op (inputs that
  agree on a layout give it to the result; otherwise the first input with an opinion orders
  the dims);
- `preserve_strides`: empty_like's preserve_format (a dense input's strides, else dense
  strides in the input's dim order).
"""

from __future__ import annotations

from typing import Sequence

from ..._tensor.tensor import contiguous_strides

Strides = tuple[int, ...]


def is_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's is_contiguous: a size-1 dim's stride does not matter, nor any in an empty tensor."""
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size == 0:
            return True
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def is_non_overlapping_and_dense(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """Whether the elements tile a block of memory exactly once, in some dimension order
    (no elements at all counts as dense, whatever the strides)."""
    if 0 in shape:
        return True
    if len(shape) == 1:
        return shape[0] < 2 or strides[0] == 1
    dims = sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: strides[d])
    expected = 1
    for d in dims:
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def _sorted_dims(shape: Sequence[int], rows: Sequence[Sequence[int]]) -> list[int]:
    """Dims innermost first: an insertion sort where the first row (of strides) with a strict
    opinion decides; a 0 stride has none; equal strides put the smaller dim first."""
    ndim = len(shape)

    def should_swap(d0: int, d1: int) -> int:
        for row in rows:
            s0, s1 = row[d0], row[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return 1 if s0 > s1 else -1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    order = list(range(ndim - 1, -1, -1))
    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            comparison = should_swap(order[d0], order[d1])
            if comparison > 0:
                order[d0], order[d1] = order[d1], order[d0]
                d1 = d0
            elif comparison < 0:
                break
    return order


def iteration_order(shape: Sequence[int], operands: Sequence[tuple[Sequence[int], Sequence[int]]]) -> list[int]:
    """TensorIterator's dims from fastest to slowest for `operands` ((sizes, byte strides) each,
    right-aligned to `shape`; a broadcast dim has no opinion)."""
    ndim = len(shape)
    rows = []
    for sizes, strides in operands:
        offset = ndim - len(sizes)
        row = [0] * ndim
        for i, (size, stride) in enumerate(zip(sizes, strides)):
            if size != 1 or shape[offset + i] == 1:
                row[offset + i] = stride
        rows.append(row)
    return _sorted_dims(shape, rows)


def strides_in_order(shape: Sequence[int], fastest_first: Sequence[int]) -> Strides:
    """Dense strides laying out `shape`'s dims in the order given (fastest first)."""
    strides = [0] * len(shape)
    running = 1
    for d in fastest_first:
        strides[d] = running
        running *= shape[d]
    return tuple(strides)


def elementwise_strides(shape: tuple[int, ...], inputs: Sequence[tuple[Sequence[int], Sequence[int], int]]) -> Strides:
    """The strides of a pointwise result of `shape` over `inputs` ((sizes, strides, itemsize)
    each): contiguous when every input is; an input layout shared by all same-shaped dense
    inputs; otherwise dense in TensorIterator's dim order."""
    if len(shape) < 2:
        return contiguous_strides(shape)
    same_shape = all(tuple(sizes) == shape for sizes, _, _ in inputs)
    if same_shape:
        if all(is_contiguous(sizes, strides) for sizes, strides, _ in inputs):
            return contiguous_strides(shape)
        first = tuple(inputs[0][1])
        if all(tuple(strides) == first for _, strides, _ in inputs) and is_non_overlapping_and_dense(shape, first):
            return first
    order = iteration_order(shape, [(sizes, [s * itemsize for s in strides]) for sizes, strides, itemsize in inputs])
    return strides_in_order(shape, order)


def stride_order(shape: Sequence[int], strides: Sequence[int]) -> list[int]:
    """The dims from innermost to outermost in memory (TensorIterator's rule for one operand)."""
    return _sorted_dims(shape, [strides])


def dense_strides_like(shape: Sequence[int], strides: Sequence[int]) -> Strides:
    """Contiguous strides in the dimension order of `strides` (what empty_like's preserve
    format gives a tensor that is not dense); a size-0 dim zeroes the outer strides, as
    PyTorch computes them."""
    return strides_in_order(shape, _sorted_dims(shape, [strides]))


def preserve_strides(shape: Sequence[int], strides: Sequence[int]) -> Strides:
    """empty_like(preserve_format)'s strides for an input of `shape` and `strides`."""
    strides = tuple(strides)
    if is_non_overlapping_and_dense(shape, strides):
        return strides
    return dense_strides_like(shape, strides)
