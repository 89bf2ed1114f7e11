"""sort, argsort, msort and topk.

PyTorch's CPU sort is stable whatever `stable=` says, with NaN after every number
(before, descending); NumPy's stable argsort gives the same order ascending, and a
descending stable order is the ascending stable order of the reversed array, read
backwards.

topk on CPU runs C++'s std::partial_sort (when k * 64 <= n) or std::nth_element
followed by std::sort of the first k - 1 elements. Neither is stable, so among equal
values (and for sorted=False) the order they leave is theirs alone. When a row's
result does not depend on that (sorted output, no ties reaching the top k) NumPy
computes it; otherwise `_stl.py` replays those algorithms on the row.

The array code takes the array module `xp` and arrays; the CPU kernels are thin adapters that
take shapes and range checks from the meta rules (meta/sorting.py), make the CPU kernels' own
dtype checks, hand `self`'s array to the array code and wrap the results. The Meta kernels are
the meta rules, registered here beside the CPU ones (`<name>_meta`), with their out= forms.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Sequence

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.enums import strided
from ..._tensor.tensor import Tensor, _wrap_dim, from_array
from ..meta import sorting as rules
from ..registry import register
from .indexing import aten_op, call_below_autograd
from .variants import check_out_dtype, write_out

Array = Any


# --- array code ------------------------------------------------------------------------------------


def _sort_key(xp: Any, data: Array) -> Array:
    """What to compare: 16-bit floats widened (exactly) so the array module's own float sort runs."""
    if data.dtype.itemsize == 2 and data.dtype.kind not in "iub":
        return data.astype(xp.float32)
    return data


def stable_order(xp: Any, rows: Array, descending: bool) -> Array:
    """Positions that sort each row of a 2-D array stably, NaN last (first when descending)."""
    key = _sort_key(xp, rows)
    if not descending:
        return key.argsort(axis=1, kind="stable")
    backwards = key[:, ::-1].argsort(axis=1, kind="stable")
    return (rows.shape[1] - 1) - backwards[:, ::-1]


def as_rows(data: Array, dim: int) -> tuple[Array, tuple[int, ...]]:
    """`data` with `dim` swapped to the end, as (rows, n), and the swapped shape."""
    moved = data if dim == data.ndim - 1 else data.swapaxes(dim, -1)
    return moved.reshape(math.prod(moved.shape[:-1]), moved.shape[-1]), moved.shape


def from_rows(xp: Any, rows: Array, moved_shape: tuple[int, ...], dim: int) -> Array:
    """Undo `as_rows` (with the last size possibly changed), as a fresh contiguous array."""
    out = rows.reshape(moved_shape[:-1] + rows.shape[-1:])
    return out if dim == out.ndim - 1 else xp.ascontiguousarray(out.swapaxes(dim, -1))


def take_rows(xp: Any, rows: Array, order: Array) -> Array:
    """rows[r, order[r, j]] for every r, j."""
    if rows.shape[0] == 1:
        return rows[0][order[0]][None]
    return rows[xp.arange(rows.shape[0])[:, None], order]


def _like(xp: Any, data: Array, result: Array) -> Array:
    """`result` laid out as `data` is (PyTorch allocates sort's outputs with empty_like)."""
    if data.flags.c_contiguous:
        return result
    out = xp.empty_like(data, dtype=result.dtype)
    out[...] = result
    return out


def sort_array(xp: Any, data: Array, dim: int, descending: bool) -> tuple[Array, Array]:
    """(values, int64 indices) of a stable sort along `dim`, both laid out as `data` is."""
    if not data.ndim:
        return data.copy(), xp.zeros((), xp.int64)
    rows, moved = as_rows(data, dim)
    order = stable_order(xp, rows, descending)
    values = _like(xp, data, from_rows(xp, take_rows(xp, rows, order), moved, dim))
    indices = _like(xp, data, from_rows(xp, order.astype(xp.int64, copy=False), moved, dim))
    return values, indices


def topk_array(xp: Any, data: Array, k: int, dim: int, largest: bool, sorted: bool) -> tuple[Array, Array]:
    """(values, int64 indices) of the top k along `dim`, contiguous, in PyTorch's CPU order."""
    if not data.ndim:
        return data.copy(), xp.zeros((), xp.int64)
    rows, moved = as_rows(data, dim)
    order, values = _topk_rows(xp, rows, k, largest, sorted)
    return tuple(xp.asarray(from_rows(xp, a, moved, dim), order="C") for a in (values, order))  # torch's: contiguous


# --- CPU kernels: the adapters ---------------------------------------------------------------------


