"""Derivatives of pointwise ops."""

from __future__ import annotations

from . import derivative


@derivative("aten::add.Tensor", "AddBackward0", inputs=("self", "other"), save=("alpha",))
def add_backward(grad, alpha):
    return grad, grad if alpha == 1 else grad * alpha


@derivative("aten::sub.Tensor", "SubBackward0", inputs=("self", "other"), save=("alpha",))
def sub_backward(grad, alpha):
    return grad, grad * -alpha


@derivative("aten::mul.Tensor", "MulBackward0", inputs=("self", "other"), save=("self", "other"))
def mul_backward(grad, self, other):
    return grad * other, grad * self


@derivative("aten::div.Tensor", "DivBackward0", inputs=("self", "other"), save=("self", "other"))
def div_backward(grad, self, other):
    return grad / other, grad * -self / (other * other)
