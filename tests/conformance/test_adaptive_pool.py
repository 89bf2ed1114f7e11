"""Adaptive pooling (nn.functional.adaptive_{avg,max}_pool{1,2,3}d, their aten ops, backward ops,
out= forms and meta) against torch: values, indices, gradients, layouts, dispatch logs, errors."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import torch

import torchpy

from .dispatch_log import assert_same_dispatch
from tests.oracle import FLOAT_DTYPES, Input, assert_values, check, check_error, close_for, randn, scaled

# (input shape, output_size) per family: batched and unbatched, bins that divide and bins that
# overlap, outputs larger than inputs, None entries, zero outputs, a global pool.
CASES = {
    1: [((2, 3, 7), 3), ((3, 7), 4), ((2, 3, 5), 5), ((1, 2, 3), 7), ((2, 3, 7), (2,)), ((2, 1, 6), 1),
        ((2, 3, 7), 0)],
    2: [((2, 3, 7, 5), (3, 2)), ((3, 7, 5), 3), ((2, 3, 6, 6), (None, 4)), ((2, 3, 5, 4), (6, None)),
        ((1, 2, 3, 4), (7, 5)), ((2, 3, 7, 5), 1), ((3, 7, 5), (1, 1)), ((2, 3, 4, 4), (0, 2)),
        ((2, 3, 7, 5), [None, None])],
    3: [((2, 3, 7, 5, 4), (3, 2, None)), ((3, 5, 4, 6), 2), ((1, 2, 3, 4, 5), (4, 5, 6)), ((2, 3, 4, 4, 3), 1),
        ((2, 2, 5, 3, 4), (2, 0, 1))],
}
ALL = [(dims, shape, size) for dims, cases in CASES.items() for shape, size in cases]
IDS = [f"{d}d-{'x'.join(map(str, s))}-{o}" for d, s, o in ALL]


def avg(t, dims):
    return getattr(t.nn.functional, f"adaptive_avg_pool{dims}d")


def max_(t, dims):
    return getattr(t.nn.functional, f"adaptive_max_pool{dims}d")


@pytest.mark.parametrize("dims, shape, size", ALL, ids=IDS)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_values_and_indices(dims, shape, size, dtype):
    x = Input(randn(*shape) * 3, dtype)
    check(lambda t, a: avg(t, dims)(a, size), x, policy=close_for(dtype))
    check(lambda t, a: max_(t, dims)(a, size), x, policy=close_for(dtype))
    check(lambda t, a: max_(t, dims)(a, size, return_indices=True), x, policy=close_for(dtype))


@pytest.mark.parametrize("dims, shape, size", ALL, ids=IDS)
def test_noncontiguous_inputs(dims, shape, size):
    x = Input(randn(*shape), "float32", noncontiguous=True)
    check(lambda t, a: avg(t, dims)(a, size), x)
    check(lambda t, a: max_(t, dims)(a, size, True), x)


def test_max_ties_nan_and_infinities():
    """The first maximum in row-major order wins; NaN wins (the last one); -inf bins keep their first."""
    ties = np.array([[[[1.0, 3.0, 3.0, 0.0], [3.0, 2.0, 3.0, 3.0], [0.0, 3.0, 1.0, 1.0]]]], dtype=np.float32)
    check(lambda t, a: t.nn.functional.adaptive_max_pool2d(a, (2, 3), True), ties)
    nan, inf = float("nan"), float("inf")
    special = np.array([[[[nan, 1.0, nan, 2.0], [-inf, -inf, 5.0, nan], [inf, -inf, -inf, -inf]]]], dtype=np.float32)
    for size in [(1, 1), (2, 2), (3, 2), (2, 3), (3, 4)]:
        check(lambda t, a: t.nn.functional.adaptive_max_pool2d(a, size, True), special)
        check(lambda t, a: t.nn.functional.adaptive_avg_pool2d(a, size), special)
    check(lambda t, a: t.nn.functional.adaptive_max_pool1d(a, 2, True), special[0, 0])


def test_channels_last_layouts():
    """Channels-last inputs give channels-last values and indices, as PyTorch's kernels do."""
    def strides(fn, shape, memory_format):
        results = []
        for lib in (torch, torchpy):
            x = lib.tensor(randn(*shape)).contiguous(memory_format=getattr(lib, memory_format))
            out = fn(lib, x)
            results.append([o.stride() for o in (out if isinstance(out, tuple) else (out,))])
        return results

    for fn, shape, fmt in [
        (lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, 2), (2, 3, 4, 5), "channels_last"),
        (lambda t, x: t.nn.functional.adaptive_max_pool2d(x, (3, 2), True), (2, 3, 4, 5), "channels_last"),
        (lambda t, x: t.nn.functional.adaptive_avg_pool3d(x, 2), (2, 3, 4, 5, 3), "channels_last_3d"),
        (lambda t, x: t.nn.functional.adaptive_max_pool3d(x, 2, True), (2, 3, 4, 5, 3), "channels_last_3d"),
        (lambda t, x: t.nn.functional.adaptive_avg_pool2d(x.transpose(2, 3), 2), (2, 3, 4, 5), "contiguous_format"),
    ]:
        expected, actual = strides(fn, shape, fmt)
        assert actual == expected


