"""Derivatives of reductions, scans, norms, softmax and sorting.

A reduction's gradient is its output gradient with the reduced dims restored
(`restore_reduced`), then spread over the inputs that produced each output.
"""

from __future__ import annotations

import math

import numpy as np

from ..._aten.public import functions  # torchpy.<name>, made below the package root
from ..._dispatch.ops import ops
from ..._tensor.enums import strided
from ..._aten.fastcall import aten as fast_aten, call

from . import formula
from ._common import reduced_count, reduced_dims, restore_reduced, scale, wrap_dim, zeros

# --- sum / mean ------------------------------------------------------------------------------


@formula(inputs=("self",), save=("self.shape",))
def sum_backward(grad, self_shape):
    return call(_EXPAND, grad._keyset, grad, list(self_shape))


@formula(inputs=("self",), save=("self.shape", "dim", "keepdim"))
def sum_dim_backward(grad, self_shape, dim, keepdim):
    return restore_reduced(grad, dim, keepdim, len(self_shape)).expand(self_shape)


@formula(inputs=("self",), save=("self", "dim", "keepdim"))
def nansum_backward(grad, self, dim, keepdim):
    counted = self.isnan().logical_not()
    return restore_reduced(grad, dim, keepdim, self.dim()).expand(self.shape) * counted


@formula(inputs=("self",), save=("self.shape",))
def mean_backward(grad, self_shape):
    # grad / n with n a number: PyTorch's formula calls div.Scalar
    expanded = call(_EXPAND, grad._keyset, grad, list(self_shape))
    return call(_DIV_SCALAR, expanded._keyset, expanded, reduced_count(self_shape, None))


_EXPAND, _DIV_SCALAR = fast_aten("expand"), fast_aten("div.Scalar")


@formula(inputs=("self",), save=("self.shape", "dim", "keepdim"))
def mean_dim_backward(grad, self_shape, dim, keepdim):
    spread = restore_reduced(grad, dim, keepdim, len(self_shape)).expand(self_shape)
    return ops.aten.div.Scalar(spread, reduced_count(self_shape, dim))


# --- prod ------------------------------------------------------------------------------------


def _product_of_others(grad, t, dim: int):
    """grad * (product of t[k] for k != j along dim), from two exclusive cumulative
    products (forward and reversed), without dividing: zeros are fine."""
    if t.numel() == 0:
        return grad.expand(t.shape)
    n = t.shape[dim]
    ones_shape = list(t.shape)
    ones_shape[dim] = 1
    ones = ops.aten.ones.default(ones_shape, dtype=grad.dtype, layout=strided, device=grad.device)
    before = functions.cat([ones, t.narrow(dim, 0, n - 1)], dim).cumprod(dim)
    later_reversed = t.narrow(dim, 1, n - 1).flip([dim])
    after = functions.cat([ones, later_reversed], dim).cumprod(dim).flip([dim])
    return grad * (before * after)


# PyTorch takes this zero-safe path whenever a dispatch mode or subclass may be watching.
@formula(inputs=("self",), save=("self", "result"))
def prod_backward(grad, self, result):
    if self.dim() == 0:
        return grad
    return _product_of_others(grad, self.contiguous().view(-1), 0).view(list(self.shape))


@formula(inputs=("self",), save=("self", "dim", "keepdim", "result"))
def prod_dim_backward(grad, self, dim, keepdim, result):
    if self.dim() == 0:
        return grad
    if not keepdim:
        grad, result = grad.unsqueeze(dim), result.unsqueeze(dim)
    return _product_of_others(grad, self, wrap_dim(dim, self.dim()))


# --- max / min -------------------------------------------------------------------------------


def _restore_by_view(t, dims, keepdim, ndim):
    """t with the reduced `dims` back as size 1, by a view (PyTorch's restore_reduced_dims)."""
    if keepdim:
        return t
    wrapped = {wrap_dim(d, ndim) for d in dims}
    sizes = iter(t.shape)
    return t.view([1 if i in wrapped else next(sizes) for i in range(len(wrapped) + t.dim())])


def _spread_over_ties(grad, self, value, dims, keepdim):
    """Gradient of a value-selecting reduction over `dims` (a list): split evenly among the
    inputs equal to the selected value."""
    ndim = self.dim()
    mask = _restore_by_view(value, dims, keepdim, ndim) == self
    grad = _restore_by_view(grad, dims, keepdim, ndim)
    count = ops.aten.sum.dim_IntList(mask, list(dims), True)
    return grad / count * mask


@formula(inputs=("self",), save=("self", "dim", "keepdim", "result"))
def amax_backward(grad, self, dim, keepdim, result):
    return _spread_over_ties(grad, self, result, dim, keepdim)


@formula(inputs=("self",), save=("self", "dim", "keepdim", "result"))
def amin_backward(grad, self, dim, keepdim, result):
    return _spread_over_ties(grad, self, result, dim, keepdim)


def _spread_over_all_ties(grad, self, value):
    """max() / min() of the whole tensor: ties share the gradient; a NaN result picks the NaNs."""
    both_nan = self.isnan().logical_and(value.isnan())
    mask = (self == value).logical_or_(both_nan)
    return mask * (grad / mask.sum())


