"""torch.testing.make_tensor: a tensor of a shape and dtype filled with values drawn uniformly
from [low, high), drawn as torch draws them (randint for bool and integers, uniform_ for floating
and complex), so that one seed gives torch's values."""

from __future__ import annotations

import collections.abc
import math
import warnings
from typing import Any

import numpy as np

from .._aten.public import functions
from .._tensor import dtype as _dt
from .._tensor.creation import from_numpy
from .._tensor.finfo import finfo, iinfo
from .._tensor.tensor import Tensor

_INTEGRAL = (_dt.uint8, _dt.int8, _dt.int16, _dt.int32, _dt.int64)
_FLOATING = (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)
_COMPLEX = (_dt.complex32, _dt.complex64, _dt.complex128)
_BOOL_OR_INTEGRAL = (_dt.bool, *_INTEGRAL)


def _low_high(low: Any, high: Any, *, dtype: Any, lowest: float, highest: float, default_low: float,
              default_high: float) -> tuple[Any, Any]:
    """low and high defaulted, checked, clamped to what dtype holds (and rounded up for integers)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
    if low == high and dtype in (*_FLOATING, *_COMPLEX):
        warnings.warn(
            "Passing `low==high` to `torch.testing.make_tensor` for floating or complex types "
            "is deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
            FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype in _BOOL_OR_INTEGRAL:
        return math.ceil(low), math.ceil(high)
    return low, high


def _uniform_(t: Tensor, low: float, high: float) -> Tensor:
    # uniform_ wants high - low within the dtype's range: draw half the range and double it
    if high - low >= finfo(t.dtype).max:
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def make_tensor(*shape: Any, dtype: Any, device: Any, low: float | None = None, high: float | None = None,
                requires_grad: bool = False, noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format: Any = None) -> Tensor:
    """A tensor of `shape` and `dtype` with values uniformly drawn from [low, high)."""
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                         f"but got {noncontiguous=} and {memory_format=}")
    if requires_grad and dtype in _BOOL_OR_INTEGRAL:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got {dtype=}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is _dt.bool:
        low, high = _low_high(low, high, dtype=dtype, lowest=0, highest=2, default_low=0, default_high=2)
        result = functions.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = iinfo(dtype)
        low, high = _low_high(low, high, dtype=dtype, lowest=info.min,
                              highest=info.max + (1 if dtype is not _dt.int64 else 0), default_low=-9, default_high=10)
        result = functions.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING or dtype in _COMPLEX:
        info = finfo(dtype)
        low, high = _low_high(low, high, dtype=dtype, lowest=info.min, highest=info.max, default_low=-9,
                              default_high=9)
        if dtype in _COMPLEX:  # torch fills view_as_real(result): (real, imag) pairs in memory order
            parts = _uniform_(functions.empty((*shape, 2), device=device, dtype=dtype.to_real()), low, high)
            pairs = np.ascontiguousarray(parts.numpy())
            result = from_numpy(pairs.view(_dt.to_numpy_dtype(dtype)).reshape(shape))
        else:
            result = _uniform_(functions.empty(shape, device=device, dtype=dtype), low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor()."
                        " To request support, file an issue at: https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOL_OR_INTEGRAL else finfo(dtype).tiny
    if dtype in _FLOATING or dtype in _COMPLEX:
        result.requires_grad = requires_grad
    return result
