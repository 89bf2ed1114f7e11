"""Advanced indexing, gather / scatter, index_select / index_add, nonzero, masked_select.

Each op is array code (NumPy fancy indexing and `ufunc.at`) behind a thin Tensor
adapter that checks arguments the way PyTorch's CPU kernels do (same exception
types and messages, in the same order), computes the output's dtype and shape
(all a Meta tensor gets) and wraps the result. In-place ops write into the
tensor's own array, so views of it see the change.

Data-dependent shapes (nonzero, masked_select, boolean-mask indexing) cannot be
computed on Meta; those raise what PyTorch raises there.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any, Callable, Sequence

import ml_dtypes
import numpy as np

from ..._dispatch import keys as K
from ..._dispatch import tls
from ..._dispatch.keys import DispatchKey
from ..._dispatch.ops import op_for
from ..._tensor import dtype as _dt
from ..._tensor.function_modes import mode_on, track
from ..._tensor.members import MODES, declare
from ..._tensor.tensor import Tensor, _wrap_dim, from_array, meta_tensor
from ..meta.layout import preserve_strides
from ..._tensor.torch_function import dispatch_from_binding, needs_override
from ..fastcall import aten as fast_aten
from ..fastcall import call as fast_call
from ..build import METHODS
from ..python_api import make_method
from ..registry import register
from .elementwise import broadcast_shapes
from .variants import write_out

_function_modes = False  # whether any thread has a TorchFunctionMode (function_modes keeps it)
track(globals())


NONZERO_META_MESSAGE = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a "
    "correct data-independent implementation does not exist. This implementation returns a "
    "fake value, assuming all elements of the tensor are non-zero. To enable this "
    "registration, please set 'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' "
    "to True."
)


# --- shared helpers --------------------------------------------------------------------------


def dims(shape: Sequence[int]) -> str:
    """A shape as PyTorch prints it in messages: [3, 4]."""
    return "[" + ", ".join(map(str, shape)) + "]"


_BELOW_AD_INPLACE_OR_VIEW = K.AUTOGRAD_BITS | K.key_bits(DispatchKey.ADInplaceOrView)


_OPS: dict[str, Any] = {}


def aten_op(qualified: str) -> Any:
    """The OpOverload for 'aten::name.overload', looked up once."""
    op = _OPS.get(qualified)
    if op is None:
        op = _OPS[qualified] = op_for(qualified)
    return op


def call_below_autograd(qualified: str, args: tuple, kwargs: dict | None = None) -> Any:
    """Call an op from a CompositeExplicitAutograd kernel as PyTorch does: below Autograd and
    ADInplaceOrView, whose work the outer op already did (no second graph node, no second
    version bump). `args` and `kwargs` are already in the op's normalized form."""
    local = tls.local
    previous = local.excluded
    local.excluded = previous | _BELOW_AD_INPLACE_OR_VIEW
    try:
        return aten_op(qualified).call_normalized(args, kwargs or {})
    finally:
        local.excluded = previous


def drop_trailing_false(args: tuple) -> tuple:
    """Normalize trailing `bool = False` arguments away, as the binder would."""
    end = len(args)
    while end and args[end - 1] is False:
        end -= 1
    return args[:end]


def clone(t: Tensor) -> Tensor:
    """A fresh copy in self's layout (what the functional form of an in-place op starts from)."""
    if t._data is None:
        return meta_tensor(t._shape, t._dtype, preserve_strides(t._shape, t.stride()))
    return from_array(np.array(t._data, copy=True, order="K"), t._dtype)  # preserve_format


def contiguous_clone(t: Tensor) -> Tensor:
    """A fresh contiguous copy (scatter's structured kernels allocate their result so)."""
    if t._data is None:
        return meta_tensor(t._shape, t._dtype)
    return from_array(np.array(t._data, copy=True, order="C"), t._dtype)


def check_no_internal_overlap(t: Tensor) -> None:
    """PyTorch refuses to write through a tensor whose elements share memory (an expand)."""
    data = t._data
    if data is not None and data.size and any(st == 0 and s > 1 for s, st in zip(t._shape, data.strides)):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )


def check_no_overlap(written: Tensor, read: Tensor) -> None:
    if written._data is not None and read._data is not None and np.may_share_memory(written._data, read._data):
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to tensor "
            "refer to a single memory location. Please clone() the tensor before performing the "
            "operation."
        )


def index_array(t: Tensor) -> np.ndarray:
    """An integer index tensor's values as an intp array (what NumPy indexes with fastest)."""
    data = t._data
    return data if data.dtype == np.intp else data.astype(np.intp)


def first_out_of_bounds(idx: np.ndarray, size: int, low: int = 0) -> int | None:
    """The first index (C order) outside [low, size), or None. `low` is 0 for ops that refuse
    negative indices, -size for those that count them from the end."""
    if idx.size <= 256:  # Python's min / max beat NumPy's reductions on small arrays
        values = idx.ravel().tolist()
        if not values or (min(values) >= low and max(values) < size):
            return None
        return next(v for v in values if v < low or v >= size)
    if idx.min() >= low and idx.max() < size:
        return None
    flat = idx.reshape(-1)
    return int(flat[int(np.argmax((flat < low) | (flat >= size)))])


# --- scalars written into tensors ------------------------------------------------------------