# --- the aten ops directly ----------------------------------------------------------------------


def test_aten_ops():
    x4, x5 = Input(randn(2, 3, 7, 5), "float64"), Input(randn(2, 3, 7, 5, 4), "float64")
    check(lambda t, a: t.ops.aten._adaptive_avg_pool2d(a, [3, 2]), x4)
    check(lambda t, a: t._adaptive_avg_pool2d(a, [4, 4]), x4)
    check(lambda t, a: t.ops.aten.adaptive_avg_pool2d(a, [1, 1]), x4)
    check(lambda t, a: t._adaptive_avg_pool3d(a, [3, 2, 3]), x5)
    check(lambda t, a: t.ops.aten.adaptive_avg_pool3d(a, [1, 1, 1]), x5)
    check(lambda t, a: t.ops.aten.adaptive_max_pool2d(a, [3, 2]), x4)
    check(lambda t, a: t.ops.aten.adaptive_max_pool3d(a, 2), x5)
    check(lambda t, a: t.adaptive_avg_pool1d(a[0], 3), x4)
    check(lambda t, a: t.adaptive_max_pool1d(a[0], [3]), x4)
    check(lambda t, a: t.ops.aten.adaptive_max_pool1d(a[0], [4]), x4)
    check(lambda t, a: t.ops.aten._adaptive_avg_pool2d_backward(a[:, :, :3, :2] * 1, a), x4)
    check(lambda t, a: t.ops.aten._adaptive_avg_pool3d_backward(a[:, :, :3, :2, :2] * 1, a), x5)
    idx = Input(np.array([[[[0, 4], [12, 34]]]]), "int64")
    check(lambda t, a, i: t.ops.aten.adaptive_max_pool2d_backward(a[:1, :1, :2, :2] * 1, a[:1, :1], i), x4, idx)
    # repeated indices add up
    check(lambda t, a, i: t.ops.aten.adaptive_max_pool2d_backward(a[:1, :1, :2, :2] * 1, a[:1, :1], i * 0), x4, idx)
    idx3 = Input(np.array([[[[[0, 139], [5, 5]]]]]), "int64")
    check(lambda t, a, i: t.ops.aten.adaptive_max_pool3d_backward(a[:1, :1, :1, :2, :2] * 1, a[:1, :1], i), x5, idx3)


