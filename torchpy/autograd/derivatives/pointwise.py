"""Derivatives of pointwise ops (the facts of PyTorch's derivatives.yaml, our own code).

Gradients are un-broadcast centrally (node.py), so a formula may return a
gradient of the broadcast shape. Non-tensor arguments (a Scalar `other`,
`alpha`) arrive as Python numbers.
"""

from __future__ import annotations

import math

from ..._aten.public import functions  # torchpy.<name>, made below the package root
from ..._dispatch.ops import ops
from ..._tensor.enums import contiguous_format, preserve_format
from ..._aten.fastcall import aten as fast_aten, call

from . import formula
from ._common import scalar_zero, scale, shift, zeros_like, zeros_like_options, zeros_of

_LN2 = math.log(2.0)
_LN10 = 2.3025850929940455  # the double torch multiplies by (math.log(10.0) is one ulp above)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


# Piecewise-constant functions (sign, floor, round, ...): zero gradient (torch records a node all the same).
@formula(inputs=("self",))
def zeros_backward(grad):
    return zeros_like(grad)


aten = ops.aten

# PyTorch's generated backward functions compute the last input's gradient first where
# derivatives.yaml gives one formula per input; the formulas below keep that order, and
# the order of the aten calls inside each C++ expression.

# --- add / sub / mul / div -------------------------------------------------------------------


def _times_alpha(grad, alpha):
    return grad if alpha == 1 else scale(grad, alpha)


@formula(inputs=("self", "other"), save=("alpha",))
def add_backward(grad, alpha, needs):
    grad_other = _times_alpha(grad, alpha) if needs[1] else None
    return grad, grad_other


@formula(inputs=("self",))
def add_scalar_backward(grad):
    return grad


@formula(inputs=("self", "other"), save=("alpha",))
def sub_backward(grad, alpha, needs):
    grad_other = _times_alpha(-grad, alpha) if needs[1] else None
    return grad, grad_other


@formula(inputs=("self",))
def sub_scalar_backward(grad):
    return grad


# rsub(self, other, alpha) = other - alpha * self
@formula(inputs=("self", "other"), save=("alpha",))
def rsub_backward(grad, alpha, needs):
    return (_times_alpha(-grad, alpha) if needs[0] else None), grad


@formula(inputs=("self",), save=("alpha",))
def rsub_scalar_backward(grad, alpha):
    return _times_alpha(-grad, alpha)


@formula(inputs=("self", "other"), save=("self", "other"))
def mul_backward(grad, self, other, needs):
    grad_other = grad * self if needs[1] else None
    return (grad * other if needs[0] else None), grad_other


@formula(inputs=("self",), save=("other",))
def mul_scalar_backward(grad, other):
    return scale(grad, other)


@formula(inputs=("self", "other"), save=("self", "other"))
def div_backward(grad, self, other, needs):
    grad_other = None
    if needs[1]:
        quotient = self / other / other
        grad_other = -grad * quotient
    return (grad / other if needs[0] else None), grad_other


@formula(inputs=("self",), save=("other",))
def div_scalar_backward(grad, other):
    return aten.div.Scalar(grad, other)


@formula(inputs=("grad_output", "self"),
         save=("self", "threshold"))
def threshold_backward_backward(grad, self, threshold, needs):
    grad_grad_output = aten.threshold_backward.default(grad, self, threshold) if needs[0] else None
    return grad_grad_output, (zeros_like(grad) if needs[1] else None)


# With a rounding mode the result is piecewise constant: zero gradient.
@formula(inputs=("self", "other"),
         save=("self", "other", "rounding_mode"))
def div_mode_backward(grad, self, other, rounding_mode, needs):
    if rounding_mode is not None:
        grad_other = zeros_like_options(grad) if needs[1] else None
        return (zeros_like_options(grad) if needs[0] else None), grad_other
    return div_backward(grad, self, other, needs)


@formula(inputs=("self",), save=("other", "rounding_mode"))
def div_scalar_mode_backward(grad, other, rounding_mode):
    return zeros_like_options(grad) if rounding_mode is not None else aten.div.Scalar(grad, other)


def _minus_grad_times(grad, factor):
    return -grad * factor


# remainder(a, b) = a - b * floor(a / b); fmod uses trunc instead of floor.
@formula(inputs=("self", "other"), save=("self", "other"))
def remainder_backward(grad, self, other, needs):
    grad_other = _minus_grad_times(grad, functions.div(self, other, rounding_mode="floor")) if needs[1] else None
    return grad, grad_other


@formula(inputs=("self",))
def remainder_scalar_backward(grad):
    return grad