@formula(inputs=("self",), save=("self", "result"))
def max_backward(grad, self, result):
    return _spread_over_all_ties(grad, self, result)


@formula(inputs=("self",), save=("self", "result"))
def min_backward(grad, self, result):
    return _spread_over_all_ties(grad, self, result)


def _select_back(grad, indices, shape, dim, keepdim):
    """Gradient of a reduction that picked one element per output at `indices` along dim."""
    if not keepdim and len(shape) > 0:
        grad, indices = grad.unsqueeze(dim), indices.unsqueeze(dim)
    return ops.aten.new_zeros.default(grad, list(shape)).scatter(dim, indices, grad)


@formula(inputs=("self",), save=("self.shape", "dim", "keepdim", "result1"))
def max_dim_backward(grads, self_shape, dim, keepdim, result1):
    return _select_back(grads[0], result1, self_shape, dim, keepdim)


@formula(inputs=("self",), save=("self.shape", "dim", "keepdim", "result1"))
def min_dim_backward(grads, self_shape, dim, keepdim, result1):
    return _select_back(grads[0], result1, self_shape, dim, keepdim)


@formula(inputs=("self",),
         save=("self", "dim", "keepdim", "result0", "result1"))
def aminmax_backward(grads, self, dim, keepdim, result0, result1):
    grad_min, grad_max = grads
    dims = list(range(self.dim())) if dim is None else [dim]

    def spread(grad, value):
        # aminmax restores both dims first and compares self with the value (amax the reverse)
        grad = _restore_by_view(grad, dims, keepdim, self.dim())
        mask = self == _restore_by_view(value, dims, keepdim, self.dim())
        return grad / ops.aten.sum.dim_IntList(mask, dims, True) * mask

    return spread(grad_min, result0) + spread(grad_max, result1)


# --- var / std -------------------------------------------------------------------------------


def _var_grad(grad, self, dim, correction, keepdim):
    """d var / d self = 2 (self - mean) / (N - correction), N the reduced count."""
    correction = 1 if correction is None else correction
    dof = reduced_count(self.shape, dim) - correction
    factor = 2.0 / dof if dof != 0 else math.inf
    grad = restore_reduced(grad, dim, keepdim, self.dim())
    mean = self.mean() if dim is None else self.mean(list(dim), keepdim=True)
    centered = self - mean
    return scale(grad, factor) * centered


def _std_grad(grad, self, dim, correction, keepdim, std):
    # std = sqrt(var): d std = d var / (2 std), taken as 0 where std == 0.
    grad_var = (grad / scale(std, 2)).masked_fill_(std == 0, 0)
    return _var_grad(grad_var, self, dim, correction, keepdim)


def _mean_grad(grad, self, dim, keepdim):
    spread = restore_reduced(grad, dim, keepdim, self.dim()).expand(self.shape)
    return ops.aten.div.Scalar(spread, reduced_count(self.shape, dim))


@formula(inputs=("self",), save=("self", "dim", "correction", "keepdim"))
def var_backward(grad, self, dim, correction, keepdim):
    return _var_grad(grad, self, dim, correction, keepdim)


@formula(inputs=("self",),
         save=("self", "dim", "correction", "keepdim", "result"))
def std_backward(grad, self, dim, correction, keepdim, result):
    return _std_grad(grad, self, dim, correction, keepdim, result)


@formula(inputs=("self",),
         save=("self", "dim", "correction", "keepdim"))
def var_mean_backward(grads, self, dim, correction, keepdim):
    grad_var, grad_mean = grads
    return _var_grad(grad_var, self, dim, correction, keepdim) + _mean_grad(grad_mean, self, dim, keepdim)


@formula(inputs=("self",),
         save=("self", "dim", "correction", "keepdim", "result0"))
def std_mean_backward(grads, self, dim, correction, keepdim, result0):
    grad_std, grad_mean = grads
    return (_std_grad(grad_std, self, dim, correction, keepdim, result0)
            + _mean_grad(grad_mean, self, dim, keepdim))


# --- logsumexp, softmax ----------------------------------------------------------------------


@formula(inputs=("self",), save=("self", "dim", "keepdim", "result"))
def logsumexp_backward(grad, self, dim, keepdim, result):
    ndim = self.dim()
    grad = restore_reduced(grad, dim, keepdim, ndim)
    result = restore_reduced(result, dim, keepdim, ndim)
    return grad * (self - result).exp()


@formula(inputs=("self",), save=("dim", "result", "self.dtype"))
def softmax_backward(grad, dim, result, self_dtype):
    return ops.aten._softmax_backward_data.default(grad, result, dim, self_dtype)


@formula(inputs=("self",), save=("dim", "result", "self.dtype"))
def log_softmax_backward(grad, dim, result, self_dtype):
    return ops.aten._log_softmax_backward_data.default(grad, result, dim, self_dtype)


