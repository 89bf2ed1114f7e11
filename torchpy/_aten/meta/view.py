"""Meta rules of the view ops: a view's sizes, strides and storage offset, from its input's.

Each `*_geometry` rule takes the input's sizes, strides (and offset, where it moves) and the op's
arguments, checks them with PyTorch's messages and returns the view's geometry, plus what a CPU
kernel needs to address the same elements with a native NumPy view (wrapped dims, an index).
The Meta kernels at the end are these rules plus `meta_view`; kernels/view.py's CPU kernels
take their geometry from the same rules, so the two cannot drift.

The rules run on the hot path of almost every program (`x.t()`, `x[1]`, `x.view(...)`), so
they are written to do little: no generator expressions, dims wrapped inline.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from ..._tensor import dtype as _dt
from ..._tensor import tensor as _tensor_module
from ..._tensor.tensor import Tensor, _wrap_dim, contiguous_strides, contiguous_strides_of, meta_tensor

Shape = tuple[int, ...]
Strides = tuple[int, ...]
Geometry = tuple[Shape, Strides, int]  # sizes, strides, storage offset

INT64_MAX = 9223372036854775807


# --- messages --------------------------------------------------------------------------------------


def shape_str(shape: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


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


# --- view, view.dtype ------------------------------------------------------------------------------


def infer_size(shape: Sequence[int], numel: int) -> Shape:
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


def view_strides(old_shape: Shape, old_strides: Strides, new_shape: Shape) -> Strides | None:
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


def view_geometry(shape: Shape, strides: Strides, size: Sequence[int]) -> tuple[Shape, Strides]:
    """view(size)'s sizes and strides (the offset is unchanged)."""
    new_shape = infer_size(size, math.prod(shape))
    if strides == contiguous_strides_of(shape):  # contiguous in, contiguous out
        return new_shape, contiguous_strides_of(new_shape)
    new_strides = view_strides(shape, strides, new_shape)
    if new_strides is None:
        raise RuntimeError(_VIEW_ERROR)
    return new_shape, new_strides


def _view_dtype_error(old: _dt.dtype, new: _dt.dtype, what: str, got: Any = None) -> RuntimeError:
    message = f"{what} to view {old._c10_name} as {new._c10_name} (different element sizes)"
    return RuntimeError(message if got is None else f"{message}, but got {got}")


