"""Derivatives of pointwise ops (the facts of PyTorch's derivatives.yaml, our own code).

Gradients are un-broadcast centrally (node.py), so a formula may return a
gradient of the broadcast shape. Non-tensor arguments (a Scalar `other`,
`alpha`) arrive as Python numbers.
"""

from __future__ import annotations

import math

import torchpy

from . import derivative
from ._common import not_differentiable

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _zeros(grad):
    return torchpy.zeros_like(grad)


# --- add / sub / mul / div -------------------------------------------------------------------


@derivative("aten::add.Tensor", "AddBackward0", inputs=("self", "other"), save=("alpha",))
def add_backward(grad, alpha):
    return grad, grad if alpha == 1 else grad * alpha


@derivative("aten::add.Scalar", "AddBackward1", inputs=("self",))
def add_scalar_backward(grad):
    return grad


@derivative("aten::sub.Tensor", "SubBackward0", inputs=("self", "other"), save=("alpha",))
def sub_backward(grad, alpha):
    return grad, grad * -alpha


@derivative("aten::sub.Scalar", "SubBackward1", inputs=("self",))
def sub_scalar_backward(grad):
    return grad


# rsub(self, other, alpha) = other - alpha * self
@derivative("aten::rsub.Tensor", "RsubBackward0", inputs=("self", "other"), save=("alpha",))
def rsub_backward(grad, alpha):
    return grad * -alpha, grad


@derivative("aten::rsub.Scalar", "RsubBackward1", inputs=("self",), save=("alpha",))
def rsub_scalar_backward(grad, alpha):
    return grad * -alpha


@derivative("aten::mul.Tensor", "MulBackward0", inputs=("self", "other"), save=("self", "other"))
def mul_backward(grad, self, other, needs):
    # torch's generated MulBackward0 computes other's gradient first
    grad_other = grad * self if needs[1] else None
    return (grad * other if needs[0] else None), grad_other


@derivative("aten::mul.Scalar", "MulBackward1", inputs=("self",), save=("other",))
def mul_scalar_backward(grad, other):
    return grad * other


@derivative("aten::div.Tensor", "DivBackward0", inputs=("self", "other"), save=("self", "other"))
def div_backward(grad, self, other, needs):
    grad_self = grad / other if needs[0] else None
    grad_other = -grad * self / (other * other) if needs[1] else None
    return grad_self, grad_other


@derivative("aten::div.Scalar", "DivBackward1", inputs=("self",), save=("other",))
def div_scalar_backward(grad, other):
    return grad / other


@derivative("aten::threshold_backward", "ThresholdBackwardBackward0", inputs=("grad_output", "self"),
            save=("self", "threshold"))
def threshold_backward_backward(grad, self, threshold):
    return torchpy.ops.aten.threshold_backward.default(grad, self, threshold), None


# With a rounding mode the result is piecewise constant: zero gradient.
@derivative("aten::div.Tensor_mode", "DivBackward2", inputs=("self", "other"),
            save=("self", "other", "rounding_mode"))
def div_mode_backward(grad, self, other, rounding_mode, needs):
    if rounding_mode is not None:
        return _zeros(grad), _zeros(grad)
    return div_backward(grad, self, other, needs)


@derivative("aten::div.Scalar_mode", "DivBackward3", inputs=("self",), save=("other", "rounding_mode"))
def div_scalar_mode_backward(grad, other, rounding_mode):
    return _zeros(grad) if rounding_mode is not None else grad / other


# remainder(a, b) = a - b * floor(a / b); fmod uses trunc instead of floor.
@derivative("aten::remainder.Tensor", "RemainderBackward1", inputs=("self", "other"), save=("self", "other"))
def remainder_backward(grad, self, other):
    return grad, -grad * torchpy.div(self, other, rounding_mode="floor")


@derivative("aten::remainder.Scalar", "RemainderBackward0", inputs=("self",))
def remainder_scalar_backward(grad):
    return grad


@derivative("aten::fmod.Tensor", "FmodBackward1", inputs=("self", "other"), save=("self", "other"))
def fmod_backward(grad, self, other):
    return grad, -grad * torchpy.div(self, other, rounding_mode="trunc")


@derivative("aten::fmod.Scalar", "FmodBackward0", inputs=("self",))
def fmod_scalar_backward(grad):
    return grad


