"""cumsum and cumprod (functional, in-place and out=).

Dtype rule as sum's: integers and bool widen to int64, dtype= casts the input first;
16-bit floats accumulate in float32.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor, _wrap_dim
from .reduction_util import (
    accumulate_dtype, cast, is_integral, meta, out_kernel, register_kernel, wrap,
)
from .variants import write_inplace


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


def _inplace(name: str, functional: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def kernel(self: Tensor, dim: int, *, dtype: dtype | None = None) -> Tensor:
        if dtype is not None and dtype is not self._dtype:
            if self._data is None:
                raise RuntimeError("dtype argument and out dtype must match in reduction")
            raise RuntimeError(
                f"Bad in-place call: input tensor dtype {self._dtype._type_meta_name} and output "
                f"tensor dtype {dtype._type_meta_name} should match"
            )
        if self._dtype is _dt.bool and self._data is not None:
            raise NotImplementedError(f'"{name}_out_cpu" not implemented for \'Bool\'')
        return write_inplace(self, functional(self, dim, dtype=self._dtype))

    kernel.__name__ = name + "_"
    kernel.__wrapped__ = functional  # type: ignore[attr-defined]
    return kernel


register_kernel("cumsum", cumsum)
register_kernel("cumprod", cumprod)
register_kernel("cumsum_", _inplace("cumsum", cumsum))
register_kernel("cumprod_", _inplace("cumprod", cumprod))
register_kernel("cumsum_out", out_kernel(cumsum, "dtype"))
register_kernel("cumprod_out", out_kernel(cumprod, "dtype"))
