"""Derivatives of matrix products (real dtypes: a transpose, no conjugation).

For C = A @ B:  dA = dC @ B^T,  dB = A^T @ dC. The add* forms (beta * self +
alpha * product) scale these by alpha and pass beta * grad to self.
"""

from __future__ import annotations

from . import derivative


def _scaled(t, factor):
    return t if t is None or factor == 1 else t * factor


@derivative("aten::mm", "MmBackward0", inputs=("self", "mat2"), save=("self", "mat2"))
def mm_backward(grad, self, mat2, needs=(True, True)):
    # torch's generated MmBackward0 computes mat2's gradient first
    grad_mat2 = _mm_mat2_backward(grad, self, mat2) if needs[1] else None
    grad_self = _mm_mat1_backward(grad, mat2, self) if needs[0] else None
    return grad_self, grad_mat2


def _column_major(t):
    sizes, strides = t.shape, t.stride()
    return strides[0] == 1 and strides[1] == sizes[0]


def _mm_mat1_backward(grad, mat2, mat1):
    """d(mat1 @ mat2)/d(mat1), as torch computes it: a column-major mat1 gets a column-major grad."""
    if _column_major(mat1):
        return _conj(mat2).mm(grad.t()).t()
    return grad.mm(_conj(mat2.t()))


def _mm_mat2_backward(grad, mat1, mat2):
    if _column_major(mat2):
        return grad.t().mm(_conj(mat1)).t()
    return _conj(mat1.t()).mm(grad)


def _conj(t):
    return t.conj() if t.dtype.is_complex else t  # torch's conj() of a real tensor is no op call


@derivative("aten::bmm", "BmmBackward0", inputs=("self", "mat2"), save=("self", "mat2"))
def bmm_backward(grad, self, mat2, needs=(True, True)):
    return ((grad.bmm(mat2.transpose(1, 2)) if needs[0] else None),
            (self.transpose(1, 2).bmm(grad) if needs[1] else None))


@derivative("aten::mv", "MvBackward0", inputs=("self", "vec"), save=("self", "vec"))
def mv_backward(grad, self, vec, needs=(True, True)):
    return ((grad.unsqueeze(1) * vec.unsqueeze(0)) if needs[0] else None), (self.t().mv(grad) if needs[1] else None)


@derivative("aten::dot", "DotBackward0", inputs=("self", "tensor"), save=("self", "tensor"))
def dot_backward(grad, self, tensor, needs):
    return (grad * tensor if needs[0] else None), (grad * self if needs[1] else None)


# vdot conjugates self; for real tensors it is dot.
@derivative("aten::vdot", "VdotBackward0", inputs=("self", "other"), save=("self", "other"))
def vdot_backward(grad, self, other):
    return grad * other, grad * self


@derivative("aten::addmm", "AddmmBackward0", inputs=("self", "mat1", "mat2"),
            save=("mat1", "mat2", "beta", "alpha"))
def addmm_backward(grad, mat1, mat2, beta, alpha, needs):
    grad_mat1 = _mm_mat1_backward(grad, mat2, mat1) if needs[1] else None
    grad_mat2 = _mm_mat2_backward(grad, mat1, mat2) if needs[2] else None
    return _scaled(grad, beta) if needs[0] else None, _scaled(grad_mat1, alpha), _scaled(grad_mat2, alpha)


@derivative("aten::baddbmm", "BaddbmmBackward0", inputs=("self", "batch1", "batch2"),
            save=("batch1", "batch2", "beta", "alpha"))
def baddbmm_backward(grad, batch1, batch2, beta, alpha, needs):
    grad_batch1, grad_batch2 = bmm_backward(grad, batch1, batch2, needs[1:])
    return _scaled(grad, beta) if needs[0] else None, _scaled(grad_batch1, alpha), _scaled(grad_batch2, alpha)


@derivative("aten::addmv", "AddmvBackward0", inputs=("self", "mat", "vec"), save=("mat", "vec", "beta", "alpha"))
def addmv_backward(grad, mat, vec, beta, alpha, needs):
    grad_mat, grad_vec = mv_backward(grad, mat, vec, needs[1:])
    return _scaled(grad, beta) if needs[0] else None, _scaled(grad_mat, alpha), _scaled(grad_vec, alpha)
