"""nn.Linear / nn.Identity against torch: initial weights from the same seed, forward, backward."""

import pytest

from tests.nn.helpers import check
from tests.oracle import EXACT


@pytest.mark.parametrize("sizes", [(4, 3), (1, 7), (10, 1), (16, 32)])
@pytest.mark.parametrize("bias", [True, False])
def test_same_seed_gives_torchs_initial_weights(sizes, bias):
    # Linear draws with kaiming_uniform_ and uniform_: torchpy reproduces torch's CPU stream exactly
    check(lambda lib: list(lib.nn.Linear(*sizes, bias=bias).state_dict().values()), policy=EXACT)


@pytest.mark.parametrize("shape", [(5,), (2, 5), (3, 2, 5)])
def test_forward_and_backward(shape):
    def program(lib):
        m = lib.nn.Linear(5, 3)
        x = lib.randn(shape, requires_grad=True)
        y = m(x)
        (y * y).sum().backward()
        return y, type(y.grad_fn).__name__, x.grad, m.weight.grad, m.bias.grad

    check(program)


def test_constructor_options_and_repr():
    def program(lib):
        m = lib.nn.Linear(3, 2, bias=False, dtype=lib.float64, device="cpu")
        return (repr(m), m.weight.dtype, m.bias, m.in_features, m.out_features,
                [n for n, _ in m.named_parameters()], list(m.state_dict()), type(m.weight).__name__)

    check(program)


def test_reset_parameters_redraws():
    def program(lib):
        m = lib.nn.Linear(3, 3)
        m.reset_parameters()
        return list(m.parameters())

    check(program, policy=EXACT)


def test_wrong_input_size_error():
    check(lambda lib: lib.nn.Linear(3, 2)(lib.ones(4, 5)), expect_error=RuntimeError)


def test_identity():
    def program(lib):
        m = lib.nn.Identity(54, unused="x")
        x = lib.ones(2)
        return m(x) is x, repr(m), list(m.parameters())

    check(program)
