"""Derivatives of reductions, scans, norms, softmax and sorting.

A reduction's gradient is its output gradient with the reduced dims restored
(`restore_reduced`), then spread over the inputs that produced each output.
"""

from __future__ import annotations

import math

import numpy as np

import torchpy

from . import derivative
from ._common import reduced_count, reduced_dims, restore_reduced, reverse, wrap_dim, zeros

# --- sum / mean ------------------------------------------------------------------------------


@derivative("aten::sum", "SumBackward0", inputs=("self",), save=("self.shape",))
def sum_backward(grad, self_shape):
    return grad.expand(self_shape)


@derivative("aten::sum.dim_IntList", "SumBackward1", inputs=("self",), save=("self.shape", "dim", "keepdim"))
def sum_dim_backward(grad, self_shape, dim, keepdim):
    return restore_reduced(grad, dim, keepdim, len(self_shape)).expand(self_shape)


@derivative("aten::nansum", "NansumBackward0", inputs=("self",), save=("self", "dim", "keepdim"))
def nansum_backward(grad, self, dim, keepdim):
    spread = restore_reduced(grad, dim, keepdim, self.dim()).expand(self.shape)
    return torchpy.where(self.isnan(), 0.0, spread)


@derivative("aten::mean", "MeanBackward0", inputs=("self",), save=("self.shape",))
def mean_backward(grad, self_shape):
    # grad / n with n a number: PyTorch's formula calls div.Scalar
    return torchpy.ops.aten.div.Scalar(grad.expand(self_shape), reduced_count(self_shape, None))


@derivative("aten::mean.dim", "MeanBackward1", inputs=("self",), save=("self.shape", "dim", "keepdim"))
def mean_dim_backward(grad, self_shape, dim, keepdim):
    spread = restore_reduced(grad, dim, keepdim, len(self_shape)).expand(self_shape)
    return torchpy.ops.aten.div.Scalar(spread, reduced_count(self_shape, dim))


# --- prod ------------------------------------------------------------------------------------


def _exclusive_cumprod(t, dim: int):
    """out[j] = product of t[k] for k < j along dim (1 for j = 0)."""
    n = t.shape[dim]
    ones_shape = list(t.shape)
    ones_shape[dim] = 1
    ones = torchpy.ones(tuple(ones_shape), dtype=t.dtype)
    return torchpy.cat([ones, t.narrow(dim, 0, n - 1)], dim).cumprod(dim)


def _product_of_others(t, dim: int):
    """out[j] = product of t[k] for k != j along dim, without dividing (zeros are fine)."""
    before = _exclusive_cumprod(t, dim)
    after = reverse(_exclusive_cumprod(reverse(t, dim), dim), dim)
    return before * after


@derivative("aten::prod", "ProdBackward0", inputs=("self",), save=("self",))
def prod_backward(grad, self):
    if self.dim() == 0:
        return grad
    if self.numel() == 0:
        return zeros(self.shape, grad)
    others = _product_of_others(self.reshape(-1), 0).reshape(tuple(self.shape))
    return grad * others


@derivative("aten::prod.dim_int", "ProdBackward1", inputs=("self",), save=("self", "dim", "keepdim"))
def prod_dim_backward(grad, self, dim, keepdim):
    if self.dim() == 0:
        return grad
    if self.numel() == 0:
        return zeros(self.shape, grad)
    dim = wrap_dim(dim, self.dim())
    grad = grad if keepdim else grad.unsqueeze(dim)
    return grad * _product_of_others(self, dim)


# --- max / min -------------------------------------------------------------------------------


def _spread_over_ties(grad, self, value, dim, keepdim):
    """Gradient of a value-selecting reduction: split evenly among the inputs equal to it."""
    ndim = self.dim()
    value = restore_reduced(value, dim, keepdim, ndim)
    grad = restore_reduced(grad, dim, keepdim, ndim)
    mask = self == value
    count = mask.sum(reduced_dims(dim, ndim), keepdim=True) if ndim else mask.to(grad.dtype)
    return mask * (grad / count)


@derivative("aten::amax", "AmaxBackward0", inputs=("self",), save=("self", "dim", "keepdim", "result"))
def amax_backward(grad, self, dim, keepdim, result):
    return _spread_over_ties(grad, self, result, dim, keepdim)


@derivative("aten::amin", "AminBackward0", inputs=("self",), save=("self", "dim", "keepdim", "result"))
def amin_backward(grad, self, dim, keepdim, result):
    return _spread_over_ties(grad, self, result, dim, keepdim)


def _spread_over_all_ties(grad, self, value):
    """max() / min() of the whole tensor: ties share the gradient; a NaN result picks the NaNs."""
    mask = (self == value) | (self.isnan() & value.isnan())
    return mask * (grad / mask.sum())


@derivative("aten::max", "MaxBackward1", inputs=("self",), save=("self", "result"))
def max_backward(grad, self, result):
    return _spread_over_all_ties(grad, self, result)


@derivative("aten::min", "MinBackward1", inputs=("self",), save=("self", "result"))
def min_backward(grad, self, result):
    return _spread_over_all_ties(grad, self, result)


