"""The oracle on the ops that exist first (add/sub/mul/div)."""

import pytest

from tests.oracle import ALL_DTYPES, Input, check, check_error, randn


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d != "bool"])
def test_add_across_dtypes_with_broadcasting(dtype):
    check(lambda t, x, y: x + y, Input(randn(3, 4) * 3, dtype), Input(randn(4) * 3, dtype))


def test_wrapped_numbers_promote_like_scalars():
    check(lambda t, x: x + 2.5, Input([1, 2, 3], "int32"))
    check(lambda t, x: 2 * x, Input([1, 2, 3], "int64"))
    check(lambda t, x: x / 2, Input([1, 2, 3], "int64"))
    check(lambda t, x: t.add(x, 1, alpha=3), Input([1.0, 2.0], "float16"))


def test_broadcast_error_matches_torch():
    check_error(lambda t, x, y: x + y, randn(3), randn(4))


def test_noncontiguous_inputs():
    x = Input(randn(3, 4), "float32", noncontiguous=True)
    check(lambda t, a, b: a * b, x, Input(randn(4), "float64"))
    check(lambda t, a: a.stride(), x)
