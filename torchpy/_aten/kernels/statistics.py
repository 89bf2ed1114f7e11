"""var / std (and their _mean pairs) and logsumexp.

var.correction, std.correction, var_mean.correction and std_mean.correction have
kernels; the `unbiased=` overloads are CompositeImplicitAutograd and call the
.correction ones with correction=1 or 0, as PyTorch's do (a dispatch mode sees
only the .correction call).

The array code takes the array module `xp` and arrays (`*_values`); the CPU kernels are thin
adapters that take axes, shapes and dtypes from the meta rules (meta/statistics.py) and make the
CPU kernels' own checks. The Meta kernels are the meta rules, registered here as `<name>_meta`.

Moments are computed in the input's precision (float32 for 16-bit floats), as
PyTorch's are, and the result dtype is the real counterpart of the input's.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..._dispatch.ops import ops
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor
from ..meta import statistics as rules
from ..meta.reduction import Axes, is_floating_or_complex, reduction
from ..registry import register
from .reduction_util import accumulate_dtype, reduction_size, register_kernel, wrap, write_outs
from .variants import write_out

Array = Any


# --- array code ------------------------------------------------------------------------------------


_WIDE = {"f": np.dtype(np.float64), "c": np.dtype(np.complex128)}


def moments_values(xp: Any, x: Array, axes: Axes, keepdim: bool, correction: float,
                   want_mean: bool = True) -> tuple[Array, Array]:
    """(variance, mean) over `axes`, in x's precision (PyTorch's float32 moments overflow
    where float64 ones would not)."""
    count = reduction_size(x.shape, axes)
    # 0/0 and x/0 (no degrees of freedom) are PyTorch's nan and inf. The mean is summed in
    # double, as PyTorch's running mean does not overflow where a float32 sum would.
    mean = (xp.add.reduce(x, axes, _WIDE[x.dtype.kind], None, True) / count).astype(x.dtype)
    deviation = x - mean
    if deviation.dtype.kind == "c":
        squares = deviation.real * deviation.real + deviation.imag * deviation.imag
    else:
        squares = deviation * deviation
    variance = xp.add.reduce(squares, axes, None, None, keepdim) / max(0.0, count - correction)
    if want_mean and count and mean.dtype.kind == "f" and not xp.isfinite(mean).all():
        mean = _welford_mean_of_infinities(xp, x, axes, mean)
    if not keepdim:
        mean = mean.reshape(variance.shape)
    return variance, mean


def _welford_mean_of_infinities(xp: Any, x: Array, axes: Axes, mean: Array) -> Array:
    """PyTorch's _mean pairs take the mean from a running (Welford) update, which turns an
    infinite mean into nan as soon as another element follows the infinity: the mean stays
    infinite only when the slice's single infinity is its last element."""
    reduced = tuple(range(x.ndim)) if axes is None else axes
    slices = xp.moveaxis(x, reduced, tuple(range(x.ndim - len(reduced), x.ndim)))
    slices = slices.reshape(slices.shape[:x.ndim - len(reduced)] + (-1,))
    infinite = xp.isinf(slices)
    stays = (xp.add.reduce(infinite, -1) == 1) & infinite[..., -1]
    return xp.where(xp.isinf(mean) & ~stays.reshape(mean.shape), xp.nan, mean)


def logsumexp_values(xp: Any, data: Array, axes: Axes, keepdim: bool) -> Array:
    """log(sum(exp(x))) over `axes`, shifted by the max (its real part, for complex) for range."""
    if data.size == 0:
        return xp.log(xp.add.reduce(xp.exp(data), axes, None, None, keepdim))
    real = data.real if data.dtype.kind == "c" else data
    shift = xp.maximum.reduce(real, axes, None, None, True)
    shift = xp.where(xp.isinf(shift), 0, shift).astype(real.dtype)
    total = xp.add.reduce(xp.exp(data - shift), axes, None, None, keepdim)
    return xp.log(total) + (shift if keepdim else shift.reshape(total.shape))


# --- CPU kernels: the adapters ---------------------------------------------------------------------


def _moments(name: str, self: Tensor, dim: Any, correction: Any, keepdim: bool,
             want_mean: bool) -> tuple[Tensor, Tensor | None]:
    d = self._dtype
    if not is_floating_or_complex(d):  # a CPU kernel check: the meta functions take integers
        what = "std and var" if name in ("std", "var") else name
        raise RuntimeError(f"{what} only support floating point and complex dtypes")
    axes, _, correction = rules.moments_layout(name, self._shape, dim, correction, keepdim)
    data = self._data
    precision = accumulate_dtype(d)
    variance, mean = moments_values(np, data if data.dtype == precision else data.astype(precision), axes,
                                    keepdim, correction, want_mean)
    if name.startswith("std"):
        variance = np.sqrt(variance)
    return wrap(variance, d.to_real()), (wrap(mean, d) if want_mean else None)


var, std, var_mean, std_mean = rules.moment_kernels(_moments)


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


def _logsumexp(self: Tensor, dim: Any, keepdim: bool, result: dtype) -> Tensor:
    if rules.logsumexp_full_reduction(self._shape, dim, keepdim):
        raise RuntimeError(
            f"output with shape [] doesn't match the broadcast shape [{', '.join(['1'] * len(self._shape))}]"
        )
    axes = reduction(self._shape, dim, keepdim)[0]
    compute = accumulate_dtype(result)
    data = self._data if self._data.dtype == compute else self._data.astype(compute)
    return wrap(logsumexp_values(np, data, axes, keepdim), result)


def logsumexp(self: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    return _logsumexp(self, dim, keepdim, rules.logsumexp_dtype(self._dtype))


def _logsumexp_out(with_dtype: Callable) -> Callable:
    """logsumexp.out over `with_dtype(self, dim, keepdim, result dtype)`: computed in out's dtype."""

    def kernel(self: Tensor, dim: Any, keepdim: bool = False, *, out: Tensor) -> Tensor:
        if not (out._dtype.is_floating_point or out._dtype.is_complex):
            raise RuntimeError(
                f"logsumexp(): Expected floating point type for result tensor, but got: {out._dtype._c10_name}"
            )
        return write_out(out, with_dtype(self, dim, keepdim, out._dtype))

    kernel.__wrapped__ = with_dtype  # type: ignore[attr-defined]
    return kernel


# --- registration: CPU kernels under the op's name, Meta kernels as <name>_meta -------------------


def _register(name: str, cpu: Callable, meta: Callable, out: Callable | None = None) -> None:
    register_kernel(name, cpu)
    register_kernel(f"{name}_meta", meta)
    if out is not None:  # else the YAML's policy makes them (out_policy.py)
        register_kernel(f"{name}_out", out(cpu))
        register_kernel(f"{name}_out_meta", out(meta))


_register("var", var, rules.var)
_register("std", std, rules.std)
_register("var_mean", var_mean, rules.var_mean, _pair_out)
_register("std_mean", std_mean, rules.std_mean, _pair_out)
for _name in ("var", "std", "var_mean", "std_mean"):
    _unbiased_overloads(_name)
register_kernel("logsumexp", logsumexp)
register_kernel("logsumexp_meta", rules.logsumexp)
register_kernel("logsumexp_out", _logsumexp_out(_logsumexp))
register_kernel("logsumexp_out_meta", _logsumexp_out(rules.logsumexp_with))
