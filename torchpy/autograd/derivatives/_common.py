"""Shape helpers shared by the formula families (dims, reduced dims, scatter-back)."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..._aten.public import functions  # torchpy.<name>, made below the package root
from ..._dispatch.ops import ops
from ..._tensor.dtype import int64
from ..._tensor.enums import strided


def wrap_dim(dim: int, ndim: int) -> int:
    """A possibly negative dim as an index; a 0-dim tensor accepts dims 0 and -1."""
    return dim % max(ndim, 1)


def reduced_dims(dim: int | Sequence[int] | None, ndim: int) -> list[int]:
    """The dims a reduction removed, sorted; None or [] means all of them."""
    if dim is None:
        return list(range(ndim))
    if isinstance(dim, int):
        dim = [dim]
    if len(dim) == 0:
        return list(range(ndim))
    return sorted({wrap_dim(d, ndim) for d in dim}) if ndim else []


def restore_reduced(t, dim, keepdim: bool, ndim: int):
    """A reduction's output (or its gradient) with the reduced dims back as size 1.

    As PyTorch's formulas do it: one dim is unsqueezed as given (-1 stays -1), several in
    ascending order; a reduction over all dims leaves the 0-dim gradient to broadcast."""
    if keepdim or ndim == 0 or dim is None:
        return t
    if isinstance(dim, int):
        return t.unsqueeze(dim)
    if len(dim) == 1:
        return t.unsqueeze(dim[0])
    for d in reduced_dims(dim, ndim) if len(dim) else ():
        t = t.unsqueeze(d)
    return t


def reduced_count(shape: Sequence[int], dim) -> int:
    """How many elements each output element of a reduction over `dim` gathered."""
    count = 1
    for d in reduced_dims(dim, len(shape)):
        count *= shape[d]
    return count


def zeros(shape: Sequence[int], like):
    """at::zeros(shape, like.options())."""
    return ops.aten.zeros.default(list(shape), dtype=like.dtype, layout=strided,
                                          device=like.device)


def new_zeros(grad, shape: Sequence[int], with_options: bool = False):
    """grad.new_zeros(shape), or grad.new_zeros(shape, grad.options()) with the options spelled out."""
    if with_options:
        return ops.aten.new_zeros.default(grad, list(shape), dtype=grad.dtype, layout=strided,
                                                  device=grad.device)
    return ops.aten.new_zeros.default(grad, list(shape))


def reverse(t, dim: int):
    """t flipped along dim."""
    return t.flip([dim])


def scatter_back(grad, shape: Sequence[int], positions: np.ndarray):
    """The gradient of a gather: `positions` (the output's shape) holds, for each output
    element, the flat index of the input element it read. Repeated positions add up."""
    flat = zeros((int(np.prod(shape, dtype=np.int64)),), grad)
    index = functions.tensor(np.ascontiguousarray(positions).reshape(-1), dtype=int64)
    return flat.index_add(0, index, grad.reshape(-1)).reshape(tuple(shape))


def flat_positions(shape: Sequence[int]) -> np.ndarray:
    """Every element's flat (row-major) index, laid out in `shape`."""
    return np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(tuple(shape))


# --- the aten calls C++ formulas make with a number operand ------------------------------------
# In PyTorch's C++, `grad * 2` calls mul.Scalar and `1 + t` add.Scalar (a Python `t * 2` calls
# mul.Tensor with a wrapped number), and a number where a tensor goes becomes scalar_tensor.


def scale(t, s):
    return ops.aten.mul.Scalar(t, s)


def shift(t, s):
    return ops.aten.add.Scalar(t, s)


def scalar_zero(like, value=0.0):
    """A 0-dim zero in like's dtype, as at::where(cond, grad, 0.) makes it."""
    return ops.aten.scalar_tensor.default(value, dtype=like.dtype, layout=strided,
                                                  device=like.device)


def zeros_like(t, **options):
    return ops.aten.zeros_like.default(t, **options)


def zeros_like_options(t):
    """zeros_like(t, t.options()): dtype, layout and device spelled out."""
    return zeros_like(t, dtype=t.dtype, layout=strided, device=t.device)


zeros_of = zeros
