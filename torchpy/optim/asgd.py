"""torchpy.optim.ASGD: averaged stochastic gradient descent."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .._aten.public import functions
from .._tensor.tensor import Tensor
from . import _common as C
from .optimizer import Optimizer, _use_grad_for_differentiable

__all__ = ["ASGD"]


class ASGD(Optimizer):
    # options that a state saved before they existed lacks, set on load
    _load_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))

    _load_scalar_states = ("step", "eta", "mu")
    def __init__(self, params: Iterable[Any], lr: float | Tensor = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        C.check_lr(lr)
        C.check_nonnegative(weight_decay, "weight_decay value")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = C.run_closure(closure)
        for group in self.param_groups:
            params = C.grads_of(group)
            for p in params:
                C.no_sparse(p, "ASGD")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = functions.zeros((), dtype=C.scalar_dtype())
                    state["eta"] = functions.as_tensor(C.item(C.to_scalar(group["lr"])),
                                                       dtype=C.scalar_dtype()).clone().detach()
                    state["mu"] = functions.ones((), dtype=C.scalar_dtype())
                    state["ax"] = functions.zeros_like(p)
            C.check_capturable(group["capturable"], params, "params, mus, etas, and state_steps")
            lr = C.item(C.to_scalar(group["lr"]))
            lambd, alpha, t0, weight_decay = group["lambd"], group["alpha"], group["t0"], group["weight_decay"]
            for param in params:
                state = self.state[param]
                grad = param.grad if not group["maximize"] else -param.grad
                mu, ax, eta, step_t = state["mu"], state["ax"], state["eta"], state["step"]
                step_t += 1
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)
                eta_value = eta.item()
                param.mul_(1 - lambd * eta_value)
                param.add_(grad, alpha=-eta_value)
                if mu.item() != 1:
                    ax.add_(param.sub(ax).mul_(mu))
                else:
                    ax.copy_(param)
                step = step_t.item()
                eta.copy_(functions.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
                mu.copy_(functions.as_tensor(1 / max(1, step - t0)))
        return loss
