"""addcmul / addcdiv (with their in-place and out= forms): the optimizers' fused updates.

torch's CPU kernels compute `fma(value * t1, t2, self)` and `self + (value * t1) / t2` in the
computation dtype; the array code does the same operations in the same order, so the results
are torch's bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._tensor import dtype as _dt
from .elementwise import elementwise

_FLOAT32, _FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)


def _integral(t: Any) -> bool:
    d = getattr(t, "_dtype", None)
    return d is not None and not d.is_floating_point and not d.is_complex


def _check_addcdiv(promoted: _dt.dtype, self: Any, tensor1: Any, tensor2: Any, value: Any = 1) -> None:
    if _integral(tensor1) and _integral(tensor2):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
            "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented "
            "as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the "
            "latter implementation: (input + value * tensor1 / tensor2), for all dtypes.")


def _scaled(tensor1: Any, value: Any) -> Any:
    return tensor1 if type(value) is int and value == 1 else tensor1 * value


@elementwise("addcmul", operands=3)
def addcmul(xp, self, tensor1, tensor2, value=1):
    scaled = _scaled(tensor1, value)
    if getattr(scaled, "dtype", None) == _FLOAT32:
        # torch's kernel is fma(value * t1, t2, self): one rounding for the product and the sum.
        # A product of two float32 values is exact in float64, so the float64 sum rounded once
        # to float32 is the fused result (up to a double rounding too rare to matter)
        return (self.astype(_FLOAT64) + scaled.astype(_FLOAT64) * tensor2).astype(_FLOAT32)
    return self + scaled * tensor2


@elementwise("addcdiv", operands=3, check=_check_addcdiv)
def addcdiv(xp, self, tensor1, tensor2, value=1):
    return self + _scaled(tensor1, value) / tensor2
