"""Meta rules of the tensor-less factories (empty, empty_strided, zeros, ones, full,
scalar_tensor, arange, linspace, eye) and their out= forms: the result's shape, strides and
dtype, and the checks PyTorch makes on them, from the arguments alone.

kernels/factory.py's CPU kernels take their shapes, strides, dtypes and plans from these rules
and fill arrays; the Meta kernels are these rules plus `meta_tensor`. BackendSelect sends a
call with device="meta" to the Meta kernels. (The *_like and new_* forms have a tensor argument
and stay CompositeExplicitAutograd: their allocation picks the device, as at::empty does.)
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Sequence

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, meta_tensor
import numbers

import ml_dtypes
import numpy as np

from ..._tensor.enums import channels_last, channels_last_3d, contiguous_format
from ..kernels.variants import resize_


# --- sizes and strides ----------------------------------------------------------------------------

def size_text(shape: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def check_shape(size: Sequence[int]) -> tuple[int, ...]:
    """`size` as a shape, with PyTorch's error for a negative dimension."""
    shape = tuple(size)
    if shape and min(shape) < 0:
        negative = next(s for s in shape if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: {size_text(shape)}")
    return shape


def _channels_last_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    # Channels innermost, then the spatial dims from last to first, then the batch.
    # Sizes are used as they are (a 0 channel count gives 0 strides), as PyTorch does.
    strides = [0] * len(shape)
    running = 1
    for dim in [1, *range(len(shape) - 1, 1, -1), 0]:
        strides[dim] = running
        running *= shape[dim]
    return tuple(strides)


def format_strides(shape: tuple[int, ...], memory_format: Any) -> tuple[int, ...] | None:
    """Strides for an explicit memory_format (None: contiguous)."""
    if memory_format is None or memory_format is contiguous_format:
        return None
    if memory_format is channels_last:
        if len(shape) != 4:
            raise RuntimeError("required rank 4 tensor to use channels_last format")
        return _channels_last_strides(shape)
    if memory_format is channels_last_3d:
        if len(shape) != 5:
            raise RuntimeError("required rank 5 tensor to use channels_last_3d format")
        return _channels_last_strides(shape)
    raise RuntimeError("unsupported memory format Preserve")


# --- fill values --------------------------------------------------------------------------

# c10's names for element types, as its overflow message prints them.
def _overflow(d: _dt.dtype) -> RuntimeError:
    return RuntimeError(f"value cannot be converted to type {d._cpp_type_name} without overflow")


_FLOAT_MAX = {d: float(ml_dtypes.finfo(_dt.to_numpy_dtype(d)).max)
              for d in (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)}
_INT_RANGE = {d: (int(np.iinfo(_dt.to_numpy_dtype(d)).min), int(np.iinfo(_dt.to_numpy_dtype(d)).max))
              for d in (_dt.uint8, _dt.int8, _dt.int16, _dt.int32, _dt.int64)}


def _float_fits(value: float, d: _dt.dtype) -> bool:
    return not math.isfinite(value) or abs(value) <= _FLOAT_MAX[d]


def element(value: Any, d: _dt.dtype, numel: int = 0) -> Any:
    """A Python number as an element of `d`, with c10's overflow check: ints wrap into
    unsigned types from below, bool takes anything, and so do 16-bit floats when filling a
    single element (PyTorch fills one element without the check)."""
    if d is _dt.bool:
        return bool(value)
    if type(value) is float and d.is_floating_point:  # the common case, checked inline
        if (d is _dt.float32 or (d.itemsize == 2 and numel != 1)) and abs(value) > _FLOAT_MAX[d] \
                and math.isfinite(value):
            raise _overflow(d)
        return value
    if d.is_complex:
        value = complex(value)
        if d is _dt.complex64 and not (_float_fits(value.real, _dt.float32) and _float_fits(value.imag, _dt.float32)):
            raise _overflow(d)
        return value
    if isinstance(value, complex) or isinstance(value, np.complexfloating):
        if value.imag != 0:
            raise _overflow(d)
        value = value.real
    if d.is_floating_point:
        value = float(value)
        checked = d is _dt.float32 or (d.itemsize == 2 and numel != 1)
        if checked and not _float_fits(value, d):
            raise _overflow(d)
        return value
    lowest, highest = _INT_RANGE[d]
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise _overflow(d)
        value = math.trunc(value)
    value = int(value)
    if lowest < 0:
        if not lowest <= value <= highest:
            raise _overflow(d)
        return value
    if value > highest or -value > highest:
        raise _overflow(d)
    return value % (highest + 1)


def _default_float(dtype: _dt.dtype | None) -> _dt.dtype:
    return dtype if dtype is not None else _dt.get_default_dtype()


# --- arange -----------------------------------------------------------------------------------------

def _number_text(x: Any) -> str:
    """A number as c10 prints a Scalar (1.0 -> 1, inf -> inf)."""
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


def _is_floating_number(x: Any) -> bool:
    kind = type(x)
    if kind is int or kind is bool:
        return False
    if kind is float:
        return True
    return isinstance(x, (float, np.floating)) or (isinstance(x, numbers.Number) and not isinstance(x, numbers.Integral))


def arange_dtype(start: Any, end: Any, step: Any, dtype: _dt.dtype | None) -> _dt.dtype:
    if dtype is not None:
        return dtype
    return _dt.get_default_dtype() if any(map(_is_floating_number, (start, end, step))) else _dt.int64


def check_range_dtype(d: _dt.dtype, op: str) -> None:
    if d is _dt.bool or d.is_complex:
        raise NotImplementedError(f'"{op}" not implemented for \'{d._c10_name}\'')


_INT64_MAX = 2**63 - 1


def arange_plan(start: Any, end: Any, step: Any, d: _dt.dtype) -> tuple[int, Any, Any]:
    """(length, first value, step) of arange in `d`, with PyTorch's checks and length rule.

    Integer dtypes truncate start and step first; the length comes from the original
    values in double precision, except for int64, which counts with the truncated ints
    (exact beyond 2**53)."""
    check_range_dtype(d, "arange_cpu")
    start_d, end_d, step_d = float(start), float(end), float(step)
    if step_d == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start_d) and math.isfinite(end_d)):
        raise RuntimeError(f"unsupported range: {_number_text(start)} -> {_number_text(end)}")
    if not ((step_d > 0 and end_d >= start_d) or (step_d < 0 and end_d <= start_d)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if d.is_floating_point:
        return math.ceil((end_d - start_d) / step_d), start_d, step_d
    first, end_i, step_i = math.trunc(start), math.trunc(end), math.trunc(step)
    if d is _dt.int64:
        if step_i == 0:
            raise ValueError("step must be nonzero")
        sign = 1 if step_i > 0 else -1
        # C++ integer division truncates toward zero.
        numerator = end_i - first + step_i - sign
        length = abs(numerator) // abs(step_i) * (1 if (numerator >= 0) == (step_i > 0) else -1)
    else:
        length = math.ceil((end_d - start_d) / step_d)
    if length > _INT64_MAX:
        raise RuntimeError("invalid size, possible overflow?")
    return length, first, step_i


# --- linspace, eye -----------------------------------------------------------------------------------

def linspace_dtype(start: Any, end: Any, steps: int, dtype: _dt.dtype | None) -> _dt.dtype:
    """linspace's checks and result dtype (complex bounds: the default complex dtype)."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is None:
        is_complex = isinstance(start, complex) or isinstance(end, complex)
        dtype = _dt.get_default_complex_dtype() if is_complex else _dt.get_default_dtype()
    if dtype is _dt.bool:
        check_range_dtype(dtype, "linspace_cpu")
    return dtype


def eye_shape(n: int, m: int) -> tuple[int, int]:
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    return n, m


def arange_out_length(out: Tensor, length: int) -> None:
    """arange.out resizes out to the length, warning when a non-empty out had another."""
    if out.numel() != length:
        if out.numel() > 0:
            warnings.warn(
                f"The number of elements in the out tensor of shape {size_text(out._shape)} is {out.numel()} "
                f"which does not match the computed number of elements {length}. Note that this may occur as "
                f"a result of rounding error. The out tensor will be resized to a tensor of shape ({length},).",
                UserWarning, stacklevel=3)
        resize_(out, (length,))


# --- the Meta kernels -------------------------------------------------------------------------------

def empty(size: Sequence[int], *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
          pin_memory: bool | None = None, memory_format: Any = None) -> Tensor:
    shape = check_shape(size)
    return meta_tensor(shape, _default_float(dtype), format_strides(shape, memory_format))


def empty_strided(size: Sequence[int], stride: Sequence[int], *, dtype: _dt.dtype | None = None,
                  layout: Any = None, device: Any = None, pin_memory: bool | None = None) -> Tensor:
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides ({len(stride)})")
    return meta_tensor(check_shape(size), _default_float(dtype), tuple(stride))


def zeros(size: Sequence[int], *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
          pin_memory: bool | None = None) -> Tensor:
    return meta_tensor(check_shape(size), _default_float(dtype))  # (no "zeros:" size check on meta)


ones = zeros


def full(size: Sequence[int], fill_value: Any, *, dtype: _dt.dtype | None = None, layout: Any = None,
         device: Any = None, pin_memory: bool | None = None) -> Tensor:
    d = dtype if dtype is not None else _dt.scalar_default_dtype(fill_value)  # full(.., 2) is int64
    shape = check_shape(size)
    element(fill_value, d, math.prod(shape))  # the overflow check
    return meta_tensor(shape, d)


def scalar_tensor(s: Any, *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
                  pin_memory: bool | None = None) -> Tensor:
    return full((), s, dtype=_default_float(dtype))


def arange_start_step(start: Any, end: Any, step: Any = 1, *, dtype: _dt.dtype | None = None,
                      layout: Any = None, device: Any = None, pin_memory: bool | None = None) -> Tensor:
    d = arange_dtype(start, end, step, dtype)
    return meta_tensor((arange_plan(start, end, step, d)[0],), d)


def arange(end: Any, *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
           pin_memory: bool | None = None) -> Tensor:
    return arange_start_step(0, end, 1, dtype=dtype)


def arange_start(start: Any, end: Any, *, dtype: _dt.dtype | None = None, layout: Any = None,
                 device: Any = None, pin_memory: bool | None = None) -> Tensor:
    return arange_start_step(start, end, 1, dtype=dtype)


def linspace(start: Any, end: Any, steps: int, *, dtype: _dt.dtype | None = None, layout: Any = None,
             device: Any = None, pin_memory: bool | None = None) -> Tensor:
    return meta_tensor((steps,), linspace_dtype(start, end, steps, dtype))


def eye_m(n: int, m: int, *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
          pin_memory: bool | None = None) -> Tensor:
    return meta_tensor(eye_shape(n, m), _default_float(dtype))


def eye(n: int, *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
        pin_memory: bool | None = None) -> Tensor:
    return eye_m(n, n, dtype=dtype)


def arange_start_out(start: Any, end: Any, step: Any = 1, *, out: Tensor) -> Tensor:
    arange_out_length(out, arange_plan(start, end, step, out._dtype)[0])
    return out


def arange_out(end: Any, *, out: Tensor) -> Tensor:
    return arange_start_out(0, end, 1, out=out)
