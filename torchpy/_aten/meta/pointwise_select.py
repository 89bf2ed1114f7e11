"""Meta rules of the selecting / blending pointwise ops (lerp, where, masked_fill, nan_to_num):
result shape, dtype and strides from metadata alone.

kernels/pointwise_select.py's CPU kernels take their dtype checks from these rules, and the
Meta kernels here are the rules plus `meta_tensor`, so the two agree by construction.
"""

from __future__ import annotations

import warnings
from typing import Any

from ..._tensor import dtype as _dt
from ..._tensor import promotion
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor, meta_tensor
from ..kernels.elementwise import broadcast_shapes, checked_scalar, meta_strides, promotion_operand


def _pointwise(tensors: list[Tensor], result: dtype) -> Tensor:
    """A meta result over `tensors`: their broadcast shape, laid out as the CPU result is."""
    shape = broadcast_shapes(*(t._shape for t in tensors))
    return meta_tensor(shape, result, meta_strides(shape, tensors))


# --- lerp ---------------------------------------------------------------------------------------------

def check_same_dtype(self: Tensor, other: Tensor, name: str) -> None:
    if other._dtype is not self._dtype:
        raise RuntimeError(
            f"expected dtype {self._dtype._type_meta_name} for `{name}` but got dtype "
            f"{other._dtype._type_meta_name}")


def lerp_dtype(self: Tensor, end: Tensor, weight: Any) -> dtype:
    """lerp's result dtype: self's, which end (and a weight tensor) must share."""
    check_same_dtype(self, end, "end")
    if isinstance(weight, Tensor):
        check_same_dtype(self, weight, "weight")
    return self._dtype


def lerp(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    result = lerp_dtype(self, end, weight)
    return _pointwise([self, end, weight] if isinstance(weight, Tensor) else [self, end], result)


# --- where ----------------------------------------------------------------------------------------------

def check_condition(condition: Tensor) -> None:
    if condition._dtype is _dt.uint8:
        warnings.warn(
            "where received a uint8 condition tensor. This behavior is deprecated and will be "
            "removed in a future version of PyTorch. Use a boolean condition instead.",
            UserWarning, stacklevel=4)
    elif condition._dtype is not _dt.bool:
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{condition._dtype._c10_name}")


def where_dtype(condition: Tensor, self: Any, other: Any) -> dtype:
    check_condition(condition)
    return promotion.result_type(promotion_operand(self), promotion_operand(other))


def where(condition: Tensor, self: Any, other: Any) -> Tensor:
    result = where_dtype(condition, self, other)
    return _pointwise([t for t in (condition, self, other) if isinstance(t, Tensor)], result)
