"""Reductions against torch: sum, nansum, mean, prod, count_nonzero, any, all, amax, amin,
aminmax, max, min, argmax, argmin, std, var, std_mean, var_mean, logsumexp, cumsum, cumprod,
norm and linalg.vector_norm: values, dtypes, shapes, meta results, out= forms and errors."""

import warnings

import numpy as np
import pytest
import torch

import torchpy

from tests.oracle import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, Input, check, check_error, close_for, randint, randn

REAL_DTYPES = FLOAT_DTYPES + INT_DTYPES + ("bool",)
NAN = float("nan")
INF = float("inf")


def values_for(dtype, *shape, seed=0):
    """Test values that suit `dtype`: small integers, booleans or normal floats."""
    if dtype == "bool":
        return randint(0, 2, *shape, seed=seed).astype(bool)
    if dtype in INT_DTYPES:
        return randint(0 if dtype == "uint8" else -5, 6, *shape, seed=seed)
    if dtype.startswith("complex"):
        return randn(*shape, seed=seed) + 1j * randn(*shape, seed=seed + 1)
    return randn(*shape, seed=seed)



DIMS = [None, 0, 1, -1, (0, 2), (-1, 0), (), [1]]


# --- sum / prod / nansum -------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_sum_all_dtypes(dtype):
    x = Input(values_for(dtype, 2, 3, 4), dtype)
    check(lambda t, a: a.sum(), x, policy=close_for(dtype))
    check(lambda t, a: t.sum(a, 1), x, policy=close_for(dtype))
    check(lambda t, a: a.sum((0, 2), keepdim=True), Input(values_for(dtype, 2, 3, 4), dtype, noncontiguous=True), policy=close_for(dtype))


@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_dims(dim, keepdim):
    x = Input(randn(2, 3, 4), "float32", noncontiguous=True)
    if dim is None:
        check(lambda t, a: a.sum(dim=None, keepdim=keepdim), x)
    else:
        check(lambda t, a: a.sum(dim, keepdim), x)
        check(lambda t, a: t.sum(a, dim=dim, keepdim=keepdim), x)


def test_sum_dtype_argument_casts_first():
    check(lambda t, a: a.sum(dtype=t.int8), Input([100, 100, 3], "int8"))
    check(lambda t, a: a.sum(dtype=t.int32), Input([1.7, -2.9, 3.5], "float32"))
    check(lambda t, a: a.sum(0, dtype=t.float16), Input([[1, 2], [3, 4]], "int64"))
    check(lambda t, a: a.sum(dtype=t.float64), Input(randn(5), "float32"))
    check(lambda t, a: t.sum(a, (0,), dtype=t.complex128), Input(randn(3, 2), "float32"))


def test_sum_integers_widen():
    for dtype in INT_DTYPES + ("bool",):
        check(lambda t, a: a.sum(0), Input(values_for(dtype, 4, 3), dtype))
    check(lambda t, a: a.sum(), Input([120, 120, 120], "int8"))


def test_sum_empty_and_zero_dim():
    check(lambda t, a: a.sum(), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, a: a.sum(0), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, a: a.sum(1, keepdim=True), Input(np.zeros((0, 3)), "int32"))
    for dim in (0, -1, (), (0,), None):
        check(lambda t, a: a.sum(dim), Input(3.5, "float32"))
    check(lambda t, a: a.sum(0, keepdim=True), Input(3, "int16"))


def test_sum_errors():
    x = Input(randn(2, 3), "float32")
    check_error(lambda t, a: a.sum(2), x)
    check_error(lambda t, a: a.sum(-3), x)
    check_error(lambda t, a: a.sum((0, 0)), x)
    check_error(lambda t, a: a.sum((0, -2)), x)
    check_error(lambda t, a: a.sum((1, -2, 1)), x)
    check_error(lambda t, a: a.sum(1), Input(2.0, "float32"))
    check_error(lambda t, a: a.sum((0, -1)), Input(2.0, "float32"))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_prod(dtype):
    x = Input(values_for(dtype, 3, 4) if dtype != "float16" else values_for(dtype, 3, 4) / 2, dtype)
    check(lambda t, a: a.prod(), x, policy=close_for(dtype))
    check(lambda t, a: a.prod(1), x, policy=close_for(dtype))
    check(lambda t, a: t.prod(a, 0, keepdim=True), x, policy=close_for(dtype))
    check(lambda t, a: a.prod(-1, dtype=t.complex128 if a.is_complex() else t.float64), x)


def test_prod_special_cases():
    check(lambda t, a: a.prod(), Input(np.zeros((0, 2)), "float32"))
    check(lambda t, a: a.prod(0), Input(np.zeros((0, 2)), "int32"))
    check(lambda t, a: a.prod(0), Input(5.0, "float64"))
    check(lambda t, a: a.prod(dtype=t.int8), Input([10, 20, 30], "int64"))
    check_error(lambda t, a: a.prod((0, 1)), Input(randn(2, 2), "float32"), match_message=False)
    check_error(lambda t, a: a.prod(2), Input(randn(2, 2), "float32"))


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_nansum(dtype):
    values = values_for(dtype, 3, 4)
    if dtype in FLOAT_DTYPES:
        values[0, 1] = values[2, 3] = NAN
    x = Input(values, dtype)
    check(lambda t, a: a.nansum(), x, policy=close_for(dtype))
    check(lambda t, a: t.nansum(a, 1, keepdim=True), x, policy=close_for(dtype))
    check(lambda t, a: t.nansum(a, (0,), dtype=t.float64), x)


def test_nansum_errors_and_out():
    check_error(lambda t, a: a.nansum(), Input([1 + 1j], "complex64"))
    x = Input(randn(2, 3), "float32")
    check(lambda t, a: t.nansum(a, 0, out=t.empty(3, dtype=t.float64)), x)
    check_error(lambda t, a: t.nansum(a, 0, dtype=t.float64, out=t.empty(3)), x)