def test_out_forms():
    x4, x5 = Input(randn(2, 3, 7, 5), "float32"), Input(randn(2, 3, 7, 5, 4), "float32")
    check(lambda t, a: t._C._nn.adaptive_avg_pool2d(a, [3, 2], out=t.empty(0)), x4)
    check(lambda t, a: t._C._nn.adaptive_avg_pool3d(a, 2, out=t.empty(2, 3, 2, 2, 2)), x5)
    check(lambda t, a: t._C._nn.adaptive_max_pool2d(a, [3, 2], out=(t.empty(0), t.empty(0, dtype=t.long))), x4)
    check(lambda t, a: t.ops.aten.adaptive_max_pool3d.out(a, [2, 2, 1], out=t.empty(0),
                                                          indices=t.empty(0, dtype=t.long)), x5)
    check(lambda t, a: t.ops.aten._adaptive_avg_pool2d.out(a, [3, 2], out=t.empty(0)), x4)
    check(lambda t, a: t.ops.aten._adaptive_avg_pool3d.out(a, [3, 2, 1], out=t.empty(0)), x5)
    check(lambda t, a: t.ops.aten.adaptive_avg_pool1d.out(a[0], [3], out=t.empty(0)), x4)
    check(lambda t, a: t.ops.aten._adaptive_avg_pool2d_backward.out(a[:, :, :3, :2] * 1, a, out=t.empty(0)), x4)
    check(lambda t, a: t.ops.aten._adaptive_avg_pool3d_backward.out(a[:, :, :3, :2, :1] * 1, a, out=t.empty(0)), x5)
    check(lambda t, a: t.ops.aten.adaptive_avg_pool3d_backward.grad_input(a[:, :, :3, :2, :1] * 1, a,
                                                                          grad_input=t.empty(0)), x5)
    idx = Input(np.array([[[[0, 4], [12, 34]]]]), "int64")
    check(lambda t, a, i: t.ops.aten.adaptive_max_pool2d_backward.grad_input(
        a[:1, :1, :2, :2] * 1, a[:1, :1], i, grad_input=t.empty(0)), x4, idx)
    check_error(lambda t, a: t.ops.aten._adaptive_avg_pool2d.out(a, [3, 2], out=t.empty(0, dtype=t.float64)), x4)


def test_python_bindings_are_torchs():
    for name in ("adaptive_avg_pool1d", "adaptive_max_pool1d", "_adaptive_avg_pool2d", "_adaptive_avg_pool3d"):
        assert hasattr(torchpy, name) and hasattr(torch, name)
    for name in ("adaptive_avg_pool2d", "adaptive_max_pool2d", "adaptive_max_pool2d_backward",
                 "_adaptive_avg_pool2d_backward", "adaptive_avg_pool3d_backward"):
        assert hasattr(torchpy, name) == hasattr(torch, name), name


# --- meta -------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_meta(dtype):
    x4 = Input(np.ones((2, 3, 7, 5)), dtype, device="meta")
    x5 = Input(np.ones((2, 3, 7, 5, 4)), dtype, device="meta")
    check(lambda t, a: t.ops.aten._adaptive_avg_pool2d(a, [3, 2]), x4)
    check(lambda t, a: t.ops.aten._adaptive_avg_pool3d(a, [3, 2, 1]), x5)
    check(lambda t, a: t.ops.aten.adaptive_max_pool2d(a, [3, 2]), x4)
    check(lambda t, a: t.ops.aten.adaptive_max_pool3d(a, [3, 2, 1]), x5)
    check(lambda t, a: t.ops.aten._adaptive_avg_pool2d_backward(a[:, :, :3, :2], a), x4)
    check(lambda t, a: t.ops.aten._adaptive_avg_pool3d_backward(a[:, :, :3, :2, :1], a), x5)
    check(lambda t, a: t.ops.aten.adaptive_max_pool3d_backward(a[:, :, :3, :2, :1], a, a.long()), x5)
    check(lambda t, a: t.ops.aten._adaptive_avg_pool2d(a, [2, 2, 2]), x4)  # no size check on meta
    check_error(lambda t, a: t.ops.aten._adaptive_avg_pool2d(a, [2, -2]), x4)
    check_error(lambda t, a: t.ops.aten._adaptive_avg_pool2d(a[0, 0], [2, 2]), x4)
    check_error(lambda t, a: t.ops.aten._adaptive_avg_pool3d(a[0, 0], [2, 2, 2]), x5)
    check_error(lambda t, a: t.ops.aten.adaptive_max_pool2d(a[0, 0], [2, 2]), x4)
    check_error(lambda t, a: t.ops.aten.adaptive_max_pool2d(a[:, :0], [2, 2]), x4)
    check_error(lambda t, a: t.ops.aten.adaptive_max_pool3d(a[:, :, :0], [2, 2, 2]), x5)
    check_error(lambda t, a: t.ops.aten.adaptive_max_pool2d(a, [2, 2, 2]), x4)
    check_error(lambda t, a: t.ops.aten.adaptive_max_pool2d_backward(a[0, 0], a[0, 0], a[0, 0].long()), x4)
    check_error(lambda t, a: t.ops.aten._adaptive_avg_pool2d_backward(a[0, 0], a[0, 0]), x4)


