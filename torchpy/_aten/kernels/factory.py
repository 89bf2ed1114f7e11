"""Factories: new tensors from sizes, fill values and ranges.

empty, empty_strided, zeros, ones, full, arange, linspace, eye, the *_like forms
and the new_* methods. Each kernel picks the dtype (torch's inference rules),
the strides (memory_format; preserve_format keeps the source's layout) and the
device: on cpu it allocates and fills a NumPy array, on meta it returns sizes and
strides only. The same kernel serves both keys.

A factory with no tensor argument gives the dispatcher no backend key to go on.
As in PyTorch, such ops have a BackendSelect kernel (the thread's included set
always holds BackendSelect) that reads `device=` and redispatches to CPU or Meta.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Callable, Sequence

import ml_dtypes
import numpy as np

from ..._dispatch.keys import DispatchKey, key_bits
from ..._dispatch.ops import op_for
from ..._tensor import dtype as _dt
from ..._tensor.enums import channels_last, channels_last_3d, contiguous_format, preserve_format
from ..._tensor.tensor import Tensor, contiguous_strides, from_array, meta_tensor
from ..meta.layout import preserve_strides
from ..registry import register
from .variants import resize_

# --- BackendSelect ------------------------------------------------------------------------

_BACKEND_BITS = {"cpu": key_bits(DispatchKey.CPU), "meta": key_bits(DispatchKey.Meta)}


def backend_select_name(qualified: str) -> str:
    """The kernel name the YAML uses at BackendSelect: zeros -> zeros_backend_select."""
    return qualified.replace(".", "_") + "_backend_select"


def _backend_select_kernel(qualified: str) -> Callable:
    op = None

    def backend_select(*args: Any, **kwargs: Any) -> Any:
        nonlocal op
        if op is None:  # the op exists only once the table is loaded
            op = op_for("aten::" + qualified)
        device = kwargs.get("device")
        # PyTorch redispatches on the backend's key alone: no tensor adds keys here.
        return op.redispatch_raw(_BACKEND_BITS[device.type if device is not None else "cpu"], args, kwargs)

    backend_select.__name__ = backend_select_name(qualified)
    return backend_select


def register_backend_select(*qualified_names: str) -> None:
    """Register the BackendSelect kernel of each tensor-less overload ("zeros", "randint.low")."""
    for qualified in qualified_names:
        register(backend_select_name(qualified), _backend_select_kernel(qualified))


# --- sizes, strides, allocation -------------------------------------------------------------

def _size_text(shape: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def check_shape(size: Sequence[int]) -> tuple[int, ...]:
    """`size` as a shape, with PyTorch's error for a negative dimension."""
    shape = tuple(size)
    if shape and min(shape) < 0:
        negative = next(s for s in shape if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: {_size_text(shape)}")
    return shape


def is_meta(device: Any) -> bool:
    return device is not None and device.type == "meta"


def storage_extent(shape: Sequence[int], strides: Sequence[int]) -> int:
    """Elements a buffer needs to hold a tensor with these sizes and strides."""
    if 0 in shape:
        return 0
    return 1 + sum((s - 1) * st for s, st in zip(shape, strides))


def strided_array(shape: tuple[int, ...], strides: Sequence[int], np_dtype: Any) -> np.ndarray:
    """An uninitialized array with these element strides, over a buffer just big enough."""
    buffer = np.empty(storage_extent(shape, strides), np_dtype)
    itemsize = buffer.itemsize
    return np.ndarray(shape, np_dtype, buffer=buffer, strides=tuple(st * itemsize for st in strides))


def wrap(array: np.ndarray, d: _dt.dtype, strides: Sequence[int] | None = None) -> Tensor:
    """A tensor over a fresh array. Its strides are PyTorch's: NumPy's own may differ where
    they do not matter (an array with no elements, a dim of size 1)."""
    t = from_array(array, d)
    if strides is not None:
        t._stride = tuple(strides)
    elif array.size == 0:
        t._stride = contiguous_strides(array.shape)
    return t


def new_tensor(shape: tuple[int, ...], d: _dt.dtype, device: Any, strides: Sequence[int] | None = None) -> Tensor:
    """An uninitialized tensor (contiguous unless `strides` is given) on cpu or meta."""
    if is_meta(device):
        return meta_tensor(shape, d, strides)
    np_dtype = _dt.to_numpy_dtype(d)
    if strides is None:
        return wrap(np.empty(shape, np_dtype), d)
    return wrap(strided_array(shape, strides, np_dtype), d, strides)


def filled(shape: tuple[int, ...], d: _dt.dtype, device: Any, value: Any,
           strides: Sequence[int] | None = None) -> Tensor:
    """A tensor of `value` (already an element of `d`)."""
    if is_meta(device):
        return meta_tensor(shape, d, strides)
    np_dtype = _dt.to_numpy_dtype(d)
    if strides is None:
        if value == 0 or value == 1:  # fits every dtype: no overflow check (backward's ones_like)
            array = np.zeros(shape, np_dtype)
            if value == 1:
                array.fill(1)  # np.ones costs a Python-level call more
            return from_array(array, d) if array.size else wrap(array, d)
        array = np.empty(shape, np_dtype)
    else:
        array = strided_array(shape, strides, np_dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # a one-element float16 fill may overflow to inf
        array.fill(value)
    return wrap(array, d, strides)


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


def like_strides(self: Tensor, memory_format: Any) -> tuple[int, ...] | None:
    """Strides of an *_like result (None: contiguous)."""
    if memory_format is not None and memory_format is not preserve_format:
        return format_strides(self._shape, memory_format)
    shape = self._shape
    data = self._data
    if data is not None and data.flags.c_contiguous and 1 not in shape and data.size:
        return None  # NumPy's contiguity is PyTorch's when no dim has size 1 (or 0)
    strides = self.stride()
    if strides == contiguous_strides(shape):
        return None
    return preserve_strides(shape, strides)


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


# --- empty, zeros, ones, full -----------------------------------------------------------------

def empty(size: Sequence[int], *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
          pin_memory: bool | None = None, memory_format: Any = None) -> Tensor:
    shape = check_shape(size)
    return new_tensor(shape, _default_float(dtype), device, format_strides(shape, memory_format))


def empty_strided(size: Sequence[int], stride: Sequence[int], *, dtype: _dt.dtype | None = None,
                  layout: Any = None, device: Any = None, pin_memory: bool | None = None) -> Tensor:
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides ({len(stride)})")
    return new_tensor(check_shape(size), _default_float(dtype), device, tuple(stride))


def zeros(size: Sequence[int], *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
          pin_memory: bool | None = None) -> Tensor:
    if size and min(size) < 0 and not is_meta(device):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return filled(check_shape(size), _default_float(dtype), device, 0)  # 0 and 1 fit every dtype


def ones(size: Sequence[int], *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
         pin_memory: bool | None = None) -> Tensor:
    return filled(check_shape(size), _default_float(dtype), device, 1)


def full(size: Sequence[int], fill_value: Any, *, dtype: _dt.dtype | None = None, layout: Any = None,
         device: Any = None, pin_memory: bool | None = None) -> Tensor:
    d = dtype if dtype is not None else _dt.scalar_default_dtype(fill_value)  # full(.., 2) is int64
    shape = check_shape(size)
    return filled(shape, d, device, element(fill_value, d, math.prod(shape)))


def scalar_tensor(s: Any, *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
                  pin_memory: bool | None = None) -> Tensor:
    # The default dtype whatever the number's type: scalar_tensor(1) is 1. in float32.
    return full((), s, dtype=_default_float(dtype), device=device)


# --- *_like and new_* -------------------------------------------------------------------------

def empty_like(self: Tensor, *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
               pin_memory: bool | None = None, memory_format: Any = None) -> Tensor:
    return new_tensor(self._shape, dtype or self._dtype, device or self._device, like_strides(self, memory_format))


def _filled_like(self: Tensor, value: Any, dtype: _dt.dtype | None, device: Any, memory_format: Any) -> Tensor:
    d = dtype or self._dtype
    if type(value) is not int or value not in (0, 1):  # 0 and 1 fit every dtype
        value = element(value, d, self.numel())
    return filled(self._shape, d, device or self._device, value, like_strides(self, memory_format))


def zeros_like(self: Tensor, *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
               pin_memory: bool | None = None, memory_format: Any = None) -> Tensor:
    return _filled_like(self, 0, dtype, device, memory_format)


def ones_like(self: Tensor, *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
              pin_memory: bool | None = None, memory_format: Any = None) -> Tensor:
    return _filled_like(self, 1, dtype, device, memory_format)


def full_like(self: Tensor, fill_value: Any, *, dtype: _dt.dtype | None = None, layout: Any = None,
              device: Any = None, pin_memory: bool | None = None, memory_format: Any = None) -> Tensor:
    return _filled_like(self, fill_value, dtype, device, memory_format)


def new_empty(self: Tensor, size: Sequence[int], *, dtype: _dt.dtype | None = None, layout: Any = None,
              device: Any = None, pin_memory: bool | None = None) -> Tensor:
    return new_tensor(check_shape(size), dtype or self._dtype, device or self._device)


def new_empty_strided(self: Tensor, size: Sequence[int], stride: Sequence[int], *,
                      dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
                      pin_memory: bool | None = None) -> Tensor:
    return empty_strided(size, stride, dtype=dtype or self._dtype, device=device or self._device)


def _new_filled(self: Tensor, size: Sequence[int], value: Any, dtype: _dt.dtype | None, device: Any) -> Tensor:
    d = dtype or self._dtype
    shape = check_shape(size)
    if type(value) is not int or value not in (0, 1):
        value = element(value, d, math.prod(shape))
    return filled(shape, d, device or self._device, value)


def new_zeros(self: Tensor, size: Sequence[int], *, dtype: _dt.dtype | None = None, layout: Any = None,
              device: Any = None, pin_memory: bool | None = None) -> Tensor:
    return _new_filled(self, size, 0, dtype, device)


def new_ones(self: Tensor, size: Sequence[int], *, dtype: _dt.dtype | None = None, layout: Any = None,
             device: Any = None, pin_memory: bool | None = None) -> Tensor:
    return _new_filled(self, size, 1, dtype, device)


def new_full(self: Tensor, size: Sequence[int], fill_value: Any, *, dtype: _dt.dtype | None = None,
             layout: Any = None, device: Any = None, pin_memory: bool | None = None) -> Tensor:
    return _new_filled(self, size, fill_value, dtype, device)


# --- arange -------------------------------------------------------------------------------------

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


def _arange_dtype(start: Any, end: Any, step: Any, dtype: _dt.dtype | None) -> _dt.dtype:
    if dtype is not None:
        return dtype
    return _dt.get_default_dtype() if any(map(_is_floating_number, (start, end, step))) else _dt.int64


def _check_range_dtype(d: _dt.dtype, op: str) -> None:
    if d is _dt.bool or d.is_complex:
        raise NotImplementedError(f'"{op}" not implemented for \'{d._c10_name}\'')


_INT64_MAX = 2**63 - 1


def arange_plan(start: Any, end: Any, step: Any, d: _dt.dtype) -> tuple[int, Any, Any]:
    """(length, first value, step) of arange in `d`, with PyTorch's checks and length rule.

    Integer dtypes truncate start and step first; the length comes from the original
    values in double precision, except for int64, which counts with the truncated ints
    (exact beyond 2**53)."""
    _check_range_dtype(d, "arange_cpu")
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


def _arange_values(length: int, first: Any, step: Any, d: _dt.dtype) -> np.ndarray:
    """first + step * i, computed in PyTorch's accumulation type for `d` on CPU."""
    if d.is_floating_point:
        acc = np.float32 if d.itemsize == 2 else np.float64
    else:
        acc = np.int64
    values = np.arange(length, dtype=acc) * acc(step) + acc(first)
    return values.astype(_dt.to_numpy_dtype(d), copy=False)


def arange_start_step(start: Any, end: Any, step: Any = 1, *, dtype: _dt.dtype | None = None,
                      layout: Any = None, device: Any = None, pin_memory: bool | None = None) -> Tensor:
    d = _arange_dtype(start, end, step, dtype)
    length, first, step_value = arange_plan(start, end, step, d)
    if is_meta(device):
        return meta_tensor((length,), d)
    return from_array(_arange_values(length, first, step_value, d), d)


def arange(end: Any, *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
           pin_memory: bool | None = None) -> Tensor:
    return arange_start_step(0, end, 1, dtype=dtype, device=device)


def arange_start(start: Any, end: Any, *, dtype: _dt.dtype | None = None, layout: Any = None,
                 device: Any = None, pin_memory: bool | None = None) -> Tensor:
    return arange_start_step(start, end, 1, dtype=dtype, device=device)


def write_factory_result(out: Tensor, result: Tensor) -> Tensor:
    """Resize `out` (silently, as factories' out= kernels do) and copy `result` in."""
    if out._shape != result._shape:
        resize_(out, result._shape)
    if out._data is not None:
        np.copyto(out._data, result._data, casting="unsafe")
    return out


def arange_start_out(start: Any, end: Any, step: Any = 1, *, out: Tensor) -> Tensor:
    d = out._dtype
    length, first, step_value = arange_plan(start, end, step, d)
    if out.numel() != length:
        if out.numel() > 0:
            import warnings

            warnings.warn(
                f"The number of elements in the out tensor of shape {_size_text(out._shape)} is {out.numel()} "
                f"which does not match the computed number of elements {length}. Note that this may occur as "
                f"a result of rounding error. The out tensor will be resized to a tensor of shape ({length},).",
                UserWarning, stacklevel=2)
        resize_(out, (length,))
    if out._data is not None:
        np.copyto(out._data, _arange_values(length, first, step_value, d), casting="unsafe")
    return out


def arange_out(end: Any, *, out: Tensor) -> Tensor:
    return arange_start_out(0, end, 1, out=out)


# --- linspace, eye ----------------------------------------------------------------------------

def _linspace_values(start: Any, end: Any, steps: int, d: _dt.dtype) -> np.ndarray:
    """PyTorch's CPU rule: the first half counts up from start, the second half down from
    end, with the step in the result dtype (double for integer results)."""
    np_dtype = _dt.to_numpy_dtype(d)
    if steps == 1:
        return np.full(1, element(start, d), np_dtype)
    if d.is_floating_point or d.is_complex:
        first, last = np_dtype.type(element(start, d)), np_dtype.type(element(end, d))
        index = np.arange(steps).astype(np_dtype)
    else:
        first, last = float(element(start, d)), float(element(end, d))
        index = np.arange(steps, dtype=np.float64)
    step = (last - first) / (steps - 1) if steps > 1 else last - first
    halfway = steps // 2
    with np.errstate(over="ignore", invalid="ignore"):
        values = np.concatenate([first + step * index[:halfway],
                                 last - step * (steps - 1 - index[halfway:])])
        return values.astype(np_dtype, copy=False)


def linspace(start: Any, end: Any, steps: int, *, dtype: _dt.dtype | None = None, layout: Any = None,
             device: Any = None, pin_memory: bool | None = None) -> Tensor:
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is None:
        is_complex = isinstance(start, complex) or isinstance(end, complex)
        dtype = _dt.get_default_complex_dtype() if is_complex else _dt.get_default_dtype()
    if dtype is _dt.bool:
        _check_range_dtype(dtype, "linspace_cpu")
    if is_meta(device):
        return meta_tensor((steps,), dtype)
    return from_array(_linspace_values(start, end, steps, dtype), dtype)


def linspace_out(start: Any, end: Any, steps: int, *, out: Tensor) -> Tensor:
    return write_factory_result(out, linspace(start, end, steps, dtype=out._dtype, device=out._device))


def eye_m(n: int, m: int, *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
          pin_memory: bool | None = None) -> Tensor:
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    d = _default_float(dtype)
    result = filled((n, m), d, device, element(0, d))
    if result._data is not None:
        np.fill_diagonal(result._data, element(1, d))
    return result


def eye(n: int, *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
        pin_memory: bool | None = None) -> Tensor:
    return eye_m(n, n, dtype=dtype, device=device)


# --- out= forms -----------------------------------------------------------------------------

def empty_out(size: Sequence[int], *, memory_format: Any = None, out: Tensor) -> Tensor:
    shape = check_shape(size)
    if out._shape != shape:
        resize_(out, shape)
    return out


register("empty", empty)
register("scalar_tensor", scalar_tensor)
register("empty_out", empty_out)
register("empty_strided", empty_strided)
for _fn in (zeros, ones, full, arange, arange_start, arange_start_step, linspace, eye, eye_m,
            empty_like, zeros_like, ones_like, full_like,
            new_empty, new_zeros, new_ones, new_full, new_empty_strided):
    register(_fn.__name__, _fn)
register("arange_out", arange_out)
register("arange_start_out", arange_start_out)
register("linspace_out", linspace_out)

register_backend_select(
    "empty.memory_format", "empty_strided", "zeros", "ones", "full", "scalar_tensor",
    "arange", "arange.start", "arange.start_step", "linspace", "eye", "eye.m",
)