# --- mean ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + ("complex64", "complex128"))
@pytest.mark.parametrize("dim", DIMS)
def test_mean(dtype, dim):
    x = Input(values_for(dtype, 2, 3, 4), dtype, noncontiguous=True)
    if dim is None:
        check(lambda t, a: a.mean(), x, policy=close_for(dtype))
    else:
        check(lambda t, a: a.mean(dim), x, policy=close_for(dtype))
        check(lambda t, a: t.mean(a, dim, keepdim=True), x, policy=close_for(dtype))


def test_mean_dtype_argument_and_errors():
    check(lambda t, a: a.mean(dtype=t.float64), Input([1, 2, 4], "int32"))
    check(lambda t, a: a.mean(0, dtype=t.float16), Input(randn(3, 2), "float32"), policy=close_for("float16"))
    check(lambda t, a: a.mean(dtype=t.complex64), Input(randn(3), "float32"))
    check_error(lambda t, a: a.mean(), Input([1, 2], "int8"))
    check_error(lambda t, a: a.mean(0), Input([True, False], "bool"))
    check_error(lambda t, a: a.mean(dtype=t.int64), Input(randn(3), "float32"))


def test_mean_empty_is_nan():
    check(lambda t, a: a.mean(), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, a: a.mean(0), Input(np.zeros((0, 3)), "float64"))
    check(lambda t, a: a.mean(1), Input(np.zeros((0, 3)), "float32"))


# --- count_nonzero / any / all ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_count_nonzero(dtype):
    values = values_for(dtype, 3, 4)
    values[1] = 0
    x = Input(values, dtype, noncontiguous=True)
    check(lambda t, a: a.count_nonzero(), x)
    check(lambda t, a: t.count_nonzero(a, 0), x)
    check(lambda t, a: a.count_nonzero((0, 1)), x)
    check(lambda t, a: a.count_nonzero(-1), x)
    check(lambda t, a: a.count_nonzero(()), x)


def test_count_nonzero_errors():
    x = Input(randn(2, 3), "float32")
    check_error(lambda t, a: a.count_nonzero(2), x)
    check_error(lambda t, a: a.count_nonzero((0, 0)), x)
    check(lambda t, a: a.count_nonzero(0), Input(2.0, "float32"))
    check(lambda t, a: a.count_nonzero(0), Input(np.zeros((0, 3)), "float32"))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("op", ["any", "all"])
def test_any_all(dtype, op):
    values = values_for(dtype, 3, 4)
    values[0] = 0
    x = Input(values, dtype, noncontiguous=True)
    check(lambda t, a: getattr(a, op)(), x)
    check(lambda t, a: getattr(a, op)(1), x)
    check(lambda t, a: getattr(t, op)(a, 0, keepdim=True), x)
    check(lambda t, a: getattr(a, op)((0, 1)), x)
    check(lambda t, a: getattr(a, op)(dim=None), x)
    check(lambda t, a: getattr(a, op)(()), x)  # reduces nothing


@pytest.mark.parametrize("op", ["any", "all"])
def test_any_all_special_cases(op):
    check(lambda t, a: getattr(a, op)(), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, a: getattr(a, op)(0), Input(np.zeros((0, 3)), "uint8"))
    check(lambda t, a: getattr(a, op)(1), Input(np.zeros((0, 3)), "int32"))
    check(lambda t, a: getattr(a, op)(), Input([NAN, 0.0], "float32"))
    check(lambda t, a: getattr(a, op)(0), Input(0.0, "float32"))
    check(lambda t, a: getattr(t, op)(a, 0, out=t.empty(3, dtype=t.bool)), Input(randn(2, 3), "float32"))
    check(lambda t, a: getattr(t, op)(a, out=t.empty((), dtype=t.bool)), Input([1, 2], "uint8"))
    check_error(lambda t, a: getattr(t, op)(a, 0, out=t.empty(3)), Input(randn(2, 3), "float32"))
    check_error(lambda t, a: getattr(a, op)(2), Input(randn(2, 3), "float32"))


# --- amax / amin / aminmax ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("op", ["amax", "amin"])
def test_amax_amin(dtype, op):
    x = Input(values_for(dtype, 2, 3, 4), dtype, noncontiguous=True)
    check(lambda t, a: getattr(a, op)(), x)
    check(lambda t, a: getattr(a, op)(1), x)
    check(lambda t, a: getattr(t, op)(a, (0, 2), keepdim=True), x)
    check(lambda t, a: getattr(a, op)(dim=-1), x)
    check(lambda t, a: getattr(a, op)(()), x)


@pytest.mark.parametrize("op", ["amax", "amin"])
def test_amax_amin_special_cases(op):
    check(lambda t, a: getattr(a, op)(), Input([1.0, NAN, 3.0], "float32"))
    check(lambda t, a: getattr(a, op)(0), Input([[1.0, NAN], [2.0, 0.0]], "bfloat16"))
    check(lambda t, a: getattr(a, op)(1), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, a: getattr(a, op)(0), Input(4.0, "float32"))
    empty = Input(np.zeros((0, 3)), "float32")
    check_error(lambda t, a: getattr(a, op)(), empty)
    check_error(lambda t, a: getattr(a, op)(0), empty)
    check_error(lambda t, a: getattr(a, op)(-2), empty)
    check_error(lambda t, a: getattr(a, op)((1, 0)), empty)
    check_error(lambda t, a: getattr(a, op)(), Input([1j], "complex64"))
    check_error(lambda t, a: getattr(a, op)((0, 0)), Input(randn(2, 3), "float32"))
    x = Input(randn(2, 3), "float32")
    check(lambda t, a: getattr(t, op)(a, 0, out=t.empty(3)), x)
    check_error(lambda t, a: getattr(t, op)(a, 0, out=t.empty(3, dtype=t.float64)), x)