def scalar_to(value: Any, d: _dt.dtype) -> Any:
    """`value` as a NumPy scalar of dtype `d`, with PyTorch's overflow check for Scalars."""
    np_type = _dt.to_numpy_dtype(d)
    if d is _dt.bool:
        return np.bool_(bool(value))
    if _overflows(value, d, np_type):
        raise RuntimeError(f"value cannot be converted to type {d._cpp_type_name} without overflow")
    if isinstance(value, complex) and not d.is_complex:
        value = value.real
    with np.errstate(all="ignore"):
        return np.array(value).astype(np_type)[()]


_LIMITS: dict[_dt.dtype, tuple[Any, Any]] = {}


def _limits(d: _dt.dtype, np_type: np.dtype) -> tuple[Any, Any]:
    limits = _LIMITS.get(d)
    if limits is None:
        if d.is_floating_point:
            top = float(ml_dtypes.finfo(np_type).max)
            limits = (-top, top)
        else:
            info = np.iinfo(np_type)
            limits = (int(info.min), int(info.max))
        _LIMITS[d] = limits
    return limits


def _overflows(value: Any, d: _dt.dtype, np_type: np.dtype) -> bool:
    if d.is_complex:
        return False
    if isinstance(value, complex):
        if value.imag != 0:
            return True
        value = value.real
    low, high = _limits(d, np_type)
    if low <= value <= high:
        return False
    infinite_or_nan = value != value or value in (math.inf, -math.inf)
    return not (d.is_floating_point and infinite_or_nan)  # inf and nan fit floats only


# --- index.Tensor and index_put_ ----------------------------------------------------------------
#
# `indices` is a list with one entry per leading dimension of self: None keeps the whole
# dimension, an integer tensor picks positions, a bool (or deprecated uint8) mask covering k
# dimensions stands for the k index tensors of its nonzero(). The index tensors broadcast
# together; NumPy's fancy indexing already places the result dimensions as PyTorch does
# (where the indexed dimensions were if they are adjacent, else first).


def _check_index_count(self: Tensor, indices: Sequence[Any], meta: bool) -> None:
    if len(indices) > len(self._shape):
        error = RuntimeError if meta else IndexError
        raise error(f"too many indices for tensor of dimension {len(self._shape)} (got {len(indices)})")


def _check_mask_shape(self: Tensor, mask: Tensor, start: int) -> None:
    for j, size in enumerate(mask._shape):
        dim = _wrap_dim(start + j, len(self._shape))
        if size != self._shape[dim]:
            raise IndexError(
                f"The shape of the mask {dims(mask._shape)} at index {j} does not match the shape "
                f"of the indexed tensor {dims(self._shape)} at index {start + j}"
            )


def _expand_indices(self: Tensor, indices: Sequence[Tensor | None]) -> list[Any]:
    """One entry per indexed dimension: None, or an integer array (CPU) / shape (Meta).

    Masks become the index arrays of their nonzero(); on Meta that is PyTorch's error.
    """
    meta = self._data is None
    expanded: list[Any] = []
    for t in indices:
        if t is None:
            expanded.append(None)
            continue
        d = t._dtype
        if d is _dt.bool or d is _dt.uint8:
            if d is _dt.uint8:
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.")
            _check_mask_shape(self, t, len(expanded))
            if t._data is None:
                raise NotImplementedError(NONZERO_META_MESSAGE)
            expanded.extend(np.nonzero(t._data.astype(bool, copy=False)) if t._shape else [np.zeros(int(t._data), np.intp)])
        elif d is _dt.int64 or d is _dt.int32:
            expanded.append(t._shape if meta or t._data is None else index_array(t))
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


def _check_index_bounds(self_shape: tuple[int, ...], expanded: list[Any]) -> None:
    """IndexError for the first out-of-range index, in element order, then position order.

    PyTorch names the dimension by the index tensor's position among the non-None ones.
    """
    positioned = [(d, a) for d, a in enumerate(expanded) if a is not None]
    if any(self_shape[d] == 0 for d, _ in positioned):  # checked before any element
        raise IndexError("index is out of bounds for dimension with size 0")
    bad_masks = []
    for d, a in positioned:
        size = self_shape[d]
        bad_masks.append((a < -size) | (a >= size))
    if not any(m.any() for m in bad_masks):
        return
    bad = np.broadcast_arrays(*bad_masks)
    arrays = np.broadcast_arrays(*(a for _, a in positioned))
    first = int(np.argmax(np.logical_or.reduce([b.reshape(-1) for b in bad])))
    for j, (b, a) in enumerate(zip(bad, arrays)):
        if b.reshape(-1)[first]:
            size = self_shape[positioned[j][0]]
            raise IndexError(f"index {int(a.reshape(-1)[first])} is out of bounds for dimension {j} with size {size}")


