"""Tensor.__getitem__ and Tensor.__setitem__: Python indexing as the aten calls PyTorch makes.

`x[1, None, ::2, ..., 0]` is, in PyTorch and here, select, unsqueeze, slice and select
calls, one per index element, left to right (a TorchDispatchMode sees exactly those).
Integer and bool tensors (and lists, which become tensors) are collected, one per dim,
and handed to aten `index.Tensor` / `index_put_` at the end. An index with no basic part
returns `alias(x)`, so `x[...]` is a new view, never `x` itself.

Assignment indexes the same way, then writes the value into the result: `copy_` when the
shapes agree, `fill_` for a 0-dim value, else `copy_` from the value viewed without its
leading 1-dims and expanded to the target's shape.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np

from .._tensor import dtype as _dt
from .._tensor.creation import tensor
from .._tensor.enums import strided
from .._tensor.members import MODES, declare
from .._tensor.tensor import Tensor, from_array, meta_tensor
from .._tensor.torch_function import dispatch_from_binding
from .._tensor.function_modes import mode_on, track
from .._dispatch import tls
from .fastcall import aten, call, call_kw
from .kernels.copy import fill_value_array
from .kernels.view import INT64_MAX, tensor_type_name

_function_modes = False  # whether any thread has a TorchFunctionMode (function_modes keeps it)
track(globals())

_INDEX_TYPES_ERROR = (
    "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
    "(got {})"
)
_SEQUENCE_WARNING = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
    "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as "
    "tensor index, x[torch.tensor(seq)], which will result either in an error or a different result"
)


# --- the index elements ------------------------------------------------------------------------


def _is_int(x: Any) -> bool:
    return (isinstance(x, int) and not isinstance(x, bool)) or isinstance(x, np.integer)


def _select(self: Tensor, dim: int, index: int, real_dim: int = -1) -> Tensor:
    """x[..., i, ...]: select with indexing's own bounds check; its message names `real_dim`
    (the element's position in the index), not the dim of the partial result."""
    shape = self._shape
    if not shape and index == 0:
        raise IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ "
            "to convert a 0-dim tensor to a number")
    size = shape[dim] if shape else 0  # PyTorch reads a 0-dim tensor's size as 0 here
    if index < -size or index >= size:
        where = dim if real_dim < 0 else real_dim
        raise IndexError(f"index {index} is out of bounds for dimension {where} with size {size}")
    return call(aten("select.int"), self._keyset, self, dim, index)


