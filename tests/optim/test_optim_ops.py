"""addcmul / addcdiv, the ops the optimizers' updates are made of, against torch."""

import pytest

from tests.oracle import EXACT, Input, check, randn, scaled

OPS = ["addcmul", "addcdiv"]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("value", [1, 0.37, -2.5])
def test_values_in_place_and_out(op, value):
    a, b, c = randn(3, 4), randn(4, seed=1), randn(3, 1, seed=2)
    check(lambda t, x, y, z: getattr(t, op)(x, y, z, value=value), a, b, c, policy=EXACT)
    check(lambda t, x, y, z: getattr(x.clone(), op + "_")(y, z, value=value), a, b, c, policy=EXACT)
    check(lambda t, x, y, z: getattr(t, op)(x, y, z, value=value, out=t.empty(3, 4)), a, b, c, policy=EXACT)
    check(lambda t, x, y, z: getattr(x, op)(y, z, value=value), Input([[1.0, 2.0]], "float64"),
          Input([3.0, 4.0], "float64"), Input([[5.0], [7.0]], "float64"), policy=EXACT)


def test_integer_and_error_paths():
    i = Input([[1, 2], [3, 4]], "int64")
    check(lambda t, x: t.addcmul(x, x, x, value=3), i, policy=EXACT)
    check(lambda t, x: t.addcdiv(x.float(), x, x), i, expect_error=RuntimeError)
    check(lambda t, x: x.clone().addcmul_(x, t.ones(3, 2, 2)), randn(2, 2), expect_error=RuntimeError)
    check(lambda t, x: t.addcmul(x, x, x, value=2, out=t.empty(2, 2, dtype=t.int64)), randn(2, 2),
          expect_error=RuntimeError)


@pytest.mark.parametrize("op", OPS)
def test_gradients_and_meta(op):
    def grads(t, x, y, z):
        x, y, z = (v.detach().requires_grad_() for v in (x, y, z))
        out = getattr(t, op)(x, y, z, value=0.7)
        out.sum().backward()
        return out, out.grad_fn.name(), x.grad, y.grad, z.grad

    check(grads, randn(2, 3), randn(3, seed=1), randn(2, 1, seed=2), policy=scaled(rtol=1e-5))
    check(lambda t: getattr(t.empty(2, 3, device="meta"), op)(t.empty(3, device="meta"),
                                                             t.empty(2, 1, device="meta")).shape)