def _index_result_shape(self_shape: tuple[int, ...], expanded: list[Any], broadcast: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of self[indices]: NumPy's (and PyTorch's) placement of the indexed dims."""
    positions = [d for d, a in enumerate(expanded) if a is not None]
    rest = list(self_shape)
    adjacent = positions[-1] - positions[0] + 1 == len(positions)
    before = positions[0] if adjacent else 0
    kept_before = [s for d, s in enumerate(rest[:before]) if d not in positions]
    kept_after = [s for d, s in enumerate(rest) if d >= before and d not in positions]
    return tuple(kept_before) + tuple(broadcast) + tuple(kept_after)


def _numpy_key(expanded: list[Any]) -> tuple:
    return tuple(slice(None) if a is None else a for a in expanded)


def _prepare_index(self: Tensor, indices: Sequence[Tensor | None]) -> tuple[list[Any], tuple[int, ...]]:
    """Checked, expanded indices and the shape of self[indices]."""
    meta = self._data is None
    _check_index_count(self, indices, meta)
    expanded = _expand_indices(self, indices)
    shapes = [a if isinstance(a, tuple) else a.shape for a in expanded if a is not None]
    if not shapes:
        raise RuntimeError("sym_strides() called on an undefined Tensor")
    broadcast = _broadcast_index_shapes(shapes, meta)
    while expanded[-1] is None:  # trailing whole-dim entries change nothing (even past the end)
        expanded.pop()
    for d in range(len(expanded)):
        _wrap_dim(d, len(self._shape))  # a mask reaching past self's dims fails as in PyTorch
    shape = _index_result_shape(self._shape, expanded, broadcast)
    if 0 in shape and 0 not in broadcast and any(self._shape[d] == 0 for d, a in enumerate(expanded) if a is not None):
        raise IndexError("index is out of bounds for dimension with size 0")  # even with nothing to read
    return expanded, shape


def index(self: Tensor, indices: Sequence[Tensor | None]) -> Tensor:
    if not indices:
        raise IndexError("at least one index must be provided")
    if self._data is not None and len(indices) == 1 and indices[0] is not None:
        fast = _index_fast_path(self, indices[0])
        if fast is not None:
            return fast
    expanded, shape = _prepare_index(self, indices)
    if self._data is None:
        return meta_tensor(shape, self._dtype)
    if 0 in shape:  # nothing is read, so no index value is checked (NumPy would check them)
        return from_array(np.empty(shape, self._data.dtype), self._dtype)
    try:  # NumPy checks bounds (the same range, negatives wrapping) before it reads
        result = self._data[_numpy_key(expanded)]
    except IndexError:
        _check_index_bounds(self._shape, expanded)  # PyTorch's message
        raise
    if not result.flags.c_contiguous:  # NumPy may hand back a transposed layout
        result = result.copy()
    return from_array(result, self._dtype)


def _index_fast_path(self: Tensor, i: Tensor) -> Tensor | None:
    """x[mask] with a full-shape bool mask, and x[idx] with in-range 1-D indices: one NumPy call."""
    if i._data is None:
        return None
    if i._dtype is _dt.bool and i._shape == self._shape and self._shape:
        return from_array(self._data[i._data], self._dtype)
    if (i._dtype is _dt.int64 or i._dtype is _dt.int32) and self._shape and len(i._shape) == 1:
        try:
            return from_array(self._data[i._data], self._dtype)
        except IndexError:
            return None  # the general path raises PyTorch's message
    return None


register("index", index)


def _check_values_shape(values: Tensor, shape: tuple[int, ...]) -> None:
    """Values broadcast to the indexing result without growing it (no extra leading dims)."""
    vshape = values._shape
    ok = len(vshape) <= len(shape) and all(v == 1 or v == s for v, s in zip(reversed(vshape), reversed(shape)))
    if not ok:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {dims(vshape)} cannot be broadcast to indexing "
            f"result of shape {dims(shape)}"
        )


def _index_put_impl_(self: Tensor, indices: Sequence[Tensor | None], values: Tensor,
                     accumulate: bool = False, unsafe: bool = False) -> Tensor:
    """The kernel behind index_put_: self[indices] = values (or += with accumulate)."""
    meta = self._data is None
    _check_index_count(self, indices, meta)
    if self._data is not None and any(st == 0 and s > 1 for s, st in zip(self._shape, self._data.strides)):
        warnings.warn(
            "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
            "performing this operation. This also applies to advanced indexing e.g. "
            "tensor[indices] = tensor"
        )
    check_no_overlap(self, values)
    if meta or values._data is None:
        return self  # PyTorch's Meta kernel checks no more than the index count
    if not accumulate and _masked_fill_shortcut(self, indices, values):
        return self
    expanded, shape = _prepare_index(self, indices)
    _check_values_shape(values, shape)
    if values._dtype is not self._dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got "
            f"{self._dtype._c10_name} for the destination and {values._dtype._c10_name} for the source."
        )
    if 0 in shape:
        return self
    key = _numpy_key(expanded)
    try:  # NumPy checks every index before it writes anything
        if accumulate:
            np.add.at(self._data, key, np.broadcast_to(values._data, shape))
        else:
            self._data[key] = values._data
    except IndexError:
        _check_index_bounds(self._shape, expanded)  # PyTorch's message
        raise
    return self


def _masked_fill_shortcut(self: Tensor, indices: Sequence[Tensor | None], values: Tensor) -> bool:
    """PyTorch's CPU index_put_ hands `x[mask] = one_value` to masked_fill_: the value is then
    a Scalar (no dtype check, an overflow check instead) and a uint8 mask is refused."""
    if values.numel() != 1:
        return False
    defined = [(pos, t) for pos, t in enumerate(indices) if t is not None]
    if len(defined) != 1:
        return False
    pos, mask = defined[0]
    if mask._dtype is not _dt.bool and mask._dtype is not _dt.uint8:
        return False
    if mask._shape != self._shape[pos:pos + len(mask._shape)] or mask._data is None:
        return False
    if mask._dtype is _dt.uint8:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    value = scalar_to(values.item(), self._dtype)
    self._data[(slice(None),) * pos + (mask._data,)] = value
    return True


def _index_put_impl(self: Tensor, indices: Sequence[Tensor | None], values: Tensor,
                    accumulate: bool = False, unsafe: bool = False) -> Tensor:
    return call_below_autograd("aten::_index_put_impl_", drop_trailing_false(
        (clone(self), indices, values, bool(accumulate), bool(unsafe))))


def index_put_(self: Tensor, indices: Sequence[Tensor | None], values: Tensor, accumulate: bool = False) -> Tensor:
    # CompositeExplicitAutograd in PyTorch: the safe front of _index_put_impl_.
    return call_below_autograd("aten::_index_put_impl_", drop_trailing_false((self, indices, values, bool(accumulate))))


def index_put(self: Tensor, indices: Sequence[Tensor | None], values: Tensor, accumulate: bool = False) -> Tensor:
    return call_below_autograd("aten::index_put_", drop_trailing_false((clone(self), indices, values, bool(accumulate))))


register("_index_put_impl_", _index_put_impl_)
register("_index_put_impl", _index_put_impl)
register("index_put_", index_put_)
register("index_put", index_put)


# --- gather / scatter -----------------------------------------------------------------------------
#
# Both pair each element of `index` with the element of self (or src) at the same
# coordinates, except along `dim`, where the index value is used. A 0-dim tensor counts
# as 1-dim here, as in PyTorch.


def _check_index_dtype(index: Tensor, op: str, meta: bool) -> None:
    if index._dtype is not _dt.int64 and index._dtype is not _dt.int32:
        suffix = f", but got {index._dtype}" if meta and op == "gather" else ""
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index{suffix}")


def _ndim1(t: Tensor) -> int:
    return max(len(t._shape), 1)


def _shape1(t: Tensor) -> tuple[int, ...]:
    return t._shape or (1,)


def _along_key(index: np.ndarray, dim: int) -> tuple:
    """The NumPy key that pairs each element of `index` with its target: coordinates of the
    element itself in every dim but `dim`, the index value there."""
    key = list(_coordinates(index.shape, dim))
    key[dim] = index
    return tuple(key)


@functools.lru_cache(maxsize=256)
def _coordinates(shape: tuple[int, ...], dim: int) -> tuple:
    """Broadcastable aranges for every dim of `shape` but `dim` (None there); read-only."""
    ndim = len(shape)
    grids: list[Any] = []
    for d, size in enumerate(shape):
        if d == dim:
            grids.append(None)
            continue
        grid = np.arange(size).reshape([size if i == d else 1 for i in range(ndim)])
        grid.flags.writeable = False
        grids.append(grid)
    return tuple(grids)


def _check_along_bounds(index: np.ndarray, dim: int, size: int) -> None:
    bad = first_out_of_bounds(index, size)
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _check_gather_shapes(self: Tensor, dim: int, index: Tensor, meta: bool) -> None:
    if _ndim1(index) != _ndim1(self):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if index.numel() == 0:
        return
    ishape, sshape = _shape1(index), _shape1(self)
    for d in range(len(ishape)):
        if d != dim and ishape[d] > sshape[d]:
            show = (lambda s: f"torch.Size({list(s)})") if meta else dims
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {show(index._shape)} to be no "
                f"larger than self {show(self._shape)} apart from dimension {dim}"
            )


def gather(self: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    meta = self._data is None
    dim = _wrap_dim(dim, len(self._shape))
    _check_index_dtype(index, "gather", meta)
    _check_gather_shapes(self, dim, index, meta)
    if meta or index._data is None:
        return meta_tensor(index._shape, self._dtype)
    idx = index_array(index).reshape(_shape1(index))
    _check_along_bounds(idx, dim, _shape1(self)[dim])
    if idx.size == 0:
        return from_array(np.empty(index._shape, self._data.dtype), self._dtype)
    data = self._data.reshape(_shape1(self))
    return from_array(np.asarray(data[_along_key(idx, dim)].reshape(index._shape), order="C"), self._dtype)


register("gather", gather)


def _check_scatter_shapes(self: Tensor, dim: int, index: Tensor, src: Tensor | None) -> None:
    if _ndim1(index) != _ndim1(self):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src is not None and _ndim1(src) != _ndim1(index):
        if _ndim1(src) < _ndim1(index):
            _wrap_dim(_ndim1(src), _ndim1(src))  # PyTorch reads src.size(d) first: IndexError
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if index.numel() == 0:
        return
    ishape, sshape = _shape1(index), _shape1(self)
    srcshape = _shape1(src) if src is not None else None
    too_big = any(d != dim and ishape[d] > sshape[d] for d in range(len(ishape)))
    if srcshape is not None:
        too_big = too_big or any(i > s for i, s in zip(ishape, srcshape))
    if too_big:
        message = (f"Expected index {dims(index._shape)} to be no larger than self {dims(self._shape)} "
                   f"apart from dimension {dim}")
        if src is not None:
            message += f" and to be no larger size than src {dims(src._shape)}"
        raise RuntimeError(message)


_SCATTER_REDUCE = {"add": np.add, "multiply": np.multiply}


def _scatter_reduce_op(reduce: str | None) -> Any:
    if reduce is None:
        return None
    if reduce not in _SCATTER_REDUCE:
        raise RuntimeError("reduce argument must be either add or multiply.")
    return _SCATTER_REDUCE[reduce]


def _scatter_into(out: Tensor, dim: int, index: Tensor, values: Any, ufunc: Any) -> None:
    """Write (or reduce) `values` into out's array at the positions `index` names along dim."""
    idx = index_array(index).reshape(_shape1(index))
    _check_along_bounds(idx, dim, _shape1(out)[dim])
    if idx.size == 0:
        return
    target = out._data.reshape(_shape1(out)) if not out._shape else out._data
    key = _along_key(idx, dim)
    if ufunc is None:
        target[key] = values
    else:
        ufunc.at(target, key, values)


