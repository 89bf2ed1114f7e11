"""Adaptive average / max pooling over the last 2 or 3 dims (CPU kernels; the Meta kernels are
meta/adaptive_pool.py's, registered here as `<name>_meta`):
_adaptive_avg_pool2d, _adaptive_avg_pool3d, adaptive_max_pool2d, adaptive_max_pool3d.

Output position i along a spatial dim of input size n and output size m pools the input
range [floor(i*n/m), ceil((i+1)*n/m)): every input element is covered, neighbouring bins
may overlap. Max pooling also returns, per output element, the flat index of the chosen
input element within its spatial plane (H*W or D*H*W), as int64.

The checks and their messages are PyTorch's CPU kernels' (sizes printed as [2, 3]), from
meta/adaptive_pool.py; the array code (`*_array`) takes the array module `xp`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor, from_array
from ..meta import adaptive_pool as rules
from ..meta.adaptive_pool import (  # noqa: F401  (re-exported for the backward and composite kernels)
    POOLING_DTYPES, check_dtype, check_nonempty, check_shape, result_meta, sizes_text, suggests_channels_last,
)
from .reduction_util import accumulate_dtype, register_kernel, write_outs

Array = Any  # an array of the module `xp`


# --- array code ------------------------------------------------------------------------------


def bins(xp: Any, in_size: int, out_size: int) -> tuple[Array, Array]:
    """Each output position's input range [start, end)."""
    i = xp.arange(out_size, dtype=xp.int64)
    starts = (i * in_size) // out_size
    ends = -((-(i + 1) * in_size) // out_size)  # ceil division
    return starts, ends


def _mean_along(xp: Any, data: Array, axis: int, out_size: int) -> Array:
    """Adaptive mean along one axis; a box mean is separable, so axes are pooled one by one."""
    starts, ends = bins(xp, data.shape[axis], out_size)
    if out_size == 0:
        shape = list(data.shape)
        shape[axis] = 0
        return xp.empty(shape, data.dtype)
    index = [slice(None)] * data.ndim
    pieces = []
    for start, end in zip(starts.tolist(), ends.tolist()):
        index[axis] = slice(start, end)
        pieces.append(xp.add.reduce(data[tuple(index)], axis, keepdims=True) / (end - start))
    return xp.concatenate(pieces, axis)


def avg_pool_array(xp: Any, data: Array, output_size: Sequence[int]) -> Array:
    """Adaptive average pooling of the last len(output_size) axes."""
    first = data.ndim - len(output_size)
    for k, out in enumerate(output_size):
        data = _mean_along(xp, data, first + k, out)
    return data


def _windows(xp: Any, in_size: int, out_size: int) -> tuple[Array, Array]:
    """(out, width) input positions of each bin, padded to the widest bin (clamped in range),
    and which of them are really in the bin."""
    starts, ends = bins(xp, in_size, out_size)
    width = int((ends - starts).max()) if out_size else 1
    positions = starts[:, None] + xp.arange(width)
    return xp.minimum(positions, in_size - 1), positions < ends[:, None]


def max_pool_array(xp: Any, data: Array, output_size: Sequence[int]) -> tuple[Array, Array]:
    """Adaptive max pooling of the last k = len(output_size) axes: values and flat indices.

    Every bin is gathered into a padded window (..., out_0..out_k-1, width_0..width_k-1) and
    searched in row-major order as PyTorch's loop does: the first maximum wins, and a NaN
    beats everything (the last NaN, as the loop keeps replacing on NaN)."""
    k = len(output_size)
    spatial = data.shape[data.ndim - k:]
    windows_of = [_windows(xp, n, m) for n, m in zip(spatial, output_size)]
    gather: list[Array] = []
    valid = xp.ones((1,) * (2 * k), dtype=bool)
    for j, (positions, in_bin) in enumerate(windows_of):
        shape = [1] * (2 * k)  # out_j at axis j, its window at axis k + j
        shape[j], shape[k + j] = positions.shape
        gather.append(positions.reshape(shape))
        valid = valid & in_bin.reshape(shape)
    windows = data[(Ellipsis, *gather)]
    lead = windows.shape[: windows.ndim - k]
    width = int(xp.prod(windows.shape[windows.ndim - k:]))
    windows = xp.where(valid, windows, -xp.inf).reshape(*lead, width)
    nan = xp.isnan(windows)
    chosen = xp.argmax(windows, axis=-1)
    last_nan = width - 1 - xp.argmax(nan[..., ::-1], axis=-1)
    chosen = xp.where(nan.any(axis=-1), last_nan, chosen)
    values = xp.take_along_axis(windows, chosen[..., None], -1)[..., 0]
    # window position -> input coordinates -> flat index in the spatial plane
    offsets = xp.unravel_index(chosen, [positions.shape[1] for positions, _ in windows_of])
    flat = xp.zeros(chosen.shape, dtype=xp.int64)
    for j, offset in enumerate(offsets):
        out_index = xp.arange(output_size[j]).reshape([-1] + [1] * (k - 1 - j))  # aligned with chosen's axis j
        flat = flat * spatial[j] + windows_of[j][0][out_index, offset]
    return values, flat


# --- results: channels-last 4-d inputs give channels-last results, as PyTorch's 2-d kernels do ---


def _channels_last_array(array: np.ndarray) -> np.ndarray:
    """The same values in channels-last memory order (N, spatial..., C), viewed as (N, C, ...)."""
    order = (0, *range(2, array.ndim), 1)
    inverse = (0, array.ndim - 1, *range(1, array.ndim - 1))
    return np.ascontiguousarray(array.transpose(order)).transpose(inverse)


def result_tensor(array: np.ndarray, d: dtype, channels_last: bool) -> Tensor:
    if array.dtype != d._numpy:
        array = array.astype(d._numpy)
    if channels_last:
        array = _channels_last_array(array)
    return from_array(array, d)


def _compute_dtype(d: dtype) -> np.dtype:
    return accumulate_dtype(d)  # 16-bit floats compute in float32


# --- average pooling ---------------------------------------------------------------------------


def _adaptive_avg_pool2d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    ndim = len(self._shape)
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    if ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {sizes_text(self, False)}")
    check_nonempty("adaptive_avg_pool2d", self, (ndim - 2, ndim - 1))
    rules.check_output_numel(output_size)
    shape = self._shape[:-2] + tuple(output_size)
    channels_last = suggests_channels_last(self, 2)
    if 0 in shape:  # returns before its dtype dispatch
        return result_tensor(np.empty(shape, self._dtype._numpy), self._dtype, channels_last)
    check_dtype("adaptive_avg_pool2d", self._dtype)
    data = self._data.astype(_compute_dtype(self._dtype), copy=False)
    return result_tensor(avg_pool_array(np, data, output_size), self._dtype, channels_last)


def _adaptive_avg_pool3d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    ndim = len(self._shape)
    if len(output_size) != 3:
        raise RuntimeError("adaptive_avg_pool3d: output_size must be 3")
    if ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {sizes_text(self, False)}")
    check_nonempty("adaptive_avg_pool3d", self, range(1, ndim))
    rules.check_output_numel(output_size)
    check_dtype("adaptive_avg_pool3d_cpu", self._dtype)
    data = self._data.astype(_compute_dtype(self._dtype), copy=False)
    return result_tensor(avg_pool_array(np, data, output_size), self._dtype, False)


# --- max pooling -------------------------------------------------------------------------------


def _max_pool(name: str, spatial: int, self: Tensor, output_size: Sequence[int]) -> tuple[Tensor, Tensor]:
    shape, channels_last = rules.max_pool_shape(name, spatial, self, output_size, meta=False)
    check_dtype(name if spatial == 2 else f"{name}_cpu", self._dtype)
    if 0 in shape:
        values, indices = np.empty(shape, self._dtype._numpy), np.empty(shape, np.int64)
    else:
        values, indices = max_pool_array(np, self._data.astype(_compute_dtype(self._dtype), copy=False), output_size)
    return result_tensor(values, self._dtype, channels_last), result_tensor(indices, _dt.int64, channels_last)


def adaptive_max_pool2d(self: Tensor, output_size: Sequence[int]) -> tuple[Tensor, Tensor]:
    return _max_pool("adaptive_max_pool2d", 2, self, output_size)


def adaptive_max_pool3d(self: Tensor, output_size: Sequence[int]) -> tuple[Tensor, Tensor]:
    return _max_pool("adaptive_max_pool3d", 3, self, output_size)


def _max_pool_out(functional):  # type: ignore[no-untyped-def]
    def kernel(self: Tensor, output_size: Sequence[int], *, out: Tensor, indices: Tensor) -> tuple[Tensor, Tensor]:
        return write_outs((out, indices), functional(self, output_size))

    kernel.__name__ = functional.__name__ + "_out"
    kernel.__wrapped__ = functional  # type: ignore[attr-defined]
    return kernel


register_kernel("_adaptive_avg_pool2d", _adaptive_avg_pool2d)
register_kernel("_adaptive_avg_pool3d", _adaptive_avg_pool3d)
register_kernel("adaptive_max_pool2d", adaptive_max_pool2d)
register_kernel("adaptive_max_pool3d", adaptive_max_pool3d)
# The avg pools' out= kernels (CPU and Meta): made from the private ops' kernels by the YAML's policy.
register_kernel("adaptive_max_pool2d_out", _max_pool_out(adaptive_max_pool2d))
register_kernel("adaptive_max_pool3d_out", _max_pool_out(adaptive_max_pool3d))
for _fn in (rules._adaptive_avg_pool2d, rules._adaptive_avg_pool3d, rules.adaptive_max_pool2d,
            rules.adaptive_max_pool3d):
    register_kernel(_fn.__name__ + "_meta", _fn)
register_kernel("adaptive_max_pool2d_out_meta", _max_pool_out(rules.adaptive_max_pool2d))
register_kernel("adaptive_max_pool3d_out_meta", _max_pool_out(rules.adaptive_max_pool3d))
