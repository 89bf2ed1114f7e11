"""Extrema: amax, amin, aminmax, max / min (all, dim, other), argmax, argmin.

These have no identity, so reducing an empty dim is an error (PyTorch's messages
differ a little between ops and are kept). NaN wins, as in PyTorch: a NaN in a slice
is its max and its min, and its index is the first NaN's. Ties pick the first index.
16-bit floats are compared in float32 (exact, and NumPy's bfloat16 reductions warn
on NaN).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._dispatch.ops import ops
from ..._tensor import dtype as _dt
from ..._tensor.promotion import can_cast
from ..._tensor.tensor import Tensor, _wrap_dim
from ..registry import register
from .reduction_util import (
    accumulate_dtype, check_nonempty_dims, layout, meta, out_kernel, reduced_shape, register_kernel,
    wrap, write_outs,
)
from .variants import write_out

_int64 = _dt.int64


def _comparable(data: np.ndarray, d: _dt.dtype) -> np.ndarray:
    compute = accumulate_dtype(d)
    return data if data.dtype == compute else data.astype(compute)


def _not_implemented_for_complex(kernel_name: str, self: Tensor) -> None:
    # A CPU kernel's dtype check: PyTorch's meta functions accept complex input.
    if self._dtype.is_complex and self._data is not None:
        raise NotImplementedError(f'"{kernel_name}" not implemented for \'{self._dtype._c10_name}\'')


def _check_meta_identity(shape: tuple[int, ...], axes: tuple[int, ...] | None) -> None:
    """PyTorch's meta message for amax/amin/aminmax over an empty dim."""
    if any(shape[a] == 0 for a in (range(len(shape)) if axes is None else axes)):
        raise RuntimeError("reducing over zero-size dimension for reduction operation without identity")


# --- amax / amin -------------------------------------------------------------------------------


def _extreme(name: str, ufunc: np.ufunc, self: Tensor, dim: Any, keepdim: bool) -> Tensor:
    axes, shape = layout(self, dim, keepdim)
    d = self._dtype
    if self._data is None:
        _check_meta_identity(self._shape, axes)
        return meta(shape, d)
    check_nonempty_dims(name, self._shape, axes, shown=None if axes is None else [d for d in dim])
    if self._data.size == 0:  # PyTorch returns before its dtype dispatch
        return wrap(np.empty(shape, self._data.dtype), d)
    _not_implemented_for_complex(f"{name[1:]}_values_cpu", self)
    return wrap(ufunc.reduce(_comparable(self._data, d), axes, None, None, keepdim), d)


