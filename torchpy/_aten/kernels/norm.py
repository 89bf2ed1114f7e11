"""linalg_vector_norm and the aten::norm overloads.

`torch.norm` and `Tensor.norm` are Python functions in PyTorch that call
linalg_vector_norm (see torchpy/_aten/norm_api.py); the aten::norm overloads are
reachable through torchpy.ops and share this kernel, with their own dtype message.
The checks are meta/norm.py's rules; the array code takes the array module `xp`; the Meta
kernels are meta/norm.py's, registered here as `<name>_meta`.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor
from ..meta import norm as rules
from .reduction_util import accumulate_dtype, register_kernel, wrap

Array = Any  # an array of the module `xp`

def vector_norm_array(xp: Any, data: Array, order: float, axes: tuple[int, ...] | None, keepdim: bool) -> Array:
    """The `order`-norm of `data` over `axes`, in data's (real) precision."""
    magnitude = xp.abs(data)
    if order == 2:
        return xp.sqrt(xp.add.reduce(magnitude * magnitude, axes, None, None, keepdim))
    if order == 1:
        return xp.add.reduce(magnitude, axes, None, None, keepdim)
    if order == math.inf:
        return xp.maximum.reduce(magnitude, axes, None, None, keepdim)
    if order == -math.inf:
        return xp.minimum.reduce(magnitude, axes, None, None, keepdim)
    if order == 0:
        return xp.add.reduce(magnitude != 0, axes, magnitude.dtype, None, keepdim)
    powered = xp.add.reduce(magnitude ** order, axes, None, None, keepdim)
    return powered ** (1.0 / order)


def linalg_vector_norm(self: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,
                       dtype: dtype | None = None) -> Tensor:
    axes, _, result = rules.vector_norm(self, ord, dim, keepdim, dtype, on_meta=False)
    compute = accumulate_dtype(dtype if dtype is not None else self._dtype)
    data = self._data if self._data.dtype == compute else self._data.astype(compute)
    return wrap(vector_norm_array(np, data, float(ord), axes, keepdim), result)


# --- aten::norm overloads (not public functions in torch; torch.norm is Python) -----------------


def norm(self: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    rules.check_norm_input(self)
    return linalg_vector_norm(self, 2 if p is None else p, dim, keepdim, dtype=dtype)


def norm_dtype(self: Tensor, p: Any, *, dtype: dtype) -> Tensor:
    return norm(self, p, dtype=dtype)


register_kernel("linalg_vector_norm", linalg_vector_norm)
register_kernel("norm", norm)
register_kernel("norm_dim", norm)
register_kernel("norm_dtype", norm_dtype)
for _name, _meta in (("linalg_vector_norm", rules.linalg_vector_norm), ("norm", rules.norm),
                     ("norm_dim", rules.norm), ("norm_dtype", rules.norm_dtype)):
    register_kernel(f"{_name}_meta", _meta)

