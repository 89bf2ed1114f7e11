"""torchpy.optim.RAdam: Adam with a rectified adaptive learning rate."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .._aten.public import functions
from .._tensor.tensor import Tensor
from . import _common as C
from .optimizer import Optimizer, _use_grad_for_differentiable

__all__ = ["RAdam"]


class RAdam(Optimizer):
    # options that a state saved before they existed lacks, set on load
    _load_defaults = (("foreach", None), ("maximize", False), ("differentiable", False),
                      ("decoupled_weight_decay", False), ("capturable", False))

    _load_scalar_states = ("step",)
    def __init__(self, params: Iterable[Any], lr: float | Tensor = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        C.check_lr(lr)
        C.check_nonnegative(eps, "epsilon value")
        C.check_betas(betas)
        C.check_nonnegative(weight_decay, "weight_decay value")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = C.run_closure(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr = C.item(C.to_scalar(group["lr"]))
            eps, weight_decay = group["eps"], group["weight_decay"]
            params = C.grads_of(group)
            for p in params:
                C.no_sparse(p, "RAdam")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = functions.tensor(0.0, dtype=C.scalar_dtype())
                    state["exp_avg"] = functions.zeros_like(p)
                    state["exp_avg_sq"] = functions.zeros_like(p)
            C.check_capturable(group["capturable"], params)
            for param in params:
                state = self.state[param]
                grad = param.grad if not group["maximize"] else -param.grad
                exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
                step_t += 1
                step = step_t.item()
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        param.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(param, alpha=weight_decay)
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                bias_corrected_exp_avg = exp_avg / bias_correction1
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    sq = exp_avg_sq.sqrt()
                    sq = sq.add(eps) if group["differentiable"] else sq.add_(eps)
                    adaptive_lr = (bias_correction2 ** 0.5) / sq
                    param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
                else:
                    param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)
        return loss
