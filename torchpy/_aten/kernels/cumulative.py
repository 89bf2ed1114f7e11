"""cumsum and cumprod (functional, in-place and out=).

Dtype rule as sum's: integers and bool widen to int64, dtype= casts the input first;
16-bit floats accumulate in float32. The axis and dtype come from meta/cumulative.py, whose
Meta kernels are registered here as `<name>_meta`; the array code takes the array module `xp`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor
from ..meta import cumulative as rules
from .reduction_util import accumulate_dtype, cast, register_kernel, wrap

Array = Any  # an array of the module `xp`


def scan_array(xp: Any, ufunc: Any, data: Array, axis: int) -> Array:
    """The running `ufunc` (add, multiply) along `axis`, C-contiguous as torch's result is."""
    if data.ndim == 0:
        return data.copy()
    return xp.asarray(ufunc.accumulate(data, axis=axis), order="C")


def _scan(ufunc: np.ufunc, self: Tensor, dim: int, dtype: dtype | None) -> Tensor:
    axis, result = rules.scan(self, dim, dtype)
    return wrap(scan_array(np, ufunc, cast(self._data, accumulate_dtype(result)), axis), result)


def cumsum(self: Tensor, dim: int, *, dtype: dtype | None = None) -> Tensor:
    return _scan(np.add, self, dim, dtype)


def cumprod(self: Tensor, dim: int, *, dtype: dtype | None = None) -> Tensor:
    return _scan(np.multiply, self, dim, dtype)


register_kernel("cumsum", cumsum)
register_kernel("cumprod", cumprod)
register_kernel("cumsum_meta", rules.cumsum)
register_kernel("cumprod_meta", rules.cumprod)
# the in-place and out= forms (CPU and Meta): made from these by the YAML's policy
