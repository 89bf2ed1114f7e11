"""Matrix products against torch: mm, bmm, addmm, addmv, mv, dot, vdot, baddbmm, outer/ger,
matmul (every rank case), einsum and nn.functional.linear; dtypes, strides, empty dims, meta,
out= and in-place forms, errors, and the aten ops a TorchDispatchMode sees for the
CompositeImplicitAutograd ones."""

import importlib

import numpy as np
import pytest
import torch

import torchpy

from .dispatch_log import assert_same_dispatch
from tests.oracle import Input, check, check_error, randint, randn, scaled

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "complex64"]
TOL = {"float16": 2e-2, "bfloat16": 5e-2}


def arg(shape, dtype="float32", noncontiguous=False, seed=0, requires_grad=False, device="cpu"):
    if dtype.startswith(("int", "uint")):
        values = randint(-4, 5, *shape, seed=seed)
    else:
        values = randn(*shape, seed=seed)
        if dtype.startswith("complex"):
            values = values + 1j * randn(*shape, seed=seed + 1)
    return Input(values, dtype, noncontiguous=noncontiguous, requires_grad=requires_grad, device=device)


def tol(dtype):
    """Sums of products: a tolerance scaled to the dtype's precision (inputs are O(1))."""
    t = TOL.get(dtype, 1e-5)
    return scaled(rtol=t, atol=t)


# --- the kernels -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("noncontiguous", [False, True])
def test_mm_bmm(dtype, noncontiguous):
    check(lambda t, a, b: t.mm(a, b), arg((3, 4), dtype, noncontiguous), arg((4, 5), dtype, noncontiguous, 1),
          policy=tol(dtype))
    check(lambda t, a, b: a.mm(b), arg((1, 4), dtype), arg((4, 1), dtype, seed=1), policy=tol(dtype))
    check(lambda t, a, b: t.bmm(a, b), arg((2, 3, 4), dtype, noncontiguous), arg((2, 4, 5), dtype, noncontiguous, 1),
          policy=tol(dtype))


def test_transposed_operands():
    def run(t, a, b):
        return [t.mm(a.t(), b), t.mm(a.t(), b.t().t()), t.bmm(a.t().unsqueeze(0), b.unsqueeze(0))]

    check(run, arg((4, 3)), arg((4, 5), seed=1))


