"""Advanced indexing, gather / scatter, index_select / index_add, nonzero, masked_select.

Each op is array code taking the array module `xp` (fancy indexing and `ufunc.at`)
behind a thin CPU adapter that makes the checks PyTorch's CPU kernels make (same
exception types and messages, in the same order; those that need only metadata, and
the result shapes, come from meta/indexing.py), hands the tensors' arrays to the array
code and wraps the result. In-place ops write into the tensor's own array, so views of
it see the change. The Meta kernels are meta/indexing.py's rules, registered here beside
the CPU ones (`<name>_meta`), with their functional and out= forms.
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
from ..._tensor.members import MODES, declare
from ..._tensor.tensor import Tensor, _wrap_dim, from_array
from ..meta import indexing as rules
from ..._tensor.torch_function import dispatch_from_binding, needs_override
from ..registry import register
from .elementwise import broadcast_shapes
from .variants import write_out


Array = Any


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


def cpu_clone(t: Tensor) -> Tensor:
    """A fresh copy in self's layout (what the functional form of an in-place op starts from)."""
    return from_array(np.array(t._data, copy=True, order="K"), t._dtype)  # preserve_format


def contiguous_clone(t: Tensor) -> Tensor:
    """A fresh contiguous copy (scatter's structured kernels allocate their result so)."""
    return from_array(np.array(t._data, copy=True, order="C"), t._dtype)


def generic_clone(t: Tensor) -> Tensor:
    """A copy in t's layout by the clone op (for CompositeExplicitAutograd kernels that serve
    every device, Meta included)."""
    return call_below_autograd("aten::clone", (t,))


def check_no_overlap(written: Tensor, read: Tensor) -> None:
    if np.may_share_memory(written._data, read._data):
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to tensor "
            "refer to a single memory location. Please clone() the tensor before performing the "
            "operation."
        )


def index_array(t: Tensor) -> Array:
    """An integer index tensor's values as an intp array (what NumPy indexes with fastest)."""
    return as_intp(np, t._data)


# --- array code: index arrays ------------------------------------------------------------------------


def as_intp(xp: Any, data: Array) -> Array:
    return data if data.dtype == xp.intp else data.astype(xp.intp)


def first_out_of_bounds(xp: Any, idx: Array, size: int, low: int = 0) -> int | None:
    """The first index (C order) outside [low, size), or None. `low` is 0 for ops that refuse
    negative indices, -size for those that count them from the end."""
    if idx.size <= 256:  # Python's min / max beat the array reductions on small arrays
        values = idx.ravel().tolist()
        if not values or (min(values) >= low and max(values) < size):
            return None
        return next(v for v in values if v < low or v >= size)
    if idx.min() >= low and idx.max() < size:
        return None
    flat = idx.reshape(-1)
    return int(flat[int(xp.argmax((flat < low) | (flat >= size)))])


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
# meta/indexing.py's prepare_index checks the indices and computes the result's shape; here the
# integer indices are intp arrays and a mask stands for the index arrays of its nonzero().
# NumPy's fancy indexing places the result dimensions as PyTorch does.


def _mask_entries(mask: Tensor) -> list[Array]:
    data = mask._data
    return list(np.nonzero(data.astype(bool, copy=False))) if mask._shape else [np.zeros(int(data), np.intp)]


def _prepare_index(self: Tensor, indices: Sequence[Tensor | None]) -> tuple[list[Any], tuple[int, ...]]:
    return rules.prepare_index(self._shape, indices, False, _mask_entries, index_array)


def check_index_bounds(xp: Any, self_shape: tuple[int, ...], expanded: list[Any]) -> None:
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
    bad = xp.broadcast_arrays(*bad_masks)
    arrays = xp.broadcast_arrays(*(a for _, a in positioned))
    first = int(xp.argmax(xp.logical_or.reduce([b.reshape(-1) for b in bad])))
    for j, (b, a) in enumerate(zip(bad, arrays)):
        if b.reshape(-1)[first]:
            size = self_shape[positioned[j][0]]
            raise IndexError(f"index {int(a.reshape(-1)[first])} is out of bounds for dimension {j} with size {size}")


