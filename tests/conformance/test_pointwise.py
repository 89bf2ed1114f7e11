"""Pointwise ops against torch: values, dtypes and shapes across dtypes, type promotion with
tensors, 0-dim tensors and Python scalars, broadcasting, 0-dim / empty / non-contiguous /
meta inputs, in-place and out= forms, and torch's errors."""

import warnings

import numpy as np
import pytest
import torch

import torchpy

from tests.oracle import ALL_DTYPES, EXACT, FLOAT_DTYPES, INT_DTYPES, Input, agree, assert_values, check, check_error, close_for, convert, ulp

NAN, INF = float("nan"), float("inf")
BASE = np.array([[-2.5, -1.0, -0.5, 0.0], [0.25, 0.5, 1.0, 3.0]])
POSITIVE = np.array([[0.5, 1.0, 1.5, 2.0], [2.5, 3.0, 5.0, 7.0]])


def values_for(dtype, base=BASE):
    """`base` in a form that suits `dtype` (non-negative for uint8, complex for complex)."""
    if dtype == "uint8":
        return np.abs(base) * 2
    if dtype in INT_DTYPES:
        return base * 2
    if dtype.startswith("complex"):
        return base + 1j * base[::-1]
    return base


# --- unary ops -------------------------------------------------------------------------------------

UNARY_FLOAT = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
               "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid",
               "erf", "erfc"]
UNARY_OTHER = ["abs", "neg", "sign", "relu", "floor", "ceil", "round", "trunc", "frac", "bitwise_not",
               "logical_not", "isnan", "isinf", "isfinite", "nan_to_num"]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("op", UNARY_FLOAT + UNARY_OTHER)
def test_unary_across_dtypes(op, dtype):
    values = values_for(dtype)
    agree(lambda t, x: getattr(t, op)(x), Input(values, dtype), policy=close_for(dtype))
    agree(lambda t, x: getattr(x, op)(), Input(values, dtype), policy=close_for(dtype))


@pytest.mark.parametrize("op", UNARY_FLOAT + UNARY_OTHER)
def test_unary_on_special_values(op):
    values = np.array([NAN, INF, -INF, -0.0, 0.0, 1e-8, -1e-8, 0.5, 1.5, 2.5, -2.5, 80.0, -80.0])
    for dtype in ("float32", "float64"):
        agree(lambda t, x: getattr(t, op)(x), Input(values, dtype))


@pytest.mark.parametrize("op", UNARY_FLOAT + UNARY_OTHER)
def test_unary_shapes_and_layouts(op):
    agree(lambda t, x: getattr(t, op)(x), Input(BASE, "float32", noncontiguous=True))
    agree(lambda t, x: getattr(t, op)(x), Input(BASE.T, "float32"))
    agree(lambda t, x: getattr(t, op)(x), Input(1.5, "float32"))  # 0-dim
    agree(lambda t, x: getattr(t, op)(x), Input(np.zeros((0, 3)), "float32"))  # empty
    agree(lambda t, x: getattr(t, op)(x), Input(BASE, "int32", noncontiguous=True))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("op", UNARY_FLOAT + UNARY_OTHER)
def test_unary_on_meta(op, dtype):
    agree(lambda t, x: getattr(t, op)(x), Input(values_for(dtype), dtype, device="meta"))


@pytest.mark.parametrize("op", [op for op in UNARY_FLOAT + UNARY_OTHER if op not in ("isnan", "isinf", "isfinite")])
def test_unary_in_place_and_out(op):
    for dtype in ("float32", "float16", "int64", "complex64"):
        values = values_for(dtype)
        agree(lambda t, x: getattr(x, op + "_")(), Input(values, dtype), policy=close_for(dtype))
        agree(lambda t, x: getattr(x, op + "_")(), Input(values, dtype, noncontiguous=True), policy=close_for(dtype))
        agree(lambda t, x: getattr(x, op + "_")(), Input(values, dtype, device="meta"))
        for out_dtype in ("float64", "int32", "bool", "complex128", dtype):
            out = Input(np.zeros(BASE.shape), out_dtype)
            # torch.relu has no out=; our TypeError words the missing overload differently
            agree(lambda t, x, o: (getattr(t, op)(x, out=o), o), Input(values, dtype), out,
                  match_message=op != "relu", policy=close_for(dtype))


def test_unary_out_resizes_an_out_of_the_wrong_shape():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        agree(lambda t, x, o: (t.sin(x, out=o), o), Input(BASE, "float32"), Input(np.zeros(3), "float32"))
        agree(lambda t, x, o: (t.abs(x, out=o), o), Input(BASE, "float32"), Input(np.zeros(0), "float32"))


def test_in_place_abs_on_complex_and_float_ops_on_ints_raise():
    check_error(lambda t, x: x.abs_(), Input([1 + 1j], "complex64"))
    check_error(lambda t, x: x.sin_(), Input([1, 2], "int64"))
    check_error(lambda t, x: x.sqrt_(), Input([True], "bool"))


# --- rounding ------------------------------------------------------------------------------------------

def test_round_half_to_even_and_decimals():
    halves = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, 2.6, 1e20])
    for dtype in FLOAT_DTYPES:
        check(lambda t, x: t.round(x), Input(halves, dtype))
    values = np.array([1.2345, -2.5e-3, 1234.5, 0.125, -0.375, 1250.0])
    for decimals in (-3, -2, -1, 0, 1, 2, 3, 5):
        for dtype in ("float32", "float64", "float16", "bfloat16"):
            check(lambda t, x: t.round(x, decimals=decimals), Input(values, dtype), policy=close_for(dtype))
            check(lambda t, x: x.round(decimals=decimals), Input(values, dtype), policy=close_for(dtype))
            check(lambda t, x: x.round_(decimals=decimals), Input(values, dtype), policy=close_for(dtype))
        check(lambda t, x: t.round(x, decimals=decimals), Input(values, "float32", device="meta"))


def test_round_decimals_errors():
    check_error(lambda t, x: t.round(x, decimals=1), Input([1, 2], "int64"))
    check_error(lambda t, x: t.round(x, decimals=1), Input([True], "bool"))
    check_error(lambda t, x: x.round_(decimals=2), Input([1, 2], "int32"))
    check_error(lambda t, x: t.round(x, 1), Input([1.5], "float32"))  # decimals is keyword-only


def test_rounding_ops_keep_integers_and_reject_bool_and_complex():
    for op in ("floor", "ceil", "trunc", "round", "frac"):
        agree(lambda t, x: getattr(t, op)(x), Input([-7, 0, 7], "int16"))
        agree(lambda t, x: getattr(t, op)(x), Input([True], "bool"))
        agree(lambda t, x: getattr(t, op)(x), Input([1 + 2j], "complex128"))


# --- binary ops ---------------------------------------------------------------------------------------

