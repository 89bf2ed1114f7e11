"""torchpy.optim.RMSprop (plain, centered, with momentum)."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .._aten.public import functions
from .._tensor.tensor import Tensor
from . import _common as C
from .optimizer import Optimizer, _use_grad_for_differentiable

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    # options that a state saved before they existed lacks, set on load
    _load_defaults = (("momentum", 0), ("centered", False), ("foreach", None), ("maximize", False),
                      ("differentiable", False), ("capturable", False))

    _load_scalar_states = ("step",)
    def __init__(self, params: Iterable[Any], lr: float | Tensor = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        C.check_lr(lr)
        C.check_nonnegative(eps, "epsilon value")
        C.check_nonnegative(momentum, "momentum value")
        C.check_nonnegative(weight_decay, "weight_decay value")
        C.check_nonnegative(alpha, "alpha value")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = C.run_closure(closure)
        for group in self.param_groups:
            lr = C.item(C.to_scalar(group["lr"]))
            alpha, eps, weight_decay, momentum = group["alpha"], group["eps"], group["weight_decay"], group["momentum"]
            params = C.grads_of(group)
            for p in params:
                C.no_sparse(p, "RMSprop")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = functions.zeros((), dtype=C.scalar_dtype())
                    state["square_avg"] = functions.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = functions.zeros_like(p)
                    if group["centered"]:
                        state["grad_avg"] = functions.zeros_like(p)
            C.check_capturable(group["capturable"], params)
            for param in params:
                state = self.state[param]
                state["step"] += 1
                grad = param.grad if not group["maximize"] else -param.grad
                square_avg = state["square_avg"]
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)
                square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
                if group["centered"]:
                    grad_avg = state["grad_avg"]
                    grad_avg.lerp_(grad, 1 - alpha)
                    avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg = avg.add(eps) if group["differentiable"] else avg.add_(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum).addcdiv_(grad, avg)
                    param.add_(buf, alpha=-lr)
                else:
                    param.addcdiv_(grad, avg, value=-lr)
        return loss
