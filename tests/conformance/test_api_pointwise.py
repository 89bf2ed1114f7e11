"""acosh / asinh / atanh (and the arc* aliases), deg2rad / rad2deg, logaddexp(2), copysign,
signbit, heaviside and xlogy against torch: values over dtypes, in-place and out= forms,
errors, and the aten ops a TorchDispatchMode sees."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conformance.dispatch_log import assert_same_dispatch
from tests.oracle import EXACT, Input, agree, check, close_for, ulp

NAN, INF = float("nan"), float("inf")
X = np.array([-3.5, -1.0, -0.0, 0.0, 0.25, 0.9, 1.0, 2.0, 7.5, NAN, INF, -INF])
Y = np.array([2.0, -0.5, 1.0, -1.0, 0.0, 3.0, NAN, -2.0, 0.5, 1.0, 1.0, 2.0])
DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"]


def _values(values: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "bool":
        return np.nan_to_num(values) > 0
    if "int" in dtype:
        return np.abs(np.nan_to_num(values, posinf=9, neginf=-9)).astype(np.int64) % 7
    return values


UNARY = {
    "acosh": lambda t, x: t.acosh(x), "asinh": lambda t, x: t.asinh(x), "atanh": lambda t, x: t.atanh(x),
    "arccosh": lambda t, x: t.arccosh(x), "arcsinh": lambda t, x: x.arcsinh(), "arctanh": lambda t, x: x.arctanh(),
    "deg2rad": lambda t, x: t.deg2rad(x), "rad2deg": lambda t, x: x.rad2deg(), "signbit": lambda t, x: t.signbit(x),
}
BINARY = {
    "logaddexp": lambda t, x, y: t.logaddexp(x, y), "logaddexp2": lambda t, x, y: x.logaddexp2(y),
    "copysign": lambda t, x, y: t.copysign(x, y), "xlogy": lambda t, x, y: t.xlogy(x, y),
    "heaviside": lambda t, x, y: t.heaviside(x, y),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary(name, dtype):
    policy = EXACT if name == "signbit" else (ulp(2) if dtype in ("float32", "float64") else close_for(dtype))
    agree(UNARY[name], Input(_values(X, dtype), dtype), policy=policy)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "float32"), ("int64", "float32"),
                                    ("int64", "int64"), ("float16", "float16"), ("bool", "float64")])
def test_binary(name, dtypes):
    policy = ulp(2) if dtypes[0] in ("float32", "float64", "int64") else close_for(*dtypes)
    agree(BINARY[name], Input(_values(X, dtypes[0]), dtypes[0]), Input(_values(Y, dtypes[1]), dtypes[1]),
          policy=policy)


@pytest.mark.parametrize("fn", [
    lambda t, x, y: t.copysign(x, -1), lambda t, x, y: x.copysign(2.0), lambda t, x, y: t.xlogy(2, y),
    lambda t, x, y: t.xlogy(x, 3.0), lambda t, x, y: x.xlogy(0), lambda t, x, y: t.logaddexp(x[:, None], y),
    lambda t, x, y: x.clone().acosh_(), lambda t, x, y: t.asinh_(x.clone()), lambda t, x, y: x.clone().arctanh_(),
    lambda t, x, y: x.clone().deg2rad_(), lambda t, x, y: x.clone().copysign_(y), lambda t, x, y: x.clone().xlogy_(y),
    lambda t, x, y: x.clone().heaviside_(y), lambda t, x, y: t.acosh(x, out=t.empty(0, dtype=t.float64)),
    lambda t, x, y: t.atanh(x.to(t.float16), out=t.empty(12)),
])
def test_scalar_inplace_out_forms(fn):
    check(fn, Input(X, "float32"), Input(Y, "float32"), policy=ulp(2))
    assert_same_dispatch(fn, Input(X, "float32"), Input(Y, "float32"))


@pytest.mark.parametrize("fn", [
    lambda t, x, y: t.heaviside(x, y.double()), lambda t, x, y: t.heaviside(x.cfloat(), y.cfloat()),
    lambda t, x, y: t.acosh(x.long(), out=t.empty(12, dtype=t.int64)),
    lambda t, x, y: x.long().acosh_(),
])
def test_errors(fn):
    check(fn, Input(X, "float32"), Input(Y, "float32"), expect_error=RuntimeError)


@pytest.mark.parametrize("fn", [
    lambda t, x, y: t.signbit(x.cfloat()), lambda t, x, y: t.copysign(x.cfloat(), y),
    lambda t, x, y: t.logaddexp(x.long(), y.long()), lambda t, x, y: t.logaddexp2(x.cdouble(), y),
])
def test_not_implemented(fn):
    check(fn, Input(X, "float32"), Input(Y, "float32"), expect_error=NotImplementedError)


def test_meta():
    check(lambda t: (t.logaddexp(t.empty(2, 1, device="meta"), t.empty(3, device="meta", dtype=t.float64)).shape,
                     t.signbit(t.empty(2, device="meta")).dtype, t.acosh(t.empty(2, device="meta",
                                                                               dtype=t.int64)).dtype))


INF_VALUES = np.array([[1.0, INF], [-INF, NAN]], dtype=np.float32)


@pytest.mark.parametrize("fn", [
    lambda t, m: t.isposinf(m), lambda t, m: m.isneginf(), lambda t, m: t.isposinf(m.long()),
    lambda t, m: t.isneginf(m.half()), lambda t, m: t.isposinf(m > 0),
    lambda t, m: t.float_power(m, m), lambda t, m: t.float_power(2, m), lambda t, m: m.float_power(2),
    lambda t, m: t.float_power(m.double(), 3), lambda t, m: m.double().float_power_(2),
    lambda t, m: m.double().float_power_(m), lambda t, m: t.float_power(m.long(), 0.5),
    lambda t, m: t.float_power(m.cfloat(), 2), lambda t, m: t.float_power(m, 1j),
    lambda t, m: t.nanmean(m), lambda t, m: m.nanmean(1), lambda t, m: t.nanmean(m, 0, keepdim=True),
    lambda t, m: t.nanmean(m, 1, keepdim=True, dtype=t.float64), lambda t, m: t.nanmean(m, dtype=t.float64),
    lambda t, m: t.nanmean(m.nan_to_num(posinf=3.0, neginf=-2.0), (0, 1)),
])
def test_inf_float_power_nanmean(fn):
    check(fn, INF_VALUES, policy=ulp(1))
    assert_same_dispatch(fn, INF_VALUES)


@pytest.mark.parametrize("fn", [
    lambda t, m: t.isposinf(m.cfloat()), lambda t, m: m.clone().float_power_(2), lambda t, m: t.nanmean(m.long()),
])
def test_inf_float_power_nanmean_errors(fn):
    check(fn, INF_VALUES, expect_error=RuntimeError)


@pytest.mark.parametrize("fn", [
    lambda t, x: t.float_power(x.abs() + 0.5, 1.5), lambda t, x: t.nanmean(x, 1),
    lambda t, x: t.float_power(2.0, x), lambda t, x: x.kron(x[0]),
])
def test_composite_gradients(fn):
    from tests.autograd.test_formulas import check_grad, rand
    check_grad(fn, rand(3, 4))


@pytest.mark.parametrize("fn", [
    lambda t, a, b: t.gcd(a, b), lambda t, a, b: a.lcm(b), lambda t, a, b: t.gcd(a.int(), b),
    lambda t, a, b: a.clone().gcd_(b), lambda t, a, b: t.lcm_(a.clone(), b), lambda t, a, b: t.gcd(-a, b[:1]),
    lambda t, a, b: t.lcm(a.to(t.uint8), b.to(t.uint8)),
])
def test_gcd_lcm(fn):
    a, b = Input([4, 6, 0, 7, 12, 0], "int64"), Input([6, 9, 5, 3, 18, 0], "int64")
    check(fn, a, b, policy=EXACT)
    assert_same_dispatch(fn, a, b)


def test_gcd_lcm_errors():
    check(lambda t: t.gcd(t.ones(2), t.ones(2)), expect_error=NotImplementedError)
    check(lambda t: t.lcm(t.ones(2, dtype=t.bool), t.ones(2, dtype=t.bool)), expect_error=NotImplementedError)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "float16"])
def test_sinc(dtype):
    values = _values(np.array([0.0, 0.5, 1.0, -1.3, 2.5, 10.25, NAN, INF, 1e-9]), dtype)
    policy = ulp(4, scale=1e-7) if dtype in ("float32", "float64", "int64", "bool") else close_for(dtype)
    check(lambda t, x: t.sinc(x), Input(values, dtype), policy=policy)
    check(lambda t, x: x.clone().float().sinc_(), Input(values, dtype), policy=ulp(4, scale=1e-7))