def _check_sortable(self: Tensor, what: str) -> None:
    # A CPU kernel's dtype check: PyTorch's meta functions accept complex input.
    if self._dtype.is_complex:
        raise RuntimeError(f" {what} does not support complex dtypes on CPU")


def sort_stable(self: Tensor, *, stable: bool | None, dim: int = -1, descending: bool = False) -> tuple[Tensor, Tensor]:
    dim = _wrap_dim(dim, len(self._shape))
    _check_sortable(self, "Sort")
    values, indices = sort_array(np, self._data, dim, descending)
    return from_array(values, self._dtype), from_array(indices, _dt.int64)


def _write_pair(values: Tensor, indices: Tensor, result: tuple[Tensor, Tensor]) -> tuple[Tensor, Tensor]:
    """Structured out= for (values, indices): exact dtypes, resized outputs."""
    check_out_dtype(values, result[0]._dtype)
    check_out_dtype(indices, _dt.int64)
    return write_out(values, result[0]), write_out(indices, result[1])


def _pair_out(functional: Callable) -> Callable:
    """The (values, indices) out= kernel of a structured op (sort.values_stable, topk.values)."""

    def out_kernel(self: Tensor, *args: Any, values: Tensor, indices: Tensor, **kwargs: Any) -> tuple[Tensor, Tensor]:
        return _write_pair(values, indices, functional(self, *args, **kwargs))

    out_kernel.__name__ = functional.__name__ + "_out"
    out_kernel.__wrapped__ = functional  # type: ignore[attr-defined]
    return out_kernel


def sort(self: Tensor, dim: int = -1, descending: bool = False) -> tuple[Tensor, Tensor]:
    # CompositeExplicitAutograd in PyTorch: sort.stable with stable=False.
    return call_below_autograd("aten::sort.stable", (self,), _sort_kwargs(False, dim, descending))


def _sort_kwargs(stable: bool | None, dim: int, descending: bool) -> dict:
    """sort.stable's keyword arguments in normalized form (defaults left out)."""
    kwargs: dict[str, Any] = {"stable": stable}
    if dim != -1:
        kwargs["dim"] = dim
    if descending:
        kwargs["descending"] = True
    return kwargs


def sort_values_default(self: Tensor, dim: int = -1, descending: bool = False, *, values: Tensor,
                        indices: Tensor) -> tuple[Tensor, Tensor]:
    kwargs = _sort_kwargs(False, dim, descending)
    kwargs["values"], kwargs["indices"] = values, indices
    return call_below_autograd("aten::sort.values_stable", (self,), kwargs)


# CPU kernels under the op's name, Meta kernels (meta/sorting.py's rules) as <name>_meta
register("sort_stable", sort_stable)
register("sort_stable_meta", rules.sort_stable)
register("sort_values_stable", _pair_out(sort_stable))
register("sort_values_stable_meta", _pair_out(rules.sort_stable))
register("sort", sort)  # CompositeExplicitAutograd: the same on every device
register("sort_values", sort_values_default)


# --- CompositeImplicitAutograd: argsort and msort decompose into sort, as in PyTorch ----------


def _sort_args(self: Tensor, dim: int, descending: bool) -> tuple:
    """sort.default's positional arguments in normalized form (trailing defaults dropped)."""
    if descending:
        return (self, dim, True)
    return (self,) if dim == -1 else (self, dim)


def argsort(self: Tensor, dim: int = -1, descending: bool = False) -> Tensor:
    return aten_op("aten::sort").call_normalized(_sort_args(self, dim, descending), {})[1]


def argsort_stable(self: Tensor, *, stable: bool, dim: int = -1, descending: bool = False) -> Tensor:
    return aten_op("aten::sort.stable").call_normalized((self,), _sort_kwargs(stable, dim, descending))[1]


def argsort_stable_out(self: Tensor, *, stable: bool, dim: int = -1, descending: bool = False,
                       out: Tensor) -> Tensor:
    kwargs = _sort_kwargs(stable, dim, descending)
    kwargs["values"], kwargs["indices"] = _empty_like_values(self), out
    aten_op("aten::sort.values_stable").call_normalized((self,), kwargs)
    return out


def _empty_like_values(self: Tensor) -> Tensor:
    """The scratch values tensor argsort's out= form sorts into, made as PyTorch makes it."""
    return aten_op("aten::empty.memory_format")([0], dtype=self._dtype, layout=strided, device=self._device)


def msort(self: Tensor) -> Tensor:
    return aten_op("aten::sort").call_normalized(_sort_args(self, 0, False), {})[0]


register("argsort", argsort)
register("argsort_stable", argsort_stable)
register("argsort_stable_out", argsort_stable_out)
register("msort", msort)


