"""View ops: results that share their input's storage (view, transpose, select, expand, ...).

Every view op computes the result's sizes, strides and storage offset from the input's, with
PyTorch's checks and error messages; on Meta that is all there is. On CPU the same geometry
is materialized as a NumPy view of the input's array: a native NumPy view operation
(swapaxes, indexing, reshape) where it addresses exactly the same elements, otherwise the
storage viewed with the computed strides (`strided_array`).

The result's strides and offset are always the computed ones (NumPy may choose other
strides for size-1 dims, which address nothing), so `stride()` and `storage_offset()` equal
PyTorch's whatever NumPy picked. The composite view ops (reshape, flatten, chunk, movedim,
...) are decompositions over these, in shape.py.

These kernels are on the hot path of almost every program, so they are written to do little:
no generator expressions, dims wrapped inline, the generic helpers only on slow paths.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor import tensor as _tensor_module
from ..._tensor.tensor import Tensor, _wrap_dim, contiguous_strides, contiguous_strides_of, meta_tensor, view_of
from ..registry import register

INT64_MAX = 9223372036854775807
_FULL = slice(None)


# --- making a view ------------------------------------------------------------------------


def _view(self: Tensor, arr: Any, shape: tuple, strides: tuple | None, offset: int | None) -> Tensor:
    """The view of `self` with this geometry; `arr` is its data on CPU (None on meta).
    strides/offset None: read them off `arr` when asked (right when arr is C-contiguous)."""
    if arr is None:
        t = meta_tensor(shape, self._dtype, strides, offset, self.untyped_storage())
        root = t._base = self._base if self._base is not None else self
        if self._version_counter is None:
            self._version_counter = [0]
        t._version_counter = self._version_counter
        if not _tensor_module._view_grad_state.enabled and root._requires_grad:
            _tensor_module._on_no_grad_view(t, root)
        return t
    return view_of(self, arr, strides, offset)


def _flat_bytes(buffer: np.ndarray, nbytes: int) -> np.ndarray:
    """The `nbytes` of memory starting at `buffer`'s first element, as flat bytes."""
    if buffer.flags.c_contiguous:
        return buffer.reshape(-1).view(np.uint8)[:nbytes]
    if not buffer.size:
        return np.empty(0, np.uint8)
    first = buffer[(slice(0, 1),) * buffer.ndim].reshape(-1).view(np.uint8)
    return np.lib.stride_tricks.as_strided(first, (nbytes,), (1,), writeable=buffer.flags.writeable)


def storage_bytes(self: Tensor) -> np.ndarray:
    """self's storage as a flat byte array. Storages made over a strided array (from_numpy of a
    non-contiguous array) get their buffer normalized to flat bytes over the same memory,
    which is what UntypedStorage documents its buffer to be."""
    storage = self.untyped_storage()
    buffer = storage._buffer
    if buffer.dtype != np.uint8 or buffer.ndim != 1:
        buffer = storage._buffer = _flat_bytes(buffer, storage._nbytes)
    return buffer


def strided_array(self: Tensor, shape: Sequence[int], strides: Sequence[int], offset: int,
                  np_dtype: np.dtype | None = None) -> np.ndarray:
    """`self`'s storage viewed with absolute sizes, strides and offset (in elements of np_dtype,
    by default self's)."""
    buffer = storage_bytes(self)
    if np_dtype is None:
        np_dtype = self._data.dtype
    item = np_dtype.itemsize
    if 0 in shape:  # addresses nothing: PyTorch allows any offset here, NumPy wants it in the buffer
        return np.ndarray(tuple(shape), np_dtype, buffer, min(offset * item, len(buffer)), (0,) * len(shape))
    return np.ndarray(tuple(shape), np_dtype, buffer, offset * item, tuple([s * item for s in strides]))