BINARY = {
    "add": lambda t, x, y: t.add(x, y),
    "add_alpha": lambda t, x, y: t.add(x, y, alpha=2),
    "sub": lambda t, x, y: t.sub(x, y),
    "sub_alpha": lambda t, x, y: t.sub(x, y, alpha=3),
    "rsub": lambda t, x, y: t.rsub(x, y),
    "mul": lambda t, x, y: t.mul(x, y),
    "div": lambda t, x, y: t.div(x, y),
    "div_trunc": lambda t, x, y: t.div(x, y, rounding_mode="trunc"),
    "div_floor": lambda t, x, y: t.div(x, y, rounding_mode="floor"),
    "floor_divide": lambda t, x, y: t.floor_divide(x, y),
    "remainder": lambda t, x, y: t.remainder(x, y),
    "fmod": lambda t, x, y: t.fmod(x, y),
    "pow": lambda t, x, y: t.pow(x, y),
    "maximum": lambda t, x, y: t.maximum(x, y),
    "minimum": lambda t, x, y: t.minimum(x, y),
    "atan2": lambda t, x, y: t.atan2(x, y),
    "hypot": lambda t, x, y: t.hypot(x, y),
    "eq": lambda t, x, y: t.eq(x, y),
    "ne": lambda t, x, y: t.ne(x, y),
    "lt": lambda t, x, y: t.lt(x, y),
    "le": lambda t, x, y: t.le(x, y),
    "gt": lambda t, x, y: t.gt(x, y),
    "ge": lambda t, x, y: t.ge(x, y),
    "logical_and": lambda t, x, y: t.logical_and(x, y),
    "logical_or": lambda t, x, y: t.logical_or(x, y),
    "logical_xor": lambda t, x, y: t.logical_xor(x, y),
    "bitwise_and": lambda t, x, y: t.bitwise_and(x, y),
    "bitwise_or": lambda t, x, y: t.bitwise_or(x, y),
    "bitwise_xor": lambda t, x, y: t.bitwise_xor(x, y),
    "bitwise_left_shift": lambda t, x, y: t.bitwise_left_shift(x, y),
    "bitwise_right_shift": lambda t, x, y: t.bitwise_right_shift(x, y),
    "clamp_min": lambda t, x, y: t.clamp_min(x, y),
    "clamp_max": lambda t, x, y: t.clamp_max(x, y),
    "clamp": lambda t, x, y: t.clamp(x, y, y + 1),
    "lerp": lambda t, x, y: t.lerp(x, y, 0.3),
    "lerp_far": lambda t, x, y: t.lerp(x, y, 0.8),
    "where": lambda t, x, y: t.where(x > y if not x.is_complex() else x == y, x, y),
}
OTHER = np.array([[3.0, 2.0, -1.5, 2.0], [1.0, -0.5, 4.0, 2.0]])  # no zeros: see test_division_by_zero


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("op", BINARY)
def test_binary_across_dtypes(op, dtype):
    x, y = Input(values_for(dtype), dtype), Input(values_for(dtype, OTHER), dtype)
    agree(BINARY[op], x, y, policy=close_for(dtype))


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64"])
@pytest.mark.parametrize("op", BINARY)
def test_binary_on_meta(op, dtype):
    x = Input(values_for(dtype), dtype, device="meta")
    y = Input(values_for(dtype, OTHER)[0], dtype, device="meta")
    agree(BINARY[op], x, y)


MIXED = [("int8", "uint8"), ("int16", "int64"), ("uint8", "bool"), ("int32", "float16"),
         ("float16", "bfloat16"), ("float32", "float64"), ("bfloat16", "int64"), ("float32", "complex128"),
         ("bool", "float64"), ("int64", "complex64")]


@pytest.mark.parametrize("dtypes", MIXED, ids=lambda d: f"{d[0]}-{d[1]}")
@pytest.mark.parametrize("op", [op for op in BINARY if not op.startswith("lerp")])  # lerp: test_lerp_errors
def test_binary_promotes_mixed_dtypes(op, dtypes):
    a, b = dtypes
    x, y = Input(values_for(a), a), Input(values_for(b, OTHER), b)
    agree(BINARY[op], x, y, policy=close_for(a, b))
    agree(BINARY[op], y, x, policy=close_for(a, b))


@pytest.mark.parametrize("op", BINARY)
def test_binary_broadcasting_layouts_and_0dim(op):
    x = Input(values_for("float32"), "float32", noncontiguous=True)
    agree(BINARY[op], x, Input(OTHER[0], "float32"))
    agree(BINARY[op], Input(OTHER[:, :1], "float32"), x)
    agree(BINARY[op], x, Input(np.array(2.0), "float64"))  # a 0-dim tensor does not promote
    agree(BINARY[op], Input(np.array(2.0), "float32"), Input(np.array(3.0), "float32"))  # 0-dim result
    agree(BINARY[op], Input(np.zeros((0, 4)), "float32"), Input(OTHER[0], "float32"))  # empty
    agree(BINARY[op], Input(values_for("int64"), "int64"), Input(np.array(2.5), "float32"))
    agree(BINARY[op], Input(BASE.T, "float32"), Input(OTHER.T, "float32"))
    check_error(BINARY[op], Input(np.ones(3), "float32"), Input(np.ones(4), "float32"))


SCALARS = [2, -3, 2.5, True, 1 + 2j, 0.1]


@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16", "int8", "uint8", "int64", "bool", "complex64"])
def test_tensor_scalar_overloads(dtype, scalar):
    x = Input(values_for(dtype), dtype)
    calls = [
        lambda t, x: t.add(x, scalar), lambda t, x: t.sub(x, scalar), lambda t, x: t.mul(x, scalar),
        lambda t, x: t.div(x, scalar), lambda t, x: t.rsub(x, scalar),
        lambda t, x: t.div(x, scalar, rounding_mode="floor"), lambda t, x: t.floor_divide(x, scalar),
        lambda t, x: t.remainder(x, scalar), lambda t, x: t.remainder(scalar, x), lambda t, x: t.fmod(x, scalar),
        lambda t, x: t.pow(x, scalar), lambda t, x: t.pow(scalar, x),
        lambda t, x: t.eq(x, scalar), lambda t, x: t.ne(x, scalar), lambda t, x: t.lt(x, scalar),
        lambda t, x: t.ge(x, scalar), lambda t, x: t.bitwise_and(x, scalar), lambda t, x: t.bitwise_or(scalar, x),
        lambda t, x: t.bitwise_xor(x, scalar), lambda t, x: t.bitwise_left_shift(x, scalar),
        lambda t, x: t.bitwise_right_shift(scalar, x), lambda t, x: t.clamp(x, scalar),
        lambda t, x: t.clamp(x, None, scalar), lambda t, x: t.clamp_min(x, scalar), lambda t, x: t.clamp_max(x, scalar),
        lambda t, x: t.where(x == x, x, scalar), lambda t, x: t.where(x == x, scalar, x),
        lambda t, x: t.masked_fill(x, x == x, scalar), lambda t, x: t.nan_to_num(x, nan=scalar if isinstance(scalar, float) else None),
    ]
    if dtype == "float16" and isinstance(scalar, complex):
        calls = calls[-2:]  # float16 with a complex number is complex32, which torchpy cannot store
    for fn in calls:
        agree(fn, x, policy=close_for(dtype))


