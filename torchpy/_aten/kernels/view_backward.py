"""Backward ops PyTorch's formulas call for views that drop or repeat elements, and for
masked_scatter: the gradient written (or, for unfold, added) into zeros of the input's sizes
at the positions the view read, so a dispatch mode sees the ops torch's backward calls.

The array code takes arrays and their module `xp`; the Meta kernels are meta/view.py's rules."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, _wrap_dim, contiguous_strides_of, from_array
from ..meta import view as rules
from ..registry import register


Array = Any  # an array of the module `xp`


# --- array code: arrays and their module in, the result array out --------------------------------

def scatter_into_zeros(xp: Any, grad: Array, shape: tuple[int, ...], np_dtype: Any, positions: Callable) -> Array:
    """zeros(shape) with `grad` written at positions(flat_index_array) (distinct positions)."""
    result = xp.zeros(shape, np_dtype)
    flat_index = xp.arange(result.size, dtype=xp.int64).reshape(shape)
    result.reshape(-1)[positions(flat_index)] = grad
    return result


def unfold_backward_array(xp: Any, grad: Array, shape: tuple[int, ...], dim: int, size: int, step: int,
                          np_dtype: Any) -> Array:
    """Each window element read one input element: add the gradient back at it."""
    numel = int(xp.prod(shape, dtype=xp.int64)) if shape else 1
    positions = xp.arange(max(numel, 1), dtype=xp.int64).reshape(shape or (1,))
    axis = _wrap_dim(dim, positions.ndim)
    starts = xp.arange(0, positions.shape[axis] - size + 1, step, dtype=xp.int64)
    window = starts[:, None] + xp.arange(size, dtype=xp.int64)[None, :]
    positions = xp.moveaxis(xp.take(positions, window, axis=axis), axis + 1, -1)
    result = xp.zeros(numel, np_dtype)
    xp.add.at(result, positions.reshape(-1), xp.asarray(grad).reshape(-1))
    return result.reshape(shape)


def masked_scatter_backward_array(xp: Any, grad: Array, mask: Array, shape: tuple[int, ...], np_dtype: Any) -> Array:
    """The source's first k elements (k = the mask's true count) were written, in order; the
    rest of the source got no gradient."""
    grad, chosen = xp.broadcast_arrays(xp.asarray(grad), xp.asarray(mask, dtype=bool))
    taken = grad[chosen]
    result = xp.zeros(int(xp.prod(shape, dtype=xp.int64)), np_dtype)
    result[: taken.size] = taken
    return result.reshape(shape)


# --- the CPU kernels: the array code on the inputs' arrays -------------------------------------------

def _scatter_into_zeros(grad_output: Tensor, input_sizes: Sequence[int], positions: Callable) -> Tensor:
    d = grad_output._dtype
    return from_array(scatter_into_zeros(np, grad_output._data, tuple(input_sizes), _dt.to_numpy_dtype(d), positions), d)


def select_backward(grad_output: Tensor, input_sizes: Sequence[int], dim: int, index: int) -> Tensor:
    shape = tuple(input_sizes)  # the zeros select() reads from: select's checks and messages
    dim, index = rules.select_geometry(shape, contiguous_strides_of(shape), 0, dim, index)[:2]
    return _scatter_into_zeros(grad_output, input_sizes, lambda a: a[(slice(None),) * dim + (index,)])


def slice_backward(grad_output: Tensor, input_sizes: Sequence[int], dim: int, start: int, end: int,
                   step: int) -> Tensor:
    dim = _wrap_dim(dim, len(input_sizes))
    return _scatter_into_zeros(grad_output, input_sizes, lambda a: a[(slice(None),) * dim + (slice(start, end, step),)])


def diagonal_backward(grad_output: Tensor, input_sizes: Sequence[int], offset: int, dim1: int, dim2: int) -> Tensor:
    ndim = len(input_sizes)
    dim1, dim2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    # NumPy lays the diagonal out as torch does: as the last dim.
    return _scatter_into_zeros(grad_output, input_sizes, lambda a: np.diagonal(a, offset, dim1, dim2))


for _fn in (select_backward, slice_backward, diagonal_backward):
    register(_fn.__name__, _fn)
    register(_fn.__name__ + "_meta", getattr(rules, _fn.__name__))  # the Meta kernels: the rules


# --- unfold_backward / masked_scatter_backward -------------------------------------------------

def unfold_backward(grad_in: Tensor, input_sizes: Sequence[int], dim: int, size: int, step: int) -> Tensor:
    d = grad_in._dtype
    return from_array(unfold_backward_array(np, grad_in._data, tuple(input_sizes), dim, size, step,
                                            _dt.to_numpy_dtype(d)), d)


def masked_scatter_backward(grad_output: Tensor, mask: Tensor, sizes: Sequence[int]) -> Tensor:
    d = grad_output._dtype
    return from_array(masked_scatter_backward_array(np, grad_output._data, mask._data, tuple(sizes),
                                                    _dt.to_numpy_dtype(d)), d)


register("unfold_backward", unfold_backward)
register("masked_scatter_backward", masked_scatter_backward)
register("unfold_backward_meta", rules.unfold_backward)
register("masked_scatter_backward_meta", rules.masked_scatter_backward)
