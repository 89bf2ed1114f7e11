"""softmax / log_softmax (public, Tensor methods, _softmax / _log_softmax, out=) against torch."""

import numpy as np
import pytest

from tests.oracle import FLOAT_DTYPES, Input, check, check_error, close_for, randn

NAN = float("nan")
INF = float("inf")



@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_softmax_dims_and_dtypes(dtype, op, dim):
    x = Input(randn(2, 3, 4) * 3, dtype, noncontiguous=True)
    check(lambda t, a: getattr(a, op)(dim), x, policy=close_for(dtype))
    check(lambda t, a: getattr(t, op)(a, dim), x, policy=close_for(dtype))
    check(lambda t, a: getattr(t.ops.aten, "_" + op).default(a, dim, False), x, policy=close_for(dtype))


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_dtype_argument(op):
    check(lambda t, a: getattr(a, op)(0, dtype=t.float64), Input(randn(3, 4), "float32"))
    check(lambda t, a: getattr(t, op)(a, 1, t.float64), Input(randn(3, 4), "float32"))
    check(lambda t, a: getattr(a, op)(1, dtype=t.float32), Input(randn(3, 4), "float16"))
    check(lambda t, a: getattr(a, op)(0, dtype=t.float32), Input([1, 2, 3], "int64"))
    check(lambda t, a: getattr(a, op)(0, dtype=t.float32), Input(randn(3), "float32"))


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_special_values(op):
    check(lambda t, a: getattr(a, op)(0), Input([1000.0, 1000.0, -1000.0], "float32"))
    check(lambda t, a: getattr(a, op)(0), Input([INF, 1.0], "float32"))
    check(lambda t, a: getattr(a, op)(0), Input([-INF, -INF], "float32"))
    check(lambda t, a: getattr(a, op)(1), Input([[-INF, 0.0], [NAN, 1.0]], "float32"))
    check(lambda t, a: getattr(a, op)(0), Input(2.5, "float32"))
    check(lambda t, a: getattr(a, op)(-1), Input(2.5, "float64"))
    check(lambda t, a: getattr(a, op)(0), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, a: getattr(a, op)(1), Input(np.zeros((0, 3)), "float32"))


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_errors(op):
    check_error(lambda t, a: getattr(a, op)(0), Input([1, 2, 3], "int32"))
    check_error(lambda t, a: getattr(a, op)(0), Input([[1, 2], [3, 4]], "int64"))
    check_error(lambda t, a: getattr(a, op)(0), Input([True, False], "bool"))
    check_error(lambda t, a: getattr(a, op)(0), Input([[True, False]], "bool"))
    check_error(lambda t, a: getattr(a, op)(0), Input([[1j, 2.0]], "complex64"))
    check_error(lambda t, a: getattr(a, op)(2), Input(randn(2, 3), "float32"))
    check_error(lambda t, a: getattr(a, op)(1), Input(1.0, "float32"))
    check_error(lambda t, a: getattr(a, op)(0, dtype=t.int64), Input(randn(2, 3), "float32"))
    check_error(lambda t, a: getattr(t.ops.aten, "_" + op).default(a, 0, True), Input(randn(3), "float16"))
    check_error(lambda t, a: getattr(t.ops.aten, "_" + op).default(a, 0, True), Input(randn(3), "float32"))


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_out(op):
    x = Input(randn(2, 3), "float32")
    check(lambda t, a: getattr(t, op)(a, 0, out=t.empty(2, 3)), x)
    check(lambda t, a: getattr(t, op)(a, 1, out=t.empty(0)), x)
    check(lambda t, a: getattr(t, op)(a, 0, dtype=t.float64, out=t.empty(2, 3, dtype=t.float64)), x)
    check(lambda t, a: getattr(t.ops.aten, "_" + op).out(a, 1, False, out=t.empty(2, 3)), x)
    check_error(lambda t, a: getattr(t, op)(a, 0, out=t.empty(2, 3, dtype=t.float64)), x)
    check_error(lambda t, a: getattr(t, op)(a, 0, dtype=t.float64, out=t.empty(2, 3)), x)
    check_error(lambda t, a: getattr(t.ops.aten, "_" + op).out(a, 1, False, out=t.empty(2, 3, dtype=t.float64)), x)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "complex64"])
def test_softmax_meta(op, dtype):
    """PyTorch's meta functions skip the CPU kernels' dtype checks."""
    x = Input(np.ones((2, 3)), dtype, device="meta")
    check(lambda t, a: getattr(a, op)(1), x)
    check(lambda t, a: getattr(t.ops.aten, "_" + op).default(a, 0, False), x)
    if dtype != "complex64":
        check(lambda t, a: getattr(a, op)(0, dtype=t.float64), x)
    if op == "softmax":
        check(lambda t, a: a.softmax(2), x)  # torch's meta _softmax does not check dim
    else:
        check_error(lambda t, a: a.log_softmax(2), x)


def test_softmax_meta_half_to_float():
    check(lambda t, a: t.ops.aten._softmax.default(a, 0, True), Input(np.ones(3), "float16", device="meta"))
    check(lambda t, a: t.ops.aten._softmax.default(a, 0, True), Input(np.ones(3), "bfloat16", device="meta"))
    check(lambda t, a: t.ops.aten._log_softmax.default(a, 0, True), Input(np.ones(3), "float16", device="meta"))
    check_error(lambda t, a: t.ops.aten._log_softmax.default(a, 0, True), Input(np.ones(3), "bfloat16", device="meta"))
    check_error(lambda t, a: t.ops.aten._softmax.default(a, 0, True), Input(np.ones(3), "float32", device="meta"))


SOFTMAX_DISPATCH_CASES = {
    "method": lambda t, a: a.softmax(0),
    "function": lambda t, a: t.log_softmax(a, 1),
    "dtype": lambda t, a: a.softmax(0, dtype=t.float64),
    "same dtype": lambda t, a: a.log_softmax(1, dtype=t.float32),
    "out": lambda t, a: t.softmax(a, 0, out=t.empty(3, 4)),
}


@pytest.mark.parametrize("case", list(SOFTMAX_DISPATCH_CASES))
def test_dispatch_mode_sees_torchs_calls(case):
    """softmax.int is CompositeImplicitAutograd: a mode sees _to_copy (for dtype=) and _softmax."""
    import torch

    import torchpy

    from .test_reduction import dispatch_log

    fn = SOFTMAX_DISPATCH_CASES[case]
    values = randn(3, 4)
    assert dispatch_log(torchpy, fn, values) == dispatch_log(torch, fn, values)


def _functional(lib, name):
    """nn.functional.<name>: torch's, and torchpy's implementation of it."""
    if lib.__name__ == "torch":
        return getattr(lib.nn.functional, name)
    from torchpy._aten import python_reductions

    return getattr(python_reductions, f"functional_{name}")


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_functional_softmax(op):
    import warnings

    x = Input(randn(2, 3, 4), "float32")
    check(lambda t, a: _functional(t, op)(a, 1), x)
    check(lambda t, a: _functional(t, op)(a, dim=-1, dtype=t.float64), x)
    for shape, values in (((5,), randn(5)), ((2, 3), randn(2, 3)), ((2, 3, 4), randn(2, 3, 4)), ((1, 2, 3, 4), randn(1, 2, 3, 4))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check(lambda t, a: _functional(t, op)(a), Input(values, "float32"))
        assert all("Implicit dimension choice for " + op in str(w.message) for w in caught) and len(caught) == 2
