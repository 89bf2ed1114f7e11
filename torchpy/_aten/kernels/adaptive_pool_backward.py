"""Gradients of adaptive pooling, the ops their backward formulas call:
_adaptive_avg_pool2d_backward / _adaptive_avg_pool3d_backward(grad_output, self) spread each
output gradient evenly over its bin; adaptive_max_pool2d_backward / 3d(grad_output, self,
indices) add it to the element the forward chose. Results have self's shape and dtype.

CPU kernels: PyTorch's CPU checks, then the array code (`*_array`, taking the array module `xp`).
The Meta kernels are meta/adaptive_pool.py's, registered here as `<name>_meta`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, _wrap_dim
from ..fastcall import aten, call
from ..meta import adaptive_pool as rules
from .adaptive_pool import _compute_dtype, bins, check_dtype, result_tensor, sizes_text, suggests_channels_last
from .reduction_util import register_kernel

Array = Any  # an array of the module `xp`

# --- array code ------------------------------------------------------------------------------


def _spread_along(xp: Any, grad: Array, axis: int, in_size: int) -> Array:
    """The adjoint of the adaptive mean along one axis: each bin's gradient / its width."""
    shape = list(grad.shape)
    shape[axis] = in_size
    result = xp.zeros(shape, grad.dtype)
    source = [slice(None)] * grad.ndim
    target = [slice(None)] * grad.ndim
    starts, ends = bins(xp, in_size, grad.shape[axis])
    for i, (start, end) in enumerate(zip(starts.tolist(), ends.tolist())):
        source[axis] = slice(i, i + 1)
        target[axis] = slice(start, end)
        result[tuple(target)] += grad[tuple(source)] / (end - start)
    return result


def avg_pool_backward_array(xp: Any, grad: Array, input_size: Sequence[int]) -> Array:
    first = grad.ndim - len(input_size)
    for k, n in enumerate(input_size):
        grad = _spread_along(xp, grad, first + k, n)
    return grad


def max_pool_backward_array(xp: Any, grad: Array, indices: Array, input_shape: Sequence[int],
                            spatial: int) -> Array:
    """Scatter-add each output gradient to the flat spatial index its forward chose."""
    lead = tuple(input_shape[: len(input_shape) - spatial])
    plane = int(xp.prod(input_shape[len(input_shape) - spatial:], dtype=xp.int64))
    rows = int(xp.prod(lead, dtype=xp.int64))
    result = xp.zeros((rows, plane), grad.dtype)
    grad = grad.reshape(rows, -1)
    xp.add.at(result, (xp.arange(rows)[:, None], indices.reshape(rows, -1)), grad)
    return result.reshape(tuple(input_shape))


def _check_grad_nonempty(name: str, grad_output: Tensor) -> None:
    for d in range(1, len(grad_output._shape)):
        if grad_output._shape[d] == 0:
            raise RuntimeError(
                f"{name}(): Expected grad_output to have non-zero size for non-batch dimensions, but grad_output "
                f"has sizes {sizes_text(grad_output, False)} with dimension {d} being empty"
            )


# --- average pooling ---------------------------------------------------------------------------


def _adaptive_avg_pool2d_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    ndim, grad_ndim = len(self._shape), len(grad_output._shape)
    _check_grad_nonempty("adaptive_avg_pool2d_backward", grad_output)
    where = "adaptive_avg_pool2d_backward_out_cpu_template"
    if grad_ndim != ndim:
        raise RuntimeError(f"{where}: Expected dimensions {ndim} for `grad_output` but got dimensions {grad_ndim}")
    if ndim not in (3, 4):
        raise RuntimeError(f"{where}: Expected 3D or 4D tensor, but got {sizes_text(self, False)}")
    if grad_output._dtype is not self._dtype:
        raise RuntimeError(f"{where}: Expected dtype {self._dtype._type_meta_name} for `grad_output` but got dtype "
                           f"{grad_output._dtype._type_meta_name}")
    check_dtype("adaptive_avg_pool2d_backward", self._dtype)
    grad = grad_output._data.astype(_compute_dtype(self._dtype), copy=False)
    return result_tensor(avg_pool_backward_array(np, grad, self._shape[-2:]), self._dtype,
                         suggests_channels_last(self, 2))


