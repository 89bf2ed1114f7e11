"""Tensors rebuilt from a checkpoint, as torch._utils' rebuild functions rebuild them.

The pickle names torch's functions (`torch._utils._rebuild_tensor_v2`, ...); the unpicklers map
those names to these. A tensor is rebuilt over the storage that its persistent id loaded, with
the saved offset, sizes and strides, so tensors that shared a storage when saved share one
again (views stay views of one memory).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._aten.kernels.view import strided_values
from .._tensor import enums
from .._tensor.device import META
from .._tensor.dtype import dtype, to_numpy_dtype
from .._tensor.subclassing import as_subclass
from .._tensor.tensor import Tensor, from_array, meta_tensor
from ..nn.parameter import Parameter
from ._storage import LoadedStorage


def _rebuild_tensor(storage: LoadedStorage, storage_offset: int, size: Any, stride: Any,
                    d: dtype | None = None) -> Tensor:
    d = storage.dtype if d is None else d
    size, stride, offset = tuple(size), tuple(stride), int(storage_offset)
    untyped = storage.untyped
    if untyped.device is META or untyped._buffer is None:
        return meta_tensor(size, d, stride, offset, untyped)
    array = strided_values(np, untyped._buffer, size, stride, offset, to_numpy_dtype(d))
    t = from_array(array, d)
    t._stride, t._offset, t._storage = stride, offset, untyped
    return t


def _rebuild_tensor_v2(storage: LoadedStorage, storage_offset: int, size: Any, stride: Any,
                       requires_grad: bool, backward_hooks: Any, metadata: Any = None) -> Tensor:
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor_v3(storage: LoadedStorage, storage_offset: int, size: Any, stride: Any,
                       requires_grad: bool, backward_hooks: Any, d: dtype, metadata: Any = None) -> Tensor:
    t = _rebuild_tensor(storage, storage_offset, size, stride, d)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data: Tensor, requires_grad: bool, backward_hooks: Any) -> Parameter:
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data: Tensor, requires_grad: bool, backward_hooks: Any,
                                  state: Any) -> Parameter:
    param = Parameter(data, requires_grad)
    set_obj_state(param, state)
    return param


def _rebuild_from_type_v2(func: Any, new_type: type, args: tuple, state: Any) -> Any:
    """A tensor subclass, or a tensor carrying attributes: rebuilt by `func`, then given its type
    and its saved attributes."""
    result = func(*args)
    if type(result) is not new_type:
        result = as_subclass(result, new_type)
    setstate = getattr(type(result), "__setstate__", None)
    if setstate is not None and setstate is not getattr(Tensor, "__setstate__", None):
        result.__setstate__(state)
    else:
        set_obj_state(result, state)
    return result


def set_obj_state(obj: Any, state: Any) -> None:
    """Attributes from a saved state: a dict, or (dict, slots), as pickle's BUILD sets them."""
    if isinstance(state, tuple):
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    if dict_state:
        for key, value in dict_state.items():
            setattr(obj, key, value)
    if slots_state:
        for key, value in slots_state.items():
            setattr(obj, key, value)


def _get_layout(name: str) -> Any:
    """torch.serialization._get_layout: a layout from its printed name ('torch.strided')."""
    for value in vars(enums).values():
        if isinstance(value, enums.layout) and str(value) == name:
            return value
    raise KeyError(name)

