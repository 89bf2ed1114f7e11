"""Copies: clone, copy_, _to_copy, fill_, zero_, cat, stack, and the composites over them
(contiguous, to, type_as, concat).

Two things decide what a copy looks like in PyTorch and are reproduced here:

* the result's strides. `clone` and `_to_copy` keep the input's strides when they are dense
  and non-overlapping, and otherwise keep the input's dimension order (zero strides do not
  move); an explicit memory format asks for contiguous or channels-last strides;
* the value conversions. NumPy's casts are used where they agree with PyTorch's C++ casts,
  and routed where they do not (float -> 8/16-bit ints goes through int32, as the C++
  truncation does; float64 -> float16/bfloat16 rounds through float32, as c10::Half does).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Sequence

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.enums import channels_last, channels_last_3d, contiguous_format, preserve_format, strided
from ..._tensor.finfo import finfo, iinfo
from ..._tensor.tensor import Tensor, _to_python, contiguous_strides, contiguous_strides_of, from_array
from ..fastcall import aten, call, call_kw
from ..registry import register
from ..meta import copy as rules
from ..meta.copy import (  # noqa: F401 - re-exported for adaptive_pool, the autograd engine
    NO_DATA, PRESERVE, _CHANNELS_LAST_ORDER, channels_last_strides, check_copy, check_fill_value, copy_strides,
    is_channels_last_contiguous, strides_like_channels_last as _strides_like_channels_last,
)
from ..meta.layout import is_non_overlapping_and_dense, preserve_strides  # noqa: F401 - the engine's
from .variants import write_out

Array = Any


# --- layouts: the rules live in meta/copy.py (they need no data) ---------------------------------


def is_contiguous_as(t: Tensor, memory_format: Any) -> bool:
    if memory_format is channels_last or memory_format is channels_last_3d:
        return is_channels_last_contiguous(t._shape, t.stride()) if _rank_fits(t, memory_format) else False
    return t.is_contiguous()


def _rank_fits(t: Tensor, memory_format: Any) -> bool:
    return len(t._shape) == (4 if memory_format is channels_last else 5)


def empty_strided_array(shape: Sequence[int], strides: Sequence[int], np_dtype: np.dtype) -> np.ndarray:
    """Fresh memory holding exactly the elements (shape, strides) address."""
    shape = tuple(shape)
    if tuple(strides) == contiguous_strides(shape):
        return np.empty(shape, np_dtype)
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, strides)) if all(shape) else 0
    item = np_dtype.itemsize
    return np.ndarray(shape, np_dtype, np.empty(extent, np_dtype), 0, tuple(s * item for s in strides))


# --- value conversion -------------------------------------------------------------------------

_VIA_INT32 = {np.dtype(np.int8), np.dtype(np.int16)}  # C++ float -> int8/int16 truncates through int32
_VIA_INT64 = {np.dtype(np.uint8)}                      # ... and float -> uint8 through int64
_HALF_FLOATS = {np.dtype(np.float16), _dt.to_numpy_dtype(_dt.bfloat16)}


def cast_array(array: np.ndarray, np_dtype: np.dtype) -> np.ndarray:
    """`array` converted to `np_dtype` with PyTorch's (x86 C++) conversion results."""
    source = array.dtype
    if source == np_dtype:
        return array
    if source.kind == "c" and np_dtype.kind != "c":
        array = array.real if np_dtype.kind != "b" else array != 0
        source = array.dtype
    floating = source.kind == "f" or source in _HALF_FLOATS
    if np_dtype.kind in "iu" and floating:
        with np.errstate(invalid="ignore", over="ignore"):
            if source in _HALF_FLOATS:
                array = array.astype(np.float32)
            if np_dtype in _VIA_INT32:
                return array.astype(np.int32).astype(np_dtype)
            if np_dtype in _VIA_INT64:
                return array.astype(np.int64).astype(np_dtype)
            return array.astype(np_dtype)
    if np_dtype in _HALF_FLOATS and (source.itemsize > 4 or source.kind in "iu"):
        with np.errstate(over="ignore"):  # c10::Half(x) converts through float
            return array.astype(np.float32).astype(np_dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        return array.astype(np_dtype)


def _warn_if_complex_to_real(src: _dt.dtype, dst: _dt.dtype) -> None:
    if src.is_complex and not dst.is_complex:
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=4)


