"""Meta rules of advanced indexing, gather / scatter, index_select / index_add / index_fill /
index_copy, take / put_, nonzero and masked_scatter: result shapes, strides and dtypes, and the
checks that need only metadata.

kernels/indexing.py's CPU kernels make these checks through the same functions (in the order
PyTorch's CPU kernels make them) before they touch any array; the Meta kernels here are these
rules plus `meta_tensor`. PyTorch's meta functions check less than its CPU kernels (in-place
ops mostly return self unchecked) and word some errors differently; `meta=` picks the wording.

Data-dependent shapes (nonzero, boolean-mask indexing) cannot be computed on Meta; those raise
what PyTorch raises there.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Sequence

import numpy as np

from ..._dispatch.ops import op_for
from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, _wrap_dim, meta_tensor
from . import copy as copy_rules
from .layout import preserve_strides

NONZERO_META_MESSAGE = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a "
    "correct data-independent implementation does not exist. This implementation returns a "
    "fake value, assuming all elements of the tensor are non-zero. To enable this "
    "registration, please set 'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' "
    "to True."
)


def dims(shape: Sequence[int]) -> str:
    """A shape as PyTorch prints it in messages: [3, 4]."""
    return "[" + ", ".join(map(str, shape)) + "]"


def shape1(t: Tensor) -> tuple[int, ...]:
    """t's shape with a 0-dim tensor counted as 1-dim (gather / scatter / index_* do)."""
    return t._shape or (1,)


def _ndim1(t: Tensor) -> int:
    return max(len(t._shape), 1)


def is_index_dtype(d: _dt.dtype) -> bool:
    return d is _dt.int64 or d is _dt.int32


def has_internal_overlap(t: Tensor) -> bool:
    """Whether elements of t share memory (an expand): stride 0 along a dim of size > 1."""
    return any(st == 0 and s > 1 for s, st in zip(t._shape, t._stride or t.stride()))


def check_no_internal_overlap(t: Tensor) -> None:
    """PyTorch refuses to write through a tensor whose elements share memory (an expand); an
    empty one writes nothing."""
    if t.numel():
        copy_rules.check_no_internal_overlap(t)


def clone(t: Tensor) -> Tensor:
    """A meta copy in t's layout (what the functional form of an in-place op starts from)."""
    return meta_tensor(t._shape, t._dtype, preserve_strides(t._shape, t.stride()))


def contiguous_clone(t: Tensor) -> Tensor:
    """A contiguous meta copy (scatter's structured kernels allocate their result so)."""
    return meta_tensor(t._shape, t._dtype)


# --- index.Tensor and index_put_ ----------------------------------------------------------------
#
# `indices` is a list with one entry per leading dimension of self: None keeps the whole
# dimension, an integer tensor picks positions, a bool (or deprecated uint8) mask covering k
# dimensions stands for the k index tensors of its nonzero(). The index tensors broadcast
# together; the result dimensions go where the indexed dimensions were if they are adjacent,
# else first (NumPy's placement too).


def check_index_count(self_shape: tuple[int, ...], count: int, meta: bool) -> None:
    if count > len(self_shape):
        error = RuntimeError if meta else IndexError
        raise error(f"too many indices for tensor of dimension {len(self_shape)} (got {count})")


def _check_mask_shape(self_shape: tuple[int, ...], mask: Tensor, start: int) -> None:
    for j, size in enumerate(mask._shape):
        dim = _wrap_dim(start + j, len(self_shape))
        if size != self_shape[dim]:
            raise IndexError(
                f"The shape of the mask {dims(mask._shape)} at index {j} does not match the shape "
                f"of the indexed tensor {dims(self_shape)} at index {start + j}"
            )


