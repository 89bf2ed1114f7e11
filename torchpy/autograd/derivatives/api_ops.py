"""Derivatives of api_ops.yaml's ops: fmax / fmin, tril / triu (PyTorch's derivatives.yaml facts)."""

from __future__ import annotations

from ..._aten.public import functions

from ..._dispatch.ops import ops
from ..._tensor.dtype import int64 as _int64
from ..._tensor.enums import preserve_format, strided
from . import formula
from ._common import scale, shift
from .forward import jvp_rule


def _fmax_mask(self, other):
    """Where fmax takes self: self >= other, or other is NaN."""
    return functions.ge(self, other).logical_or_(functions.isnan(other))


@formula(inputs=("self", "other"), save=("self", "other"))
def fmax_backward(grad, self, other, needs):
    grad_other = grad.masked_fill(_fmax_mask(self, other), 0) if needs[1] else None
    grad_self = grad.masked_fill(_fmax_mask(self, other).logical_not_(), 0) if needs[0] else None
    return grad_self, grad_other


def _fmin_mask(self, other):
    """Where fmin takes self: self <= other, or other is NaN."""
    return functions.le(self, other).logical_or_(functions.isnan(other))


@formula(inputs=("self", "other"), save=("self", "other"))
def fmin_backward(grad, self, other, needs):
    grad_other = grad.masked_fill(_fmin_mask(self, other), 0) if needs[1] else None
    grad_self = grad.masked_fill(_fmin_mask(self, other).logical_not_(), 0) if needs[0] else None
    return grad_self, grad_other


@formula(inputs=("self",), save=("diagonal",))
def tril_backward(grad, diagonal):
    return functions.tril(grad, diagonal)


@formula(inputs=("self",), save=("diagonal",))
def triu_backward(grad, diagonal):
    return functions.triu(grad, diagonal)


# --- pointwise (api_pointwise.py's kernels) ----------------------------------------------------

_PI_OVER_180 = 0.017453292519943295  # M_PI / 180, the double torch multiplies by
_180_OVER_PI = 57.29577951308232


@formula(inputs=("self",), save=("self",))
def acosh_backward(grad, self):
    # torch conjugates the factor: a no-op for the real inputs these kernels take
    return grad * ops.aten.sub.Scalar(self * self, 1).rsqrt()


@formula(inputs=("self",), save=("self",))
def asinh_backward(grad, self):
    return grad * shift(self.pow(2), 1).rsqrt()


@formula(inputs=("self",), save=("self",))
def atanh_backward(grad, self):
    # grad * 1 / (1 - self^2), with C++'s `1 - t` (empty_like, fill_, sub_) and `grad * 1`
    square = self.pow(2)
    one_minus = ops.aten.empty_like(square, memory_format=preserve_format).fill_(1).sub_(square)
    return scale(grad, 1) / one_minus


@formula(inputs=("self",))
def deg2rad_backward(grad):
    return scale(grad, _PI_OVER_180)


@formula(inputs=("self",))
def rad2deg_backward(grad):
    return scale(grad, _180_OVER_PI)


@formula(inputs=("self", "other"), save=("self", "other"))
def logaddexp_backward(grad, self, other, needs):
    grad_other = grad / shift(functions.exp(self - other), 1) if needs[1] else None
    grad_self = grad / shift(functions.exp(other - self), 1) if needs[0] else None
    return grad_self, grad_other


@formula(inputs=("self", "other"), save=("self", "other"))
def logaddexp2_backward(grad, self, other, needs):
    grad_other = grad / shift(functions.pow(2, self - other), 1) if needs[1] else None
    grad_self = grad / shift(functions.pow(2, other - self), 1) if needs[0] else None
    return grad_self, grad_other


def _copysign_self(grad, self, result):
    ratio = result / self
    ratio.masked_fill_(self == 0, 0)
    return grad * ratio


@formula(inputs=("self", "other"), save=("self", "other", "result"))
def copysign_backward(grad, self, other, result, needs):
    grad_other = ops.aten.zeros(list(other.shape), dtype=other.dtype, layout=strided, device=other.device) \
        if needs[1] else None
    grad_self = _copysign_self(grad, self, result) if needs[0] else None
    return grad_self, grad_other


@formula(inputs=("self",), save=("self", "result"))
def copysign_scalar_backward(grad, self, result):
    return _copysign_self(grad, self, result)


def _xlogy_self(grad, self, other):
    """xlogy(grad, other), zero where self == 0 and other <= 0 (0 * log(y) is 0 there)."""
    result = functions.xlogy(grad, other)
    if isinstance(other, (int, float)):
        return result.masked_fill(self == 0.0, 0.0) if other <= 0 else result
    other_nonpositive = other <= 0.0  # C++ evaluates the right operand of & first here
    return result.masked_fill(functions.bitwise_and(self == 0.0, other_nonpositive), 0.0)


@formula(inputs=("self", "other"), save=("self", "other"))
def xlogy_backward(grad, self, other, needs):
    grad_other = grad * self / other if needs[1] else None
    grad_self = _xlogy_self(grad, self, other) if needs[0] else None
    return grad_self, grad_other


@formula(inputs=("other",), save=("self", "other"))
def xlogy_scalar_self_backward(grad, self, other):
    return scale(grad, self) / other


@formula(inputs=("self",), save=("self", "other"))
def xlogy_scalar_other_backward(grad, self, other):
    return _xlogy_self(grad, self, other)


@jvp_rule
def copysign_jvp(T, V, outputs):
    """Only self's tangent moves the result (other gives the sign alone), as in torch."""
    if T["self"] is None:
        return None
    return _copysign_self(T["self"], V["self"], outputs[0])


# --- roll, trace -----------------------------------------------------------------------------------

@formula(inputs=("self",), save=("shifts", "dims"))
def roll_backward(grad, shifts, dims):
    # torch's roll_backward undoes the shifts in reverse order
    return functions.roll(grad, [-s for s in reversed(shifts)], list(reversed(dims)))


@formula(inputs=("self",), save=("self.shape",))
def trace_backward(grad, self_shape):
    # torch: zeros(rows * cols), the diagonal's flat positions filled with grad, viewed back
    rows, cols = self_shape
    flat = ops.aten.zeros([rows * cols], dtype=grad.dtype, layout=strided, device=grad.device)
    positions = ops.aten.arange.start_step(0, min(rows, cols) * (cols + 1), cols + 1, dtype=_int64,
                                           layout=strided, device=grad.device)
    return flat.index_fill(0, positions, grad).view(list(self_shape))


_PI = 3.141592653589793


@formula(inputs=("self",), save=("self",))
def sinc_backward(grad, self):
    # (pi x cos(pi x) - sin(pi x)) / (pi x^2), zero at x == 0, in the order of torch's C++ expression
    squared_pi = self * scale(self, _PI)
    self_pi = scale(self, _PI)
    sine = self_pi.sin()
    slope = (self_pi * self_pi.cos() - sine) / squared_pi
    out = grad * slope
    zero = ops.aten.scalar_tensor(0.0, dtype=grad.dtype, layout=strided, device=grad.device)
    return functions.where(ops.aten.eq.Scalar(squared_pi, 0.0), zero, out)


@formula(inputs=("self",), save=("offset", "dim1", "dim2"))
def diag_embed_backward(grad, offset, dim1, dim2):
    return grad.diagonal(offset, dim1, dim2)