def test_meta_layout_and_dtype_checks():
    x = torch.empty(2, 3, 4, 5, device="meta").contiguous(memory_format=torch.channels_last)
    y = torchpy.empty(2, 3, 4, 5, device="meta").contiguous(memory_format=torchpy.channels_last)
    assert torchpy.ops.aten._adaptive_avg_pool2d(y, [2, 2]).stride() == torch.ops.aten._adaptive_avg_pool2d(x, [2, 2]).stride()
    assert (torchpy.ops.aten.adaptive_max_pool2d(y, [2, 2])[1].stride()
            == torch.ops.aten.adaptive_max_pool2d(x, [2, 2])[1].stride())
    x4 = Input(np.ones((2, 3, 7, 5)), "float32", device="meta")
    check_error(lambda t, a: t.ops.aten._adaptive_avg_pool2d_backward(a[:, :, :2, :2].double(), a), x4)


# --- gradients --------------------------------------------------------------------------------


def _grads(lib, fn, shape, size, values, grad_values):
    x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
    out = fn(lib, x, size)
    out = out[0] if isinstance(out, tuple) else out
    out.backward(lib.tensor(grad_values[: out.numel()].reshape(tuple(out.shape)), dtype=lib.float64))
    return x.grad, out.grad_fn.name()


@pytest.mark.parametrize("dims, shape, size", ALL, ids=IDS)
@pytest.mark.parametrize("kind", ["avg", "max"])
def test_gradients(dims, shape, size, kind):
    fn = (lambda t, x, s: avg(t, dims)(x, s)) if kind == "avg" else (lambda t, x, s: max_(t, dims)(x, s, True))
    values = randn(*shape).astype(np.float64)
    grad_values = randn(4096, seed=7).astype(np.float64)
    if 0 in np.atleast_1d(size):  # the backward kernels refuse an empty grad_output, in torch too
        check_error(lambda t: _grads(t, fn, shape, size, values, grad_values))
        return
    (expected, expected_name), (actual, actual_name) = (_grads(lib, fn, shape, size, values, grad_values)
                                                        for lib in (torch, torchpy))
    assert actual_name == expected_name
    assert_values(np.asarray(actual._data), expected.numpy(), scaled(rtol=1e-12, atol=1e-12))


@pytest.mark.parametrize("fn", [
    lambda t, x: t.nn.functional.adaptive_avg_pool1d(x[0], 3),
    lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, (3, None)),
    lambda t, x: t.nn.functional.adaptive_avg_pool3d(x, (2, 3, 2)),
    lambda t, x: t.nn.functional.adaptive_max_pool1d(x[0], 3),
    lambda t, x: t.nn.functional.adaptive_max_pool2d(x, (3, 2)),
    lambda t, x: t.nn.functional.adaptive_max_pool3d(x, 2),
], ids=["avg1d", "avg2d", "avg3d", "max1d", "max2d", "max3d"])
def test_gradcheck_and_gradgradcheck(fn):
    values = np.random.default_rng(3).permutation(2 * 3 * 7 * 5).reshape(2, 3, 7, 5) / 10.0  # distinct: no ties
    for lib in (torch, torchpy):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        assert lib.autograd.gradcheck(lambda a: fn(lib, a), (x,))
        assert lib.autograd.gradgradcheck(lambda a: fn(lib, a), (x,))


# --- what a dispatch mode sees ------------------------------------------------------------------


def _with_backward(fn):
    def run(t, a):
        x = a.detach().requires_grad_(True)
        out = fn(t, x)
        out = out[0] if isinstance(out, tuple) else out
        out.backward(t.ones_like(out))

    return run


DISPATCH_CASES = {
    "avg1d": lambda t, a: t.nn.functional.adaptive_avg_pool1d(a[0], 3),
    "avg1d-global": lambda t, a: t.nn.functional.adaptive_avg_pool1d(a[0], 1),
    "avg2d": lambda t, a: t.nn.functional.adaptive_avg_pool2d(a, (3, None)),
    "avg2d-global": lambda t, a: t.nn.functional.adaptive_avg_pool2d(a, 1),
    "avg2d-unbatched": lambda t, a: t.nn.functional.adaptive_avg_pool2d(a[0], (1, 1)),
    "avg3d": lambda t, a: t.nn.functional.adaptive_avg_pool3d(a, (2, 3, 2)),
    "avg3d-global": lambda t, a: t.nn.functional.adaptive_avg_pool3d(a, 1),
    "max1d": lambda t, a: t.nn.functional.adaptive_max_pool1d(a[0], 3),
    "max1d-indices": lambda t, a: t.nn.functional.adaptive_max_pool1d(a[0], 3, True),
    "max2d": lambda t, a: t.nn.functional.adaptive_max_pool2d(a, (3, None)),
    "max2d-unbatched": lambda t, a: t.nn.functional.adaptive_max_pool2d(a[0], 1, return_indices=True),
    "max3d": lambda t, a: t.nn.functional.adaptive_max_pool3d(a, (2, 3, 2)),
}


