"""Extrema: amax, amin, aminmax, max / min (all, dim, other), argmax, argmin.

The array code takes the array module `xp` and arrays (`*_values`); the CPU kernels are thin
adapters that take axes and shapes from the meta rules (meta/extrema.py), make the CPU kernels'
own checks, hand `self`'s array to the array code and wrap the result. The Meta kernels are the
meta rules, registered here beside the CPU ones (`<name>_meta`), with their out= forms.

These have no identity, so reducing an empty dim is an error (PyTorch's messages
differ a little between ops and are kept). NaN wins, as in PyTorch: a NaN in a slice
is its max and its min, and its index is the first NaN's. Ties pick the first index.
16-bit floats are compared in float32 (exact, and NumPy's bfloat16 reductions warn
on NaN).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..._dispatch.ops import ops
from ..._tensor import dtype as _dt
from ..._tensor.promotion import can_cast
from ..._tensor.tensor import Tensor
from ..meta import extrema as rules
from ..meta.reduction import Axes, reduction
from ..registry import register
from .reduction_util import accumulate_dtype, check_nonempty_dims, register_kernel, wrap, write_outs
from .variants import write_out

_int64 = _dt.int64
Array = Any


# --- array code ------------------------------------------------------------------------------------


def comparable(xp: Any, data: Array, compute: np.dtype) -> Array:
    return data if data.dtype == compute else data.astype(compute)


def amax_values(xp: Any, data: Array, axes: Axes, keepdim: bool) -> Array:
    return xp.maximum.reduce(data, axes, None, None, keepdim)


def amin_values(xp: Any, data: Array, axes: Axes, keepdim: bool) -> Array:
    return xp.minimum.reduce(data, axes, None, None, keepdim)


def argmax_values(xp: Any, data: Array, axis: int | None, keepdim: bool) -> Array:
    """argmax over `axis` (None: the flattened array) of a >= 1-dim array."""
    if axis is None:
        index = data.argmax()  # the array's method: np.argmax's wrapper costs more than the search
        return xp.full((1,) * data.ndim, index) if keepdim else xp.asarray(index)
    return data.argmax(axis=axis, keepdims=keepdim)


def argmin_values(xp: Any, data: Array, axis: int | None, keepdim: bool) -> Array:
    if axis is None:
        index = data.argmin()  # the array's method: np.argmin's wrapper costs more than the search
        return xp.full((1,) * data.ndim, index) if keepdim else xp.asarray(index)
    return data.argmin(axis=axis, keepdims=keepdim)


def dim_values(xp: Any, arg_values: Callable, data: Array, compute: np.dtype, axis: int,
               keepdim: bool) -> tuple[Array, Array]:
    """max.dim / min.dim of a >= 1-dim array: (values, indices), the values taken from `data`
    at the indices found in the comparable copy (so 16-bit values come back exact)."""
    index = arg_values(xp, comparable(xp, data, compute), axis, True)
    values = xp.take_along_axis(data, index, axis)
    if not keepdim:
        index, values = index.squeeze(axis), values.squeeze(axis)
    return values, index


# --- CPU kernels: the adapters ---------------------------------------------------------------------


def _not_implemented_for_complex(kernel_name: str, self: Tensor) -> None:
    # A CPU kernel's dtype check: PyTorch's meta functions accept complex input.
    if self._dtype.is_complex:
        raise NotImplementedError(f'"{kernel_name}" not implemented for \'{self._dtype._c10_name}\'')


def _extreme(name: str, values: Callable, self: Tensor, dim: Any, keepdim: bool) -> Tensor:
    axes, shape = reduction(self._shape, dim, keepdim)
    d = self._dtype
    check_nonempty_dims(name, self._shape, axes, shown=None if axes is None else [d for d in dim])
    data = self._data
    if data.size == 0:  # PyTorch returns before its dtype dispatch
        return wrap(np.empty(shape, data.dtype), d)
    _not_implemented_for_complex(f"{name[1:]}_values_cpu", self)
    return wrap(values(np, comparable(np, data, accumulate_dtype(d)), axes, keepdim), d)


def amax(self: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return _extreme("amax", amax_values, self, dim, keepdim)


def amin(self: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return _extreme("amin", amin_values, self, dim, keepdim)


def aminmax(self: Tensor, *, dim: int | None = None, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    axes = reduction(self._shape, dim, keepdim)[0]
    d = self._dtype
    if axes is None and 0 in self._shape:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
        )
    check_nonempty_dims("aminmax", self._shape, axes, sep="")
    _not_implemented_for_complex("aminmax_cpu", self)
    data = comparable(np, self._data, accumulate_dtype(d))
    return wrap(amin_values(np, data, axes, keepdim), d), wrap(amax_values(np, data, axes, keepdim), d)


def _extreme_all(name: str, ufunc: np.ufunc, self: Tensor) -> Tensor:
    d = self._dtype
    check_nonempty_dims(name, self._shape, None)
    _not_implemented_for_complex(f"{name}_all", self)
    # ufunc.reduce over every axis directly: the hot x.max(), no keepdim or axes to pass
    return wrap(ufunc.reduce(comparable(np, self._data, accumulate_dtype(d)), axis=None), d)


def max_all(self: Tensor) -> Tensor:
    return _extreme_all("max", np.maximum, self)


def min_all(self: Tensor) -> Tensor:
    return _extreme_all("min", np.minimum, self)


def _extreme_dim(name: str, arg_values: Callable, self: Tensor, dim: int, keepdim: bool) -> tuple[Tensor, Tensor]:
    axis = rules.dim_reduction(self._shape, dim, keepdim)[0]
    d = self._dtype
    check_nonempty_dims(name, self._shape, () if axis is None else (axis,))
    if d.is_complex:
        raise RuntimeError(f"{name}(): does not support complex input")
    data = self._data
    if axis is None:  # a 0-dim tensor is its own max, at index 0
        return wrap(data.copy(), d), wrap(np.zeros((), np.int64), _int64)
    values, index = dim_values(np, arg_values, data, accumulate_dtype(d), axis, keepdim)
    return wrap(values, d), wrap(index, _int64)


def max_dim(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return _extreme_dim("max", argmax_values, self, dim, keepdim)


def min_dim(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return _extreme_dim("min", argmin_values, self, dim, keepdim)


def _arg_extreme(name: str, arg_values: Callable, self: Tensor, dim: int | None, keepdim: bool) -> Tensor:
    d = self._dtype
    if d.is_complex or d is _dt.bool:
        raise RuntimeError(f"{name}(): does not support {'complex' if d.is_complex else 'bool'} input")
    axis = rules.arg_reduction(self._shape, dim, keepdim, f"{name}():", IndexError)[0]
    data = self._data
    if not data.ndim:
        return wrap(np.zeros((), np.int64), _int64)
    return wrap(arg_values(np, comparable(np, data, accumulate_dtype(d)), axis, keepdim), _int64)


def argmax(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    return _arg_extreme("argmax", argmax_values, self, dim, keepdim)


def argmin(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    return _arg_extreme("argmin", argmin_values, self, dim, keepdim)


# --- out= forms: built over a functional kernel, the CPU one or the Meta one ---------------------


def _all_out(functional: Callable) -> Callable:
    """max.unary_out / min.unary_out: any out dtype the input's can be cast to."""

    def kernel(self: Tensor, *, out: Tensor) -> Tensor:
        if not can_cast(self._dtype, out._dtype):
            raise RuntimeError(
                "Expected canCast( typeMetaToScalarType(self.dtype()), typeMetaToScalarType(out.dtype())) "
                "to be true, but got false.  (Could this error message be improved?  If so, please "
                "report an enhancement request to PyTorch.)"
            )
        return write_out(out, functional(self))

    kernel.__wrapped__ = functional  # type: ignore[attr-defined]
    return kernel