@formula(inputs=("self", "other"), save=("self", "other"))
def fmod_backward(grad, self, other, needs):
    grad_other = _minus_grad_times(grad, functions.div(self, other, rounding_mode="trunc")) if needs[1] else None
    return grad, grad_other


@formula(inputs=("self",))
def fmod_scalar_backward(grad):
    return grad


# --- pow -------------------------------------------------------------------------------------


@formula(inputs=("self",), save=("self", "exponent"))
def pow_scalar_exponent_backward(grad, self, exponent):
    if exponent == 0:
        return zeros_like(self, memory_format=contiguous_format)
    exponent = complex(exponent) if isinstance(exponent, complex) else float(exponent)  # a C++ Scalar's double
    return grad * scale(self.pow(exponent - 1), exponent)


@formula(inputs=("self", "exponent"),
         save=("self", "exponent", "result"))
def pow_backward(grad, self, exponent, result, needs):
    grad_exponent = _pow_exponent_grad(grad, self, exponent, result) if needs[1] else None
    grad_self = None
    if needs[0]:
        # d/dself: exponent * self^(exponent-1), defined as 0 where exponent == 0 (even at self == 0).
        power = self.pow(aten.sub.Scalar(exponent, 1))
        product = grad * (exponent * power)
        zero = scalar_zero(product)
        grad_self = functions.where(aten.eq.Scalar(exponent, 0.0), zero, product)
    return grad_self, grad_exponent


def _pow_exponent_grad(grad, base, exponent, result):
    """d/dexponent of base^exponent = result * log(base), taken as 0 where base == 0, exponent >= 0."""
    non_negative = exponent >= 0
    at_zero = functions.logical_and(base == 0, non_negative)
    log_base = functions.log(base)
    product = result * log_base
    return grad * functions.where(at_zero, scalar_zero(product), product)


@formula(inputs=("exponent",), save=("self", "exponent", "result"))
def pow_scalar_base_backward(grad, self, exponent, result):
    if self == 0:
        product = scale(result, -math.inf)
        zero = zeros_of((), product)
        return grad * functions.where(aten.ge.Scalar(exponent, 0), zero, product)
    log_base = math.log(self) if self > 0 else math.nan
    return grad * scale(result, log_base)


# --- unary -----------------------------------------------------------------------------------


@formula(inputs=("self",), save=("self",))
def abs_backward(grad, self):
    return grad * self.sgn()


@formula(inputs=("self",))
def neg_backward(grad):
    return -grad


@formula(inputs=("self",), save=("result",))
def exp_backward(grad, result):
    return grad * result


@formula(inputs=("self",), save=("result",))
def exp2_backward(grad, result):
    return scale(grad * result, _LN2)


@formula(inputs=("self",), save=("result",))
def expm1_backward(grad, result):
    return grad * shift(result, 1)


@formula(inputs=("self",), save=("self",))
def log_backward(grad, self):
    return grad / self


@formula(inputs=("self",), save=("self",))
def log2_backward(grad, self):
    return grad / scale(self, _LN2)


@formula(inputs=("self",), save=("self",))
def log10_backward(grad, self):
    return grad / scale(self, _LN10)


@formula(inputs=("self",), save=("self",))
def log1p_backward(grad, self):
    return grad / shift(self, 1)


@formula(inputs=("self",), save=("result",))
def sqrt_backward(grad, result):
    return grad / scale(result, 2)


@formula(inputs=("self",), save=("result",))
def rsqrt_backward(grad, result):
    return grad * scale(result.pow(3), -0.5)


@formula(inputs=("self",), save=("result",))
def reciprocal_backward(grad, result):
    return grad * -(result * result)


@formula(inputs=("self",), save=("self",))
def sin_backward(grad, self):
    return grad * self.cos()


@formula(inputs=("self",), save=("self",))
def cos_backward(grad, self):
    return grad * -self.sin()


@formula(inputs=("self",), save=("result",))
def tan_backward(grad, result):
    return grad * shift(result.pow(2), 1)


def _one_minus_square_rsqrt(self):
    return shift(-self * self, 1).rsqrt()


@formula(inputs=("self",), save=("self",))
def asin_backward(grad, self):
    return grad * _one_minus_square_rsqrt(self)


@formula(inputs=("self",), save=("self",))
def acos_backward(grad, self):
    return grad * -_one_minus_square_rsqrt(self)


@formula(inputs=("self",), save=("self",))
def atan_backward(grad, self):
    return grad / shift(self * self, 1)


@formula(inputs=("self",), save=("self",))
def sinh_backward(grad, self):
    return grad * self.cosh()