def _select_back(grad, indices, shape, dim, keepdim):
    """Gradient of a reduction that picked one element per output at `indices` along dim."""
    if len(shape) == 0:
        return grad
    dim = wrap_dim(dim, len(shape))
    if not keepdim:
        grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
    # the op itself: torch's C++ formula passes no pin_memory, as Tensor.new_zeros does
    return torchpy.ops.aten.new_zeros.default(grad, list(shape)).scatter(dim, indices, grad)


@derivative("aten::max.dim", "MaxBackward0", inputs=("self",), save=("self.shape", "dim", "keepdim", "result1"))
def max_dim_backward(grads, self_shape, dim, keepdim, result1):
    return _select_back(grads[0], result1, self_shape, dim, keepdim)


@derivative("aten::min.dim", "MinBackward0", inputs=("self",), save=("self.shape", "dim", "keepdim", "result1"))
def min_dim_backward(grads, self_shape, dim, keepdim, result1):
    return _select_back(grads[0], result1, self_shape, dim, keepdim)


@derivative("aten::aminmax", "AminmaxBackward0", inputs=("self",),
            save=("self", "dim", "keepdim", "result0", "result1"))
def aminmax_backward(grads, self, dim, keepdim, result0, result1):
    grad_min, grad_max = grads
    return (_spread_over_ties(grad_min, self, result0, dim, keepdim)
            + _spread_over_ties(grad_max, self, result1, dim, keepdim))


# --- var / std -------------------------------------------------------------------------------


def _var_grad(grad, self, dim, correction, keepdim):
    """d var / d self = 2 (self - mean) / (N - correction), N the reduced count."""
    correction = 1 if correction is None else correction
    dof = reduced_count(self.shape, dim) - correction
    scale = 2.0 / dof if dof > 0 else math.inf
    grad = restore_reduced(grad, dim, keepdim, self.dim())
    centered = self - self.mean(reduced_dims(dim, self.dim()), keepdim=True)
    return grad * centered * scale


def _std_grad(grad, self, dim, correction, keepdim, std):
    # std = sqrt(var): d std = d var / (2 std), taken as 0 where std == 0.
    grad_var = (grad / (std * 2)).masked_fill(std == 0, 0)
    return _var_grad(grad_var, self, dim, correction, keepdim)


def _mean_grad(grad, self, dim, keepdim):
    grad = restore_reduced(grad, dim, keepdim, self.dim())
    return grad.expand(self.shape) / reduced_count(self.shape, dim)


@derivative("aten::var.correction", "VarBackward0", inputs=("self",), save=("self", "dim", "correction", "keepdim"))
def var_backward(grad, self, dim, correction, keepdim):
    return _var_grad(grad, self, dim, correction, keepdim)


@derivative("aten::std.correction", "StdBackward0", inputs=("self",),
            save=("self", "dim", "correction", "keepdim", "result"))
def std_backward(grad, self, dim, correction, keepdim, result):
    return _std_grad(grad, self, dim, correction, keepdim, result)


@derivative("aten::var_mean.correction", "VarMeanBackward0", inputs=("self",),
            save=("self", "dim", "correction", "keepdim"))
def var_mean_backward(grads, self, dim, correction, keepdim):
    grad_var, grad_mean = grads
    return _var_grad(grad_var, self, dim, correction, keepdim) + _mean_grad(grad_mean, self, dim, keepdim)


@derivative("aten::std_mean.correction", "StdMeanBackward0", inputs=("self",),
            save=("self", "dim", "correction", "keepdim", "result0"))
def std_mean_backward(grads, self, dim, correction, keepdim, result0):
    grad_std, grad_mean = grads
    return (_std_grad(grad_std, self, dim, correction, keepdim, result0)
            + _mean_grad(grad_mean, self, dim, keepdim))


# --- logsumexp, softmax ----------------------------------------------------------------------


@derivative("aten::logsumexp", "LogsumexpBackward0", inputs=("self",), save=("self", "dim", "keepdim", "result"))
def logsumexp_backward(grad, self, dim, keepdim, result):
    ndim = self.dim()
    grad = restore_reduced(grad, dim, keepdim, ndim)
    result = restore_reduced(result, dim, keepdim, ndim)
    return grad * (self - result).exp()


@derivative("aten::_softmax", "SoftmaxBackward0", inputs=("self",), save=("dim", "result"))
def softmax_backward(grad, dim, result):
    return result * (grad - (grad * result).sum(dim, keepdim=True))


@derivative("aten::_log_softmax", "LogSoftmaxBackward0", inputs=("self",), save=("dim", "result"))
def log_softmax_backward(grad, dim, result):
    return grad - result.exp() * grad.sum(dim, keepdim=True)


# --- cumulative ------------------------------------------------------------------------------


def _reverse_cumsum(t, dim: int):
    """out[i] = sum of t[j] for j >= i along dim."""
    return reverse(reverse(t, dim).cumsum(dim), dim)