# --- pow -------------------------------------------------------------------------------------


@derivative("aten::pow.Tensor_Scalar", "PowBackward0", inputs=("self",), save=("self", "exponent"))
def pow_scalar_exponent_backward(grad, self, exponent):
    if exponent == 0:
        return _zeros(grad)
    # torch computes with the exponent as a double (or complex): pow(x, 1.0), then mul.Scalar
    exponent = complex(exponent) if isinstance(exponent, complex) else float(exponent)
    return grad * torchpy.ops.aten.mul.Scalar(self.pow(exponent - 1), exponent)


# pow_.Scalar is pow.Tensor_Scalar's in-place form (not pow.Scalar's): registered by name.
derivative("aten::pow_.Scalar", "PowBackward0", inputs=("self",), save=("self", "exponent"))(
    pow_scalar_exponent_backward)


@derivative("aten::pow.Tensor_Tensor", "PowBackward1", inputs=("self", "exponent"),
            save=("self", "exponent", "result"))
def pow_backward(grad, self, exponent, result):
    # d/dself: exponent * self^(exponent-1), defined as 0 where exponent == 0 (even at self == 0).
    grad_self = torchpy.where(exponent == 0, 0.0, grad * exponent * self.pow(exponent - 1))
    return grad_self, _pow_exponent_grad(grad, self, exponent, result)


derivative("aten::pow_.Tensor", "PowBackward1", inputs=("self", "exponent"),
           save=("self", "exponent", "result"))(pow_backward)


def _pow_exponent_grad(grad, base, exponent, result):
    """d/dexponent of base^exponent = result * log(base), taken as 0 where base == 0, exponent >= 0."""
    at_zero = (base == 0) & (exponent >= 0)
    return grad * torchpy.where(at_zero, 0.0, result * torchpy.log(base))


@derivative("aten::pow.Scalar", "PowBackward2", inputs=("exponent",), save=("self", "exponent", "result"))
def pow_scalar_base_backward(grad, self, exponent, result):
    if self == 0:
        return grad * torchpy.where(exponent >= 0, 0.0, result * -math.inf)
    log_base = math.log(self) if self > 0 else math.nan
    return grad * (result * log_base)


# --- unary -----------------------------------------------------------------------------------


@derivative("aten::abs", "AbsBackward0", inputs=("self",), save=("self",))
def abs_backward(grad, self):
    return grad * self.sign()


@derivative("aten::neg", "NegBackward0", inputs=("self",))
def neg_backward(grad):
    return -grad


@derivative("aten::exp", "ExpBackward0", inputs=("self",), save=("result",))
def exp_backward(grad, result):
    return grad * result


@derivative("aten::exp2", "Exp2Backward0", inputs=("self",), save=("result",))
def exp2_backward(grad, result):
    return grad * (result * _LN2)


@derivative("aten::expm1", "Expm1Backward0", inputs=("self",), save=("result",))
def expm1_backward(grad, result):
    return grad * (result + 1)


@derivative("aten::log", "LogBackward0", inputs=("self",), save=("self",))
def log_backward(grad, self):
    return grad / self


@derivative("aten::log2", "Log2Backward0", inputs=("self",), save=("self",))
def log2_backward(grad, self):
    return grad / (self * _LN2)


@derivative("aten::log10", "Log10Backward0", inputs=("self",), save=("self",))
def log10_backward(grad, self):
    return grad / (self * _LN10)


@derivative("aten::log1p", "Log1PBackward0", inputs=("self",), save=("self",))
def log1p_backward(grad, self):
    return grad / (self + 1)


@derivative("aten::sqrt", "SqrtBackward0", inputs=("self",), save=("result",))
def sqrt_backward(grad, result):
    return grad / (result * 2)


@derivative("aten::rsqrt", "RsqrtBackward0", inputs=("self",), save=("result",))
def rsqrt_backward(grad, result):
    return grad * (result.pow(3) * -0.5)


@derivative("aten::reciprocal", "ReciprocalBackward0", inputs=("self",), save=("result",))
def reciprocal_backward(grad, result):
    return grad * -(result * result)


@derivative("aten::sin", "SinBackward0", inputs=("self",), save=("self",))
def sin_backward(grad, self):
    return grad * self.cos()


