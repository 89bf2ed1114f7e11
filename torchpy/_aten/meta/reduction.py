"""Meta rules of the sum-like reductions (sum, nansum, prod, mean, count_nonzero, any, all):
which dims a reduction reduces, its result's shape and its dtype, from metadata alone.

kernels/reduction.py's CPU kernels take the axes, shape and dtype from these rules, and its
Meta kernels are these rules plus `meta_tensor`, so both agree by construction.
Dtype rules, as PyTorch's:
  sum / prod / nansum   integers and bool widen to int64; dtype= casts the input first
  mean                  floating or complex only (dtype= may make an integer input valid)
  count_nonzero         int64
  any / all             bool, except uint8 in, uint8 out
"""

from __future__ import annotations

from typing import Any, Sequence

from ..._tensor import dtype as _dt
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor, _wrap_dim, meta_tensor

Axes = tuple[int, ...] | None  # None: every dim


def normalize_dims(dim: int | Sequence[int] | None, ndim: int, all_if_empty: bool = True) -> Axes:
    """Sorted, wrapped dims to reduce; None means every dim.

    `dim=None` reduces every dim; so does `dim=[]` for most reductions (all_if_empty),
    though any/all.dims treat [] as "no dims". A dim named twice is PyTorch's error.
    """
    if dim is None:
        return None
    if isinstance(dim, int):
        axis = _wrap_dim(dim, ndim)
        return (axis,) if ndim else ()
    if not dim:
        return None if all_if_empty else ()
    seen = 0
    for d in dim:
        wrapped = _wrap_dim(d, ndim)
        bit = 1 << wrapped
        if seen & bit:
            raise RuntimeError(f"dim {wrapped} appears multiple times in the list of dims")
        seen |= bit
    if not ndim:
        return ()  # a 0-dim tensor accepts dims 0 and -1 and has nothing to reduce
    return tuple(i for i in range(ndim) if seen >> i & 1)


def reduced_shape(shape: tuple[int, ...], axes: Axes, keepdim: bool) -> tuple[int, ...]:
    """The output shape of reducing `axes` (None: all) of `shape`."""
    if axes is None:
        return (1,) * len(shape) if keepdim else ()
    if keepdim:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def reduction(shape: tuple[int, ...], dim: Any, keepdim: bool, all_if_empty: bool = True) -> tuple[Axes, tuple[int, ...]]:
    """(axes reduced, output shape) for reducing `dim` of a tensor of `shape`."""
    if dim is None:
        return None, ((1,) * len(shape) if keepdim else ())
    if type(dim) is list and len(dim) == 1 and shape:  # the common x.sum(0): no general pass
        axis = dim[0]
        ndim = len(shape)
        if -ndim <= axis < 0:
            axis += ndim
        elif not 0 <= axis < ndim:
            _wrap_dim(axis, ndim)  # raises PyTorch's IndexError
        return (axis,), shape[:axis] + ((1,) if keepdim else ()) + shape[axis + 1:]
    axes = normalize_dims(dim, len(shape), all_if_empty)
    return axes, reduced_shape(shape, axes, keepdim)


# --- dtypes ------------------------------------------------------------------------------------


def is_floating_or_complex(d: dtype) -> bool:
    return d.is_floating_point or d.is_complex


def widened_dtype(self_dtype: dtype, requested: dtype | None) -> dtype:
    """sum/prod/nansum's result dtype: dtype= if given; integers and bool widen to int64."""
    if requested is not None:
        return requested
    return self_dtype if is_floating_or_complex(self_dtype) else _dt.int64


def mean_dtype(self_dtype: dtype, requested: dtype | None, on_meta: bool = False) -> dtype:
    if requested is None:
        if not is_floating_or_complex(self_dtype):
            shown = self_dtype if on_meta else self_dtype._c10_name  # the meta function prints torch.int64
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating point "
                f"or complex dtype. Got: {shown}"
            )
        return self_dtype
    if not is_floating_or_complex(requested):
        raise RuntimeError(
            "mean(): could not infer output dtype. Optional dtype must be either a floating point "
            f"or complex dtype. Got: {requested._c10_name}"
        )
    return requested


def logical_dtype(self_dtype: dtype) -> dtype:
    """any / all: bool, except uint8 in, uint8 out."""
    return _dt.uint8 if self_dtype is _dt.uint8 else _dt.bool


# --- the Meta kernels ----------------------------------------------------------------------------


def sum(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    return meta_tensor(reduction(self._shape, dim, keepdim)[1], widened_dtype(self._dtype, dtype))


nansum = prod = sum


def mean(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    result = mean_dtype(self._dtype, dtype, on_meta=True)
    return meta_tensor(reduction(self._shape, dim, keepdim)[1], result)


def count_nonzero(self: Tensor, dim: Any = None) -> Tensor:
    return meta_tensor(reduction(self._shape, dim, False)[1], _dt.int64)


def any(self: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    # any/all.dims with dim=[] reduce nothing (unlike sum), so [] is not "all dims" here.
    return meta_tensor(reduction(self._shape, dim, keepdim, all_if_empty=False)[1], logical_dtype(self._dtype))


all = any
