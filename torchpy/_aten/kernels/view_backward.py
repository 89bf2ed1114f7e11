"""Backward ops PyTorch's formulas call for views that drop or repeat elements, and for
masked_scatter: the gradient written (or, for unfold, added) into zeros of the input's sizes
at the positions the view read, so a dispatch mode sees the ops torch's backward calls."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, _wrap_dim, from_array
from ..meta import view as rules
from ..registry import register
from .variants import write_out


def _scatter_into_zeros(grad_output: Tensor, input_sizes: Sequence[int], positions: Callable) -> Tensor:
    """zeros(input_sizes) with grad_output written at positions(flat_index_array) (distinct)."""
    shape = tuple(input_sizes)
    result = np.zeros(shape, _dt.to_numpy_dtype(grad_output._dtype))
    flat_index = np.arange(result.size, dtype=np.int64).reshape(shape)
    result.reshape(-1)[positions(flat_index)] = grad_output._data
    return from_array(result, grad_output._dtype)


def select_backward(grad_output: Tensor, input_sizes: Sequence[int], dim: int, index: int) -> Tensor:
    dim, index = rules.select_backward_dims(input_sizes, dim, index)
    return _scatter_into_zeros(grad_output, input_sizes, lambda a: a[(slice(None),) * dim + (index,)])


def slice_backward(grad_output: Tensor, input_sizes: Sequence[int], dim: int, start: int, end: int,
                   step: int) -> Tensor:
    dim = _wrap_dim(dim, len(input_sizes))
    return _scatter_into_zeros(grad_output, input_sizes, lambda a: a[(slice(None),) * dim + (slice(start, end, step),)])


def diagonal_backward(grad_output: Tensor, input_sizes: Sequence[int], offset: int, dim1: int, dim2: int) -> Tensor:
    dim1, dim2 = rules.diagonal_backward_dims(input_sizes, dim1, dim2)
    # NumPy lays the diagonal out as torch does: as the last dim.
    return _scatter_into_zeros(grad_output, input_sizes, lambda a: np.diagonal(a, offset, dim1, dim2))


def _out(functional: Callable) -> Callable:
    def out_kernel(*args: Any, out: Tensor) -> Tensor:
        return write_out(out, functional(*args))

    out_kernel.__name__ = functional.__name__ + "_out"
    return out_kernel


for _fn in (select_backward, slice_backward, diagonal_backward):
    register(_fn.__name__, _fn)
    register(_fn.__name__ + "_out", _out(_fn))
    register(_fn.__name__ + "_meta", getattr(rules, _fn.__name__))  # the Meta kernels: the rules
    register(_fn.__name__ + "_out_meta", _out(getattr(rules, _fn.__name__)))


# --- unfold_backward / masked_scatter_backward -------------------------------------------------

def unfold_backward(grad_in: Tensor, input_sizes: Sequence[int], dim: int, size: int, step: int) -> Tensor:
    """Each window element read one input element: add the gradient back at it."""
    shape = tuple(input_sizes)
    positions = np.arange(max(int(np.prod(shape, dtype=np.int64)), 1), dtype=np.int64).reshape(shape or (1,))
    axis = _wrap_dim(dim, positions.ndim)
    starts = np.arange(0, positions.shape[axis] - size + 1, step, dtype=np.int64)
    window = starts[:, None] + np.arange(size, dtype=np.int64)[None, :]
    positions = np.moveaxis(np.take(positions, window, axis=axis), axis + 1, -1)
    result = np.zeros(int(np.prod(shape, dtype=np.int64)) if shape else 1, _dt.to_numpy_dtype(grad_in._dtype))
    np.add.at(result, positions.reshape(-1), np.asarray(grad_in._data).reshape(-1))
    return from_array(result.reshape(shape), grad_in._dtype)


def masked_scatter_backward(grad_output: Tensor, mask: Tensor, sizes: Sequence[int]) -> Tensor:
    """The source's first k elements (k = the mask's true count) were written, in order; the
    rest of the source got no gradient."""
    shape = tuple(sizes)
    grad, chosen = np.broadcast_arrays(np.asarray(grad_output._data), np.asarray(mask._data, dtype=bool))
    taken = grad[chosen]
    result = np.zeros(int(np.prod(shape, dtype=np.int64)), _dt.to_numpy_dtype(grad_output._dtype))
    result[: taken.size] = taken
    return from_array(result.reshape(shape), grad_output._dtype)


register("unfold_backward", unfold_backward)
register("unfold_backward_out", _out(unfold_backward))
register("masked_scatter_backward", masked_scatter_backward)
register("unfold_backward_meta", rules.unfold_backward)
register("unfold_backward_out_meta", _out(rules.unfold_backward))
register("masked_scatter_backward_meta", rules.masked_scatter_backward)
