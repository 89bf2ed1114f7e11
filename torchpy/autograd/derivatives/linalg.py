"""Derivatives of matrix products (real dtypes: a transpose, no conjugation).

For C = A @ B:  dA = dC @ B^T,  dB = A^T @ dC. The add* forms (beta * self +
alpha * product) scale these by alpha and pass beta * grad to self. As in PyTorch,
a column-major input gets its gradient computed transposed (dA = (B @ dC^T)^T), so
it comes out column-major too, and the gradients come in PyTorch's order.
"""

from __future__ import annotations

from torchpy._aten.fastcall import aten, call

from . import formula
from ._common import scale


def _times(t, factor):
    return t if factor == 1 else scale(t, factor)


def _column_major(shape, stride) -> bool:
    return stride[0] == 1 and stride[1] == shape[0]


# t and mm straight to the dispatcher (their arguments are tensors, nothing to bind): every
# linear layer's backward makes four of these calls.
_T, _MM = aten("t"), aten("mm")


def _t(x):
    return call(_T, x._keyset, x)


def _mm(a, b):
    return call(_MM, a._keyset | b._keyset, a, b)


def _mm_mat1_grad(grad, mat2, mat1_shape, mat1_stride, alpha=1):
    if _column_major(mat1_shape, mat1_stride):
        return _times(_t(_mm(mat2, _t(grad))), alpha)
    return _times(_mm(grad, _t(mat2)), alpha)


def _mm_mat2_grad(grad, mat1, mat2_shape, mat2_stride, alpha=1):
    if _column_major(mat2_shape, mat2_stride):
        return _times(_t(_mm(_t(grad), mat1)), alpha)
    return _times(_mm(_t(mat1), grad), alpha)


_MM_SAVE = ("self", "mat2", "self.shape", "self.stride", "mat2.shape", "mat2.stride")


@formula(inputs=("self", "mat2"), save=_MM_SAVE)
def mm_backward(grad, self, mat2, self_shape, self_stride, mat2_shape, mat2_stride, needs):
    grad_mat2 = _mm_mat2_grad(grad, self, mat2_shape, mat2_stride) if needs[1] else None
    grad_self = _mm_mat1_grad(grad, mat2, self_shape, self_stride) if needs[0] else None
    return grad_self, grad_mat2


@formula(inputs=("self", "mat2"), save=("self", "mat2"))
def bmm_backward(grad, self, mat2, needs):
    grad_mat2 = self.transpose(1, 2).bmm(grad) if needs[1] else None
    grad_self = grad.bmm(mat2.transpose(1, 2)) if needs[0] else None
    return grad_self, grad_mat2


def _outer(grad, vec):
    """grad ⊗ vec, as aten's outer decomposes: grad viewed as a column times vec."""
    return grad.view([grad.shape[0], 1]) * vec


@formula(inputs=("self", "vec"), save=("self", "vec"))
def mv_backward(grad, self, vec, needs):
    grad_self = _outer(grad, vec) if needs[0] else None
    return grad_self, (self.t().mv(grad) if needs[1] else None)


@formula(inputs=("self", "tensor"), save=("self", "tensor"))
def dot_backward(grad, self, tensor, needs):
    return (grad * tensor if needs[0] else None), (grad * self if needs[1] else None)


# vdot conjugates self; for real tensors it is dot.
@formula(inputs=("self", "other"), save=("self", "other"))
def vdot_backward(grad, self, other):
    return grad * other, grad * self


@formula(inputs=("self", "mat1", "mat2"),
         save=("mat1", "mat2", "beta", "alpha", "mat1.shape", "mat1.stride", "mat2.shape", "mat2.stride"))
def addmm_backward(grad, mat1, mat2, beta, alpha, mat1_shape, mat1_stride, mat2_shape, mat2_stride, needs):
    grad_mat1 = _mm_mat1_grad(grad, mat2, mat1_shape, mat1_stride, alpha) if needs[1] else None
    grad_mat2 = _mm_mat2_grad(grad, mat1, mat2_shape, mat2_stride, alpha) if needs[2] else None
    grad_self = _times(grad, beta) if needs[0] else None
    return grad_self, grad_mat1, grad_mat2


@formula(inputs=("self", "batch1", "batch2"),
         save=("batch1", "batch2", "beta", "alpha"))
def baddbmm_backward(grad, batch1, batch2, beta, alpha, needs):
    grad_batch1 = _times(grad.bmm(batch2.transpose(1, 2)), alpha) if needs[1] else None
    grad_batch2 = _times(batch1.transpose(1, 2).bmm(grad), alpha) if needs[2] else None
    grad_self = _times(grad, beta) if needs[0] else None
    return grad_self, grad_batch1, grad_batch2


@formula(inputs=("self", "mat", "vec"), save=("mat", "vec", "beta", "alpha"))
def addmv_backward(grad, mat, vec, beta, alpha, needs):
    grad_mat = _times(_outer(grad, vec), alpha) if needs[1] else None
    grad_self = _times(grad, beta) if needs[0] else None
    grad_vec = _times(mat.t().mv(grad), alpha) if needs[2] else None
    return grad_self, grad_mat, grad_vec