def _aminmax_out(functional: Callable) -> Callable:
    def kernel(self: Tensor, *, dim: int | None = None, keepdim: bool = False,
               min: Tensor, max: Tensor) -> tuple[Tensor, Tensor]:
        return write_outs((min, max), functional(self, dim=dim, keepdim=keepdim))

    kernel.__wrapped__ = functional  # type: ignore[attr-defined]
    return kernel


def _max_dim_out(functional: Callable) -> Callable:
    """max.dim_max: outs named max / max_values."""

    def kernel(self: Tensor, dim: int, keepdim: bool = False, *, max: Tensor, max_values: Tensor) -> tuple[Tensor, Tensor]:
        return write_outs((max, max_values), functional(self, dim, keepdim))

    kernel.__wrapped__ = functional  # type: ignore[attr-defined]
    return kernel


def _min_dim_out(functional: Callable) -> Callable:
    """min.dim_min: outs named min / min_indices."""

    def kernel(self: Tensor, dim: int, keepdim: bool = False, *, min: Tensor, min_indices: Tensor) -> tuple[Tensor, Tensor]:
        return write_outs((min, min_indices), functional(self, dim, keepdim))

    kernel.__wrapped__ = functional  # type: ignore[attr-defined]
    return kernel


def _int64_result(*args: Any, **kwargs: Any) -> _dt.dtype:
    return _int64


# --- max(other) / min(other): CompositeImplicitAutograd, as in PyTorch ----------------------------


def max_other(self: Tensor, other: Tensor) -> Tensor:
    return ops.aten.maximum.default(self, other)


def max_other_out(self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
    return ops.aten.maximum.out(self, other, out=out)


def min_other(self: Tensor, other: Tensor) -> Tensor:
    return ops.aten.minimum.default(self, other)


def min_other_out(self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
    return ops.aten.minimum.out(self, other, out=out)


# --- registration: CPU kernels under the op's name, Meta kernels as <name>_meta -------------------


def _register(name: str, cpu: Callable, meta: Callable, out_name: str = "", out: Callable | None = None) -> None:
    register_kernel(name, cpu)
    register_kernel(f"{name}_meta", meta)
    if out is not None:  # else the YAML's policy makes <name>_out (out_policy.py)
        register_kernel(out_name, out(cpu))
        register_kernel(f"{out_name}_meta", out(meta))


for _fn in (argmax, argmin, rules.argmax, rules.argmin):  # their out= kernels check out's dtype first
    _fn.result_dtype = _int64_result  # type: ignore[attr-defined]
_register("amax", amax, rules.amax)
_register("amin", amin, rules.amin)
_register("aminmax", aminmax, rules.aminmax, "aminmax_out", _aminmax_out)
_register("max_all", max_all, rules.max_all, "max_all_out", _all_out)
_register("min_all", min_all, rules.min_all, "min_all_out", _all_out)
_register("max_dim", max_dim, rules.max_dim, "max_dim_max", _max_dim_out)
_register("min_dim", min_dim, rules.min_dim, "min_dim_min", _min_dim_out)
_register("argmax", argmax, rules.argmax)
_register("argmin", argmin, rules.argmin)
register("max_other", max_other)
register("max_other_out", max_other_out)
register("min_other", min_other)
register("min_other_out", min_other_out)
