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


# --- masked_fill ------------------------------------------------------------------------------------

def _shape_list(shape: tuple[int, ...]) -> str:
    return f"[{', '.join(map(str, shape))}]"


def check_mask(mask: Tensor) -> None:
    if mask._dtype is not _dt.bool:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {mask._dtype._type_meta_name}")


def check_fill_value(value: Tensor) -> None:
    if value._shape:
        raise RuntimeError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{len(value._shape)} dimension(s).")


def masked_fill_inplace_checks(self: Tensor, mask: Tensor, value: Any) -> Any:
    """The in-place form's checks, in PyTorch's order; the fill value converted to self's dtype."""
    check_mask(mask)
    shape = broadcast_shapes(self._shape, mask._shape)
    if shape != self._shape:
        raise RuntimeError(
            f"output with shape {_shape_list(self._shape)} doesn't match the broadcast shape {_shape_list(shape)}")
    return checked_scalar(value, self._dtype)


def masked_fill_scalar_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    masked_fill_inplace_checks(self, mask, value)
    return self


def masked_fill_tensor_(self: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    check_fill_value(value)
    return masked_fill_scalar_(self, mask, 0)  # the value is unknown on meta; any valid one checks the same


def masked_fill_scalar(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    shape = broadcast_shapes(mask._shape, self._shape)
    check_mask(mask)
    checked_scalar(value, self._dtype)
    return meta_tensor(shape, self._dtype)


def masked_fill_tensor(self: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    check_fill_value(value)
    return masked_fill_scalar(self, mask, 0)


# --- nan_to_num -------------------------------------------------------------------------------------

def check_nan_to_num_out(self: Tensor, out: Tensor) -> None:
    if out._dtype is not self._dtype:
        raise RuntimeError(
            f"nan_to_num: dtype of out: {out._dtype._c10_name} should be same as input: {self._dtype._c10_name}")


def nan_to_num(self: Tensor, nan: float | None = None, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    return _pointwise([self], self._dtype)  # self's layout, as the CPU kernel's astype keeps it


def nan_to_num_(self: Tensor, nan: float | None = None, posinf: float | None = None,
                neginf: float | None = None) -> Tensor:
    if self._dtype.is_complex:  # PyTorch's meta decomposition goes through isneginf
        raise RuntimeError(f"Complex dtype is not supported for isneginf, got dtype {self._dtype}")
    return self


# --- clamp, clamp_min, clamp_max (the Scalar overloads) -------------------------------------------

def check_clamp_bounds(min: Any, max: Any, on_meta: bool = False) -> None:
    if min is None and max is None:
        if on_meta:  # PyTorch's meta kernel is a Python decomposition: its own error
            raise ValueError("clamp called but both min and max are none!")
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")


def clamp_dtype(self: Tensor, min: Any = None, max: Any = None, on_meta: bool = False) -> dtype:
    """clamp's result dtype: a floating (or complex) self keeps its dtype, whatever the
    bounds; integer and bool ones promote with them."""
    check_clamp_bounds(min, max, on_meta)
    if self._dtype.is_floating_point or self._dtype.is_complex:
        return self._dtype
    return promotion.result_type(self, *(b for b in (min, max) if b is not None))


def clamp_meta_dtype(self: Tensor, min: Any = None, max: Any = None) -> dtype:
    return clamp_dtype(self, min, max, on_meta=True)


def clamp_bound_dtype(self: Tensor, bound: Any) -> dtype:
    """clamp_min / clamp_max: self promoted with the bound."""
    return promotion.result_type(self, bound)


def check_inplace_castable(result: dtype, self: Tensor, on_meta: bool = False) -> None:
    """The in-place Scalar clamps: their cast error names the C++ type ("long int") on CPU."""
    if promotion.can_cast(result, self._dtype):
        return
    if on_meta:
        raise RuntimeError(
            f"Attempting to cast from {result} to out tensor with dtype {self._dtype}, "
            "but this can't be cast because it is not safe!")
    raise RuntimeError(
        f"result type {result._c10_name} can't be cast to the desired output type "
        f"{self._dtype._type_meta_name}")


def clamp(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    return _pointwise([self], clamp_meta_dtype(self, min, max))


def clamp_bound(self: Tensor, bound: Any) -> Tensor:
    return _pointwise([self], clamp_bound_dtype(self, bound))


clamp_min = clamp_max = clamp_bound


# --- clamp, clamp_min, clamp_max (the Tensor overloads) -------------------------------------------

def clamp_tensor_dtype(self: Tensor, min: Any = None, max: Any = None, on_meta: bool = True) -> dtype:
    """clamp.Tensor's result dtype: self promoted with the bounds given (any dtype)."""
    check_clamp_bounds(min, max, on_meta)
    return promotion.result_type(*(promotion_operand(x) for x in (self, min, max) if x is not None))


def clamp_bound_tensor_dtype(self: Tensor, bound: Any) -> dtype:
    return promotion.result_type(promotion_operand(self), promotion_operand(bound))


def clamp_tensor(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    result = clamp_tensor_dtype(self, min, max)
    return _pointwise([x for x in (self, min, max) if isinstance(x, Tensor)], result)


def clamp_bound_tensor(self: Tensor, bound: Any) -> Tensor:
    result = clamp_bound_tensor_dtype(self, bound)
    return _pointwise([x for x in (self, bound) if isinstance(x, Tensor)], result)
