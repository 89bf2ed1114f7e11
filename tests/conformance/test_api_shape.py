"""broadcast_to, fliplr / flipud, kron, hsplit / vsplit / dsplit, is_same_size / is_nonzero, roll,
trace, searchsorted / bucketize and bincount against torch: values, dtypes, shapes, strides of
views, errors, and the aten ops a TorchDispatchMode sees."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conformance.dispatch_log import assert_same_dispatch
from tests.oracle import EXACT, Input, check, randn

M = randn(2, 3)
V = np.array([1.0, 3.0, 5.0, 5.0, 7.0], dtype=np.float32)


@pytest.mark.parametrize("fn", [
    lambda t, m: t.broadcast_to(m[0], (4, 3)), lambda t, m: m.broadcast_to((2, 2, 3)),
    lambda t, m: m.broadcast_to((-1, 3)), lambda t, m: t.fliplr(m), lambda t, m: t.flipud(m),
    lambda t, m: t.kron(m, m[0]), lambda t, m: m.kron(m.reshape(3, 2, 1)), lambda t, m: t.kron(m[0], m[0, 0]),
    lambda t, m: t.kron(m.long(), m), lambda t, m: t.hsplit(m, 3), lambda t, m: m.hsplit([1, 2]),
    lambda t, m: t.hsplit(m[0], 3), lambda t, m: t.vsplit(m, 2), lambda t, m: m.vsplit([1]),
    lambda t, m: t.dsplit(m.reshape(1, 1, 6), 3), lambda t, m: m.reshape(1, 2, 3).dsplit([1, 5]),
    lambda t, m: t.is_same_size(m, m[None]), lambda t, m: m.is_same_size(m * 2),
    lambda t, m: t.is_nonzero(m[:1, :1]), lambda t, m: (m[0, 0] * 0).is_nonzero(),
])
def test_composites(fn):
    check(fn, M, policy=EXACT)
    assert_same_dispatch(fn, M)


def test_broadcast_to_is_a_view():
    import torchpy
    v = torchpy.arange(3.0)
    b = v.broadcast_to((2, 3))
    assert b.stride() == (0, 1) and b.data_ptr() == v.data_ptr()


@pytest.mark.parametrize("fn", [
    lambda t, m: t.broadcast_to(m, (3,)), lambda t, m: t.fliplr(m[0]), lambda t, m: t.flipud(m[0, 0]),
    lambda t, m: t.hsplit(m[0, 0], 1), lambda t, m: t.hsplit(m, 2), lambda t, m: t.vsplit(m[0], 1),
    lambda t, m: t.dsplit(m, 1), lambda t, m: t.is_nonzero(m), lambda t, m: t.is_nonzero(m[:0]),
    lambda t, m: t.roll(m, []), lambda t, m: t.roll(m, (1, 2), (0,)), lambda t, m: t.trace(m[0]),
])
def test_shape_errors(fn):
    check(fn, M, expect_error=RuntimeError)


@pytest.mark.parametrize("fn", [
    lambda t, m: t.roll(m, 1), lambda t, m: m.roll(-1, 1), lambda t, m: t.roll(m, (1, 5), (0, 1)),
    lambda t, m: t.roll(m.t(), 2, 0), lambda t, m: t.roll(m[0], 7), lambda t, m: t.trace(m),
    lambda t, m: t.trace(m.t()), lambda t, m: m.long().trace(), lambda t, m: t.trace(m.to(t.uint8)),
    lambda t, m: t.trace(m.double()),
])
def test_roll_trace(fn):
    check(fn, M, policy=EXACT)
    assert_same_dispatch(fn, M)


def test_trace_bool_and_meta():
    check(lambda t: t.trace(t.ones(2, 2, dtype=t.bool)), expect_error=NotImplementedError)
    check(lambda t: (t.trace(t.ones(2, 3, device="meta")).shape, t.roll(t.ones(2, 3, device="meta"), 1).shape))


@pytest.mark.parametrize("fn", [
    lambda t, v, x: t.searchsorted(v, x), lambda t, v, x: t.searchsorted(v, x, right=True),
    lambda t, v, x: t.searchsorted(v, x, side="right"), lambda t, v, x: t.searchsorted(v, x, out_int32=True),
    lambda t, v, x: t.searchsorted(v, 5.0), lambda t, v, x: t.searchsorted(v, 5, right=True),
    lambda t, v, x: t.searchsorted(v.flip(0), x, sorter=t.arange(4, -1, -1)),
    lambda t, v, x: t.searchsorted(t.stack([v, v * 2]), t.stack([x[0], x[1]])),
    lambda t, v, x: t.bucketize(x, v), lambda t, v, x: t.bucketize(x, v, right=True, out_int32=True),
    lambda t, v, x: t.bucketize(3.0, v), lambda t, v, x: t.searchsorted(v, x.long()),
])
def test_search(fn):
    x = np.array([[0.0, 1.0, 4.0, 5.0, 9.0], [5.0, 5.5, 7.0, -1.0, 3.0]], dtype=np.float32)
    check(fn, V, x, policy=EXACT)
    assert_same_dispatch(fn, V, x)


@pytest.mark.parametrize("fn", [
    lambda t, v, x: t.searchsorted(v[None], x), lambda t, v, x: t.searchsorted(v, x, right=True, side="left"),
    lambda t, v, x: t.bucketize(x, t.stack([v, v])), lambda t, v, x: t.searchsorted(t.stack([v, v]), 1.0),
])
def test_search_errors(fn):
    x = np.array([[0.0, 1.0, 4.0, 5.0, 9.0], [5.0, 5.5, 7.0, -1.0, 3.0]], dtype=np.float32)
    check(fn, V, x, expect_error=RuntimeError)


@pytest.mark.parametrize("fn", [
    lambda t, i: t.bincount(i), lambda t, i: i.bincount(minlength=10), lambda t, i: t.bincount(i[:0], minlength=3),
    lambda t, i: t.bincount(i, i.float() / 2), lambda t, i: t.bincount(i, i.double()), lambda t, i: t.bincount(i, i),
    lambda t, i: t.bincount(i.to(t.uint8)),
])
def test_bincount(fn):
    check(fn, Input([1, 2, 2, 5, 0, 2], "int64"), policy=EXACT)
    assert_same_dispatch(fn, Input([1, 2, 2, 5, 0, 2], "int64"))


@pytest.mark.parametrize("fn,error", [
    (lambda t, i: t.bincount(i - 3), RuntimeError), (lambda t, i: t.bincount(i[None]), RuntimeError),
    (lambda t, i: t.bincount(i.float()), NotImplementedError), (lambda t, i: t.bincount(i, minlength=-1), RuntimeError),
    (lambda t, i: t.bincount(i, i[:2].float()), RuntimeError),
])
def test_bincount_errors(fn, error):
    check(fn, Input([1, 2, 2, 5, 0, 2], "int64"), expect_error=error)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8", "bool", "complex64", "int8"])
@pytest.mark.parametrize("fn", [
    lambda t, x: t.is_floating_point(x), lambda t, x: t.is_complex(x), lambda t, x: t.is_signed(x),
    lambda t, x: x.is_signed(), lambda t, x: t.numel(x), lambda t, x: t.numel(x[:0]),
])
def test_tensor_queries(fn, dtype):
    check(fn, Input(np.ones((2, 3)), dtype))
    assert_same_dispatch(fn, Input(np.ones((2, 3)), dtype))


@pytest.mark.parametrize("name", ["is_floating_point", "is_complex", "is_signed", "numel"])
def test_tensor_query_errors(name):
    check(lambda t: getattr(t, name)([1.0]), expect_error=TypeError)


def test_tensor_queries_reach_torch_function_modes():
    def seen(lib):
        overrides = __import__(lib.__name__ + ".overrides", fromlist=["TorchFunctionMode"])
        names = []

        class Mode(overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                names.append(func.__name__)
                return func(*args, **(kwargs or {}))

        x = lib.ones(2)
        with Mode():
            lib.is_floating_point(x), lib.numel(x), lib.is_signed(x)
        return names
    check(seen)


@pytest.mark.parametrize("fn", [
    lambda t, m: t.repeat_interleave(m, 2), lambda t, m: m.repeat_interleave(2, dim=1),
    lambda t, m: t.repeat_interleave(m, 3, dim=0, output_size=6), lambda t, m: t.repeat_interleave(m, 0, 1),
    lambda t, m: t.repeat_interleave(m[0], t.tensor([1, 0, 2])), lambda t, m: m.repeat_interleave(t.tensor([1, 2]), 0),
    lambda t, m: t.repeat_interleave(m, t.tensor(2), dim=1), lambda t, m: t.repeat_interleave(m, t.tensor([3])),
    lambda t, m: t.repeat_interleave(t.tensor([1, 0, 2])), lambda t, m: t.repeat_interleave(m.t(), 2, -1),
])
def test_repeat_interleave(fn):
    check(fn, M, policy=EXACT)
    assert_same_dispatch(fn, M)


@pytest.mark.parametrize("fn,error", [
    (lambda t, m: t.repeat_interleave(t.tensor([[1, 2]])), RuntimeError),
    (lambda t, m: t.repeat_interleave(t.tensor([-1])), RuntimeError),
    (lambda t, m: t.repeat_interleave(m, t.tensor([1, 2]), dim=1), RuntimeError),
    (lambda t, m: t.repeat_interleave(m, t.ones(2, 2, dtype=t.int64)), RuntimeError),
    (lambda t, m: t.repeat_interleave(t.tensor([1.0])), NotImplementedError),
])
def test_repeat_interleave_errors(fn, error):
    check(fn, M, expect_error=error)


def test_repeat_interleave_gradient():
    from tests.autograd.test_formulas import check_grad, rand
    check_grad(lambda t, x: t.repeat_interleave(x, 2, dim=1), rand(3, 4))
    check_grad(lambda t, x: x.repeat_interleave(t.tensor([1, 0, 2]), dim=0), rand(3, 4))


def test_repeat_interleave_meta():
    check(lambda t: t.repeat_interleave(t.ones(3, dtype=t.int64, device="meta"), output_size=5).shape)
    check(lambda t: t.repeat_interleave(t.ones(3, dtype=t.int64, device="meta")), expect_error=RuntimeError)


@pytest.mark.parametrize("fn", [
    lambda t, m: t.diag_embed(m), lambda t, m: m.diag_embed(1, 0, 2), lambda t, m: t.diag_embed(m, -2, 2, 0),
    lambda t, m: t.diag_embed(m[0]), lambda t, m: t.diag_embed(m.t(), 1), lambda t, m: t.diagflat(m),
    lambda t, m: m.diagflat(-1), lambda t, m: t.diagflat(m.t(), 2), lambda t, m: t.diagflat(m[0, 0]),
    lambda t, m: m.clone().swapaxes_(0, 1), lambda t, m: m.clone().swapdims_(-1, 0),
])
def test_diag_embed_diagflat_swap(fn):
    check(fn, M, policy=EXACT)
    assert_same_dispatch(fn, M)


def test_diag_embed_errors_meta_and_strides():
    check(lambda t, m: t.diag_embed(m, 0, 0, 0), M, expect_error=RuntimeError)
    check(lambda t, m: t.diag_embed(m, 0, 0, 5), M, expect_error=IndexError)
    check(lambda t: t.diag_embed(t.ones(2, 3, device="meta"), 1).shape)
    check(lambda t, m: (t.diag_embed(m, 1, 0, 2).stride(), m.clone().swapaxes_(0, 1).stride()), M)