def _array_key(expanded: list[Any]) -> tuple:
    return tuple(slice(None) if a is None else a for a in expanded)


def index_values(xp: Any, data: Array, expanded: list[Any], shape: tuple[int, ...]) -> Array:
    """data[indices] (expanded, `shape` the result's), contiguous, with PyTorch's bounds message."""
    if 0 in shape:  # nothing is read, so no index value is checked (NumPy would check them)
        return xp.empty(shape, data.dtype)
    try:  # NumPy checks bounds (the same range, negatives wrapping) before it reads
        result = data[_array_key(expanded)]
    except IndexError:
        check_index_bounds(xp, data.shape, expanded)  # PyTorch's message
        raise
    if not result.flags.c_contiguous:  # NumPy may hand back a transposed layout
        result = result.copy()
    return result


def index_put_values(xp: Any, target: Array, expanded: list[Any], values: Array, shape: tuple[int, ...],
                     accumulate: bool) -> None:
    """target[indices] = values (+= with accumulate); `shape` is the indexing result's."""
    key = _array_key(expanded)
    try:  # NumPy checks every index before it writes anything
        if accumulate:
            xp.add.at(target, key, xp.broadcast_to(values, shape))
        else:
            target[key] = values
    except IndexError:
        check_index_bounds(xp, target.shape, expanded)  # PyTorch's message
        raise


def index(self: Tensor, indices: Sequence[Tensor | None]) -> Tensor:
    rules.check_index_given(indices)
    if len(indices) == 1 and indices[0] is not None:
        fast = _index_fast_path(self, indices[0])
        if fast is not None:
            return fast
    expanded, shape = _prepare_index(self, indices)
    return from_array(index_values(np, self._data, expanded, shape), self._dtype)


def _index_fast_path(self: Tensor, i: Tensor) -> Tensor | None:
    """x[mask] with a full-shape bool mask, and x[idx] with in-range 1-D indices: one NumPy call."""
    if i._dtype is _dt.bool and i._shape == self._shape and self._shape:
        return from_array(self._data[i._data], self._dtype)
    if (i._dtype is _dt.int64 or i._dtype is _dt.int32) and self._shape and len(i._shape) == 1:
        try:
            return from_array(self._data[i._data], self._dtype)
        except IndexError:
            return None  # the general path raises PyTorch's message
    return None


# CPU kernels under the op's name, Meta kernels (meta/indexing.py's rules) as <name>_meta
register("index", index)
register("index_meta", rules.index)
# index.Tensor_out's kernels (CPU and Meta): made from these by the YAML's policy, as every
# out= and in-place kernel below that no module registers (out_policy.py)


def _index_put_impl_(self: Tensor, indices: Sequence[Tensor | None], values: Tensor,
                     accumulate: bool = False, unsafe: bool = False) -> Tensor:
    """The kernel behind index_put_: self[indices] = values (or += with accumulate)."""
    rules.check_index_count(self._shape, len(indices), False)
    if rules.has_internal_overlap(self):
        warnings.warn(
            "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
            "performing this operation. This also applies to advanced indexing e.g. "
            "tensor[indices] = tensor"
        )
    check_no_overlap(self, values)
    if not accumulate and _masked_fill_shortcut(self, indices, values):
        return self
    expanded, shape = _prepare_index(self, indices)
    rules.check_values_shape(values, shape)
    rules.check_index_put_dtypes(self, values)
    if 0 not in shape:
        index_put_values(np, self._data, expanded, values._data, shape, accumulate)
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
    if mask._shape != self._shape[pos:pos + len(mask._shape)]:
        return False
    if mask._dtype is _dt.uint8:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    value = scalar_to(values.item(), self._dtype)
    self._data[(slice(None),) * pos + (mask._data,)] = value
    return True