def test_aminmax():
    x = Input(randn(3, 4), "float32", noncontiguous=True)
    check(lambda t, a: t.aminmax(a), x)
    check(lambda t, a: a.aminmax(dim=0), x)
    check(lambda t, a: t.aminmax(a, dim=-1, keepdim=True), x)
    check(lambda t, a: t.aminmax(a, keepdim=True), x)
    check(lambda t, a: t.aminmax(a), Input([True, False], "bool"))
    check(lambda t, a: t.aminmax(a), Input(2.0, "float32"))
    check(lambda t, a: t.aminmax(a, dim=1), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, a: t.aminmax(a, dim=0, out=(t.empty(4), t.empty(4))), x)
    check_error(lambda t, a: t.aminmax(a), Input(np.zeros((0, 3)), "float32"))
    check_error(lambda t, a: t.aminmax(a, dim=0), Input(np.zeros((0, 3)), "float32"))
    check_error(lambda t, a: t.aminmax(a), Input([1j], "complex64"))
    check_error(lambda t, a: t.aminmax(a, dim=0, out=(t.empty(4, dtype=t.float64), t.empty(4))), x)


# --- max / min ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_overloads(dtype, op):
    x = Input(values_for(dtype, 3, 4), dtype, noncontiguous=True)
    check(lambda t, a: getattr(a, op)(), x)
    check(lambda t, a: getattr(a, op)(0), x)
    check(lambda t, a: getattr(t, op)(a, 1, keepdim=True), x)
    check(lambda t, a: getattr(a, op)(dim=-1), x)
    check(lambda t, a: getattr(t, op)(a, 1, True).indices, x)


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_ties_pick_first_index(op):
    check(lambda t, a: getattr(a, op)(0), Input([3, 1, 3, 1], "int64"))
    check(lambda t, a: getattr(a, op)(1), Input([[2.0, 2.0, 1.0, 1.0], [0.0, 5.0, 5.0, 0.0]], "float32"))
    check(lambda t, a: getattr(a, op)(0), Input([[1, 1], [1, 1]], "bool"))


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_max_min_propagate_nan(op, dtype):
    x = Input([[1.0, NAN, NAN, 3.0], [-1.0, 2.0, 0.5, 7.0]], dtype)
    check(lambda t, a: getattr(a, op)(), x)
    check(lambda t, a: getattr(a, op)(1), x)
    check(lambda t, a: getattr(a, op)(0), x)


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_zero_dim_and_empty(op):
    scalar = Input(3.0, "float32")
    check(lambda t, a: getattr(a, op)(), scalar)
    check(lambda t, a: getattr(a, op)(0), scalar)
    check(lambda t, a: getattr(a, op)(-1, keepdim=True), scalar)
    check(lambda t, a: getattr(a, op)(1), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, a: getattr(a, op)(0), Input(np.zeros((2, 0)), "float32"))
    empty = Input(np.zeros((0, 3)), "float32")
    check_error(lambda t, a: getattr(a, op)(), empty)
    check_error(lambda t, a: getattr(a, op)(0), empty)
    check_error(lambda t, a: getattr(a, op)(-2), empty)
    check_error(lambda t, a: getattr(a, op)(0), Input(np.zeros(0), "float32"))


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_errors(op):
    c = Input([1 + 1j, 2j], "complex64")
    check_error(lambda t, a: getattr(a, op)(), c)
    check_error(lambda t, a: getattr(a, op)(0), c)
    check_error(lambda t, a: getattr(a, op)(2), Input(randn(2, 3), "float32"))
    check_error(lambda t, a: getattr(a, op)(1), Input(2.0, "float32"))
    check_error(lambda t, a: getattr(a, op)(keepdim=True), Input(randn(2, 3), "float32"), match_message=False)


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_out(op):
    x = Input(randn(3, 4), "float32")
    check(lambda t, a: getattr(t, op)(a, out=t.empty(())), x)
    check(lambda t, a: getattr(t, op)(a, out=t.empty((), dtype=t.float64)), x)
    check(lambda t, a: getattr(t, op)(a, 1, out=(t.empty(3), t.empty(3, dtype=t.int64))), x)
    check(lambda t, a: getattr(t, op)(a, 0, True, out=(t.empty(0), t.empty(0, dtype=t.int64))), x)
    check_error(lambda t, a: getattr(t, op)(a, 1, out=(t.empty(3, dtype=t.float64), t.empty(3, dtype=t.int64))), x)
    check_error(lambda t, a: getattr(t, op)(a, 1, out=(t.empty(3), t.empty(3, dtype=t.int32))), x)
    check_error(lambda t, a: getattr(t, op)(a, out=t.empty((), dtype=t.int64)), x)


def test_max_out_named_tuple_fields():
    x = Input(randn(3, 4), "float32")
    check(lambda t, a: t.max(a, 1, out=(t.empty(3), t.empty(3, dtype=t.int64))).values, x)
    check(lambda t, a: t.min(a, 1, out=(t.empty(3), t.empty(3, dtype=t.int64))).indices, x)
    check(lambda t, a: type(a.max(0)).__name__, x)
    check(lambda t, a: type(t.aminmax(a)).__name__, x)


# --- argmax / argmin ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INT_DTYPES)
@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_argmax_argmin(dtype, op):
    x = Input(values_for(dtype, 3, 4), dtype, noncontiguous=True)
    check(lambda t, a: getattr(a, op)(), x)
    check(lambda t, a: getattr(a, op)(0), x)
    check(lambda t, a: getattr(t, op)(a, -1, keepdim=True), x)
    check(lambda t, a: getattr(a, op)(keepdim=True), x)
    check(lambda t, a: getattr(a, op)(dim=None), x)


@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_argmax_argmin_ties_nan_and_errors(op):
    check(lambda t, a: getattr(a, op)(), Input([3, 1, 3, 1], "int64"))
    check(lambda t, a: getattr(a, op)(1), Input([[5, 5, 0], [0, 0, 5]], "int32"))
    check(lambda t, a: getattr(a, op)(), Input([NAN, 1.0, NAN], "float32"))
    check(lambda t, a: getattr(a, op)(), Input([INF, NAN], "float32"))
    check(lambda t, a: getattr(a, op)(0), Input([[1.0, NAN], [NAN, 2.0]], "bfloat16"))
    check(lambda t, a: getattr(a, op)(), Input(7.0, "float32"))
    check(lambda t, a: getattr(a, op)(0, True), Input(7.0, "float32"))
    check(lambda t, a: getattr(a, op)(1), Input(np.zeros((0, 3)), "float32"))
    check_error(lambda t, a: getattr(a, op)(), Input(np.zeros((0, 3)), "float32"))
    check_error(lambda t, a: getattr(a, op)(-2), Input(np.zeros((0, 3)), "float32"))
    check_error(lambda t, a: getattr(a, op)(), Input([1j], "complex64"))
    check_error(lambda t, a: getattr(a, op)(), Input([True], "bool"))
    check_error(lambda t, a: getattr(a, op)(2), Input(randn(2, 3), "float32"))
    x = Input(randn(2, 3), "float32")
    check(lambda t, a: getattr(t, op)(a, 0, out=t.empty(3, dtype=t.int64)), x)
    check_error(lambda t, a: getattr(t, op)(a, 0, out=t.empty(3)), x)
    check_error(lambda t, a: getattr(t, op)(a, 0, out=t.empty(3, dtype=t.int32)), x)


