"""Derivatives of view and shape ops: the gradient takes the inverse view, or is
scattered back into zeros of the input's shape for views that drop elements.

Views save only the input's geometry ("self.shape"), never the input itself, so
modifying the input in place after taking a view does not break backward.
In-place view ops (t_, squeeze_, ...) have their own node names in torch, so their
YAML entries name these formulas again with their own grad_fn.
"""

from __future__ import annotations

import numpy as np

from ..._aten.public import functions  # torchpy.<name>, made below the package root
from ..._dispatch.ops import ops
from ..._tensor.dtype import int64
from ..._aten.fastcall import aten as _overload, call

from . import formula
from ._common import flat_positions, scatter_back, wrap_dim, zeros


# --- reshaping -------------------------------------------------------------------------------


@formula(inputs=("self",), save=("self.shape",))
def view_backward(grad, self_shape):
    return grad.reshape(self_shape)


def _unsqueeze_to(grad, dims, self_shape):
    """The squeezed size-1 dims back, one unsqueeze each, in ascending order."""
    for d in sorted({wrap_dim(d, len(self_shape)) for d in dims}):
        if self_shape[d] == 1:
            grad = grad.unsqueeze(d)
    return grad


@formula(inputs=("self",), save=("self.shape",))
def squeeze_backward(grad, self_shape):
    return _unsqueeze_to(grad, range(len(self_shape)), self_shape)


@formula(inputs=("self",), save=("self.shape", "dim"))
def squeeze_dim_backward(grad, self_shape, dim):
    return _unsqueeze_to(grad, [dim], self_shape) if self_shape else grad


@formula(inputs=("self",), save=("self.shape", "dim"))
def squeeze_dims_backward(grad, self_shape, dim):
    return _unsqueeze_to(grad, dim, self_shape) if self_shape else grad


@formula(inputs=("self",), save=("dim",))
def unsqueeze_backward(grad, dim):
    return grad.squeeze(dim)


@formula(inputs=("self",))
def alias_backward(grad):
    return grad


# The sum over broadcast dims happens centrally (node.py un-broadcasts to self's shape).
@formula(inputs=("self",))
def expand_backward(grad):
    return grad


# --- reordering dims -------------------------------------------------------------------------


@formula(inputs=("self",))
def t_backward(grad):
    return grad.t()


@formula(inputs=("self",), save=("dim0", "dim1"))
def transpose_backward(grad, dim0, dim1):
    return grad.transpose(dim0, dim1)


@formula(inputs=("self",), save=("dims",))
def permute_backward(grad, dims):
    ndim = len(dims)
    inverse = [0] * ndim
    for position, d in enumerate(dims):
        inverse[wrap_dim(d, ndim)] = position
    return grad.permute(inverse)


# --- views that drop elements: scatter the gradient back -------------------------------------


_INT64_MAX = 2**63 - 1
aten = ops.aten


@formula(inputs=("self",), save=("self.shape", "dim", "index"))
def select_backward(grad, self_shape, dim, index):
    return aten.select_backward.default(grad, list(self_shape), dim, index)


@formula(inputs=("self",),
         save=("self.shape", "dim", "start", "end", "step"))
def slice_backward(grad, self_shape, dim, start, end, step):
    start = 0 if start is None else start
    end = _INT64_MAX if end is None else end
    return aten.slice_backward.default(grad, list(self_shape), dim, start, end, step)


@formula(inputs=("self",),
         save=("self.shape", "offset", "dim1", "dim2"))
def diagonal_backward(grad, self_shape, offset, dim1, dim2):
    return aten.diagonal_backward.default(grad, list(self_shape), offset, dim1, dim2)


# Their own gradients (double backward) read the view's elements back.
@formula(inputs=("grad_output",), save=("dim", "index"))
def select_backward_backward(grad, dim, index):
    return aten.select.int(grad, dim, index)


@formula(inputs=("grad_output",),
         save=("dim", "start", "end", "step"))
def slice_backward_backward(grad, dim, start, end, step):
    return aten.slice.Tensor(grad, dim, start, end, step)


@formula(inputs=("grad_output",),
         save=("offset", "dim1", "dim2"))
def diagonal_backward_backward(grad, offset, dim1, dim2):
    return aten.diagonal.default(grad, offset, dim1, dim2)


