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