@formula(inputs=("self",), save=("self",))
def cosh_backward(grad, self):
    return grad * self.sinh()


@formula(inputs=("self",), save=("result",))
def tanh_backward(grad, result):
    return aten.tanh_backward.default(grad, result)


@formula(inputs=("grad_output", "output"),
         save=("grad_output", "output"))
def tanh_backward_backward(grad, grad_output, output, needs):
    # tanh_backward(g, y) = g * (1 - y^2)
    grad_output_grad = aten.tanh_backward.default(grad, output) if needs[0] else None
    output_grad = scale(output, -2) * grad_output * grad if needs[1] else None
    return grad_output_grad, output_grad


@formula(inputs=("self",), save=("result",))
def sigmoid_backward(grad, result):
    return aten.sigmoid_backward.default(grad, result)


@formula(inputs=("grad_output", "output"),
         save=("grad_output", "output"))
def sigmoid_backward_backward(grad, grad_output, output, needs):
    # sigmoid_backward(g, y) = g * y * (1 - y)
    grad_output_grad = aten.sigmoid_backward.default(grad, output) if needs[0] else None
    output_grad = None
    if needs[1]:
        slope = shift(scale(output, -2), 1)
        output_grad = grad * grad_output * slope
    return grad_output_grad, output_grad


@formula(inputs=("self",), save=("result",))
def relu_backward(grad, result):
    return call(_THRESHOLD_BACKWARD, grad._keyset | result._keyset, grad, result, 0)


_THRESHOLD_BACKWARD = fast_aten("threshold_backward")


def _gaussian(self):
    return (-self.pow(2)).exp()


@formula(inputs=("self",), save=("self",))
def erf_backward(grad, self):
    return scale(_gaussian(self), _TWO_OVER_SQRT_PI) * grad


@formula(inputs=("self",), save=("self",))
def erfc_backward(grad, self):
    return scale(_gaussian(self), -_TWO_OVER_SQRT_PI) * grad


@formula(inputs=("self",))
def frac_backward(grad):
    return grad


@formula(inputs=("self",), save=("self",))
def nan_to_num_backward(grad, self):
    return grad * self.isfinite()


# --- clamp -----------------------------------------------------------------------------------
# The gradient flows to self where it lies inside [min, max] (bounds included).


def _where_else_zero(condition_of, grad):
    zero = scalar_zero(grad)  # made before the condition, as the C++ argument order has it
    return functions.where(condition_of(), grad, zero)


@formula(inputs=("self",), save=("self", "min", "max"))
def clamp_backward(grad, self, min, max):
    if min is None and max is None:
        return grad
    if max is None:
        return _where_else_zero(lambda: aten.ge.Scalar(self, min), grad)
    if min is None:
        return _where_else_zero(lambda: aten.le.Scalar(self, max), grad)
    return _where_else_zero(lambda: aten.ge.Scalar(self, min).logical_and_(aten.le.Scalar(self, max)), grad)


@formula(inputs=("self", "min", "max"), save=("self", "min", "max"))
def clamp_tensor_backward(grad, self, min, max, needs):
    grad_min = grad_max = None
    if needs[1] or needs[2]:
        zero = scalar_zero(grad)
        if min is not None and max is not None:
            # With min > max the result is max everywhere: max gets the gradient.
            if needs[1]:
                grad_min = functions.where(functions.logical_and(self < min, min < max), grad, zero)
            if needs[2]:
                grad_max = functions.where(functions.logical_or(self > max, max < min), grad, zero)
        elif min is not None:
            grad_min = functions.where(self < min, grad, zero)
        elif max is not None:
            grad_max = functions.where(self > max, grad, zero)
    grad_self = None
    if needs[0]:
        if min is not None and max is not None:
            grad_self = _where_else_zero(lambda: functions.logical_and(self >= min, self <= max), grad)
        elif min is not None:
            grad_self = _where_else_zero(lambda: self >= min, grad)
        elif max is not None:
            grad_self = _where_else_zero(lambda: self <= max, grad)
        else:
            grad_self = grad
    return grad_self, grad_min, grad_max


@formula(inputs=("self",), save=("self", "min"))
def clamp_min_backward(grad, self, min):
    return _where_else_zero(lambda: aten.ge.Scalar(self, min), grad)


@formula(inputs=("self", "min"), save=("self", "min"))
def clamp_min_tensor_backward(grad, self, min, needs):
    grad_min = _where_else_zero(lambda: self < min, grad) if needs[1] else None
    grad_self = _where_else_zero(lambda: self >= min, grad) if needs[0] else None
    return grad_self, grad_min


