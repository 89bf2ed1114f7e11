"""var / std (and their _mean pairs) and logsumexp.

var.correction, std.correction, var_mean.correction and std_mean.correction have
kernels; the `unbiased=` overloads are CompositeImplicitAutograd and call the
.correction ones with correction=1 or 0, as PyTorch's do (a dispatch mode sees
only the .correction call).

Moments are computed in the input's precision (float32 for 16-bit floats), as
PyTorch's are, and the result dtype is the real counterpart of the input's.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..._dispatch.ops import ops
from ..._tensor import dtype as _dt
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor
from ..registry import register
from .reduction_util import (
    accumulate_dtype, is_integral, layout, meta, out_kernel, reduction_size, register_kernel, wrap,
    write_outs,
)
from .variants import write_out


# --- var / std -----------------------------------------------------------------------------------


def _check_dtype(name: str, self: Tensor) -> None:
    if self._dtype.is_floating_point or self._dtype.is_complex:
        return
    if self._data is not None:
        what = "std and var" if name in ("std", "var") else name
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    if name.endswith("_mean"):  # PyTorch's meta function: the mean's dtype check
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {self._dtype}"
        )


def _warn_if_no_dof(name: str, numel: int, out_numel: int, correction: float) -> None:
    # PyTorch's reduction factor: input numel over output numel (1 for an empty output).
    if numel // max(1, out_numel) - correction <= 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=4,
        )


_WIDE = {"f": np.dtype(np.float64), "c": np.dtype(np.complex128)}


def moments_array(x: np.ndarray, axes: tuple[int, ...] | None, keepdim: bool,
                  correction: float, want_mean: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(variance, mean) over `axes`, in x's precision (PyTorch's float32 moments overflow
    where float64 ones would not)."""
    count = reduction_size(x.shape, axes)
    # 0/0 and x/0 (no degrees of freedom) are PyTorch's nan and inf. The mean is summed in
    # double, as PyTorch's running mean does not overflow where a float32 sum would.
    mean = (np.add.reduce(x, axes, _WIDE[x.dtype.kind], None, True) / count).astype(x.dtype)
    deviation = x - mean
    if deviation.dtype.kind == "c":
        squares = deviation.real * deviation.real + deviation.imag * deviation.imag
    else:
        squares = deviation * deviation
    variance = np.add.reduce(squares, axes, None, None, keepdim) / max(0.0, count - correction)
    if want_mean and count and mean.dtype.kind == "f" and not np.isfinite(mean).all():
        mean = _welford_mean_of_infinities(x, axes, mean)
    if not keepdim:
        mean = mean.reshape(variance.shape)
    return variance, mean


def _welford_mean_of_infinities(x: np.ndarray, axes: tuple[int, ...] | None, mean: np.ndarray) -> np.ndarray:
    """PyTorch's _mean pairs take the mean from a running (Welford) update, which turns an
    infinite mean into nan as soon as another element follows the infinity: the mean stays
    infinite only when the slice's single infinity is its last element."""
    reduced = tuple(range(x.ndim)) if axes is None else axes
    slices = np.moveaxis(x, reduced, tuple(range(x.ndim - len(reduced), x.ndim)))
    slices = slices.reshape(slices.shape[:x.ndim - len(reduced)] + (-1,))
    infinite = np.isinf(slices)
    stays = (np.add.reduce(infinite, -1) == 1) & infinite[..., -1]
    return np.where(np.isinf(mean) & ~stays.reshape(mean.shape), np.nan, mean)


def _moments(name: str, self: Tensor, dim: Any, correction: Any, keepdim: bool,
             want_mean: bool) -> tuple[Tensor, Tensor | None]:
    _check_dtype(name, self)
    correction = 1 if correction is None else correction
    axes, shape = layout(self, dim, keepdim)
    result = self._dtype.to_real()
    numel = 1
    for s in self._shape:
        numel *= s
    out_numel = 1
    for s in shape:
        out_numel *= s
    _warn_if_no_dof(name, numel, out_numel, correction)
    if self._data is None:
        return meta(shape, result), (meta(shape, self._dtype) if want_mean else None)
    data = self._data
    precision = accumulate_dtype(self._dtype)
    variance, mean = moments_array(data if data.dtype == precision else data.astype(precision), axes,
                                   keepdim, correction, want_mean)
    if name.startswith("std"):
        variance = np.sqrt(variance)
    return wrap(variance, result), (wrap(mean, self._dtype) if want_mean else None)


def var(self: Tensor, dim: Any = None, *, correction: Any = None, keepdim: bool = False) -> Tensor:
    return _moments("var", self, dim, correction, keepdim, False)[0]


def std(self: Tensor, dim: Any = None, *, correction: Any = None, keepdim: bool = False) -> Tensor:
    return _moments("std", self, dim, correction, keepdim, False)[0]


