"""Backward ops of activations, which PyTorch's formulas call (so a dispatch mode sees them):
threshold_backward (ReLU's gradient), tanh_backward, sigmoid_backward."""

from __future__ import annotations

from ..registry import register
from .elementwise import elementwise
from .variants import out_of


@elementwise("threshold_backward", operands=2, keys=())
def threshold_backward(xp, grad_output, self, threshold):
    # The gradient passes where the input is above the threshold, as torch's kernel does.
    return xp.where(self > threshold, grad_output, xp.zeros((), dtype=xp.result_type(grad_output)))


@elementwise("tanh_backward", operands=2, keys=())
def tanh_backward(xp, grad_output, output):
    return grad_output * (1 - output * output)


@elementwise("sigmoid_backward", operands=2, keys=())
def sigmoid_backward(xp, grad_output, output):
    return grad_output * ((1 - output) * output)


def _out_kernel(kernel, name):
    def out(grad_output, second, *args, grad_input):
        return out_of(kernel)(grad_output, second, *args, out=grad_input)

    out.__name__ = name
    return out


for _kernel, _name in ((threshold_backward, "threshold_backward"), (tanh_backward, "tanh_backward"),
                       (sigmoid_backward, "sigmoid_backward")):
    register(_name, ("CPU", "Meta"), _kernel)
    register(_name + "_out", ("CPU", "Meta"), _out_kernel(_kernel, _name + "_out"))