def dtype_geometry(shape: Shape, strides: Strides, offset: int, old: _dt.dtype, new: _dt.dtype) -> Geometry:
    """Sizes, strides and offset of memory laid out as (shape, strides, offset) in `old`, read as
    `new` (the last dim rescales)."""
    old_size, new_size = old.itemsize, new.itemsize
    if old_size == new_size:
        return tuple(shape), tuple(strides), offset
    if not shape:
        raise _view_dtype_error(old, new, "self.dim() cannot be 0")
    sizes, steps = list(shape), list(strides)
    if new_size > old_size:
        ratio = new_size // old_size
        if sizes[-1] % ratio:
            raise _view_dtype_error(old, new, f"self.size(-1) must be divisible by {ratio}", sizes[-1])
        if offset % ratio:
            raise _view_dtype_error(old, new, f"self.storage_offset() must be divisible by {ratio}", offset)
        if steps[-1] != 1:
            raise _view_dtype_error(old, new, "self.stride(-1) must be 1", steps[-1])
        for i, stride in enumerate(steps[:-1]):
            if stride % ratio:
                raise _view_dtype_error(old, new, f"self.stride({i}) must be divisible by {ratio}", stride)
        sizes[-1] //= ratio
        return tuple(sizes), tuple([s // ratio for s in steps[:-1]] + [1]), offset // ratio
    ratio = old_size // new_size
    if steps[-1] != 1:
        raise _view_dtype_error(old, new, "self.stride(-1) must be 1", steps[-1])
    sizes[-1] *= ratio
    return tuple(sizes), tuple([s * ratio for s in steps[:-1]] + [1]), offset * ratio


# --- transpose, permute, t -------------------------------------------------------------------------


def transpose_geometry(shape: Shape, strides: Strides, dim0: int, dim1: int) -> tuple[int, int, Shape, Strides]:
    """(d0, d1 wrapped, sizes, strides) of transposing two dims; the offset is unchanged. A 0-dim
    tensor's dims 0 / -1 give d0 == d1 == 0 and its own geometry."""
    n = len(shape)
    d0 = dim0 + n if dim0 < 0 else dim0
    d1 = dim1 + n if dim1 < 0 else dim1
    if not (0 <= d0 < n and 0 <= d1 < n):
        _wrap_dim(dim0, n)  # raises, unless a 0-dim tensor's dim 0 / -1
        _wrap_dim(dim1, n)
        return 0, 0, shape, strides
    if d0 == d1:
        return d0, d1, shape, strides
    s, st = list(shape), list(strides)
    s[d0], s[d1] = s[d1], s[d0]
    st[d0], st[d1] = st[d1], st[d0]
    return d0, d1, tuple(s), tuple(st)


def check_t(ndim: int, name: str = "t") -> None:
    if ndim > 2:
        raise RuntimeError(f"{name}() expects a tensor with <= 2 dimensions, but self is {ndim}D")


def permute_geometry(shape: Shape, strides: Strides, dims: Sequence[int]) -> tuple[list[int], Shape, Strides]:
    """(the wrapped permutation, sizes, strides); the offset is unchanged."""
    ndim = len(shape)
    if len(dims) != ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length "
            f"of the desired ordering of dimensions i.e. input.dim() = {ndim} is not equal to "
            f"len(dims) = {len(dims)}"
        )
    perm = [d + ndim if d < 0 else d for d in dims]
    if sorted(perm) != list(range(ndim)):
        for d in dims:
            _wrap_dim(d, ndim)
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return perm, tuple([shape[d] for d in perm]), tuple([strides[d] for d in perm])


# --- expand ----------------------------------------------------------------------------------------


def expand_geometry(shape: Shape, strides: Strides, size: Sequence[int]) -> tuple[Shape, Strides]:
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


def expand_rule(self: Tensor, size: Sequence[int]) -> tuple[Shape, Strides]:
    """expand's sizes and strides for `self`, the rank error naming self's type as torch does."""
    try:
        return expand_geometry(self._shape, self.stride(), size)
    except RuntimeError as error:
        if str(error).startswith("the number of sizes"):
            raise RuntimeError(f"expand({type_string(self)}{{{shape_str(self._shape)}}}, size={shape_str(size)}): "
                               f"{error}") from None
        raise


# --- squeeze, unsqueeze ----------------------------------------------------------------------------


def squeeze_geometry(shape: Shape, strides: Strides, dims: Sequence[int]) -> tuple[Shape, Strides]:
    """Without the listed dims (each of size 1, already wrapped); the offset is unchanged."""
    return (tuple([s for d, s in enumerate(shape) if d not in dims]),
            tuple([s for d, s in enumerate(strides) if d not in dims]))


def squeezable_dims(shape: Shape, dim: int | Sequence[int] | None) -> list[int]:
    """Which dims squeeze / squeeze.dim / squeeze.dims drop: the named (None: all) dims of size 1."""
    ndim = len(shape)
    if dim is None:
        return [d for d, size in enumerate(shape) if size == 1]
    if isinstance(dim, int):
        d = _wrap_dim(dim, ndim)
        return [d] if shape and shape[d] == 1 else []
    wrapped: list[int] = []
    for one in dim:
        d = _wrap_dim(one, ndim)
        if d in wrapped:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        wrapped.append(d)
    return [d for d in wrapped if ndim and shape[d] == 1]


def unsqueeze_geometry(shape: Shape, strides: Strides, d: int) -> tuple[Shape, Strides]:
    """Sizes and strides with a size-1 dim inserted at (wrapped) d."""
    stride = shape[d] * strides[d] if d < len(shape) else 1
    return shape[:d] + (1,) + shape[d:], strides[:d] + (stride,) + strides[d:]


def unsqueeze_rule(shape: Shape, strides: Strides, dim: int) -> tuple[Shape, Strides]:
    """unsqueeze(dim)'s sizes and strides (dim wrapped against ndim + 1)."""
    n = len(shape)
    d = dim + n + 1 if dim < 0 else dim
    if not 0 <= d <= n:
        _wrap_dim(dim, n + 1)
    return unsqueeze_geometry(shape, strides, d)


# --- select, slice ---------------------------------------------------------------------------------


def select_geometry(shape: Shape, strides: Strides, offset: int, dim: int,
                    index: int) -> tuple[int, int, Shape, Strides, int]:
    """(d, index wrapped, sizes, strides, offset) of select(dim, index)."""
    n = len(shape)
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = dim + n if dim < 0 else dim
    if not 0 <= d < n:
        _wrap_dim(dim, n)
    size = shape[d]
    if index < -size or index >= size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {shape_str(shape)} at dimension {d}")
    if index < 0:
        index += size
    return d, index, shape[:d] + shape[d + 1:], strides[:d] + strides[d + 1:], offset + index * strides[d]


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


def slice_geometry(shape: Shape, strides: Strides, offset: int, dim: int, start: int | None, end: int | None,
                   step: int) -> tuple[int, int, int, Shape, Strides, int]:
    """(d, start, end clamped, sizes, strides, offset) of slice(dim, start, end, step)."""
    n = len(shape)
    if n == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = dim + n if dim < 0 else dim
    if not 0 <= d < n:
        _wrap_dim(dim, n)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    start, end = slice_bounds(shape[d], start, end)
    new_shape = shape[:d] + ((end - start + step - 1) // step,) + shape[d + 1:]
    new_strides = strides[:d] + (strides[d] * step,) + strides[d + 1:]
    return d, start, end, new_shape, new_strides, offset + start * strides[d]


# --- diagonal, as_strided, unfold ------------------------------------------------------------------


def diagonal_geometry(shape: Shape, strides: Strides, storage_offset: int, offset: int, dim1: int,
                      dim2: int) -> Geometry:
    ndim = len(shape)
    d1, d2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if offset >= 0:
        length = max(min(shape[d1], shape[d2] - offset), 0)
    else:
        length = max(min(shape[d1] + offset, shape[d2]), 0)
    if length > 0:  # PyTorch leaves the offset alone for an empty diagonal
        storage_offset += offset * strides[d2] if offset >= 0 else -offset * strides[d1]
    keep = [d for d in range(ndim) if d != d1 and d != d2]
    return (tuple([shape[d] for d in keep]) + (length,), tuple([strides[d] for d in keep]) + (strides[d1] + strides[d2],),
            storage_offset)


def check_as_strided(size: Sequence[int], stride: Sequence[int], offset: int) -> None:
    """as_strided's checks that need no storage: the geometry itself must be valid."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: {shape_str(stride)}")
    if any(s < 0 for s in size):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={shape_str(size)} and strides={shape_str(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")


def check_storage_bounds(size: Sequence[int], stride: Sequence[int], offset: int, itemsize: int,
                         available: int) -> None:
    """The geometry must stay inside a storage of `available` bytes (CPU only: torch's meta
    storages grow as asked)."""
    needed = (offset + 1 + sum([(n - 1) * s for n, s in zip(size, stride)])) * itemsize if all(size) else 0
    if needed > available:
        raise RuntimeError(
            f"setStorage: sizes {shape_str(size)}, strides {shape_str(stride)}, storage offset {offset}, and "
            f"itemsize {itemsize} requiring a storage size of {needed} are out of bounds for storage of size "
            f"{available}"
        )


def unfold_geometry(shape: Shape, strides: Strides, dimension: int, size: int, step: int) -> tuple[Shape, Strides]:
    """Windows of `size` along `dimension`, `step` apart: that dim counts windows, a new last dim
    walks within one. The offset is unchanged."""
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
        return (size,), (1,)
    windows = (length - size) // step + 1
    return (shape[:d] + (windows,) + shape[d + 1:] + (size,),
            strides[:d] + (strides[d] * step,) + strides[d + 1:] + (strides[d],))


# --- unbind, split: which pieces -------------------------------------------------------------------


def unbind_dim(shape: Shape, dim: int) -> int:
    if not shape:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return _wrap_dim(dim, len(shape))


def _dim_size(shape: Shape, dim: int, op: str) -> tuple[int, int]:
    if not shape:
        raise RuntimeError(f"{op} expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, len(shape))
    return d, shape[d]


def split_sizes(shape: Shape, split_size: int, dim: int) -> tuple[int, list[int]]:
    """(d, the pieces' sizes) of split(split_size, dim)."""
    d, size = _dim_size(shape, dim, "split")
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and size != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    count = max((size + split_size - 1) // split_size, 1) if split_size else 1
    return d, [split_size] * (count - 1) + [split_size - (split_size * count - size)]


def split_with_sizes_dim(shape: Shape, split_sizes: Sequence[int], dim: int) -> int:
    d, size = _dim_size(shape, dim, "split_with_sizes")
    if any(s < 0 for s in split_sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes have only non-negative entries, but got "
            f"split_sizes={shape_str(split_sizes)}")
    if sum(split_sizes) != size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
            f"dimension {d}), but got split_sizes={shape_str(split_sizes)}")
    return d


# --- view bookkeeping, shared by the CPU and Meta kernels ------------------------------------------


def multi_output(pieces: list[Tensor]) -> list[Tensor]:
    """Views from one call that returns several may not be modified in place under autograd:
    torchpy.autograd.views marks them (PyTorch's CreationMeta::MULTI_OUTPUT_NODE)."""
    mark = _tensor_module._on_multi_output_views
    if mark is not None:
        mark(pieces)
    return pieces


def slices(slice_kernel: Callable[..., Tensor], self: Tensor, d: int, sizes: Sequence[int]) -> list[Tensor]:
    """Consecutive slices of `sizes` along d, made by `slice_kernel` (the CPU or the Meta one)."""
    start = 0
    pieces = []
    for size in sizes:
        pieces.append(slice_kernel(self, d, start, start + size))
        start += size
    return multi_output(pieces)


def unbased(result: Tensor) -> Tensor:
    """A view autograd does not track as one (_unsafe_view): same storage, no base."""
    result._base = None
    result._version_counter = None
    return result


def untracked(piece: Tensor) -> Tensor:
    """unsafe_split's pieces: same memory, not views to autograd."""
    piece._base = None
    piece._autograd_meta = None
    piece._version_counter = None
    return piece


# --- the Meta kernels ------------------------------------------------------------------------------


def meta_view(self: Tensor, shape: Shape, strides: Strides, offset: int) -> Tensor:
    """The meta view of `self` with this geometry: its storage, base and version counter."""
    t = meta_tensor(shape, self._dtype, strides, offset, self.untyped_storage())
    root = t._base = self._base if self._base is not None else self
    if self._version_counter is None:
        self._version_counter = [0]
    t._version_counter = self._version_counter
    if not _tensor_module._view_grad_state.enabled and root._requires_grad:
        _tensor_module._on_no_grad_view(t, root)
    return t


def become(self: Tensor, other: Tensor) -> Tensor:
    """In-place views: `self` takes the geometry of `other`, a meta view of self."""
    self._shape = other._shape
    self._stride = other._stride
    self._offset = other._offset
    return self


def view(self: Tensor, size: Sequence[int]) -> Tensor:
    shape, strides = view_geometry(self._shape, self.stride(), size)
    return meta_view(self, shape, strides, self.storage_offset())


def _unsafe_view(self: Tensor, size: Sequence[int]) -> Tensor:
    return unbased(view(self, size))


def view_dtype(self: Tensor, dtype: _dt.dtype) -> Tensor:
    result = meta_view(self, *dtype_geometry(self._shape, self.stride(), self.storage_offset(), self._dtype, dtype))
    result._dtype = dtype
    result._base = None  # PyTorch does not track it as a view (it shares the version counter)
    return result


def alias(self: Tensor) -> Tensor:
    return meta_view(self, self._shape, self.stride(), self.storage_offset())


def detach(self: Tensor) -> Tensor:
    result = alias(self)
    result._base = None
    return result


def transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    shape, strides = transpose_geometry(self._shape, self.stride(), dim0, dim1)[2:]
    return meta_view(self, shape, strides, self.storage_offset())


def t(self: Tensor) -> Tensor:
    ndim = len(self._shape)
    check_t(ndim)
    return transpose(self, 0, 1) if ndim == 2 else alias(self)


def permute(self: Tensor, dims: Sequence[int]) -> Tensor:
    shape, strides = permute_geometry(self._shape, self.stride(), dims)[1:]
    return meta_view(self, shape, strides, self.storage_offset())


def expand(self: Tensor, size: Sequence[int], *, implicit: bool = False) -> Tensor:
    return meta_view(self, *expand_rule(self, size), self.storage_offset())


def squeeze(self: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    shape, strides = squeeze_geometry(self._shape, self.stride(), squeezable_dims(self._shape, dim))
    return meta_view(self, shape, strides, self.storage_offset())


def unsqueeze(self: Tensor, dim: int) -> Tensor:
    return meta_view(self, *unsqueeze_rule(self._shape, self.stride(), dim), self.storage_offset())


def t_(self: Tensor) -> Tensor:
    check_t(len(self._shape), "t_")
    return become(self, t(self))


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return become(self, transpose(self, dim0, dim1))


def squeeze_(self: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    return become(self, squeeze(self, dim))


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return become(self, unsqueeze(self, dim))


def select(self: Tensor, dim: int, index: int) -> Tensor:
    return meta_view(self, *select_geometry(self._shape, self.stride(), self.storage_offset(), dim, index)[2:])


def slice_(self: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1) -> Tensor:
    return meta_view(self, *slice_geometry(self._shape, self.stride(), self.storage_offset(), dim, start, end, step)[3:])


def diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    return meta_view(self, *diagonal_geometry(self._shape, self.stride(), self.storage_offset(), offset, dim1, dim2))


def as_strided(self: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
    offset = self.storage_offset() if storage_offset is None else storage_offset
    check_as_strided(size, stride, offset)  # no bounds check: a meta storage has no fixed size
    return meta_view(self, tuple(size), tuple(stride), offset)


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    return meta_view(self, *unfold_geometry(self._shape, self.stride(), dimension, size, step), self.storage_offset())


def unbind(self: Tensor, dim: int = 0) -> list[Tensor]:
    d = unbind_dim(self._shape, dim)
    return multi_output([select(self, d, i) for i in range(self._shape[d])])


def split(self: Tensor, split_size: int, dim: int = 0) -> list[Tensor]:
    d, sizes = split_sizes(self._shape, split_size, dim)
    return slices(slice_, self, d, sizes)


def split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> list[Tensor]:
    return slices(slice_, self, split_with_sizes_dim(self._shape, split_sizes, dim), split_sizes)


def unsafe_split(self: Tensor, split_size: int, dim: int = 0) -> list[Tensor]:
    return [untracked(p) for p in split(self, split_size, dim)]


def unsafe_split_with_sizes(self: Tensor, split_sizes: Sequence[int], dim: int = 0) -> list[Tensor]:
    return [untracked(p) for p in split_with_sizes(self, split_sizes, dim)]


# --- the view backward ops (kernels/view_backward.py): zeros of the input's sizes --------------------
# Each result is a fresh contiguous tensor of the forward input's sizes in the gradient's dtype.
# Torch's meta kernels of select / slice / diagonal_backward check no dims (the sizes are given);
# unfold_backward's wraps its dim.


def select_backward(grad_output: Tensor, input_sizes: Sequence[int], dim: int, index: int) -> Tensor:
    return meta_tensor(tuple(input_sizes), grad_output._dtype)


def slice_backward(grad_output: Tensor, input_sizes: Sequence[int], dim: int, start: int, end: int,
                   step: int) -> Tensor:
    return meta_tensor(tuple(input_sizes), grad_output._dtype)


def diagonal_backward(grad_output: Tensor, input_sizes: Sequence[int], offset: int, dim1: int, dim2: int) -> Tensor:
    return meta_tensor(tuple(input_sizes), grad_output._dtype)


def unfold_backward(grad_in: Tensor, input_sizes: Sequence[int], dim: int, size: int, step: int) -> Tensor:
    _wrap_dim(dim, len(input_sizes))
    return meta_tensor(tuple(input_sizes), grad_in._dtype)


def masked_scatter_backward(grad_output: Tensor, mask: Tensor, sizes: Sequence[int]) -> Tensor:
    return meta_tensor(tuple(sizes), grad_output._dtype)
