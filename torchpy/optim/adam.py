"""torchpy.optim.Adam (and AdamW's algorithm: decoupled weight decay)."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from .._aten.public import functions
from .._tensor.tensor import Tensor
from . import _common as C
from ._fast_adam import fast_adam_applies, fast_adam
from .optimizer import Optimizer, _use_grad_for_differentiable

__all__ = ["Adam"]


class Adam(Optimizer):
    # options that a state saved before they existed lacks, set on load
    _load_defaults = (("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False),
                      ("differentiable", False), ("decoupled_weight_decay", False), ("fused", None))

    _load_scalar_states = ("step",)
    def __init__(self, params: Iterable[Any], lr: float | Tensor = 1e-3,
                 betas: tuple[float | Tensor, float | Tensor] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
            if lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
        C.check_lr(lr)
        C.check_nonnegative(eps, "epsilon value")
        C.check_betas(betas)
        C.check_nonnegative(weight_decay, "weight_decay value")
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if isinstance(betas[i], Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
                if betas[i].numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(map(C.to_scalar, betas))
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        C.check_fused_options(fused, foreach, differentiable)

    def _init_group(self, group: dict[str, Any]) -> tuple[list, ...]:
        params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps = [], [], [], [], [], []
        for p in C.grads_of(group):
            if getattr(p.grad, "is_sparse", False):
                raise RuntimeError("Adam does not support sparse gradients, please consider SparseAdam instead")
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                if group["fused"]:
                    C.check_fused_device(p)
                state["step"] = functions.tensor(0.0, dtype=C.scalar_dtype(is_fused=group["fused"]))
                state["exp_avg"] = functions.zeros_like(p)
                state["exp_avg_sq"] = functions.zeros_like(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = functions.zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if group["amsgrad"]:
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            if group["differentiable"] and state["step"].requires_grad:
                raise RuntimeError("`requires_grad` is not supported for `step` in differentiable mode")
            steps.append(state["step"])
        return params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = C.run_closure(closure)
        for group in self.param_groups:
            lists = self._init_group(group)
            beta1, beta2 = group["betas"]
            C.check_capturable(group["capturable"], lists[0])
            options = dict(amsgrad=group["amsgrad"], beta1=beta1, beta2=beta2, lr=group["lr"],
                           weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                           differentiable=group["differentiable"],
                           decoupled_weight_decay=group["decoupled_weight_decay"])
            if (group["foreach"] or group["fused"]) and fast_adam_applies(lists[0], options):
                fast_adam(*lists, **options)
            else:
                single_tensor_adam(*lists, **options)
        return loss


def single_tensor_adam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor],
                       exp_avg_sqs: list[Tensor], max_exp_avg_sqs: list[Tensor], steps: list[Tensor], *,
                       amsgrad: bool, beta1: Any, beta2: Any, lr: Any, weight_decay: float, eps: float,
                       maximize: bool, differentiable: bool, decoupled_weight_decay: bool) -> None:
    """Adam's update, one parameter at a time, with the tensor ops of torch's for-loop path."""
    lr, beta1, beta2 = C.to_scalar(lr), C.to_scalar(beta1), C.to_scalar(beta2)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], steps[i]
        step_t += 1
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        if differentiable:
            # the step stays a tensor so that the graph reaches the hyper-parameters
            bias_correction1 = 1 - beta1 ** step_t
            bias_correction2 = 1 - beta2 ** step_t
            step_size_neg = (lr / bias_correction1).neg()
            bias_correction2_sqrt = bias_correction2.sqrt()
            if amsgrad:
                max_exp_avg_sqs[i].copy_(functions.maximum(max_exp_avg_sqs[i].clone(), exp_avg_sq))
                source = max_exp_avg_sqs[i]
            else:
                source = exp_avg_sq
            denom = (source.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
            param.addcdiv_(exp_avg.clone(), denom)
            continue
        step = step_t.item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        if amsgrad:
            functions.maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
            denom = (max_exp_avg_sqs[i].sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        if isinstance(step_size, Tensor):
            param.addcdiv_(exp_avg, denom, value=(-step_size).item())
        else:
            param.addcdiv_(exp_avg, denom, value=-step_size)