def _index_put_impl(self: Tensor, indices: Sequence[Tensor | None], values: Tensor,
                    accumulate: bool = False, unsafe: bool = False) -> Tensor:
    # CompositeExplicitAutograd only (the same kernel on Meta): a device-generic copy
    return call_below_autograd("aten::_index_put_impl_", drop_trailing_false(
        (generic_clone(self), indices, values, bool(accumulate), bool(unsafe))))


def index_put_(self: Tensor, indices: Sequence[Tensor | None], values: Tensor, accumulate: bool = False) -> Tensor:
    # CompositeExplicitAutograd in PyTorch: the safe front of _index_put_impl_.
    return call_below_autograd("aten::_index_put_impl_", drop_trailing_false((self, indices, values, bool(accumulate))))


def _index_put_on(clone: Callable[[Tensor], Tensor]) -> Callable:
    """index_put: index_put_ on the copy `clone` makes (the CPU one, the Meta one, or either)."""

    def index_put(self: Tensor, indices: Sequence[Tensor | None], values: Tensor, accumulate: bool = False) -> Tensor:
        return call_below_autograd("aten::index_put_", drop_trailing_false((clone(self), indices, values, bool(accumulate))))

    return index_put


register("_index_put_impl_", _index_put_impl_)
register("_index_put_impl__meta", rules._index_put_impl_)
register("_index_put_impl", _index_put_impl)
register("index_put_", index_put_)  # CompositeExplicitAutograd without a copy: the same on every device
register("index_put", _index_put_on(cpu_clone))
register("index_put_meta", _index_put_on(rules.clone))
# index_put.out (CompositeExplicitAutograd only, every device): made from the device-generic copy
register("index_put_generic", _index_put_on(generic_clone))


# --- gather / scatter -----------------------------------------------------------------------------
#
# Both pair each element of `index` with the element of self (or src) at the same
# coordinates, except along `dim`, where the index value is used. A 0-dim tensor counts
# as 1-dim here, as in PyTorch (meta/indexing.py's shape1).


def along_key(xp: Any, index: Array, dim: int) -> tuple:
    """The key that pairs each element of `index` with its target: coordinates of the element
    itself in every dim but `dim`, the index value there."""
    key = list(_coordinates(xp, index.shape, dim))
    key[dim] = index
    return tuple(key)


@functools.lru_cache(maxsize=256)
def _coordinates(xp: Any, shape: tuple[int, ...], dim: int) -> tuple:
    """Broadcastable aranges for every dim of `shape` but `dim` (None there); read-only."""
    ndim = len(shape)
    grids: list[Any] = []
    for d, size in enumerate(shape):
        if d == dim:
            grids.append(None)
            continue
        grid = xp.arange(size).reshape([size if i == d else 1 for i in range(ndim)])
        grid.flags.writeable = False
        grids.append(grid)
    return tuple(grids)


def check_along_bounds(xp: Any, index: Array, dim: int, size: int) -> None:
    bad = first_out_of_bounds(xp, index, size)
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def gather_values(xp: Any, data: Array, dim: int, idx: Array, shape: tuple[int, ...]) -> Array:
    """gather of `data` (>= 1-dim) by `idx` (as many dims) along dim, reshaped to `shape`."""
    check_along_bounds(xp, idx, dim, data.shape[dim])
    if idx.size == 0:
        return xp.empty(shape, data.dtype)
    return xp.asarray(data[along_key(xp, idx, dim)].reshape(shape), order="C")


def scatter_values(xp: Any, target: Array, dim: int, idx: Array, values: Any, ufunc: Any) -> None:
    """Write (or reduce with `ufunc`) `values` into `target` (>= 1-dim, a view of self's array)
    at the positions `idx` (as many dims) names along dim."""
    check_along_bounds(xp, idx, dim, target.shape[dim])
    if idx.size == 0:
        return
    key = along_key(xp, idx, dim)
    if ufunc is None:
        target[key] = values
    else:
        ufunc.at(target, key, values)


