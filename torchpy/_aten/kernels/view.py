"""View ops' CPU kernels: results that share their input's storage (view, transpose, select, ...).

The geometry (sizes, strides, storage offset, PyTorch's checks and messages) is the meta rules'
(meta/view.py), whose Meta kernels are registered here beside the CPU ones as `<name>_meta`.
A CPU kernel takes its geometry from the rule and materializes it as a NumPy view of the
input's array: the array's own view operation (swapaxes, indexing, reshape) where it addresses
exactly the same elements, otherwise the storage viewed with the computed strides
(`strided_values`, which takes the array module).

The result's strides and offset are always the computed ones (NumPy may choose other
strides for size-1 dims, which address nothing), so `stride()` and `storage_offset()` equal
PyTorch's whatever NumPy picked. The composite view ops (reshape, flatten, chunk, movedim,
...) are decompositions over these, in shape.py.

These kernels are on the hot path of almost every program, so they are written to do little:
the array's methods rather than the module's functions (np.swapaxes costs twice a.swapaxes),
view_of called directly, strides and offset read from the slots (`self._stride or self.stride()`:
the method only when they are not worked out yet, or for a 0-dim tensor's empty strides).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, view_of
from ..meta import view as rules
from ..meta.view import (  # noqa: F401 - INT64_MAX, type_string: re-exported for indexing, autograd
    INT64_MAX, check_as_strided, check_storage_bounds, check_t, diagonal_geometry, dtype_geometry, expand_rule,
    multi_output, permute_geometry, select_geometry, slice_geometry, slices, split_sizes, split_with_sizes_dim,
    squeezable_dims, squeeze_geometry, transpose_geometry, type_string, unbased, unbind_dim, unfold_geometry,
    unsqueeze_rule, untracked, view_geometry,
)
from ..registry import register

Array = Any
_FULL = slice(None)


# --- array code: the storage viewed with any geometry ------------------------------------------


def flat_bytes(xp: Any, buffer: Array, nbytes: int) -> Array:
    """The `nbytes` of memory starting at `buffer`'s first element, as flat bytes."""
    if buffer.flags.c_contiguous:
        return buffer.reshape(-1).view(xp.uint8)[:nbytes]
    if not buffer.size:
        return xp.empty(0, xp.uint8)
    first = buffer[(slice(0, 1),) * buffer.ndim].reshape(-1).view(xp.uint8)
    return xp.lib.stride_tricks.as_strided(first, (nbytes,), (1,), writeable=buffer.flags.writeable)


def strided_values(xp: Any, buffer: Array, shape: Sequence[int], strides: Sequence[int], offset: int,
                   np_dtype: Any) -> Array:
    """Flat bytes `buffer` viewed with sizes, strides and offset in elements of np_dtype."""
    item = np_dtype.itemsize
    if 0 in shape:  # addresses nothing: PyTorch allows any offset here, NumPy wants it in the buffer
        return xp.ndarray(tuple(shape), np_dtype, buffer, min(offset * item, len(buffer)), (0,) * len(shape))
    return xp.ndarray(tuple(shape), np_dtype, buffer, offset * item, tuple([s * item for s in strides]))


def storage_bytes(self: Tensor) -> np.ndarray:
    """self's storage as a flat byte array. Storages made over a strided array (from_numpy of a
    non-contiguous array) get their buffer normalized to flat bytes over the same memory,
    which is what UntypedStorage documents its buffer to be."""
    storage = self.untyped_storage()
    buffer = storage._buffer
    if buffer.dtype != np.uint8 or buffer.ndim != 1:
        buffer = storage._buffer = flat_bytes(np, buffer, storage._nbytes)
    return buffer


def strided_array(self: Tensor, shape: Sequence[int], strides: Sequence[int], offset: int,
                  np_dtype: np.dtype | None = None) -> np.ndarray:
    """`self`'s storage viewed with absolute sizes, strides and offset (in elements of np_dtype,
    by default self's)."""
    return strided_values(np, storage_bytes(self), shape, strides, offset,
                          self._data.dtype if np_dtype is None else np_dtype)


def tensor_type_name(self: Tensor) -> str:
    """'torch.FloatTensor', 'torch.meta.FloatTensor', as Tensor.type() says."""
    prefix = "torch." if self._device.type == "cpu" else f"torch.{self._device.type}."
    return f"{prefix}{self._dtype._c10_name}Tensor"