def _src_values(src: Tensor, index: Tensor) -> np.ndarray:
    """The part of src that pairs with index (src may be larger in every dim)."""
    data = src._data.reshape(_shape1(src))
    return data[tuple(slice(0, s) for s in _shape1(index))]


def _scatter_src_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str | None) -> Tensor:
    dim = _wrap_dim(dim, len(self._shape))
    _check_index_dtype(index, "scatter", self._data is None)
    if src._dtype is not self._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _check_scatter_shapes(self, dim, index, src)
    ufunc = _scatter_reduce_op(reduce)
    if self._data is None or index._data is None or src._data is None:
        return self
    check_no_internal_overlap(self)
    check_no_overlap(self, src)
    _scatter_into(self, dim, index, _src_values(src, index), ufunc)
    return self


def _scatter_value_(self: Tensor, dim: int, index: Tensor, value: Any, reduce: str | None) -> Tensor:
    dim = _wrap_dim(dim, len(self._shape))
    _check_index_dtype(index, "scatter", self._data is None)
    _check_scatter_shapes(self, dim, index, None)
    ufunc = _scatter_reduce_op(reduce)
    if self._data is None or index._data is None:
        return self
    check_no_internal_overlap(self)
    _scatter_into(self, dim, index, scalar_to(value, self._dtype), ufunc)
    return self