def gather(self: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    dim = rules.check_gather(self, dim, index, False)
    data = self._data.reshape(rules.shape1(self))
    idx = index_array(index).reshape(rules.shape1(index))
    return from_array(gather_values(np, data, dim, idx, index._shape), self._dtype)


register("gather", gather)
register("gather_meta", rules.gather)


def _scatter_target(self: Tensor) -> Array:
    """self's array as >= 1-dim (a view: writes land in self)."""
    return self._data.reshape(rules.shape1(self)) if not self._shape else self._data


def _src_values(src: Tensor, index: Tensor) -> Array:
    """The part of src that pairs with index (src may be larger in every dim)."""
    data = src._data.reshape(rules.shape1(src))
    return data[tuple(slice(0, s) for s in rules.shape1(index))]


_SCATTER_REDUCE = {None: None, "add": np.add, "multiply": np.multiply}


def _scatter_src_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str | None) -> Tensor:
    dim = rules.check_scatter(self, dim, index, src, reduce)
    rules.check_no_internal_overlap(self)
    check_no_overlap(self, src)
    idx = index_array(index).reshape(rules.shape1(index))
    scatter_values(np, _scatter_target(self), dim, idx, _src_values(src, index), _SCATTER_REDUCE[reduce])
    return self


def _scatter_value_(self: Tensor, dim: int, index: Tensor, value: Any, reduce: str | None) -> Tensor:
    dim = rules.check_scatter(self, dim, index, None, reduce)
    rules.check_no_internal_overlap(self)
    idx = index_array(index).reshape(rules.shape1(index))
    scatter_values(np, _scatter_target(self), dim, idx, scalar_to(value, self._dtype), _SCATTER_REDUCE[reduce])
    return self


def scatter_src_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return _scatter_src_(self, dim, index, src, None)


def scatter_value_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    return _scatter_value_(self, dim, index, value, None)


def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, *, reduce: str) -> Tensor:
    rules.warn_scatter_src_reduce()
    return _scatter_src_(self, dim, index, src, reduce)


def scatter_value_reduce_(self: Tensor, dim: int, index: Tensor, value: Any, *, reduce: str) -> Tensor:
    return _scatter_value_(self, dim, index, value, reduce)


def _functional(inplace: Callable, clone: Callable[[Tensor], Tensor]) -> Callable:
    """The out-of-place form of an in-place kernel: run it on the copy `clone` makes."""

    def functional(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return inplace(clone(self), *args, **kwargs)

    functional.__name__ = inplace.__name__.rstrip("_")
    functional.__wrapped__ = inplace  # type: ignore[attr-defined]
    return functional


def _register_inplace_family(name: str, inplace: Callable, meta_inplace: Callable) -> None:
    """name_ (in place) and name (on a copy): the CPU kernels, and the Meta kernels (name__meta,
    name_meta) from the meta rule (name_out / name_out_meta: the YAML's policy makes them)."""
    for suffix, kernel, clone in (("", inplace, contiguous_clone), ("_meta", meta_inplace, rules.contiguous_clone)):
        functional = _functional(kernel, clone)
        register(name + "_" + suffix, kernel)
        register(name + suffix, functional)


_register_inplace_family("scatter_src", scatter_src_, rules.scatter_src_)
_register_inplace_family("scatter_value", scatter_value_, rules.scatter_value_)
_register_inplace_family("scatter_reduce", scatter_reduce_, rules.scatter_reduce_)
_register_inplace_family("scatter_value_reduce", scatter_value_reduce_, rules.scatter_value_reduce_)


def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return _scatter_src_(self, dim, index, src, "add")


_register_inplace_family("scatter_add", scatter_add_, rules.scatter_add_)


# --- scatter_reduce.two ---------------------------------------------------------------------------


def _reduction_identity(reduce: str, np_dtype: Any) -> Any:
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


def scatter_reduce_values(xp: Any, target: Array, dim: int, idx: Array, values: Array, reduce: str,
                          include_self: bool) -> None:
    """scatter_reduce.two into `target` (>= 1-dim, a view of self's array)."""
    check_along_bounds(xp, idx, dim, target.shape[dim])
    if not idx.size:
        return
    key = along_key(xp, idx, dim)
    if not include_self:
        target[key] = _reduction_identity(reduce, target.dtype)
    # amax / amin propagate NaN in PyTorch, as maximum / minimum do
    ufunc = {"sum": xp.add, "prod": xp.multiply, "mean": xp.add, "amax": xp.maximum, "amin": xp.minimum}[reduce]
    with np.errstate(invalid="ignore"):
        ufunc.at(target, key, values)
    if reduce == "mean":
        counts = xp.zeros(target.shape, xp.int64)
        xp.add.at(counts, key, 1)
        counts += 1 if include_self else 0
        touched = counts > 0
        if target.dtype.kind in "iu":
            target[touched] = target[touched].astype(xp.int64) // counts[touched]  # floor, as PyTorch
        else:
            target[touched] = (target[touched].astype(xp.float64) / counts[touched]).astype(target.dtype)


def scatter_reduce_two_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                        include_self: bool = True) -> Tensor:
    dim, reduce = rules.check_scatter_reduce_two(self, dim, index, src, reduce, False)
    rules.check_no_internal_overlap(self)
    idx = index_array(index).reshape(rules.shape1(index))
    scatter_reduce_values(np, self._data.reshape(rules.shape1(self)), dim, idx, _src_values(src, index),
                          reduce, include_self)
    return self