@derivative("aten::cumsum", "CumsumBackward0", inputs=("self",), save=("dim",))
def cumsum_backward(grad, dim):
    if grad.dim() == 0:
        return grad
    return _reverse_cumsum(grad, wrap_dim(dim, grad.dim()))


@derivative("aten::cumprod", "CumprodBackward0", inputs=("self",), save=("self", "dim", "result"))
def cumprod_backward(grad, self, dim, result):
    if self.dim() == 0 or self.numel() == 0:
        return grad
    dim = wrap_dim(dim, self.dim())
    if not bool((self == 0).any()):
        # d out[j] / d x[i] = out[j] / x[i] for j >= i
        return _reverse_cumsum(grad * result, dim) / self
    return _cumprod_backward_with_zeros(grad, self, dim)


def _cumprod_backward_with_zeros(grad, self, dim: int):
    """Without dividing: for each i, the cumprod of self with x[i] replaced by 1 gives
    d out[j] / d x[i] for j >= i. Costs n times the memory of self (n = size along dim)."""
    n, ndim = self.shape[dim], self.dim()
    i_shape = [n] + [1] * ndim
    j_shape = [1] * (ndim + 1)
    j_shape[dim + 1] = n
    i = np.arange(n).reshape(i_shape)
    j = np.arange(n).reshape(j_shape)
    replaced = torchpy.where(torchpy.tensor(i == j), 1.0, self.unsqueeze(0))
    partial = replaced.cumprod(dim + 1)
    later = torchpy.tensor(j >= i)
    grad_each = (partial * grad.unsqueeze(0) * later).sum(dim + 1)  # [i, <other dims>]
    return grad_each.movedim(0, dim)


# --- norms -----------------------------------------------------------------------------------


def _norm_grad(grad, self, p, dim, keepdim, norm):
    """d ||self||_p / d self for every p torch supports (0, 1, 2, inf, -inf, other)."""
    p = 2.0 if p is None else float(p)
    ndim = self.dim()
    grad = restore_reduced(grad, dim, keepdim, ndim)
    norm = restore_reduced(norm, dim, keepdim, ndim)
    if p == 0.0:
        return None  # torch leaves the gradient undefined (x.grad stays None)
    if p == 1.0:
        return self.sign() * grad
    if p == 2.0:
        return self * (grad / norm).masked_fill(norm == 0, 0)
    if math.isinf(p):
        # Only the entries of largest (smallest) magnitude move the norm; ties share.
        mask = self.abs() == norm
        count = mask.sum(reduced_dims(dim, ndim), keepdim=True) if ndim else mask.to(grad.dtype)
        return self.sign() * mask * (grad / count)
    # |x|^p summed, to the 1/p: d/dx = sign(x) |x|^(p-1) / norm^(p-1)
    magnitude = self.abs().pow(p - 1)
    if p < 1.0:
        magnitude = magnitude.masked_fill(self == 0, 0)
    scale = (grad / norm.pow(p - 1)).masked_fill(norm == 0, 0)
    return self.sign() * magnitude * scale


@derivative("aten::linalg_vector_norm", "LinalgVectorNormBackward0", inputs=("self",),
            save=("self", "ord", "dim", "keepdim", "result"))
def linalg_vector_norm_backward(grad, self, ord, dim, keepdim, result):
    return _norm_grad(grad, self, ord, dim, keepdim, result)


@derivative("aten::norm.Scalar", "NormBackward0", inputs=("self",), save=("self", "p", "result"))
def norm_backward(grad, self, p, result):
    return _norm_grad(grad, self, p, None, False, result)


@derivative("aten::norm.ScalarOpt_dim", "NormBackward1", inputs=("self",),
            save=("self", "p", "dim", "keepdim", "result"))
def norm_dim_backward(grad, self, p, dim, keepdim, result):
    return _norm_grad(grad, self, p, dim, keepdim, result)


@derivative("aten::norm.ScalarOpt_dtype", "NormBackward2", inputs=("self",), save=("self", "p", "result"))
def norm_dtype_backward(grad, self, p, result):
    return _norm_grad(grad, self, p, None, False, result)


@derivative("aten::norm.ScalarOpt_dim_dtype", "NormBackward3", inputs=("self",),
            save=("self", "p", "dim", "keepdim", "result"))
def norm_dim_dtype_backward(grad, self, p, dim, keepdim, result):
    return _norm_grad(grad, self, p, dim, keepdim, result)


# --- sorting ---------------------------------------------------------------------------------


@derivative("aten::sort", "SortBackward0", inputs=("self",), save=("self.shape", "dim", "result1"))
def sort_backward(grads, self_shape, dim, result1):
    return _select_back(grads[0], result1, self_shape, dim, True)


@derivative("aten::sort.stable", "SortBackward1", inputs=("self",), save=("self.shape", "dim", "result1"))
def sort_stable_backward(grads, self_shape, dim, result1):
    return _select_back(grads[0], result1, self_shape, dim, True)


@derivative("aten::topk", "TopkBackward0", inputs=("self",), save=("self.shape", "dim", "result1"))
def topk_backward(grads, self_shape, dim, result1):
    return _select_back(grads[0], result1, self_shape, dim, True)