@formula(inputs=("self",), save=("self", "max"))
def clamp_max_backward(grad, self, max):
    return _where_else_zero(lambda: aten.le.Scalar(self, max), grad)


@formula(inputs=("self", "max"), save=("self", "max"))
def clamp_max_tensor_backward(grad, self, max, needs):
    grad_max = _where_else_zero(lambda: self > max, grad) if needs[1] else None
    grad_self = _where_else_zero(lambda: self <= max, grad) if needs[0] else None
    return grad_self, grad_max


# --- binary functions ------------------------------------------------------------------------


def _ties(grad, self, other, masked_where: str):
    """grad where self and other differ, half of it at ties, zero where self `masked_where` other."""
    half = aten.div.Scalar(grad, 2)
    shared = functions.where(self == other, half, grad)
    return shared.masked_fill_(getattr(functions, masked_where)(self, other), 0)


@formula(inputs=("self", "other"), save=("self", "other"))
def maximum_backward(grad, self, other, needs):
    grad_other = _ties(grad, self, other, "gt") if needs[1] else None
    grad_self = _ties(grad, self, other, "lt") if needs[0] else None
    return grad_self, grad_other


@formula(inputs=("self", "other"), save=("self", "other"))
def minimum_backward(grad, self, other, needs):
    grad_other = _ties(grad, self, other, "lt") if needs[1] else None
    grad_self = _ties(grad, self, other, "gt") if needs[0] else None
    return grad_self, grad_other


@formula(inputs=("self", "other"), save=("self", "other"))
def atan2_backward(grad, self, other, needs):
    other_squared = other * other
    denominator = (self * self) + other_squared
    reciprocal = denominator.reciprocal()
    reciprocal = reciprocal.masked_fill(aten.eq.Scalar(denominator, 0), 0)
    grad_self = grad * other * reciprocal if needs[0] else None
    grad_other = grad * -self * reciprocal if needs[1] else None
    return grad_self, grad_other


@formula(inputs=("self", "other"), save=("self", "other", "result"))
def hypot_backward(grad, self, other, result, needs):
    grad_other = grad * other / result if needs[1] else None
    grad_self = grad * self / result if needs[0] else None
    return grad_self, grad_other


@formula(inputs=("self", "end"), save=("weight",))
def lerp_scalar_backward(grad, weight, needs):
    grad_end = scale(grad, weight) if needs[1] else None
    grad_self = scale(grad, 1 - weight) if needs[0] else None
    return grad_self, grad_end


@formula(inputs=("self", "end", "weight"),
         save=("self", "end", "weight"))
def lerp_backward(grad, self, end, weight, needs):
    grad_end = grad * weight if needs[1] else None
    grad_self = None
    if needs[0]:
        one_minus_weight = aten.empty_like.default(weight, memory_format=preserve_format).fill_(1).sub_(weight)
        grad_self = grad * one_minus_weight
    grad_weight = grad * (end - self) if needs[2] else None
    return grad_self, grad_end, grad_weight


# --- selection -------------------------------------------------------------------------------


@formula(inputs=("self", "other"), save=("condition",))
def where_backward(grad, condition, needs):
    grad_other = functions.where(condition, scalar_zero(grad, 0), grad) if needs[1] else None
    grad_self = _where_else_zero_int(condition, grad) if needs[0] else None
    return grad_self, grad_other


def _where_else_zero_int(condition, grad):
    zero = scalar_zero(grad, 0)
    return functions.where(condition, grad, zero)


@formula(inputs=("self",), save=("mask",))
def masked_fill_backward(grad, mask):
    return grad.masked_fill(mask, 0)


@formula(inputs=("self", "value"), save=("mask",))
def masked_fill_tensor_backward(grad, mask, needs):
    grad_self = grad.masked_fill(mask, 0) if needs[0] else None
    grad_value = _where_else_zero_int(mask, grad).sum() if needs[1] else None
    return grad_self, grad_value


# --- comparisons and logical ops written into a float tensor (x.eq_(y)) ------------------------
# The functional forms return bool (nothing to differentiate). The in-place comparisons record
# a node with zero gradients; the in-place logical ops record nothing at all, so the result
# keeps self's old history (torch's behavior).


@formula(inputs=("self",))
def compare_scalar_inplace_backward(grad):
    return zeros_of(grad.shape, grad)


@formula(inputs=("self", "other"), save=("other.shape",))
def compare_tensor_inplace_backward(grad, other_shape):
    grad_other = zeros_of(other_shape, grad)  # in other's shape: nothing to un-broadcast
    return zeros_of(grad.shape, grad), grad_other
