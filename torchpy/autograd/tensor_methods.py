"""Autograd's Tensor methods: backward, register_hook, retain_grad, .data, ..."""

from __future__ import annotations

from typing import Callable

from .._tensor.function_modes import call_mode, mode_on, track
from .._tensor.members import MODES, NONE, declare, tensor_member
from .._tensor.subclassing import _keyset_for_class, alias_as
from .._tensor.tensor import Tensor
from ..utils._handles import RemovableHandle
from . import forward_grad, functional_api

_function_modes = False  # whether any thread has a TorchFunctionMode (function_modes keeps it)
track(globals())


def _get_data(self: Tensor) -> Tensor:
    """`x.data`: a plain Tensor over x's memory, outside autograd, with its own version counter."""
    out = alias_as(Tensor, self)
    out._base = None
    out._version_counter = None
    return out


def _set_data(self: Tensor, new: Tensor) -> None:
    """`x.data = y`: x takes y's memory and metadata, keeping its own autograd identity."""
    if not isinstance(new, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(new).__name__}")
    if new._data is not None:
        new.untyped_storage()  # materialize the lazy storage so both share one object
    for name in ("_data", "_shape", "_stride", "_offset", "_dtype", "_device", "_storage"):
        setattr(self, name, getattr(new, name))
    self._keyset = _keyset_for_class(type(self), new._keyset)


# named as torch's Python method is, for resolve_name and __torch_function__ logs
functional_api.tensor_backward.__name__ = "backward"
functional_api.tensor_backward.__qualname__ = "Tensor.backward"
functional_api.tensor_backward.__module__ = Tensor.__module__
declare("backward", functional_api.tensor_backward, checks=MODES)  # (it checks the protocol itself)
declare("_fw_grad", forward_grad.fw_grad_method, checks=NONE)


# The hook methods look for a mode here, not in functional_api (autograd's own calls of those
# functions are C++ in torch, where no mode sees them).
@tensor_member(checks=MODES)
def register_hook(self: Tensor, hook: Callable) -> RemovableHandle:
    if _function_modes and mode_on():
        return call_mode(Tensor.register_hook, self, hook)
    return functional_api.register_hook(self, hook)


@tensor_member(checks=MODES)
def retain_grad(self: Tensor) -> None:
    if _function_modes and mode_on():
        return call_mode(Tensor.retain_grad, self)
    return functional_api.retain_grad(self)


@tensor_member(checks=MODES)
@property
def retains_grad(self: Tensor) -> bool:
    if _function_modes and mode_on():
        return call_mode(Tensor.retains_grad.__get__, self)
    return functional_api.retains_grad(self)


@tensor_member(checks=MODES)
def register_post_accumulate_grad_hook(self: Tensor, hook: Callable) -> RemovableHandle:
    if _function_modes and mode_on():
        return call_mode(Tensor.register_post_accumulate_grad_hook, self, hook)
    return functional_api.register_post_accumulate_grad_hook(self, hook)


def _get_data_checked(self: Tensor) -> Tensor:
    if _function_modes and mode_on():
        return call_mode(Tensor.data.__get__, self)
    return _get_data(self)


declare("data", property(_get_data_checked, _set_data), checks=MODES)