def _warn_scatter_src_reduce() -> None:
    warnings.warn(
        "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
        "future PyTorch release. Use torch.scatter_reduce instead for more reduction options."
    )


def scatter_src_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return _scatter_src_(self, dim, index, src, None)


def scatter_value_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    return _scatter_value_(self, dim, index, value, None)


def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, *, reduce: str) -> Tensor:
    _warn_scatter_src_reduce()
    return _scatter_src_(self, dim, index, src, reduce)


def scatter_value_reduce_(self: Tensor, dim: int, index: Tensor, value: Any, *, reduce: str) -> Tensor:
    return _scatter_value_(self, dim, index, value, reduce)


def _functional(inplace: Callable) -> Callable:
    """The out-of-place form of an in-place kernel: run it on a copy of self."""

    def functional(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return inplace(contiguous_clone(self), *args, **kwargs)

    functional.__name__ = inplace.__name__.rstrip("_")
    functional.__wrapped__ = inplace  # type: ignore[attr-defined]
    return functional


def _register_inplace_family(name: str, inplace: Callable) -> None:
    """name_ (in place) and name (on a copy), for CPU and Meta (name_out: the YAML's policy makes it)."""
    functional = _functional(inplace)
    register(name + "_", inplace)
    register(name, functional)


_register_inplace_family("scatter_src", scatter_src_)
_register_inplace_family("scatter_value", scatter_value_)
_register_inplace_family("scatter_reduce", scatter_reduce_)
_register_inplace_family("scatter_value_reduce", scatter_value_reduce_)


def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return _scatter_src_(self, dim, index, src, "add")


_register_inplace_family("scatter_add", scatter_add_)


# --- scatter_reduce.two ---------------------------------------------------------------------------

# amax / amin propagate NaN in PyTorch, as np.maximum / np.minimum do
_TWO_REDUCTIONS = {"sum": np.add, "prod": np.multiply, "mean": np.add, "amax": np.maximum, "amin": np.minimum}


def _reduction_identity(reduce: str, np_dtype: np.dtype) -> Any:
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if np_dtype.kind == "f" or np_dtype.kind == "V" or np_dtype.name == "bfloat16":
        return -np.inf if reduce == "amax" else np.inf
    if np_dtype.kind == "b":
        return reduce == "amin"
    info = np.iinfo(np_dtype)
    return info.min if reduce == "amax" else info.max


def scatter_reduce_two_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                        include_self: bool = True) -> Tensor:
    dim = _wrap_dim(dim, len(self._shape))
    _check_index_dtype(index, "scatter", self._data is None)
    if src._dtype is not self._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _check_scatter_shapes(self, dim, index, src)
    if reduce == "max" or reduce == "min":
        reduce = "a" + reduce
    if reduce not in _TWO_REDUCTIONS:
        message = "reduce argument must be either sum, prod, mean, amax or amin"
        raise RuntimeError(message + "." if self._data is None else f"{message}, got {reduce}")
    if reduce == "mean" and self._dtype is _dt.bool:
        raise NotImplementedError('"scatter_gather_tensor_cpu_reduce_mean" not implemented for \'Bool\'')
    if self._data is None or index._data is None or src._data is None:
        return self
    check_no_internal_overlap(self)
    idx = index_array(index).reshape(_shape1(index))
    _check_along_bounds(idx, dim, _shape1(self)[dim])
    if idx.size:
        _scatter_reduce_arrays(self._data.reshape(_shape1(self)), _along_key(idx, dim),
                               _src_values(src, index), reduce, include_self)
    return self


