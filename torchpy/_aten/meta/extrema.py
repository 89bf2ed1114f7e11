"""Meta rules of the extrema (amax, amin, aminmax, max / min over everything or a dim, argmax,
argmin): the reduced dims, the result's shape and dtype, and the checks PyTorch's meta functions
make, from metadata alone.

kernels/extrema.py's CPU kernels take their axes and shapes from these rules; the Meta kernels
are these rules plus `meta_tensor`. The meta functions check less than the CPU kernels (no dtype
checks, max.dim and max() accept empty input) and word some errors differently, as PyTorch's do.
"""

from __future__ import annotations

from typing import Any

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, _wrap_dim, meta_tensor
from .reduction import Axes, reduced_shape, reduction

_int64 = _dt.int64


def check_identity(shape: tuple[int, ...], axes: Axes) -> None:
    """PyTorch's meta message for amax/amin/aminmax over an empty dim."""
    if any(shape[a] == 0 for a in (range(len(shape)) if axes is None else axes)):
        raise RuntimeError("reducing over zero-size dimension for reduction operation without identity")


def dim_reduction(shape: tuple[int, ...], dim: int, keepdim: bool) -> tuple[int | None, tuple[int, ...]]:
    """max.dim / min.dim: (axis, or None for a 0-dim tensor; output shape)."""
    ndim = len(shape)
    axis = _wrap_dim(dim, ndim)
    if not ndim:
        return None, shape
    return axis, reduced_shape(shape, (axis,), keepdim)


def arg_reduction(shape: tuple[int, ...], dim: int | None, keepdim: bool, label: str,
                  unspecified_error: type[Exception]) -> tuple[int | None, tuple[int, ...]]:
    """argmax / argmin: (axis, None for all or a 0-dim tensor; output shape), with the empty-input
    errors. `label` starts the messages; the CPU kernel and the meta function word them apart."""
    ndim = len(shape)
    if dim is None:
        if 0 in shape:
            raise unspecified_error(f"{label} Expected reduction dim to be specified for input.numel() == 0.")
        return None, ((1,) * ndim if keepdim else ())
    if not ndim:
        return None, shape
    axis = _wrap_dim(dim, ndim)
    if shape[axis] == 0:
        raise IndexError(f"{label} Expected reduction dim {axis} to have non-zero size.")
    return axis, reduced_shape(shape, (axis,), keepdim)


# --- the Meta kernels ----------------------------------------------------------------------------


def amax(self: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    axes, shape = reduction(self._shape, dim, keepdim)
    check_identity(self._shape, axes)
    return meta_tensor(shape, self._dtype)


amin = amax


def aminmax(self: Tensor, *, dim: int | None = None, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    axes, shape = reduction(self._shape, dim, keepdim)
    check_identity(self._shape, axes)
    return meta_tensor(shape, self._dtype), meta_tensor(shape, self._dtype)


def max_all(self: Tensor) -> Tensor:
    return meta_tensor((), self._dtype)  # PyTorch's meta function has no empty or dtype check here


min_all = max_all


def max_dim(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    shape = dim_reduction(self._shape, dim, keepdim)[1]
    return meta_tensor(shape, self._dtype), meta_tensor(shape, _int64)  # no dtype or empty checks


min_dim = max_dim


def argmax(self: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    # PyTorch's meta function says "argmax:" for argmin too, and raises RuntimeError for no dim.
    return meta_tensor(arg_reduction(self._shape, dim, keepdim, "argmax:", RuntimeError)[1], _int64)


argmin = argmax
