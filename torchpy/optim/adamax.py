"""torchpy.optim.Adamax: Adam with the infinity norm."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .._aten.public import functions
from .._tensor.tensor import Tensor
from . import _common as C
from .optimizer import Optimizer, _use_grad_for_differentiable

__all__ = ["Adamax"]


class Adamax(Optimizer):
    # options that a state saved before they existed lacks, set on load
    _load_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))

    _load_scalar_states = ("step",)
    def __init__(self, params: Iterable[Any], lr: float | Tensor = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False) -> None:
        C.check_lr(lr)
        C.check_nonnegative(eps, "epsilon value")
        C.check_betas(betas)
        C.check_nonnegative(weight_decay, "weight_decay value")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = C.run_closure(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr = C.item(C.to_scalar(group["lr"]))
            eps, weight_decay = group["eps"], group["weight_decay"]
            params = C.grads_of(group)
            C.check_capturable(group["capturable"], params)
            for param in params:
                C.no_sparse(param, "Adamax")
                state = self.state[param]
                if len(state) == 0:
                    state["step"] = functions.tensor(0.0, dtype=C.scalar_dtype())
                    state["exp_avg"] = functions.zeros_like(param)
                    state["exp_inf"] = functions.zeros_like(param)
                exp_avg, exp_inf, step_t = state["exp_avg"], state["exp_inf"], state["step"]
                grad = param.grad if not group["maximize"] else -param.grad
                step_t += 1
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)
                exp_avg.lerp_(grad, 1 - beta1)
                if not group["differentiable"]:
                    functions.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
                else:
                    both = functions.cat([exp_inf.mul_(beta2).unsqueeze(0), grad.abs().add_(eps).unsqueeze_(0)], 0)
                    exp_inf.copy_(functions.amax(both, 0, keepdim=False))
                clr = lr / (1 - beta1 ** step_t.item())
                param.addcdiv_(exp_avg, exp_inf, value=-clr)
        return loss
