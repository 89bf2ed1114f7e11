"""_softmax_backward_data / _log_softmax_backward_data: the gradients softmax's and
log_softmax's formulas call, from the saved output y along dim:
    softmax:      y * (g - sum(g * y))
    log_softmax:  g - exp(y) * sum(g)
The result takes input_dtype (the forward's input dtype); 16-bit floats compute in float32."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, _wrap_dim, meta_tensor
from .elementwise import meta_strides
from .reduction_util import accumulate_dtype, meta, register_kernel, wrap


def _softmax_grad(grad: np.ndarray, output: np.ndarray, axis: int) -> np.ndarray:
    return output * (grad - np.add.reduce(grad * output, axis, None, None, True))


def _log_softmax_grad(grad: np.ndarray, output: np.ndarray, axis: int) -> np.ndarray:
    return grad - np.exp(output) * np.add.reduce(grad, axis, None, None, True)


def _apply(compute: Any, grad_output: Tensor, output: Tensor, dim: int, input_dtype: _dt.dtype) -> Tensor:
    if grad_output._shape != output._shape:
        raise RuntimeError("grad_output and output must have the same size")
    ndim = len(output._shape)
    axis = _wrap_dim(dim, ndim)
    # With half_to_float the forward returned float32 for a 16-bit input: the gradient goes back.
    d = input_dtype if input_dtype != grad_output._dtype else grad_output._dtype
    if output._data is None:
        if compute is _log_softmax_grad:  # torch's meta rule is elementwise (its CPU kernel's is not)
            return meta_tensor(output._shape, d, meta_strides(output._shape, (grad_output, output)))
        return meta(output._shape, d)
    precision = accumulate_dtype(grad_output._dtype)
    grad = np.asarray(grad_output._data, dtype=precision)
    out = np.asarray(output._data, dtype=precision)
    if ndim == 0:
        return wrap(compute(grad.reshape(1), out.reshape(1), 0).reshape(()), d)
    return wrap(np.asarray(compute(grad, out, axis), order="C"), d)  # torch's CPU result: contiguous


def _softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: _dt.dtype) -> Tensor:
    return _apply(_softmax_grad, grad_output, output, dim, input_dtype)


def _log_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: _dt.dtype) -> Tensor:
    return _apply(_log_softmax_grad, grad_output, output, dim, input_dtype)


register_kernel("_softmax_backward_data", _softmax_backward_data)
register_kernel("_log_softmax_backward_data", _log_softmax_backward_data)
