"""The backward node an operator call records: its formula, saved values and input edges."""

from __future__ import annotations

from typing import Any

from .._aten.fastcall import aten, call
from .._dispatch.ops import ops
from .._tensor.enums import strided
from .._tensor.tensor import Tensor
from .._tensor.torch_function import state as _function_state
from .derivatives import Derivative
from .anomaly_mode import record_creation, state as _anomaly_state
from .graph import Node, SavedTensor, _sequence, pruning


def input_info(t: Tensor) -> tuple:
    """What un-broadcasting and dtype restoration need to know about one input: (shape, dtype).
    A plain tuple: one is made per recorded input."""
    return (t._shape, t._dtype)


def sum_to_shape(grad: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Reduce a broadcast gradient back to `shape` (the one place un-broadcasting happens)."""
    if grad._shape == shape:
        return grad
    if not shape:
        return grad.sum()  # to a 0-dim tensor: one plain sum, as PyTorch's sum_to does
    lead = len(grad._shape) - len(shape)
    dims = list(range(lead))
    for i, size in enumerate(shape):
        if size == 1 and grad._shape[lead + i] != 1:
            dims.append(lead + i)
    # The ops straight to the dispatcher with normalized arguments, as torch's C++ sum_to
    # calls them (the Python bindings would resolve the overload for a list argument per call).
    if dims:
        grad = call(_SUM_DIM, grad._keyset, grad, dims, True)
    if lead:
        if grad.numel() == _numel(shape):
            return call(_VIEW, grad._keyset, grad, list(shape))
        return grad.reshape(shape)
    if grad._shape != shape:
        grad = grad.reshape(shape)
    return grad


_SUM_DIM = aten("sum.dim_IntList")
_VIEW = aten("view")


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


class OpNode(Node):
    """The node recorded for one call of an operator with a registered derivative.

    Each node name gets its own subclass, so type(t.grad_fn).__name__ is torch's
    ("MulBackward0"), as is name() ("MulBackward0", "torch::autograd::CopyBackwards").
    """

    _output_meta: list[tuple] | tuple = ()  # (shape, dtype) per output: set for multi-output nodes

    def __new__(cls, formula: Derivative, *args: Any) -> "OpNode":
        if cls is OpNode:
            cls = _node_class(formula.node_name)
        return super().__new__(cls)

    def __init__(self, formula: Derivative, next_edges: tuple, inputs: list[tuple | None],
                 num_outputs: int) -> None:
        super().__init__(next_edges)
        self._formula = formula
        self._inputs = inputs
        self._num_outputs = num_outputs
        self._saved: dict[str, Any] = {}
        self._output_meta: list[tuple] = []

    def apply(self, grad_outputs: list) -> list:
        if self._num_outputs == 1:
            if grad_outputs[0] is None:
                return [None] * len(self._inputs)
        elif all(g is None for g in grad_outputs):
            return [None] * len(self._inputs)
        # _torch_function.disable_for_internals / restore, inline: runs for every node
        state = _function_state
        saved_state = state.enabled, state.subclasses_enabled
        state.enabled = state.subclasses_enabled = False
        try:
            return self._apply(grad_outputs)
        finally:
            state.enabled, state.subclasses_enabled = saved_state

    def _apply(self, grad_outputs: list) -> list:
        if self._num_outputs == 1:
            grad = grad_outputs[0]
        else:
            # An integer output (indices) never gets a gradient: the formula sees None there.
            given = next(g for g in grad_outputs if g is not None)
            grad = tuple(_zeros(meta, given.device) if g is None and _differentiable(meta) else g
                         for g, meta in zip(grad_outputs, self._output_meta))
        formula = self._formula
        positional = formula.positional
        if positional is not None:  # the formula's parameters are the saved names: by position
            stored = self._saved
            values = []
            for name in positional:
                if name == "needs":
                    values.append(self._needs())
                else:
                    value = stored[name]
                    values.append(value.unpack() if type(value) is SavedTensor else _unpack(value))
            result = formula.backward(grad, *values)
        else:
            saved = {}
            for name, value in self._saved.items():  # a loop, not a comprehension: no frame of its own
                saved[name] = value.unpack() if type(value) is SavedTensor else _unpack(value)
            if formula.takes_needs:
                saved["needs"] = self._needs()
            result = formula.backward(grad, **saved)
        if type(result) is not tuple and not isinstance(result, (tuple, list)):
            result = (result,)
        out = []
        for grad, info, (node, _) in zip(result, self._inputs, self._next_edges):
            if grad is None or node is None or info is None:
                out.append(None)
                continue
            shape, dtype = info
            if grad._shape != shape:
                grad = sum_to_shape(grad, shape)
            if grad._dtype is not dtype and not (dtype.is_complex and not grad._dtype.is_complex):
                grad = grad.to(dtype)
            out.append(grad)
        return out

    def _needs(self) -> tuple[bool, ...]:
        """Per input: whether its gradient is wanted (it has an edge the backward pass runs)."""
        unwanted = pruning.unwanted[-1] if pruning.unwanted else None
        if unwanted is None:
            return tuple([node is not None for node, _ in self._next_edges])
        return tuple([node is not None and node not in unwanted for node, _ in self._next_edges])

    def release_variables(self) -> None:
        for value in self._saved.values():
            if type(value) is SavedTensor:
                value.release()
            elif type(value) is list:
                for item in value:
                    if type(item) is SavedTensor:
                        item.release()

    # torch exposes saved values as grad_fn._saved_<name>
    def __getattr__(self, name: str) -> Any:
        if name.startswith("_saved_"):
            return _unpack(self.__dict__.get("_saved", {}).get(name[len("_saved_"):]))
        raise AttributeError(name)


_NODE_CLASSES: dict[str, type] = {}


def _node_class(node_name: str) -> type:
    cls = _NODE_CLASSES.get(node_name)
    if cls is None:
        cls = _NODE_CLASSES[node_name] = type(node_name.rsplit("::", 1)[-1], (OpNode,), {"_name": node_name})
    return cls


_new = object.__new__


def new_op_node(cls: type, formula: Derivative, next_edges: tuple, inputs: list[tuple | None],
                num_outputs: int, saved: dict[str, Any]) -> OpNode:
    """OpNode(formula, ...) of node class `cls` (`_node_class(formula.node_name)`) with its
    saved values, without the constructor chain: the autograd kernel makes one per recorded op."""
    node = _new(cls)
    node._next_edges = next_edges
    node._sequence_nr = next(_sequence)
    node._formula = formula
    node._inputs = inputs
    node._num_outputs = num_outputs
    node._saved = saved
    if _anomaly_state.enabled:
        record_creation(node)
    return node


def _unpack(value: Any) -> Any:
    if isinstance(value, SavedTensor):
        return value.unpack()
    if isinstance(value, list):
        return [_unpack(v) for v in value]
    return value


def _differentiable(meta: tuple | None) -> bool:
    return meta is not None and (meta[1].is_floating_point or meta[1].is_complex)


def _zeros(meta: tuple, device) -> Tensor:
    """An unused output's gradient, as at::zeros(sizes, options) makes it."""
    shape, dtype = meta
    return ops.aten.zeros.default(list(shape), dtype=dtype, layout=strided, device=device)


class NotImplementedNode(Node):
    """Recorded for an op without a derivative: backward through it is an error."""

    def __init__(self, op_name: str, next_edges: tuple, num_outputs: int) -> None:
        super().__init__(next_edges)
        self._op_name = op_name
        self._name = "torch::autograd::NotImplemented"
        self._num_outputs = num_outputs

    def apply(self, grad_outputs: list) -> list:
        raise RuntimeError(f"derivative for {self._op_name} is not implemented")


NotImplementedNode.__name__ = NotImplementedNode.__qualname__ = "NotImplemented"  # torch's class name