# --- std / var / std_mean / var_mean ------------------------------------------------------------


def _quiet(fn):
    """fn with degrees-of-freedom warnings silenced (they are tested on their own)."""

    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)

    return run


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + ("complex64", "complex128"))
@pytest.mark.parametrize("op", ["std", "var"])
def test_std_var_overloads(dtype, op):
    x = Input(values_for(dtype, 3, 4, 2), dtype, noncontiguous=True)
    check(lambda t, a: getattr(a, op)(), x, policy=close_for(dtype))
    check(lambda t, a: getattr(a, op)(0), x, policy=close_for(dtype))
    check(lambda t, a: getattr(a, op)((0, 2), False), x, policy=close_for(dtype))
    check(lambda t, a: getattr(t, op)(a, 1, True, True), x, policy=close_for(dtype))
    check(lambda t, a: getattr(a, op)(unbiased=False), x, policy=close_for(dtype))
    check(lambda t, a: getattr(a, op)(dim=-1, correction=0), x, policy=close_for(dtype))
    check(lambda t, a: getattr(a, op)(correction=2, keepdim=True), x, policy=close_for(dtype))
    check(lambda t, a: getattr(a, op)(1, correction=1.5), x, policy=close_for(dtype))
    check(lambda t, a: getattr(a, op)(dim=None), x, policy=close_for(dtype))


@pytest.mark.parametrize("op", ["std", "var"])
def test_std_var_degrees_of_freedom(op):
    check(_quiet(lambda t, a: getattr(a, op)()), Input(2.0, "float32"))
    check(_quiet(lambda t, a: getattr(a, op)(0, correction=3)), Input(randn(2, 3), "float32"))
    check(_quiet(lambda t, a: getattr(a, op)(0)), Input(np.zeros((0, 3)), "float32"))
    check(_quiet(lambda t, a: getattr(a, op)(1)), Input(np.zeros((0, 3)), "float32"))
    check(_quiet(lambda t, a: getattr(a, op)(0, correction=2)), Input([[1.0, 2.0], [1.0, 3.0]], "float32"))
    for lib in (torch, torchpy):
        with pytest.warns(UserWarning, match=rf"^{op}\(\): degrees of freedom is <= 0"):
            getattr(lib.tensor([1.0]), op)()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(torchpy.tensor([1.0, 2.0]), op)()  # no warning when there are degrees of freedom


@pytest.mark.parametrize("op", ["std", "var"])
def test_std_var_errors_and_out(op):
    check_error(lambda t, a: getattr(a, op)(), Input([1, 2], "int32"))
    check_error(lambda t, a: getattr(a, op)(0), Input([True, False], "bool"))
    check_error(lambda t, a: getattr(a, op)(3), Input(randn(2, 3), "float32"))
    x = Input(randn(3, 4), "float32")
    check(lambda t, a: getattr(t, op)(a, 0, out=t.empty(4)), x)
    check(lambda t, a: getattr(t, op)(a, 0, out=t.empty(4, dtype=t.float64)), x)
    check(lambda t, a: getattr(t, op)(a, 1, False, True, out=t.empty(0)), x)
    check(lambda t, a: getattr(t, op)(a, correction=0, out=t.empty(())), x)
    check(lambda t, a: getattr(t, op)(a, 0, out=t.empty(2, dtype=t.complex64)), Input(values_for("complex64", 3, 2), "complex64"))
    check_error(lambda t, a: getattr(t, op)(a, 0, out=t.empty(4, dtype=t.int64)), x)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "complex64"])
@pytest.mark.parametrize("op", ["std_mean", "var_mean"])
def test_std_mean_var_mean(dtype, op):
    x = Input(values_for(dtype, 3, 4), dtype, noncontiguous=True)
    check(lambda t, a: getattr(t, op)(a), x, policy=close_for(dtype))
    check(lambda t, a: getattr(t, op)(a, 0), x, policy=close_for(dtype))
    check(lambda t, a: getattr(t, op)(a, 1, False, True), x, policy=close_for(dtype))
    check(lambda t, a: getattr(t, op)(a, unbiased=False), x, policy=close_for(dtype))
    check(lambda t, a: getattr(t, op)(a, (0, 1), correction=0, keepdim=True), x, policy=close_for(dtype))
    check(_quiet(lambda t, a: getattr(t, op)(a, 0)), Input(np.zeros((0, 3)), dtype))
    check_error(lambda t, a: getattr(t, op)(a), Input([1, 2], "int64"))
    for lib in (torch, torchpy):
        with pytest.warns(UserWarning, match=rf"^{op}\(\): degrees of freedom is <= 0"):
            getattr(lib, op)(lib.tensor([1.0]))


def test_std_mean_out_through_ops():
    x = Input(randn(3, 4), "float32")
    check(lambda t, a: t.ops.aten.std_mean.correction_out(a, [0], out0=t.empty(4), out1=t.empty(4)), x)
    check_error(lambda t, a: t.ops.aten.var_mean.correction_out(a, out0=t.empty(()), out1=t.empty((), dtype=t.int64)), x)


# --- logsumexp ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_logsumexp(dtype):
    x = Input(values_for(dtype, 3, 4), dtype, noncontiguous=True)
    check(lambda t, a: a.logsumexp(0), x, policy=close_for(dtype))
    check(lambda t, a: t.logsumexp(a, (0, 1)), x, policy=close_for(dtype))
    check(lambda t, a: t.logsumexp(a, -1, keepdim=True), x, policy=close_for(dtype))
    check(lambda t, a: a.logsumexp((), keepdim=True), x, policy=close_for(dtype))


