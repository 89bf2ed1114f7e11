"""_softmax_backward_data / _log_softmax_backward_data: the gradients softmax's and
log_softmax's formulas call, from the saved output y along dim:
    softmax:      y * (g - sum(g * y))
    log_softmax:  g - exp(y) * sum(g)
The result takes input_dtype (the forward's input dtype); 16-bit floats compute in float32.
The array code takes the array module `xp`; the Meta kernels are meta/softmax.py's."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, _wrap_dim
from ..meta import softmax as rules
from .reduction_util import accumulate_dtype, register_kernel, wrap

Array = Any  # an array of the module `xp`


def _softmax_grad(xp: Any, grad: Array, output: Array, axis: int) -> Array:
    return output * (grad - xp.add.reduce(grad * output, axis, None, None, True))


def _log_softmax_grad(xp: Any, grad: Array, output: Array, axis: int) -> Array:
    return grad - xp.exp(output) * xp.add.reduce(grad, axis, None, None, True)


def _apply(compute: Any, grad_output: Tensor, output: Tensor, dim: int, input_dtype: _dt.dtype) -> Tensor:
    d = rules.backward_dtype(grad_output, output, input_dtype)
    ndim = len(output._shape)
    axis = _wrap_dim(dim, ndim)
    precision = accumulate_dtype(grad_output._dtype)
    grad = np.asarray(grad_output._data, dtype=precision)
    out = np.asarray(output._data, dtype=precision)
    if ndim == 0:
        return wrap(compute(np, grad.reshape(1), out.reshape(1), 0).reshape(()), d)
    return wrap(np.asarray(compute(np, grad, out, axis), order="C"), d)  # torch's CPU result: contiguous


def _softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: _dt.dtype) -> Tensor:
    return _apply(_softmax_grad, grad_output, output, dim, input_dtype)


def _log_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: _dt.dtype) -> Tensor:
    return _apply(_log_softmax_grad, grad_output, output, dim, input_dtype)


register_kernel("_softmax_backward_data", _softmax_backward_data)
register_kernel("_log_softmax_backward_data", _log_softmax_backward_data)
register_kernel("_softmax_backward_data_meta", rules._softmax_backward_data)
register_kernel("_log_softmax_backward_data_meta", rules._log_softmax_backward_data)
# the .grad_input forms (CPU and Meta): made from these by the YAML's policy