def test_scalar_operands_wrap_like_c_casts():
    check(lambda t, x: x + 1000, Input([100], "int8"))
    check(lambda t, x: x * 1000, Input([3], "int8"))
    check(lambda t, x: x - 1, Input([0], "uint8"))
    check(lambda t, x: x + (-1), Input([0], "uint8"))
    check(lambda t, x: x == 1000, Input([-24], "int8"))
    check(lambda t, x: x < -1, Input([0, 255], "uint8"))
    check(lambda t, x: x & 300, Input([255], "uint8"))
    check(lambda t, x: x % 1000, Input([7], "int8"))
    check_error(lambda t, x: t.fmod(x, 256), Input([7], "int8"))  # 256 wraps to 0
    check(lambda t, x: x + 1e300, Input([1.0], "float32"))
    check(lambda t, x: x * 1e300, Input([1.0], "float16"))
    check(lambda t, x: x + 2 ** 62, Input([1], "int64"))


def test_scalar_arguments_are_range_checked():
    # alpha, clamp bounds, pow exponents, lerp weights and fill values go through a checked conversion
    check_error(lambda t, x, y: t.add(x, y, alpha=1000), Input([5], "int8"), Input([1], "int8"))
    check_error(lambda t, x, y: t.add(x, y, alpha=1e5), Input([1], "float16"), Input([1], "float16"))
    check_error(lambda t, x, y: t.add(x, y, alpha=1e39), Input([1], "float32"), Input([1], "float32"))
    check(lambda t, x, y: t.add(x, y, alpha=-1), Input([1], "uint8"), Input([1], "uint8"))
    check_error(lambda t, x: t.clamp(x, -1, 300), Input([5], "uint8"))
    check_error(lambda t, x: t.clamp_min(x, 1000), Input([5], "int8"))
    check_error(lambda t, x: t.clamp(x, max=1e5), Input([1], "float16"))
    check_error(lambda t, x: x ** 1000, Input([1], "int8"))
    check_error(lambda t, x: x ** 1e5, Input([1], "float16"))
    check(lambda t, x: x ** 1e39, Input([1.0], "float32"))
    check_error(lambda t, x, y: t.lerp(x, y, 1e300), Input([1.0], "float32"), Input([2.0], "float32"))
    check(lambda t, x, y: t.lerp(x, y, 1e5), Input([1.0], "float16"), Input([1.0], "float16"))
    check_error(lambda t, x, y: t.lerp(x, y, 0.5j), Input([1.0], "float32"), Input([2.0], "float32"))
    for dtype, value in [("uint8", 300), ("uint8", -256), ("uint8", -1.5), ("uint8", 255.5), ("int8", -129),
                         ("int8", 127.9), ("int16", 1e10), ("int32", 1e10), ("int64", INF), ("int64", NAN),
                         ("float16", 65520.0), ("float16", 2 ** 40), ("float32", 3.5e38), ("float64", 1 + 1j),
                         ("complex64", 1e300), ("bfloat16", 1e300)]:
        check_error(lambda t, x, m: t.masked_fill(x, m, value), Input([0, 0], dtype), Input([True, False], "bool"))
    for dtype, value in [("uint8", -1), ("uint8", -255), ("uint8", -129), ("uint8", 2.5), ("int32", 70000.0),
                         ("float16", INF), ("float16", NAN), ("bfloat16", 1e10), ("bool", 1 + 1j),
                         ("complex128", 1e300), ("float32", 1 + 0j), ("int64", 1 + 0j)]:
        check(lambda t, x, m: t.masked_fill(x, m, value), Input([0, 0], dtype), Input([True, False], "bool"))


# --- division, remainder, powers -------------------------------------------------------------------------