@pytest.mark.parametrize("case", list(DISPATCH_CASES))
def test_dispatch_mode_sees_torchs_calls(case):
    assert_same_dispatch(_with_backward(DISPATCH_CASES[case]), randn(2, 3, 7, 5))


@pytest.mark.parametrize("op", ["_adaptive_avg_pool2d", "adaptive_max_pool2d", "_adaptive_avg_pool3d",
                                "adaptive_max_pool3d"])
def test_double_backward_dispatch(op):
    def run(t, a):
        x = a.detach().requires_grad_(True)
        sizes = [3, 2] if op.endswith("2d") else [2, 3, 2]
        out = getattr(t.ops.aten, op)(x, sizes)
        out = out[0] if isinstance(out, tuple) else out
        g = t.ones_like(out).requires_grad_(True)
        (gx,) = t.autograd.grad(out, x, g, create_graph=True)
        t.autograd.grad(gx, (g, x), t.ones_like(gx), allow_unused=True)

    assert_same_dispatch(run, randn(2, 3, 7, 5))


# --- errors -----------------------------------------------------------------------------------


ERRORS = {
    "avg1d-1d-input": lambda t: t.nn.functional.adaptive_avg_pool1d(t.randn(7), 2),
    "avg1d-4d-input": lambda t: t.nn.functional.adaptive_avg_pool1d(t.randn(1, 2, 3, 7), 2),
    "avg1d-two-sizes": lambda t: t.nn.functional.adaptive_avg_pool1d(t.randn(3, 7), (2, 2)),
    "avg1d-None": lambda t: t.nn.functional.adaptive_avg_pool1d(t.randn(3, 7), None),
    "avg1d-negative": lambda t: t.nn.functional.adaptive_avg_pool1d(t.randn(3, 7), -1),
    "avg1d-empty-length": lambda t: t.nn.functional.adaptive_avg_pool1d(t.randn(3, 0), 2),
    "avg1d-int": lambda t: t.nn.functional.adaptive_avg_pool1d(t.ones(1, 7, dtype=t.long), 2),
    "max1d-1d-input": lambda t: t.nn.functional.adaptive_max_pool1d(t.randn(7), 2),
    "max1d-two-sizes": lambda t: t.nn.functional.adaptive_max_pool1d(t.randn(3, 7), (2, 2)),
    "max1d-negative": lambda t: t.nn.functional.adaptive_max_pool1d(t.randn(3, 7), -1),
    "max1d-empty-length": lambda t: t.nn.functional.adaptive_max_pool1d(t.randn(3, 0), 2),
    "max1d-empty-channels": lambda t: t.nn.functional.adaptive_max_pool1d(t.randn(2, 0, 3), 2),
    "avg2d-2d-input": lambda t: t.nn.functional.adaptive_avg_pool2d(t.randn(3, 7), 2),
    "avg2d-5d-input": lambda t: t.nn.functional.adaptive_avg_pool2d(t.randn(1, 2, 3, 4, 5), 2),
    "avg2d-None-short-input": lambda t: t.nn.functional.adaptive_avg_pool2d(t.randn(3, 7), (None, 2)),
    "avg2d-three-sizes": lambda t: t.nn.functional.adaptive_avg_pool2d(t.randn(2, 3, 7, 5), (2, 2, 2)),
    "avg2d-one-size": lambda t: t.nn.functional.adaptive_avg_pool2d(t.randn(2, 3, 7, 5), (2,)),
    "avg2d-negative": lambda t: t.nn.functional.adaptive_avg_pool2d(t.randn(2, 3, 7, 5), (-1, 2)),
    "avg2d-empty-height": lambda t: t.nn.functional.adaptive_avg_pool2d(t.randn(2, 3, 0, 5), 2),
    "avg2d-empty-height-unbatched": lambda t: t.nn.functional.adaptive_avg_pool2d(t.randn(3, 0, 5), 2),
    "avg2d-int": lambda t: t.nn.functional.adaptive_avg_pool2d(t.ones(1, 7, 5, dtype=t.long), 2),
    "avg2d-bool": lambda t: t.nn.functional.adaptive_avg_pool2d(t.ones(1, 7, 5, dtype=t.bool), 2),
    "avg2d-complex": lambda t: t.nn.functional.adaptive_avg_pool2d(t.ones(1, 7, 5, dtype=t.complex64), 2),
    "avg2d-int-global": lambda t: t.nn.functional.adaptive_avg_pool2d(t.ones(1, 7, 5, dtype=t.long), 1),
    "avg2d-str": lambda t: t.nn.functional.adaptive_avg_pool2d(t.randn(2, 3, 7, 5), "a"),
    "avg2d-float": lambda t: t.nn.functional.adaptive_avg_pool2d(t.randn(2, 3, 7, 5), 2.0),
    "avg3d-None": lambda t: t.nn.functional.adaptive_avg_pool3d(t.randn(1, 3, 7, 2), None),
    "max2d-2d-input": lambda t: t.nn.functional.adaptive_max_pool2d(t.randn(3, 7), 2),
    "max2d-5d-input": lambda t: t.nn.functional.adaptive_max_pool2d(t.randn(1, 2, 3, 4, 5), 2),
    "max2d-three-sizes": lambda t: t.nn.functional.adaptive_max_pool2d(t.randn(2, 3, 7, 5), (2, 2, 2)),
    "max2d-negative": lambda t: t.nn.functional.adaptive_max_pool2d(t.randn(2, 3, 7, 5), (-1, 2)),
    "max2d-empty-channels": lambda t: t.nn.functional.adaptive_max_pool2d(t.randn(2, 0, 7, 5), 2),
    "max2d-empty-height": lambda t: t.nn.functional.adaptive_max_pool2d(t.randn(3, 0, 5), 2),
    "max2d-int": lambda t: t.nn.functional.adaptive_max_pool2d(t.ones(1, 7, 5, dtype=t.long), 2),
    "max2d-int-empty-output": lambda t: t.nn.functional.adaptive_max_pool2d(t.ones(1, 3, 7, 5, dtype=t.long), 0),
    "avg3d-3d-input": lambda t: t.nn.functional.adaptive_avg_pool3d(t.randn(3, 7, 5), 2),
    "avg3d-6d-input": lambda t: t.nn.functional.adaptive_avg_pool3d(t.randn(1, 2, 3, 4, 5, 6), 2),
    "avg3d-two-sizes": lambda t: t.nn.functional.adaptive_avg_pool3d(t.randn(2, 3, 4, 5, 6), (2, 2)),
    "avg3d-negative": lambda t: t.nn.functional.adaptive_avg_pool3d(t.randn(1, 2, 7, 5, 2), (2, -1, 2)),
    "avg3d-empty-channels": lambda t: t.nn.functional.adaptive_avg_pool3d(t.randn(1, 0, 7, 5, 2), 2),
    "avg3d-int-empty-batch": lambda t: t.nn.functional.adaptive_avg_pool3d(t.ones(0, 3, 7, 5, 2, dtype=t.long), 2),
    "max3d-3d-input": lambda t: t.nn.functional.adaptive_max_pool3d(t.randn(3, 7, 5), 2),
    "max3d-two-sizes": lambda t: t.nn.functional.adaptive_max_pool3d(t.randn(2, 3, 4, 5, 6), (2, 2)),
    "max3d-negative": lambda t: t.nn.functional.adaptive_max_pool3d(t.randn(1, 2, 7, 5, 2), (2, -1, 2)),
    "max3d-empty-depth": lambda t: t.nn.functional.adaptive_max_pool3d(t.randn(2, 3, 0, 5, 4), 2),
    "max3d-int": lambda t: t.nn.functional.adaptive_max_pool3d(t.ones(1, 7, 5, 3, dtype=t.long), 2),
    "aten-avg2d-negative": lambda t: t.ops.aten._adaptive_avg_pool2d(t.randn(1, 2, 7, 5), (2, -1)),
    "aten-avg3d-1-size": lambda t: t.ops.aten._adaptive_avg_pool3d(t.randn(1, 2, 7, 5, 3), [2]),
    "aten-avg1d-two-sizes": lambda t: t.ops.aten.adaptive_avg_pool1d(t.randn(3, 7), [2, 2]),
    "avg-backward-ndim": lambda t: t.ops.aten._adaptive_avg_pool2d_backward(t.randn(2, 2, 2), t.randn(2, 3, 7, 5)),
    "avg-backward-2d": lambda t: t.ops.aten._adaptive_avg_pool2d_backward(t.randn(2, 2), t.randn(3, 7)),
    "avg-backward-dtype": lambda t: t.ops.aten._adaptive_avg_pool2d_backward(t.randn(2, 3, 2, 2).double(),
                                                                            t.randn(2, 3, 7, 5)),
    "avg-backward-int": lambda t: t.ops.aten._adaptive_avg_pool2d_backward(t.ones(2, 3, 2, 2, dtype=t.long),
                                                                          t.ones(2, 3, 7, 5, dtype=t.long)),
    "avg3d-backward-ndim": lambda t: t.ops.aten._adaptive_avg_pool3d_backward(t.randn(3, 2, 2, 2),
                                                                             t.randn(2, 3, 7, 5, 2)),
    "avg3d-backward-3d": lambda t: t.ops.aten._adaptive_avg_pool3d_backward(t.randn(3, 2, 2), t.randn(3, 7, 5)),
    "avg3d-backward-dtype": lambda t: t.ops.aten._adaptive_avg_pool3d_backward(t.randn(2, 3, 2, 2, 2).double(),
                                                                              t.randn(2, 3, 7, 5, 2)),
    "max-backward-grad-sizes": lambda t: t.ops.aten.adaptive_max_pool2d_backward(
        t.randn(3, 2, 2), t.randn(2, 3, 7, 5), t.zeros(2, 3, 2, 2, dtype=t.long)),
    "max-backward-indices-ndim": lambda t: t.ops.aten.adaptive_max_pool2d_backward(
        t.randn(2, 3, 2, 2), t.randn(2, 3, 7, 5), t.zeros(3, 2, 2, dtype=t.long)),
    "max-backward-2d": lambda t: t.ops.aten.adaptive_max_pool2d_backward(
        t.randn(3, 2), t.randn(3, 7), t.zeros(3, 2, dtype=t.long)),
    "max-backward-dtype": lambda t: t.ops.aten.adaptive_max_pool2d_backward(
        t.randn(2, 3, 2, 2).double(), t.randn(2, 3, 7, 5), t.zeros(2, 3, 2, 2, dtype=t.long)),
    "max-backward-index-dtype": lambda t: t.ops.aten.adaptive_max_pool2d_backward(
        t.randn(2, 3, 2, 2), t.randn(2, 3, 7, 5), t.zeros(2, 3, 2, 2, dtype=t.int)),
    "max-backward-int": lambda t: t.ops.aten.adaptive_max_pool2d_backward(
        t.ones(2, 3, 2, 2, dtype=t.long), t.ones(2, 3, 7, 5, dtype=t.long), t.zeros(2, 3, 2, 2, dtype=t.long)),
    "max3d-backward-sizes": lambda t: t.ops.aten.adaptive_max_pool3d_backward(
        t.randn(3, 2, 2, 2), t.randn(2, 3, 7, 5, 2), t.zeros(2, 3, 2, 2, 2, dtype=t.long)),
    "max3d-backward-dtype": lambda t: t.ops.aten.adaptive_max_pool3d_backward(
        t.randn(2, 3, 2, 2, 2).double(), t.randn(2, 3, 7, 5, 2), t.zeros(2, 3, 2, 2, 2, dtype=t.long)),
    "max3d-backward-index-dtype": lambda t: t.ops.aten.adaptive_max_pool3d_backward(
        t.randn(2, 3, 2, 2, 2), t.randn(2, 3, 7, 5, 2), t.zeros(2, 3, 2, 2, 2, dtype=t.int)),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors(case):
    check_error(lambda t: ERRORS[case](t))


def det(t, *shape):
    return t.tensor(randn(*shape))


OK_EDGES = {
    "avg2d-2d-input-global": lambda t: t.nn.functional.adaptive_avg_pool2d(det(t, 3, 7), 1),
    "avg2d-empty-height-global": lambda t: t.nn.functional.adaptive_avg_pool2d(det(t, 3, 0, 4), 1),
    "avg2d-empty-channels": lambda t: t.nn.functional.adaptive_avg_pool2d(det(t, 2, 0, 7, 5), 2),
    "avg2d-empty-batch-int": lambda t: t.nn.functional.adaptive_avg_pool2d(t.ones(0, 3, 7, 5, dtype=t.long), 2),
    "avg2d-empty-output-int": lambda t: t.nn.functional.adaptive_avg_pool2d(t.ones(1, 3, 7, 5, dtype=t.long), 0),
    "max2d-empty-channels-unbatched": lambda t: t.nn.functional.adaptive_max_pool2d(det(t, 0, 7, 5), 2, True),
    "max1d-empty-channels-unbatched": lambda t: t.nn.functional.adaptive_max_pool1d(det(t, 0, 7), 2, True),
    "max2d-empty-batch": lambda t: t.nn.functional.adaptive_max_pool2d(det(t, 0, 3, 7, 5), 2, True),
    "avg3d-empty-channels-unbatched": lambda t: t.nn.functional.adaptive_avg_pool3d(det(t, 0, 7, 5, 2), 2),
    "keywords": lambda t: t.nn.functional.adaptive_max_pool2d(input=t.ones(1, 3, 7), output_size=2,
                                                              return_indices=True),
}


@pytest.mark.parametrize("case", list(OK_EDGES))
def test_edge_cases_that_work(case):
    check(lambda t: OK_EDGES[case](t))


# --- the Python layer: signatures and __torch_function__ ----------------------------------------------


FUNCTIONAL = ["adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d_with_indices",
              "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices"]


@pytest.mark.parametrize("name", FUNCTIONAL)
def test_signatures(name):
    def params(fn):
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]

    assert params(getattr(torchpy.nn.functional, name)) == params(getattr(torch.nn.functional, name))


