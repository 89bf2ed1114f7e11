"""Matrix products: gradients and node names against torch (matmul, linear, einsum
decompose into these, so they are checked too)."""

from __future__ import annotations

import pytest

from tests.autograd.test_formulas import Const, Strided, check_grad, rand

M34, M45, M43 = rand(3, 4), rand(4, 5, seed=1), rand(4, 3, seed=2)
B234, B245 = rand(2, 3, 4, seed=3), rand(2, 4, 5, seed=4)
V3, V4 = rand(3, seed=5), rand(4, seed=6)


@pytest.mark.parametrize("fn, inputs, name", [
    (lambda t, a, b: t.mm(a, b), (M34, M45), "MmBackward0"),
    (lambda t, a, b: a.mm(b), (Strided(M34), Strided(M45)), "MmBackward0"),
    (lambda t, a, b: t.mm(a, b), (M34, Const(M45)), "MmBackward0"),
    (lambda t, a, b: t.bmm(a, b), (B234, B245), "BmmBackward0"),
    (lambda t, a, b: t.mv(a, b), (M34, V4), "MvBackward0"),
    (lambda t, a, b: t.dot(a, b), (V4, rand(4, seed=7)), "DotBackward0"),
    (lambda t, a, b: t.vdot(a, b), (V4, rand(4, seed=7)), "VdotBackward0"),
    (lambda t, c, a, b: t.addmm(c, a, b), (rand(5, seed=8), M34, M45), "AddmmBackward0"),
    (lambda t, c, a, b: t.addmm(c, a, b, beta=0.5, alpha=2), (rand(3, 5, seed=8), M34, M45), "AddmmBackward0"),
    (lambda t, c, a, b: t.addmm(c, a, b, beta=0), (rand(3, 1, seed=8), M34, M45), "AddmmBackward0"),
    (lambda t, c, a, b: (c * 1).addmm_(a, b, alpha=3), (rand(3, 5, seed=8), M34, M45), "AddmmBackward0"),
    (lambda t, c, a, b: t.baddbmm(c, a, b, beta=2, alpha=0.5), (rand(3, 5, seed=9), B234, B245), "BaddbmmBackward0"),
    (lambda t, c, a, b: (c * 1).baddbmm_(a, b), (rand(2, 3, 5, seed=9), B234, B245), "BaddbmmBackward0"),
    (lambda t, c, a, b: t.addmv(c, a, b, beta=0.5, alpha=2), (V3, M34, V4), "AddmvBackward0"),
    (lambda t, c, a, b: (c * 1).addmv_(a, b), (V3, M34, V4), "AddmvBackward0"),
    (lambda t, a, b: t.outer(a, b), (V3, V4), None),
    (lambda t, a, b: a @ b, (M34, M45), "MmBackward0"),
    (lambda t, a, b: a @ b, (B234, M45), None),
    (lambda t, a, b: a @ b, (B234, B245), None),
    (lambda t, a, b: a @ b, (V4, M45), None),
    (lambda t, a, b: a @ b, (M34, V4), "MvBackward0"),
    (lambda t, a, b: t.ops.aten.linear(a, b), (M34, rand(5, 4)), None),
    (lambda t, a, b, c: t.ops.aten.linear(a, b, c), (B234, rand(5, 4), rand(5, seed=2)), None),
    (lambda t, a, b: t.einsum("ij,jk->ik", a, b), (M34, M45), None),
])
def test_products(fn, inputs, name):
    check_grad(fn, *inputs, name=name)


@pytest.mark.parametrize("fn, inputs", [
    (lambda t, a, b: t.mm(a, b) * t.mm(a, b), (M34, M45)),
    (lambda t, a, b: t.bmm(a, b).sum(0) * a.sum(0).sum(), (B234, B245)),
    (lambda t, c, a, b: t.addmm(c, a, b, alpha=2).pow(2), (rand(5, seed=8), M34, M45)),
    (lambda t, a, b: t.mv(a, b).exp(), (M34, V4)),
    (lambda t, a, b: t.dot(a, b) * a, (V4, rand(4, seed=7))),
    (lambda t, a, b: (a @ b).tanh(), (M34, M43.T.copy().T)),
])
def test_second_order(fn, inputs):
    check_grad(fn, *inputs, second_order=True)
