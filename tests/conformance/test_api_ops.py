"""torch.equal / allclose / isclose, result_type, broadcast_tensors / broadcast_shapes, meshgrid,
cartesian_prod, argwhere, diff, fmax / fmin, tril / triu, logspace and range against torch:
values, dtypes, shapes, errors, and the aten ops a TorchDispatchMode sees."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.conformance.dispatch_log import assert_same_dispatch
from tests.oracle import EXACT, Input, check, randn, ulp

NAN = float("nan")
A = np.array([1.0, 2.0, NAN, 4.0], dtype=np.float32)
B = np.array([1.0, 2.5, NAN, 4.0 + 1e-6], dtype=np.float32)
M = randn(3, 4)


# --- equal, allclose, isclose --------------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda t, a, b: t.equal(a, b), lambda t, a, b: a.equal(a.clone()), lambda t, a, b: t.equal(a[:2], b[:2]),
    lambda t, a, b: t.equal(a[:2], a[:2].double()), lambda t, a, b: t.equal(a, a[None]),
    lambda t, a, b: t.allclose(a, b), lambda t, a, b: t.allclose(a, b, equal_nan=True),
    lambda t, a, b: a.allclose(b, rtol=0.3, equal_nan=True), lambda t, a, b: t.allclose(a[:1], b),
    lambda t, a, b: t.isclose(a, b), lambda t, a, b: t.isclose(a, b, equal_nan=True),
    lambda t, a, b: a.isclose(b, 0.0, 0.6), lambda t, a, b: t.isclose(a.long(), (b * 2).long()),
    lambda t, a, b: t.isclose(a > 1, b > 2), lambda t, a, b: t.isclose(a[:, None], b, atol=0.5),
    lambda t, a, b: t.isclose(a.cdouble() * 1j, b.cdouble() * 1j), lambda t, a, b: t.isclose(a.cfloat(), b.cfloat(), equal_nan=True),
    lambda t, a, b: t.isclose(a.double(), t.tensor(float("inf"), dtype=t.float64)),
])
def test_comparison_helpers(fn):
    check(fn, A, B, policy=EXACT)


@pytest.mark.parametrize("fn", [
    lambda t, a, b: t.isclose(a, b.double()), lambda t, a, b: t.allclose(a, b.double()),
    lambda t, a, b: t.isclose(a, b, rtol=-1), lambda t, a, b: t.isclose(a, b, atol=-1.5),
    lambda t, a, b: t.isclose(a, b[:3]),
])
def test_comparison_errors(fn):
    check(fn, A, B, expect_error=RuntimeError)


@pytest.mark.parametrize("fn", [
    lambda t, a, b: t.isclose(a, b), lambda t, a, b: t.isclose(a, b, equal_nan=True),
    lambda t, a, b: t.isclose(a.long(), b.long()), lambda t, a, b: t.isclose(a > 1, b > 1),
    lambda t, a, b: t.equal(a, b), lambda t, a, b: t.allclose(a, b),
])
def test_comparison_dispatch(fn):
    assert_same_dispatch(fn, A, B)


# --- result_type ---------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda t, a: t.result_type(a, 1), lambda t, a: t.result_type(a, 1.5), lambda t, a: t.result_type(1, a.long()),
    lambda t, a: t.result_type(a.long(), 2.0), lambda t, a: t.result_type(a[0].double(), a.half()),
    lambda t, a: t.result_type(a.int(), a.long()[0]), lambda t, a: t.result_type(True, 2),
    lambda t, a: t.result_type(a.bool(), 1j),
])
def test_result_type(fn):
    check(fn, A)


def test_result_type_error():
    check(lambda t: t.result_type(1, "a"), expect_error=TypeError)


# --- broadcast_tensors, broadcast_shapes, meshgrid, cartesian_prod ---------------------------------

@pytest.mark.parametrize("fn", [
    lambda t, m, a: t.broadcast_tensors(m, a), lambda t, m, a: t.broadcast_tensors(m[:, :1], a, a[0]),
    lambda t, m, a: t.broadcast_tensors(m),
    lambda t, m, a: t.meshgrid(a, m[0, :3], indexing="ij"), lambda t, m, a: t.meshgrid(a, m[0, :3], indexing="xy"),
    lambda t, m, a: t.meshgrid([a, m[0, :3], a[0]], indexing="xy"), lambda t, m, a: t.meshgrid(a, indexing="xy"),
    lambda t, m, a: t.cartesian_prod(a, m[0, :3]), lambda t, m, a: t.cartesian_prod(a),
    lambda t, m, a: t.cartesian_prod(a, a[:2], a[:3]),
])
def test_broadcast_and_grids(fn):
    check(fn, M, randn(4, seed=1), policy=EXACT)
    assert_same_dispatch(fn, M, randn(4, seed=1))


def test_broadcast_views_share_storage():
    import torchpy
    m, a = torchpy.ones(3, 4), torchpy.arange(4.0)
    _, b = torchpy.broadcast_tensors(m, a)
    assert b.stride() == (0, 1) and b.data_ptr() == a.data_ptr()


def test_meshgrid_without_indexing_warns():
    def run(t):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            grids = t.meshgrid(t.arange(2), t.arange(3))
        return [str(w.message).split(" (Triggered")[0] for w in caught], grids
    check(run, policy=EXACT)


@pytest.mark.parametrize("fn", [
    lambda t: t.broadcast_tensors(t.ones(2), t.ones(3)), lambda t: t.meshgrid(t.ones(2), indexing="foo"),
    lambda t: t.meshgrid(t.ones(2), t.ones(2, dtype=t.int64), indexing="ij"),
    lambda t: t.meshgrid([], indexing="ij"), lambda t: t.cartesian_prod(t.ones(2, 2)), lambda t: t.cartesian_prod(),
    lambda t: t.broadcast_shapes((2,), (3,)), lambda t: t.broadcast_shapes([2], [1, 1], 3),
])
def test_broadcast_and_grid_errors(fn):
    check(fn, expect_error=RuntimeError)


@pytest.mark.parametrize("shapes", [((2, 1), (3,)), (2, (3, 1)), (), ((0,), (1,)), ([5, 1, 3], (4, 1), 1),
                                    ((),)])
def test_broadcast_shapes(shapes):
    check(lambda t: t.broadcast_shapes(*shapes))


def test_broadcast_shapes_negative():
    check(lambda t: t.broadcast_shapes((-1,)), expect_error=ValueError)


# --- argwhere, diff --------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda t, m: t.argwhere(m > 0), lambda t, m: (m > 0).argwhere(), lambda t, m: t.argwhere(m[0, 0]),
    lambda t, m: t.diff(m), lambda t, m: m.diff(dim=0), lambda t, m: t.diff(m, n=2, dim=1, prepend=m, append=m),
    lambda t, m: t.diff(m, n=0), lambda t, m: t.diff(m, n=9), lambda t, m: t.diff(m > 0),
    lambda t, m: t.diff((m * 10).long(), append=(m * 10).long()[:, :1]),
    lambda t, m: t.diff(m[0], prepend=t.ones(1, dtype=t.int64)),
])
def test_argwhere_diff(fn):
    check(fn, M, policy=EXACT)
    assert_same_dispatch(fn, M)


@pytest.mark.parametrize("fn", [
    lambda t, m: t.diff(m[0, 0]), lambda t, m: t.diff(m, n=-1), lambda t, m: t.diff(m, prepend=m[0]),
    lambda t, m: t.diff(m, dim=0, prepend=m[:, :2]),
])
def test_diff_errors(fn):
    check(fn, M, expect_error=RuntimeError)


# --- fmax / fmin -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["fmax", "fmin"])
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "float32"), ("int64", "float32"),
                                    ("int32", "int64"), ("bool", "bool"), ("float16", "bfloat16")])
def test_fmax_fmin(name, dtypes):
    a = np.array([1.0, NAN, 3.0, NAN, -2.0, 0.0])
    b = np.array([2.0, 1.0, NAN, NAN, -3.0, -0.0])
    if "int" in dtypes[0] or "bool" in dtypes[0]:
        a = np.nan_to_num(a)
    if "int" in dtypes[1] or "bool" in dtypes[1]:
        b = np.nan_to_num(b)
    check(lambda t, x, y: getattr(t, name)(x, y), Input(a, dtypes[0]), Input(b, dtypes[1]), policy=EXACT)
    check(lambda t, x, y: getattr(x, name)(y[None]), Input(a, dtypes[0]), Input(b, dtypes[1]), policy=EXACT)


@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_fmax_fmin_errors_and_meta(name):
    check(lambda t: getattr(t, name)(t.ones(1, dtype=t.complex64), t.ones(1, dtype=t.complex64)),
          expect_error=RuntimeError)
    check(lambda t: getattr(t, name)(t.ones(1), 2.0), expect_error=TypeError, match_message=False)
    check(lambda t: getattr(t, name)(t.ones(2, 1, device="meta"), t.ones(3, dtype=t.float64, device="meta")).shape)


# --- tril / triu -----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("diagonal", [0, 1, -1, 5, -5])
def test_tril_triu(name, diagonal):
    check(lambda t, m: getattr(t, name)(m, diagonal), M, policy=EXACT)
    check(lambda t, m: getattr(m.reshape(3, 2, 2).transpose(1, 2), name)(diagonal), M, policy=EXACT)
    check(lambda t, m: getattr(t, name)((m > 0), diagonal=diagonal), M, policy=EXACT)


@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tril_triu_errors_and_dispatch(name):
    check(lambda t, m: getattr(t, name)(m[0]), M, expect_error=RuntimeError)
    assert_same_dispatch(lambda t, m: getattr(t, name)(m, 1), M)
    check(lambda t: getattr(t, name)(t.ones(2, 3, device="meta")).shape)


# --- logspace, range -------------------------------------------------------------------------------

@pytest.mark.parametrize("args,kwargs", [
    ((0, 2, 3), {}), ((0, 1, 5), {"base": 2.0}), ((-2, 3, 7), {"dtype": "float64"}), ((0, 3, 4, 2), {"dtype": "int64"}),
    ((1.5, -1.0, 6), {}), ((0, 1, 1), {}), ((0, 1, 0), {}), ((0, 2, 5), {"dtype": "float16"}),
    ((0, 10, 11), {"base": 3, "dtype": "int32"}),
])
def test_logspace(args, kwargs):
    def run(t):
        kw = {k: getattr(t, v) if k == "dtype" else v for k, v in kwargs.items()}
        return t.logspace(*args, **kw)
    check(run, policy=ulp(2))
    assert_same_dispatch(run)


def test_logspace_errors_and_out():
    check(lambda t: t.logspace(0, 1, -1), expect_error=RuntimeError)
    check(lambda t: t.logspace(0, 2, 3, out=t.empty(1, dtype=t.float64)), policy=ulp(2))


@pytest.mark.parametrize("args,kwargs", [
    ((0, 3), {}), ((1, 4, 0.5), {}), ((1, 4), {"dtype": "int64"}), ((5, 1, -1), {}), ((0, 1, 0.3), {"dtype": "float64"}),
    ((2, 2), {}),
])
def test_range(args, kwargs):
    def run(t):
        kw = {k: getattr(t, v) if k == "dtype" else v for k, v in kwargs.items()}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = t.range(*args, **kw)
        return [str(w.message) for w in caught], result
    check(run, policy=EXACT)
    assert_same_dispatch(run)


@pytest.mark.parametrize("step", [0, -1])
def test_range_errors(step):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda t: t.range(1, 4, step), expect_error=RuntimeError)


@pytest.mark.parametrize("fn", [
    lambda t, m: m.clone().tril_(1), lambda t, m: m.clone().triu_(-1), lambda t, m: t.tril(m, out=t.empty(0)),
    lambda t, m: t.fmax(m, m.t()[:1].t(), out=t.empty(3, 4)), lambda t, m: t.fmin(m, m[0], out=t.empty(0)),
])
def test_inplace_and_out_forms(fn):
    check(fn, M, policy=EXACT)
    assert_same_dispatch(fn, M)


def test_tril_out_dtype_error():
    check(lambda t, m: t.triu(m, 2, out=t.empty(3, 4, dtype=t.float64)), M, expect_error=RuntimeError)
