"""Meta rules of cumsum and cumprod: the scanned axis and the result dtype, from metadata alone.

Dtype rule as sum's: integers and bool widen to int64, dtype= casts the input first. The result
has the input's shape, contiguous. kernels/cumulative.py's CPU kernels take both from here; the
Meta kernels are these rules plus `meta_tensor`.
"""

from __future__ import annotations

from ..._tensor import dtype as _dt
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor, _wrap_dim, meta_tensor


def scan(self: Tensor, dim: int, requested: dtype | None) -> tuple[int, dtype]:
    """(axis, result dtype) of a scan along `dim`."""
    d = self._dtype
    integral = not (d.is_floating_point or d.is_complex)
    result = requested if requested is not None else (_dt.int64 if integral else d)
    return _wrap_dim(dim, len(self._shape)), result


def cumsum(self: Tensor, dim: int, *, dtype: dtype | None = None) -> Tensor:
    return meta_tensor(self._shape, scan(self, dim, dtype)[1])


cumprod = cumsum
