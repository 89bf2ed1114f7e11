"""Autograd's Tensor methods: backward, register_hook, retain_grad, .data, ..."""

from __future__ import annotations

from .._tensor.subclassing import _keyset_for_class, alias_as
from .._tensor.tensor import Tensor
from . import forward_grad, functional_api


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


def install() -> None:
    Tensor.backward = functional_api.tensor_backward
    # named as torch's Python method is, for resolve_name and __torch_function__ logs
    functional_api.tensor_backward.__name__ = "backward"
    functional_api.tensor_backward.__qualname__ = "Tensor.backward"
    functional_api.tensor_backward.__module__ = Tensor.__module__
    Tensor.register_hook = functional_api.register_hook
    Tensor.retain_grad = functional_api.retain_grad
    Tensor.retains_grad = property(functional_api.retains_grad)
    Tensor.register_post_accumulate_grad_hook = functional_api.register_post_accumulate_grad_hook
    Tensor._fw_grad = forward_grad.fw_grad_method
    Tensor.data = property(_get_data, _set_data)
