"""Meta rules of var / std (and their _mean pairs) and logsumexp: the reduced dims, the result's
shape and dtype, the degrees-of-freedom warning and the checks PyTorch's meta functions make,
from metadata alone.

kernels/statistics.py's CPU kernels take their axes, shapes and dtypes from these rules; the Meta
kernels are these rules plus `meta_tensor`. Dtype rules, as PyTorch's:
  var / std (_mean)   the real counterpart of the input's dtype (the mean keeps the input's)
  logsumexp           integers and bool give the default dtype
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from ..._tensor import dtype as _dt
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor, meta_tensor
from .reduction import Axes, is_floating_or_complex, reduction


def moments_layout(name: str, shape: tuple[int, ...], dim: Any, correction: Any,
                   keepdim: bool) -> tuple[Axes, tuple[int, ...], float]:
    """(axes, output shape, correction) of var/std(_mean), warning as PyTorch does when the
    correction leaves no degrees of freedom."""
    correction = 1 if correction is None else correction
    axes, out_shape = reduction(shape, dim, keepdim)
    numel = 1
    for s in shape:
        numel *= s
    out_numel = 1
    for s in out_shape:
        out_numel *= s
    # PyTorch's reduction factor: input numel over output numel (1 for an empty output).
    if numel // max(1, out_numel) - correction <= 0:
        warnings.warn(
            f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=4,  # called from the kernels' helper, as the warning always was: same frame shown
        )
    return axes, out_shape, correction


def logsumexp_dtype(self_dtype: dtype) -> dtype:
    return self_dtype if is_floating_or_complex(self_dtype) else _dt.get_default_dtype()


def logsumexp_full_reduction(shape: tuple[int, ...], dim: Any, keepdim: bool) -> bool:
    """Whether PyTorch adds a keepdim max (all ones) into a fully reduced result: its meta
    function returns that broadcast shape, its CPU kernel refuses the out= shape."""
    return not dim and not keepdim and bool(shape) and 0 not in shape


# --- the Meta kernels ----------------------------------------------------------------------------


def _moments(name: str, self: Tensor, dim: Any, correction: Any, keepdim: bool,
             want_mean: bool) -> tuple[Tensor, Tensor | None]:
    if name.endswith("_mean") and not is_floating_or_complex(self._dtype):
        # PyTorch's meta function: the mean's dtype check (var / std have none on meta)
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {self._dtype}"
        )
    shape = moments_layout(name, self._shape, dim, correction, keepdim)[1]
    return meta_tensor(shape, self._dtype.to_real()), (meta_tensor(shape, self._dtype) if want_mean else None)


def moment_kernels(moments: Callable) -> tuple[Callable, Callable, Callable, Callable]:
    """var, std, var_mean and std_mean (the `.correction` overloads' signature) over
    `moments(name, self, dim, correction, keepdim, want_mean) -> (variance or std, mean)`: the
    Meta kernels here and the CPU kernels in kernels/statistics.py take the same four forms."""

    def var(self: Tensor, dim: Any = None, *, correction: Any = None, keepdim: bool = False) -> Tensor:
        return moments("var", self, dim, correction, keepdim, False)[0]

    def std(self: Tensor, dim: Any = None, *, correction: Any = None, keepdim: bool = False) -> Tensor:
        return moments("std", self, dim, correction, keepdim, False)[0]

    def var_mean(self: Tensor, dim: Any = None, *, correction: Any = None, keepdim: bool = False) -> tuple:
        return moments("var_mean", self, dim, correction, keepdim, True)

    def std_mean(self: Tensor, dim: Any = None, *, correction: Any = None, keepdim: bool = False) -> tuple:
        return moments("std_mean", self, dim, correction, keepdim, True)

    return var, std, var_mean, std_mean


var, std, var_mean, std_mean = moment_kernels(_moments)


def logsumexp_with(self: Tensor, dim: Any, keepdim: bool, result: dtype) -> Tensor:
    if logsumexp_full_reduction(self._shape, dim, keepdim):
        return meta_tensor((1,) * len(self._shape), result)
    return meta_tensor(reduction(self._shape, dim, keepdim)[1], result)


def logsumexp(self: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    return logsumexp_with(self, dim, keepdim, logsumexp_dtype(self._dtype))
