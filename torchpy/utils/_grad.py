"""Clearing parameters' gradients: what Module.zero_grad and Optimizer.zero_grad share."""

from __future__ import annotations

from typing import Iterable

from .._tensor.tensor import Tensor


def zero_grads(params: Iterable[Tensor], set_to_none: bool = True) -> None:
    """Each parameter's .grad set to None, or zeroed in place (detached first if it has history,
    as torch does)."""
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
            continue
        if p.grad.grad_fn is not None:
            p.grad = p.grad.detach()
        else:
            p.grad.requires_grad_(False)
        p.grad.zero_()