# --- view, _unsafe_view, view.dtype ----------------------------------------------------------------


@register("view")
def view(self: Tensor, size: Sequence[int]) -> Tensor:
    shape, strides = view_geometry(self._shape, self._stride or self.stride(), size)
    offset = self._offset
    if offset is None:
        offset = self.storage_offset()
    data = self._data
    if data.flags.c_contiguous and data.size:  # NumPy's reshape is then a view of the same elements
        return view_of(self, data.reshape(shape), strides, offset)
    return view_of(self, strided_array(self, shape, strides, offset), strides, offset)


@register("_unsafe_view")
def _unsafe_view(self: Tensor, size: Sequence[int]) -> Tensor:
    """A view the autograd layer does not track as one: same storage, no base."""
    return unbased(view(self, size))


@register("view_dtype")
def view_dtype(self: Tensor, dtype: _dt.dtype) -> Tensor:
    shape, strides, offset = dtype_geometry(self._shape, self.stride(), self.storage_offset(), self._dtype, dtype)
    result = view_of(self, strided_array(self, shape, strides, offset, _dt.to_numpy_dtype(dtype)), strides, offset)
    result._dtype = dtype
    result._base = None  # PyTorch does not track it as a view (it shares the version counter)
    return result


# --- alias, detach ---------------------------------------------------------------------------------


@register("alias")
def alias(self: Tensor) -> Tensor:
    # self's own geometry (the identity rule); what self has not worked out yet (strides, offset
    # still None) the alias reads off its array too
    return view_of(self, self._data.view(), self._stride, self._offset)


@register("detach")
def detach(self: Tensor) -> Tensor:
    """Same storage and version counter, but not a view (as PyTorch's detach)."""
    result = alias(self)
    result._base = None
    return result


# --- transpose, permute, t -------------------------------------------------------------------------


@register("transpose")
def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    d0, d1, shape, strides = transpose_geometry(self._shape, self._stride or self.stride(), dim0, dim1)
    data = self._data
    offset = self._offset
    return view_of(self, data.swapaxes(d0, d1) if d0 != d1 else data.view(), strides,
                   self.storage_offset() if offset is None else offset)


@register("permute")
def permute(self: Tensor, dims: Sequence[int]) -> Tensor:
    perm, shape, strides = permute_geometry(self._shape, self._stride or self.stride(), dims)
    offset = self._offset
    return view_of(self, self._data.transpose(perm), strides, self.storage_offset() if offset is None else offset)


@register("t")
def t(self: Tensor) -> Tensor:
    ndim = len(self._shape)
    if ndim == 2:
        return transpose(self, 0, 1)
    check_t(ndim)
    return alias(self)


# --- expand ----------------------------------------------------------------------------------------


@register("expand")
def expand(self: Tensor, size: Sequence[int], *, implicit: bool = False) -> Tensor:
    shape, strides = expand_rule(self, size)
    offset = self.storage_offset()
    arr = self._data.view() if shape == self._shape else strided_array(self, shape, strides, offset)
    return view_of(self, arr, strides, offset)


# --- squeeze, unsqueeze ----------------------------------------------------------------------------