def test_boolean_dispatch_names():
    for dims in (1, 2, 3):
        ours, theirs = max_(torchpy, dims), max_(torch, dims)
        assert ours.__name__ == theirs.__name__
    assert torchpy.nn.functional.adaptive_avg_pool1d is torchpy.adaptive_avg_pool1d


SEEN_CALLS = {  # name -> (input shape, call)
    "avg1d": ((3, 4, 5), lambda t, x: t.nn.functional.adaptive_avg_pool1d(x, 2)),
    "avg2d": ((3, 4, 5), lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, (2, None))),
    "avg3d": ((2, 3, 4, 5), lambda t, x: t.nn.functional.adaptive_avg_pool3d(x, 2)),
    "max1d": ((3, 4, 5), lambda t, x: t.nn.functional.adaptive_max_pool1d(x, 2)),
    "max1d-indices": ((3, 4, 5), lambda t, x: t.nn.functional.adaptive_max_pool1d(x, 2, return_indices=True)),
    "max2d": ((3, 4, 5), lambda t, x: t.nn.functional.adaptive_max_pool2d(x, 2)),
    "max2d-indices": ((3, 4, 5), lambda t, x: t.nn.functional.adaptive_max_pool2d(x, 2, True)),
    "max3d": ((2, 3, 4, 5), lambda t, x: t.nn.functional.adaptive_max_pool3d(x, 2)),
    "max3d-with-indices": ((2, 3, 4, 5), lambda t, x: t.nn.functional.adaptive_max_pool3d_with_indices(x, 2)),
}


def _seen(lib, shape, fn):
    """(function name, args' types, kwargs) of what a subclass's __torch_function__ and a
    TorchFunctionMode are handed first."""
    overrides = lib.overrides
    seen = []

    class Sub(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if not seen:
                seen.append(("subclass", overrides.resolve_name(func), kwargs))
            return super().__torch_function__(func, types, args, kwargs)

    class Mode(overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if len(seen) == 1:
                seen.append(("mode", overrides.resolve_name(func), kwargs))
            return func(*args, **(kwargs or {}))

    x = lib.tensor(randn(*shape))
    fn(lib, x.as_subclass(Sub))
    with Mode():
        fn(lib, x)
    return seen


@pytest.mark.parametrize("case", list(SEEN_CALLS))
def test_torch_function_sees_torchs_function(case):
    assert _seen(torchpy, *SEEN_CALLS[case]) == _seen(torch, *SEEN_CALLS[case])