# --- clone, _to_copy, copy_, copy ------------------------------------------------------------------


def _copy_of(self: Tensor, d: _dt.dtype, memory_format: Any) -> Tensor:
    """A new CPU tensor with self's values as dtype `d`, strides per memory_format (the rule's)."""
    data = self._data
    shape = self._shape
    strides = self._stride or self.stride()
    np_dtype = _dt.to_numpy_dtype(d)
    contiguous = contiguous_strides_of(shape)
    # copy_strides' contiguous answer, tested inline: the common case is a C-order copy
    if memory_format is contiguous_format or (memory_format in PRESERVE and strides == contiguous):
        out = data.copy() if data.dtype == np_dtype else cast_array(data, np_dtype)
        if out is data or out.base is data:  # cast_array may return a view (complex -> real)
            out = out.copy()
        elif not out.flags.c_contiguous:
            out = np.ascontiguousarray(out)
        return fresh(out, d, contiguous if 0 in shape else None)
    strides = copy_strides(shape, strides, memory_format)
    out = empty_strided_array(shape, strides, np_dtype)
    np.copyto(out, cast_array(data, np_dtype), casting="unsafe")
    return fresh(out, d, strides)


def fresh(array: np.ndarray, d: _dt.dtype, strides: tuple[int, ...] | None) -> Tensor:
    """A new tensor over `array` with PyTorch's strides (NumPy gives empty arrays zero strides);
    strides None: the array's own (right for a non-empty C-contiguous array)."""
    t = from_array(array, d)
    t._stride = strides
    return t


@register("clone")
def clone(self: Tensor, *, memory_format: Any = None) -> Tensor:
    return _copy_of(self, self._dtype, memory_format)


@register("_to_copy")
def _to_copy(self: Tensor, *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
             pin_memory: bool | None = None, non_blocking: bool = False, memory_format: Any = None) -> Tensor:
    if layout is not None and layout is not strided:
        raise NotImplementedError(f"_to_copy to layout {layout} is not supported")
    target = self._dtype if dtype is None else dtype
    if device is not None and device.type == "meta":  # to the meta device: the rule's layout, no data
        return rules.copy_of(self, target, memory_format)
    return _copy_of(self, target, memory_format)


@register("copy_")
def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    if self is src:
        return self
    check_copy(self, src)
    _warn_if_complex_to_real(src._dtype, self._dtype)
    np.copyto(self._data, cast_array(src._data, self._data.dtype), casting="unsafe")
    return self


@register("copy")
def copy(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    result = clone(self)
    return copy_(result, src, non_blocking)


# --- fill_, zero_ ----------------------------------------------------------------------------------

def _overflows(value: Any, d: _dt.dtype) -> bool:
    """Whether a Python number cannot be stored as dtype `d` (PyTorch's checked conversion)."""
    if d is _dt.bool:
        return False
    if isinstance(value, complex):
        if not d.is_complex:
            if value.imag != 0:
                return True
            value = value.real
        else:
            part = d.to_real()
            return _overflows(value.real, part) or _overflows(value.imag, part)
    if d.is_complex:
        return _overflows(value, d.to_real())
    low, high = _LIMITS[d]
    if d.is_floating_point:
        if isinstance(value, float) and not math.isfinite(value):
            return False
        return abs(value) > high
    if isinstance(value, float):
        return not math.isfinite(value) or value < low or value > high
    if low == 0:
        low = -high  # unsigned: small negative ints wrap around
    return value < low or value > high


def _limits() -> dict[_dt.dtype, tuple[float, float]]:
    table: dict[_dt.dtype, tuple[float, float]] = {}
    for d in (_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64):
        table[d] = (-finfo(d).max, finfo(d).max)
    for d in (_dt.uint8, _dt.int8, _dt.int16, _dt.int32, _dt.int64):
        table[d] = (iinfo(d).min, iinfo(d).max)
    return table


_LIMITS = _limits()


def _exact_fill_ranges() -> dict[_dt.dtype, tuple[type, float, float]]:
    """dtype -> (Python type, low, high): values NumPy's own fill converts as PyTorch does."""
    ranges: dict[_dt.dtype, tuple[type, float, float]] = {}
    for d in (_dt.uint8, _dt.int8, _dt.int16, _dt.int32, _dt.int64):
        ranges[d] = (int, iinfo(d).min, iinfo(d).max)
    for d in (_dt.float32, _dt.float64):
        ranges[d] = (float, -finfo(d).max, finfo(d).max)
    return ranges


_EXACT_FILL = _exact_fill_ranges()


def fill_value_array(value: Any, d: _dt.dtype) -> np.ndarray:
    """`value` as a 0-d array of d's NumPy dtype, converted as PyTorch converts it."""
    exact = _EXACT_FILL.get(d)
    if exact is not None and type(value) in (int, float):
        kind, low, high = exact
        if (kind is float or type(value) is int) and low <= value <= high:
            return np.array(value, _dt.to_numpy_dtype(d))
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, bool):
        value = int(value)
    if _overflows(value, d):
        raise RuntimeError(f"value cannot be converted to type {d._cpp_type_name} without overflow")
    np_dtype = _dt.to_numpy_dtype(d)
    if isinstance(value, int) and np_dtype.kind in "iu":
        return np.array(value & ((1 << (8 * np_dtype.itemsize)) - 1), np.uint64).astype(np_dtype)
    return cast_array(np.array(value), np_dtype)


