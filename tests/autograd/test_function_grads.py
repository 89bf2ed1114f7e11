"""The engine's check on the gradients an autograd.Function's backward returns, against torch:
a gradient of another dtype is cast to the input's, one the input broadcasts to is summed
down, any other shape is PyTorch's error."""

from __future__ import annotations

import pytest
import torch

import torchpy


def _run(lib, make_grad):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return make_grad(lib, grad)

    x = lib.ones(3, dtype=lib.float64, requires_grad=True)
    Scale.apply(x).sum().backward()
    return x.grad


@pytest.mark.parametrize("make_grad", [
    lambda lib, g: g.float(),                  # cast back to float64
    lambda lib, g: g.sum().expand(2, 3),       # summed down to [3]
    lambda lib, g: (g * 3).unsqueeze(0),       # a leading 1 is summed away too
], ids=["dtype", "broadcast", "leading-one"])
def test_returned_gradients_are_fitted_to_their_inputs(make_grad):
    expected, actual = _run(torch, make_grad), _run(torchpy, make_grad)
    assert str(actual.dtype) == str(expected.dtype)
    assert tuple(actual.shape) == tuple(expected.shape)
    assert actual.tolist() == expected.tolist()


def test_a_gradient_of_an_incompatible_shape_is_torchs_error():
    messages = []
    for lib in (torch, torchpy):
        with pytest.raises(RuntimeError) as info:
            _run(lib, lambda lib, g: lib.ones(2, dtype=lib.float64))
        messages.append(str(info.value))
    assert messages[1] == messages[0]
