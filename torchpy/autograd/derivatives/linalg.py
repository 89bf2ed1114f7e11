"""Derivatives of matrix products (real dtypes: a transpose, no conjugation).

For C = A @ B:  dA = dC @ B^T,  dB = A^T @ dC. The add* forms (beta * self +
alpha * product) scale these by alpha and pass beta * grad to self.
"""

from __future__ import annotations

from . import derivative


def _scaled(t, factor):
    return t if factor == 1 else t * factor


@derivative("aten::mm", "MmBackward0", inputs=("self", "mat2"), save=("self", "mat2"))
def mm_backward(grad, self, mat2):
    return grad.mm(mat2.t()), self.t().mm(grad)


@derivative("aten::bmm", "BmmBackward0", inputs=("self", "mat2"), save=("self", "mat2"))
def bmm_backward(grad, self, mat2):
    return grad.bmm(mat2.transpose(1, 2)), self.transpose(1, 2).bmm(grad)


@derivative("aten::mv", "MvBackward0", inputs=("self", "vec"), save=("self", "vec"))
def mv_backward(grad, self, vec):
    return grad.unsqueeze(1) * vec.unsqueeze(0), self.t().mv(grad)


@derivative("aten::dot", "DotBackward0", inputs=("self", "tensor"), save=("self", "tensor"))
def dot_backward(grad, self, tensor):
    return grad * tensor, grad * self


# vdot conjugates self; for real tensors it is dot.
@derivative("aten::vdot", "VdotBackward0", inputs=("self", "other"), save=("self", "other"))
def vdot_backward(grad, self, other):
    return grad * other, grad * self


@derivative("aten::addmm", "AddmmBackward0", inputs=("self", "mat1", "mat2"),
            save=("mat1", "mat2", "beta", "alpha"))
def addmm_backward(grad, mat1, mat2, beta, alpha):
    grad_mat1, grad_mat2 = mm_backward(grad, mat1, mat2)
    return _scaled(grad, beta), _scaled(grad_mat1, alpha), _scaled(grad_mat2, alpha)


@derivative("aten::baddbmm", "BaddbmmBackward0", inputs=("self", "batch1", "batch2"),
            save=("batch1", "batch2", "beta", "alpha"))
def baddbmm_backward(grad, batch1, batch2, beta, alpha):
    grad_batch1, grad_batch2 = bmm_backward(grad, batch1, batch2)
    return _scaled(grad, beta), _scaled(grad_batch1, alpha), _scaled(grad_batch2, alpha)


@derivative("aten::addmv", "AddmvBackward0", inputs=("self", "mat", "vec"), save=("mat", "vec", "beta", "alpha"))
def addmv_backward(grad, mat, vec, beta, alpha):
    grad_mat, grad_vec = mv_backward(grad, mat, vec)
    return _scaled(grad, beta), _scaled(grad_mat, alpha), _scaled(grad_vec, alpha)
