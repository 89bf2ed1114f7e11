"""torchpy.optim.Adadelta."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .._aten.public import functions
from .._tensor.tensor import Tensor
from . import _common as C
from .optimizer import Optimizer, _use_grad_for_differentiable

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    # options that a state saved before they existed lacks, set on load
    _load_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))

    _load_scalar_states = ("step",)
    def __init__(self, params: Iterable[Any], lr: float | Tensor = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        C.check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        C.check_nonnegative(eps, "epsilon value")
        C.check_nonnegative(weight_decay, "weight_decay value")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = C.run_closure(closure)
        for group in self.param_groups:
            params, square_avgs, acc_deltas, steps = [], [], [], []
            for p in C.grads_of(group):
                C.no_sparse(p, "Adadelta")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = functions.zeros((), dtype=C.scalar_dtype())
                    state["square_avg"] = functions.zeros_like(p)
                    state["acc_delta"] = functions.zeros_like(p)
                params.append(p)
                square_avgs.append(state["square_avg"])
                acc_deltas.append(state["acc_delta"])
                steps.append(state["step"])
            C.check_capturable(group["capturable"], params, supports_xla=False)
            lr = C.item(C.to_scalar(group["lr"]))
            rho, eps, weight_decay = group["rho"], group["eps"], group["weight_decay"]
            for param, square_avg, acc_delta, step in zip(params, square_avgs, acc_deltas, steps):
                step += 1
                grad = param.grad if not group["maximize"] else -param.grad
                if weight_decay != 0:
                    grad = grad.add(param, alpha=weight_decay)
                square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_()
                if group["differentiable"]:
                    delta = delta.clone()
                delta.div_(std).mul_(grad)
                acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
                param.add_(delta, alpha=-lr)
        return loss
