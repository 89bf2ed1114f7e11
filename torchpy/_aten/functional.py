"""The Python-level functions of torch/functional.py and torch's hand-written bindings that
torchpy's op table cannot generate: broadcast_tensors, broadcast_shapes, meshgrid,
cartesian_prod (varargs), result_type (a dtype, not a tensor) and range (deprecated, warns).

Each calls the aten op PyTorch's calls, so a TorchDispatchMode sees the same ops, and lets
__torch_function__ overrides see the call as torch's do (the tensors as the arguments).
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

from .._tensor import dtype as _dt
from .._tensor.device import device as _device
from .._tensor.enums import strided
from .._tensor.promotion import result_type as _promoted
from .._tensor.tensor import Size, Tensor
from .._tensor.torch_function import handle_torch_function, needs_override
from .fastcall import aten, call, call_kw


def _unpack(tensors: tuple) -> Any:
    """f(a, b) and f([a, b]) alike, as torch's varargs functions accept both."""
    return tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors


def _keyset(tensors: Any) -> Any:
    ks = 0
    for t in tensors:
        ks |= t._keyset
    return ks


def broadcast_tensors(*tensors: Any) -> tuple[Tensor, ...]:
    """The tensors expanded to their common shape (views)."""
    if needs_override(tensors, {}):
        return handle_torch_function(broadcast_tensors, tensors, *tensors)
    return tuple(call(aten("broadcast_tensors"), _keyset(tensors), list(tensors)))


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape broadcast_tensors would give tensors of these shapes, computed without tensors."""
    as_tuples = [(s,) if isinstance(s, numbers.Integral) else tuple(s) for s in shapes]
    result = [1] * max((len(s) for s in as_tuples), default=0)
    for index, shape in enumerate(as_tuples):
        for i in range(-1, -1 - len(shape), -1):
            size = shape[i]
            if size < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if size == 1 or size == result[i]:
                continue
            if result[i] != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at {i}! Mismatching "
                                   f"argument at index {index} had {shape}; but expected shape should be "
                                   f"broadcastable to {result}")
            result[i] = size
    return Size(result)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids: one output per input, each of the shape of all inputs' lengths."""
    if needs_override(tensors, {}):
        return handle_torch_function(meshgrid, tensors, *tensors, indexing=indexing)
    tensors = list(_unpack(tensors))
    if indexing is None:  # aten::meshgrid warns that indexing will be required
        return tuple(call(aten("meshgrid"), _keyset(tensors), tensors))
    return tuple(call_kw(aten("meshgrid.indexing"), _keyset(tensors), (tensors,), {"indexing": indexing}))


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """The Cartesian product of 1-D tensors, one row per combination (itertools.product's order)."""
    if needs_override(tensors, {}):
        return handle_torch_function(cartesian_prod, tensors, *tensors)
    return call(aten("cartesian_prod"), _keyset(tensors), list(tensors))


_NUMBER = (bool, int, float, complex)


def _result_type_operand(x: Any, position: int, args: tuple) -> Any:
    if isinstance(x, Tensor) or isinstance(x, numbers.Number):
        return x
    names = ", ".join(type(a).__name__ for a in args)
    marked = ", ".join(f"!{type(a).__name__}!" for a in args)
    raise TypeError(
        f"result_type() received an invalid combination of arguments - got ({names}), but expected one of:\n"
        " * (Tensor tensor, Tensor other)\n"
        f"      didn't match because some of the arguments have invalid types: ({marked})\n"
        " * (Number scalar, Tensor tensor)\n"
        f"      didn't match because some of the arguments have invalid types: ({marked})\n"
        " * (Tensor tensor, Number other)\n"
        f"      didn't match because some of the arguments have invalid types: ({marked})\n"
        " * (Number scalar1, Number scalar2)\n"
        f"      didn't match because some of the arguments have invalid types: ({marked})\n")


def result_type(tensor: Any, other: Any) -> _dt.dtype:
    """The dtype an arithmetic op on these two operands would give (tensors or numbers)."""
    args = (tensor, other)
    if needs_override(args, {}):
        return handle_torch_function(result_type, args, tensor, other)
    for position, x in enumerate(args):
        _result_type_operand(x, position, args)
    return _promoted(tensor, other)


_RANGE_WARNING = ("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values "
                  "in [start, end).")


def range_(start: Any, end: Any, step: Any = 1, *, out: Tensor | None = None, dtype: _dt.dtype | None = None,
          layout: Any = strided, device: Any = None, requires_grad: bool = False) -> Tensor:
    """[start, end] in steps of `step` (end included); deprecated in torch for torch.arange."""
    warnings.warn(_RANGE_WARNING, UserWarning, stacklevel=2)
    if out is not None:
        raise NotImplementedError("torchpy.range(..., out=) is not supported yet")
    kwargs = {"dtype": dtype if dtype is not None else _dt.get_default_dtype(), "layout": layout,
              "device": _device(device) if device is not None else _device("cpu")}
    args = (start, end) if step == 1 else (start, end, step)  # a default step is not passed on, as in torch
    result = call_kw(aten("range.step"), 0, args, kwargs)
    return result.requires_grad_() if requires_grad else result


range_.__name__ = range_.__qualname__ = "range"


def _tensor_query(name: str) -> Any:
    """torch.<name>(input): the Tensor method of that name, as a function of one tensor."""
    def function(input: Any) -> Any:
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        if needs_override((input,), {}):
            return handle_torch_function(function, (input,), input)
        return getattr(input, name)()

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"input.{name}()"
    return function


_QUERIES = [_tensor_query(name) for name in ("is_floating_point", "is_complex", "is_signed", "numel")]

FUNCTIONS = {f.__name__: f for f in (broadcast_tensors, broadcast_shapes, meshgrid, cartesian_prod, result_type,
                                     range_, *_QUERIES)}