def test_logsumexp_special_values():
    check(lambda t, a: a.logsumexp(0), Input([INF, 1.0], "float32"))
    check(lambda t, a: a.logsumexp(0), Input([-INF, -INF], "float32"))
    check(lambda t, a: a.logsumexp(0), Input([NAN, 1.0], "float32"))
    check(lambda t, a: a.logsumexp(1), Input([[1000.0, 1000.0], [-1000.0, -999.0]], "float32"))
    check(lambda t, a: a.logsumexp(0), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, a: a.logsumexp(1), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, a: a.logsumexp(()), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, a: a.logsumexp(0), Input(3.0, "float32"))
    check(lambda t, a: a.logsumexp(()), Input(3.0, "float32"))


def test_logsumexp_errors_and_out():
    x = Input(randn(2, 3), "float32")
    check_error(lambda t, a: a.logsumexp(()), x)
    check_error(lambda t, a: a.logsumexp([]), Input(randn(4), "float32"))
    check_error(lambda t, a: a.logsumexp(2), x)
    check_error(lambda t, a: t.logsumexp(a, dim=None), x, match_message=False)
    check(lambda t, a: t.logsumexp(a, 0, out=t.empty(3, dtype=t.float64)), x)
    check(lambda t, a: t.logsumexp(a, 0, out=t.empty(1, dtype=t.float64)), Input([1, 2, 3], "int8"))
    check_error(lambda t, a: t.logsumexp(a, 0, out=t.empty(1, dtype=t.int64)), Input([1, 2, 3], "int8"))


# --- cumsum / cumprod ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumsum_cumprod(dtype, op):
    values = values_for(dtype, 3, 4)
    if op == "cumprod" and dtype in FLOAT_DTYPES:
        values = values / 2 + 1
    x = Input(values, dtype, noncontiguous=True)
    check(lambda t, a: getattr(a, op)(0), x, policy=close_for(dtype))
    check(lambda t, a: getattr(t, op)(a, -1), x, policy=close_for(dtype))
    check(lambda t, a: getattr(a, op)(dim=1, dtype=t.float64), x)
    check(lambda t, a: getattr(a, op)(0, dtype=t.int32), x)


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumsum_cumprod_special_cases(op):
    check(lambda t, a: getattr(a, op)(0), Input(3.0, "float32"))
    check(lambda t, a: getattr(a, op)(-1), Input(3, "int8"))
    check(lambda t, a: getattr(a, op)(0), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, a: getattr(a, op)(0, dtype=t.int8), Input([100, 100, 100], "int64"))
    check(lambda t, a: getattr(a, op)(0), Input([1.0, NAN, 2.0], "float32"))
    check_error(lambda t, a: getattr(a, op)(2), Input(randn(2, 3), "float32"))
    check_error(lambda t, a: getattr(a, op)(1), Input(3.0, "float32"))


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cumsum_cumprod_inplace_and_out(op):
    check(lambda t, a: getattr(a, op + "_")(0), Input([[1, 2], [3, 4]], "int64"))
    check(lambda t, a: getattr(a, op + "_")(1), Input([[1, 2], [3, 4]], "int8"))
    check(lambda t, a: getattr(a, op + "_")(-1), Input(randn(2, 3), "float32"))
    check(lambda t, a: (getattr(a, op + "_")(0), a)[1], Input(randn(3), "float64"))
    check_error(lambda t, a: getattr(a, op + "_")(0, dtype=t.float64), Input(randn(3), "float32"))
    check_error(lambda t, a: getattr(a, op + "_")(0), Input([True, False], "bool"))
    x = Input(randn(2, 3), "float32")
    check(lambda t, a: getattr(t, op)(a, 0, out=t.empty(2, 3)), x)
    check(lambda t, a: getattr(t, op)(a, 0, out=t.empty(2, 3, dtype=t.float64)), x)
    check(lambda t, a: getattr(t, op)(a, 1, out=t.empty(0)), Input([[1, 2], [3, 4]], "int8"))
    check(lambda t, a: getattr(t, op)(a, 0, out=t.empty(3)), Input([1, 2, 3], "int8"))
    check_error(lambda t, a: getattr(t, op)(a, 0, dtype=t.float64, out=t.empty(2, 3)), x)


# --- norms --------------------------------------------------------------------------------------

ORDERS = [2, 1, 0, 3, 0.5, -1, -2.5, INF, -INF]


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + ("complex64", "complex128"))
@pytest.mark.parametrize("order", ORDERS)
def test_vector_norm_orders(dtype, order):
    x = Input(values_for(dtype, 3, 4), dtype, noncontiguous=True)
    check(lambda t, a: t.linalg.vector_norm(a, order), x, policy=close_for(dtype))
    check(lambda t, a: t.linalg.vector_norm(a, order, 1), x, policy=close_for(dtype))
    check(lambda t, a: t.linalg.vector_norm(a, order, (0, 1), keepdim=True), x, policy=close_for(dtype))


def test_vector_norm_dtype_argument():
    f = Input(randn(3, 4), "float32")
    check(lambda t, a: t.linalg.vector_norm(a, dtype=t.float64), f)
    check(lambda t, a: t.linalg.vector_norm(a, 3, dim=0, dtype=t.float64), f)
    check(lambda t, a: t.linalg.vector_norm(a, dtype=t.float32), Input(randn(3), "float16"))
    check(lambda t, a: t.linalg.vector_norm(a, dtype=t.complex128), Input(values_for("complex64", 3), "complex64"))
    check_error(lambda t, a: t.linalg.vector_norm(a, dtype=t.float16), f)
    check_error(lambda t, a: t.linalg.vector_norm(a, dtype=t.bfloat16), Input(randn(3), "float16"))
    check_error(lambda t, a: t.linalg.vector_norm(a, dtype=t.int64), f)
    check_error(lambda t, a: t.linalg.vector_norm(a, dtype=t.complex64), f)
    check_error(lambda t, a: t.linalg.vector_norm(a, dtype=t.float64), Input(values_for("complex64", 3), "complex64"))


