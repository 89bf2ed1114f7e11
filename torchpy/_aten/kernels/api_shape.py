"""Kernels of api_ops.yaml's shape, search and counting ops: broadcast_to, fliplr / flipud, kron,
hsplit / vsplit / dsplit, is_same_size / is_nonzero, roll, trace, searchsorted / bucketize,
bincount. Composite ones call the aten ops PyTorch's decompositions call."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.enums import contiguous_format
from ..._tensor.tensor import Tensor, _wrap_dim, from_array, meta_tensor
from ..fastcall import aten, call, call_kw
from ..registry import register
from .elementwise import not_implemented


# --- composite shape ops -------------------------------------------------------------------------

@register("broadcast_to")
def broadcast_to(self: Tensor, size: Sequence[int]) -> Tensor:
    return call(aten("expand"), self._keyset, self, list(size))


@register("fliplr")
def fliplr(self: Tensor) -> Tensor:
    if len(self._shape) < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return call(aten("flip"), self._keyset, self, [1])


@register("flipud")
def flipud(self: Tensor) -> Tensor:
    if len(self._shape) < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return call(aten("flip"), self._keyset, self, [0])


@register("kron")
def kron(self: Tensor, other: Tensor) -> Tensor:
    """Each of self's dims interleaved with other's: (a_i, 1) x (1, b_i), multiplied, merged."""
    ndim = max(len(self._shape), len(other._shape))
    a = (1,) * (ndim - len(self._shape)) + self._shape
    b = (1,) * (ndim - len(other._shape)) + other._shape
    a_shape, b_shape = [], []
    for i in range(ndim):
        a_shape += [a[i], 1]
        b_shape += [1, b[i]]
    ks = self._keyset | other._keyset
    product = call(aten("mul.Tensor"), ks, call(aten("_unsafe_view"), self._keyset, self, a_shape),
                   call(aten("_unsafe_view"), other._keyset, other, b_shape))
    return call(aten("_unsafe_view"), product._keyset, product, [a[i] * b[i] for i in range(ndim)])


def _split(name: str, self: Tensor, sections_or_indices: Any, dim: int, min_dim: int, divisible: bool) -> list:
    ndim = len(self._shape)
    if ndim < min_dim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, but got a tensor "
                           f"with {ndim} dimensions!")
    if divisible:
        if sections_or_indices == 0 or self._shape[dim] % sections_or_indices:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {self._shape[dim]} is not divisible by the split_size "
                               f"{sections_or_indices}!")
        return call(aten("tensor_split.sections"), self._keyset, self, sections_or_indices, dim)
    return call(aten("tensor_split.indices"), self._keyset, self, list(sections_or_indices), dim)


def _hsplit_dim(self: Tensor) -> int:
    return 0 if len(self._shape) == 1 else 1


register("hsplit_int", lambda self, sections: _split("hsplit", self, sections, _hsplit_dim(self), 1, True))
register("hsplit_array", lambda self, indices: _split("hsplit", self, indices, _hsplit_dim(self), 1, False))
register("vsplit_int", lambda self, sections: _split("vsplit", self, sections, 0, 2, True))
register("vsplit_array", lambda self, indices: _split("vsplit", self, indices, 0, 2, False))
register("dsplit_int", lambda self, sections: _split("dsplit", self, sections, 2, 3, True))
register("dsplit_array", lambda self, indices: _split("dsplit", self, indices, 2, 3, False))


@register("is_same_size")
def is_same_size(self: Tensor, other: Tensor) -> bool:
    return self._shape == other._shape


@register("is_nonzero")
def is_nonzero(self: Tensor) -> bool:
    n = math.prod(self._shape)
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(call(aten("_local_scalar_dense"), self._keyset, self))


# --- roll, trace ---------------------------------------------------------------------------------

@register("roll")
def roll(self: Tensor, shifts: Sequence[int], dims: Sequence[int] = ()) -> Tensor:
    shifts, dims = list(shifts), list(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        if self._data is None:
            return meta_tensor(self._shape, self._dtype)
        flat = np.roll(np.asarray(self._data).reshape(-1), shifts[0])
        return from_array(flat.reshape(self._shape), self._dtype)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    axes = [_wrap_dim(d, len(self._shape)) for d in dims]
    if self._data is None:
        return meta_tensor(self._shape, self._dtype)
    return from_array(np.ascontiguousarray(np.roll(self._data, shifts, axes)), self._dtype)


@register("trace")
def trace(self: Tensor) -> Tensor:
    if len(self._shape) != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {len(self._shape)}")
    if self._dtype is _dt.bool:
        raise not_implemented("trace", self._dtype)
    d = _dt.int64 if not (self._dtype.is_floating_point or self._dtype.is_complex) else self._dtype
    if self._data is None:
        return meta_tensor((), d)
    total = np.trace(self._data, dtype=_dt.to_numpy_dtype(d) if d is _dt.int64 else None)
    return from_array(np.asarray(total, dtype=_dt.to_numpy_dtype(d)), d)


# --- searchsorted, bucketize, bincount -----------------------------------------------------------

def _search_side(right: bool, side: str | None) -> str:
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        return side
    return "right" if right else "left"


def _shape_text(shape: tuple) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _searchsorted(boundaries: Tensor, values: Any, out_int32: bool, side: str, sorter: Tensor | None,
                  values_shape: tuple) -> Tensor:
    out_dtype = _dt.int32 if out_int32 else _dt.int64
    if boundaries._data is None:
        return meta_tensor(values_shape, out_dtype)
    seq = np.asarray(boundaries._data)
    if sorter is not None:
        seq = np.take_along_axis(seq, np.asarray(sorter._data), axis=-1)
    vals = np.asarray(values)
    if seq.ndim == 1:
        result = np.searchsorted(seq, vals, side=side)
    else:
        rows_seq = seq.reshape(-1, seq.shape[-1])
        rows_val = vals.reshape(rows_seq.shape[0], -1)
        result = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(rows_seq, rows_val)]).reshape(vals.shape)
    return from_array(np.asarray(result, dtype=_dt.to_numpy_dtype(out_dtype)).reshape(values_shape), out_dtype)


@register("searchsorted_tensor")
def searchsorted_tensor(sorted_sequence: Tensor, self: Tensor, *, out_int32: bool = False, right: bool = False,
                        side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    side = _search_side(right, side)
    seq_shape, val_shape = sorted_sequence._shape, self._shape
    if len(seq_shape) != 1 and seq_shape[:-1] != val_shape[:-1]:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {_shape_text(seq_shape)} and input value tensor "
                           f"{_shape_text(val_shape)}")
    return _searchsorted(sorted_sequence, self._data, out_int32, side, sorter, val_shape)


@register("searchsorted_scalar")
def searchsorted_scalar(sorted_sequence: Tensor, self: Any, *, out_int32: bool = False, right: bool = False,
                        side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    side = _search_side(right, side)
    if len(sorted_sequence._shape) != 1:
        raise RuntimeError("torch.searchsorted(): input value can be a scalar only when boundaries tensor "
                           f"dimension is 1, but we got boundaries tensor dim({len(sorted_sequence._shape)}) and "
                           "input value's dim(0) numel(1)")
    return _searchsorted(sorted_sequence, self, out_int32, side, sorter, ())


def _bucketize_check(boundaries: Tensor) -> None:
    if len(boundaries._shape) != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({len(boundaries._shape)})")


@register("bucketize_tensor")
def bucketize_tensor(self: Tensor, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    _bucketize_check(boundaries)
    return _searchsorted(boundaries, self._data, out_int32, _search_side(right, None), None, self._shape)


@register("bucketize_scalar")
def bucketize_scalar(self: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    _bucketize_check(boundaries)
    return _searchsorted(boundaries, self, out_int32, _search_side(right, None), None, ())


@register("bincount")
def bincount(self: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    if self._dtype.is_floating_point or self._dtype.is_complex or self._dtype is _dt.bool:
        raise not_implemented("bincount_cpu", self._dtype)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    data = np.asarray(self._data)
    if len(self._shape) != 1 or (data.size and data.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (len(weights._shape) != 1 or weights._shape[0] != self._shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is None:
        return from_array(np.bincount(data.astype(np.int64), minlength=minlength).astype(np.int64), _dt.int64)
    d = weights._dtype if weights._dtype in (_dt.float32, _dt.float64) else _dt.float64
    counts = np.bincount(data.astype(np.int64), weights=np.asarray(weights._data, dtype=np.float64),
                         minlength=minlength)
    return from_array(counts.astype(_dt.to_numpy_dtype(d)), d)


# --- repeat_interleave -------------------------------------------------------------------------------

@register("repeat_interleave_tensor")
def repeat_interleave_tensor(repeats: Tensor, *, output_size: int | None = None) -> Tensor:
    """The indices 0, 1, ... each repeated repeats[i] times."""
    if len(repeats._shape) != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats._dtype not in (_dt.int32, _dt.int64):
        raise not_implemented("repeat_interleave_cpu", repeats._dtype)
    counts = np.asarray(repeats._data, dtype=np.int64)
    if counts.size and counts.min() < 0:
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and int(counts.sum()) != output_size:
        raise RuntimeError("allocated size does not match required size")
    indices = np.repeat(np.arange(counts.size, dtype=np.int64), counts)
    return from_array(indices.astype(_dt.to_numpy_dtype(repeats._dtype)), repeats._dtype)


def _flattened(self: Tensor, dim: int | None) -> tuple[Tensor, int]:
    if dim is None:
        return call(aten("flatten.using_ints"), self._keyset, self, 0, -1), 0
    return self, _wrap_dim(dim, len(self._shape))


@register("repeat_interleave_self_int")
def repeat_interleave_self_int(self: Tensor, repeats: int, dim: int | None = None, *,
                               output_size: int | None = None) -> Tensor:
    """Each slice along dim repeated in place: unsqueeze, expand, copy, merge the two dims."""
    if repeats < 0:
        raise RuntimeError("repeats can not be negative")
    source, d = _flattened(self, dim)
    shape = list(source._shape)
    expanded_shape = shape[:d + 1] + [repeats] + shape[d + 1:]
    ks = source._keyset
    expanded = call(aten("expand"), ks, call(aten("unsqueeze"), ks, source, d + 1), expanded_shape)
    copied = call_kw(aten("clone"), ks, (expanded,), {"memory_format": contiguous_format})
    return call(aten("flatten.using_ints"), ks, copied, d, d + 1)


@register("repeat_interleave_self_tensor")
def repeat_interleave_self_tensor(self: Tensor, repeats: Tensor, dim: int | None = None, *,
                                  output_size: int | None = None) -> Tensor:
    source, d = _flattened(self, dim)
    ks = source._keyset | repeats._keyset
    if len(repeats._shape) == 0 or (len(repeats._shape) == 1 and repeats._shape[0] == 1):
        reshaped = call(aten("reshape"), repeats._keyset, repeats, [1])
        repeats = call(aten("expand"), repeats._keyset, reshaped, [source._shape[d]])
    elif len(repeats._shape) == 1:
        if repeats._shape[0] != source._shape[d]:
            raise RuntimeError("repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{repeats._shape[0]} and input.size({d}) = {source._shape[d]}")
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    kwargs = {"output_size": output_size} if output_size is not None else {}
    indices = call_kw(aten("repeat_interleave.Tensor"), repeats._keyset, (repeats,), kwargs)
    return call(aten("index_select"), ks, source, d, indices)


@register("repeat_interleave_tensor_meta")
def repeat_interleave_tensor_meta(repeats: Tensor, *, output_size: int | None = None) -> Tensor:
    if output_size is None:
        raise RuntimeError("cannot repeat_interleave a meta tensor without output_size")
    return meta_tensor((output_size,), repeats._dtype)


# --- diag_embed, diagflat, swapaxes_ / swapdims_ -------------------------------------------------

def _diag_embed_plan(self: Tensor, offset: int, dim1: int, dim2: int) -> tuple[tuple[int, ...], int, int]:
    ndim = len(self._shape) + 1
    d1, d2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = self._shape[-1] + abs(offset)
    batch = list(self._shape[:-1])
    shape = []
    for i in range(ndim):
        shape.append(n if i in (d1, d2) else batch.pop(0))
    return tuple(shape), d1, d2


@register("diag_embed")
def diag_embed(self: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """self's last dim laid along the (dim1, dim2) diagonal at `offset` of a zero tensor."""
    shape, d1, d2 = _diag_embed_plan(self, offset, dim1, dim2)
    if self._data is None:
        return meta_tensor(shape, self._dtype)
    values = np.asarray(self._data)
    length = values.shape[-1]
    n = length + abs(offset)
    square = np.zeros(values.shape[:-1] + (n, n), dtype=values.dtype)
    rows = np.arange(length) + max(-offset, 0)
    square[..., rows, rows + offset] = values
    return from_array(np.ascontiguousarray(np.moveaxis(square, (-2, -1), (d1, d2))), self._dtype)


@register("diagflat")
def diagflat(self: Tensor, offset: int = 0) -> Tensor:
    source = self if self.is_contiguous() else call_kw(aten("clone"), self._keyset, (self,),
                                                       {"memory_format": contiguous_format})
    flat = call(aten("view"), source._keyset, source, [-1])
    return call(aten("diag_embed"), flat._keyset, *((flat, offset) if offset else (flat,)))


@register("swapaxes_")
def swapaxes_(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return call(aten("transpose_"), self._keyset, self, axis0, axis1)