def expand_indices(self_shape: tuple[int, ...], indices: Sequence[Tensor | None], meta: bool,
                   expand_mask: Callable[[Tensor], list], expand_int: Callable[[Tensor], Any]) -> list[Any]:
    """One entry per indexed dimension: None, or what `expand_int` makes of an integer index
    (an array on CPU, its shape on Meta). A mask becomes `expand_mask`'s entries (the index
    arrays of its nonzero() on CPU)."""
    expanded: list[Any] = []
    for t in indices:
        if t is None:
            expanded.append(None)
            continue
        d = t._dtype
        if d is _dt.bool or d is _dt.uint8:
            if d is _dt.uint8:
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.")
            _check_mask_shape(self_shape, t, len(expanded))
            expanded.extend(expand_mask(t))
        elif d is _dt.int64 or d is _dt.int32:
            expanded.append(expand_int(t))
        else:
            error = RuntimeError if meta else IndexError
            raise error("tensors used as indices must be long, int, byte or bool tensors")
    return expanded


def _broadcast_index_shapes(shapes: list[tuple[int, ...]], meta: bool) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        pass
    if meta:
        _meta_broadcast_error(shapes)
    raise IndexError(
        "shape mismatch: indexing tensors could not be broadcast together with shapes "
        + ", ".join(dims(s) for s in shapes)
    )


def _meta_broadcast_error(shapes: list[tuple[int, ...]]) -> None:
    """The message PyTorch's Python meta kernels give for shapes that do not broadcast."""
    common = [1] * max(len(s) for s in shapes)
    for arg, shape in enumerate(shapes):
        for i in range(-1, -1 - len(shape), -1):
            if common[i] == 1:
                common[i] = shape[i]
            elif shape[i] != 1 and shape[i] != common[i]:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[i]} at {i}! Mismatching "
                    f"argument at index {arg} had torch.Size({list(shape)}); but expected shape "
                    f"should be broadcastable to {common}"
                )


def _index_result_shape(self_shape: tuple[int, ...], expanded: list[Any], broadcast: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of self[indices]: the placement of the indexed dims."""
    positions = [d for d, a in enumerate(expanded) if a is not None]
    rest = list(self_shape)
    adjacent = positions[-1] - positions[0] + 1 == len(positions)
    before = positions[0] if adjacent else 0
    kept_before = [s for d, s in enumerate(rest[:before]) if d not in positions]
    kept_after = [s for d, s in enumerate(rest) if d >= before and d not in positions]
    return tuple(kept_before) + tuple(broadcast) + tuple(kept_after)


def prepare_index(self_shape: tuple[int, ...], indices: Sequence[Tensor | None], meta: bool,
                  expand_mask: Callable[[Tensor], list], expand_int: Callable[[Tensor], Any]
                  ) -> tuple[list[Any], tuple[int, ...]]:
    """Checked, expanded indices (see expand_indices) and the shape of self[indices]."""
    check_index_count(self_shape, len(indices), meta)
    expanded = expand_indices(self_shape, indices, meta, expand_mask, expand_int)
    shapes = [a if isinstance(a, tuple) else a.shape for a in expanded if a is not None]
    if not shapes:
        raise RuntimeError("sym_strides() called on an undefined Tensor")
    broadcast = _broadcast_index_shapes(shapes, meta)
    while expanded[-1] is None:  # trailing whole-dim entries change nothing (even past the end)
        expanded.pop()
    for d in range(len(expanded)):
        _wrap_dim(d, len(self_shape))  # a mask reaching past self's dims fails as in PyTorch
    shape = _index_result_shape(self_shape, expanded, broadcast)
    if 0 in shape and 0 not in broadcast and any(self_shape[d] == 0 for d, a in enumerate(expanded) if a is not None):
        raise IndexError("index is out of bounds for dimension with size 0")  # even with nothing to read
    return expanded, shape


def check_index_given(indices: Sequence[Tensor | None]) -> None:
    if not indices:
        raise IndexError("at least one index must be provided")


def _meta_mask_entries(mask: Tensor) -> list[tuple[int, ...]]:
    """A mask's entries as shapes: its nonzero()'s row count, one per dim it covers. On a meta
    mask nonzero raises PyTorch's error; a CPU mask's nonzero runs (as in PyTorch's meta index)."""
    count = op_for("aten::nonzero")(mask)._shape[0]
    return [(count,)] * max(len(mask._shape), 1)


def _shape_of(t: Tensor) -> tuple[int, ...]:
    return t._shape


def check_values_shape(values: Tensor, shape: tuple[int, ...]) -> None:
    """Values broadcast to the indexing result without growing it (no extra leading dims)."""
    vshape = values._shape
    ok = len(vshape) <= len(shape) and all(v == 1 or v == s for v, s in zip(reversed(vshape), reversed(shape)))
    if not ok:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {dims(vshape)} cannot be broadcast to indexing "
            f"result of shape {dims(shape)}"
        )


def check_index_put_dtypes(self: Tensor, values: Tensor) -> None:
    if values._dtype is not self._dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got "
            f"{self._dtype._c10_name} for the destination and {values._dtype._c10_name} for the source."
        )