def test_vector_norm_special_cases_and_errors():
    empty = Input(np.zeros((0, 3)), "float32")
    check(lambda t, a: t.linalg.vector_norm(a), empty)
    check(lambda t, a: t.linalg.vector_norm(a, 0), empty)
    check(lambda t, a: t.linalg.vector_norm(a, INF, dim=1), empty)
    check(lambda t, a: t.linalg.vector_norm(a, 2, dim=()), Input(randn(2, 3), "float32"))
    check(lambda t, a: t.linalg.vector_norm(a), Input(-3.0, "float32"))
    check(lambda t, a: t.linalg.vector_norm(a, INF), Input([1.0, NAN], "float32"))
    for order in (INF, -INF, -1, -1.5, -1e20):
        check_error(lambda t, a: t.linalg.vector_norm(a, order), empty)
    check_error(lambda t, a: t.linalg.vector_norm(a, INF, dim=-2), empty)
    check_error(lambda t, a: t.linalg.vector_norm(a, INF, dim=(1, 0)), empty)
    check_error(lambda t, a: t.linalg.vector_norm(a), Input([1, 2], "int64"))
    check_error(lambda t, a: t.linalg.vector_norm(a), Input([True], "bool"))
    check_error(lambda t, a: t.linalg.vector_norm(a, 2 + 1j), Input(randn(3), "float32"))
    check_error(lambda t, a: t.linalg.vector_norm(a, dim=(0, 0)), Input(randn(2, 3), "float32"))
    check_error(lambda t, a: t.linalg.vector_norm(a, dim=2), Input(randn(2, 3), "float32"))
    x = Input(randn(2, 3), "float32")
    check(lambda t, a: t.linalg.vector_norm(a, 1, 0, out=t.empty(3)), x)
    check_error(lambda t, a: t.linalg.vector_norm(a, out=t.empty((), dtype=t.float64)), x)


def test_norm_python_overloads():
    x = Input(randn(3, 4), "float32", noncontiguous=True)
    check(lambda t, a: a.norm(), x)
    check(lambda t, a: a.norm(1), x)
    check(lambda t, a: a.norm(p=None), x)
    check(lambda t, a: a.norm(INF), x)
    check(lambda t, a: a.norm(dim=0), x)
    check(lambda t, a: a.norm(2, 0, True), x)
    check(lambda t, a: a.norm(3, dtype=t.float64), x)
    check(lambda t, a: a.norm("fro", dim=(0, 1)), x)
    check(lambda t, a: t.norm(a), x)
    check(lambda t, a: t.norm(a, p=0.5), x)
    check(lambda t, a: t.norm(a, "fro", dim=1, keepdim=True), x)
    check(lambda t, a: t.norm(a, 3, -1, out=t.empty(3)), x)
    check(lambda t, a: a.norm(), Input(values_for("complex64", 4), "complex64"))
    check(lambda t, a: a.norm(), Input(randn(4), "float16"), policy=close_for("float16"))
    check_error(lambda t, a: a.norm(), Input([1, 2], "int32"))
    check_error(lambda t, a: t.norm(a, [0]), x, match_message=False)


def test_norm_aten_overloads():
    x = Input(randn(3, 4), "float32")
    check(lambda t, a: t.ops.aten.norm.Scalar(a), x)
    check(lambda t, a: t.ops.aten.norm.Scalar(a, 3), x)
    check(lambda t, a: t.ops.aten.norm.ScalarOpt_dim(a, None, [0]), x)
    check(lambda t, a: t.ops.aten.norm.ScalarOpt_dim(a, 2, []), x)
    check(lambda t, a: t.ops.aten.norm.ScalarOpt_dim_dtype(a, 1, [1], True, dtype=t.float64), x)
    check(lambda t, a: t.ops.aten.norm.ScalarOpt_dtype(a, None, dtype=t.float64), x)
    check(lambda t, a: t.ops.aten.norm.Scalar(a), Input(randn(4), "float16"), policy=close_for("float16"))
    check_error(lambda t, a: t.ops.aten.norm.Scalar(a), Input([1, 2], "int8"))
    check_error(lambda t, a: t.ops.aten.norm.ScalarOpt_dtype(a, None, dtype=t.float16), x)
    check_error(lambda t, a: t.ops.aten.norm.Scalar(a, -1), Input(np.zeros((0, 3)), "float32"))
    check_error(lambda t, a: t.ops.aten.norm.Scalar_out(a, out=t.empty((), dtype=t.int64)), x)


# --- out= forms of the sum-like ops -----------------------------------------------------------------


def test_sum_like_out_forms():
    f = Input(randn(2, 3), "float32")
    i = Input([1, 2, 3], "int8")
    check(lambda t, a: t.sum(a, 0, out=t.empty(3)), f)
    check(lambda t, a: t.sum(a, 0, out=t.empty(3, dtype=t.float64)), f)
    check(lambda t, a: t.sum(a, 0, out=t.empty(3, dtype=t.int64)), f)
    check(lambda t, a: t.sum(a, 0, out=t.empty(0)), i)
    check_error(lambda t, a: t.sum(a, 0, dtype=t.float64, out=t.empty(3)), f)
    check(lambda t, a: t.prod(a, 0, out=t.empty(0)), i)
    check_error(lambda t, a: t.prod(a, 0, dtype=t.float64, out=t.empty(3)), f)
    check(lambda t, a: t.mean(a, 0, out=t.empty(3, dtype=t.float64)), f)
    check(lambda t, a: t.mean(a, out=t.empty(())), f)
    check_error(lambda t, a: t.mean(a, 0, out=t.empty(1)), i)
    check_error(lambda t, a: t.mean(a, 0, out=t.empty(3, dtype=t.int64)), f)
    check_error(lambda t, a: t.mean(a, 0, dtype=t.float64, out=t.empty(3)), f)
    check(lambda t, a: t.ops.aten.sum.out(a, out=t.empty(())), f)
    check_error(lambda t, a: t.ops.aten.sum.out(a, out=t.empty((), dtype=t.int64)), f)
    check_error(lambda t, a: t.ops.aten.prod.out(a, out=t.empty((), dtype=t.int8)), i)
    check(lambda t, a: t.ops.aten.count_nonzero.out(a, out=t.empty((), dtype=t.int64)), f)
    check_error(lambda t, a: t.ops.aten.count_nonzero.out(a, out=t.empty(())), f)


