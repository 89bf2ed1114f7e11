"""torchpy.optim.NAdam: Adam with Nesterov momentum (and momentum decay)."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .._aten.public import functions
from .._tensor.tensor import Tensor
from . import _common as C
from .optimizer import Optimizer, _use_grad_for_differentiable

__all__ = ["NAdam"]


class NAdam(Optimizer):
    # options that a state saved before they existed lacks, set on load
    _load_defaults = (("maximize", False), ("foreach", None), ("capturable", False), ("differentiable", False),
                      ("decoupled_weight_decay", False))

    _load_scalar_states = ("step", "mu_product")
    def __init__(self, params: Iterable[Any], lr: float | Tensor = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        C.check_lr(lr)
        C.check_nonnegative(eps, "epsilon value")
        C.check_betas(betas)
        C.check_nonnegative(weight_decay, "weight_decay value")
        C.check_nonnegative(momentum_decay, "momentum_decay value")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = C.run_closure(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr = C.item(C.to_scalar(group["lr"]))
            eps, weight_decay, momentum_decay = group["eps"], group["weight_decay"], group["momentum_decay"]
            params = C.grads_of(group)
            for p in params:
                C.no_sparse(p, "NAdam")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = functions.tensor(0.0, dtype=C.scalar_dtype())
                    state["mu_product"] = functions.tensor(1.0, dtype=C.scalar_dtype())
                    state["exp_avg"] = functions.zeros_like(p)
                    state["exp_avg_sq"] = functions.zeros_like(p)
            C.check_capturable(group["capturable"], params, "params, mu_products and state_steps")
            for param in params:
                state = self.state[param]
                grad = param.grad if not group["maximize"] else -param.grad
                exp_avg, exp_avg_sq, mu_product, step_t = (state["exp_avg"], state["exp_avg_sq"],
                                                           state["mu_product"], state["step"])
                step_t += 1
                step = step_t.item()
                bias_correction2 = 1 - beta2 ** step
                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        param.mul_(1 - lr * weight_decay)
                    else:
                        grad = grad.add(param, alpha=weight_decay)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                mu_product *= mu  # a float32 tensor: its rounding is part of the result
                exp_avg.lerp_(grad, 1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                denom = exp_avg_sq.div(bias_correction2).sqrt()
                if group["differentiable"]:
                    # out of place, with mu_product a tensor, so that the graph is kept
                    denom = denom.add(eps)
                    mu_product_next = mu_product * mu_next
                    param.addcdiv_(grad * (-lr * (1.0 - mu) / (1.0 - mu_product)), denom)
                    param.addcdiv_(exp_avg * (-lr * mu_next / (1.0 - mu_product_next)), denom)
                    continue
                product = mu_product.item()
                mu_product_next = product * mu_next
                denom.add_(eps)
                param.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - product)))
                param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
        return loss
