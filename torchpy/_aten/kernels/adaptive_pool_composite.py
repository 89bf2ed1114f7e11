"""The CompositeImplicitAutograd adaptive pooling ops, as PyTorch decomposes them:

    adaptive_avg_pool1d(x, [L])   unsqueeze(-2), adaptive_avg_pool2d(.., [1, L]), squeeze(-2)
    adaptive_max_pool1d(x, [L])   unsqueeze(-2), adaptive_max_pool2d(.., [1, L]), squeeze both
    adaptive_avg_pool2d(x, s)     mean over the last 2 dims for s == [1, 1], else _adaptive_avg_pool2d
    adaptive_avg_pool3d(x, s)     mean over the last 3 dims for s == [1, 1, 1], else _adaptive_avg_pool3d

so a dispatch mode sees exactly the aten calls PyTorch makes.
"""

from __future__ import annotations

from typing import Sequence

from ..._dispatch.ops import ops
from ..._tensor.tensor import Tensor
from ..registry import register
from .adaptive_pool import check_nonempty


def _check_dim_range(name: str, self: Tensor) -> None:
    """PyTorch's checkDimRange(2, 4) on argument #1 'self'."""
    ndim = len(self._shape)
    if not 2 <= ndim < 4:
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {ndim}-dimensional tensor for argument #1 'self' "
                           f"(while checking arguments for {name})")


def _check_one_size(name: str, output_size: Sequence[int]) -> None:
    if len(output_size) != 1:
        raise RuntimeError(f"{name}() argument 'output_size' should contain one int (got {len(output_size)})")


def _check_sizes(name: str, output_size: Sequence[int], spatial: int) -> None:
    if len(output_size) != spatial:
        raise RuntimeError(f"{name}: output_size must be {spatial}")
    if any(size < 0 for size in output_size):
        # PyTorch's own spacing: "{2, -1}" for 2d, "{2, -1,2}" for 3d
        shown = f"{output_size[0]}, {output_size[1]}" + (f",{output_size[2]}" if spatial == 3 else "")
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 but received {{{shown}}}")


def adaptive_avg_pool2d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    _check_sizes("adaptive_avg_pool2d", output_size, 2)
    if list(output_size) == [1, 1]:  # a global average: PyTorch takes the mean
        return ops.aten.mean.dim(self, [-1, -2], True)
    return ops.aten._adaptive_avg_pool2d.default(self, list(output_size))


def adaptive_avg_pool3d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    _check_sizes("adaptive_avg_pool3d", output_size, 3)
    if list(output_size) == [1, 1, 1]:
        return ops.aten.mean.dim(self, [-1, -2, -3], True)
    return ops.aten._adaptive_avg_pool3d.default(self, list(output_size))


def adaptive_avg_pool1d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    _check_dim_range("adaptive_avg_pool1d", self)
    _check_one_size("adaptive_avg_pool1d", output_size)
    pooled = adaptive_avg_pool2d(ops.aten.unsqueeze.default(self, -2), [1, output_size[0]])
    return ops.aten.squeeze.dim(pooled, -2)


def adaptive_max_pool1d(self: Tensor, output_size: Sequence[int]) -> tuple[Tensor, Tensor]:
    _check_dim_range("adaptive_max_pool1d", self)
    check_nonempty("adaptive_max_pool1d", self, range(1, len(self._shape)))
    _check_one_size("adaptive_max_pool1d", output_size)
    values, indices = ops.aten.adaptive_max_pool2d.default(ops.aten.unsqueeze.default(self, -2), [1, output_size[0]])
    indices = ops.aten.squeeze.dim(indices, -2)  # PyTorch squeezes the indices first
    return ops.aten.squeeze.dim(values, -2), indices


register("adaptive_avg_pool1d", adaptive_avg_pool1d)
register("adaptive_avg_pool2d", adaptive_avg_pool2d)
register("adaptive_avg_pool3d", adaptive_avg_pool3d)
register("adaptive_max_pool1d", adaptive_max_pool1d)
