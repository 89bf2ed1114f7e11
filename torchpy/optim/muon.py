"""torchpy.optim.Muon: momentum orthogonalised by Newton-Schulz iterations (2-D parameters only)."""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable

from .._aten.public import functions
from .._tensor.tensor import Tensor
from ..autograd import grad_mode
from . import _common as C
from .optimizer import Optimizer

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.775, 2.0315
DEFAULT_NS_STEPS = 5


def _zeropower_via_newtonschulz(grad: Tensor, ns_coefficients: tuple[float, float, float], ns_steps: int,
                                eps: float) -> Tensor:
    """An approximately orthogonal matrix near grad's polar factor, computed in bfloat16."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = grad.size(0) > grad.size(1)
    x = grad.bfloat16()
    if tall:
        x = x.T
    x.div_(x.norm().clamp(min=eps))
    for _ in range(ns_steps):
        gram = x @ x.T
        gram_update = functions.addmm(gram, gram, gram, beta=b, alpha=c)
        x = functions.addmm(x, gram_update, x, beta=a)
    return x.T if tall else x


def _adjust_lr(lr: float, adjust_lr_fn: str | None, shape: Any) -> float:
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    def __init__(self, params: Iterable[Any], lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True, ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn: str | None = None) -> None:
        C.check_lr(lr, "Learning rate should be >= 0 but is: {}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum, "nesterov": nesterov,
                    "ns_coefficients": ns_coefficients, "eps": eps, "ns_steps": ns_steps,
                    "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        with grad_mode.no_grad():
            loss = C.run_closure(closure)
            for group in self.param_groups:
                lr = C.item(C.to_scalar(group["lr"]))
                momentum = group["momentum"]
                for param in C.grads_of(group, complex_checked=True):
                    if param.is_complex():
                        raise RuntimeError("Muon does not support complex parameters")
                    C.no_sparse(param, "Muon")
                    state = self.state[param]
                    if "momentum_buffer" not in state:
                        state["momentum_buffer"] = functions.zeros_like(param.grad)
                    grad, buf = param.grad, state["momentum_buffer"]
                    if grad.ndim != 2:
                        raise ValueError("Param gradient must be a 2D matrix")
                    buf.lerp_(grad, 1 - momentum)
                    update = grad.lerp(buf, momentum) if group["nesterov"] else buf
                    update = _zeropower_via_newtonschulz(update, group["ns_coefficients"], group["ns_steps"],
                                                         group["eps"])
                    adjusted_lr = _adjust_lr(lr, group["adjust_lr_fn"], param.shape)
                    param.mul_(1 - lr * group["weight_decay"])
                    param.add_(update, alpha=-adjusted_lr)
        return loss
