"""threshold_backward (ReLU's gradient op) against torch."""

import pytest

from .harness import Input, check, randn


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("threshold", [0, 0.5, -1])
def test_threshold_backward(dtype, threshold):
    check(lambda t, g, s: t.ops.aten.threshold_backward(g, s, threshold),
          Input(randn(3, 4), dtype), Input(randn(3, 4), dtype, noncontiguous=True), atol=1e-3)


def test_threshold_backward_broadcasts_and_works_on_meta():
    check(lambda t, g, s: t.ops.aten.threshold_backward(g, s, 0), Input(randn(3, 4), "float32"), Input(randn(4), "float32"))
    check(lambda t, g, s: t.ops.aten.threshold_backward(g, s, 0),
          Input(randn(2, 3), "float32", device="meta"), Input(randn(2, 3), "float32", device="meta"))


def test_threshold_backward_out():
    check(lambda t, g, s: t.ops.aten.threshold_backward.grad_input(g, s, 0, grad_input=t.empty(4)),
          Input(randn(4), "float32"), Input(randn(4), "float32"))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_threshold_backward_special_values_bit_for_bit(dtype):
    # A NaN input passes the gradient (torch's rule is `self <= threshold ? 0 : grad`); an inf
    # or NaN gradient where the input is masked still gives +0.0.
    import numpy as np
    import torch

    import torchpy

    grad = np.array([1.5, np.inf, np.nan, -2.0, np.nan, -np.inf, 3.0], dtype=dtype)
    inp = np.array([np.nan, -1.0, -1.0, 0.0, 2.0, 5.0, -0.0], dtype=dtype)
    ours = torchpy.ops.aten.threshold_backward(torchpy.tensor(grad), torchpy.tensor(inp), 0).numpy()
    theirs = torch.ops.aten.threshold_backward(torch.tensor(grad), torch.tensor(inp), 0).numpy()
    assert ours.dtype == theirs.dtype
    assert ours.tobytes() == theirs.tobytes()
