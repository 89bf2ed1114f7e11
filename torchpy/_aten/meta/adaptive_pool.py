"""Meta rules of adaptive average / max pooling and their gradients: the result's shape, strides
(channels-last 4-d inputs give channels-last results, as PyTorch's 2-d kernels do) and dtype,
and the checks, from metadata alone.

kernels/adaptive_pool.py and adaptive_pool_backward.py's CPU kernels make PyTorch's CPU checks
(sizes printed as [2, 3]) through these rules, then pool arrays; the Meta kernels are PyTorch's
Python meta functions (sizes printed as torch.Size([2, 3]), fewer checks) plus `meta_tensor`.
"""

from __future__ import annotations

from typing import Sequence

from ..._tensor import dtype as _dt
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Size, Tensor, meta_tensor
from .copy import channels_last_strides, strides_like_channels_last

POOLING_DTYPES = (_dt.float32, _dt.float64, _dt.float16, _dt.bfloat16)


def suggests_channels_last(t: Tensor, spatial: int) -> bool:
    return len(t._shape) == spatial + 2 and strides_like_channels_last(t._shape, t.stride())


def result_meta(shape: Sequence[int], d: dtype, channels_last: bool) -> Tensor:
    shape = tuple(shape)
    return meta_tensor(shape, d, channels_last_strides(shape) if channels_last else None)


# --- PyTorch's checks --------------------------------------------------------------------------

def sizes_text(t: Tensor | Sequence[int], meta: bool) -> str:
    """Sizes as PyTorch's messages print them: [2, 3] from C++, torch.Size([2, 3]) from Python."""
    shape = t._shape if isinstance(t, Tensor) else tuple(t)
    return repr(Size(shape)) if meta else f"[{', '.join(map(str, shape))}]"


def check_nonempty(name: str, self: Tensor, dims: Sequence[int], meta: bool = False) -> None:
    for d in dims:
        if self._shape[d] == 0:
            raise RuntimeError(
                f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                f"sizes {sizes_text(self, meta)} with dimension {d} being empty"
            )


def check_dtype(kernel: str, d: dtype) -> None:
    """The CPU kernels' dtype dispatch: floating types only."""
    if d not in POOLING_DTYPES:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{d._c10_name}\'')


def check_shape(shape: Sequence[int]) -> None:
    for size in shape:
        if size < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {size}: [{', '.join(map(str, shape))}]")


def check_output_numel(output_size: Sequence[int]) -> None:
    """The average kernels resize their output without a sign check; PyTorch's numel then fails."""
    if any(size < 0 for size in output_size):
        raise RuntimeError("numel: integer multiplication overflow")


def max_pool_shape(name: str, spatial: int, self: Tensor, output_size: Sequence[int], meta: bool
                   ) -> tuple[tuple[int, ...], bool]:
    """adaptive_max_pool2d / 3d's checks (worded for the device); (result shape, channels-last)."""
    ndim = len(self._shape)
    if ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"{name}(): Expected {spatial + 1}D or {spatial + 2}D tensor, but got: "
                           f"{sizes_text(self, meta)}")
    check_nonempty(name, self, range(1, ndim), meta)
    if len(output_size) != spatial:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be {spatial}")
    shape = self._shape[:-spatial] + tuple(output_size)
    check_shape(shape)
    return shape, spatial == 2 and suggests_channels_last(self, 2)  # 3-d results stay contiguous


def check_max_pool_grad_ndim(spatial: int, grad_output: Tensor, meta: bool) -> None:
    if spatial == 2 and len(grad_output._shape) not in (3, 4):
        raise RuntimeError(f"adaptive_max_pooling2d_backward(): Expected 3D or 4D grad_output, but got: "
                           f"{sizes_text(grad_output, meta)}")


# --- the Meta kernels: PyTorch's Python meta functions (no size-0 or dtype checks) --------------

def _adaptive_avg_pool2d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    if len(self._shape) not in (3, 4):
        raise RuntimeError(f"Expected 3D or 4D tensor, but got {sizes_text(self, True)}")
    shape = self._shape[:-2] + tuple(output_size)
    check_shape(shape)
    return result_meta(shape, self._dtype, suggests_channels_last(self, 2))


def _adaptive_avg_pool3d(self: Tensor, output_size: Sequence[int]) -> Tensor:
    if len(self._shape) not in (4, 5):
        raise RuntimeError(f"Expected 4D or 5D tensor, but got {sizes_text(self, True)}")
    shape = self._shape[:-3] + tuple(output_size)
    check_shape(shape)
    return result_meta(shape, self._dtype, False)


def _max_pool(name: str, spatial: int, self: Tensor, output_size: Sequence[int]) -> tuple[Tensor, Tensor]:
    shape, channels_last = max_pool_shape(name, spatial, self, output_size, meta=True)
    return result_meta(shape, self._dtype, channels_last), result_meta(shape, _dt.int64, channels_last)


def adaptive_max_pool2d(self: Tensor, output_size: Sequence[int]) -> tuple[Tensor, Tensor]:
    return _max_pool("adaptive_max_pool2d", 2, self, output_size)


def adaptive_max_pool3d(self: Tensor, output_size: Sequence[int]) -> tuple[Tensor, Tensor]:
    return _max_pool("adaptive_max_pool3d", 3, self, output_size)


def _adaptive_avg_pool2d_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    if len(grad_output._shape) not in (3, 4):
        raise RuntimeError(
            f"adaptive_avg_pool2d_backward(): Expected 3D or 4D tensor, but got {sizes_text(grad_output, True)}")
    if grad_output._dtype is not self._dtype:
        raise RuntimeError(f"expected dtype {self._dtype} for `grad_output` but got dtype {grad_output._dtype}")
    return result_meta(self._shape, self._dtype, suggests_channels_last(self, 2))


def _adaptive_avg_pool3d_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    return result_meta(self._shape, self._dtype, False)  # PyTorch's meta function checks nothing


def adaptive_max_pool2d_backward(grad_output: Tensor, self: Tensor, indices: Tensor) -> Tensor:
    check_max_pool_grad_ndim(2, grad_output, meta=True)
    return result_meta(self._shape, self._dtype, suggests_channels_last(self, 2))


def adaptive_max_pool3d_backward(grad_output: Tensor, self: Tensor, indices: Tensor) -> Tensor:
    return result_meta(self._shape, self._dtype, False)