_register_inplace_family("scatter_reduce_two", scatter_reduce_two_, rules.scatter_reduce_two_)


# --- index_select / index_add -----------------------------------------------------------------------


def index_select_values(xp: Any, data: Array, dim: int, idx: Array) -> Array:
    """data's slices along dim at idx (1-D), with PyTorch's CPU errors; a 0-dim data is copied."""
    size = data.shape[dim] if data.ndim else 1
    if data.ndim and size == 0 and idx.size:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    bad = first_out_of_bounds(xp, idx, size)
    if bad is not None:
        if dim == 0:
            raise IndexError("index out of range in self")
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
    if not data.ndim:
        return data.copy()
    return xp.take(data, idx, axis=dim)


def index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
    dim = rules.index_select_shape(self, dim, index, False)[0]
    return from_array(index_select_values(np, self._data, dim, index_array(index).reshape(-1)), self._dtype)


register("index_select", index_select)
register("index_select_meta", rules.index_select)


def index_add_values(xp: Any, target: Array, dim: int, idx: Array, values: Array) -> None:
    """target's slices along dim at idx (1-D, in bounds) += values (repeated indices add up)."""
    if not target.ndim:
        if idx.size:
            target[...] += values.sum(dtype=values.dtype) if idx.size > 1 else values
        return
    xp.add.at(target, (slice(None),) * dim + (idx,), values)


def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    dim = _wrap_dim(dim, len(self._shape))
    rules.check_index_add(self, dim, index, source)
    rules.check_no_internal_overlap(self)
    check_no_overlap(self, source)
    idx = index_array(index).reshape(-1)
    check_along_bounds(np, idx, dim, rules.shape1(self)[dim])
    values = source._data
    if alpha != 1:
        values = values * scalar_to(alpha, self._dtype)
    index_add_values(np, self._data, dim, idx, values)
    return self


_register_inplace_family("index_add", index_add_, rules.index_add_)


# --- nonzero / masked_select ---------------------------------------------------------------------


def nonzero_values(xp: Any, data: Array) -> Array:
    """The (n, ndim) int64 coordinates of data's nonzero elements, laid out column by column
    (strides (1, n)) as PyTorch's result is."""
    if not data.ndim:
        return xp.zeros((1 if data.astype(bool) else 0, 0), xp.int64)
    coords = xp.nonzero(data)
    stacked = xp.stack(coords).astype(xp.int64, copy=False) if coords else xp.zeros((0, 0), xp.int64)
    return stacked.T


def nonzero(self: Tensor) -> Tensor:
    return from_array(nonzero_values(np, self._data), _dt.int64)