def amax(self: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return _extreme("amax", np.maximum, self, dim, keepdim)


def amin(self: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return _extreme("amin", np.minimum, self, dim, keepdim)


def _amax_out(functional: Any) -> Any:
    def kernel(self: Tensor, *args: Any, out: Tensor, **kwargs: Any) -> Tensor:
        if out._dtype is not self._dtype:
            raise RuntimeError(
                "Expected the dtype for input and out to match, but got "
                f"{self._dtype._c10_name} for input's dtype and {out._dtype._c10_name} for out's dtype."
            )
        return write_outs((out,), (functional(self, *args, **kwargs),))[0]

    kernel.__wrapped__ = functional  # type: ignore[attr-defined]
    return kernel


def aminmax(self: Tensor, *, dim: int | None = None, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    axes, shape = layout(self, dim, keepdim)
    d = self._dtype
    if self._data is None:
        _check_meta_identity(self._shape, axes)
        return meta(shape, d), meta(shape, d)
    if axes is None and 0 in self._shape:
        raise RuntimeError(
            "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
        )
    check_nonempty_dims("aminmax", self._shape, axes, sep="")
    _not_implemented_for_complex("aminmax_cpu", self)
    data = _comparable(self._data, d)
    return (wrap(np.minimum.reduce(data, axes, None, None, keepdim), d),
            wrap(np.maximum.reduce(data, axes, None, None, keepdim), d))


def aminmax_out(self: Tensor, *, dim: int | None = None, keepdim: bool = False,
                min: Tensor, max: Tensor) -> tuple[Tensor, Tensor]:
    return write_outs((min, max), aminmax(self, dim=dim, keepdim=keepdim))


# --- max / min over everything -----------------------------------------------------------------


def _extreme_all(name: str, ufunc: np.ufunc, self: Tensor) -> Tensor:
    d = self._dtype
    if self._data is None:
        return meta((), d)  # PyTorch's meta function has no empty or dtype check here
    check_nonempty_dims(name, self._shape, None)
    _not_implemented_for_complex(f"{name}_all", self)
    return wrap(ufunc.reduce(_comparable(self._data, d), axis=None), d)


def max_all(self: Tensor) -> Tensor:
    return _extreme_all("max", np.maximum, self)


def min_all(self: Tensor) -> Tensor:
    return _extreme_all("min", np.minimum, self)


def _all_out(functional: Any) -> Any:
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


# --- max / min along a dim, argmax / argmin --------------------------------------------------


def _arg_extreme_array(find: Any, data: np.ndarray, axis: int | None, keepdim: bool) -> np.ndarray:
    """argmax/argmin over `axis` (None: the flattened array) of a >= 1-dim array."""
    if axis is None:
        index = find(data)
        return np.full((1,) * data.ndim, index) if keepdim else np.asarray(index)
    return find(data, axis=axis, keepdims=keepdim)


def _extreme_dim(name: str, find: Any, self: Tensor, dim: int, keepdim: bool) -> tuple[Tensor, Tensor]:
    ndim = len(self._shape)
    axis = _wrap_dim(dim, ndim)
    shape = reduced_shape(self._shape, (axis,) if ndim else (), keepdim)
    d = self._dtype
    if self._data is None:
        return meta(shape, d), meta(shape, _int64)  # no dtype or empty checks on meta
    check_nonempty_dims(name, self._shape, (axis,) if ndim else ())
    if d.is_complex:
        raise RuntimeError(f"{name}(): does not support complex input")
    data = self._data
    if ndim == 0:
        return wrap(data.copy(), d), wrap(np.zeros((), np.int64), _int64)
    index = find(_comparable(data, d), axis=axis, keepdims=True)
    values = np.take_along_axis(data, index, axis)
    if not keepdim:
        index, values = index.squeeze(axis), values.squeeze(axis)
    return wrap(values, d), wrap(index, _int64)


def max_dim(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return _extreme_dim("max", np.ndarray.argmax, self, dim, keepdim)


def min_dim(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return _extreme_dim("min", np.ndarray.argmin, self, dim, keepdim)


def max_dim_max(self: Tensor, dim: int, keepdim: bool = False, *, max: Tensor, max_values: Tensor) -> tuple[Tensor, Tensor]:
    return write_outs((max, max_values), max_dim(self, dim, keepdim))


def min_dim_min(self: Tensor, dim: int, keepdim: bool = False, *, min: Tensor, min_indices: Tensor) -> tuple[Tensor, Tensor]:
    return write_outs((min, min_indices), min_dim(self, dim, keepdim))


def _arg_extreme(name: str, find: Any, self: Tensor, dim: int | None, keepdim: bool) -> Tensor:
    d = self._dtype
    on_meta = self._data is None
    if not on_meta and (d.is_complex or d is _dt.bool):
        raise RuntimeError(f"{name}(): does not support {'complex' if d.is_complex else 'bool'} input")
    # PyTorch's meta function says "argmax:" for argmin too, and raises other types.
    label = "argmax:" if on_meta else f"{name}():"
    ndim = len(self._shape)
    if dim is None:
        if 0 in self._shape:
            error = RuntimeError if on_meta else IndexError
            raise error(f"{label} Expected reduction dim to be specified for input.numel() == 0.")
        axis = None
        shape = (1,) * ndim if keepdim else ()
    else:
        axis = _wrap_dim(dim, ndim) if ndim else None
        shape = reduced_shape(self._shape, (axis,) if ndim else (), keepdim)
        if axis is not None and self._shape[axis] == 0:
            raise IndexError(f"{label} Expected reduction dim {axis} to have non-zero size.")
    if on_meta:
        return meta(shape, _int64)
    if ndim == 0:
        return wrap(np.zeros((), np.int64), _int64)
    return wrap(_arg_extreme_array(find, _comparable(self._data, d), axis, keepdim), _int64)


def argmax(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    return _arg_extreme("argmax", np.ndarray.argmax, self, dim, keepdim)


def argmin(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    return _arg_extreme("argmin", np.ndarray.argmin, self, dim, keepdim)


# --- max(other) / min(other): CompositeImplicitAutograd, as in PyTorch ----------------------------


def max_other(self: Tensor, other: Tensor) -> Tensor:
    return ops.aten.maximum.default(self, other)


def max_other_out(self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
    return ops.aten.maximum.out(self, other, out=out)


def min_other(self: Tensor, other: Tensor) -> Tensor:
    return ops.aten.minimum.default(self, other)


def min_other_out(self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
    return ops.aten.minimum.out(self, other, out=out)


# --- registration ------------------------------------------------------------------------------


register_kernel("amax", amax)
register_kernel("amin", amin)
register_kernel("amax_out", _amax_out(amax))
register_kernel("amin_out", _amax_out(amin))
register_kernel("aminmax", aminmax)
register_kernel("aminmax_out", aminmax_out)
register_kernel("max_all", max_all)
register_kernel("min_all", min_all)
register_kernel("max_all_out", _all_out(max_all))
register_kernel("min_all_out", _all_out(min_all))
register_kernel("max_dim", max_dim)
register_kernel("min_dim", min_dim)
register_kernel("max_dim_max", max_dim_max)
register_kernel("min_dim_min", min_dim_min)
register_kernel("argmax", argmax)
register_kernel("argmin", argmin)
register_kernel("argmax_out", out_kernel(argmax, "exact", lambda *a, **k: _int64))
register_kernel("argmin_out", out_kernel(argmin, "exact", lambda *a, **k: _int64))
register("max_other", max_other)
register("max_other_out", max_other_out)
register("min_other", min_other)
register("min_other_out", min_other_out)