@register("squeeze")
def squeeze(self: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    shape, strides = squeeze_geometry(self._shape, self.stride(), squeezable_dims(self._shape, dim))
    # dropping size-1 dims is always a view
    return view_of(self, self._data.reshape(shape), strides, self.storage_offset())


@register("unsqueeze")
def unsqueeze(self: Tensor, dim: int) -> Tensor:
    shape, strides = unsqueeze_rule(self._shape, self._stride or self.stride(), dim)
    offset = self._offset
    # adding a size-1 dim is always a view
    return view_of(self, self._data.reshape(shape), strides, self.storage_offset() if offset is None else offset)


# --- in-place views: the tensor itself takes the new geometry ----------------------------------


def _become(self: Tensor, other: Tensor) -> Tensor:
    """Give `self` the geometry (and data view) of `other`, a view of self."""
    self._data = other._data
    self._shape = other._shape
    self._stride = other._stride
    self._offset = other._offset
    return self


@register("t_")
def t_(self: Tensor) -> Tensor:
    check_t(len(self._shape), "t_")
    return _become(self, t(self))


@register("transpose_")
def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _become(self, transpose(self, dim0, dim1))


@register("squeeze_")
def squeeze_(self: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    return _become(self, squeeze(self, dim))


@register("unsqueeze_")
def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _become(self, unsqueeze(self, dim))


# --- select, slice ---------------------------------------------------------------------------------


@register("select")
def select(self: Tensor, dim: int, index: int) -> Tensor:
    offset = self._offset
    d, index, shape, strides, offset = select_geometry(
        self._shape, self._stride or self.stride(), self.storage_offset() if offset is None else offset, dim, index)
    data = self._data  # the Ellipsis keeps a 0-d result an array view, not a NumPy scalar
    return view_of(self, data[index, ...] if d == 0 else data[(_FULL,) * d + (index, Ellipsis)], strides, offset)


@register("slice")
def slice_(self: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1) -> Tensor:
    offset = self._offset
    d, start, end, shape, strides, offset = slice_geometry(
        self._shape, self._stride or self.stride(), self.storage_offset() if offset is None else offset, dim, start, end, step)
    index = slice(start, end, step)
    data = self._data
    return view_of(self, data[index] if d == 0 else data[(_FULL,) * d + (index,)], strides, offset)


# --- diagonal, as_strided, unfold: the storage viewed with the rule's geometry --------------------


@register("diagonal")
def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    shape, strides, start = diagonal_geometry(self._shape, self.stride(), self.storage_offset(), offset, dim1, dim2)
    return view_of(self, strided_array(self, shape, strides, start), strides, start)


@register("as_strided")
def as_strided(self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
    offset = self.storage_offset() if storage_offset is None else storage_offset
    check_as_strided(size, stride, offset)
    check_storage_bounds(size, stride, offset, self._dtype.itemsize, self.untyped_storage().nbytes())
    shape, strides = tuple(size), tuple(stride)
    return view_of(self, strided_array(self, shape, strides, offset), strides, offset)


@register("unfold")
def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    shape, strides = unfold_geometry(self._shape, self.stride(), dimension, size, step)
    offset = self.storage_offset()
    return view_of(self, strided_array(self, shape, strides, offset), strides, offset)


# --- unbind, split, split_with_sizes ---------------------------------------------------------------


@register("unbind")
def unbind(self: Tensor, dim: int = 0) -> list[Tensor]:
    d = unbind_dim(self._shape, dim)
    return multi_output([select(self, d, i) for i in range(self._shape[d])])


@register("split")
def split(self: Tensor, split_size: int, dim: int = 0) -> list[Tensor]:
    d, sizes = split_sizes(self._shape, split_size, dim)
    return slices(slice_, self, d, sizes)


@register("split_with_sizes")
def split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> list[Tensor]:
    return slices(slice_, self, split_with_sizes_dim(self._shape, split_sizes, dim), split_sizes)


@register("unsafe_split")
def unsafe_split(self: Tensor, split_size: int, dim: int = 0) -> list[Tensor]:
    """split whose pieces autograd does not track as views: same memory, no base."""
    return [untracked(p) for p in split(self, split_size, dim)]


@register("unsafe_split_with_sizes")
def unsafe_split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> list[Tensor]:
    return [untracked(p) for p in split_with_sizes(self, split_sizes, dim)]


# --- registration: the squeeze forms, and every Meta kernel as <name>_meta ---------------------------

for _name in ("squeeze_dim", "squeeze_dims"):
    register(_name, squeeze)
    register(_name.replace("squeeze", "squeeze_", 1), squeeze_)
for _name in ("view", "_unsafe_view", "view_dtype", "alias", "detach", "transpose", "permute", "t", "expand",
              "squeeze", "unsqueeze", "t_", "transpose_", "squeeze_", "unsqueeze_", "select", "diagonal",
              "as_strided", "unfold", "unbind", "split", "split_with_sizes", "unsafe_split",
              "unsafe_split_with_sizes"):
    register(f"{_name}_meta", getattr(rules, _name))
register("slice_meta", rules.slice_)
for _name in ("squeeze_dim", "squeeze_dims"):
    register(f"{_name}_meta", rules.squeeze)
    register(f"{_name.replace('squeeze', 'squeeze_', 1)}_meta", rules.squeeze_)