def test_out_resize_warns_like_torch():
    x = Input(randn(2, 3), "float32")
    for lib in (torch, torchpy):
        with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
            lib.sum(lib.tensor(randn(2, 3)), 0, out=lib.empty(5))


# --- meta tensors ---------------------------------------------------------------------------------


META_CASES = [
    lambda t, a: a.sum(),
    lambda t, a: a.sum(0, keepdim=True),
    lambda t, a: a.sum(dtype=t.float64),
    lambda t, a: a.nansum(1),
    lambda t, a: a.mean((0, 1)),
    lambda t, a: a.prod(1),
    lambda t, a: a.count_nonzero(0),
    lambda t, a: a.any(1),
    lambda t, a: a.all(),
    lambda t, a: a.amax(0),
    lambda t, a: a.amin((0, 1), keepdim=True),
    lambda t, a: t.aminmax(a, dim=1),
    lambda t, a: a.max(),
    lambda t, a: a.max(1),
    lambda t, a: a.min(0, True),
    lambda t, a: a.argmax(),
    lambda t, a: a.argmin(1, keepdim=True),
    lambda t, a: _quiet(lambda: a.std())(),
    lambda t, a: a.var(0, keepdim=True),
    lambda t, a: t.std_mean(a, 1),
    lambda t, a: t.var_mean(a),
    lambda t, a: a.logsumexp(1),
    lambda t, a: a.cumsum(0),
    lambda t, a: a.cumprod(1, dtype=t.float64),
    lambda t, a: t.linalg.vector_norm(a, 3, 1),
    lambda t, a: a.norm(),
]


@pytest.mark.parametrize("case", range(len(META_CASES)))
@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "complex64"])
def test_meta_matches_torch(case, dtype):
    fn = META_CASES[case]
    x = Input(values_for(dtype, 3, 4), dtype, device="meta")
    try:
        expected = fn(torch, x.make(torch))
    except Exception:  # noqa: BLE001 - this dtype is an error for this op: both must say so
        check_error(fn, x, match_message=False)
        return
    actual = fn(torchpy, x.make(torchpy))
    from tests.oracle import assert_same

    assert_same(actual, expected)


def test_meta_errors_match():
    """PyTorch's meta functions check less than its CPU kernels, and say it differently."""
    empty = Input(np.zeros((0, 3)), "float32", device="meta")
    check(lambda t, a: a.max(), empty)
    check(lambda t, a: a.min(0), empty)
    for fn in (lambda t, a: a.amax(), lambda t, a: a.amin(0), lambda t, a: t.aminmax(a),
               lambda t, a: a.argmax(), lambda t, a: a.argmin(-2),
               lambda t, a: t.linalg.vector_norm(a, INF, 0), lambda t, a: t.linalg.vector_norm(a, -1)):
        check_error(fn, empty)
    check(lambda t, a: a.logsumexp(()), Input(randn(2, 3), "float32", device="meta"))
    check_error(lambda t, a: a.sum(2), Input(randn(2, 3), "float32", device="meta"))
    check_error(lambda t, a: a.mean(), Input([1, 2], "int64", device="meta"))
    check_error(lambda t, a: t.linalg.vector_norm(a), Input([1, 2], "int64", device="meta"))
    check_error(lambda t, a: t.std_mean(a), Input([1, 2], "int64", device="meta"))
    check(lambda t, a: a.std(), Input([1, 2], "int64", device="meta"))
    check(lambda t, a: a.cumsum_(0), Input([True], "bool", device="meta"))
    check_error(lambda t, a: a.cumsum_(0, dtype=t.float64), Input([1.0], "float32", device="meta"))


# --- what a TorchDispatchMode sees --------------------------------------------------------------


def dispatch_log(lib, fn, *values):
    """The aten calls a TorchDispatchMode sees while fn runs, as comparable text."""
    if lib is torch:
        from torch.utils._python_dispatch import TorchDispatchMode
    else:
        from torchpy.utils._python_dispatch import TorchDispatchMode
    seen = []

    def show(value):
        return f"T{tuple(value.shape)}:{value.dtype}" if isinstance(value, lib.Tensor) else repr(value)

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            seen.append(f"{func}({', '.join(map(show, args))}; {', '.join(f'{k}={show(v)}' for k, v in kwargs.items())})")
            return func(*args, **kwargs)

    tensors = [lib.tensor(v) for v in values]
    with Log():
        fn(lib, *tensors)
    return seen


DISPATCH_CASES = {
    "sum()": lambda t, a: a.sum(),
    "sum(0, True)": lambda t, a: a.sum(0, True),
    "sum(dtype)": lambda t, a: a.sum(dtype=t.float64),
    "mean((0, 1))": lambda t, a: a.mean((0, 1)),
    "max()": lambda t, a: a.max(),
    "max(1)": lambda t, a: a.max(1),
    "max(other)": lambda t, a: a.max(a),
    "min(other, out)": lambda t, a: t.min(a, a, out=t.empty(3, 4)),
    "max(dim, out)": lambda t, a: t.max(a, 0, out=(t.empty(0), t.empty(0, dtype=t.int64))),
    "any(dims)": lambda t, a: a.any((0,)),
    "all(dim=None)": lambda t, a: a.all(dim=None),
    "count_nonzero(0)": lambda t, a: a.count_nonzero(0),
    "std()": lambda t, a: a.std(),
    "std(0)": lambda t, a: a.std(0),
    "std(0, False)": lambda t, a: a.std(0, False),
    "var(unbiased=False)": lambda t, a: a.var(unbiased=False),
    "var(0, keepdim)": lambda t, a: a.var(0, keepdim=True),
    "var(correction=0)": lambda t, a: a.var(correction=0),
    "std_mean": lambda t, a: t.std_mean(a),
    "var_mean(0)": lambda t, a: t.var_mean(a, 0),
    "std out": lambda t, a: t.std(a, 0, out=t.empty(4)),
    "logsumexp": lambda t, a: a.logsumexp(1),
    "cumsum_": lambda t, a: a.cumsum_(0),
    "norm()": lambda t, a: a.norm(),
    "norm(1)": lambda t, a: a.norm(1),
    "norm(p=None)": lambda t, a: a.norm(p=None),
    "norm(dim=0)": lambda t, a: a.norm(dim=0),
    "norm(fro, dim)": lambda t, a: t.norm(a, "fro", dim=1),
    "vector_norm": lambda t, a: t.linalg.vector_norm(a, 3, (0, 1), dtype=t.float64),
    "argmax": lambda t, a: a.argmax(1, True),
    "aminmax": lambda t, a: t.aminmax(a, dim=0),
}