def test_division_by_zero():
    ints, zeros = Input([5, -5, 0, 7], "int64"), Input([0, 2, 0, -3], "int64")
    check(lambda t, x, y: t.div(x, y), ints, zeros)
    for fn in (lambda t, x, y: t.div(x, y, rounding_mode="trunc"), lambda t, x, y: t.div(x, y, rounding_mode="floor"),
               lambda t, x, y: x // y, lambda t, x, y: x % y, lambda t, x, y: t.fmod(x, y),
               lambda t, x, y: x // 0, lambda t, x, y: x % 0, lambda t, x, y: t.fmod(x, 0)):
        check_error(fn, ints, zeros)
    floats, fzeros = Input([5.0, -5.0, 0.0, 7.0], "float32"), Input([0.0, 2.0, -0.0, -3.0], "float32")
    for fn in (lambda t, x, y: t.div(x, y), lambda t, x, y: t.div(x, y, rounding_mode="trunc"),
               lambda t, x, y: x // y, lambda t, x, y: x % y, lambda t, x, y: t.fmod(x, y),
               lambda t, x, y: t.remainder(x, y)):
        check(fn, floats, fzeros)
        check(fn, Input([5.0, -5.0, 0.0, 7.0], "float16"), fzeros)
    check(lambda t, x: x / 0, ints)
    check(lambda t, x: 1 / x, zeros)


def test_integer_division_rounds_like_torch():
    a = np.array([7, -7, 7, -7, 6, -6, 0, 9])
    b = np.array([2, 2, -2, -2, 4, 4, 3, -4])
    for dtype in ("int8", "int16", "int32", "int64"):
        for mode in ("trunc", "floor"):
            check(lambda t, x, y: t.div(x, y, rounding_mode=mode), Input(a, dtype), Input(b, dtype))
        check(lambda t, x, y: t.remainder(x, y), Input(a, dtype), Input(b, dtype))
        check(lambda t, x, y: t.fmod(x, y), Input(a, dtype), Input(b, dtype))
    check_error(lambda t, x, y: t.div(x, y, rounding_mode="round"), Input(a, "int64"), Input(b, "int64"))


def test_integer_powers():
    check_error(lambda t, x: x ** -1, Input([5, -5, 0], "int64"))
    check_error(lambda t, x: x ** -1, Input([5], "uint8"))
    check_error(lambda t, x: x ** -2, Input([True], "bool"))
    check(lambda t, x, y: t.pow(x, y), Input([5, -5, 0, 7, 1, -1, -1, 2], "int64"), Input([-1, -2, 2, -1, -5, -3, -4, 0], "int64"))
    check(lambda t, x: t.pow(-2, x), Input([1, 2, -1, 0], "int64"))
    check(lambda t, x: t.pow(1, x), Input([-1, 2], "int64"))
    check(lambda t, x: x ** 0.5, Input([5, -5, 0, 7], "int64"))
    check(lambda t, x: x ** 2.0, Input([5, -5], "int32"))
    check(lambda t, x: x ** 2, Input([True, False], "bool"))
    check(lambda t, x: x ** True, Input([True, False], "bool"))
    check(lambda t, x: 2 ** x, Input([True, False], "bool"))
    check(lambda t, x: x ** 7, Input([3, -3], "int8"))  # wraps
    check(lambda t, x, y: t.pow(x, y), Input([2.0, -8.0, 0.0], "float32"), Input([0.5, 1 / 3, -1.0], "float32"))
    check(lambda t, x: x ** (1 + 1j), Input([2.0, 3.0], "float32"))
    check_error(lambda t, x, y: t.pow(x, y), Input([True], "bool"), Input([True], "bool"))


# --- add / sub checks ------------------------------------------------------------------------------------

def test_bool_subtraction_and_alpha_errors():
    b, f, i = Input([True, False], "bool"), Input([1.0, 2.0], "float32"), Input([1, 2], "int64")
    check_error(lambda t, x, y: x - y, b, b)
    check_error(lambda t, x, y: x - y, b, i)
    check_error(lambda t, x: x - True, f)
    check_error(lambda t, x: x - 1, b)
    check_error(lambda t, x: 1 - x, b)
    check_error(lambda t, x, y: t.rsub(x, y), b, b)
    check_error(lambda t, x: -x, b)
    check_error(lambda t, x, y: x - y, Input([True], "bool", device="meta"), Input([True], "bool", device="meta"))
    check_error(lambda t, x, y: t.add(x, y, alpha=True), f, f)
    check_error(lambda t, x, y: t.add(x, y, alpha=True), i, i)
    check_error(lambda t, x, y: t.add(x, y, alpha=2.5), i, i)
    check_error(lambda t, x, y: t.add(x, y, alpha=2.5), b, b)
    check_error(lambda t, x, y: t.add(x, y, alpha=1j), f, f)
    check_error(lambda t, x, y: t.sub(x, y, alpha=1j), i, i)
    check(lambda t, x, y: t.add(x, y, alpha=2), b, b)
    check(lambda t, x, y: t.add(x, y, alpha=True), b, b)
    check(lambda t, x, y: t.add(x, y, alpha=1j), Input([1 + 1j], "complex64"), Input([1j], "complex64"))
    check(lambda t, x, y: t.add(x, y, alpha=0.1), Input([1.0], "float16"), Input([3.0], "float16"))
    check(lambda t, x, y: t.sub(x, y, alpha=2.5), f, i)
    check(lambda t, x: t.rsub(x, 2, alpha=3), f)
    check(lambda t, x, y: t.rsub(x, y, alpha=2), i, i)


# --- comparisons, logical and bitwise ---------------------------------------------------------------------

def test_comparisons_with_nan_and_complex():
    x, y = Input([NAN, 1.0, INF, -0.0], "float32"), Input([NAN, NAN, INF, 0.0], "float32")
    for op in ("eq", "ne", "lt", "le", "gt", "ge"):
        check(lambda t, a, b: getattr(t, op)(a, b), x, y)
    check(lambda t, x: x == 1.0, Input([1 + 0j, 1 + 1j], "complex64"))
    check_error(lambda t, x: x < 1j, Input([1.0], "float32"))
    check_error(lambda t, x, y: x <= y, Input([1j], "complex64"), Input([1j], "complex64"))


def test_logical_ops_take_any_dtypes_and_out_dtypes():
    x, y = Input([1.5, 0.0, -2.0, 0.0], "float32"), Input([2, 2, 0, 0], "int8")
    for op in ("logical_and", "logical_or", "logical_xor"):
        check(lambda t, a, b: getattr(t, op)(a, b), x, y)
        check(lambda t, a, b, o: (getattr(t, op)(a, b, out=o), o), x, y, Input(np.zeros(4), "float32"))
        check(lambda t, a, b: getattr(a, op + "_")(b), x, y)
        check(lambda t, a, b: getattr(a, op + "_")(b), Input([1, 0, 3, 0], "int64"), y)
    check(lambda t, a: t.logical_not(a), Input([1 + 0j, 0j, 1j], "complex64"))
    check(lambda t, a: t.logical_not(a, out=t.tensor([5, 5, 5])), Input([1.0, 0.0, NAN], "float32"))


def test_shifts_out_of_range_and_mixed_widths():
    check(lambda t, x, y: x >> y, Input([8, 8, -8, -8], "int64"), Input([-1, 70, 63, 64], "int64"))
    check(lambda t, x, y: x << y, Input([8, 8, 1, -1], "int64"), Input([63, 64, -1, 62], "int64"))
    check(lambda t, x, y: x >> y, Input([8, -8, 100], "int8"), Input([10, 10, 7], "int8"))
    check(lambda t, x, y: x << y, Input([8, -8, 1], "int8"), Input([7, 8, 6], "int8"))
    check(lambda t, x, y: x >> y, Input([255, 255, 128], "uint8"), Input([8, 7, 9], "uint8"))
    check(lambda t, x, y: x << y, Input([255, 1], "uint8"), Input([8, 7], "uint8"))
    check(lambda t, x: x << 300, Input([1], "int8"))
    check(lambda t, x: 1 << x, Input([0, 3, 62], "int64"))
    check(lambda t, x: 1024 >> x, Input([0, 3, 62], "int32"))
    check(lambda t, x, y: x << y, Input([3], "int8"), Input([2], "int64"))


def test_bitwise_ops_reject_floats():
    for op in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"):
        for dtype in ("float32", "float16", "bfloat16", "float64", "complex64"):
            check_error(lambda t, x: getattr(t, op)(x, x), Input([1.0], dtype))
        check_error(lambda t, x: getattr(t, op)(x, 1), Input([1.0], "float32"))
    check_error(lambda t, x: ~x, Input([1.0], "float32"))
    check_error(lambda t, x: x & 1, Input([3.0, 2.0], "float32"))
    check(lambda t, x, y: x & y, Input([True, False], "bool"), Input([3, 2], "int64"))
    check(lambda t, x: x & True, Input([3, 2], "int64"))


# --- clamp -----------------------------------------------------------------------------------------------

def test_clamp_scalar_and_tensor_bounds():
    values = Input([NAN, -3.0, -0.5, 0.5, 4.0, INF], "float32")
    check(lambda t, x: t.clamp(x, -1, 1), values)
    check(lambda t, x: t.clamp(x, min=0.0), values)
    check(lambda t, x: t.clamp(x, max=0), values)
    check(lambda t, x: t.clamp(x, 3, 2), values)  # min > max gives max
    check(lambda t, x: t.clamp(x, min=NAN), values)
    check(lambda t, x: t.clamp_min(x, NAN), values)
    check(lambda t, x: x.clamp(-1, 1), values)
    check(lambda t, x: x.clamp_(-1, 1), values)
    check(lambda t, x: x.clamp_min_(0), values)
    check(lambda t, x: x.clamp_max_(0), values)
    check(lambda t, x: t.clamp(x, 0.5, 2.5), Input([5, -5, 0, 7], "int64"))  # bounds promote
    check(lambda t, x: t.clamp(x, 0, 1), Input([True, False], "bool"))
    lo, hi = Input([NAN, -1.0, 0.0, 0.0, 0.0, 0.0], "float32"), Input([1.0, 1.0, NAN, 1.0, 2.0, 0.0], "float64")
    check(lambda t, x, a, b: t.clamp(x, a, b), values, lo, hi)
    check(lambda t, x, a: t.clamp(x, min=a), values, lo)
    check(lambda t, x, b: t.clamp(x, max=b), values, hi)
    check(lambda t, x, a: t.clamp(x, a, None), values, Input(0.5, "float32"))
    check(lambda t, x, a: t.clamp_min(x, a), values, lo)
    check(lambda t, x, b: t.clamp_max(x, b), values, hi)
    check(lambda t, x, a, b: t.clamp(x, a, b), Input([[1], [5]], "int32"), Input([2, 3], "int64"), Input([4], "int8"))
    check(lambda t, x, a, b: t.clamp(x, a, b, out=t.tensor([[0.0, 0.0], [0.0, 0.0]])),
          Input([[1], [5]], "int32"), Input([2, 3], "int64"), Input([4], "int8"))
    check(lambda t, x, a: x.clamp_(a), values, Input(0.5, "float64"))
    check(lambda t, x: t.clamp(x, 0, 1), Input([1.0], "float32", device="meta"))


def test_clamp_errors():
    check_error(lambda t, x: t.clamp(x), Input([1.0], "float32"))
    check_error(lambda t, x: t.clamp(x, None, None), Input([1.0], "float32", device="meta"))
    check_error(lambda t, x: t.clamp(x, 0, 1), Input([1j], "complex64"))
    check_error(lambda t, x: t.clamp_min(x, 0), Input([1j], "complex64"))
    check_error(lambda t, x, y: t.clamp_min(x, y), Input([1j], "complex64"), Input([1j], "complex64"))
    check_error(lambda t, x, y: t.clamp_max(x, y), Input([1j], "complex128"), Input([1j], "complex128"))
    check_error(lambda t, x, y: t.clamp(x, y, y), Input([True], "bool"), Input([True], "bool"))
    check_error(lambda t, x: t.relu(x), Input([True], "bool"))
    check_error(lambda t, x: t.relu(x), Input([1j], "complex64"))
    for fn in (lambda t, x: x.clamp_(0.5), lambda t, x: x.clamp_min_(0.5), lambda t, x: x.clamp_max_(0.5),
               lambda t, x: x.clamp_(t.tensor(0.5)), lambda t, x: x.clamp_min_(t.tensor(0.5))):
        check_error(fn, Input([1, 2], "int64"))
    check_error(lambda t, x: x.clamp_(0.5), Input([1, 2], "int64", device="meta"))


# --- lerp ------------------------------------------------------------------------------------------------

def test_lerp():
    start, end = Input([1.0, 2.0, -3.0, 0.0], "float32"), Input([3.0, 10.0, 5.0, 1e-3], "float32")
    for weight in (0.0, 0.25, 0.5, 0.75, 1.0, -1.0, 2.0):
        check(lambda t, a, b: t.lerp(a, b, weight), start, end)
    check(lambda t, a, b, w: t.lerp(a, b, w), start, end, Input([0.0, 0.4, 0.6, 1.0], "float32"))
    check(lambda t, a, b, w: a.lerp(b, w), Input([1.0], "float64"), Input([[1.0], [3.0]], "float64"),
          Input([0.5, 0.25], "float64"))
    check(lambda t, a, b: a.lerp_(b, 0.5), start, end)
    check(lambda t, a, b, w: a.lerp_(b, w), start, end, Input(0.7, "float32"))
    check(lambda t, a, b: t.lerp(a, b, 0.5, out=t.tensor([0.0, 0.0, 0.0, 0.0], dtype=t.float64)), start, end)
    check(lambda t, a, b: t.lerp(a, b, 0.3 + 0.1j), Input([1j], "complex64"), Input([2.0], "complex64"))
    check(lambda t, a, b: t.lerp(a, b, 0.3), Input([1.0, 2.0], "bfloat16"), Input([4.0, 1.0], "bfloat16"), policy=close_for("bfloat16"))
    check(lambda t, a, b: t.lerp(a, b, 0.5), Input([1.0], "float32", device="meta"), Input([[1.0]], "float32", device="meta"))


def test_lerp_errors():
    x = Input([1.0, 2.0], "float32")
    for dtype in ("float16", "bfloat16", "int64", "int8", "uint8", "bool", "int16", "int32", "complex64", "complex128"):
        check_error(lambda t, a, b: t.lerp(a, b, 0.5), x, Input([1, 2], dtype))
        check_error(lambda t, a, b: t.lerp(a, a, b), x, Input([1, 2], dtype))
    check_error(lambda t, a, b: t.lerp(a, b, 0.5), Input([1, 2], "int64"), Input([1, 2], "int64"))
    check_error(lambda t, a, b: t.lerp(a, b, b), Input([1, 2], "int32"), Input([1, 2], "int32"))
    check_error(lambda t, a, b: a.lerp_(b, 0.5), Input([1.0], "float32"), Input([1.0, 2.0], "float32"))


# --- where / masked_fill / nan_to_num ------------------------------------------------------------------------

def test_where_overloads_and_promotion():
    cond = Input([True, False, True], "bool")
    x, i = Input([1.0, 2.0, 3.0], "float32"), Input([1, 2, 3], "int64")
    check(lambda t, c, a, b: t.where(c, a, b), cond, x, i)
    check(lambda t, c, a: t.where(c, a, 2.5), cond, i)
    check(lambda t, c, a: t.where(c, 2, a), cond, x)
    check(lambda t, c: t.where(c, 1, 2.5), cond)
    check(lambda t, c: t.where(c, 1, 2), cond)
    check(lambda t, c: t.where(c, True, 2), cond)
    check(lambda t, c, a: t.where(c, a, 2.5), cond, Input([1.0, 2.0, 3.0], "float16"))
    check(lambda t, c, a: t.where(c, a, 2.5), cond, Input([1, 2, 3], "int8"))
    check(lambda t, c, a, b: t.where(c, a, b), Input([[True], [False]], "bool"), x, Input(7.0, "float64"))
    check(lambda t, c, a: a.where(c, 0.0), cond, x)
    check(lambda t, c, a, b: a.where(c, b), cond, x, i)
    check(lambda t, c: t.where(c), Input([[True, False], [False, True]], "bool"))
    check(lambda t, c: t.where(c), Input([0.0, 1.5, 0.0, -2.0], "float32"))
    check(lambda t, c, a, b: t.where(c, a, b), Input([True], "bool", device="meta"),
          Input([1.0], "float32", device="meta"), Input([[1]], "int64", device="meta"))
    check(lambda t, c, a, b: t.where(c, a, b, out=t.tensor([0.0, 0.0, 0.0])), cond, x, x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda t, c, a, b: t.where(c, a, b), Input([1, 0, 1], "uint8"), x, i)


def test_where_errors():
    x = Input([1.0, 2.0], "float32")
    check_error(lambda t, c, a: t.where(c, a, a), Input([1.0, 0.0], "float32"), x)
    check_error(lambda t, c, a: t.where(c, a, a), Input([1, 0], "int8"), x)
    check_error(lambda t, c, a: t.where(c, a, 1000), Input([True, False], "bool"), Input([1, 2], "int8"))
    check_error(lambda t, c, a: t.where(c, a, a, out=t.tensor([0, 0])), Input([True, False], "bool"), x)
    check_error(lambda t, c, a: t.where(c, a, a), Input([True, False, True], "bool"), x)
    with pytest.warns(UserWarning, match="uint8 condition"):
        torchpy.where(torchpy.tensor([1, 0], dtype=torchpy.uint8), torchpy.tensor([1.0, 2.0]), 0.0)


def test_masked_fill():
    x, mask = Input([[1.0, 2.0], [3.0, 4.0]], "float32"), Input([True, False], "bool")
    check(lambda t, a, m: a.masked_fill(m, -1), x, mask)
    check(lambda t, a, m: t.masked_fill(a, m, 2.5), Input([1, 2], "int64"), Input([True, False], "bool"))
    check(lambda t, a, m, v: a.masked_fill(m, v), x, mask, Input(2.7, "float64"))
    check(lambda t, a, m, v: a.masked_fill(m, v), Input([1, 2], "int32"), Input([False, True], "bool"), Input(2.7, "float32"))
    check(lambda t, a, m: a.masked_fill(m, 0.5), Input([True, False], "bool"), Input([True, True], "bool"))
    check(lambda t, a, m: a.masked_fill(m, 0.0), Input([1.0, 2.0], "float32"), Input([[True, False], [False, True]], "bool"))
    check(lambda t, a, m: a.masked_fill_(m, -1), x, mask)
    check(lambda t, a, m: a.masked_fill_(m, -1), Input([[1.0, 2.0], [3.0, 4.0]], "float32", noncontiguous=True), mask)
    check(lambda t, a, m, v: a.masked_fill_(m, v), x, mask, Input(5, "int64"))
    check(lambda t, a, m: a.masked_fill(m, 1j), Input([1j, 2j], "complex64"), Input([True, False], "bool"))
    check(lambda t, a, m: a.masked_fill(m, 1.0), Input([1.0, 2.0], "bfloat16"), Input([True, False], "bool"))
    check(lambda t, a, m: t.ops.aten.masked_fill.Scalar_out(a, m, 0, out=t.tensor([[9.0, 9.0], [9.0, 9.0]])), x, mask)
    check_error(lambda t, a, m: t.ops.aten.masked_fill.Scalar_out(a, m, 0, out=t.tensor([[9.0, 9.0]], dtype=t.float64)), x, mask)
    check_error(lambda t, a, m: t.masked_fill(a, m, 0, out=a), x, mask, match_message=False)  # no Python out=
    check(lambda t, a, m: a.masked_fill(m, 3), Input([[1.0, 2.0]], "float32", device="meta"), Input([True], "bool", device="meta"))
    check(lambda t, a, m: a.masked_fill_(m, 3), Input([[1.0, 2.0]], "float32", device="meta"), Input([True], "bool", device="meta"))


def test_masked_fill_errors():
    x = Input([1.0, 2.0], "float32")
    for dtype in ("int64", "uint8", "float16", "bfloat16", "int8", "complex64", "int32", "int16", "float64", "float32"):
        check_error(lambda t, a, m: a.masked_fill(m, 0), x, Input([1, 0], dtype))
        check_error(lambda t, a, m: a.masked_fill_(m, 0), x, Input([1, 0], dtype))
    check_error(lambda t, a, m, v: a.masked_fill(m, v), x, Input([True, False], "bool"), Input([2.0], "float32"))
    check_error(lambda t, a, m: a.masked_fill_(m, 0.0), x, Input([[True, False], [False, True]], "bool"))
    check_error(lambda t, a, m: a.masked_fill(m, 0.0), x, Input([True, False, True], "bool"))
    check_error(lambda t, a, m: a.masked_fill(m, 1j), x, Input([True, False], "bool"))


def test_nan_to_num():
    specials = [NAN, INF, -INF, 1.0, -0.0]
    for dtype in ("float32", "float64", "float16", "bfloat16"):
        x = Input(specials, dtype)
        check(lambda t, a: t.nan_to_num(a), x)
        check(lambda t, a: t.nan_to_num(a, 1.0, 2.0, 3.0), x)
        check(lambda t, a: t.nan_to_num(a, nan=0.5, neginf=-7.0), x)
        check(lambda t, a: t.nan_to_num(a, posinf=1e300), x)
        check(lambda t, a: a.nan_to_num_(posinf=5.0), x)
    complex_specials = np.array([complex(NAN, INF), complex(-INF, 1.0), complex(1.0, NAN)])
    check(lambda t, a: t.nan_to_num(a), Input(complex_specials, "complex64"))
    check(lambda t, a: t.nan_to_num(a, 0.0, 1.0, -1.0), Input(complex_specials, "complex128"))
    check(lambda t, a: t.nan_to_num(a, nan=1.5), Input([1, 2], "int64"))
    check(lambda t, a: t.nan_to_num(a, out=t.tensor([0.0, 0.0, 0.0, 0.0, 0.0])), Input(specials, "float32"))
    check_error(lambda t, a: t.nan_to_num(a, out=t.tensor([0.0, 0.0, 0.0, 0.0, 0.0], dtype=t.float64)),
                Input(specials, "float32"))
    check(lambda t, a: t.nan_to_num(a), Input(specials, "float32", device="meta"))


def test_isfinite_isinf_isnan():
    values = [NAN, INF, -INF, 1.0, -0.0]
    for dtype in ("float32", "float16", "bfloat16", "float64"):
        for op in ("isfinite", "isinf", "isnan"):
            check(lambda t, a: getattr(t, op)(a), Input(values, dtype))
    c = Input(np.array([complex(NAN, 0), complex(0, INF), complex(1, 1), complex(INF, NAN)]), "complex64")
    for op in ("isfinite", "isinf", "isnan"):
        check(lambda t, a: getattr(t, op)(a), c)
        check(lambda t, a: getattr(t, op)(a), Input([1, 2], "int64"))
        check(lambda t, a: getattr(t, op)(a), Input([1.0], "float32", device="meta"))
    for op in ("isfinite", "isinf", "isnan"):  # no out= in Python (our TypeError words it differently)
        check_error(lambda t, a: getattr(t, op)(a, out=a), Input([1.0], "float32"), match_message=False)


# --- in-place and out= forms of binary ops --------------------------------------------------------------

INPLACE = ["add", "sub", "mul", "div", "floor_divide", "remainder", "fmod", "pow", "atan2", "hypot",
           "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
           "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
           "clamp_min", "clamp_max"]


NO_SCALAR = ("atan2", "hypot", "logical_and", "logical_or", "logical_xor")


@pytest.mark.parametrize("op", INPLACE)
def test_binary_in_place(op):
    for self_dtype, other_dtype in [("float32", "float32"), ("float32", "float64"), ("float64", "int32"),
                                    ("int64", "int64"), ("int32", "float32"), ("float16", "float32"),
                                    ("bool", "bool"), ("int8", "int64")]:
        x = Input(values_for(self_dtype), self_dtype)
        y = Input(values_for(other_dtype, OTHER), other_dtype)
        agree(lambda t, a, b: getattr(a, op + "_")(b), x, y, policy=close_for(self_dtype))
        # ops without Scalar overloads raise a TypeError we word differently
        agree(lambda t, a: getattr(a, op + "_")(2), x, match_message=op not in NO_SCALAR, policy=close_for(self_dtype))
    x = Input(values_for("float32"), "float32", noncontiguous=True)
    agree(lambda t, a, b: getattr(a, op + "_")(b), x, Input(OTHER[0], "float32"))
    agree(lambda t, a, b: getattr(a, op + "_")(b), Input(OTHER[0], "float32"), x)  # cannot broadcast self
    agree(lambda t, a, b: getattr(a, op + "_")(b), Input(OTHER, "float32", device="meta"), Input(OTHER[0], "float32", device="meta"))


@pytest.mark.parametrize("op", INPLACE + ["rsub", "maximum", "minimum"])
def test_binary_out(op):
    for out_dtype in ("float32", "float64", "int64", "bool", "complex64"):
        x, y = Input(values_for("float32"), "float32"), Input(OTHER, "float32")
        agree(lambda t, a, b, o: (getattr(t, op)(a, b, out=o), o), x, y, Input(np.zeros(BASE.shape), out_dtype))
        i, j = Input(values_for("int32"), "int32"), Input(OTHER * 2, "int32")
        agree(lambda t, a, b, o: (getattr(t, op)(a, b, out=o), o), i, j, Input(np.zeros(BASE.shape), out_dtype))
    agree(lambda t, a, b, o: (getattr(t, op)(a, b, out=o), o), Input(OTHER, "float32", device="meta"),
          Input(OTHER[0], "float32", device="meta"), Input(np.zeros(1), "float32", device="meta"))


def test_out_of_scalar_overloads():
    x, o = Input(values_for("float32"), "float32"), Input(np.zeros(BASE.shape), "float64")
    check(lambda t, a, b: (t.pow(2, a, out=b), b), x, o)
    check_error(lambda t, a, b: (t.remainder(2, a, out=b), b), x, o, match_message=False)  # generated: no Python out=
    check(lambda t, a, b: (t.ops.aten.remainder.Scalar_Tensor_out(2, a, out=b), b), x, Input(np.zeros(BASE.shape), "float32"))
    check(lambda t, a, b: (t.remainder(a, 2, out=b), b), x, o)
    check(lambda t, a, b: (t.div(a, 2, rounding_mode="floor", out=b), b), x, o)
    check(lambda t, a, b: (t.bitwise_and(a, 3, out=b), b), Input([1, 2, 3], "int64"), Input([0, 0, 0], "int64"))
    check(lambda t, a, b: (t.ops.aten.bitwise_and.Scalar_Tensor_out(3, a, out=b), b), Input([1, 2, 3], "int64"),
          Input([0, 0, 0], "int64"))
    check(lambda t, a, b: (t.eq(a, 0.5, out=b), b), x, o)
    same = Input(np.zeros(BASE.shape), "float32")
    for fn in (lambda t, a, b: (t.round(a, decimals=1, out=b), b), lambda t, a, b: (t.clamp(a, 0, 1, out=b), b),
               lambda t, a, b: (t.clamp_min(a, 0, out=b), b), lambda t, a, b: (t.neg(a, out=b), b)):
        check(fn, x, same)
        check_error(fn, x, o)  # these need the result's own dtype


def test_aten_scalar_overloads_directly():
    x = Input(values_for("float32"), "float32")
    i = Input(values_for("int64"), "int64")
    for name, args in [("add.Scalar", (2,)), ("add.Scalar", (2, 3)), ("sub.Scalar", (2.5,)), ("mul.Scalar", (3,)),
                       ("div.Scalar", (4,)), ("rsub.Scalar", (1,)), ("remainder.Scalar", (2,)),
                       ("fmod.Scalar", (1.5,)), ("floor_divide.Scalar", (2,))]:
        check(lambda t, a: getattr(getattr(t.ops.aten, name.split(".")[0]), name.split(".")[1])(a, *args), x)
        check(lambda t, a: getattr(getattr(t.ops.aten, name.split(".")[0]), name.split(".")[1])(a, *args), i)
    check(lambda t, a: t.ops.aten.div.Scalar_mode(a, 2, rounding_mode="trunc"), x)
    check(lambda t, a: t.ops.aten.bitwise_and.Scalar(a, 6), i)
    check(lambda t, a: t.ops.aten.bitwise_xor.Scalar_Tensor(6, a), i)
    check(lambda t, a: t.ops.aten.bitwise_left_shift.Tensor_Scalar(a, 2), i)
    check(lambda t, a: t.ops.aten.__lshift__.Scalar(a, 2), i)
    check(lambda t, a: t.ops.aten.__and__.Scalar(a, 2), i)
    check(lambda t, a: t.ops.aten.__ior__.Scalar(a, 2), i)
    check(lambda t, a: t.ops.aten.add_.Scalar(a, 2), x)
    check(lambda t, a: t.ops.aten.where.Scalar(a > 0, 1.0, 0), x)


def test_op_table_matches_torch():
    """Every pointwise overload exists with torch's schema and tags."""
    names = ["add.Tensor", "add.Scalar", "pow.Scalar", "where.self", "where", "clamp.Tensor", "round.decimals",
             "__lshift__.Scalar", "__iand__.Tensor", "masked_fill_.Scalar", "isfinite", "div.out_mode"]
    for name in names:
        base, _, overload = name.partition(".")
        ours = getattr(getattr(torchpy.ops.aten, base), overload or "default")
        theirs = getattr(getattr(torch.ops.aten, base), overload or "default")
        assert str(ours._schema) == str(theirs._schema)
        assert sorted(ours.tags) == sorted(str(t).split(".")[-1] for t in theirs.tags)


def test_positive():
    for dtype in ("float32", "int8", "complex64", "bfloat16"):
        check(lambda t, a: t.positive(a), Input(values_for(dtype), dtype))
        check(lambda t, a: a.positive() is a, Input(values_for(dtype), dtype))
    check_error(lambda t, a: t.positive(a), Input([True], "bool"))
    check(lambda t, a: t.positive(a), Input([1.0], "float32", device="meta"))


def test_result_layout_follows_torchs_iterator():
    """Results take PyTorch's strides when inputs' layouts disagree (TensorIterator's order)."""
    x = Input(np.arange(24.0).reshape(2, 3, 4), "float32")
    y = Input(np.ones((4, 3, 2)), "float32")
    cases = [lambda a, b: a.permute(2, 1, 0) + b, lambda a, b: b + a.permute(2, 1, 0),
             lambda a, b: a.permute(2, 1, 0) * a.permute(1, 2, 0).permute(1, 0, 2),
             lambda a, b: a.permute(2, 1, 0)[:, :1] + b, lambda a, b: b[:1] + a.permute(2, 1, 0),
             lambda a, b: a.permute(2, 1, 0).exp(), lambda a, b: a.permute(2, 1, 0) == b,
             lambda a, b: a.permute(2, 1, 0).masked_fill(b > 0, 0.0),
             lambda a, b: a.permute(2, 1, 0).where(b > 0, b), lambda a, b: a.permute(2, 1, 0).pow(b),
             lambda a, b: a.permute(2, 1, 0).clamp(b, b + 1)]
    for fn in cases:
        check(lambda t, a, b: fn(a, b).stride(), x, y)
        check(lambda t, a, b: fn(a, b), x, y)


ALIAS_CALLS = [
    "t.square(x)", "t.square(i)", "t.square(b)", "x.square_()", "t.square(x, out=o)",
    "t.true_divide(x, y)", "t.true_divide(i, 2)", "x.true_divide_(2)", "t.true_divide(x, y, out=o)",
    "t.divide(x, y)", "t.divide(x, 2, rounding_mode='floor')", "t.divide(i, y, rounding_mode='trunc')",
    "x.divide_(y)", "t.divide(x, y, rounding_mode=None, out=o)",
    "t.multiply(x, 2)", "x.multiply(y)", "x.multiply_(y)", "t.multiply(x, y, out=o)",
    "t.subtract(x, y, alpha=2)", "x.subtract(2)", "x.subtract_(y)", "t.subtract(x, y, out=o)",
    "t.absolute(x)", "x.absolute_()", "t.absolute(x, out=o)", "t.negative(i)", "x.negative_()",
    "t.clip(x, 0, 1)", "x.clip(min=y)", "x.clip_(max=0)", "t.clip(x, y, out=o)",
    "t.greater(x, 0)", "x.greater_equal(y)", "t.less(x, y)", "x.less_equal(0.5)", "t.not_equal(x, y, out=o)",
    "x.greater_(y)", "x.not_equal_(2)",
    "t.arcsin(x)", "t.arccos(x)", "x.arctan()", "t.arctan2(x, y)", "x.arctan2_(y)", "x.arcsin_()",
    "t.fix(x)", "x.fix_()", "t.fix(x, out=o)",
    "t.sgn(x)", "t.sgn(c)", "t.sgn(i)", "t.sgn(b)", "x.sgn_()", "c.sgn_()", "t.sgn(c, out=oc)",
]


@pytest.mark.parametrize("code", ALIAS_CALLS)
def test_aliases_and_sgn(code):
    from .dispatch_log import assert_same_dispatch

    fn = eval(f"lambda t, x, y, i, b, c, o, oc: {code}")
    inputs = (Input([0.25, -0.5, 0.0, 2.0], "float32"), Input([0.5, 0.5, -1.0, 3.0], "float32"),
              Input([3, -4, 0, 7], "int64"), Input([True, False, True, False], "bool"),
              Input([3 + 4j, 0j, -1j, 2.0], "complex64"), Input(np.zeros(4), "float32"),
              Input(np.zeros(4), "complex64"))
    agree(fn, *inputs)
    try:
        fn(torch, *[x.make(torch) for x in inputs])
    except Exception:  # noqa: BLE001 - the error is compared above
        return
    assert_same_dispatch(fn, *inputs)
    agree(lambda t, *a: fn(t, *a), *[Input(x.values, x.dtype, device="meta") for x in inputs])


@pytest.mark.parametrize("op", ["add", "mul", "sub", "maximum", "eq", "atan2"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
def test_same_dtype_tensor_pairs_take_torchs_layout_quietly(op, dtype):
    """Two plain tensors of one dtype go straight to the ufunc (the kernels' fast lane): the
    result still has torch's strides, dtype and values, and NumPy warns about nothing."""
    base = np.arange(12.0).reshape(3, 4) - 5.0
    special = np.array([np.inf, np.nan, 0.0, -0.0])
    pairs = {
        "both transposed": lambda t: (t(base).t(), t(base * 2).t()),
        "both strided": lambda t: (t(base)[:, ::2], t(base)[:, 1::2]),
        "second transposed": lambda t: (t(base.T.copy()), t(base).t()),
        "first transposed": lambda t: (t(base).t(), t(base.T.copy())),
        "0-dim": lambda t: (t(np.array(2.0)), t(np.array(-3.0))),
        "inf - inf, nan, 0 / 0": lambda t: (t(special), t(special[::-1].copy())),
    }
    for name, make in pairs.items():
        results = []
        for lib in (torch, torchpy):
            x, y = make(lambda a: lib.tensor(a).to(getattr(lib, dtype)) if dtype != "int32" or
                        np.isfinite(a).all() else lib.tensor(np.nan_to_num(a, posinf=7, neginf=-7)).to(lib.int32))
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                out = getattr(lib, op)(x, y)
            results.append((str(out.dtype), tuple(out.shape), tuple(out.stride()),
                            np.array(out.tolist(), dtype=float)))
        (theirs, ours) = results
        assert ours[:3] == theirs[:3], name
        # atan2 is transcendental: its last bit depends on NumPy's SIMD loop
        assert_values(ours[3], theirs[3], ulp(1) if op == "atan2" else EXACT, theirs[0].removeprefix("torch."), name)


@pytest.mark.parametrize("number", [2, 2.5, -0.0, float("inf"), 1e30], ids=repr)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32"])
def test_tensor_and_number_lane_as_torch(dtype, number):
    """A tensor and a wrapped number of no higher category: the kernels' lane hands the ufunc
    the Python number; dtype, values, strides and silence must stay torch's."""
    base = np.arange(12.0).reshape(3, 4) - 5.0
    for name, make in {"contiguous": lambda t: t, "transposed": lambda t: t.t()}.items():
        results = []
        for lib in (torch, torchpy):
            x = make(lib.tensor(base).to(getattr(lib, dtype)))
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                outs = [x * number, x + number, x - number, number * x]
            results.append([(str(o.dtype), tuple(o.stride()), np.array(o.tolist(), dtype=float)) for o in outs])
        for (t_dtype, t_stride, t_values), (o_dtype, o_stride, o_values) in zip(*results):
            assert (o_dtype, o_stride) == (t_dtype, t_stride), name
            assert_values(o_values, t_values, EXACT, t_dtype.removeprefix("torch."), name)  # IEEE exact ops


# --- relu / clamp on large arrays (kernels/bounds.py spreads the bound into an array) ------------

def _special_values(shape, dtype):
    values = np.random.default_rng(1).standard_normal(shape) * 3
    flat = values.reshape(-1)
    flat[:6] = [NAN, -INF, INF, -0.0, 0.0, -NAN]
    return values.astype(dtype)


BOUNDED = {
    "relu": lambda t, x: t.relu(x),
    "relu_": lambda t, x: x.clone().relu_(),
    "clamp_min 0": lambda t, x: t.clamp(x, min=0),
    "clamp_min -0.0": lambda t, x: t.clamp(x, min=-0.0),
    "clamp 0.5, 1.5": lambda t, x: t.clamp(x, 0.5, 1.5),
    "clamp_max 0": lambda t, x: t.clamp(x, max=0),
    "clamp_max -1": lambda t, x: t.clamp_max(x, -1),
    "clamp nan": lambda t, x: t.clamp(x, min=NAN),
    "F.relu transposed": lambda t, x: t.nn.functional.relu(x.t()),
    "clamp transposed": lambda t, x: t.clamp(x.t(), -1, 1),
}


def _bounded_cases():
    for name in BOUNDED:
        for shape in [(8,), (64, 256)]:
            for dtype in ["float32", "float64", "float16", "int32", "int64", "uint8"]:
                if "transposed" in name and len(shape) == 1:
                    continue  # a 1-d tensor has no transpose to take
                if dtype[0] in "iu" and ("nan" in name or "0.5" in name or "-0.0" in name):
                    continue  # a float bound on an integer tensor is another promotion case (covered above)
                yield name, shape, dtype


@pytest.mark.parametrize("name,shape,dtype", list(_bounded_cases()))
def test_relu_and_clamp_keep_bits_and_layout(name, shape, dtype):
    """Bit-exact values (NaN payloads, signed zeros, infinities) and torch's strides."""
    values = _special_values(shape, "float64")
    if dtype[0] in "iu":
        values = np.nan_to_num(values, nan=0, posinf=100, neginf=-100)
        values = np.abs(values) if dtype == "uint8" else values
    results = []
    for lib in (torch, torchpy):
        x = lib.tensor(values.astype(dtype)) if dtype != "float16" else lib.tensor(values).to(lib.float16)
        out = BOUNDED[name](lib, x)
        results.append((str(out.dtype), tuple(out.stride()), out.detach().numpy().tobytes()))
    assert results[1] == results[0]
