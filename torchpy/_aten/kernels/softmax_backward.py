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
from .reduction_util import accumulate_dtype, out_kernel, register_kernel, wrap

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


def _softmax_backward_data_out(grad_output, output, dim, input_dtype, *, grad_input):
    return out_kernel(_softmax_backward_data, "exact")(grad_output, output, dim, input_dtype, out=grad_input)


def _grad_input_out(functional: Any) -> Any:
    """The .grad_input form around a Meta kernel: out_kernel with the out tensor's name."""
    write = out_kernel(functional, "exact")

    def kernel(grad_output: Tensor, output: Tensor, dim: int, input_dtype: _dt.dtype, *,
               grad_input: Tensor) -> Tensor:
        return write(grad_output, output, dim, input_dtype, out=grad_input)

    kernel.__wrapped__ = functional  # type: ignore[attr-defined]
    return kernel


register_kernel("_softmax_backward_data", _softmax_backward_data)
register_kernel("_log_softmax_backward_data", _log_softmax_backward_data)
register_kernel("_softmax_backward_data_out", _softmax_backward_data_out)
register_kernel("_log_softmax_backward_data_out", out_kernel(_log_softmax_backward_data, "exact"))
register_kernel("_softmax_backward_data_meta", rules._softmax_backward_data)
register_kernel("_log_softmax_backward_data_meta", rules._log_softmax_backward_data)
register_kernel("_softmax_backward_data_out_meta", _grad_input_out(rules._softmax_backward_data))
register_kernel("_log_softmax_backward_data_out_meta", out_kernel(rules._log_softmax_backward_data, "exact"))
