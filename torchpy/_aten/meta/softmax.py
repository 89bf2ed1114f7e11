"""Meta rules of _softmax / _log_softmax and their gradients (_softmax_backward_data,
_log_softmax_backward_data): the axis, the result's shape, strides and dtype, and the checks,
from metadata alone.

kernels/softmax.py and softmax_backward.py's CPU kernels take the gradient's dtype and checks
from here; the Meta kernels are PyTorch's meta functions (no dtype check; _softmax does not
even check dim) plus `meta_tensor`.
"""

from __future__ import annotations

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, _wrap_dim, meta_tensor
from ..kernels.elementwise import meta_strides


def _forward(name: str, self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    """With half_to_float, _softmax takes half or bfloat16 and _log_softmax only half."""
    d = self._dtype
    if half_to_float:
        allowed = (_dt.float16, _dt.bfloat16) if name == "softmax" else (_dt.float16,)
        if d not in allowed:
            expected = "half or bfloat16" if name == "softmax" else "torch.half"
            raise AssertionError(f"half_to_float is True but x.dtype is {d}, expected {expected}")
        d = _dt.float32
    if name != "softmax":
        _wrap_dim(dim, len(self._shape))
    return meta_tensor(self._shape, d)


def backward_dtype(grad_output: Tensor, output: Tensor, input_dtype: _dt.dtype) -> _dt.dtype:
    """The gradient's checks and dtype: input_dtype (with half_to_float the forward returned
    float32 for a 16-bit input, and the gradient goes back to it)."""
    if grad_output._shape != output._shape:
        raise RuntimeError("grad_output and output must have the same size")
    return input_dtype if input_dtype != grad_output._dtype else grad_output._dtype


# --- the Meta kernels -------------------------------------------------------------------------------

def _softmax(self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    return _forward("softmax", self, dim, half_to_float)


def _log_softmax(self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    return _forward("log_softmax", self, dim, half_to_float)


def _softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: _dt.dtype) -> Tensor:
    d = backward_dtype(grad_output, output, input_dtype)
    _wrap_dim(dim, len(output._shape))
    return meta_tensor(output._shape, d)


def _log_softmax_backward_data(grad_output: Tensor, output: Tensor, dim: int, input_dtype: _dt.dtype) -> Tensor:
    d = backward_dtype(grad_output, output, input_dtype)
    _wrap_dim(dim, len(output._shape))
    # torch's meta rule is elementwise (its CPU kernel's is not): the inputs' layout
    return meta_tensor(output._shape, d, meta_strides(output._shape, (grad_output, output)))
