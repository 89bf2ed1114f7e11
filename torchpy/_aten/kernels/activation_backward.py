"""Backward ops of activations, which PyTorch's formulas call (so a dispatch mode sees them):
threshold_backward (ReLU's gradient), tanh_backward, sigmoid_backward."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, from_array
from ..registry import register
from .elementwise import elementwise, torch_layout


# Same-width integer types: a float array zeroed through a bit mask (see threshold_backward).
_BITS = {2: np.int16, 4: np.int32, 8: np.int64}


# From this many elements the bit mask below beats np.where (four cheap passes against one
# slow one); under it np.where's two calls cost less than the mask's five.
_MASK_FROM = 1024


@elementwise("threshold_backward", operands=2, registers=False)
def threshold_backward_general(xp, grad_output, self, threshold):
    # torch's rule: 0 where self <= threshold, else the gradient (a NaN input passes it).
    masked = self <= threshold
    bits = _BITS.get(grad_output.dtype.itemsize) if grad_output.dtype.kind == "f" else None
    if xp is np and bits is not None and grad_output.shape == masked.shape and grad_output.flags.c_contiguous \
            and grad_output.size >= _MASK_FROM:
        # AND with an all-ones / all-zeros word per element: exact (+0.0 where masked, any
        # inf or NaN elsewhere kept) and 2-3x faster than np.where on a random mask.
        mask = masked.view(np.uint8).astype(bits)
        mask -= 1
        mask &= grad_output.view(bits)
        return mask.view(grad_output.dtype)
    return xp.where(masked, xp.zeros((), dtype=xp.result_type(grad_output)), grad_output)


_SAME_DTYPE_LANE = frozenset({_dt.float32, _dt.float64})


def threshold_backward(grad_output: Any, self: Any, threshold: Any) -> Any:
    """ReLU's backward runs once per ReLU per step: plain float32 / float64 tensors of one shape
    and dtype and a number go straight to the array code; anything else to the general kernel."""
    if (type(grad_output) is Tensor and type(self) is Tensor and grad_output._dtype is self._dtype
            and grad_output._dtype in _SAME_DTYPE_LANE and type(threshold) in (int, float)
            and grad_output._shape == self._shape and grad_output._wrapped is None and self._wrapped is None):
        g, x = grad_output._data, self._data
        if g is not None and x is not None:
            out = _array_code(np, g, x, threshold)
            if out.ndim > 1 and not (g.flags.c_contiguous and x.flags.c_contiguous):
                out = torch_layout(out, (g, x))
            return from_array(out, grad_output._dtype)
    return threshold_backward_general(grad_output, self, threshold)


_array_code = threshold_backward_general.__wrapped__
threshold_backward.__wrapped__ = _array_code  # type: ignore[attr-defined]


@elementwise("tanh_backward", operands=2, registers=False)
def tanh_backward(xp, grad_output, output):
    return grad_output * (1 - output * output)


@elementwise("sigmoid_backward", operands=2, registers=False)
def sigmoid_backward(xp, grad_output, output):
    return grad_output * ((1 - output) * output)


for _kernel, _name in ((threshold_backward, "threshold_backward"), (tanh_backward, "tanh_backward"),
                       (sigmoid_backward, "sigmoid_backward")):
    register(_name, _kernel)
