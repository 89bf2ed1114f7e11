"""Autograd's Tensor methods: backward, register_hook, retain_grad, ..."""

from __future__ import annotations

from .._tensor.tensor import Tensor
from . import functional_api


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
