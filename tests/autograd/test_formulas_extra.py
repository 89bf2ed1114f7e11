"""Formulas of normal(Tensor...), masked_scatter, index_fill, index_copy, take, put, unfold and
unsafe_split against torch: gradients (torch.autograd.grad vs torchpy.autograd.grad, float64,
same values) and grad_fn names, in-place forms included."""

from __future__ import annotations

import numpy as np
import pytest

from tests.autograd.test_formulas import Const, check_grad, positive, rand

A = rand(3, 4)
MASK = Const(rand(3, 4, seed=5) > 0)
IDX = Const(np.array([2, 0]), "int64")
DUP = Const(np.array([1, -3, 1]), "int64")  # repeated (and negative) positions


@pytest.mark.parametrize("fn, inputs, name", [
    (lambda t, m, s: t.normal(m, s), (A, positive(3, 4, seed=1)), "NormalBackward3"),
    (lambda t, m, s: t.normal(m, s), (rand(1, 4, seed=2), positive(3, 1, seed=3)), "NormalBackward3"),
    (lambda t, m, s: t.normal(m, s), (A, Const(positive(3, 4))), "NormalBackward3"),
    (lambda t, m: t.normal(m, 0.5), (A,), "NormalBackward1"),
    (lambda t, s: t.normal(1.5, s), (positive(3, 4),), "NormalBackward2"),
])
def test_normal(fn, inputs, name):
    check_grad(fn, *inputs, name=name)


@pytest.mark.parametrize("fn", [
    lambda t, x, m, s: x.masked_scatter(m, s),
    lambda t, x, m, s: (x * 1).masked_scatter_(m, s),
])
def test_masked_scatter(fn):
    check_grad(fn, A, MASK, rand(4, 5, seed=1), name="MaskedScatterBackward0")  # source longer
    check_grad(fn, A, MASK, Const(rand(12, seed=1)), name="MaskedScatterBackward0")
    check_grad(fn, Const(A), MASK, rand(12, seed=1), name="MaskedScatterBackward0")


def test_masked_scatter_broadcast_self():
    check_grad(lambda t, x, m, s: x.masked_scatter(m, s), rand(4, seed=3), MASK, rand(3, 4, seed=1),
               name="MaskedScatterBackward0")


@pytest.mark.parametrize("fn, name", [
    (lambda t, x, i: x.index_fill(1, i, 2.5), "IndexFillBackward0"),
    (lambda t, x, i: (x * 1).index_fill_(0, i, -1.0), "IndexFillBackward0"),
])
def test_index_fill_scalar(fn, name):
    check_grad(fn, A, IDX, name=name)
    check_grad(fn, A, DUP, name=name)


@pytest.mark.parametrize("fn", [
    lambda t, x, i, v: x.index_fill(1, i, v),
    lambda t, x, i, v: (x * 1).index_fill_(1, i, v),
])
def test_index_fill_tensor(fn):
    value = np.array(0.75)
    dup = Const(np.array([1, 3, 1]), "int64")  # torch's value gradient rejects negative indices
    check_grad(fn, A, IDX, value, name="IndexFillBackward1")
    check_grad(fn, A, dup, value, name="IndexFillBackward1")
    check_grad(fn, Const(A), dup, value, name="IndexFillBackward1")
    check_grad(fn, A, dup, Const(value), name="IndexFillBackward1")


@pytest.mark.parametrize("fn", [
    lambda t, x, i, s: x.index_copy(0, i, s),
    lambda t, x, i, s: (x * 1).index_copy_(0, i, s),
])
def test_index_copy(fn):
    check_grad(fn, A, IDX, rand(2, 4, seed=1), name="IndexCopyBackward0")
    check_grad(fn, Const(A), IDX, rand(2, 4, seed=1), name="IndexCopyBackward0")
    check_grad(fn, A, IDX, Const(rand(2, 4, seed=1)), name="IndexCopyBackward0")