@derivative("aten::cos", "CosBackward0", inputs=("self",), save=("self",))
def cos_backward(grad, self):
    return grad * -self.sin()


@derivative("aten::tan", "TanBackward0", inputs=("self",), save=("result",))
def tan_backward(grad, result):
    return grad * (result * result + 1)


@derivative("aten::asin", "AsinBackward0", inputs=("self",), save=("self",))
def asin_backward(grad, self):
    return grad * (1 - self * self).rsqrt()


@derivative("aten::acos", "AcosBackward0", inputs=("self",), save=("self",))
def acos_backward(grad, self):
    return grad * -(1 - self * self).rsqrt()


@derivative("aten::atan", "AtanBackward0", inputs=("self",), save=("self",))
def atan_backward(grad, self):
    return grad / (self * self + 1)


@derivative("aten::sinh", "SinhBackward0", inputs=("self",), save=("self",))
def sinh_backward(grad, self):
    return grad * self.cosh()


@derivative("aten::cosh", "CoshBackward0", inputs=("self",), save=("self",))
def cosh_backward(grad, self):
    return grad * self.sinh()


@derivative("aten::tanh", "TanhBackward0", inputs=("self",), save=("result",))
def tanh_backward(grad, result):
    return grad * (1 - result * result)


@derivative("aten::sigmoid", "SigmoidBackward0", inputs=("self",), save=("result",))
def sigmoid_backward(grad, result):
    return grad * (result * (1 - result))


@derivative("aten::relu", "ReluBackward0", inputs=("self",), save=("result",))
def relu_backward(grad, result):
    return torchpy.ops.aten.threshold_backward.default(grad, result, 0)


@derivative("aten::erf", "ErfBackward0", inputs=("self",), save=("self",))
def erf_backward(grad, self):
    return grad * ((-(self * self)).exp() * _TWO_OVER_SQRT_PI)


@derivative("aten::erfc", "ErfcBackward0", inputs=("self",), save=("self",))
def erfc_backward(grad, self):
    return grad * ((-(self * self)).exp() * -_TWO_OVER_SQRT_PI)


# Piecewise-constant functions: zero gradient (torch records a node all the same).
def _register_zero_gradient(op: str, node_name: str) -> None:
    derivative(op, node_name, inputs=("self",))(_zeros)


for _op, _name in (
    ("aten::sign", "SignBackward0"),
    ("aten::sgn", "SgnBackward0"),  # zero for real inputs (complex ones need conj: not yet)
    ("aten::floor", "FloorBackward0"),
    ("aten::ceil", "CeilBackward0"),
    ("aten::trunc", "TruncBackward0"),
    ("aten::round", "RoundBackward0"),
    ("aten::round.decimals", "RoundBackward1"),
):
    _register_zero_gradient(_op, _name)


@derivative("aten::frac", "FracBackward0", inputs=("self",))
def frac_backward(grad):
    return grad


@derivative("aten::nan_to_num", "NanToNumBackward0", inputs=("self",), save=("self",))
def nan_to_num_backward(grad, self):
    return grad * self.isfinite()


# --- clamp -----------------------------------------------------------------------------------
# The gradient flows to self where it lies inside [min, max] (bounds included).


@derivative("aten::clamp", "ClampBackward1", inputs=("self",), save=("self", "min", "max"))
def clamp_backward(grad, self, min, max):
    if min is None and max is None:
        return grad
    if max is None:
        inside = self >= min
    elif min is None:
        inside = self <= max
    else:
        inside = (self >= min) & (self <= max)
    return torchpy.where(inside, grad, 0.0)


@derivative("aten::clamp.Tensor", "ClampBackward0", inputs=("self", "min", "max"), save=("self", "min", "max"))
def clamp_tensor_backward(grad, self, min, max):
    grad_self = clamp_backward(grad, self, min, max)
    if min is not None and max is not None:
        # With min > max the result is max everywhere: max gets the gradient.
        grad_min = torchpy.where((self < min) & (min < max), grad, 0.0)
        grad_max = torchpy.where((self > max) | (max < min), grad, 0.0)
    else:
        grad_min = None if min is None else torchpy.where(self < min, grad, 0.0)
        grad_max = None if max is None else torchpy.where(self > max, grad, 0.0)
    return grad_self, grad_min, grad_max