def var_mean(self: Tensor, dim: Any = None, *, correction: Any = None, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return _moments("var_mean", self, dim, correction, keepdim, True)  # type: ignore[return-value]


def std_mean(self: Tensor, dim: Any = None, *, correction: Any = None, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    return _moments("std_mean", self, dim, correction, keepdim, True)  # type: ignore[return-value]


def _pair_out(functional: Any) -> Any:
    def kernel(self: Tensor, dim: Any = None, *, correction: Any = None, keepdim: bool = False,
               out0: Tensor, out1: Tensor) -> tuple[Tensor, Tensor]:
        return write_outs((out0, out1), functional(self, dim, correction=correction, keepdim=keepdim))

    kernel.__wrapped__ = functional  # type: ignore[attr-defined]
    return kernel


def _correction_of(unbiased: bool) -> int:
    return 1 if unbiased else 0


def _unbiased_overloads(name: str) -> None:
    """Register the CompositeImplicitAutograd `unbiased=` overloads of var/std(_mean)."""
    def default(self: Tensor, unbiased: bool = True) -> Any:
        return getattr(ops.aten, name).correction(self, correction=_correction_of(unbiased))

    def dim(self: Tensor, dim: Any, unbiased: bool = True, keepdim: bool = False) -> Any:
        return getattr(ops.aten, name).correction(
            self, dim, correction=_correction_of(unbiased), keepdim=keepdim)

    def out(self: Tensor, dim: Any, unbiased: bool = True, keepdim: bool = False, *, out: Tensor) -> Any:
        return getattr(ops.aten, name).correction_out(
            self, dim, correction=_correction_of(unbiased), keepdim=keepdim, out=out)

    register(f"{name}_unbiased", default)
    register(f"{name}_dim_unbiased", dim)
    if not name.endswith("_mean"):
        register(f"{name}_dim_unbiased_out", out)


# --- logsumexp -----------------------------------------------------------------------------------


def logsumexp_array(data: np.ndarray, axes: tuple[int, ...] | None, keepdim: bool) -> np.ndarray:
    """log(sum(exp(x))) over `axes`, shifted by the max (its real part, for complex) for range."""
    if data.size == 0:
        return np.log(np.add.reduce(np.exp(data), axes, None, None, keepdim))
    real = data.real if data.dtype.kind == "c" else data
    shift = np.maximum.reduce(real, axes, None, None, True)
    shift = np.where(np.isinf(shift), 0, shift).astype(real.dtype)
    total = np.add.reduce(np.exp(data - shift), axes, None, None, keepdim)
    return np.log(total) + (shift if keepdim else shift.reshape(total.shape))


def _logsumexp_dtype(self_dtype: dtype) -> dtype:
    return _dt.get_default_dtype() if is_integral(self_dtype) else self_dtype


def _logsumexp(self: Tensor, dim: Any, keepdim: bool, result: dtype) -> Tensor:
    axes, shape = layout(self, dim, keepdim)
    ndim = len(self._shape)
    if not dim and not keepdim and ndim and 0 not in self._shape:
        # PyTorch adds a keepdim max (all ones) into a fully reduced result here; its meta
        # function returns that broadcast shape instead.
        if self._data is None:
            return meta((1,) * ndim, result)
        raise RuntimeError(
            f"output with shape [] doesn't match the broadcast shape [{', '.join(['1'] * ndim)}]"
        )
    if self._data is None:
        return meta(shape, result)
    compute = accumulate_dtype(result)
    data = self._data if self._data.dtype == compute else self._data.astype(compute)
    return wrap(logsumexp_array(data, axes, keepdim), result)


def logsumexp(self: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    return _logsumexp(self, dim, keepdim, _logsumexp_dtype(self._dtype))


def logsumexp_out(self: Tensor, dim: Any, keepdim: bool = False, *, out: Tensor) -> Tensor:
    if not (out._dtype.is_floating_point or out._dtype.is_complex):
        raise RuntimeError(
            f"logsumexp(): Expected floating point type for result tensor, but got: {out._dtype._c10_name}"
        )
    return write_out(out, _logsumexp(self, dim, keepdim, out._dtype))


# --- registration --------------------------------------------------------------------------------


register_kernel("var", var)
register_kernel("std", std)
register_kernel("var_out", out_kernel(var, "cast"))
register_kernel("std_out", out_kernel(std, "cast"))
register_kernel("var_mean", var_mean)
register_kernel("std_mean", std_mean)
register_kernel("var_mean_out", _pair_out(var_mean))
register_kernel("std_mean_out", _pair_out(std_mean))
for _name in ("var", "std", "var_mean", "std_mean"):
    _unbiased_overloads(_name)
register_kernel("logsumexp", logsumexp)
register_kernel("logsumexp_out", logsumexp_out)