# --- gather / scatter ------------------------------------------------------------------------------
#
# Both pair each element of `index` with the element of self (or src) at the same
# coordinates, except along `dim`, where the index value is used. A 0-dim tensor counts
# as 1-dim here, as in PyTorch.


def _check_index_dtype(index: Tensor, op: str, meta: bool) -> None:
    d = index._dtype
    if d is not _dt.int64 and d is not _dt.int32:
        suffix = f", but got {index._dtype}" if meta and op == "gather" else ""
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index{suffix}")


def check_gather(self: Tensor, dim: int, index: Tensor, meta: bool) -> int:
    """gather's checks; the wrapped dim."""
    dim = _wrap_dim(dim, len(self._shape))
    _check_index_dtype(index, "gather", meta)
    if _ndim1(index) != _ndim1(self):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if index.numel() == 0:
        return dim
    ishape, sshape = shape1(index), shape1(self)
    for d in range(len(ishape)):
        if d != dim and ishape[d] > sshape[d]:
            show = (lambda s: f"torch.Size({list(s)})") if meta else dims
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {show(index._shape)} to be no "
                f"larger than self {show(self._shape)} apart from dimension {dim}"
            )
    return dim


def _check_scatter_shapes(self: Tensor, dim: int, index: Tensor, src: Tensor | None) -> None:
    if _ndim1(index) != _ndim1(self):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src is not None and _ndim1(src) != _ndim1(index):
        if _ndim1(src) < _ndim1(index):
            _wrap_dim(_ndim1(src), _ndim1(src))  # PyTorch reads src.size(d) first: IndexError
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if index.numel() == 0:
        return
    ishape, sshape = shape1(index), shape1(self)
    srcshape = shape1(src) if src is not None else None
    too_big = any(d != dim and ishape[d] > sshape[d] for d in range(len(ishape)))
    if srcshape is not None:
        too_big = too_big or any(i > s for i, s in zip(ishape, srcshape))
    if too_big:
        message = (f"Expected index {dims(index._shape)} to be no larger than self {dims(self._shape)} "
                   f"apart from dimension {dim}")
        if src is not None:
            message += f" and to be no larger size than src {dims(src._shape)}"
        raise RuntimeError(message)


def _check_scatter_src_dtype(self: Tensor, src: Tensor) -> None:
    if src._dtype is not self._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")


def check_scatter(self: Tensor, dim: int, index: Tensor, src: Tensor | None, reduce: str | None) -> int:
    """scatter's checks (src None for the value forms; reduce None, "add" or "multiply"); the
    wrapped dim."""
    dim = _wrap_dim(dim, len(self._shape))
    _check_index_dtype(index, "scatter", False)
    if src is not None:
        _check_scatter_src_dtype(self, src)
    _check_scatter_shapes(self, dim, index, src)
    if reduce is not None and reduce != "add" and reduce != "multiply":
        raise RuntimeError("reduce argument must be either add or multiply.")
    return dim


def warn_scatter_src_reduce() -> None:
    warnings.warn(
        "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
        "future PyTorch release. Use torch.scatter_reduce instead for more reduction options."
    )


