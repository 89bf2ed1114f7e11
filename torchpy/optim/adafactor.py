"""torchpy.optim.Adafactor: factored second moments (row and column means) for matrices."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .._aten.public import functions
from .._tensor.finfo import finfo
from .._tensor.tensor import Tensor
from ..autograd import grad_mode
from . import _common as C
from .optimizer import Optimizer

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    # options that a state saved before they existed lacks, set on load
    _load_defaults = (("foreach", None),)

    _load_scalar_states = ("step",)
    def __init__(self, params: Iterable[Any], lr: float | Tensor = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0, weight_decay: float = 0.0, *,
                 foreach: bool | None = None, maximize: bool = False) -> None:
        C.check_lr(lr, "Learning rate should be >= 0 but is: {}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        with grad_mode.no_grad():
            loss = C.run_closure(closure)
            for group in self.param_groups:
                self._group_step(group)
        return loss

    def _group_step(self, group: dict[str, Any]) -> None:
        lr = C.item(C.to_scalar(group["lr"]))
        eps1, eps2 = group["eps"]
        for param in C.grads_of(group, complex_checked=True):
            if param.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            C.no_sparse(param, "Adafactor")
            grad = param.grad
            state = self.state[param]
            if len(state) == 0:
                state["step"] = functions.tensor(0.0, dtype=C.scalar_dtype())
                if grad.dim() > 1:
                    state["row_var"] = grad.new_zeros(list(grad.shape[:-1]) + [1])
                    state["col_var"] = grad.new_zeros(list(grad.shape[:-2]) + [1, grad.shape[-1]])
                else:
                    state["variance"] = functions.zeros_like(grad)
            if group["maximize"]:
                grad = -grad
            if eps1 is None:
                eps1 = finfo(param.dtype).eps
            step_t = state["step"]
            step_t += 1
            step = step_t.item()
            one_minus_beta2_t = step ** group["beta2_decay"]
            rho_t = min(lr, 1 / step ** 0.5)
            alpha = max(eps2, param.norm(2).item() / param.numel() ** 0.5) * rho_t
            if group["weight_decay"] != 0:
                param.mul_(1 - lr * group["weight_decay"])
            if grad.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                row_mean = functions.norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1))
                row_var.lerp_(row_mean, one_minus_beta2_t)
                col_mean = functions.norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2))
                col_var.lerp_(col_mean, one_minus_beta2_t)
                var_estimate = row_var @ col_var
                var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
            else:
                variance = state["variance"]
                variance.lerp_(grad * grad, one_minus_beta2_t)
                var_estimate = variance.clone()
            update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
            update.mul_(grad)
            denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * group["d"]))
            param.add_(update, alpha=-alpha / denom)
