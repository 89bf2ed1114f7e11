"""torchpy.tensor, as_tensor, from_numpy: tensors from Python data and NumPy arrays."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtype as _dt
from .device import CPU, canonical_device
from .fp_warnings import QUIET, reset_quiet, set_quiet
from .members import NONE, declare
from .tensor import Tensor, UntypedStorage, from_array, meta_tensor
from .._dispatch import keys as _keys
from .._dispatch import tls as _tls
from .._dispatch.ops import op_for
from .promotion import promote_types
from .subclassing import alias_as

_PYTHON_BIT = _keys.key_bits(_keys.DispatchKey.Python)


def _lifted(result: Tensor) -> Tensor:
    """torch passes every tensor made from Python data through aten::lift_fresh, which returns
    its input; only a TorchDispatchMode can tell, so the op is dispatched only while one is active."""
    if not _tls.local.included & _PYTHON_BIT:
        return result
    return op_for("aten::lift_fresh")(result)


def _infer_dtype(data: Any) -> _dt.dtype:
    """The dtype torch.tensor infers: by the 'highest' kind of Python value found."""
    kinds = set()

    def visit(x: Any) -> None:
        if isinstance(x, Tensor):
            kinds.add(x.dtype)
        elif isinstance(x, np.ndarray):
            kinds.add(_dt.from_numpy_dtype(x.dtype))
        elif isinstance(x, (list, tuple)):
            for item in x:
                visit(item)
        elif isinstance(x, np.generic):
            kinds.add(_dt.from_numpy_dtype(x.dtype))
        else:
            kinds.add(_dt.python_number_type(x))

    visit(data)
    if not kinds:
        return _dt.get_default_dtype()
    dtypes = [k for k in kinds if isinstance(k, _dt.dtype)]
    numbers = [k for k in kinds if not isinstance(k, _dt.dtype)]
    result = None
    for d in dtypes:
        result = d if result is None else _promote_for_inference(result, d)
    for kind in numbers:
        d = _dt.scalar_default_dtype(kind())
        result = d if result is None else _promote_for_inference(result, d)
    return result


def _promote_for_inference(a: _dt.dtype, b: _dt.dtype) -> _dt.dtype:
    return promote_types(a, b)


def _to_array(data: Any, np_dtype: np.dtype) -> np.ndarray:
    """`data` as a new array of `np_dtype`; a value beyond the dtype's range becomes inf
    silently, as in torch (NumPy's cast warns)."""
    token = set_quiet(QUIET)
    try:
        if isinstance(data, Tensor):
            return np.array(data._data, dtype=np_dtype)
        if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
            return np.array([_to_array(x, np_dtype) for x in data], dtype=np_dtype)
        return np.array(data, dtype=np_dtype)
    finally:
        reset_quiet(token)


def tensor(data: Any, *, dtype: _dt.dtype | None = None, device: Any = None,
           requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of `data` (nested lists, numbers, arrays, tensors)."""
    if isinstance(data, Tensor):
        import warnings

        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
            "or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    target = dtype if dtype is not None else _infer_dtype(data)
    dev = canonical_device(device)
    array = _to_array(data, _dt.to_numpy_dtype(target))
    if dev.type == "meta":
        result = meta_tensor(array.shape, target)
    else:
        result = from_array(array, target)  # np.array made a fresh C-contiguous copy
        if isinstance(data, np.ndarray):
            result._stride = None  # torch keeps an array's own strides (zeros, if it is empty)
    result = _lifted(result)
    if requires_grad:
        result.requires_grad_(True)
    return result


def as_tensor(data: Any, dtype: _dt.dtype | None = None, device: Any = None) -> Tensor:
    """`data` as a tensor, sharing memory with a tensor or array when dtype and device allow."""
    if isinstance(data, Tensor):
        if dtype is None or dtype is data.dtype:
            return data
        return data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or _dt.to_numpy_dtype(dtype) == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing `array`'s memory."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    if any(s < 0 for s in array.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making a "
            "copy of your array  with array.copy().) "
        )
    result = from_array(array, _dt.from_numpy_dtype(array.dtype))
    result._stride = None  # read off the array, as torch keeps them (zeros, if it is empty)
    # As in torch, the storage starts at the array's first element and spans its extent.
    extent = 1 + sum((n - 1) * s for n, s in zip(array.shape, array.strides)) // array.itemsize if array.size else 0
    result._storage = UntypedStorage(array, extent * array.itemsize, CPU)
    return _lifted(result)


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def _legacy_new(cls: type, *args: Any, device: Any = None) -> Tensor:
    """torch.Tensor(...) and SubTensor(...): the legacy constructor. No arguments: an empty
    tensor; sizes (ints or a Size): an uninitialized tensor of them; a sequence or array: its
    data as the default dtype; a tensor: an alias of it."""
    default = _dt.get_default_dtype()
    if len(args) == 1 and isinstance(args[0], Tensor):
        result = args[0]  # torch 2.13 takes a tensor of any dtype, as it is
    elif not args or all(_is_size_value(a) for a in args) or (
            len(args) == 1 and isinstance(args[0], tuple) and type(args[0]).__name__ == "Size"):
        sizes = args[0] if len(args) == 1 and isinstance(args[0], tuple) else args
        shape = tuple(int(s) for s in sizes) if args else (0,)
        dev = canonical_device(device)
        np_dtype = _dt.to_numpy_dtype(default)
        result = meta_tensor(shape, default) if dev.type == "meta" else from_array(np.zeros(shape, np_dtype), default)
    elif len(args) == 1 and not isinstance(args[0], (str, bytes)):
        result = tensor(args[0], dtype=default, device=device)
    else:
        raise TypeError(f"new(): invalid data type '{type(args[-1]).__name__}'")
    return result if cls is Tensor else alias_as(cls, result)


def _is_size_value(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) or type(value).__name__ == "SymInt"


declare("__new__", _legacy_new, checks=NONE)  # torch.Tensor(...): the legacy constructor