TWO_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def check_scatter_reduce_two(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str,
                             meta: bool) -> tuple[int, str]:
    """scatter_reduce.two's checks; the wrapped dim and the reduction's name (max -> amax)."""
    dim = _wrap_dim(dim, len(self._shape))
    _check_index_dtype(index, "scatter", meta)
    _check_scatter_src_dtype(self, src)
    _check_scatter_shapes(self, dim, index, src)
    if reduce == "max" or reduce == "min":
        reduce = "a" + reduce
    if reduce not in TWO_REDUCTIONS:
        message = "reduce argument must be either sum, prod, mean, amax or amin"
        raise RuntimeError(message + "." if meta else f"{message}, got {reduce}")
    if reduce == "mean" and self._dtype is _dt.bool:
        raise NotImplementedError('"scatter_gather_tensor_cpu_reduce_mean" not implemented for \'Bool\'')
    return dim, reduce


# --- index_select / index_add / index_fill / index_copy ------------------------------------------------


def index_select_shape(self: Tensor, dim: int, index: Tensor, meta: bool) -> tuple[int, tuple[int, ...]]:
    """index_select's checks; the wrapped dim and the result's shape."""
    dim = _wrap_dim(dim, len(self._shape))
    if len(index._shape) > 1 and not meta:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if not is_index_dtype(index._dtype):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    n = index.numel()
    shape = list(self._shape)
    if shape:
        shape[dim] = n
    elif n != 1 and not meta:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {n} value(s)")
    return dim, tuple(shape)


def check_index_add(self: Tensor, dim: int, index: Tensor, source: Tensor) -> None:
    if len(index._shape) > 1:
        raise IndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: {len(index._shape)} with "
            f"type: {index._dtype._c10_name} and size: {dims(index._shape)}"
        )
    if not is_index_dtype(index._dtype):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: {index._dtype._c10_name}")
    if self._dtype is not source._dtype:
        raise RuntimeError(
            f"index_add_(): self ({self._dtype._c10_name}) and source ({source._dtype._c10_name}) "
            "must have the same scalar type"
        )
    n = index.numel()
    if n != (source._shape[dim] if source._shape else 1):
        if not source._shape:  # PyTorch's message reads source.size(dim), which fails first
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        raise RuntimeError(
            f"index_add_(): Number of indices ({n}) should be equal to source.size(dim): "
            f"({source._shape[dim]}), for dim: {dim}"
        )
    same_rank = len(source._shape) == len(self._shape)
    if not same_rank or any(s != t for d, (s, t) in enumerate(zip(self._shape, source._shape)) if d != dim):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. "
            f"Got self.shape = {dims(self._shape)} source.shape = {dims(source._shape)}"
        )


def check_index_fill(self: Tensor, index: Tensor, value: Any) -> None:
    if index._dtype is not _dt.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if len(index._shape) > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if isinstance(value, complex) and not self._dtype.is_complex:
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")


def check_fill_value(self: Tensor, index: Tensor, value: Tensor) -> None:
    """index_fill_.int_Tensor's checks of its value tensor."""
    if value._shape:
        raise RuntimeError(
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{len(value._shape)} dimension(s).")
    if value._device != self._device:
        raise RuntimeError(
            "index_copy(): self, index and source expected to be in the same device, but got (self) "
            f"{self._device}, (index) {index._device}, and (source) {value._device}")


def check_index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor) -> None:
    if len(index._shape) > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {len(index._shape)})")
    if index._dtype is not _dt.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {index._dtype._c10_name}")
    if source._dtype is not self._dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{self._dtype._c10_name} and (source) {source._dtype._c10_name}")
    n = index.numel()
    if not source._shape:
        if n != 1:
            raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {n})")
        return
    if self._shape and len(source._shape) != len(self._shape):
        raise IndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
            f"Source dimensionality ({len(source._shape)}), destination dimensionality ({len(self._shape)})")
    self_slice = [s for d, s in enumerate(self._shape) if d != dim]
    source_slice = [s for d, s in enumerate(source._shape) if d != dim]
    if self_slice != source_slice:
        raise RuntimeError(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: "
            f"{' '.join(map(str, self_slice))} at dimension {dim} and source slice shape: "
            f"{' '.join(map(str, source_slice))} at dimension 0.")
    if n != source._shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) ({source._shape[dim]})")