def _scatter_reduce_arrays(target: np.ndarray, key: tuple, values: np.ndarray, reduce: str,
                           include_self: bool) -> None:
    if not include_self:
        target[key] = _reduction_identity(reduce, target.dtype)
    with np.errstate(invalid="ignore"):
        _TWO_REDUCTIONS[reduce].at(target, key, values)
    if reduce == "mean":
        counts = np.zeros(target.shape, np.int64)
        np.add.at(counts, key, 1)
        counts += 1 if include_self else 0
        touched = counts > 0
        if target.dtype.kind in "iu":
            target[touched] = target[touched].astype(np.int64) // counts[touched]  # floor, as PyTorch
        else:
            target[touched] = (target[touched].astype(np.float64) / counts[touched]).astype(target.dtype)


_register_inplace_family("scatter_reduce_two", scatter_reduce_two_)


# --- index_select / index_add -----------------------------------------------------------------------


def index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
    dim = _wrap_dim(dim, len(self._shape))
    meta = self._data is None or index._data is None
    if len(index._shape) > 1 and not meta:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index._dtype is not _dt.int64 and index._dtype is not _dt.int32:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    n = index.numel()
    shape = list(self._shape)
    if shape:
        shape[dim] = n
    elif n != 1 and not meta:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {n} value(s)")
    if meta:
        return meta_tensor(tuple(shape), self._dtype)
    idx = index_array(index).reshape(-1)
    size = _shape1(self)[dim]
    if self._shape and size == 0 and n:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    bad = first_out_of_bounds(idx, size)
    if bad is not None:
        if dim == 0:
            raise IndexError("index out of range in self")
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
    if not self._shape:
        return from_array(self._data.copy(), self._dtype)
    return from_array(np.take(self._data, idx, axis=dim), self._dtype)


register("index_select", index_select)


def _check_index_add(self: Tensor, dim: int, index: Tensor, source: Tensor) -> None:
    if len(index._shape) > 1:
        raise IndexError(
            f"index_add_(): Index is supposed to be a vector, but got dim: {len(index._shape)} with "
            f"type: {index._dtype._c10_name} and size: {dims(index._shape)}"
        )
    if index._dtype is not _dt.int64 and index._dtype is not _dt.int32:
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


def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    dim = _wrap_dim(dim, len(self._shape))
    if self._data is None or index._data is None or source._data is None:
        return self  # PyTorch's Meta kernel checks nothing here
    _check_index_add(self, dim, index, source)
    check_no_internal_overlap(self)
    check_no_overlap(self, source)
    idx = index_array(index).reshape(-1)
    _check_along_bounds(idx, dim, _shape1(self)[dim])
    values = source._data
    if alpha != 1:
        values = values * scalar_to(alpha, self._dtype)
    if not self._shape:
        if idx.size:
            self._data[...] += values.sum(dtype=values.dtype) if idx.size > 1 else values
        return self
    np.add.at(self._data, (slice(None),) * dim + (idx,), values)
    return self


_register_inplace_family("index_add", index_add_)


# --- nonzero / masked_select ---------------------------------------------------------------------


def nonzero(self: Tensor) -> Tensor:
    if self._data is None:
        raise NotImplementedError(NONZERO_META_MESSAGE)
    data = self._data
    if not self._shape:
        count = 1 if data.astype(bool) else 0
        return from_array(np.zeros((count, 0), np.int64), _dt.int64)
    coords = np.nonzero(data)
    # PyTorch's result is (n, ndim) laid out column by column: strides (1, n).
    stacked = np.stack(coords).astype(np.int64, copy=False) if coords else np.zeros((0, 0), np.int64)
    return from_array(stacked.T, _dt.int64)


def nonzero_out(self: Tensor, *, out: Tensor) -> Tensor:
    if out._dtype is not _dt.int64:
        raise RuntimeError(f"nonzero: Expected out tensor to have scalar type Long but got scalar type{out._dtype._c10_name}")
    return write_out(out, nonzero(self))


register("nonzero", nonzero)
register("nonzero_out", nonzero_out)


_UNSET: Any = object()


def nonzero_public(input: Tensor, *, out: Tensor | None = _UNSET, as_tuple: bool = _UNSET) -> Any:
    """torch.nonzero: as_tuple=True gives one 1-D tensor per dimension. PyTorch does this in
    its Python binding, over aten::nonzero and aten::unbind (a 0-dim input unsqueezed first)."""
    given = {k: v for k, v in (("out", out), ("as_tuple", as_tuple)) if v is not _UNSET}
    if needs_override((input,), given):
        return dispatch_from_binding(nonzero_public, (input,), given)
    return _nonzero(input, given.get("out"), given.get("as_tuple", False))


def _nonzero_method(self: Tensor, *, as_tuple: bool = _UNSET) -> Any:
    given = {} if as_tuple is _UNSET else {"as_tuple": as_tuple}
    if needs_override((self,), given):
        return dispatch_from_binding(Tensor.nonzero, (self,), given)
    return _nonzero(self, None, given.get("as_tuple", False))


def _nonzero(input: Tensor, out: Tensor | None, as_tuple: bool) -> Any:
    if not as_tuple:
        if out is None:
            return aten_op("aten::nonzero")(input)
        return aten_op("aten::nonzero.out")(input, out=out)
    if out is not None:
        raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
    if not input._shape:
        input = aten_op("aten::unsqueeze")(input, 0)
    return tuple(aten_op("aten::unbind.int")(aten_op("aten::nonzero")(input), 1))


