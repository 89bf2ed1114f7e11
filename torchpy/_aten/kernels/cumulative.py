"""cumsum and cumprod (functional, in-place and out=).

Dtype rule as sum's: integers and bool widen to int64, dtype= casts the input first;
16-bit floats accumulate in float32. The axis and dtype come from meta/cumulative.py, whose
Meta kernels are registered here as `<name>_meta`; the array code takes the array module `xp`.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor
from ..meta import cumulative as rules
from .reduction_util import accumulate_dtype, cast, out_kernel, register_kernel, wrap
from .variants import write_inplace

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
for _name, _meta in (("cumsum", rules.cumsum), ("cumprod", rules.cumprod)):
    register_kernel(f"{_name}_meta", _meta)
    register_kernel(f"{_name}__meta", _inplace(_name, _meta))
    register_kernel(f"{_name}_out_meta", out_kernel(_meta, "dtype"))