# --- take / put_ / masked_scatter -----------------------------------------------------------------------


def check_put(self: Tensor, index: Tensor, source: Tensor) -> None:
    if index._dtype is not _dt.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index._dtype._c10_name}")
    if source._dtype is not self._dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{self._dtype._c10_name} and source.dtype = {source._dtype._c10_name}")
    if source.numel() != index.numel():
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got source.numel() = "
            f"{source.numel()}, index.numel() = {index.numel()}")


def check_masked_scatter_dtypes(self: Tensor, source: Tensor, meta: bool) -> None:
    if source._dtype is not self._dtype:
        shown = (str(self._dtype), str(source._dtype)) if meta else (self._dtype._c10_name, source._dtype._c10_name)
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got{' ' if meta else ''}"
                           f"{shown[0]} and {shown[1]}")


# --- the Meta kernels ----------------------------------------------------------------------------------


def index(self: Tensor, indices: Sequence[Tensor | None]) -> Tensor:
    check_index_given(indices)
    shape = prepare_index(self._shape, indices, True, _meta_mask_entries, _shape_of)[1]
    return meta_tensor(shape, self._dtype)


def _index_put_impl_(self: Tensor, indices: Sequence[Tensor | None], values: Tensor,
                     accumulate: bool = False, unsafe: bool = False) -> Tensor:
    check_index_count(self._shape, len(indices), True)
    return self  # PyTorch's Meta kernel checks no more than the index count


def gather(self: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    check_gather(self, dim, index, True)
    return meta_tensor(index._shape, self._dtype)


def scatter_src_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    check_scatter(self, dim, index, src, None)
    return self


def scatter_value_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    check_scatter(self, dim, index, None, None)
    return self


def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, *, reduce: str) -> Tensor:
    warn_scatter_src_reduce()
    check_scatter(self, dim, index, src, reduce)
    return self


def scatter_value_reduce_(self: Tensor, dim: int, index: Tensor, value: Any, *, reduce: str) -> Tensor:
    check_scatter(self, dim, index, None, reduce)
    return self


def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    check_scatter(self, dim, index, src, "add")
    return self


def scatter_reduce_two_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                        include_self: bool = True) -> Tensor:
    check_scatter_reduce_two(self, dim, index, src, reduce, True)
    return self


def index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
    return meta_tensor(index_select_shape(self, dim, index, True)[1], self._dtype)


def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    _wrap_dim(dim, len(self._shape))
    return self  # PyTorch's Meta kernel checks nothing here


def nonzero(self: Tensor) -> Tensor:
    raise NotImplementedError(NONZERO_META_MESSAGE)


def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    check_masked_scatter_dtypes(self, source, True)
    if mask._dtype is not _dt.bool and mask._dtype is not _dt.uint8:
        raise RuntimeError("Mask must be bool or uint8")
    return self


def index_fill_int_scalar_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    _wrap_dim(dim, len(self._shape))
    return self


def index_fill_int_tensor_(self: Tensor, dim: int, index: Tensor, value: Tensor) -> Tensor:
    check_fill_value(self, index, value)
    _wrap_dim(dim, len(self._shape))
    return self


def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    dim = _wrap_dim(dim, len(self._shape))
    n, src_size = index.numel(), (source._shape[dim] if source._shape else 1)
    if n != src_size:
        raise RuntimeError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) ({src_size})")
    return self


def take(self: Tensor, index: Tensor) -> Tensor:
    if index._dtype is not _dt.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index._dtype}")
    return meta_tensor(index._shape, self._dtype)


def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    return self


def broadcast_copy(self: Tensor, shape: tuple[int, ...]) -> Tensor:
    """masked_scatter's contiguous copy of self broadcast to `shape`."""
    return meta_tensor(shape, self._dtype)
