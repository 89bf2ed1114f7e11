"""cumsum and cumprod (functional, in-place and out=).

Dtype rule as sum's: integers and bool widen to int64, dtype= casts the input first;
16-bit floats accumulate in float32.
"""

from __future__ import annotations

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor, _wrap_dim
from .reduction_util import (
    accumulate_dtype, cast, is_integral, meta, register_kernel, wrap,
)


def _scan(ufunc: np.ufunc, self: Tensor, dim: int, dtype: dtype | None) -> Tensor:
    result = dtype if dtype is not None else (_dt.int64 if is_integral(self._dtype) else self._dtype)
    ndim = len(self._shape)
    axis = _wrap_dim(dim, ndim)
    if self._data is None:
        return meta(self._shape, result)
    compute = accumulate_dtype(result)
    data = cast(self._data, compute)
    if ndim == 0:
        return wrap(data.copy(), result)
    return wrap(np.asarray(ufunc.accumulate(data, axis=axis), order="C"), result)  # torch's: contiguous


def cumsum(self: Tensor, dim: int, *, dtype: dtype | None = None) -> Tensor:
    return _scan(np.add, self, dim, dtype)


def cumprod(self: Tensor, dim: int, *, dtype: dtype | None = None) -> Tensor:
    return _scan(np.multiply, self, dim, dtype)


register_kernel("cumsum", cumsum)
register_kernel("cumprod", cumprod)
