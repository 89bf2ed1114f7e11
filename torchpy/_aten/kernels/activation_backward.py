"""Backward ops of activations: threshold_backward (ReLU's gradient)."""

from __future__ import annotations

from ..registry import register
from .elementwise import elementwise
from .variants import out_of


@elementwise("threshold_backward", operands=2, keys=())
def threshold_backward(xp, grad_output, self, threshold):
    # The gradient passes where the input is above the threshold, as torch's kernel does.
    return xp.where(self > threshold, grad_output, xp.zeros((), dtype=xp.result_type(grad_output)))


register("threshold_backward", ("CPU", "Meta"), threshold_backward)


def _threshold_backward_out(grad_output, self, threshold, *, grad_input):
    return out_of(threshold_backward)(grad_output, self, threshold, out=grad_input)


register("threshold_backward_out", ("CPU", "Meta"), _threshold_backward_out)