def _nonzero_out(functional: Callable) -> Callable:
    def nonzero_out(self: Tensor, *, out: Tensor) -> Tensor:
        if out._dtype is not _dt.int64:
            raise RuntimeError(f"nonzero: Expected out tensor to have scalar type Long but got scalar type{out._dtype._c10_name}")
        return write_out(out, functional(self))

    nonzero_out.__wrapped__ = functional  # type: ignore[attr-defined]
    return nonzero_out


register("nonzero", nonzero)
register("nonzero_meta", rules.nonzero)
register("nonzero_out", _nonzero_out(nonzero))
register("nonzero_out_meta", _nonzero_out(rules.nonzero))



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


def masked_scatter_values(xp: Any, target: Array, mask: Array, source: Array) -> None:
    """target's elements where the (broadcast) mask holds take source's first ones, in order."""
    where = xp.broadcast_to(mask, target.shape)
    count = int(xp.count_nonzero(where))
    if count > source.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if count:
        target[where] = source.reshape(-1)[:count]


def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    rules.check_masked_scatter_dtypes(self, source, False)
    if mask._dtype is _dt.uint8:
        warnings.warn("masked_scatter_ received a mask with dtype torch.uint8, this behavior is now deprecated,"
                      "please use a mask with dtype torch.bool instead.")
    if mask._dtype is not _dt.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {mask._dtype._c10_name}")
    if len(mask._shape) > len(self._shape):
        raise RuntimeError(
            f"expand(CPUBoolType{{{rules.dims(mask._shape)}}}, size={rules.dims(self._shape)}): the number of sizes "
            f"provided ({len(self._shape)}) must be greater or equal to the number of dimensions in the tensor "
            f"({len(mask._shape)})")
    broadcast_shapes(mask._shape, self._shape)  # PyTorch's message when they do not fit
    rules.check_no_internal_overlap(self)
    masked_scatter_values(np, self._data, mask._data, source._data)
    return self


