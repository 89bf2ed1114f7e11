"""Autograd's Tensor methods: backward, register_hook, retain_grad, ..."""

from __future__ import annotations

from .._tensor.tensor import Tensor
from . import forward_grad, functional_api


def install() -> None:
    Tensor.backward = functional_api.tensor_backward
    Tensor.register_hook = functional_api.register_hook
    Tensor.retain_grad = functional_api.retain_grad
    Tensor.retains_grad = property(functional_api.retains_grad)
    Tensor.register_post_accumulate_grad_hook = functional_api.register_post_accumulate_grad_hook
    Tensor._fw_grad = forward_grad.fw_grad_method