# Double backward. With f = y * (g - sum(g y)) (softmax) and f = g - exp(y) sum(g) (log_softmax),
# an upstream G gives d/dg and d/dy below (sums along dim, kept).
@formula(inputs=("grad_output", "output"),
         save=("grad_output", "output", "dim", "input_dtype"))
def softmax_backward_data_backward(grad, grad_output, output, dim, input_dtype, needs):
    grad_grad_output = (ops.aten._softmax_backward_data.default(grad, output, dim, input_dtype)
                        if needs[0] else None)
    grad_output_ = None
    if needs[1]:
        # G g - sum(y g) G - g sum(y G), the terms made last to first
        last = grad_output * (output * grad).sum(dim, keepdim=True)
        middle = (output * grad_output).sum(dim, keepdim=True) * grad
        grad_output_ = grad_output * grad - middle - last
    return grad_grad_output, grad_output_


@formula(inputs=("grad_output", "output"), save=("grad_output", "output", "dim"))
def log_softmax_backward_data_backward(grad, grad_output, output, dim, needs):
    grad_grad_output = grad - (grad * output.exp()).sum(dim, keepdim=True) if needs[0] else None
    grad_output_ = None
    if needs[1]:
        probabilities = output.exp()
        grad_output_ = grad * (-grad_output.sum(dim, keepdim=True) * probabilities)
    return grad_grad_output, grad_output_


# --- cumulative ------------------------------------------------------------------------------


def _reverse_cumsum(t, dim: int):
    """out[i] = sum of t[j] for j >= i along dim."""
    return t.flip([dim]).cumsum(dim).flip([dim])


@formula(inputs=("self",), save=("dim", "self.dtype"))
def cumsum_backward(grad, dim, self_dtype):
    grad = grad.to(self_dtype)  # back to the input's dtype before the scan (cumsum(dtype=...))
    if grad.dim() == 0:
        return grad
    return _reverse_cumsum(grad, dim)


@formula(inputs=("self",), save=("self", "dim", "result"))
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
    replaced = functions.where(functions.tensor(i == j), 1.0, self.unsqueeze(0))
    partial = replaced.cumprod(dim + 1)
    later = functions.tensor(j >= i)
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
        return self.sgn() * grad
    if p == 2.0:
        return grad * (self / norm).masked_fill_(norm == 0, 0)
    if math.isinf(p):
        # Only the entries of largest (smallest) magnitude move the norm; ties (and NaNs) share.
        at_norm = self.abs() == norm
        mask = functions.logical_or(at_norm, self.isnan())
        count = ops.aten.sum.dim_IntList(mask, _dims_list(dim), True)
        share = grad / count * mask
        return self.sgn() * share
    if p < 1.0:
        # |x|^p summed, to the 1/p: d/dx = sign(x) |x|^(p-1) / norm^(p-1)
        magnitude = self.abs().pow_(p - 1).masked_fill_(self == 0, 0)
        self_scaled = self.sgn() * magnitude
        norm_power = norm.pow(1 - p)
        return self_scaled * grad * norm_power
    if p < 2.0:
        magnitude = self.abs().pow_(p - 1)
        self_scaled = self.sgn() * magnitude
    else:
        self_scaled = self * self.abs().pow_(p - 2)
    scale_v = grad / norm.pow(p - 1)
    scale_v.masked_fill_(norm == 0, 0)
    return self_scaled * scale_v


def _dims_list(dim):
    if dim is None:
        return []
    return [dim] if isinstance(dim, int) else list(dim)


@formula(inputs=("self",),
         save=("self", "ord", "dim", "keepdim", "result"))
def linalg_vector_norm_backward(grad, self, ord, dim, keepdim, result):
    return _norm_grad(grad, self, ord, dim, keepdim, result)


@formula(inputs=("self",), save=("self", "p", "result"))
def norm_backward(grad, self, p, result):
    return _norm_grad(grad, self, p, None, False, result)


@formula(inputs=("self",),
         save=("self", "p", "dim", "keepdim", "result"))
def norm_dim_backward(grad, self, p, dim, keepdim, result):
    return _norm_grad(grad, self, p, dim, keepdim, result)


@formula(inputs=("self",), save=("self", "p", "result"))
def norm_dtype_backward(grad, self, p, result):
    return _norm_grad(grad, self, p, None, False, result)


@formula(inputs=("self",),
         save=("self", "p", "dim", "keepdim", "result"))
def norm_dim_dtype_backward(grad, self, p, dim, keepdim, result):
    return _norm_grad(grad, self, p, dim, keepdim, result)


# --- sorting ---------------------------------------------------------------------------------


@formula(inputs=("self",), save=("self.shape", "dim", "result1"))
def sort_backward(grads, self_shape, dim, result1):
    return _select_back(grads[0], result1, self_shape, dim, True)


@formula(inputs=("self",), save=("self.shape", "dim", "result1"))
def sort_stable_backward(grads, self_shape, dim, result1):
    return _select_back(grads[0], result1, self_shape, dim, True)


@formula(inputs=("self",), save=("self.shape", "dim", "result1"))
def topk_backward(grads, self_shape, dim, result1):
    return _select_back(grads[0], result1, self_shape, dim, True)