def _masked_scatter_on(broadcast_copy: Callable[[Tensor, tuple[int, ...]], Tensor]) -> Callable:
    """masked_scatter: masked_scatter_ on self broadcast with mask, copied by `broadcast_copy`."""

    def masked_scatter(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
        # CompositeExplicitAutograd in PyTorch: self and mask broadcast, then masked_scatter_ on a copy.
        base = broadcast_copy(self, broadcast_shapes(mask._shape, self._shape))
        return call_below_autograd("aten::masked_scatter_", (base, mask, source))

    return masked_scatter


def _cpu_broadcast_copy(self: Tensor, shape: tuple[int, ...]) -> Tensor:
    return from_array(np.array(np.broadcast_to(self._data, shape), order="C"), self._dtype)


register("masked_scatter_", masked_scatter_)
register("masked_scatter__meta", rules.masked_scatter_)
for _suffix, _copy in (("", _cpu_broadcast_copy), ("_meta", rules.broadcast_copy)):
    register("masked_scatter" + _suffix, _masked_scatter_on(_copy))


# --- index_fill / index_copy -------------------------------------------------------------------------


def index_fill_values(xp: Any, target: Array, dim: int, idx: Array, fill: Any) -> None:
    """target's slices along dim at idx (1-D, negatives from the end) = fill, with PyTorch's
    bounds message."""
    size = target.shape[dim] if target.ndim else 1
    bad = first_out_of_bounds(xp, idx, size, -size)
    if bad is not None:
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    if not target.ndim:
        if idx.size:
            target[...] = fill
        return
    target[(slice(None),) * dim + (idx,)] = fill


def _index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    dim = _wrap_dim(dim, len(self._shape))
    rules.check_index_fill(self, index, value)
    fill = scalar_to(value, self._dtype)
    rules.check_no_internal_overlap(self)
    index_fill_values(np, self._data, dim, index_array(index).reshape(-1), fill)
    return self


def index_fill_int_scalar_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    return _index_fill_(self, dim, index, value)


def index_fill_int_tensor_(self: Tensor, dim: int, index: Tensor, value: Tensor) -> Tensor:
    rules.check_fill_value(self, index, value)
    return _index_fill_(self, dim, index, value.item())


def _functional_below_autograd(inplace_name: str, clone: Callable[[Tensor], Tensor]) -> Callable:
    """A CompositeExplicitAutograd out-of-place op: the in-place op on the copy `clone` makes."""

    def functional(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return call_below_autograd(inplace_name, (clone(self),) + args, kwargs)

    functional.__name__ = inplace_name.split("::")[1].split(".")[0].rstrip("_")
    return functional


for _overload, _kernel, _meta in (("int_Scalar", index_fill_int_scalar_, rules.index_fill_int_scalar_),
                                  ("int_Tensor", index_fill_int_tensor_, rules.index_fill_int_tensor_)):
    register(f"index_fill_{_overload}_", _kernel)
    register(f"index_fill_{_overload}__meta", _meta)
    for _suffix, _clone in (("", cpu_clone), ("_meta", rules.clone)):
        register(f"index_fill_{_overload}{_suffix}", _functional_below_autograd(f"aten::index_fill_.{_overload}", _clone))


def index_copy_values(xp: Any, target: Array, dim: int, idx: Array, values: Array) -> None:
    """target's slices along dim at idx (1-D) = values' (a 0-dim values: its one element), with
    PyTorch's bounds message."""
    size = target.shape[dim] if target.ndim else 1
    bad = first_out_of_bounds(xp, idx, size)
    if bad is not None:
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {dim} with size {size}")
    if not target.ndim:
        if idx.size:
            target[...] = values.reshape(-1)[-1]
        return
    target[(slice(None),) * dim + (idx,)] = values if values.ndim else values.reshape((1,) * target.ndim)


def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    dim = _wrap_dim(dim, len(self._shape))
    rules.check_index_copy(self, dim, index, source)
    rules.check_no_internal_overlap(self)
    check_no_overlap(self, source)
    index_copy_values(np, self._data, dim, index_array(index).reshape(-1), source._data)
    return self


_register_inplace_family("index_copy", index_copy_, rules.index_copy_)


# --- take / put_ / take_along_dim -----------------------------------------------------------------------


def flat_positions(xp: Any, idx: Array, n: int, empty_message: str) -> Array:
    """Index values (1-D) as positions into n elements in row-major order, negative from the
    end, with PyTorch's errors."""
    if idx.size and n == 0:
        raise IndexError(empty_message)
    bad = first_out_of_bounds(xp, idx, n, -n)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    return idx


def take_values(xp: Any, data: Array, idx: Array, shape: tuple[int, ...]) -> Array:
    """data's elements (row-major) at idx (1-D), shaped `shape`."""
    flat = flat_positions(xp, idx, data.size, "take(): tried to take from an empty tensor")
    return data.reshape(-1)[flat].reshape(shape)


def take(self: Tensor, index: Tensor) -> Tensor:
    if index._dtype is not _dt.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index._dtype._c10_name}")
    return from_array(take_values(np, self._data, index_array(index).reshape(-1), index._shape), self._dtype)


register("take", take)
register("take_meta", rules.take)


def put_values(xp: Any, target: Array, flat_idx: Array, values: Array, accumulate: bool) -> None:
    """target's elements (row-major) at flat_idx (1-D, in range) = values (+= with accumulate)."""
    # A non-contiguous target has no flat view: update a row-major copy and write it back.
    flat = target.reshape(-1) if target.flags.c_contiguous else target.ravel()
    values = values.reshape(-1)
    if accumulate:
        xp.add.at(flat, flat_idx, values)
    else:
        flat[flat_idx] = values
    if not target.flags.c_contiguous:
        target[...] = flat.reshape(target.shape)


def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    rules.check_put(self, index, source)
    idx = flat_positions(np, index_array(index).reshape(-1), self.numel(),
                         "put_(): Tried to put elements into an empty tensor")
    rules.check_no_internal_overlap(self)
    put_values(np, self._data, idx, source._data, accumulate)
    return self


register("put_", put_)
register("put__meta", rules.put_)
_put = _functional_below_autograd("aten::put_", generic_clone)  # CompositeExplicitAutograd only: every device
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