def _slice_args(index: slice) -> tuple[int, int, int]:
    step = 1 if index.step is None else operator.index(index.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    start = 0 if index.start is None else operator.index(index.start)
    stop = INT64_MAX if index.stop is None else operator.index(index.stop)
    return start, stop, step


def _slice(self: Tensor, dim: int, index: slice, skip_full: bool) -> Tensor:
    start, stop, step = _slice_args(index)
    if skip_full and start == 0 and step == 1 and (
            stop == INT64_MAX or (dim < len(self._shape) and stop >= self._shape[dim])):
        return self  # a full slice inside a tuple is no op at all
    if step == 1:
        return call(aten("slice.Tensor"), self._keyset, self, dim, start, stop)
    return call(aten("slice.Tensor"), self._keyset, self, dim, start, stop, step)


def _unsqueeze(self: Tensor, dim: int) -> Tensor:
    return call(aten("unsqueeze"), self._keyset, self, dim)


def _bool_index(self: Tensor, value: bool) -> Tensor:
    """The int64 index tensor a Python/0-dim bool turns into: [0] if true, [] if false."""
    result = call_kw(aten("empty.memory_format"), 0, ([1 if value else 0],),
                     {"dtype": _dt.int64, "layout": strided, "device": self._device})
    if value:
        call(aten("fill_.Scalar"), result._keyset, result, 0.0)
    return result


def _sequence_to_tensor(self: Tensor, seq: Any) -> Tensor:
    device = self._device if self._device.type != "meta" else None
    if not np.asarray(seq).size:  # an empty list indexes nothing, as int64 (not the default float)
        return tensor(seq, dtype=_dt.int64, device=device)  # tensor() passes it through lift_fresh
    return tensor(seq, device=device)


def lift_fresh(t: Tensor) -> Tensor:
    return call(aten("lift_fresh"), t._keyset, t)


def _local_scalar(t: Tensor) -> Any:
    return call(aten("_local_scalar_dense"), t._keyset, t)


def _specified_dims(index: tuple) -> int:
    count = 0
    for obj in index:
        if isinstance(obj, Tensor):
            count += len(obj._shape) if obj._dtype in (_dt.bool, _dt.uint8) else 1
        elif obj is None or obj is Ellipsis or isinstance(obj, bool):
            continue
        else:
            count += 1
    return count


def _as_tuple(index: Any) -> tuple:
    """The index as a tuple of elements, with NumPy's rule for short non-tuple sequences."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, Tensor) or not _is_sequence(index):
        return (index,)
    try:
        n = len(index)
    except TypeError:
        return (index,)
    if n >= 32:
        return (index,)
    for obj in index:
        if isinstance(obj, (Tensor, slice)) or _is_sequence(obj) or obj is Ellipsis or obj is None:
            warnings.warn(_SEQUENCE_WARNING, UserWarning, stacklevel=3)
            return tuple(index)
    return (index,)


def _is_sequence(obj: Any) -> bool:
    return isinstance(obj, (list, tuple, str, np.ndarray)) or (
        hasattr(obj, "__getitem__") and hasattr(obj, "__len__") and not isinstance(obj, (dict, Tensor)))


def apply_slicing(self: Tensor, index: tuple) -> tuple[Tensor, list]:
    """The basic-indexing result of `index` and the tensor indices left for index/index_put_
    (one entry per dim of the result, None where that dim is not tensor-indexed)."""
    ndim = len(self._shape)
    specified = _specified_dims(index)
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    result = self
    dim = 0  # the next dim of `result` to index
    tensors: list = []
    for position, obj in enumerate(index):  # PyTorch's messages name the index's position
        if _is_int(obj):
            result = _select(result, dim, int(obj), position)
        elif isinstance(obj, slice):
            result = _slice(result, dim, obj, skip_full=True)
            dim += 1
        elif obj is None:
            result = _unsqueeze(result, dim)
            dim += 1
        elif obj is Ellipsis:
            dim += ndim - specified
        elif isinstance(obj, bool):
            result = _unsqueeze(result, dim)
            _record(tensors, dim, _bool_index(result, obj))
            dim += 1
        elif isinstance(obj, Tensor):
            result, dim = _tensor_element(result, dim, obj, tensors, position)
        elif _is_sequence(obj):
            _record(tensors, dim, _sequence_to_tensor(self, obj))
            dim += 1
        else:
            raise IndexError(_INDEX_TYPES_ERROR.format(type(obj).__name__))
    return result, tensors


def _tensor_element(result: Tensor, dim: int, obj: Tensor, tensors: list, real_dim: int) -> tuple[Tensor, int]:
    d = obj._dtype
    if not obj._shape and not (d.is_floating_point or d.is_complex):
        if d is _dt.bool or d is _dt.uint8:
            result = _unsqueeze(result, dim)
            _record(tensors, dim, _bool_index(result, bool(_local_scalar(obj))))
            return result, dim + 1
        return _select(result, dim, int(_local_scalar(obj)), real_dim), dim
    _record(tensors, dim, obj)
    return result, dim + (len(obj._shape) if d is _dt.bool or d is _dt.uint8 else 1)


def _keysets(tensors: list) -> int:
    ks = 0
    for t in tensors:
        if t is not None:
            ks |= t._keyset
    return ks


def _record(tensors: list, dim: int, index: Tensor) -> None:
    while len(tensors) < dim:
        tensors.append(None)
    tensors.append(index)


# --- __getitem__ ---------------------------------------------------------------------------------


_SELECT = aten("select.int")
_SELECT_PROBE = _SELECT.probe_call_raw
_local = tls.local


def getitem(self: Tensor, index: Any) -> Tensor:
    if type(index) is int and self._shape and -self._shape[0] <= index < self._shape[0] and not (_function_modes and mode_on()):
        # x[i]: _select's checks passed; select.int as call() would make it, one frame less
        hit = _SELECT_PROBE(self._keyset | _local.salt)
        if hit is not None:
            return hit[0](_SELECT, hit[1], (self, 0, index), {})
        return call(_SELECT, self._keyset, self, 0, index)
    if _function_modes and mode_on():
        return dispatch_from_binding(getitem, (self, index), {})
    if _is_int(index):
        return _select(self, 0, int(index))
    if isinstance(index, slice):
        if not self._shape:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        return _slice(self, 0, index, skip_full=False)
    if index is None:
        return _unsqueeze(self, 0)
    if index is Ellipsis:
        return call(aten("alias"), self._keyset, self)
    result, tensors = apply_slicing(self, _as_tuple(index))
    if tensors:
        return call(aten("index.Tensor"), result._keyset | _keysets(tensors), result, tensors)
    if result is self:
        return call(aten("alias"), self._keyset, self)
    return result


# --- __setitem__ ---------------------------------------------------------------------------------


def _value_tensor(self: Tensor, value: Any) -> Tensor:
    """The value being assigned, as a tensor: a Python number becomes a 0-dim tensor of self's dtype."""
    if isinstance(value, Tensor):
        return value
    if not isinstance(value, (bool, int, float, complex)) and not isinstance(value, np.number):
        raise TypeError(f"can't assign a {type(value).__name__} to a {tensor_type_name(self)}")
    if isinstance(value, np.number):
        value = value.item()
    array = fill_value_array(value, self._dtype)
    if self._data is None:
        return lift_fresh(meta_tensor((), self._dtype))
    return lift_fresh(from_array(np.asarray(array).reshape(()), self._dtype))


def _strip_leading_ones(shape: tuple) -> list[int]:
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return list(shape[i:])


def copy_to(dst: Tensor, src: Tensor) -> None:
    """Write src into dst as indexing assignment does."""
    ks = dst._keyset | src._keyset
    if dst._shape == src._shape:
        call(aten("copy_"), ks, dst, src)
        return
    if not src._shape and src._device.type == "cpu":
        call(aten("fill_.Tensor"), ks, dst, src)
        return
    src = call(aten("view"), src._keyset, src, _strip_leading_ones(src._shape))
    if src._shape != dst._shape:
        src = call(aten("expand"), src._keyset, src, list(dst._shape))
    call(aten("copy_"), ks, dst, src)


def setitem(self: Tensor, index: Any, value: Any) -> None:
    if _function_modes and mode_on():
        return dispatch_from_binding(setitem, (self, index, value), {})
    value = _value_tensor(self, value)
    if index is False:
        return
    if index is Ellipsis:
        copy_to(self, value)
    elif index is None or index is True:
        copy_to(_unsqueeze(self, 0), value)
    elif _is_int(index):
        copy_to(_select(self, 0, int(index)), value)
    elif isinstance(index, slice):
        if not self._shape:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        copy_to(_slice(self, 0, index, skip_full=True), value)
    else:
        result, tensors = apply_slicing(self, _as_tuple(index))
        if not tensors:
            copy_to(result, value)
            return
        stripped = _strip_leading_ones(value._shape)
        if len(stripped) != len(value._shape):
            value = call(aten("view"), value._keyset, value, stripped)
        call(aten("index_put_"), result._keyset | value._keyset | _keysets(tensors), result, tensors, value)


getitem.__name__ = getitem.__qualname__ = "__getitem__"
setitem.__name__ = setitem.__qualname__ = "__setitem__"


declare("__getitem__", getitem, checks=MODES)
declare("__setitem__", setitem, checks=MODES)
