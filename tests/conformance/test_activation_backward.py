"""threshold_backward (ReLU's gradient op) against torch."""

import pytest

from tests.oracle import Input, check, randn, scaled


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("threshold", [0, 0.5, -1])
def test_threshold_backward(dtype, threshold):
    check(lambda t, g, s: t.ops.aten.threshold_backward(g, s, threshold),
          Input(randn(3, 4), dtype), Input(randn(3, 4), dtype, noncontiguous=True), policy=scaled(atol=1e-3))


def test_threshold_backward_broadcasts_and_works_on_meta():
    check(lambda t, g, s: t.ops.aten.threshold_backward(g, s, 0), Input(randn(3, 4), "float32"), Input(randn(4), "float32"))
    check(lambda t, g, s: t.ops.aten.threshold_backward(g, s, 0),
          Input(randn(2, 3), "float32", device="meta"), Input(randn(2, 3), "float32", device="meta"))


def test_threshold_backward_out():
    check(lambda t, g, s: t.ops.aten.threshold_backward.grad_input(g, s, 0, grad_input=t.empty(4)),
          Input(randn(4), "float32"), Input(randn(4), "float32"))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("copies", [1, 300])  # under and over the size where the kernel switches method
@pytest.mark.parametrize("transposed", [False, True])
def test_threshold_backward_special_values_bit_for_bit(dtype, copies, transposed):
    # A NaN input passes the gradient (torch's rule is `self <= threshold ? 0 : grad`); an inf
    # or NaN gradient where the input is masked still gives +0.0.
    import numpy as np
    import torch

    import torchpy

    grad = np.tile(np.array([1.5, np.inf, np.nan, -2.0, np.nan, -np.inf, 3.0], dtype=dtype), (copies, 2))
    inp = np.tile(np.array([np.nan, -1.0, -1.0, 0.0, 2.0, 5.0, -0.0], dtype=dtype), (copies, 2))
    results = []
    for lib in (torchpy, torch):
        g, x = lib.tensor(grad), lib.tensor(inp)
        if transposed:
            g, x = g.t(), x.t()
        out = lib.ops.aten.threshold_backward(g, x, 0)
        results.append((str(out.dtype), out.stride(), out.numpy().tobytes()))
    assert results[0] == results[1]