@register("fill_")
def fill_(self: Tensor, value: Any) -> Tensor:
    data = self._data
    exact = _EXACT_FILL.get(self._dtype)
    if exact is not None and type(value) in (int, float):
        kind, low, high = exact
        if (kind is float or type(value) is int) and low <= value <= high:
            data.fill(value)  # in range and exactly representable: no checks or rounding to emulate
            return self
    data[...] = fill_value_array(value, self._dtype)
    return self


@register("fill__tensor")
def fill__tensor(self: Tensor, value: Tensor) -> Tensor:
    check_fill_value(value)
    return fill_(self, value.item())


@register("zero_")
def zero_(self: Tensor) -> Tensor:
    self._data.fill(0)
    return self


@register("fill")
def fill(self: Tensor, value: Any) -> Tensor:
    return fill_(_copy_of(self, self._dtype, None), value)


@register("fill_tensor")
def fill_tensor(self: Tensor, value: Tensor) -> Tensor:
    return fill__tensor(_copy_of(self, self._dtype, None), value)


@register("zero")
def zero(self: Tensor) -> Tensor:
    return zero_(_copy_of(self, self._dtype, None))


# the Meta kernels are the rules (meta/copy.py), as <name>_meta
for _name in ("clone", "_to_copy", "copy_", "copy", "fill_", "fill__tensor", "zero_", "fill", "fill_tensor", "zero"):
    register(f"{_name}_meta", getattr(rules, _name))


# --- cat, stack: sizes, checks, dtype and memory format are meta/copy.py's rules --------------------


def joined_values(xp: Any, arrays: list[Array], d: int, out: Array) -> Array:
    """`arrays` (of out's dtype) joined along d into `out` (concatenate alone would follow the
    inputs' memory order)."""
    if arrays:
        xp.concatenate(arrays, axis=d, out=out)
    return out


def _joined(arrays: list[np.ndarray], d: int, shape: tuple, result_dtype: _dt.dtype, memory_format: Any) -> Tensor:
    """The output of cat/stack: `arrays` joined along d, laid out as the rule says."""
    if memory_format is contiguous_format:
        strides = contiguous_strides(shape) if 0 in shape else None  # None: the C-order array's own
    else:
        strides = channels_last_strides(shape)
    np_dtype = _dt.to_numpy_dtype(result_dtype)
    out = np.empty(shape, np_dtype) if strides is None else empty_strided_array(shape, strides, np_dtype)
    return fresh(joined_values(np, [cast_array(a, np_dtype) for a in arrays], d, out), result_dtype, strides)


