"""Advanced indexing, gather / scatter, masked selection: gradients and node names against torch."""

from __future__ import annotations

import numpy as np
import pytest

from tests.autograd.test_formulas import Const, Strided, check_grad, rand

M = rand(3, 4)
A = rand(2, 3, 4, seed=1)
ROWS = Const(np.array([2, 0, 2]))  # a repeated index: gradients add up
COLS = Const(np.array([[1, 3], [0, 0]]))
INDEX = Const(np.array([[0, 2, 1, 2], [2, 2, 0, 1]]))  # for dim 0 of M, shape (2, 4)


@pytest.mark.parametrize("fn, name", [
    (lambda t, x, i, j: x[i], "IndexBackward0"),
    (lambda t, x, i, j: x[:, j], "IndexBackward0"),
    (lambda t, x, i, j: x[i[:2, None], j], "IndexBackward0"),
    (lambda t, x, i, j: x[x > 0], "IndexBackward0"),
    (lambda t, x, i, j: t.ops.aten.index.Tensor(x, [None, j]), "IndexBackward0"),
])
def test_index(fn, name):
    check_grad(fn, M, ROWS, COLS, name=name)
    check_grad(fn, Strided(M), ROWS, COLS, name=name)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(accumulate):
    values = rand(3, 4, seed=2)
    check_grad(lambda t, x, i, v: t.index_put(x, (i,), v, accumulate), M, ROWS, values, name="IndexPutBackward0")
    check_grad(lambda t, x, i, v: t.index_put(x, (i,), v, accumulate), M, ROWS, rand(4, seed=3),
               name="IndexPutBackward0")  # values broadcast over the indexed rows
    check_grad(lambda t, x, i, v: (x * 1).index_put_((i,), v, accumulate), M, ROWS, values,
               name="IndexPutBackward0")
    check_grad(lambda t, x, i, v: t.ops.aten._index_put_impl(x, [i], v, accumulate), M, ROWS, values,
               name="IndexPutImplBackward0")


def test_setitem():
    def assign(t, x, v):
        y = x * 1
        y[t.tensor([0, 2])] = v
        return y

    check_grad(assign, M, rand(4, seed=4), name="IndexPutBackward0")


def test_gather_and_scatter():
    src = rand(2, 4, seed=5)
    unique = Const(np.array([[0, 2, 1, 2], [1, 0, 0, 1]]))  # scatter: no two writes to one place
    check_grad(lambda t, x, i: x.gather(0, i), M, INDEX, name="GatherBackward0")
    check_grad(lambda t, x, i: x.gather(1, i[:, :2]), Strided(M), INDEX, name="GatherBackward0")
    check_grad(lambda t, x, i, s: x.scatter(0, i, s), M, unique, src, name="ScatterBackward0")
    check_grad(lambda t, x, i: x.scatter(0, i, 1.5), M, unique, name="ScatterBackward1")
    check_grad(lambda t, x, i, s: (x * 1).scatter_(0, i, s), M, unique, src, name="ScatterBackward0")
    check_grad(lambda t, x, i, s: x.scatter_add(0, i, s), M, INDEX, src, name="ScatterAddBackward0")
    check_grad(lambda t, x, i, s: (x * 1).scatter_add_(0, i, s), M, INDEX, src, name="ScatterAddBackward0")


@pytest.mark.parametrize("reduce", ["sum", "mean", "prod", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce(reduce, include_self):
    src = rand(2, 4, seed=6)
    check_grad(lambda t, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self),
               M, INDEX, src, name="ScatterReduceBackward0")


@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_prod_with_zeros(include_self):
    x = np.array([[1.0, 0.0, 2.0], [3.0, 4.0, 0.0]])
    src = np.array([[0.0, 2.0, 0.0], [5.0, 0.0, 0.0], [0.0, 1.5, 2.0]])
    index = Const(np.array([[0, 1, 0], [0, 1, 1], [1, 1, 0]]))
    check_grad(lambda t, x, i, s: x.scatter_reduce(0, i, s, "prod", include_self=include_self),
               x, index, src, name="ScatterReduceBackward0")


@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_ties(include_self):
    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    src = np.array([[1.0, 2.0, 0.5], [1.0, 1.0, 3.0]])
    index = Const(np.array([[0, 0, 0], [0, 0, 0]]))
    for reduce in ("amax", "amin"):
        check_grad(lambda t, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self),
                   x, index, src, name="ScatterReduceBackward0")


def test_index_select_and_index_add():
    check_grad(lambda t, x, i: x.index_select(0, i), M, ROWS, name="IndexSelectBackward0")
    check_grad(lambda t, x, i: x.index_select(-1, i), Strided(M), ROWS, name="IndexSelectBackward0")
    check_grad(lambda t, x, i, s: x.index_add(0, i, s), M, ROWS, rand(3, 4, seed=7), name="IndexAddBackward0")
    check_grad(lambda t, x, i, s: x.index_add(1, i, s, alpha=2.5), M, ROWS, rand(3, 3, seed=8),
               name="IndexAddBackward0")
    check_grad(lambda t, x, i, s: (x * 1).index_add_(0, i, s), M, ROWS, rand(3, 4, seed=7),
               name="IndexAddBackward0")


def test_masked_select():
    check_grad(lambda t, x, m: x.masked_select(m), M, Const(M > 0), name="MaskedSelectBackward0")
    check_grad(lambda t, x, m: x.masked_select(m), rand(4, seed=9), Const(M > 0), name="MaskedSelectBackward0")
    check_grad(lambda t, x, m: x.masked_select(m), A, Const(M[:, :1] > 0), name="MaskedSelectBackward0")


@pytest.mark.parametrize("fn, inputs", [
    (lambda t, x, i: x[i] * x[i], (M, ROWS)),
    (lambda t, x, i: x.gather(0, i).exp(), (M, INDEX)),
    (lambda t, x, i: x.index_select(0, i).pow(2), (M, ROWS)),
    (lambda t, x, i: x.scatter_add(0, i, x[:2] * x[:2]), (M, INDEX)),
    (lambda t, x, m: x.masked_select(m).pow(3), (M, Const(M > 0))),
    (lambda t, x, i: x.scatter_reduce(0, i, x[1:], "prod"), (M, Const(np.array([[0, 2, 1, 2], [2, 2, 0, 1]])))),
])
def test_second_order(fn, inputs):
    check_grad(fn, *inputs, second_order=True)