@pytest.mark.parametrize("shapes", [((0, 3), (3, 2)), ((2, 0), (0, 2)), ((2, 3), (3, 0))])
def test_empty_dims(shapes):
    a, b = shapes
    check(lambda t, x, y: t.mm(x, y), arg(a), arg(b, seed=1))
    check(lambda t, x, y: t.bmm(x.unsqueeze(0), y.unsqueeze(0)), arg(a), arg(b, seed=1))
    check(lambda t, x, y: t.matmul(x, y), arg(a), arg(b, seed=1))
    check(lambda t, x, y: t.addmm(t.ones(a[0], b[1]), x, y), arg(a), arg(b, seed=1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_addmm_baddbmm_addmv(dtype):
    scale = {"beta": 2, "alpha": 3} if dtype.startswith("int") else {"beta": 0.5, "alpha": -1.5}
    check(lambda t, s, a, b: t.addmm(s, a, b), arg((4,), dtype), arg((3, 2), dtype, seed=1), arg((2, 4), dtype, seed=2),
          policy=tol(dtype))
    check(lambda t, s, a, b: t.addmm(s, a, b, **scale), arg((3, 4), dtype, True), arg((3, 2), dtype, seed=1),
          arg((2, 4), dtype, True, seed=2), policy=tol(dtype))
    check(lambda t, s, a, b: s.addmm(a, b, beta=0), arg((3, 1), dtype), arg((3, 2), dtype, seed=1),
          arg((2, 4), dtype, seed=2), policy=tol(dtype))
    check(lambda t, s, a, b: t.baddbmm(s, a, b, **scale), arg((3, 4), dtype), arg((2, 3, 5), dtype, seed=1),
          arg((2, 5, 4), dtype, True, seed=2), policy=tol(dtype))
    check(lambda t, s, a, b: t.addmv(s, a, b, **scale), arg((3,), dtype), arg((3, 2), dtype, True, seed=1),
          arg((2,), dtype, seed=2), policy=tol(dtype))
    check(lambda t, s, a, b: t.addmv(s, a, b), arg((), dtype), arg((3, 2), dtype, seed=1), arg((2,), dtype, seed=2),
          policy=tol(dtype))


def test_beta_zero_ignores_nan_and_int_scalars_truncate():
    nan = Input(np.full((2, 2), np.nan, np.float32))
    check(lambda t, s, a, b: t.addmm(s, a, b, beta=0), nan, arg((2, 3)), arg((3, 2), seed=1))
    check(lambda t, s, a, b: t.addmm(s, a, b, alpha=0.5), arg((2,), "int64"), arg((2, 3), "int64", seed=1),
          arg((3, 2), "int64", seed=2))
    check(lambda t, s, a, b: t.addmm(s, a, b, beta=True), arg((2,)), arg((2, 3), seed=1), arg((3, 2), seed=2))


@pytest.mark.parametrize("dtype", DTYPES)
def test_mv_dot_vdot(dtype):
    check(lambda t, a, b: t.mv(a, b), arg((3, 4), dtype, True), arg((4,), dtype, seed=1), policy=tol(dtype))
    check(lambda t, a, b: t.dot(a, b), arg((5,), dtype, True), arg((5,), dtype, seed=1), policy=tol(dtype))
    check(lambda t, a, b: a.vdot(b), arg((5,), dtype), arg((5,), dtype, True, seed=1), policy=tol(dtype))
    check(lambda t, a, b: t.dot(a, b), arg((0,), dtype), arg((0,), dtype, seed=1))


def test_in_place_forms():
    check(lambda t, s, a, b: s.addmm_(a, b, alpha=2), arg((3, 4)), arg((3, 2), seed=1), arg((2, 4), seed=2))
    check(lambda t, s, a, b: s.baddbmm_(a, b, beta=0.5), arg((2, 3, 4)), arg((2, 3, 5), seed=1),
          arg((2, 5, 4), seed=2))
    check(lambda t, s, a, b: s.addmv_(a, b), arg((3,)), arg((3, 2), seed=1), arg((2,), seed=2))
    check(lambda t, s, a, b: t.addmv_(s, a, b), arg((3,)), arg((3, 2), seed=1), arg((2,), seed=2))
    check_error(lambda t, s, a, b: s.addmm_(a, b), arg((4,)), arg((3, 2), seed=1), arg((2, 4), seed=2))
    check_error(lambda t, s, a, b: s.baddbmm_(a, b), arg((4,)), arg((2, 3, 5), seed=1), arg((2, 5, 4), seed=2))
    check_error(lambda t, s, a, b: s.addmv_(a, b), arg((1,)), arg((3, 2), seed=1), arg((2,), seed=2))
    check_error(lambda t, s, a, b: s.addmm_(a, b), arg((3, 4), "int64"), arg((3, 2), seed=1), arg((2, 4), seed=2))


def test_out_forms():
    check(lambda t, a, b: t.mm(a, b, out=t.empty(0)), arg((3, 4)), arg((4, 5), seed=1))
    check(lambda t, a, b: t.bmm(a, b, out=t.empty(7)), arg((2, 3, 4)), arg((2, 4, 5), seed=1))
    check(lambda t, a, b: t.mv(a, b, out=t.empty(3)), arg((3, 4)), arg((4,), seed=1))
    check(lambda t, a, b: t.dot(a, b, out=t.empty(())), arg((4,)), arg((4,), seed=1))
    check(lambda t, a, b: t.matmul(a, b, out=t.empty(0)), arg((5, 3, 4)), arg((4, 2), seed=1))
    check(lambda t, a, b: t.outer(a, b, out=t.empty(0)), arg((3,)), arg((2,), seed=1))
    check(lambda t, s, a, b: t.addmm(s, a, b, out=t.empty(0)), arg((4,)), arg((3, 2), seed=1), arg((2, 4), seed=2))
    out = torchpy.empty(0)
    assert torchpy.mm(torchpy.ones(2, 2), torchpy.ones(2, 2), out=out) is out
    check_error(lambda t, a, b: t.dot(a, b, out=t.empty((), dtype=t.float64)), arg((4,)), arg((4,), seed=1))


def test_matmul_out_with_grad_depends_on_grad_mode():
    # the kernel reads grad mode through the hook autograd fills (_tensor.tensor.grad_mode_enabled)
    a, b = arg((3, 4), requires_grad=True), arg((4, 2), seed=1)
    check_error(lambda t, a, b: t.matmul(a, b, out=t.empty(0)), a, b, expect=RuntimeError)

    def under_no_grad(t, a, b):
        with t.no_grad():
            return t.matmul(a, b, out=t.empty(0))

    check(under_no_grad, a, b)


def test_meta():
    def run(t):
        m = lambda *shape, dtype=t.float32: t.empty(*shape, device="meta", dtype=dtype)  # noqa: E731
        return [t.mm(m(2, 3), m(3, 4)), t.bmm(m(2, 2, 3), m(2, 3, 5)), t.addmm(m(4), m(2, 3), m(3, 4)),
                t.addmv(m(2), m(2, 3), m(3)), t.mv(m(2, 3), m(3)), t.dot(m(3), m(3)),
                t.baddbmm(m(4), m(2, 3, 5), m(2, 5, 4)), t.matmul(m(5, 2, 3), m(3)), t.matmul(m(3), m(5, 3, 2)),
                t.outer(m(3), m(2)), t.einsum("ij,jk->ik", m(2, 3), m(3, 4)),
                t.nn.functional.linear(m(5, 3), m(4, 3), m(4)), t.mm(m(2, 3, dtype=t.bool), m(3, 4, dtype=t.bool)),
                t.mv(m(2, 3), m(3, dtype=t.float64))]

    check(run)


@pytest.mark.parametrize("fn", [
    lambda t, m: t.mm(m(2, 3), m(4, 5)),
    lambda t, m: t.mm(m(3), m(3, 5)),
    lambda t, m: t.mm(m(2, 3), m(3)),
    lambda t, m: t.bmm(m(2, 3), m(3, 2)),
    lambda t, m: t.bmm(m(2, 2, 3), m(2, 4, 2)),
    lambda t, m: t.bmm(m(2, 2, 3), m(2, 3, 2, dtype=t.float64)),
    lambda t, m: t.addmm(m(3), m(2, 3), m(3, 4)),
    lambda t, m: t.addmm(m(4), m(2, 3), m(2, 4)),
    lambda t, m: t.addmv(m(2), m(2, 3), m(4)),
    lambda t, m: t.addmv(m(2), m(3), m(3)),
    lambda t, m: t.addmv(m(2), m(2, 3), m(3, dtype=t.float64)),
    lambda t, m: t.mv(m(2, 3), m(4)),
    lambda t, m: t.mv(m(3), m(3)),
    lambda t, m: t.dot(m(2, 3), m(3)),
    lambda t, m: t.dot(m(2), m(3)),
    lambda t, m: t.dot(m(3), m(3, dtype=t.float64)),
    lambda t, m: t.vdot(m(2), m(3)),
    lambda t, m: t.baddbmm(m(3), m(2, 3, 5), m(2, 5, 4)),
    lambda t, m: t.baddbmm(m(4, dtype=t.float64), m(2, 3, 5), m(2, 5, 4)),
    lambda t, m: t.baddbmm(m(4), m(2, 3, 5), m(2, 6, 4)),
    lambda t, m: t.matmul(m(5, 2, 3), m(4, 3, 2)),
    lambda t, m: m(4).addmm_(m(3, 2), m(2, 4)),
])
def test_meta_errors(fn):
    check_error(lambda t: fn(t, lambda *shape, dtype=t.float32: t.empty(*shape, device="meta", dtype=dtype)))


# --- errors ----------------------------------------------------------------------------------------

def _ones(t, *shape, dtype="float32"):
    return t.ones(shape, dtype=getattr(t, dtype))


@pytest.mark.parametrize("fn", [
    lambda t: t.mm(_ones(t, 2, 3), _ones(t, 4, 5)),
    lambda t: t.mm(_ones(t, 2, 3), _ones(t, 3, 5, dtype="float64")),
    lambda t: t.mm(_ones(t, 2, 3, dtype="int32"), _ones(t, 3, 5, dtype="bfloat16")),
    lambda t: t.mm(_ones(t, 3), _ones(t, 3, 5)),
    lambda t: t.mm(_ones(t, 2, 3), _ones(t, 3)),
    lambda t: t.mm(_ones(t, 2, 3, dtype="bool"), _ones(t, 3, 2, dtype="bool")),
    lambda t: t.bmm(_ones(t, 2, 3), _ones(t, 3, 2)),
    lambda t: t.bmm(_ones(t, 2, 2, 3), _ones(t, 3, 2)),
    lambda t: t.bmm(_ones(t, 2, 2, 3), _ones(t, 2, 4, 2)),
    lambda t: t.bmm(_ones(t, 2, 2, 3), _ones(t, 3, 3, 2)),
    lambda t: t.bmm(_ones(t, 2, 2, 3), _ones(t, 2, 3, 2, dtype="float64")),
    lambda t: t.bmm(_ones(t, 2, 2, 3, dtype="bool"), _ones(t, 2, 3, 2, dtype="bool")),
    lambda t: t.addmm(_ones(t, 3), _ones(t, 2, 3), _ones(t, 3, 4)),
    lambda t: t.addmm(_ones(t, 4, dtype="float64"), _ones(t, 2, 3), _ones(t, 3, 4)),
    lambda t: t.addmm(_ones(t, 4), _ones(t, 2, 3, dtype="float64"), _ones(t, 3, 4)),
    lambda t: t.addmm(_ones(t, 4), _ones(t, 2, 3, 1), _ones(t, 3, 4)),
    lambda t: t.addmm(_ones(t, 4), _ones(t, 2, 3), _ones(t, 2, 4)),
    lambda t: t.addmm(_ones(t, 1, 4, 1), _ones(t, 2, 3), _ones(t, 3, 4)),
    lambda t: t.addmm(_ones(t, 2, 4), _ones(t, 2, 3), _ones(t, 3, 4), beta=1j),
    lambda t: t.addmm(_ones(t, 2, 2, dtype="bool"), _ones(t, 2, 2, dtype="bool"), _ones(t, 2, 2, dtype="bool")),
    lambda t: t.addmv(_ones(t, 3), _ones(t, 2, 3), _ones(t, 3)),
    lambda t: t.addmv(_ones(t, 2), _ones(t, 2, 3), _ones(t, 4)),
    lambda t: t.addmv(_ones(t, 2), _ones(t, 3), _ones(t, 3)),
    lambda t: t.addmv(_ones(t, 2, 1), _ones(t, 2, 3), _ones(t, 3)),
    lambda t: t.addmv(_ones(t, 2), _ones(t, 2, 3), _ones(t, 3, dtype="float64")),
    lambda t: t.addmv(_ones(t), _ones(t, 2, 3), _ones(t, 4)),
    lambda t: t.mv(_ones(t, 2, 3), _ones(t, 4)),
    lambda t: t.mv(_ones(t, 3), _ones(t, 3)),
    lambda t: t.mv(_ones(t, 2, 3), _ones(t, 3, dtype="float64")),
    lambda t: t.mv(_ones(t, 2, 3, dtype="bool"), _ones(t, 3, dtype="bool")),
    lambda t: t.dot(_ones(t, 2, 3), _ones(t, 2, 3)),
    lambda t: t.dot(_ones(t, 3), _ones(t, 4)),
    lambda t: t.dot(_ones(t, 2), _ones(t, 3, dtype="float64")),
    lambda t: t.dot(_ones(t, 3, dtype="bool"), _ones(t, 3, dtype="bool")),
    lambda t: t.vdot(_ones(t, 2, 3), _ones(t, 3)),
    lambda t: t.outer(_ones(t, 2, 3), _ones(t, 4)),
    lambda t: t.ger(_ones(t, 3), _ones(t, 4, 2)),
    lambda t: t.baddbmm(_ones(t, 3), _ones(t, 2, 3, 5), _ones(t, 2, 5, 4)),
    lambda t: t.baddbmm(_ones(t, 4, dtype="float64"), _ones(t, 2, 3, 5), _ones(t, 2, 5, 4)),
    lambda t: t.baddbmm(_ones(t, 4), _ones(t, 2, 3, 5), _ones(t, 2, 5, 4, dtype="float64")),
    lambda t: t.baddbmm(_ones(t, 4), _ones(t, 3, 5), _ones(t, 2, 5, 4)),
    lambda t: t.baddbmm(_ones(t, 4), _ones(t, 2, 3, 5), _ones(t, 2, 6, 4)),
    lambda t: t.baddbmm(_ones(t, 2, 2, 2, dtype="bool"), _ones(t, 2, 2, 2, dtype="bool"),
                        _ones(t, 2, 2, 2, dtype="bool")),
    lambda t: t.matmul(_ones(t), _ones(t, 3)),
    lambda t: t.matmul(_ones(t, 3), _ones(t, 4)),
    lambda t: t.matmul(_ones(t, 2, 3), _ones(t, 4)),
    lambda t: t.matmul(_ones(t, 3), _ones(t, 4, 2)),
    lambda t: t.matmul(_ones(t, 5, 2, 3), _ones(t, 4, 2)),
    lambda t: t.matmul(_ones(t, 5, 2, 3), _ones(t, 4, 3, 2)),
    lambda t: t.matmul(_ones(t, 5, 2, 3), _ones(t, 5, 4, 2)),
    lambda t: t.matmul(_ones(t, 5, 2, 3), _ones(t, 4)),
    lambda t: t.matmul(_ones(t, 2, 3), _ones(t, 3, dtype="float64")),
    lambda t: t.nn.functional.linear(_ones(t), _ones(t, 3)),
    lambda t: t.nn.functional.linear(_ones(t, 2, 3), _ones(t, 4, 5)),
    lambda t: t.nn.functional.linear(_ones(t, 2, 3), _ones(t, 4, 3), _ones(t, 5)),
    lambda t: t.nn.functional.linear(_ones(t, 2, 3), _ones(t, 3), _ones(t, 1)),
])
def test_errors(fn):
    check_error(fn)


# --- matmul: every rank case, and what a dispatch mode sees -------------------------------------

MATMUL_CASES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
    ((5, 2, 3), (3, 4)), ((5, 2, 3), (3,)), ((3,), (5, 3, 2)), ((2, 3), (5, 3, 2)),
    ((5, 2, 3), (5, 3, 2)), ((4, 5, 2, 3), (5, 3, 2)), ((4, 5, 2, 3), (3, 2)), ((2, 3), (4, 5, 3, 2)),
    ((1, 2, 3), (5, 3, 2)), ((5, 2, 3), (1, 3, 2)), ((4, 1, 2, 3), (5, 3, 1)), ((4, 5, 2, 3), (3,)),
    ((0, 2, 3), (3, 4)), ((3, 5, 0), (0, 2)), ((2, 0), (4, 0, 3)),
]


@pytest.mark.parametrize("shapes", MATMUL_CASES)
def test_matmul_values(shapes):
    a, b = shapes
    check(lambda t, x, y: t.matmul(x, y), arg(a), arg(b, seed=1))
    check(lambda t, x, y: x @ y, arg(a, "float64", True), arg(b, "float64", True, seed=1))


@pytest.mark.parametrize("shapes", MATMUL_CASES)
def test_matmul_decomposes_as_torch(shapes):
    a, b = shapes
    assert_same_dispatch(lambda t, x, y: t.matmul(x, y), arg(a), arg(b, seed=1))


@pytest.mark.parametrize("shapes", [((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((3,), (5, 3, 2)), ((1, 2, 3), (5, 3, 2))])
@pytest.mark.parametrize("which", [0, 1])
def test_matmul_folding_with_gradients(shapes, which):
    a, b = shapes
    inputs = [arg(a, requires_grad=which == 0), arg(b, seed=1, requires_grad=which == 1)]
    assert_same_dispatch(lambda t, x, y: t.matmul(x, y), *inputs)


def test_matmul_noncontiguous_batches_take_the_bmm_path():
    # A transposed batch cannot be folded into rows without a copy: torch goes to bmm.
    assert_same_dispatch(lambda t, x, y: t.matmul(x.transpose(0, 1), y), arg((2, 5, 3)), arg((3, 4), seed=1))
    check(lambda t, x, y: t.matmul(x.transpose(0, 1), y), arg((2, 5, 3)), arg((3, 4), seed=1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_dtypes(dtype):
    check(lambda t, x, y: t.matmul(x, y), arg((2, 2, 3), dtype), arg((3, 4), dtype, seed=1), policy=tol(dtype))
    check(lambda t, x, y: t.matmul(x, y), arg((3,), dtype), arg((2, 3, 4), dtype, seed=1), policy=tol(dtype))


# --- outer, linear ---------------------------------------------------------------------------------

def test_outer_and_ger():
    check(lambda t, a, b: t.outer(a, b), arg((3,)), arg((4,), "float64", seed=1))
    check(lambda t, a, b: a.ger(b), arg((3,), "int64"), arg((4,), seed=1))
    check(lambda t, a, b: a.outer(b), arg((0,)), arg((4,), seed=1))
    assert_same_dispatch(lambda t, a, b: (t.outer(a, b), t.ger(a, b)), arg((3,)), arg((4,), seed=1))


LINEAR_CASES = [
    ((2, 3), (4, 3), (4,)), ((2, 3), (4, 3), None), ((5, 2, 3), (4, 3), (4,)), ((5, 2, 3), (4, 3), None),
    ((3,), (4, 3), (4,)), ((3,), (4, 3), None), ((6, 5, 2, 3), (4, 3), (4,)), ((2, 3), (3,), None),
    ((2, 3), (4, 3), ()), ((5, 2, 3), (4, 3), (2, 4)), ((5, 2, 3), (4, 3), (1, 4)), ((0, 3), (4, 3), (4,)),
]


@pytest.mark.parametrize("shapes", LINEAR_CASES)
def test_linear(shapes):
    x, w, b = shapes
    inputs = [arg(x), arg(w, seed=1)] + ([] if b is None else [arg(b, seed=2)])
    check(lambda t, *a: t.nn.functional.linear(*a), *inputs)
    assert_same_dispatch(lambda t, *a: t.nn.functional.linear(*a), *inputs)


def test_linear_noncontiguous_input_goes_through_matmul():
    inputs = [arg((5, 2, 3), noncontiguous=True), arg((4, 3), seed=1), arg((4,), seed=2)]
    check(lambda t, *a: t.nn.functional.linear(*a), *inputs)
    assert_same_dispatch(lambda t, *a: t.nn.functional.linear(*a), *inputs)


# --- einsum ------------------------------------------------------------------------------------------

EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(5, 2, 3), (5, 3, 4)]),
    ("ii", [(3, 3)]), ("ii->i", [(3, 3)]), ("i,i->", [(3,), (3,)]), ("i,j->ij", [(3,), (4,)]),
    ("ij->ji", [(2, 3)]), ("ij->", [(2, 3)]), ("...ij,...jk->...ik", [(2, 5, 2, 3), (5, 3, 4)]),
    ("...ij,jk", [(2, 3), (3, 4)]), ("i...->...", [(2, 3, 4)]), ("ijk,ikl,ilm->ijm", [(2, 3, 4), (2, 4, 5), (2, 5, 3)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 2)]), ("ij,ij->ij", [(2, 3), (2, 3)]), ("ij,kl->ijkl", [(2, 3), (2, 2)]),
    ("ab,ab->", [(3, 1), (1, 4)]), ("iij->ji", [(3, 3, 2)]), ("a b , b c -> a c", [(2, 3), (3, 2)]),
    ("Ab,bC->AC", [(2, 3), (3, 2)]), ("ij,j->i", [(2, 3), (3,)]), ("ijk,jk", [(2, 3, 4), (3, 4)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
]


@pytest.mark.parametrize("equation,shapes", EINSUM_CASES)
def test_einsum(equation, shapes):
    inputs = [arg(s, seed=i) for i, s in enumerate(shapes)]
    check(lambda t, *ops: t.einsum(equation, *ops), *inputs, policy=scaled(rtol=1e-4, atol=1e-5))
    assert_same_dispatch(lambda t, *ops: t.einsum(equation, *ops), *inputs)


def test_einsum_call_forms_and_dtypes():
    check(lambda t, a, b: t.einsum("ij,jk->ik", [a, b]), arg((2, 3)), arg((3, 4), seed=1))
    check(lambda t, a, b: t.einsum(a, [0, 1], b, [1, 2], [0, 2]), arg((2, 3)), arg((3, 4), seed=1))
    check(lambda t, a, b: t.einsum(a, [0, Ellipsis], b, [Ellipsis, 1]), arg((2, 3)), arg((3, 4), seed=1))
    check(lambda t, a, b: t.einsum("ij,jk->ik", a, b), arg((2, 3), "int64"), arg((3, 4), "int64", seed=1))
    check(lambda t, a, b: t.einsum("ij,jk->ik", a, b), arg((2, 3), "complex64"), arg((3, 4), "complex64", seed=1))
    check(lambda t, a, b: t.einsum("i,i->i", a, b), arg((3,), "float64"), arg((3,), "float64", seed=1))
    check(lambda t, a, b: t.ops.aten.einsum.default("ij,jk->ik", [a, b], path=[0, 1]), arg((2, 3)),
          arg((3, 4), seed=1))


@pytest.mark.parametrize("fn", [
    lambda t: t.einsum("ij,jk", _ones(t, 2, 3), _ones(t, 4, 5)),
    lambda t: t.einsum("ij", _ones(t, 2, 3), _ones(t, 3)),
    lambda t: t.einsum("i,j", _ones(t, 2)),
    lambda t: t.einsum("i1", _ones(t, 2)),
    lambda t: t.einsum("ii", _ones(t, 2, 3)),
    lambda t: t.einsum("ij->k", _ones(t, 2, 3)),
    lambda t: t.einsum("ij->ii", _ones(t, 2, 3)),
    lambda t: t.einsum("ij->i1", _ones(t, 2, 3)),
    lambda t: t.einsum("...ij,...jk", _ones(t, 2, 3), _ones(t, 3)),
    lambda t: t.einsum("i.j", _ones(t, 2, 3)),
    lambda t: t.einsum("ij", _ones(t, 2)),
    lambda t: t.einsum("...i,...i", _ones(t, 2, 3), _ones(t, 4, 3)),
    lambda t: t.einsum("ij->...i.", _ones(t, 2, 3)),
    lambda t: t.einsum("ij,jk", _ones(t, 2, 3), _ones(t, 3, 4, dtype="float64")),
    lambda t: t.einsum("ij"),
    lambda t: t.einsum(_ones(t, 2), [0], [53]),
])
def test_einsum_errors(fn):
    check_error(fn)


def test_torch_function_mode_sees_the_public_functions():
    def names(lib):
        seen = []
        overrides = importlib.import_module(lib.__name__ + ".overrides")

        class Recorder(overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return func(*args, **(kwargs or {}))

        a, b = lib.ones(2, 3), lib.ones(3, 2)
        with Recorder():
            lib.mm(a, b), a.mm(b), lib.matmul(a, b), a @ b, lib.zeros(2), lib.rand(2, 3), a.matmul(b)
        return seen

    assert names(torchpy) == names(torch)