def _cat_same_dtype(tensors: Sequence[Tensor], dim: int) -> Tensor | None:
    """cat's common case, quickly: tensors of one dtype, not 4-d/5-d (no memory-format
    question), nothing skipped or mismatched: the rule's answer is C order, tested inline.
    None: take the rule's path."""
    first = tensors[0]
    ref, dtype = first._shape, first._dtype
    n = len(ref)
    d = dim + n if dim < 0 else dim
    if n in (0, 4, 5) or not 0 <= d < n:
        return None
    total = 0
    arrays = []
    for t in tensors:
        shape = t._shape
        if t._dtype is not dtype or len(shape) != n or shape == (0,):
            return None
        if shape != ref and (shape[:d] != ref[:d] or shape[d + 1:] != ref[d + 1:]):
            return None
        total += shape[d]
        arrays.append(t._data)
    shape = ref[:d] + (total,) + ref[d + 1:]
    if 0 in shape:
        return None
    # C order whatever the inputs' order
    return from_array(joined_values(np, arrays, d, np.empty(shape, arrays[0].dtype)), dtype)


@register("cat")
def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    if tensors:
        result = _cat_same_dtype(tensors, dim)
        if result is not None:
            return result
    parts, d, shape, memory_format, result_dtype = rules.cat_rule(tensors, dim)
    return _joined([t._data for t in parts], d, shape, result_dtype, memory_format)


@register("stack")
def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """cat of the inputs each unsqueezed at dim (computed directly, without the views)."""
    if tensors:  # the common case, as cat's: one dtype, no memory-format question (the rule's C order)
        first = tensors[0]
        shape, dtype, n = first._shape, first._dtype, len(tensors)
        d = dim + len(shape) + 1 if dim < 0 else dim
        if len(shape) not in (3, 4) and 0 <= d <= len(shape) and n and 0 not in shape:
            unit = shape[:d] + (1,) + shape[d:]
            arrays = []
            for t in tensors:
                if t._dtype is not dtype or t._shape != shape:
                    break
                arrays.append(t._data.reshape(unit))
            else:
                out = np.empty(shape[:d] + (n,) + shape[d:], arrays[0].dtype)
                return from_array(joined_values(np, arrays, d, out), dtype)
    d, unit, shape, memory_format, result_dtype = rules.stack_rule(tensors, dim)
    return _joined([t._data.reshape(unit) for t in tensors], d, shape, result_dtype, memory_format)


@register("cat_out")
def cat_out(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor) -> Tensor:
    return write_out(out, cat(tensors, dim))


@register("stack_out")
def stack_out(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor) -> Tensor:
    return write_out(out, stack(tensors, dim))


def _keysets(tensors: Sequence[Tensor]) -> int:
    ks = 0
    for t in tensors:
        ks |= t._keyset
    return ks


@register("concat")
def concat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    if dim == 0:  # normalized: the default dropped, as a TorchDispatchMode sees torch's call
        return call(aten("cat"), _keysets(tensors), list(tensors))
    return call(aten("cat"), _keysets(tensors), list(tensors), dim)


@register("concat_out")
def concat_out(tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor) -> Tensor:
    args = (list(tensors), dim) if dim != 0 else (list(tensors),)  # the default dropped, as for concat
    return call_kw(aten("cat.out"), _keysets(tensors) | out._keyset, args, {"out": out})


# --- contiguous, to, type_as ---------------------------------------------------------------------------


@register("contiguous")
def contiguous(self: Tensor, *, memory_format: Any = contiguous_format) -> Tensor:
    if is_contiguous_as(self, memory_format):
        return self
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return call_kw(aten("clone"), self._keyset, (self,), {"memory_format": memory_format})


def to_will_alias(self: Tensor, dtype: Any, layout: Any, device: Any, copy: bool, memory_format: Any) -> bool:
    """Whether `to` may return self: nothing to change and no copy asked for."""
    if copy:
        return False
    if dtype is not None and dtype is not self._dtype:
        return False
    if layout is not None and layout is not strided:
        return False
    if device is not None and device != self._device:
        return False
    return memory_format is None or memory_format is preserve_format or is_contiguous_as(self, memory_format)


def _to(self: Tensor, dtype: Any, layout: Any, device: Any, pin_memory: Any, non_blocking: bool, copy: bool,
        memory_format: Any) -> Tensor:
    if to_will_alias(self, dtype, layout, device, copy, memory_format):
        return self
    kwargs: dict[str, Any] = {}
    if dtype is not None:
        kwargs["dtype"] = dtype
    if layout is not None:
        kwargs["layout"] = layout
    if device is not None:
        kwargs["device"] = device
    if pin_memory is not None:
        kwargs["pin_memory"] = pin_memory
    if non_blocking:
        kwargs["non_blocking"] = True
    if memory_format is not None:
        kwargs["memory_format"] = memory_format
    return call_kw(aten("_to_copy"), self._keyset, (self,), kwargs)