@derivative("aten::clamp_min", "ClampMinBackward0", inputs=("self",), save=("self", "min"))
def clamp_min_backward(grad, self, min):
    return torchpy.where(self >= min, grad, 0.0)


@derivative("aten::clamp_min.Tensor", "ClampMinBackward1", inputs=("self", "min"), save=("self", "min"))
def clamp_min_tensor_backward(grad, self, min):
    return torchpy.where(self >= min, grad, 0.0), torchpy.where(self < min, grad, 0.0)


@derivative("aten::clamp_max", "ClampMaxBackward0", inputs=("self",), save=("self", "max"))
def clamp_max_backward(grad, self, max):
    return torchpy.where(self <= max, grad, 0.0)


@derivative("aten::clamp_max.Tensor", "ClampMaxBackward1", inputs=("self", "max"), save=("self", "max"))
def clamp_max_tensor_backward(grad, self, max):
    return torchpy.where(self <= max, grad, 0.0), torchpy.where(self > max, grad, 0.0)


# --- binary functions ------------------------------------------------------------------------


# Ties split the gradient in half between the two inputs.
@derivative("aten::maximum", "MaximumBackward0", inputs=("self", "other"), save=("self", "other"))
def maximum_backward(grad, self, other):
    shared = torchpy.where(self == other, grad / 2, grad)
    return shared.masked_fill(self < other, 0), shared.masked_fill(self > other, 0)


@derivative("aten::minimum", "MinimumBackward0", inputs=("self", "other"), save=("self", "other"))
def minimum_backward(grad, self, other):
    shared = torchpy.where(self == other, grad / 2, grad)
    return shared.masked_fill(self > other, 0), shared.masked_fill(self < other, 0)


@derivative("aten::atan2", "Atan2Backward0", inputs=("self", "other"), save=("self", "other"))
def atan2_backward(grad, self, other):
    scale = grad / (self * self + other * other)
    return scale * other, scale * -self


@derivative("aten::hypot", "HypotBackward0", inputs=("self", "other"), save=("self", "other", "result"))
def hypot_backward(grad, self, other, result):
    scale = grad / result
    return scale * self, scale * other


@derivative("aten::lerp.Scalar", "LerpBackward0", inputs=("self", "end"), save=("weight",))
def lerp_scalar_backward(grad, weight):
    return grad * (1 - weight), grad * weight


@derivative("aten::lerp.Tensor", "LerpBackward1", inputs=("self", "end", "weight"),
            save=("self", "end", "weight"))
def lerp_backward(grad, self, end, weight):
    return grad * (1 - weight), grad * weight, grad * (end - self)


# --- selection -------------------------------------------------------------------------------


@derivative("aten::where.self", "WhereBackward0", inputs=("self", "other"), save=("condition",))
def where_backward(grad, condition):
    return torchpy.where(condition, grad, 0.0), torchpy.where(condition, 0.0, grad)


@derivative("aten::masked_fill.Scalar", "MaskedFillBackward0", inputs=("self",), save=("mask",))
def masked_fill_backward(grad, mask):
    return grad.masked_fill(mask, 0)


@derivative("aten::masked_fill.Tensor", "MaskedFillBackward1", inputs=("self", "value"), save=("mask",))
def masked_fill_tensor_backward(grad, mask):
    return grad.masked_fill(mask, 0), torchpy.where(mask, grad, 0.0).sum()


# --- comparisons and logical ops written into a float tensor (x.eq_(y)) ------------------------
# The functional forms return bool (nothing to differentiate). The in-place comparisons record
# a node with zero gradients; the in-place logical ops record nothing at all, so the result
# keeps self's old history (torch's behavior).


def _zero_for_both(grad):
    return torchpy.zeros_like(grad), torchpy.zeros_like(grad)


for _compare in ("eq", "ne", "lt", "le", "gt", "ge"):
    _title = _compare.capitalize()
    derivative(f"aten::{_compare}_.Scalar", f"{_title}Backward0", inputs=("self",))(_zeros)
    derivative(f"aten::{_compare}_.Tensor", f"{_title}Backward1", inputs=("self", "other"))(_zero_for_both)

for _logical in ("logical_and_", "logical_or_", "logical_xor_", "logical_not_"):
    not_differentiable(f"aten::{_logical}")