nonzero_public.__name__ = nonzero_public.__qualname__ = "nonzero"
_nonzero_method.__name__ = _nonzero_method.__qualname__ = "nonzero"
declare("nonzero", _nonzero_method, checks=MODES, replaces_generated=True)  # (the generated one has no as_tuple)


def masked_select(self: Tensor, mask: Tensor) -> Tensor:
    if mask._dtype is not _dt.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(mask._shape, self._shape)
    data = np.broadcast_to(self._data, shape)
    return from_array(data[np.broadcast_to(mask._data, shape)], self._dtype)


register("masked_select", masked_select)


# --- masked_scatter ----------------------------------------------------------------------------------


def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    meta = self._data is None
    if source._dtype is not self._dtype:
        shown = (str(self._dtype), str(source._dtype)) if meta else (self._dtype._c10_name, source._dtype._c10_name)
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got{' ' if meta else ''}"
                           f"{shown[0]} and {shown[1]}")
    if meta:
        if mask._dtype is not _dt.bool and mask._dtype is not _dt.uint8:
            raise RuntimeError("Mask must be bool or uint8")
        return self
    if mask._dtype is _dt.uint8:
        warnings.warn("masked_scatter_ received a mask with dtype torch.uint8, this behavior is now deprecated,"
                      "please use a mask with dtype torch.bool instead.")
    if mask._dtype is not _dt.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask._dtype._c10_name}")
    if len(mask._shape) > len(self._shape):
        raise RuntimeError(
            f"expand(CPUBoolType{{{dims(mask._shape)}}}, size={dims(self._shape)}): the number of sizes provided "
            f"({len(self._shape)}) must be greater or equal to the number of dimensions in the tensor ({len(mask._shape)})")
    broadcast_shapes(mask._shape, self._shape)  # PyTorch's message when they do not fit
    check_no_internal_overlap(self)
    where = np.broadcast_to(mask._data, self._shape)
    count = int(np.count_nonzero(where))
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if count:
        self._data[where] = source._data.reshape(-1)[:count]
    return self