@register("to_dtype_layout")
def to_dtype_layout(self: Tensor, *, dtype: Any = None, layout: Any = None, device: Any = None,
                    pin_memory: Any = None, non_blocking: bool = False, copy: bool = False,
                    memory_format: Any = None) -> Tensor:
    return _to(self, dtype, layout, device, pin_memory, non_blocking, copy, memory_format)


@register("to_device")
def to_device(self: Tensor, device: Any, dtype: Any, non_blocking: bool = False, copy: bool = False,
              memory_format: Any = None) -> Tensor:
    return _to(self, dtype, None, device, None, non_blocking, copy, memory_format)


@register("to_dtype")
def to_dtype(self: Tensor, dtype: Any, non_blocking: bool = False, copy: bool = False,
             memory_format: Any = None) -> Tensor:
    return _to(self, dtype, None, None, None, non_blocking, copy, memory_format)


@register("to_other")
def to_other(self: Tensor, other: Tensor, non_blocking: bool = False, copy: bool = False,
             memory_format: Any = None) -> Tensor:
    return _to(self, other._dtype, None, other._device, None, non_blocking, copy, memory_format)


@register("type_as")
def type_as(self: Tensor, other: Tensor) -> Tensor:
    return _to(self, other._dtype, strided, other._device, None, False, False, None)


# --- lift_fresh, _local_scalar_dense (what Python values and .item() go through) ---------------------


@register("lift_fresh")
def lift_fresh(self: Tensor) -> Tensor:
    return self


@register("_local_scalar_dense")
def _local_scalar_dense(self: Tensor) -> Any:
    return _to_python(self._data.flat[0], self._dtype)


@register("_local_scalar_dense_meta")
def _local_scalar_dense_meta(self: Tensor) -> Any:
    raise RuntimeError("Tensor.item() cannot be called on meta tensors")


# --- flip: a copy with the order along some dims reversed --------------------------------------


@register("flip")
def flip(self: Tensor, dims: Sequence[int]) -> Tensor:
    axes = rules.flip_dims(self._shape, dims)
    return fresh(flipped_values(np, self._data, axes), self._dtype, preserve_strides(self._shape, self.stride()))


def flipped_values(xp: Any, data: Array, axes: tuple[int, ...]) -> Array:
    """A copy of data reversed along `axes`, in data's layout, as torch's (ascontiguousarray
    would make a 0-dim array 1-dim, and may hand back the input's own memory)."""
    return (xp.flip(data, axes) if axes else data).copy(order="K")


@register("flip_out")
def flip_out(self: Tensor, dims: Sequence[int], *, out: Tensor) -> Tensor:
    return write_out(out, call(aten("flip"), self._keyset, self, list(dims)))


# --- repeat / tile: the input tiled along each dim ---------------------------------------------

@register("repeat")
def repeat(self: Tensor, repeats: Sequence[int]) -> Tensor:
    repeats = tuple(repeats)
    padded, shape = rules.repeat_shapes(self._shape, repeats)
    return fresh(repeated_values(np, self._data, padded, repeats, shape), self._dtype, None)


def repeated_values(xp: Any, data: Array, padded: tuple[int, ...], repeats: tuple[int, ...],
                    shape: tuple[int, ...]) -> Array:
    """data (viewed as `padded`, its shape with leading 1s) tiled `repeats` times, as `shape`
    (a fresh C-order array: tile copies)."""
    return xp.tile(data.reshape(padded), repeats).reshape(shape)


@register("repeat_out")
def repeat_out(self: Tensor, repeats: Sequence[int], *, out: Tensor) -> Tensor:
    return write_out(out, call(aten("repeat"), self._keyset, self, list(repeats)))


# the Meta kernels of cat, stack, flip, repeat: the rules (meta/copy.py); the YAML's policy makes
# their out= forms
for _name in ("cat", "stack", "flip", "repeat"):
    register(f"{_name}_meta", getattr(rules, _name))


@register("tile")
def tile(self: Tensor, dims: Sequence[int]) -> Tensor:
    dims = list(dims)
    return call(aten("repeat"), self._keyset, self, [1] * (len(self._shape) - len(dims)) + dims)