def _adaptive_avg_pool3d_backward(grad_output: Tensor, self: Tensor) -> Tensor:
    ndim, grad_ndim = len(self._shape), len(grad_output._shape)
    _check_grad_nonempty("adaptive_avg_pool3d_backward", grad_output)
    if grad_ndim != ndim:
        raise RuntimeError(f"adaptive_avg_pool3d_backward_out_cpu_template: Expected dimensions {ndim} for "
                           f"`gradOutput_` but got dimensions {grad_ndim}")
    _wrap_dim(-4, ndim)  # the CPU kernel reads the size of dim -4 before anything else
    if grad_output._dtype is not self._dtype:
        raise RuntimeError(f"expected scalar type {self._dtype._c10_name} but found {grad_output._dtype._c10_name}")
    check_dtype("adaptive_avg_pool3d_backward_cpu", self._dtype)
    grad = grad_output._data.astype(_compute_dtype(self._dtype), copy=False)
    return result_tensor(avg_pool_backward_array(np, grad, self._shape[-3:]), self._dtype, False)


# --- max pooling -------------------------------------------------------------------------------


def _max_pool_backward(spatial: int, grad_output: Tensor, self: Tensor, indices: Tensor) -> Tensor:
    ndim, grad_ndim = len(self._shape), len(grad_output._shape)
    channels_last = spatial == 2 and suggests_channels_last(self, 2)
    grad_name = "grad_output" if spatial == 2 else "gradOutput"
    rules.check_max_pool_grad_ndim(spatial, grad_output, meta=False)
    _check_grad_nonempty(f"adaptive_max_pool{spatial}d_backward", grad_output)
    if len(indices._shape) != ndim:
        raise RuntimeError(f"expected dimensions {ndim} for `indices` but got dimensions {len(indices._shape)}")
    if grad_output._shape != indices._shape:
        raise RuntimeError(f"expected sizes {sizes_text(indices, False)} for `{grad_name}` but got sizes "
                           f"{sizes_text(grad_output, False)}")
    if grad_output._dtype is not self._dtype:
        raise RuntimeError(f"expected dtype {self._dtype._type_meta_name} for `{grad_name}` but got dtype "
                           f"{grad_output._dtype._type_meta_name}")
    if indices._dtype is not _dt.int64:
        raise RuntimeError(f"expected scalar type Long but found {indices._dtype._c10_name}")
    check_dtype("adaptive_max_pool2d_backward" if spatial == 2 else "adaptive_max_pool3d_backward_cpu", self._dtype)
    grad = grad_output._data.astype(_compute_dtype(self._dtype), copy=False)
    result = max_pool_backward_array(np, grad, indices._data, self._shape, spatial)
    return result_tensor(result, self._dtype, channels_last)


def adaptive_max_pool2d_backward(grad_output: Tensor, self: Tensor, indices: Tensor) -> Tensor:
    return _max_pool_backward(2, grad_output, self, indices)


def adaptive_max_pool3d_backward(grad_output: Tensor, self: Tensor, indices: Tensor) -> Tensor:
    return _max_pool_backward(3, grad_output, self, indices)


def _adaptive_avg_pool3d_backward_dispatched(grad_output: Tensor, self: Tensor) -> Tensor:
    """The functional op through the dispatcher, as PyTorch's generated out= wrapper calls it: its
    inputs' device picks the CPU or Meta kernel. (PyTorch's own meta out= form of this op fails:
    it has no Meta kernel of its own here.)"""
    return call(aten("_adaptive_avg_pool3d_backward"), grad_output._keyset | self._keyset, grad_output, self)


register_kernel("_adaptive_avg_pool2d_backward", _adaptive_avg_pool2d_backward)
register_kernel("_adaptive_avg_pool3d_backward", _adaptive_avg_pool3d_backward)
register_kernel("adaptive_max_pool2d_backward", adaptive_max_pool2d_backward)
register_kernel("adaptive_max_pool3d_backward", adaptive_max_pool3d_backward)
# the .out / .grad_input forms (CPU and Meta): made from these by the YAML's policy;
# adaptive_avg_pool3d_backward's is PyTorch's CPU kernel of the private op's computation, and
# _adaptive_avg_pool3d_backward.out's (CompositeExplicitAutograd) is made from the dispatched op
register_kernel("adaptive_avg_pool3d_backward", _adaptive_avg_pool3d_backward)
register_kernel("_adaptive_avg_pool3d_backward_dispatched", _adaptive_avg_pool3d_backward_dispatched)
for _fn in (rules._adaptive_avg_pool2d_backward, rules._adaptive_avg_pool3d_backward,
            rules.adaptive_max_pool2d_backward, rules.adaptive_max_pool3d_backward):
    register_kernel(_fn.__name__ + "_meta", _fn)