def shape_str(shape: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def tensor_type_name(self: Tensor) -> str:
    """'torch.FloatTensor', 'torch.meta.FloatTensor', as Tensor.type() says."""
    prefix = "torch." if self._device.type == "cpu" else f"torch.{self._device.type}."
    return f"{prefix}{self._dtype._c10_name}Tensor"


# The CPU types whose C++ name ("CPUFloatType") torch's Python error translation rewrites
# as the legacy tensor type ("torch.FloatTensor"); the others (Bool, BFloat16, complex) stay.
_LEGACY_CPU_TYPES = frozenset(("Byte", "Char", "Short", "Int", "Long", "Half", "Float", "Double"))


def type_string(self: Tensor) -> str:
    """How PyTorch's C++ messages name a tensor's type: torch.FloatTensor, CPUBoolType, MetaFloatType."""
    name, device = self._dtype._c10_name, self._device.type
    if device == "cpu" and name in _LEGACY_CPU_TYPES:
        return f"torch.{name}Tensor"
    backend = device.upper() if device in ("cpu", "cuda") else device.capitalize()  # CPU, CUDA, Meta
    return f"{backend}{name}Type"


# --- view, _unsafe_view ----------------------------------------------------------------------


def infer_size(shape: Sequence[int], numel: int) -> tuple[int, ...]:
    """`shape` with its -1 (if any) inferred for `numel` elements, as view/reshape check it."""
    if shape and min(shape) >= 0 and math.prod(shape) == numel:
        return tuple(shape)
    infer_at = -1
    known = 1
    for i, size in enumerate(shape):
        if size == -1:
            if infer_at >= 0:
                raise RuntimeError("only one dimension can be inferred")
            infer_at = i
        elif size >= 0:
            known *= size
        else:
            raise RuntimeError(f"invalid shape dimension {size} at index {i} of shape {shape_str(shape)}")
    if infer_at < 0:
        if known != numel:
            raise RuntimeError(f"shape '{shape_str(shape)}' is invalid for input of size {numel}")
        return tuple(shape)
    if known == 0:
        if numel == 0:
            raise RuntimeError(
                f"cannot reshape tensor of 0 elements into shape {shape_str(shape)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        raise RuntimeError(f"shape '{shape_str(shape)}' is invalid for input of size {numel}")
    if numel % known:
        raise RuntimeError(f"shape '{shape_str(shape)}' is invalid for input of size {numel}")
    result = list(shape)
    result[infer_at] = numel // known
    return tuple(result)


def view_strides(old_shape: tuple, old_strides: tuple, new_shape: tuple) -> tuple[int, ...] | None:
    """Strides that give `new_shape` over the same memory as (old_shape, old_strides), or None.

    Old dims are grouped into runs that are contiguous with each other; each run must be
    re-divided exactly by a run of new dims (size-1 new dims fit anywhere).
    """
    if not old_shape:
        return (1,) * len(new_shape)
    if 0 in old_shape:
        return old_strides if old_shape == new_shape else contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_stride = old_strides[-1]
    old_numel = 1
    new_numel = 1
    for d in range(len(old_shape) - 1, -1, -1):
        old_numel *= old_shape[d]
        run_ends = d == 0 or (old_shape[d - 1] != 1 and old_strides[d - 1] != old_numel * chunk_stride)
        if not run_ends:
            continue
        while view_d >= 0 and (new_numel < old_numel or new_shape[view_d] == 1):
            new_strides[view_d] = new_numel * chunk_stride
            new_numel *= new_shape[view_d]
            view_d -= 1
        if new_numel != old_numel:
            return None
        if d > 0:
            chunk_stride = old_strides[d - 1]
            old_numel = 1
            new_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


_VIEW_ERROR = (
    "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
    "contiguous subspaces). Use .reshape(...) instead."
)


@register("view")
def view(self: Tensor, size: Sequence[int]) -> Tensor:
    old_shape = self._shape
    shape = infer_size(size, math.prod(old_shape))
    data = self._data
    old_strides = self.stride()
    if old_strides == contiguous_strides_of(old_shape):  # contiguous in, contiguous out
        strides = contiguous_strides_of(shape)
    else:
        strides = view_strides(old_shape, old_strides, shape)
        if strides is None:
            raise RuntimeError(_VIEW_ERROR)
    offset = self._offset
    if offset is None:
        offset = self.storage_offset()
    if data is None:
        return _view(self, None, shape, strides, offset)
    if data.flags.c_contiguous and data.size:  # NumPy's reshape is then a view of the same elements
        return _view(self, data.reshape(shape), shape, strides, offset)
    return _view(self, strided_array(self, shape, strides, offset), shape, strides, offset)


@register("_unsafe_view")
def _unsafe_view(self: Tensor, size: Sequence[int]) -> Tensor:
    """A view the autograd layer does not track as one: same storage, no base."""
    result = view(self, size)
    result._base = None
    result._version_counter = None
    return result


# --- view.dtype ----------------------------------------------------------------------------------


def _view_dtype_error(self: Tensor, dtype: _dt.dtype, what: str, got: Any = None) -> RuntimeError:
    message = f"{what} to view {self._dtype._c10_name} as {dtype._c10_name} (different element sizes)"
    return RuntimeError(message if got is None else f"{message}, but got {got}")


def _dtype_geometry(self: Tensor, dtype: _dt.dtype) -> tuple[tuple, tuple, int]:
    """Sizes, strides and offset of self's memory read as `dtype` (the last dim rescales)."""
    old_size, new_size = self._dtype.itemsize, dtype.itemsize
    shape, strides, offset = list(self._shape), list(self.stride()), self.storage_offset()
    if old_size == new_size:
        return tuple(shape), tuple(strides), offset
    if not shape:
        raise _view_dtype_error(self, dtype, "self.dim() cannot be 0")
    if new_size > old_size:
        ratio = new_size // old_size
        if shape[-1] % ratio:
            raise _view_dtype_error(self, dtype, f"self.size(-1) must be divisible by {ratio}", shape[-1])
        if offset % ratio:
            raise _view_dtype_error(self, dtype, f"self.storage_offset() must be divisible by {ratio}", offset)
        if strides[-1] != 1:
            raise _view_dtype_error(self, dtype, "self.stride(-1) must be 1", strides[-1])
        for i, stride in enumerate(strides[:-1]):
            if stride % ratio:
                raise _view_dtype_error(self, dtype, f"self.stride({i}) must be divisible by {ratio}", stride)
        shape[-1] //= ratio
        return tuple(shape), tuple([s // ratio for s in strides[:-1]] + [1]), offset // ratio
    ratio = old_size // new_size
    if strides[-1] != 1:
        raise _view_dtype_error(self, dtype, "self.stride(-1) must be 1", strides[-1])
    shape[-1] *= ratio
    return tuple(shape), tuple([s * ratio for s in strides[:-1]] + [1]), offset * ratio


@register("view_dtype")
def view_dtype(self: Tensor, dtype: _dt.dtype) -> Tensor:
    shape, strides, offset = _dtype_geometry(self, dtype)
    arr = None
    if self._data is not None:
        arr = strided_array(self, shape, strides, offset, _dt.to_numpy_dtype(dtype))
    result = _view(self, arr, shape, strides, offset)
    result._dtype = dtype
    result._base = None  # PyTorch does not track it as a view (it shares the version counter)
    return result


# --- alias, detach -----------------------------------------------------------------------------


@register("alias")
def alias(self: Tensor) -> Tensor:
    data = self._data
    if data is None:
        return _view(self, None, self._shape, self.stride(), self.storage_offset())
    # the same array geometry: what self has not worked out yet the alias reads off its array too
    return _view(self, data.view(), self._shape, self._stride, self._offset)


@register("detach")
def detach(self: Tensor) -> Tensor:
    """Same storage and version counter, but not a view (as PyTorch's detach)."""
    result = alias(self)
    result._base = None
    return result


# --- transpose, permute, t -------------------------------------------------------------------------


@register("transpose")
def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    shape = self._shape
    n = len(shape)
    d0 = dim0 + n if dim0 < 0 else dim0
    d1 = dim1 + n if dim1 < 0 else dim1
    if not (0 <= d0 < n and 0 <= d1 < n):
        _wrap_dim(dim0, n)  # raises, unless a 0-dim tensor's dim 0 / -1
        _wrap_dim(dim1, n)
        return alias(self)
    strides = self.stride()
    if d0 == d1:
        new_shape, new_strides = shape, strides
    else:
        s, st = list(shape), list(strides)
        s[d0], s[d1] = s[d1], s[d0]
        st[d0], st[d1] = st[d1], st[d0]
        new_shape, new_strides = tuple(s), tuple(st)
    data = self._data
    arr = None if data is None else data.swapaxes(d0, d1)
    offset = self._offset
    return _view(self, arr, new_shape, new_strides, self.storage_offset() if offset is None else offset)


def _check_permutation(dims: Sequence[int], ndim: int) -> list[int]:
    if len(dims) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length "
            f"of the desired ordering of dimensions i.e. input.dim() = {ndim} is not equal to "
            f"len(dims) = {len(dims)}"
        )
    wrapped = [d + ndim if d < 0 else d for d in dims]
    if sorted(wrapped) != list(range(ndim)):
        for d in dims:
            _wrap_dim(d, ndim)
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return wrapped


def _permuted(self: Tensor, perm: Sequence[int]) -> Tensor:
    shape, strides = self._shape, self.stride()
    new_shape = tuple([shape[d] for d in perm])
    new_strides = tuple([strides[d] for d in perm])
    data = self._data
    arr = None if data is None else data.transpose(perm)
    offset = self._offset
    return _view(self, arr, new_shape, new_strides, self.storage_offset() if offset is None else offset)


@register("permute")
def permute(self: Tensor, dims: Sequence[int]) -> Tensor:
    return _permuted(self, _check_permutation(dims, len(self._shape)))


@register("t")
def t(self: Tensor) -> Tensor:
    ndim = len(self._shape)
    if ndim == 2:
        return transpose(self, 0, 1)
    if ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return alias(self)


# --- expand --------------------------------------------------------------------------------------


def expand_geometry(shape: tuple, strides: tuple, size: Sequence[int]) -> tuple[tuple, tuple]:
    """Sizes and strides of `expand(size)`; expanded dims get stride 0."""
    n, ndim = len(size), len(shape)
    if n < ndim:
        raise RuntimeError(
            f"the number of sizes provided ({n}) must be greater or equal to the number of dimensions "
            f"in the tensor ({ndim})"
        )
    new_shape = [0] * n
    new_strides = [0] * n
    for i in range(n - 1, -1, -1):
        d = i - (n - ndim)
        target = size[i]
        if d >= 0:
            current, stride = shape[d], strides[d]
        else:
            current = 1
            stride = new_shape[i + 1] * new_strides[i + 1] if i + 1 < n else 0
            if target == -1:
                raise RuntimeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}")
        if target == -1:
            target = current
        if current != target:
            if current != 1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({target}) must match the existing size ({current}) at "
                    f"non-singleton dimension {i}.  Target sizes: {shape_str(size)}.  Tensor sizes: "
                    f"{shape_str(shape)}"
                )
            stride = 0
        new_shape[i] = target
        new_strides[i] = stride
    return tuple(new_shape), tuple(new_strides)


@register("expand")
def expand(self: Tensor, size: Sequence[int], *, implicit: bool = False) -> Tensor:
    try:
        shape, strides = expand_geometry(self._shape, self.stride(), size)
    except RuntimeError as error:
        if str(error).startswith("the number of sizes"):
            raise RuntimeError(f"expand({type_string(self)}{{{shape_str(self._shape)}}}, size={shape_str(size)}): "
                               f"{error}") from None
        raise
    offset = self.storage_offset()
    data = self._data
    if data is None:
        arr = None
    elif shape == self._shape:
        arr = data.view()
    else:
        arr = strided_array(self, shape, strides, offset)
    return _view(self, arr, shape, strides, offset)


# --- squeeze, unsqueeze --------------------------------------------------------------------------


def _squeezed(self: Tensor, dims: Sequence[int]) -> Tensor:
    """self without the listed dims (each of size 1, already wrapped)."""
    old_shape, old_strides = self._shape, self.stride()
    shape = tuple([s for d, s in enumerate(old_shape) if d not in dims])
    strides = tuple([s for d, s in enumerate(old_strides) if d not in dims])
    data = self._data
    arr = None if data is None else data.reshape(shape)  # dropping size-1 dims is always a view
    return _view(self, arr, shape, strides, self.storage_offset())


@register("squeeze")
def squeeze(self: Tensor) -> Tensor:
    return _squeezed(self, [d for d, size in enumerate(self._shape) if size == 1])


@register("squeeze_dim")
def squeeze_dim(self: Tensor, dim: int) -> Tensor:
    d = _wrap_dim(dim, len(self._shape))
    return _squeezed(self, [d] if self._shape and self._shape[d] == 1 else [])


def _wrap_dims_unique(dims: Sequence[int], ndim: int) -> list[int]:
    wrapped = []
    for dim in dims:
        d = _wrap_dim(dim, ndim)
        if d in wrapped:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        wrapped.append(d)
    return wrapped


@register("squeeze_dims")
def squeeze_dims(self: Tensor, dim: Sequence[int]) -> Tensor:
    ndim = len(self._shape)
    dims = _wrap_dims_unique(dim, ndim)
    return _squeezed(self, [d for d in dims if ndim and self._shape[d] == 1])


def unsqueeze_geometry(shape: tuple, strides: tuple, d: int) -> tuple[tuple, tuple]:
    """Sizes and strides with a size-1 dim inserted at (wrapped) d."""
    stride = shape[d] * strides[d] if d < len(shape) else 1
    return shape[:d] + (1,) + shape[d:], strides[:d] + (stride,) + strides[d:]


@register("unsqueeze")
def unsqueeze(self: Tensor, dim: int) -> Tensor:
    old_shape = self._shape
    n = len(old_shape)
    d = dim + n + 1 if dim < 0 else dim
    if not 0 <= d <= n:
        _wrap_dim(dim, n + 1)
    shape, strides = unsqueeze_geometry(old_shape, self.stride(), d)
    data = self._data
    arr = None if data is None else data.reshape(shape)  # adding a size-1 dim is always a view
    offset = self._offset
    return _view(self, arr, shape, strides, self.storage_offset() if offset is None else offset)


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
    ndim = len(self._shape)
    if ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {ndim}D")
    return _become(self, t(self))


@register("transpose_")
def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _become(self, transpose(self, dim0, dim1))


@register("squeeze_")
def squeeze_(self: Tensor) -> Tensor:
    return _become(self, squeeze(self))


@register("squeeze__dim")
def squeeze__dim(self: Tensor, dim: int) -> Tensor:
    return _become(self, squeeze_dim(self, dim))


@register("squeeze__dims")
def squeeze__dims(self: Tensor, dim: Sequence[int]) -> Tensor:
    return _become(self, squeeze_dims(self, dim))


@register("unsqueeze_")
def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _become(self, unsqueeze(self, dim))


# --- select, slice -------------------------------------------------------------------------------


@register("select")
def select(self: Tensor, dim: int, index: int) -> Tensor:
    old_shape = self._shape
    n = len(old_shape)
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = dim + n if dim < 0 else dim
    if not 0 <= d < n:
        _wrap_dim(dim, n)
    size = old_shape[d]
    if index < -size or index >= size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {shape_str(old_shape)} at dimension {d}")
    if index < 0:
        index += size
    old_strides = self.stride()
    offset = self._offset
    offset = (self.storage_offset() if offset is None else offset) + index * old_strides[d]
    data = self._data
    if data is None:
        arr = None
    else:  # the Ellipsis keeps a 0-d result an array view, not a NumPy scalar
        arr = data[index, ...] if d == 0 else data[(_FULL,) * d + (index, Ellipsis)]
    return _view(self, arr, old_shape[:d] + old_shape[d + 1:], old_strides[:d] + old_strides[d + 1:], offset)


def slice_bounds(size: int, start: int | None, end: int | None) -> tuple[int, int]:
    """start and end clamped into [0, size] as slice does (negative ones count from the end)."""
    start = 0 if start is None else start
    end = INT64_MAX if end is None else end
    if start < 0:
        start += size
    if end < 0:
        end += size
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    return start, end


@register("slice")
def slice_(self: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1) -> Tensor:
    old_shape = self._shape
    n = len(old_shape)
    if n == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = dim + n if dim < 0 else dim
    if not 0 <= d < n:
        _wrap_dim(dim, n)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    start, end = slice_bounds(old_shape[d], start, end)
    old_strides = self.stride()
    offset = self._offset
    offset = (self.storage_offset() if offset is None else offset) + start * old_strides[d]
    shape = old_shape[:d] + ((end - start + step - 1) // step,) + old_shape[d + 1:]
    strides = old_strides[:d] + (old_strides[d] * step,) + old_strides[d + 1:]
    data = self._data
    if data is None:
        arr = None
    else:
        index = slice(start, end, step)
        arr = data[index] if d == 0 else data[(_FULL,) * d + (index,)]
    return _view(self, arr, shape, strides, offset)


# --- diagonal, as_strided -----------------------------------------------------------------------


@register("diagonal")
def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    ndim = len(self._shape)
    d1, d2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    shape, strides = self._shape, self.stride()
    storage_offset = self.storage_offset()
    if offset >= 0:
        length = max(min(shape[d1], shape[d2] - offset), 0)
    else:
        length = max(min(shape[d1] + offset, shape[d2]), 0)
    if length > 0:  # PyTorch leaves the offset alone for an empty diagonal
        storage_offset += offset * strides[d2] if offset >= 0 else -offset * strides[d1]
    keep = [d for d in range(ndim) if d != d1 and d != d2]
    new_shape = tuple([shape[d] for d in keep]) + (length,)
    new_strides = tuple([strides[d] for d in keep]) + (strides[d1] + strides[d2],)
    arr = None if self._data is None else strided_array(self, new_shape, new_strides, storage_offset)
    return _view(self, arr, new_shape, new_strides, storage_offset)


def check_in_storage(self: Tensor, size: Sequence[int], stride: Sequence[int], offset: int) -> None:
    """as_strided's checks: the geometry must be valid and (on CPU) stay inside self's storage."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {shape_str(stride)}")
    if any(s < 0 for s in size):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={shape_str(size)} and strides={shape_str(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if self._data is None:  # a meta storage has no fixed size
        return
    item = self._dtype.itemsize
    needed = (offset + 1 + sum([(n - 1) * s for n, s in zip(size, stride)])) * item if all(size) else 0
    available = self.untyped_storage().nbytes()
    if needed > available:
        raise RuntimeError(
            f"setStorage: sizes {shape_str(size)}, strides {shape_str(stride)}, storage offset {offset}, and "
            f"itemsize {item} requiring a storage size of {needed} are out of bounds for storage of size {available}"
        )


@register("as_strided")
def as_strided(self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
    offset = self.storage_offset() if storage_offset is None else storage_offset
    check_in_storage(self, size, stride, offset)
    shape, strides = tuple(size), tuple(stride)
    arr = None if self._data is None else strided_array(self, shape, strides, offset)
    return _view(self, arr, shape, strides, offset)


# --- unbind, split, split_with_sizes ---------------------------------------------------------------


@register("unbind")
def unbind(self: Tensor, dim: int = 0) -> list[Tensor]:
    if not self._shape:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, len(self._shape))
    return _multi_output([select(self, d, i) for i in range(self._shape[d])])


def _slices(self: Tensor, d: int, sizes: Sequence[int]) -> list[Tensor]:
    start = 0
    pieces = []
    for size in sizes:
        pieces.append(slice_(self, d, start, start + size))
        start += size
    return _multi_output(pieces)


def _multi_output(pieces: list[Tensor]) -> list[Tensor]:
    """Views from one call that returns several may not be modified in place under autograd:
    torchpy.autograd.views marks them (PyTorch's CreationMeta::MULTI_OUTPUT_NODE)."""
    mark = _tensor_module._on_multi_output_views
    if mark is not None:
        mark(pieces)
    return pieces


def _dim_size(self: Tensor, dim: int, op: str) -> tuple[int, int]:
    if not self._shape:
        raise RuntimeError(f"{op} expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, len(self._shape))
    return d, self._shape[d]


@register("split")
def split(self: Tensor, split_size: int, dim: int = 0) -> list[Tensor]:
    d, size = _dim_size(self, dim, "split")
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    count = max((size + split_size - 1) // split_size, 1) if split_size else 1
    last = split_size - (split_size * count - size)
    return _slices(self, d, [split_size] * (count - 1) + [last])


@register("split_with_sizes")
def split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> list[Tensor]:
    d, size = _dim_size(self, dim, "split_with_sizes")
    if any(s < 0 for s in split_sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={shape_str(split_sizes)}")
    if sum(split_sizes) != size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
            f"dimension {d}), but got split_sizes={shape_str(split_sizes)}")
    return _slices(self, d, split_sizes)


@register("unsafe_split")
def unsafe_split(self: Tensor, split_size: int, dim: int = 0) -> list[Tensor]:
    """split whose pieces autograd does not track as views: same memory, no base."""
    return [_untracked(p) for p in split(self, split_size, dim)]


@register("unsafe_split_with_sizes")
def unsafe_split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> list[Tensor]:
    return [_untracked(p) for p in split_with_sizes(self, split_sizes, dim)]


def _untracked(piece: Tensor) -> Tensor:
    piece._base = None
    piece._autograd_meta = None
    piece._version_counter = None
    return piece


# --- unfold ----------------------------------------------------------------------------------------


@register("unfold")
def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Windows of `size` along `dimension`, `step` apart: that dim counts windows, a new last
    dim walks within one."""
    shape, strides = self._shape, self.stride()
    n = len(shape)
    d = _wrap_dim(dimension, n)
    length = shape[d] if n else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if n == 0:
        new_shape, new_strides = (size,), (1,)
    else:
        windows = (length - size) // step + 1
        new_shape = shape[:d] + (windows,) + shape[d + 1:] + (size,)
        new_strides = strides[:d] + (strides[d] * step,) + strides[d + 1:] + (strides[d],)
    offset = self.storage_offset()
    arr = None if self._data is None else strided_array(self, new_shape, new_strides, offset)
    return _view(self, arr, new_shape, new_strides, offset)
