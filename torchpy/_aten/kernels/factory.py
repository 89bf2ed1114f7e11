"""Factories: new tensors from sizes, fill values and ranges.

empty, empty_strided, zeros, ones, full, arange, linspace, eye: CPU kernels that take
their shapes, dtypes and plans from meta/factory.py's rules and fill NumPy arrays; the
Meta kernels are those rules (registered here as `<name>_meta`). The *_like forms and the
new_* methods have a tensor argument and are CompositeExplicitAutograd, as in PyTorch: they
pick the dtype, the strides (memory_format; preserve_format keeps the source's layout) and
the device, and allocate there (`new_tensor`, `filled`: at::empty's part).

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
from ..meta import factory as rules
from ..meta.factory import (  # noqa: F401  (check_shape, element: the factories' rules, used across kernels)
    _default_float, arange_dtype, arange_plan, check_range_dtype, check_shape, element, format_strides, size_text,
)
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


# --- empty, zeros, ones, full -----------------------------------------------------------------

def empty(size: Sequence[int], *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
          pin_memory: bool | None = None, memory_format: Any = None) -> Tensor:
    shape = check_shape(size)
    return new_tensor(shape, _default_float(dtype), None, format_strides(shape, memory_format))


def empty_strided(size: Sequence[int], stride: Sequence[int], *, dtype: _dt.dtype | None = None,
                  layout: Any = None, device: Any = None, pin_memory: bool | None = None) -> Tensor:
    if len(size) != len(stride):
        raise RuntimeError(
            f"dimensionality of sizes ({len(size)}) must match dimensionality of strides ({len(stride)})")
    return new_tensor(check_shape(size), _default_float(dtype), None, tuple(stride))


def zeros(size: Sequence[int], *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
          pin_memory: bool | None = None) -> Tensor:
    if size and min(size) < 0:
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return filled(check_shape(size), _default_float(dtype), None, 0)  # 0 and 1 fit every dtype


def ones(size: Sequence[int], *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
         pin_memory: bool | None = None) -> Tensor:
    return filled(check_shape(size), _default_float(dtype), None, 1)


def full(size: Sequence[int], fill_value: Any, *, dtype: _dt.dtype | None = None, layout: Any = None,
         device: Any = None, pin_memory: bool | None = None) -> Tensor:
    d = dtype if dtype is not None else _dt.scalar_default_dtype(fill_value)  # full(.., 2) is int64
    shape = check_shape(size)
    return filled(shape, d, None, element(fill_value, d, math.prod(shape)))


def scalar_tensor(s: Any, *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
                  pin_memory: bool | None = None) -> Tensor:
    # The default dtype whatever the number's type: scalar_tensor(1) is 1. in float32.
    return full((), s, dtype=_default_float(dtype))


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
    d = arange_dtype(start, end, step, dtype)
    length, first, step_value = arange_plan(start, end, step, d)
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
    rules.arange_out_length(out, length)
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
    dtype = rules.linspace_dtype(start, end, steps, dtype)
    return from_array(_linspace_values(start, end, steps, dtype), dtype)


def _linspace_out(functional: Callable) -> Callable:
    def linspace_out(start: Any, end: Any, steps: int, *, out: Tensor) -> Tensor:
        return write_factory_result(out, functional(start, end, steps, dtype=out._dtype))

    return linspace_out


def eye_array(xp: Any, n: int, m: int, np_dtype: Any, one: Any) -> Any:
    array = xp.zeros((n, m), np_dtype)
    xp.fill_diagonal(array, one)
    return array


def eye_m(n: int, m: int, *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
          pin_memory: bool | None = None) -> Tensor:
    shape = rules.eye_shape(n, m)
    d = _default_float(dtype)
    return wrap(eye_array(np, *shape, _dt.to_numpy_dtype(d), element(1, d)), d)


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
register("linspace_out", _linspace_out(linspace))
register("linspace_out_meta", _linspace_out(rules.linspace))
register("arange_out_meta", rules.arange_out)
register("arange_start_out_meta", rules.arange_start_out)
for _fn in (rules.empty, rules.empty_strided, rules.zeros, rules.full, rules.scalar_tensor, rules.arange,
            rules.arange_start, rules.arange_start_step, rules.linspace, rules.eye, rules.eye_m):
    register(_fn.__name__ + "_meta", _fn)
register("ones_meta", rules.ones)
# the out= forms of zeros / ones / full / eye / scalar_tensor (CPU and Meta): made from these by the
# YAML's policy

register_backend_select(
    "empty.memory_format", "empty_strided", "zeros", "ones", "full", "scalar_tensor",
    "arange", "arange.start", "arange.start_step", "linspace", "eye", "eye.m",
)
