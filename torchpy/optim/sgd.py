"""torchpy.optim.SGD: stochastic gradient descent with momentum, dampening, Nesterov, weight decay."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .._tensor.tensor import Tensor
from ..autograd import grad_mode
from ._common import check_fused_device, check_fused_options
from .optimizer import Optimizer, _use_grad_for_differentiable

__all__ = ["SGD"]


class SGD(Optimizer):
    # options that a state saved before they existed lacks, set on load
    _load_defaults = (("nesterov", False), ("maximize", False), ("foreach", None), ("differentiable", False),
                      ("fused", False))

    def __init__(self, params: Iterable[Any], lr: float | Tensor = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
            "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
            "differentiable": differentiable, "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        # foreach / fused are accepted and run the single-tensor path: the same numbers, other aten calls
        super().__init__(params, defaults)
        check_fused_options(fused, foreach, differentiable)

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        for group in self.param_groups:
            momentum = group["momentum"]
            params = [p for p in group["params"] if p.grad is not None]
            if group["fused"]:
                for p in params:
                    check_fused_device(p)
            buffers = [self.state[p].get("momentum_buffer") for p in params] if momentum != 0 else []
            _single_tensor_sgd(params, buffers, weight_decay=group["weight_decay"], momentum=momentum,
                               lr=group["lr"], dampening=group["dampening"], nesterov=group["nesterov"],
                               maximize=group["maximize"])
            if momentum != 0:
                for p, buf in zip(params, buffers):
                    self.state[p]["momentum_buffer"] = buf
        return loss


def _single_tensor_sgd(params: list[Tensor], momentum_buffers: list[Tensor | None], *, weight_decay: float,
                       momentum: float, lr: float | Tensor, dampening: float, nesterov: bool,
                       maximize: bool) -> None:
    """One step, parameter by parameter, with the aten calls of torch's foreach=False path."""
    if isinstance(lr, Tensor) and lr.dim() != 0:
        lr = lr.squeeze()  # a 1-element tensor lr acts as a 0-d one
    for i, param in enumerate(params):
        grad = param.grad if not maximize else -param.grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        if momentum != 0:
            buf = momentum_buffers[i]
            if buf is None:
                buf = grad.detach().clone()
                momentum_buffers[i] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = grad.add(buf, alpha=momentum) if nesterov else buf
        if isinstance(lr, Tensor) and lr.requires_grad:
            param.addcmul_(grad, lr, value=-1)
        elif isinstance(lr, Tensor):
            # torch's argument parser reads a 0-d tensor as the Scalar alpha (neg, then item);
            # torchpy's does not take tensors for Scalars yet, so the item() is explicit
            param.add_(grad, alpha=(-lr).item())
        else:
            param.add_(grad, alpha=-lr)