@pytest.mark.parametrize("case", list(DISPATCH_CASES))
def test_dispatch_mode_sees_torchs_calls(case):
    values = randn(3, 4)
    fn = DISPATCH_CASES[case]
    assert dispatch_log(torchpy, fn, values) == dispatch_log(torch, fn, values)


def test_numpy_argument_names():
    """PyTorch's parser takes axis= for dim= and keepdims= for keepdim=."""
    x = Input(randn(3, 4), "float32")
    check(lambda t, a: a.sum(axis=0), x)
    check(lambda t, a: t.sum(a, axis=1, keepdims=True), x)
    check(lambda t, a: a.mean(axis=(0, 1)), x)
    check(lambda t, a: a.max(axis=0), x)
    check(lambda t, a: a.amax(axis=0, keepdims=True), x)
    check(lambda t, a: a.argmax(axis=1), x)
    check(lambda t, a: a.std(axis=0), x)
    check(lambda t, a: a.any(axis=0), x)
    check(lambda t, a: a.logsumexp(axis=0), x)
    check(lambda t, a: a.cumsum(axis=1), x)


def test_python_overload_resolution():
    x = Input(randn(3, 4), "float32")
    check(lambda t, a: a.sum(0, True), x)
    check(lambda t, a: a.std(0, True, True), x)
    check(lambda t, a: a.amax(0, True), x)
    check(lambda t, a: a.max(dim=1, keepdim=True), x)
    check(lambda t, a: a.max(t.zeros(4)), x)
    check(lambda t, a: t.min(a, t.zeros(3, 1)), x)
    check(lambda t, a: a.std(True), Input([1.0, 2.0, 4.0], "float32"))
    check(lambda t, a: a.var([0], True), Input([1.0, 2.0, 4.0], "float32"))
    check(lambda t, a: a.count_nonzero(dim=(0, 1)), x)
    check_error(lambda t, a: a.max(keepdim=True), x, match_message=False)
    check_error(lambda t, a: a.sum(0.0), x, match_message=False)


@pytest.mark.parametrize("call", [lambda t, a: a.norm(), lambda t, a: t.norm(a, 1, dim=0)])
def test_norm_goes_through_torch_function(call):
    """torch.norm and Tensor.norm are Python functions that honour __torch_function__."""

    def seen(lib, mode_class):
        names = []

        class Mode(mode_class):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                names.append(func.__name__)
                return func(*args, **(kwargs or {}))

        a = lib.tensor(randn(3, 4))
        with Mode():
            call(lib, a)
        return names

    from torch.overrides import TorchFunctionMode as TorchMode

    from torchpy.overrides import TorchFunctionMode as TorchpyMode

    assert seen(torchpy, TorchpyMode) == seen(torch, TorchMode)


def test_empty_inputs_skip_dtype_checks_as_torch():
    """PyTorch returns early for empty inputs, before the kernels' dtype checks."""
    c = Input(np.zeros((0, 3)), "complex64")
    check(lambda t, a: a.amax(1), c)
    check(lambda t, a: a.amin(1, keepdim=True), c)
    check_error(lambda t, a: a.amax(0), c)
    check_error(lambda t, a: a.max(), c)
    check_error(lambda t, a: a.max(0), c)
    check_error(lambda t, a: a.max(1), c)
    check_error(lambda t, a: t.aminmax(a, dim=1), c)
    check_error(lambda t, a: t.aminmax(a), c)


@pytest.mark.parametrize("values", [[1.0, INF, 2.0], [INF, 1.0], [1.0, 2.0, INF], [INF, INF], [-INF, 1.0, NAN], [INF]])
def test_mean_pairs_with_infinities(values):
    """var_mean/std_mean's mean comes from a running update: inf followed by anything is nan."""
    check(_quiet(lambda t, a: t.var_mean(a)), Input(values, "float32"))
    check(_quiet(lambda t, a: t.std_mean(a, 0, keepdim=True)), Input(values, "float64"))
    check(lambda t, a: a.mean(), Input(values, "float32"))


NONFINITE_CASES = [
    lambda t, a: a.sum(),
    lambda t, a: a.nansum(),
    lambda t, a: a.mean(0),
    lambda t, a: a.prod(),
    lambda t, a: a.cumsum(0),
    lambda t, a: a.cumprod(0),
    lambda t, a: a.std(),
    lambda t, a: t.var_mean(a),
    lambda t, a: a.logsumexp(0),
    lambda t, a: a.softmax(0),
    lambda t, a: a.log_softmax(0),
    lambda t, a: a.norm(),
    lambda t, a: a.norm(0.5),
    lambda t, a: a.norm(-1),
    lambda t, a: a.amax(),
    lambda t, a: a.max(0),
    lambda t, a: a.argmin(),
]


@pytest.mark.parametrize("case", range(len(NONFINITE_CASES)))
@pytest.mark.parametrize("values", [[INF, -INF, 1.0], [0.0, NAN, INF], [3e38, 3e38, -1.0], [0.0, 0.0, 0.0]])
def test_nonfinite_values_without_numpy_warnings(case, values):
    """PyTorch computes inf - inf, overflow and 0 ** -1 silently; so must torchpy."""
    fn = NONFINITE_CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        check(fn, Input(values, "float32"))
