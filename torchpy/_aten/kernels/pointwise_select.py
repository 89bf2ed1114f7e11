"""Pointwise ops that select or blend values: clamp, lerp, where, masked_fill, nan_to_num,
isfinite (the rest of the pointwise family is in pointwise.py).

The CompositeImplicitAutograd ones (where's Scalar overloads, where(condition),
isfinite) call the aten ops PyTorch's decompositions call, so a dispatch mode sees
the same sequence. view_as_real (another family's, not in the op table yet) is used once it
is there; until then isfinite takes a complex tensor's parts itself.

Converted ops (clamp, clamp_min, clamp_max, lerp, where, masked_fill, nan_to_num) are array
code taking `xp` behind thin CPU adapters; their meta rules and Meta kernels (<name>_meta in
the YAML) are meta/pointwise_select.py's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor import promotion
from ..._tensor.enums import preserve_format, strided
from ..._tensor.finfo import finfo
from ..._tensor.tensor import Tensor, from_array, meta_tensor
from ..registry import register
from .bounds import maximum_with, minimum_with
from .elementwise import (
    ALL, ALL_BUT_BOOL, FLOATING_AND_COMPLEX, broadcast_shapes, checked_scalar, elementwise,
    make_kernel, not_implemented, quiet, torch_layout,
)
from .pointwise import aten
from .variants import write_inplace, write_out
from ..meta import pointwise_select as rules

_COMPLEX = frozenset(d for d in ALL if d.is_complex)
_ndarray = np.ndarray


# --- clamp ------------------------------------------------------------------------------------------

def _clamp(xp: Any, self: Any, min: Any = None, max: Any = None) -> Any:
    # min(max(x, lo), hi): NaN in x or in a bound propagates, and lo > hi gives hi. Bounds go
    # first: on a tie (-0.0 and 0.0) NumPy returns the second operand, torch the input.
    out = self
    if min is not None:
        out = xp.maximum(min, out)
    if max is not None:
        out = xp.minimum(max, out)
    return out


def _clamp_min(xp: Any, self: Any, min: Any) -> Any:
    return xp.maximum(min, self)


def _clamp_max(xp: Any, self: Any, max: Any) -> Any:
    return xp.minimum(max, self)


def _reject_complex(promoted: _dt.dtype, *args: Any) -> None:
    if promoted.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")


def _clamp_bound(value: Any, promoted: _dt.dtype) -> Any:
    if isinstance(value, complex) and value.imag != 0:  # PyTorch reads bounds as doubles first
        raise RuntimeError("value cannot be converted to type double without overflow")
    return None if value is None else checked_scalar(value, promoted)


_FAST_CLAMP = {_dt.float32: 3.4028234663852886e38, _dt.float64: float("inf")}
_REAL_NUMBERS = (int, float, type(None))


def clamp(self: Tensor, min: Any = None, max: Any = None) -> Tensor:
    limit = _FAST_CLAMP.get(self._dtype)
    if limit is not None and type(min) in _REAL_NUMBERS and \
            type(max) in _REAL_NUMBERS and (min is not None or max is not None) and \
            (min is None or -limit <= min <= limit or min != min) and \
            (max is None or -limit <= max <= limit or max != max):
        # the common case: float32 / float64 and in-range numbers (NaN included) need no conversion
        out = self._data
        if min is not None:
            out = maximum_with(out, min)
        if max is not None:
            out = minimum_with(out, max)
        return from_array(np.asarray(out), self._dtype)
    promoted = rules.clamp_dtype(self, min, max)
    _reject_complex(promoted)
    if promoted is _dt.bool:
        label = "clamp_scalar" if min is not None and max is not None else (
            "clamp_min_scalar" if min is not None else "clamp_max_scalar")
        raise not_implemented(f"{label}_cpu", promoted)
    return _clamp_kernel.compute(promoted, (self, _clamp_bound(min, promoted), _clamp_bound(max, promoted)), {})


def _cpu_check_clamp_bound(promoted: _dt.dtype, self: Any, bound: Any) -> None:
    _reject_complex(promoted)
    checked_scalar(bound, promoted)


def _cpu_check_clamp_tensor(promoted: _dt.dtype, self: Any, min: Any = None, max: Any = None) -> None:
    _reject_complex(self._dtype)
    # the dtype dispatch of the kernel PyTorch runs: clamp, or maximum / minimum for one bound
    if min is not None and max is not None:
        if promoted is _dt.bool or promoted.is_complex:
            raise not_implemented("clamp_cpu", promoted)
    elif promoted.is_complex:
        raise not_implemented("maximum_cpu" if min is not None else "minimum_cpu", promoted)


def _check_clamp_tensor(promoted: _dt.dtype, self: Any, min: Any = None, max: Any = None) -> None:
    rules.check_clamp_bounds(min, max)


_clamp_kernel = make_kernel(_clamp, operands=3, warns=False)
clamp.result_dtype = rules.clamp_dtype  # type: ignore[attr-defined]
clamp_min = make_kernel(_clamp_min, cpu_check=_cpu_check_clamp_bound, dtypes=ALL_BUT_BOOL,
                        label="clamp_min_scalar_cpu", warns=False)
clamp_max = make_kernel(_clamp_max, cpu_check=_cpu_check_clamp_bound, dtypes=ALL_BUT_BOOL,
                        label="clamp_max_scalar_cpu", warns=False)
clamp_tensor = elementwise("clamp_Tensor", operands=3, check=_check_clamp_tensor, cpu_check=_cpu_check_clamp_tensor,
                           warns=False)(_clamp)
clamp_min_tensor = elementwise("clamp_min_Tensor", dtypes=ALL - _COMPLEX, label="maximum_cpu", warns=False)(_clamp_min)
clamp_max_tensor = elementwise("clamp_max_Tensor", dtypes=ALL - _COMPLEX, label="minimum_cpu", warns=False)(_clamp_max)
for _name, _meta, _meta_dtype in (("clamp_Tensor", rules.clamp_tensor, rules.clamp_tensor_dtype),
                                  ("clamp_min_Tensor", rules.clamp_bound_tensor, rules.clamp_bound_tensor_dtype),
                                  ("clamp_max_Tensor", rules.clamp_bound_tensor, rules.clamp_bound_tensor_dtype)):
    _meta.result_dtype = _meta_dtype  # (for the out= / in-place kernels the YAML's policy makes of it)
    register(f"{_name}_meta", _meta)


def _inplace_clamp(functional: Any, result_dtype: Any, on_meta: bool) -> Any:
    """The in-place Scalar clamps: the result's dtype must cast to self's (CPU and meta word it apart)."""

    def inplace(self: Tensor, *args: Any) -> Tensor:
        try:
            result = functional(self, *args)
        except Exception:
            rules.check_inplace_castable(result_dtype(self, *args), self, on_meta)
            raise
        rules.check_inplace_castable(result._dtype, self, on_meta)
        return write_inplace(self, result)

    inplace.__name__ = inplace.__qualname__ = functional.__name__ + "_"
    inplace.__wrapped__ = functional  # type: ignore[attr-defined]
    return inplace


# CPU kernels under the op's name, Meta kernels (meta/pointwise_select.py's rules) as <name>_meta
for _name, _kernel, _meta, _meta_dtype in (
        ("clamp", clamp, rules.clamp, rules.clamp_meta_dtype),
        ("clamp_min", clamp_min, rules.clamp_min, rules.clamp_bound_dtype),
        ("clamp_max", clamp_max, rules.clamp_max, rules.clamp_bound_dtype)):
    register(_name, _kernel)
    register(f"{_name}_meta", _meta)
    register(f"{_name}_", _inplace_clamp(_kernel, _kernel.result_dtype, on_meta=False))
    register(f"{_name}__meta", _inplace_clamp(_meta, _meta_dtype, on_meta=True))
    _meta.result_dtype = _meta_dtype


# --- lerp ---------------------------------------------------------------------------------------------

def _lerp_values(xp: Any, start: Any, stop: Any, weight: Any, shape: tuple[int, ...], result: np.dtype) -> Any:
    # PyTorch's two-sided formula: exact at both ends. `weight` is an array or a number.
    diff = stop - start
    if type(weight) is _ndarray:
        out = xp.where(xp.abs(weight) < 0.5, start + weight * diff, stop - diff * (1 - weight))
    else:
        out = start + weight * diff if abs(weight) < 0.5 else stop - diff * (1 - weight)
    return xp.broadcast_to(out, shape).astype(result)


def _lerp(self: Tensor, end: Tensor, weight: Any, label: str) -> Tensor:
    d = rules.lerp_dtype(self, end, weight)
    tensors = (self, end, weight) if isinstance(weight, Tensor) else (self, end)
    shape = broadcast_shapes(*(t._shape for t in tensors))
    if d not in FLOATING_AND_COMPLEX:  # the CPU kernel's dtype dispatch; meta has none
        raise not_implemented(label, d)
    computation = promotion.opmath_dtype(d)
    np_computation = computation._numpy
    w = weight._data.astype(np_computation) if isinstance(weight, Tensor) else checked_scalar(weight, computation)
    with quiet():
        out = _lerp_values(np, self._data.astype(np_computation), end._data.astype(np_computation), w, shape,
                           d._numpy)
    return from_array(out, d)


def lerp_scalar(self: Tensor, end: Tensor, weight: Any) -> Tensor:
    return _lerp(self, end, weight, "lerp_kernel_scalar")


def lerp_tensor(self: Tensor, end: Tensor, weight: Tensor) -> Tensor:
    return _lerp(self, end, weight, "lerp_kernel_tensor")


# CPU kernels under the op's name, Meta kernels (meta/pointwise_select.py's rules) as <name>_meta
register("lerp_Scalar", lerp_scalar)
register("lerp", lerp_tensor)
register("lerp_Scalar_meta", rules.lerp)
register("lerp_meta", rules.lerp)
for _fn in (lerp_scalar, lerp_tensor, rules.lerp):  # for the out= / in-place kernels the YAML's policy makes
    _fn.result_dtype = rules.lerp_dtype  # type: ignore[attr-defined]


# --- where ----------------------------------------------------------------------------------------------

def _operand_array(x: Any, np_dtype: np.dtype) -> Any:
    if isinstance(x, Tensor):
        return x._data.astype(np_dtype, copy=False)
    return np.array(x).astype(np_dtype)


def _select(xp: Any, condition: Any, x: Any, y: Any) -> Any:
    return torch_layout(xp.asarray(xp.where(condition, x, y)), (condition, x, y))


def where(condition: Tensor, self: Any, other: Any) -> Tensor:
    if condition._dtype is _dt.bool and type(self) is Tensor and type(other) is Tensor and \
            self._dtype is other._dtype and self._wrapped is None and other._wrapped is None:
        # the common case: nothing to promote
        try:
            return from_array(_select(np, condition._data, self._data, other._data), self._dtype)
        except ValueError:
            pass  # a shape error: worded below
    result = rules.where_dtype(condition, self, other)
    broadcast_shapes(*(t._shape for t in (condition, self, other) if isinstance(t, Tensor)))
    np_result = result._numpy
    out = _select(np, condition._data.astype(np.bool_, copy=False), _operand_array(self, np_result),
                  _operand_array(other, np_result))
    return from_array(out, result)


def _where_out(functional: Any) -> Any:
    def where_out(condition: Tensor, self: Any, other: Any, *, out: Tensor) -> Tensor:
        result = functional(condition, self, other)
        if out._dtype is not result._dtype:
            raise RuntimeError(f"Expected out type to be {result._dtype._c10_name} but got {out._dtype._c10_name}")
        return write_out(out, result)

    where_out.__wrapped__ = functional  # type: ignore[attr-defined]
    return where_out


register("where", where)
register("where_meta", rules.where)
register("where_out", _where_out(where))
register("where_out_meta", _where_out(rules.where))


def _scalar_tensor(value: Any, dtype: _dt.dtype, like: Tensor) -> Tensor:
    """aten::scalar_tensor(value, dtype=..., layout=strided, device=like's), as PyTorch's
    where decompositions create their scalar operands."""
    return aten("scalar_tensor")(value, dtype=dtype, layout=strided, device=like._device)


def where_scalar_other(condition: Tensor, self: Tensor, other: Any) -> Tensor:
    other_t = _scalar_tensor(other, promotion.result_type(self, other), self)
    return aten("where.self")(condition, self, other_t)


def where_scalar_self(condition: Tensor, self: Any, other: Tensor) -> Tensor:
    self_t = _scalar_tensor(self, promotion.result_type(self, other), other)
    return aten("where.self")(condition, self_t, other)


def where_scalar(condition: Tensor, self: Any, other: Any) -> Tensor:
    dtype = promotion.result_type(self, other)
    other_t = _scalar_tensor(other, dtype, condition)
    self_t = _scalar_tensor(self, dtype, condition)
    return aten("where.self")(condition, self_t, other_t)


def where_condition(condition: Tensor) -> tuple[Tensor, ...]:
    """where(condition): the indices of the nonzero elements, one tensor per dimension."""
    return aten("unbind.int")(aten("nonzero")(condition), 1)


register("where_ScalarOther", where_scalar_other)
register("where_ScalarSelf", where_scalar_self)
register("where_Scalar", where_scalar)
register("where_cond", where_condition)


# --- masked_fill ------------------------------------------------------------------------------------

def _masked_fill_values(xp: Any, data: Any, mask: Any, fill: Any) -> None:
    xp.copyto(data, xp.array(fill).astype(data.dtype), where=mask)


def masked_fill_scalar_(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    fill = rules.masked_fill_inplace_checks(self, mask, value)
    _masked_fill_values(np, self._data, mask._data, fill)
    return self


def masked_fill_tensor_(self: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    rules.check_fill_value(value)
    return masked_fill_scalar_(self, mask, value.item())


def masked_fill_scalar(self: Tensor, mask: Tensor, value: Any) -> Tensor:
    shape = broadcast_shapes(mask._shape, self._shape)
    result = from_array(np.array(np.broadcast_to(self._data, shape), order="C"), self._dtype)  # a contiguous clone
    return masked_fill_scalar_(result, mask, value)


def masked_fill_tensor(self: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    rules.check_fill_value(value)
    return masked_fill_scalar(self, mask, value.item())


for _name, _cpu, _meta in (("masked_fill_Scalar", masked_fill_scalar, rules.masked_fill_scalar),
                           ("masked_fill", masked_fill_tensor, rules.masked_fill_tensor)):
    register(_name, _cpu)
    register(f"{_name}_meta", _meta)
register("masked_fill_Scalar_", masked_fill_scalar_)
register("masked_fill_", masked_fill_tensor_)
register("masked_fill_Scalar__meta", rules.masked_fill_scalar_)
register("masked_fill__meta", rules.masked_fill_tensor_)


# --- nan_to_num -------------------------------------------------------------------------------------

def _replace_non_finite(xp: Any, x: Any, real: _dt.dtype, nan: Any, posinf: Any, neginf: Any) -> Any:
    info = finfo(real)
    replacements = [0.0 if nan is None else nan, info.max if posinf is None else posinf,
                    info.min if neginf is None else neginf]
    # C-style conversion: a replacement too large for the dtype becomes inf, as in PyTorch
    nan_v, posinf_v, neginf_v = (xp.array(v).astype(x.dtype) for v in replacements)
    out = xp.where(xp.isnan(x), nan_v, x)
    out = xp.where(out == xp.inf, posinf_v, out)
    return xp.where(out == -xp.inf, neginf_v, out)


def _nan_to_num_values(xp: Any, data: Any, d: _dt.dtype, nan: Any, posinf: Any, neginf: Any) -> Any:
    if not (d.is_floating_point or d.is_complex):
        return data.copy()
    real = d.to_real()
    computation = promotion.opmath_dtype(real)._numpy
    if d.is_complex:
        out = xp.empty(data.shape, data.dtype)
        out.real = _replace_non_finite(xp, data.real.astype(computation), real, nan, posinf, neginf)
        out.imag = _replace_non_finite(xp, data.imag.astype(computation), real, nan, posinf, neginf)
        return out
    return _replace_non_finite(xp, data.astype(computation), real, nan, posinf, neginf).astype(d._numpy)


def nan_to_num(self: Tensor, nan: float | None = None, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    with quiet():
        return from_array(_nan_to_num_values(np, self._data, self._dtype, nan, posinf, neginf), self._dtype)


def _nan_to_num_out(functional: Any) -> Any:
    def nan_to_num_out(self: Tensor, nan: float | None = None, posinf: float | None = None,
                       neginf: float | None = None, *, out: Tensor) -> Tensor:
        rules.check_nan_to_num_out(self, out)
        return write_out(out, functional(self, nan, posinf, neginf))

    nan_to_num_out.__wrapped__ = functional  # type: ignore[attr-defined]
    return nan_to_num_out


def nan_to_num_(self: Tensor, nan: float | None = None, posinf: float | None = None,
                neginf: float | None = None) -> Tensor:
    return write_inplace(self, nan_to_num(self, nan, posinf, neginf))


register("nan_to_num", nan_to_num)
register("nan_to_num_meta", rules.nan_to_num)
register("nan_to_num_", nan_to_num_)
register("nan_to_num__meta", rules.nan_to_num_)
register("nan_to_num_out", _nan_to_num_out(nan_to_num))
register("nan_to_num_out_meta", _nan_to_num_out(rules.nan_to_num))


# --- isfinite (CompositeImplicitAutograd) ------------------------------------------------------------

def _isfinite_real(self: Tensor) -> Tensor:
    # PyTorch: (self == self) * (self.abs() != inf), abs and ne evaluated first
    finite_magnitude = aten("ne.Scalar")(aten("abs")(self), float("inf"))
    not_nan = aten("eq.Tensor")(self, self)
    return aten("mul.Tensor")(not_nan, finite_magnitude)


def _complex_part(self: Tensor, index: int) -> Tensor:
    view_as_real, select = aten("view_as_real"), aten("select.int")
    if view_as_real is not None and select is not None:
        pairs = view_as_real(self)
        return select(pairs, len(pairs._shape) - 1, index)
    part = None if self._data is None else (self._data.real if index == 0 else self._data.imag)
    real = self._dtype.to_real()
    return meta_tensor(self._shape, real) if part is None else from_array(np.ascontiguousarray(part), real)


def isfinite(self: Tensor) -> Tensor:
    d = self._dtype
    if d.is_complex:
        real_finite = isfinite(_complex_part(self, 0))
        return aten("bitwise_and_.Tensor")(real_finite, isfinite(_complex_part(self, 1)))
    if d.is_floating_point:
        return _isfinite_real(self)
    return aten("ones_like")(self, dtype=_dt.bool, memory_format=preserve_format)


register("isfinite", isfinite)
