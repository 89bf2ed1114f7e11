"""The oracle's comparison policy catches what it must and lets through only what it names."""

import numpy as np
import pytest
import torch

import torchpy
from tests.oracle import CLOSE, EXACT, assert_same, assert_values, check, scaled, ulp, ulp_of


def next_after(x: float, dtype, steps: int = 1):
    value = np.asarray(x, dtype=dtype)
    for _ in range(steps):
        value = np.nextafter(value, np.asarray(np.inf, dtype=dtype))
    return float(value)


def test_ulp_of_matches_numpy_spacing():
    for dtype, name in ((np.float16, "float16"), (np.float32, "float32"), (np.float64, "float64")):
        for x in (0.0, 1e-42 if dtype is np.float32 else 0.0, 0.3, 1.0, 1.5, 1000.0, -7.25):
            assert ulp_of(x, name) == np.spacing(np.abs(np.asarray(x, dtype=dtype))), (name, x)
    assert ulp_of(1.0, "bfloat16") == 2.0 ** -7


def test_exact_is_bit_for_bit():
    x = 0.46364760
    EXACT.assert_values(np.float32([x, np.nan, np.inf]), np.float32([x, np.nan, np.inf]), "float32", "r")
    with pytest.raises(AssertionError):
        EXACT.assert_values(np.float32([next_after(x, np.float32)]), np.float32([x]), "float32", "r")
    with pytest.raises(AssertionError, match="sign of a zero"):
        EXACT.assert_values(np.float64([-0.0]), np.float64([0.0]), "float64", "r")


def test_ulp_bound_counts_in_the_results_dtype():
    x = 0.46364760
    one_off, three_off = next_after(x, np.float32), next_after(x, np.float32, 3)
    ulp(1).assert_values(np.float32([one_off]), np.float32([x]), "float32", "r")
    with pytest.raises(AssertionError, match="ulp"):
        ulp(2).assert_values(np.float32([three_off]), np.float32([x]), "float32", "r")
    # One float32 ulp is far more than a float64 one.
    with pytest.raises(AssertionError):
        ulp(4).assert_values(np.float64([one_off]), np.float64([x]), "float64", "r")
    # inf and nan are never "within" a bound.
    with pytest.raises(AssertionError):
        ulp(4).assert_values(np.float32([3e38]), np.float32([np.inf]), "float32", "r")
    with pytest.raises(AssertionError):
        ulp(4).assert_values(np.float32([1.0]), np.float32([np.nan]), "float32", "r")


def test_ulp_scale_covers_cancellation_near_zero():
    # cos near pi/2: an absolute error of an ulp of the operands, many ulp of the tiny result
    ulp(2, scale=1.0).assert_values(np.float64([6.1e-17 + 1e-16]), np.float64([6.1e-17]), "float64", "r")
    with pytest.raises(AssertionError):
        ulp(2).assert_values(np.float64([6.1e-17 + 1e-16]), np.float64([6.1e-17]), "float64", "r")


def test_scaled_tolerance_and_integers_always_exact():
    scaled(rtol=1e-3, atol=0).assert_values(np.float64([1000.5]), np.float64([1000.0]), "float64", "r")
    with pytest.raises(AssertionError):
        scaled(rtol=1e-4, atol=0).assert_values(np.float64([1000.5]), np.float64([1000.0]), "float64", "r")
    with pytest.raises(AssertionError):
        assert_values(np.int64([1, 2]), np.int64([1, 3]), scaled(rtol=1.0, atol=10.0))


def test_assert_same_compares_metadata_and_values():
    assert_same(torchpy.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0]), EXACT)
    with pytest.raises(AssertionError):
        assert_same(torchpy.tensor([1.0, 2.0]), torch.tensor([1.0, 2.5]))
    with pytest.raises(AssertionError, match="dtype"):
        assert_same(torchpy.tensor([1, 2]), torch.tensor([1.0, 2.0]))
    with pytest.raises(AssertionError, match="shape"):
        assert_same(torchpy.zeros(2, 1), torch.zeros(2))
    with pytest.raises(AssertionError):
        assert_same({"a": 1.0}, {"a": 1.5}, CLOSE)


def test_success_path_fails_when_both_raise():
    # A typo raises AttributeError in both libraries: that is a failing test, not a match.
    with pytest.raises(AttributeError):
        check(lambda t: t.nn.Lineaar(3, 2))


def test_error_path_names_the_exception():
    check(lambda t: t.zeros(2, 3).view(7), expect_error=RuntimeError)
    with pytest.raises(AssertionError, match="not TypeError"):
        check(lambda t: t.zeros(2, 3).view(7), expect_error=TypeError)
    with pytest.raises(AssertionError, match="did not raise"):
        check(lambda t: t.zeros(2, 3).view(6), expect_error=RuntimeError)
