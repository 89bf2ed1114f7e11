"""torchpy.optim.Rprop: resilient backpropagation (sign-based step sizes)."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .._aten.public import functions
from .._tensor.enums import preserve_format
from .._tensor.tensor import Tensor
from . import _common as C
from .optimizer import Optimizer, _use_grad_for_differentiable

__all__ = ["Rprop"]


class Rprop(Optimizer):
    # options that a state saved before they existed lacks, set on load
    _load_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("capturable", False))

    _load_scalar_states = ("step",)
    def __init__(self, params: Iterable[Any], lr: float | Tensor = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        C.check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = C.run_closure(closure)
        for group in self.param_groups:
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            params = C.grads_of(group)
            for p in params:
                C.no_sparse(p, "Rprop")
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = functions.zeros((), dtype=C.scalar_dtype())
                    state["prev"] = functions.zeros_like(p)
                    state["step_size"] = functions.full_like(p.grad, C.item(C.to_scalar(group["lr"])))
            C.check_capturable(group["capturable"], params)
            for param in params:
                state = self.state[param]
                grad = param.grad if not group["maximize"] else -param.grad
                prev, step_size = state["prev"], state["step_size"]
                state["step"] += 1
                sign = grad.mul(prev.clone() if group["differentiable"] else prev).sign()
                sign[sign.gt(0)] = etaplus
                sign[sign.lt(0)] = etaminus
                sign[sign.eq(0)] = 1
                step_size.mul_(sign).clamp_(step_size_min, step_size_max)
                grad = grad.clone(memory_format=preserve_format)
                grad[sign.eq(etaminus)] = 0
                param.addcmul_(grad.sign(), step_size, value=-1)
                prev.copy_(grad)
        return loss