# --- topk -------------------------------------------------------------------------------------------


def topk(self: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> tuple[Tensor, Tensor]:
    dim = rules.topk_shape(self._shape, k, dim, "selected index k out of range")[0]
    if self._dtype is _dt.bool:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    _check_sortable(self, "topk")
    values, indices = topk_array(np, self._data, k, dim, largest, sorted)
    return from_array(values, self._dtype), from_array(indices, _dt.int64)


def _topk_rows(xp: Any, rows: Array, k: int, largest: bool, sorted: bool) -> tuple[Array, Array]:
    """Positions and values of each row's top k, in the order PyTorch's CPU kernel leaves them."""
    n = rows.shape[1]
    if k == 0:
        return xp.zeros((rows.shape[0], 0), xp.int64), rows[:, :0]
    full = stable_order(xp, rows, descending=largest)
    top = take_rows(xp, rows, full[:, :k + 1])
    order = full[:, :k].astype(xp.int64, copy=False)
    if not sorted and k * 64 > n:
        replay = xp.ones(rows.shape[0], bool)  # nth_element's own order: always replay
    else:
        replay = _rows_with_ties(xp, top)
    values = top[:, :k]
    if replay.any():
        which = xp.flatnonzero(replay)
        best_first = take_rows(xp, _sort_key(xp, rows[which]), full[which]).tolist()
        positions = full[which].tolist()
        replay_row = _stl_topk_cached if n <= 256 else _stl_topk  # remember short rows only
        order[which] = [replay_row(tuple(_ranks(v, p)), k, sorted) for v, p in zip(best_first, positions)]
        values[which] = take_rows(xp, rows[which], order[which])
    return order, values


def _ranks(best_first: list, positions: list[int]) -> list[int]:
    """Each position's dense rank in topk's order (0 = best), equal values (NaNs too) sharing
    one: comparing ranks is comparing values as the C++ comparator does."""
    ranks = [0] * len(positions)
    rank = 0
    previous = best_first[0] if best_first else None
    for value, position in zip(best_first, positions):
        if value != previous and (value == value or previous == previous):
            rank += 1
        ranks[position] = rank
        previous = value
    return ranks


def _rows_with_ties(xp: Any, top: Array) -> Array:
    """Rows whose top k (and the next value) hold equal neighbours (NaN equal to NaN):
    there the unstable C++ algorithms, not the values, decide the order."""
    same = top[:, 1:] == top[:, :-1]
    if top.dtype.kind == "f":
        nan = xp.isnan(top)
        if nan.any():
            same |= nan[:, 1:] & nan[:, :-1]
    return same.any(axis=1)


register("topk", topk)
register("topk_meta", rules.topk)
register("topk_values", _pair_out(topk))
register("topk_values_meta", _pair_out(rules.topk))


# --- replaying the C++ standard library's selection algorithms (libstdc++, as PyTorch's CPU
# wheels are built) on one row, to get the same order among equal values. `q` holds
# (rank, position) pairs, rank 0 the best value, so q[a][0] < q[b][0] is topk's comparator;
# ranges are [lo, hi). ------------------------------------------------------------------------


def _stl_topk(ranks: Sequence[int], k: int, sorted: bool) -> list[int]:
    """Positions of the top k in the order PyTorch's CPU topk leaves them."""
    q = [(rank, i) for i, rank in enumerate(ranks)]
    n = len(q)
    if k * 64 <= n:
        _partial_sort(q, 0, k, n)
    else:
        _nth_element(q, 0, k - 1, n)
        if sorted:
            _introsort(q, 0, k - 1)
    return [i for _, i in q[:k]]


@functools.lru_cache(maxsize=4096)
def _stl_topk_cached(ranks: tuple[int, ...], k: int, sorted: bool) -> list[int]:
    """_stl_topk, remembered: rows of ties repeat their pattern (a row of equal values, ...)."""
    return _stl_topk(ranks, k, sorted)


def _log2(n: int) -> int:
    return n.bit_length() - 1


def _nth_element(q: list, lo: int, nth: int, hi: int) -> None:
    """Introselect: partition around median-of-three pivots until the range is tiny."""
    if lo == hi or nth == hi:
        return
    depth = 2 * _log2(hi - lo)
    while hi - lo > 3:
        if depth == 0:
            _heap_select(q, lo, nth + 1, hi)
            q[lo], q[nth] = q[nth], q[lo]
            return
        depth -= 1
        cut = _partition_around_pivot(q, lo, hi)
        if cut <= nth:
            lo = cut
        else:
            hi = cut
    _insertion_sort(q, lo, hi)


def _introsort(q: list, lo: int, hi: int) -> None:
    """std::sort: quicksort down to runs of 16, heapsort past the depth limit, then insertion."""
    if hi - lo < 2:
        return
    _introsort_loop(q, lo, hi, 2 * _log2(hi - lo))
    if hi - lo > 16:
        _insertion_sort(q, lo, lo + 16)
        for i in range(lo + 16, hi):
            _linear_insert(q, i)
    else:
        _insertion_sort(q, lo, hi)


def _introsort_loop(q: list, lo: int, hi: int, depth: int) -> None:
    while hi - lo > 16:
        if depth == 0:
            _partial_sort(q, lo, hi, hi)
            return
        depth -= 1
        cut = _partition_around_pivot(q, lo, hi)
        _introsort_loop(q, cut, hi, depth)
        hi = cut


def _partition_around_pivot(q: list, lo: int, hi: int) -> int:
    """Move the median of q[lo+1], q[mid], q[hi-1] to q[lo], partition the rest around it."""
    a, b, c = lo + 1, lo + (hi - lo) // 2, hi - 1
    ra, rb, rc = q[a][0], q[b][0], q[c][0]
    if ra < rb:
        median = b if rb < rc else (c if ra < rc else a)
    else:
        median = a if ra < rc else (c if rb < rc else b)
    q[lo], q[median] = q[median], q[lo]
    pivot = q[lo][0]
    left, right = lo + 1, hi
    while True:
        while q[left][0] < pivot:
            left += 1
        right -= 1
        while pivot < q[right][0]:
            right -= 1
        if left >= right:
            return left
        q[left], q[right] = q[right], q[left]
        left += 1


def _insertion_sort(q: list, lo: int, hi: int) -> None:
    for i in range(lo + 1, hi):
        if q[i][0] < q[lo][0]:
            q[lo:i + 1] = [q[i]] + q[lo:i]
        else:
            _linear_insert(q, i)


def _linear_insert(q: list, i: int) -> None:
    """Shift q[i] left past every element it is less than (a smaller one lies to its left)."""
    value = q[i]
    rank = value[0]
    while rank < q[i - 1][0]:
        q[i] = q[i - 1]
        i -= 1
    q[i] = value


def _partial_sort(q: list, lo: int, mid: int, hi: int) -> None:
    """std::partial_sort: keep the best (mid - lo) in a heap while scanning, then heapsort it."""
    _heap_select(q, lo, mid, hi)
    while mid - lo > 1:
        mid -= 1
        _pop_heap(q, lo, mid, mid)


def _heap_select(q: list, lo: int, mid: int, hi: int) -> None:
    _make_heap(q, lo, mid)
    for i in range(mid, hi):
        if q[i][0] < q[lo][0]:
            _pop_heap(q, lo, mid, i)


def _make_heap(q: list, lo: int, hi: int) -> None:
    n = hi - lo
    for parent in range((n - 2) // 2, -1, -1):
        _adjust_heap(q, lo, parent, n, q[lo + parent])


def _pop_heap(q: list, lo: int, hi: int, result: int) -> None:
    """Put the heap's top at `result` and sift the element that was there into the heap."""
    value = q[result]
    q[result] = q[lo]
    _adjust_heap(q, lo, 0, hi - lo, value)


def _adjust_heap(q: list, base: int, hole: int, n: int, value: tuple) -> None:
    """Sift the hole down to a leaf along the larger children, then push `value` up from it."""
    top = hole
    child = hole
    while child < (n - 1) // 2:
        child = 2 * (child + 1)
        if q[base + child][0] < q[base + child - 1][0]:
            child -= 1
        q[base + hole] = q[base + child]
        hole = child
    if n % 2 == 0 and child == (n - 2) // 2:
        child = 2 * (child + 1)
        q[base + hole] = q[base + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    rank = value[0]
    while hole > top and q[base + parent][0] < rank:
        q[base + hole] = q[base + parent]
        hole = parent
        parent = (hole - 1) // 2
    q[base + hole] = value


# --- _unique: the distinct values (and each element's position among them) --------------------

def _unique(self: Tensor, sorted: bool = True, return_inverse: bool = False) -> tuple[Tensor, Tensor]:
    # sorted=False leaves the order to the implementation; NumPy's is sorted, which is allowed.
    flat = np.asarray(self._data).reshape(-1)
    if return_inverse:
        values, inverse = np.unique(flat, return_inverse=True)
        inverse = inverse.reshape(self._shape).astype(np.int64)
    else:
        values, inverse = np.unique(flat), np.zeros((0,), np.int64)
    return from_array(np.ascontiguousarray(values), self._dtype), from_array(inverse, _dt.int64)


register("_unique", _unique)
