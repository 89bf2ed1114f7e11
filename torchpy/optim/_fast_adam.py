"""Adam's foreach / fused path: the same arithmetic as `single_tensor_adam`, written on the
parameters' NumPy arrays with in-place ufuncs and one scratch buffer, so a step makes no
tensors and no dispatcher calls. Each operation rounds once in the parameter's dtype, in
the order of the single-tensor path, so both paths give the same bits."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import dtype as _dt
from .._tensor.tensor import Tensor

_FLOATS = (_dt.float32, _dt.float64)


def _plain(t: Any) -> bool:
    return type(t).__name__ in ("Tensor", "Parameter") and t._data is not None and t._dtype in _FLOATS


def fast_adam_applies(params: list[Tensor], options: dict[str, Any]) -> bool:
    """Plain CPU float tensors, Python-number hyper-parameters, nothing autograd must see."""
    if options["differentiable"]:
        return False
    if any(isinstance(options[k], Tensor) for k in ("lr", "beta1", "beta2")):
        return False
    return all(_plain(p) and _plain(p.grad) and p.grad._dtype is p._dtype and p.grad._shape == p._shape
               for p in params)


def fast_adam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor], exp_avg_sqs: list[Tensor],
              max_exp_avg_sqs: list[Tensor], steps: list[Tensor], *, amsgrad: bool, beta1: float, beta2: float,
              lr: float, weight_decay: float, eps: float, maximize: bool, differentiable: bool,
              decoupled_weight_decay: bool) -> None:
    weight = 1 - beta1
    for i, param in enumerate(params):
        step_t = steps[i]
        step_t._data += 1
        step = float(step_t._data)
        p, g, m, v = param._data, grads[i]._data, exp_avgs[i]._data, exp_avg_sqs[i]._data
        f = p.dtype.type
        scratch = np.subtract(g, m) if not maximize else np.add(g, m)  # grad - exp_avg, grad = -g when maximizing
        if maximize:
            g = np.negative(g)
            np.negative(scratch, out=scratch)
        if weight_decay != 0:
            if decoupled_weight_decay:
                p *= f(1 - lr * weight_decay)
            else:
                g = np.add(g, np.multiply(p, f(weight_decay)))
                np.subtract(g, m, out=scratch)
        # exp_avg.lerp_(grad, 1 - beta1): torch's two-sided formula
        if abs(weight) < 0.5:
            scratch *= f(weight)
            m += scratch
        else:
            scratch *= f(1 - weight)
            np.subtract(g, scratch, out=m)
        # exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2); addcmul is a fused
        # multiply-add (see kernels/optim_ops.py): float32 operands are summed in float64
        v *= f(beta2)
        np.multiply(g, f(1 - beta2), out=scratch)
        if f is np.float32:
            wide = scratch.astype(np.float64)
            wide *= g
            wide += v
            v[...] = wide
        else:
            scratch *= g
            v += scratch
        bias_correction1 = 1 - beta1 ** step
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        source = v
        if amsgrad:
            source = max_exp_avg_sqs[i]._data
            np.maximum(source, v, out=source)
        denom = np.sqrt(source, out=scratch)
        denom /= f(bias_correction2_sqrt)
        denom += f(eps)
        # param.addcdiv_(exp_avg, denom, value=-step_size)
        np.divide(np.multiply(m, f(-(lr / bias_correction1))), denom, out=denom)
        p += denom
        for t in (param, exp_avgs[i], exp_avg_sqs[i], step_t) + ((max_exp_avg_sqs[i],) if amsgrad else ()):
            t._bump_version()
