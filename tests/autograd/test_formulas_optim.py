"""addcmul / addcdiv's backward formulas against torch's gradients (all three inputs, broadcast)."""

import pytest

from tests.autograd.test_formulas import check_grad, rand

A, ROW, COL = rand(3, 4), rand(4, seed=1), rand(3, 1, seed=2) + 2.0


@pytest.mark.parametrize("value", [1, -0.7])
def test_addcmul(value):
    check_grad(lambda t, x, y, z: t.addcmul(x, y, z, value=value), A, ROW, COL, name="AddcmulBackward0")


@pytest.mark.parametrize("value", [1, 2.5])
def test_addcdiv(value):
    check_grad(lambda t, x, y, z: t.addcdiv(x, y, z, value=value), A, ROW, COL, name="AddcdivBackward0")


def test_in_place_forms():
    check_grad(lambda t, x, y, z: (x * 1).addcmul_(y, z, value=0.5), A, ROW, COL, name="AddcmulBackward0")
    check_grad(lambda t, x, y, z: (x * 1).addcdiv_(y, z, value=0.5), A, ROW, COL, name="AddcdivBackward0")
