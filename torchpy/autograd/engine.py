"""The backward engine: dependency-counted execution of the graph, no recursion.

`run_backward(roots, root_grads, ...)` counts, for every node reachable from the
roots, how many gradients it will receive; then runs ready nodes (all their
gradients arrived) highest sequence number first, summing gradients that meet
at the same input. Leaves accumulate into `.grad` through AccumulateGrad; for
`autograd.grad`, the gradients reaching the requested inputs are captured
instead and nothing is accumulated.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any, Callable, Sequence

from .._aten.kernels.copy import is_non_overlapping_and_dense
from .._aten.fastcall import aten, call
from .._dispatch.ops import op_for
from .._tensor.enums import contiguous_format
from .._tensor import torch_function as _torch_function
from .._tensor.tensor import Tensor
from . import grad_mode
from .anomaly_mode import call_node_with_anomaly_checks, state as _anomaly_state
from .graph import AccumulateGrad, Node, gradient_edge, pruning
from .ready_queue import ReadyQueue

_new_empty_strided = op_for("aten::new_empty_strided")
_add_ = aten("add_.Tensor")
_detach = aten("detach")


def accumulate_into_grad(variable: Tensor, grad: Tensor, unshared: bool = False) -> None:
    """variable.grad += grad (the grad itself the first time), then post-accumulate hooks.

    As torch's AccumulateGrad: the first gradient is taken over (detached) when grad mode is
    off, nothing else holds it (`unshared`: torch's use_count test) and its strides obey the
    layout contract; otherwise it is copied into a tensor with the variable's strides
    (new_empty_strided + copy_), which with create_graph records the copy. Later gradients
    are added in place (add_) with grad mode off, so `.grad` stays the same tensor, and out
    of place with create_graph, so the sum keeps its history.
    """
    current = variable._grad
    if current is not None and not grad_mode.state.enabled:
        # the common case (every step after the first): aten add_, straight to the dispatcher
        call(_add_, current._keyset | grad._keyset, current, grad)
    else:
        saved_state = _torch_function.disable_for_internals()
        try:
            _store_grad(variable, grad, unshared)
        finally:
            _torch_function.restore(saved_state)
    meta = variable._autograd_meta
    if meta is not None:
        for hook in tuple(meta.post_accumulate_hooks.values()):
            hook(variable)


def _store_grad(variable: Tensor, grad: Tensor, unshared: bool) -> None:
    if variable._grad is None:
        if unshared and not grad_mode.state.enabled and _obeys_layout_contract(grad, variable):
            variable._grad = call(_detach, grad._keyset, grad)
        else:
            variable._grad = _clone_obey_contract(grad, variable)
    else:  # with create_graph: out of place, so the sum keeps its history
        variable._grad = variable._grad + grad


def _obeys_layout_contract(grad: Tensor, variable: Tensor) -> bool:
    """torch's rule: a dense variable's gradient has its strides (size-1 dims aside);
    any other variable's gradient is contiguous."""
    grad_array, variable_array = grad._data, variable._data
    if grad_array is not None and variable_array is not None and grad._shape == variable._shape \
            and grad_array.flags.c_contiguous and variable_array.flags.c_contiguous:
        return True  # the common case: both row-major over the same shape, so the same strides
    if is_non_overlapping_and_dense(variable._shape, variable.stride()):
        return all(size == 1 or a == b for size, a, b in zip(grad._shape, grad.stride(), variable.stride()))
    return grad.is_contiguous()


def _clone_obey_contract(grad: Tensor, variable: Tensor) -> Tensor:
    if is_non_overlapping_and_dense(variable._shape, variable.stride()):
        # the op itself, not Tensor.new_empty_strided: torch's C++ call passes no pin_memory
        out = _new_empty_strided(grad, list(variable._shape), list(variable.stride()), dtype=variable._dtype,
                                 layout=variable.layout, device=variable._device)
        return out.copy_(grad)
    return grad.clone(memory_format=contiguous_format)


def _add(a: Tensor | None, b: Tensor | None) -> Tensor | None:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _collect_dependencies(roots: list[Node]) -> dict[Node, int]:
    """For every reachable node, the number of edges pointing at it."""
    dependencies: dict[Node, int] = {}
    seen = set()
    stack = list(roots)
    for root in roots:
        seen.add(root)
    while stack:
        node = stack.pop()
        for next_node, _ in node._next_edges:
            if next_node is None:
                continue
            dependencies[next_node] = dependencies.get(next_node, 0) + 1
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    return dependencies


def _ancestors(roots: list[Node], targets: set[Node]) -> tuple[set[Node], set[Node]]:
    """(the nodes reachable from `roots` from which a node of `targets` is reachable in one or
    more steps (a target itself only if another target lies beyond it), every reachable node)."""
    parents: dict[Node, list[Node]] = {}
    seen = set(roots)
    stack = list(roots)
    while stack:
        node = stack.pop()
        for next_node, _ in node._next_edges:
            if next_node is None:
                continue
            parents.setdefault(next_node, []).append(node)
            if next_node not in seen:
                seen.add(next_node)
                stack.append(next_node)
    found: set[Node] = set()
    stack = [t for t in targets if t in seen]
    while stack:
        for parent in parents.get(stack.pop(), ()):
            if parent not in found:
                found.add(parent)
                stack.append(parent)
    return found, seen


def _run_pre_hooks(node: Node, grads: list) -> list:
    """torch's order: hooks registered on the tensors this node produced, their retain_grad,
    then the node's own pre-hooks."""
    for index, hooks in node._tensor_pre_hooks.items():
        for hook in tuple(hooks.values()):
            result = hook(grads[index])
            if result is not None:
                grads[index] = result
    for index, retain in node._retain_grad_hooks.items():
        retain(grads[index])
    for hook in tuple(node._pre_hooks.values()):
        result = hook(tuple(grads))
        if result is not None:
            grads = list(result)
    return grads


def _call_node(node: Node, grads: list) -> list:
    outputs = node.apply(grads)
    for hook in tuple(node._hooks.values()):
        result = hook(tuple(outputs), tuple(grads))
        if result is not None:
            outputs = list(result)
    return outputs


class _GraphTasks(threading.local):
    """The backward passes running on this thread (nested ones run inside a hook or formula)."""

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.callbacks: list[list[Callable[[], None]]] = []
        # Per running pass: whether a reentrant checkpoint may run backward inside it (torch's
        # checkpoint_valid: false under autograd.grad / backward(inputs=...), and inherited).
        self.checkpoint_valid: list[bool] = []


_tasks = _GraphTasks()
_task_ids = itertools.count()


def current_graph_task_id() -> int:
    """torch._C._current_graph_task_id: the running backward pass's id, -1 outside one."""
    return _tasks.ids[-1] if _tasks.ids else -1


def is_checkpoint_valid() -> bool:
    """torch.autograd._is_checkpoint_valid: no running pass captures only some inputs' grads."""
    return not _tasks.checkpoint_valid or _tasks.checkpoint_valid[-1]


def queue_callback(callback: Callable[[], None]) -> None:
    """Variable._execution_engine.queue_callback: run `callback` when this backward pass ends."""
    if not _tasks.callbacks:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _tasks.callbacks[-1].append(callback)


def run_backward(*args: Any, **kwargs: Any) -> list[Tensor | None] | None:
    """_run_graph(...) as one graph task: it has an id (current_graph_task_id) and the
    callbacks queued while it runs (queue_callback) run when it has finished."""
    _tasks.ids.append(next(_task_ids))
    callbacks: list[Callable[[], None]] = []
    _tasks.callbacks.append(callbacks)
    _tasks.checkpoint_valid.append(is_checkpoint_valid() and kwargs.get("inputs") is None)
    try:
        result = _run_graph(*args, **kwargs)
        while callbacks:  # a callback may queue another
            callbacks.pop(0)()
        return result
    finally:
        _tasks.ids.pop()
        _tasks.callbacks.pop()
        _tasks.checkpoint_valid.pop()


def _run_graph(
    roots: Sequence[Tensor],
    root_grads: Sequence[Tensor | None],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Tensor] | None = None,
    accumulate: bool = True,
    allow_unused: bool = True,
) -> list[Tensor | None] | None:
    """Run the graph from `roots`; accumulate into leaves' .grad, or return grads of `inputs`."""
    root_edges = []
    for root, grad in zip(roots, root_grads):
        node, input_nr = gradient_edge(root)
        if node is None:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        root_edges.append((node, input_nr, grad))

    # Where to capture gradients for autograd.grad (or for backward(inputs=...)).
    capture: dict[tuple[Node, int], int] = {}
    if inputs is not None:
        for i, t in enumerate(inputs):
            node, input_nr = gradient_edge(t)
            if node is not None:
                capture[(node, input_nr)] = i
    captured: list[Tensor | None] = [None] * (len(inputs) if inputs is not None else 0)

    root_nodes = [root_edges[0][0]] if len(root_edges) == 1 else list({id(n): n for n, _, _ in root_edges}.values())
    dependencies = _collect_dependencies(root_nodes)
    buffers: dict[Node, list] = {}
    for node, input_nr, grad in root_edges:
        buffer = buffers.get(node)
        if buffer is None:
            buffer = buffers[node] = [None] * node._num_outputs
        buffer[input_nr] = _add(buffer[input_nr], grad)

    ready = ReadyQueue()
    for n in root_nodes:
        if dependencies.get(n, 0) == 0:
            ready.push(n)
    executed: list[Node] = []
    # With only some inputs wanted, run only the nodes on a path to one of them (torch's
    # exec_info): `ancestors` of the capturing nodes; `wanted` adds the capturing nodes.
    ancestors = unwanted = None
    if inputs is not None:
        ancestors, reached = _ancestors(root_nodes, {n for n, _ in capture})
        unwanted = reached - ancestors - {n for n, _ in capture}
    pruning.unwanted.append(unwanted)
    state = grad_mode.state
    previous_grad_mode = state.enabled
    state.enabled = create_graph
    pending = ready._heap  # `while ready:` without a __bool__ call per node
    try:
        while pending:
            node = pending.pop() if len(pending) == 1 else ready.pop()  # a lone node needs no heap work
            grads = buffers.pop(node, None) or [None] * node._num_outputs
            if node._pre_hooks or node._tensor_pre_hooks or node._retain_grad_hooks:
                grads = _run_pre_hooks(node, grads)
            if capture:
                for input_nr, grad in enumerate(grads):
                    index = capture.get((node, input_nr))
                    if index is not None:
                        captured[index] = _add(captured[index], grad)
            if not accumulate and isinstance(node, AccumulateGrad):
                continue
            if ancestors is not None and node not in ancestors:
                # nothing it computes reaches a wanted input: its edges just count as done
                for next_node, _ in node._next_edges:
                    if next_node is not None:
                        dependencies[next_node] -= 1
                        if dependencies[next_node] == 0:
                            ready.push(next_node)
                continue
            if _anomaly_state.enabled:
                outputs = call_node_with_anomaly_checks(_call_node, node, grads)
            else:
                outputs = _call_node(node, grads) if node._hooks else node.apply(grads)
            executed.append(node)
            for (next_node, input_nr), grad in zip(node._next_edges, outputs):
                if next_node is None:
                    continue
                if grad is not None:
                    buffer = buffers.get(next_node)
                    if buffer is None:
                        buffer = buffers[next_node] = [None] * next_node._num_outputs
                        buffer[input_nr] = grad
                    else:
                        previous = buffer[input_nr]
                        buffer[input_nr] = grad if previous is None else previous + grad
                remaining = dependencies[next_node] - 1
                dependencies[next_node] = remaining
                if remaining == 0:
                    if pending:
                        ready.push(next_node)
                    else:
                        pending.append(next_node)  # into an empty heap: nothing to order
            # no references left here: an AccumulateGrad's use-count test sees only its buffer
            outputs = grad = grads = None
    finally:
        state.enabled = previous_grad_mode
        pruning.unwanted.pop()
    if not retain_graph:
        for node in executed:
            node.release_variables()
    return captured if inputs is not None else None
