"""Adaptive pooling: gradients (first and second order), node names and forward-mode tangents
against torch, through nn.functional, the aten ops, and the backward ops the formulas call."""

from __future__ import annotations

import numpy as np
import pytest

from tests.autograd.test_formulas import Const, Strided, check_grad, rand
from tests.autograd.test_forward_ad import check_jvp

X4 = rand(2, 3, 7, 5, seed=30)      # (N, C, H, W); uniform values, so no ties in max pooling
X3 = rand(3, 7, 5, seed=31)          # unbatched
X5 = rand(2, 2, 5, 4, 3, seed=32)
IDX2 = Const(np.array([[[[0, 9], [15, 34]], [[3, 3], [20, 28]]]]), "int64")  # (1, 2, 2, 2) into 7 * 5
IDX3 = Const(np.array([[[[[0, 59], [7, 7]]]], [[[[12, 30], [44, 1]]]]]), "int64")  # (2, 1, 1, 2, 2) into 5 * 4 * 3


@pytest.mark.parametrize("fn, inputs, name", [
    (lambda t, x: t.nn.functional.adaptive_avg_pool1d(x[0], 3), (X4,), "SqueezeBackward1"),
    (lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, (3, None)), (X4,), "AdaptiveAvgPool2DBackward0"),
    (lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, 4), (Strided(X3),), "AdaptiveAvgPool2DBackward0"),
    (lambda t, x: t.nn.functional.adaptive_avg_pool3d(x, (2, 3, 2)), (X5,), "AdaptiveAvgPool3DBackward0"),
    (lambda t, x: t.nn.functional.adaptive_max_pool1d(x[0], 3), (X4,), "SqueezeBackward1"),
    (lambda t, x: t.nn.functional.adaptive_max_pool2d(x, (3, 2), True), (X4,), "AdaptiveMaxPool2DBackward0"),
    (lambda t, x: t.nn.functional.adaptive_max_pool2d(x, 6), (Strided(X3),), "AdaptiveMaxPool2DBackward0"),
    (lambda t, x: t.nn.functional.adaptive_max_pool3d(x, 2), (X5,), "AdaptiveMaxPool3DBackward0"),
])
def test_pooling(fn, inputs, name):
    check_grad(fn, *inputs, name=name, second_order=True)


def test_global_average_is_a_mean():
    check_grad(lambda t, x: t.nn.functional.adaptive_avg_pool2d(x, 1), X4, name="MeanBackward1")


@pytest.mark.parametrize("fn, inputs, name", [
    (lambda t, g, x: t.ops.aten._adaptive_avg_pool2d_backward(g, x), (rand(2, 3, 3, 2, seed=33), X4),
     "AdaptiveAvgPool2DBackwardBackward0"),
    (lambda t, g, x: t.ops.aten._adaptive_avg_pool3d_backward(g, x), (rand(2, 2, 3, 2, 2, seed=34), X5),
     "AdaptiveAvgPool3DBackwardBackward0"),
    (lambda t, g, x, i: t.ops.aten.adaptive_max_pool2d_backward(g, x, i), (rand(1, 2, 2, 2, seed=35), X4[:1, :2], IDX2),
     "AdaptiveMaxPool2DBackwardBackward0"),
    (lambda t, g, x, i: t.ops.aten.adaptive_max_pool3d_backward(g, x, i), (rand(2, 1, 1, 2, 2, seed=36), X5[:, :1], IDX3),
     "AdaptiveMaxPool3DBackwardBackward0"),
])
def test_backward_ops(fn, inputs, name):
    # linear in grad_output and constant in self: no second order to compare
    check_grad(fn, *inputs, name=name)


JVP_CASES = {
    "avg1d": lambda L, x: L.nn.functional.adaptive_avg_pool1d(x[0], 3),
    "avg2d": lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, (3, 2)),
    "avg2d-global": lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, 1),
    "avg3d": lambda L, x: L.nn.functional.adaptive_avg_pool3d(x, 2),
    "max1d": lambda L, x: tuple(L.nn.functional.adaptive_max_pool1d(x[0], 3, True)),
    "max2d": lambda L, x: tuple(L.nn.functional.adaptive_max_pool2d(x, (3, 2), True)),
    "max2d-unbatched": lambda L, x: tuple(L.nn.functional.adaptive_max_pool2d(x[0], 4, True)),
    "max3d": lambda L, x: tuple(L.nn.functional.adaptive_max_pool3d(x, 2, True)),
    "avg2d-backward": lambda L, x: L.ops.aten._adaptive_avg_pool2d_backward(x[:, :, :3, :2], x),
    "avg3d-backward": lambda L, x: L.ops.aten._adaptive_avg_pool3d_backward(x[:, :2, :3, :2], x),
}


@pytest.mark.parametrize("name", sorted(JVP_CASES))
def test_tangents(name):
    check_jvp(JVP_CASES[name], rand(2, 3, 7, 5, seed=37))


@pytest.mark.parametrize("op, spatial", [("adaptive_max_pool2d_backward", 2), ("adaptive_max_pool3d_backward", 3)])
def test_max_backward_tangents(op, spatial):
    x = rand(*((2, 3, 7, 5) if spatial == 2 else (2, 2, 5, 4, 3)), seed=38)
    sizes = [3, 2] if spatial == 2 else [2, 3, 2]

    def fn(L, g, x):
        _, indices = getattr(L.ops.aten, op.removesuffix("_backward"))(x, sizes)
        return getattr(L.ops.aten, op)(g, x, indices)

    grad_shape = x.shape[: x.ndim - spatial] + tuple(sizes)
    check_jvp(fn, rand(*grad_shape, seed=39), x)