def _storage_positions(shape, stride, offset) -> np.ndarray:
    """For every element of a strided view, its position in the storage."""
    positions = np.full(tuple(shape), offset, dtype=np.int64)
    for d, (size, step) in enumerate(zip(shape, stride)):
        along = np.arange(size, dtype=np.int64) * step
        positions = positions + along.reshape([-1 if i == d else 1 for i in range(len(shape))])
    return positions


@formula(inputs=("self",),
         save=("self.shape", "self.stride", "self.offset", "size", "stride", "storage_offset"))
def as_strided_backward(grad, self_shape, self_stride, self_offset, size, stride, storage_offset):
    """Add the output's gradient into a buffer over the storage, read it back at self's
    elements; an element of self that several of its own positions share gets its share."""
    out_offset = self_offset if storage_offset is None else storage_offset
    if not _may_overlap(size, stride) and not _may_overlap(self_shape, self_stride) and all(self_shape):
        return _as_strided_backward_plain(grad, self_shape, self_stride, self_offset, size, stride, out_offset)
    out_at = _storage_positions(size, stride, self_offset if storage_offset is None else storage_offset)
    in_at = _storage_positions(self_shape, self_stride, self_offset)
    if in_at.size == 0:
        return zeros(self_shape, grad)
    low = min(int(in_at.min()), int(out_at.min()) if out_at.size else int(in_at.min()))
    high = max(int(in_at.max()), int(out_at.max()) if out_at.size else int(in_at.max()))
    storage = scatter_back(grad, (high - low + 1,), out_at - low)
    taken = functions.tensor((in_at - low).reshape(-1), dtype=int64)
    grad_self = storage.index_select(0, taken).reshape(tuple(self_shape))
    uses = np.bincount((in_at - low).reshape(-1), minlength=high - low + 1)[(in_at - low)]
    if (uses > 1).any():
        grad_self = grad_self / functions.tensor(uses, dtype=grad.dtype)
    return grad_self


def _may_overlap(shape, stride) -> bool:
    """Whether two elements of this geometry can share memory (size-1 dims address nothing new)."""
    dims = sorted((st, sz) for sz, st in zip(shape, stride) if sz > 1)
    for (st0, sz0), (st1, _) in zip(dims, dims[1:]):
        if st0 == 0 or (sz0 - 1) * st0 >= st1:
            return True
    return bool(dims) and dims[0][0] == 0


def _storage_extent(shape, stride, offset: int) -> int:
    if not all(shape):
        return 0
    return offset + 1 + sum((sz - 1) * st for sz, st in zip(shape, stride))


def _as_strided_backward_plain(grad, self_shape, self_stride, self_offset, size, stride, out_offset):
    """Neither geometry overlaps itself: PyTorch's steps (a zero buffer over the storage both
    address, the gradient copied in at the output's elements, read back at self's)."""
    shared = min(self_offset, out_offset)
    in_offset, out_offset = self_offset - shared, out_offset - shared
    length = max(_storage_extent(self_shape, self_stride, in_offset), _storage_extent(size, stride, out_offset))
    ks = grad._keyset
    storage = call(_overload("new_zeros"), ks, grad, [length])
    call(_overload("copy_"), ks, call(_overload("as_strided"), ks, storage, list(size), list(stride), out_offset), grad)
    return call(_overload("as_strided"), ks, storage, list(self_shape), list(self_stride), in_offset)


# --- multi-output views ----------------------------------------------------------------------
# A call that produced a single piece hands its formula one gradient, not a tuple.


def _pieces(grads) -> list:
    return list(grads) if isinstance(grads, (tuple, list)) else [grads]


@formula(inputs=("self",), save=("dim",))
def unbind_backward(grads, dim):
    return functions.stack(_pieces(grads), dim)


@formula(inputs=("self",), save=("dim",))
def split_backward(grads, dim):
    pieces = _pieces(grads)
    return functions.cat(pieces, wrap_dim(dim, pieces[0].dim()))


@formula(inputs=("self",), save=("dim",))
def split_with_sizes_backward(grads, dim):
    pieces = _pieces(grads)
    return functions.cat(pieces, wrap_dim(dim, pieces[0].dim()))




@formula(inputs=("self",), save=("self.shape", "dimension", "size", "step"))
def unfold_backward(grad, self_shape, dimension, size, step):
    return aten.unfold_backward.default(grad, list(self_shape), dimension, size, step)


@formula(inputs=("grad_in",), save=("dim", "size", "step"))
def unfold_backward_backward(grad, dim, size, step):
    return grad.unfold(dim, size, step)