def masked_scatter(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    # CompositeExplicitAutograd in PyTorch: self and mask broadcast, then masked_scatter_ on a copy.
    shape = broadcast_shapes(mask._shape, self._shape)
    if self._data is None:
        base = meta_tensor(shape, self._dtype)
    else:
        base = from_array(np.array(np.broadcast_to(self._data, shape), order="C"), self._dtype)
    return call_below_autograd("aten::masked_scatter_", (base, mask, source))


register("masked_scatter_", masked_scatter_)
register("masked_scatter", masked_scatter)


# --- index_fill / index_copy -------------------------------------------------------------------------


def _index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    dim = _wrap_dim(dim, len(self._shape))
    if self._data is None or index._data is None:
        return self
    if index._dtype is not _dt.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if len(index._shape) > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if isinstance(value, complex) and not self._dtype.is_complex:
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    fill = scalar_to(value, self._dtype)
    check_no_internal_overlap(self)
    idx = index_array(index).reshape(-1)
    size = _shape1(self)[dim]
    bad = first_out_of_bounds(idx, size, -size)
    if bad is not None:
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    if not self._shape:
        if idx.size:
            self._data[...] = fill
        return self
    self._data[(slice(None),) * dim + (idx,)] = fill
    return self


def index_fill_int_scalar_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    return _index_fill_(self, dim, index, value)


def index_fill_int_tensor_(self: Tensor, dim: int, index: Tensor, value: Tensor) -> Tensor:
    if value._shape:
        raise RuntimeError(
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{len(value._shape)} dimension(s).")
    if value._device != self._device:
        raise RuntimeError(
            "index_copy(): self, index and source expected to be in the same device, but got (self) "
            f"{self._device}, (index) {index._device}, and (source) {value._device}")
    return _index_fill_(self, dim, index, value.item() if value._data is not None else 0)


def _functional_below_autograd(inplace_name: str) -> Callable:
    """A CompositeExplicitAutograd out-of-place op: the in-place op on a copy of self."""

    def functional(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return call_below_autograd(inplace_name, (clone(self),) + args, kwargs)

    functional.__name__ = inplace_name.split("::")[1].split(".")[0].rstrip("_")
    return functional


for _overload, _kernel in (("int_Scalar", index_fill_int_scalar_), ("int_Tensor", index_fill_int_tensor_)):
    _functional_fill = _functional_below_autograd(f"aten::index_fill_.{_overload}")
    register(f"index_fill_{_overload}_", _kernel)
    register(f"index_fill_{_overload}", _functional_fill)


def _check_index_copy(self: Tensor, dim: int, index: Tensor, source: Tensor) -> None:
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


def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    dim = _wrap_dim(dim, len(self._shape))
    if self._data is None or index._data is None or source._data is None:
        n, src_size = index.numel(), (source._shape[dim] if source._shape else 1)
        if n != src_size:
            raise RuntimeError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) ({src_size})")
        return self
    _check_index_copy(self, dim, index, source)
    check_no_internal_overlap(self)
    check_no_overlap(self, source)
    idx = index_array(index).reshape(-1)
    size = _shape1(self)[dim]
    bad = first_out_of_bounds(idx, size)
    if bad is not None:
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {dim} with size {size}")
    if not self._shape:
        if idx.size:
            self._data[...] = source._data.reshape(-1)[-1]
        return self
    values = source._data if source._shape else source._data.reshape((1,) * len(self._shape))
    self._data[(slice(None),) * dim + (idx,)] = values
    return self


_register_inplace_family("index_copy", index_copy_)


# --- take / put_ / take_along_dim -----------------------------------------------------------------------


def _flat_positions(self: Tensor, index: Tensor, op: str, empty_message: str) -> np.ndarray:
    """Index values as positions into self's elements in row-major order (negative from the end)."""
    if index._dtype is not _dt.int64:
        raise RuntimeError(f"{op}(): Expected a long tensor for index, but got {index._dtype._c10_name}")
    n = self.numel()
    idx = index_array(index).reshape(-1)
    if idx.size and n == 0:
        raise IndexError(empty_message)
    bad = first_out_of_bounds(idx, n, -n)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return idx


def take(self: Tensor, index: Tensor) -> Tensor:
    if self._data is None or index._data is None:
        if index._dtype is not _dt.int64:
            raise RuntimeError(f"take(): Expected a long tensor for index, but got {index._dtype}")
        return meta_tensor(index._shape, self._dtype)
    idx = _flat_positions(self, index, "take", "take(): tried to take from an empty tensor")
    flat = self._data.reshape(-1)
    return from_array(flat[idx].reshape(index._shape), self._dtype)


register("take", take)


def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    if self._data is None or index._data is None or source._data is None:
        return self
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
    idx = _flat_positions(self, index, "put_", "put_(): Tried to put elements into an empty tensor")
    check_no_internal_overlap(self)
    # A non-contiguous self has no flat view: update a row-major copy and write it back.
    flat = self._data.reshape(-1) if self._data.flags.c_contiguous else self._data.ravel()
    values = source._data.reshape(-1)
    if accumulate:
        np.add.at(flat, idx, values)
    else:
        flat[idx] = values
    if not self._data.flags.c_contiguous:
        self._data[...] = flat.reshape(self._shape)
    return self


register("put_", put_)
_put = _functional_below_autograd("aten::put_")
register("put", _put)


def _along_dim_operands(self: Tensor, indices: Tensor, dim: int | None) -> tuple[Tensor, int, Tensor]:
    """take_along_dim's gather operands, made as PyTorch's decomposition makes them: both
    broadcast except along dim and negative indices wrapped (or both flattened for dim=None)."""
    if indices._dtype is not _dt.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {indices._dtype._c10_name}")
    if dim is None:
        return aten_op("aten::view")(self, [-1]), 0, aten_op("aten::view")(indices, [-1])
    if len(self._shape) != len(indices._shape):
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of dimensions, but got "
            f"{len(self._shape)} dimensions for input, and {len(indices._shape)} dimensions for indices")
    dim = _wrap_dim(dim, len(self._shape))
    def but_dim(shape: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(1 if d == dim else s for d, s in enumerate(shape))

    common = broadcast_shapes(but_dim(self._shape), but_dim(indices._shape))
    indices = aten_op("aten::expand")(indices, [indices._shape[d] if d == dim else s for d, s in enumerate(common)])
    expanded = aten_op("aten::expand")(self, [self._shape[d] if d == dim else s for d, s in enumerate(common)])
    wrapped = aten_op("aten::remainder.Scalar")(indices, self._shape[dim] if self._shape else 1)
    return expanded, dim, wrapped


def take_along_dim(self: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    # CompositeImplicitAutograd in PyTorch: a gather.
    return aten_op("aten::gather")(*_along_dim_operands(self, indices, dim))


def take_along_dim_out(self: Tensor, indices: Tensor, dim: int | None = None, *, out: Tensor) -> Tensor:
    return aten_op("aten::gather.out")(*_along_dim_operands(self, indices, dim), out=out)


register("take_along_dim", take_along_dim)
register("take_along_dim_out", take_along_dim_out)


# --- fast method bindings -----------------------------------------------------------------------------
#
# x.gather(1, idx) and x.index_select(0, idx) in their plain positional form go straight to the
# op's dispatch (the same aten call the generated binding makes, already normalized); every other
# form, and any call a TorchFunctionMode must see, goes through the generated binding.

_GENERATED_METHODS: dict[str, Callable] = {}


def generated_method(name: str) -> Callable:
    """The binding the op table generates for Tensor.<name> (which a fast method stands in front of)."""
    method = _GENERATED_METHODS.get(name)
    if method is None:
        method = _GENERATED_METHODS[name] = make_method(METHODS[name])
    return method


def _dim_index_method(name: str, op_name: str) -> Callable:
    """x.<name>(dim, index) with a plain int dim and a Tensor index."""

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        if not kwargs and len(args) == 2 and type(args[0]) is int and type(args[1]) is Tensor \
                and not (_function_modes and mode_on()):
            index = args[1]
            return fast_call(fast_aten(op_name), self._keyset | index._keyset, self, args[0], index)
        return generated_method(name)(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


# (under a mode they defer to the generated binding, which the mode sees)
declare("gather", _dim_index_method("gather", "gather"), checks=MODES, replaces_generated=True)
declare("index_select", _dim_index_method("index_select", "index_select"), checks=MODES, replaces_generated=True)
