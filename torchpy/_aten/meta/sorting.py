"""Meta rules of sort and topk: the results' shapes, strides and dtypes, and the checks PyTorch's
meta functions make, from metadata alone.

kernels/sorting.py's CPU kernels take their shapes and range checks from these rules; the Meta
kernels are these rules plus `meta_tensor`. The meta functions check less than the CPU kernels
(no complex or bool refusal) and word topk's range error differently, as PyTorch's do.
"""

from __future__ import annotations

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, _wrap_dim, meta_tensor
from .layout import preserve_strides

_int64 = _dt.int64


def topk_shape(shape: tuple[int, ...], k: int, dim: int, message: str) -> tuple[int, tuple[int, ...]]:
    """topk's (wrapped dim, result shape); `message` is the range error's (CPU and meta differ)."""
    dim = _wrap_dim(dim, len(shape))
    size = shape[dim] if shape else 1
    if not 0 <= k <= size:
        raise RuntimeError(message)
    if not shape:
        return dim, shape
    return dim, shape[:dim] + (k,) + shape[dim + 1:]


# --- the Meta kernels -------------------------------------------------------------------------------


def sort_stable(self: Tensor, *, stable: bool | None, dim: int = -1, descending: bool = False) -> tuple[Tensor, Tensor]:
    _wrap_dim(dim, len(self._shape))
    strides = preserve_strides(self._shape, self.stride())  # both results in self's layout, as torch's
    return meta_tensor(self._shape, self._dtype, strides), meta_tensor(self._shape, _int64, strides)


def topk(self: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> tuple[Tensor, Tensor]:
    shape = topk_shape(self._shape, k, dim, "k not in range for dimension")[1]
    return meta_tensor(shape, self._dtype), meta_tensor(shape, _int64)
