"""torchpy.optim.Adagrad."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .._aten.public import functions
from .._tensor.tensor import Tensor
from . import _common as C
from .optimizer import Optimizer, _use_grad_for_differentiable

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    # options that a state saved before they existed lacks, set on load
    _load_defaults = (("foreach", None), ("maximize", False), ("differentiable", False), ("fused", None))

    _load_scalar_states = ("step",)
    def __init__(self, params: Iterable[Any], lr: float | Tensor = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0, eps: float = 1e-10,
                 foreach: bool | None = None, *, maximize: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        C.check_lr(lr)
        C.check_nonnegative(lr_decay, "lr_decay value")
        C.check_nonnegative(weight_decay, "weight_decay value")
        C.check_nonnegative(initial_accumulator_value, "initial_accumulator_value value")
        C.check_nonnegative(eps, "epsilon value")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        C.check_fused_options(fused, foreach, differentiable)
        # as torch: the state exists from construction on, so state_dict() has it before any step
        for group in self.param_groups:
            for p in group["params"]:
                self._new_state(p, group)

    def _new_state(self, p: Tensor, group: dict[str, Any]) -> None:
        state = self.state[p]
        state["step"] = functions.tensor(0.0, dtype=C.scalar_dtype(is_fused=group["fused"]))
        state["sum"] = functions.full_like(p, self.defaults["initial_accumulator_value"])

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = C.run_closure(closure)
        for group in self.param_groups:
            params, sums, steps = [], [], []
            for p in C.grads_of(group):
                if group["fused"]:
                    C.check_fused_device(p)
                if len(self.state[p]) == 0:
                    self._new_state(p, group)
                params.append(p)
                sums.append(self.state[p]["sum"])
                steps.append(self.state[p]["step"])
            single_tensor_adagrad(params, sums, steps, lr=group["lr"], weight_decay=group["weight_decay"],
                                  lr_decay=group["lr_decay"], eps=group["eps"], maximize=group["maximize"],
                                  differentiable=group["differentiable"])
        return loss


def single_tensor_adagrad(params: list[Tensor], sums: list[Tensor], steps: list[Tensor], *, lr: Any,
                          weight_decay: float, lr_decay: float, eps: float, maximize: bool,
                          differentiable: bool) -> None:
    lr = C.item(C.to_scalar(lr))
    for param, state_sum, step_t in zip(params, sums, steps):
        step_t += 1
        step = step_t.item()
        grad = param.grad if not maximize else -param.grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt() + eps if differentiable else state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-clr)