def test_index_copy_other_dim_and_scalar():
    check_grad(lambda t, x, i, s: x.index_copy(1, i, s), A, IDX, rand(3, 2, seed=2), name="IndexCopyBackward0")
    check_grad(lambda t, x, i, s: x.index_copy(0, i, s), np.array(1.5), Const(np.array(0), "int64"),
               np.array(-2.0), name="IndexCopyBackward0")


def test_take():
    check_grad(lambda t, x, i: x.take(i), A, Const(np.array([[0, 11], [-1, 0]]), "int64"),
               name="TakeBackward0")
    check_grad(lambda t, x, i: t.take(x, i), A, DUP, name="TakeBackward0")


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("fn", [
    lambda t, x, i, s, acc: x.put(i, s, acc),
    lambda t, x, i, s, acc: (x * 1).put_(i, s, accumulate=acc),
])
def test_put(fn, accumulate):
    index = Const(np.array([[5, 0], [-1, 7]]), "int64")
    check_grad(fn, A, index, rand(2, 2, seed=1), accumulate, name="PutBackward0")
    check_grad(fn, A, index, Const(rand(4, seed=1)), accumulate, name="PutBackward0")
    check_grad(fn, Const(A), index, rand(4, seed=1), accumulate, name="PutBackward0")


@pytest.mark.parametrize("shape, dim, size, step", [
    ((3, 4), 1, 2, 1),
    ((3, 4), 0, 2, 1),
    ((5, 7), -1, 3, 2),
    ((2, 6, 3), 1, 4, 3),
    ((4,), 0, 4, 1),
    ((4,), 0, 1, 5),
    ((), 0, 1, 1),
])
def test_unfold(shape, dim, size, step):
    check_grad(lambda t, x: x.unfold(dim, size, step), rand(*shape), name="UnfoldBackward0")


def test_unfold_non_contiguous_input():
    check_grad(lambda t, x: x.t().unfold(0, 2, 2), A, name="UnfoldBackward0")


@pytest.mark.parametrize("fn, name", [
    (lambda t, x: t.unsafe_split(x, 2, 1), "UnsafeSplitBackward0"),
    (lambda t, x: t.unsafe_split(x, 2), "UnsafeSplitBackward0"),
    (lambda t, x: x.unsafe_split(3, -1), "UnsafeSplitBackward0"),
    (lambda t, x: t.unsafe_split_with_sizes(x, [1, 3], 1), "UnsafeSplitWithSizesBackward0"),
    (lambda t, x: x.unsafe_split_with_sizes([2, 1]), "UnsafeSplitWithSizesBackward0"),
])
def test_unsafe_split(fn, name):
    check_grad(fn, A, name=[name, name])


def test_unsafe_split_only_one_piece_used():
    check_grad(lambda t, x: t.unsafe_split(x, 2, 1)[1] * 2, A, name="MulBackward0")
    check_grad(lambda t, x: t.unsafe_split_with_sizes(x, [1, 3], 1)[0].exp(), A, name="ExpBackward0")


@pytest.mark.parametrize("fn", [
    lambda t, x, y: (x * x).masked_scatter(y > 0, y * y),
    lambda t, x, y: (x * x).index_fill(1, t.tensor([1, 1, 3]), (y * y).sum()),
    lambda t, x, y: (x * x).index_copy(0, t.tensor([2, 0]), (y * y)[:2]),
    lambda t, x, y: (x * x).take(t.tensor([0, 5, 5])),
    lambda t, x, y: (x * x).put(t.tensor([1, 4]), (y * y)[0, :2], True),
    lambda t, x, y: (x * x).unfold(1, 3, 1),
    lambda t, x, y: t.unsafe_split(x * y, 3, 1)[0],
])
def test_double_backward(fn):
    # The formulas are built of differentiable ops: the squares make second order non-trivial.
    check_grad(fn, A, rand(3, 4, seed=4), second_order=True)
