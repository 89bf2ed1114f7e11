"""The backward ops formulas call (and the helpers they need) against torch: values, dtypes,
shapes, meta results and out= variants."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import Input, check, check_error

rng = np.random.default_rng(3)
G = rng.uniform(-1, 1, (3, 4))
Y = rng.uniform(0.1, 0.9, (3, 4))
SOFTMAX_Y = np.exp(G) / np.exp(G).sum(1, keepdims=True)
MASK = rng.uniform(size=(3, 4)) > 0.4


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("fn", [
    lambda t, g, y: t.ops.aten.tanh_backward(g, y),
    lambda t, g, y: t.ops.aten.sigmoid_backward(g, y),
    lambda t, g, y: t.ops.aten.threshold_backward(g, y, 0.5),
    lambda t, g, y: t.ops.aten._softmax_backward_data(g, y, 1, g.dtype),
    lambda t, g, y: t.ops.aten._log_softmax_backward_data(g, y.log(), 0, g.dtype),
    lambda t, g, y: t.ops.aten._softmax_backward_data(g, y, -1, g.dtype, grad_input=t.empty(3, 4, dtype=g.dtype)),
    lambda t, g, y: t.ops.aten.tanh_backward(g, y, grad_input=t.empty(3, 4, dtype=g.dtype)),
    lambda t, g, y: t.ops.aten.sigmoid_backward(g, y, grad_input=t.empty(0, dtype=g.dtype)),
    lambda t, g, y: t.ops.aten.tanh_backward(g.to("meta"), y.to("meta")),
])
def test_activation_and_softmax_backward(fn, dtype):
    check(fn, Input(G, dtype), Input(SOFTMAX_Y, dtype))


@pytest.mark.parametrize("fn", [
    lambda t, g: t.ops.aten.select_backward(g, [3, 5, 4], 1, -2),
    lambda t, g: t.ops.aten.select_backward(g, [2, 3, 4], 0, 1, out=t.empty(2, 3, 4, dtype=g.dtype)),
    lambda t, g: t.ops.aten.slice_backward(g, [3, 9], 1, 1, 9223372036854775807, 2),
    lambda t, g: t.ops.aten.slice_backward(g, [5, 4], 0, -3, 100, 1),
    lambda t, g: t.ops.aten.diagonal_backward(g, [5, 3, 4], 1, 2, 0),
    lambda t, g: t.ops.aten.diagonal_backward(g[0], [4, 4], 0, -1, 0),
    lambda t, g: t.ops.aten.unfold_backward(g.reshape(3, 2, 2), [3, 4], 1, 2, 2),
    lambda t, g: t.ops.aten.unfold_backward(g.reshape(3, 2, 2), [3, 3], -1, 2, 1),
    lambda t, g: t.ops.aten.unfold_backward(g.reshape(3, 2, 2), [3, 4], 1, 2, 2, out=t.empty(3, 4, dtype=g.dtype)),
    lambda t, g: t.ops.aten.masked_scatter_backward(g, t.tensor(MASK), [4, 5]),
    lambda t, g: t.ops.aten.masked_scatter_backward(g, t.tensor(MASK[0]), [12]),
    lambda t, g: t.ops.aten.select_backward(g.to("meta"), [3, 5, 4], 1, 0),
    lambda t, g: t.ops.aten.masked_scatter_backward(g.to("meta"), t.tensor(MASK).to("meta"), [4, 5]),
])
def test_view_backward_ops(fn):
    check(fn, G)


@pytest.mark.parametrize("fn", [
    lambda t, x: t.flip(x, [0, -1]),
    lambda t, x: x.flip(1),
    lambda t, x: x.t().flip([0]),
    lambda t, x: t.flip(x, []),
    lambda t, x: t.flip(x[0, 0], []),
    lambda t, x: t.flip(x.to("meta"), [1]),
    lambda t, x: t.ops.aten.flip.out(x, [1], out=t.empty(3, 4, dtype=x.dtype)),
    lambda t, x: t.scalar_tensor(2),
    lambda t, x: t.scalar_tensor(-1.5, dtype=t.float64),
    lambda t, x: t.scalar_tensor(True, dtype=t.int32, device="meta"),
    lambda t, x: t.ops.aten.scalar_tensor.out(3, out=t.empty(2, dtype=t.float64)),
    lambda t, x: t._unique(t.tensor([3, 1, 3, 2, 1])),
    lambda t, x: t._unique(t.tensor([[2.5, -1.0], [2.5, 0.0]]), True, True),
])
def test_flip_scalar_tensor_unique(fn):
    check(fn, G)


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("dims", [[0, 0], [1, 0, -1], [0, -2], [0, 0, 5], [0, 5, 0]])
def test_flip_rejects_repeated_dims(device, dims):
    # torch's CPU kernel names the dim, its meta rule does not (and wraps every dim first)
    check_error(lambda t, x: t.flip(x.to(device), dims), G)


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("fn", [
    lambda t, g: t.ops.aten.select_backward(g, [3, 5, 4], 4, 0),
    lambda t, g: t.ops.aten.select_backward(g, [3, 5, 4], 1, 7),
    lambda t, g: t.ops.aten.slice_backward(g, [3, 9], 2, 1, 9, 2),
    lambda t, g: t.ops.aten.diagonal_backward(g[0], [4, 4], 0, 3, 0),
    lambda t, g: t.ops.aten.unfold_backward(g.reshape(3, 2, 2), [3, 4], 2, 2, 2),
])
def test_view_backward_dim_checks(device, fn):
    # the CPU kernels check dims and index; torch's meta kernels take the sizes as given
    # (unfold_backward's still wraps its dim)
    import torch

    try:
        fn(torch, torch.tensor(G).to(device))
    except Exception:  # noqa: BLE001 - torch refuses: torchpy must refuse alike
        check_error(lambda t, g: fn(t, g.to(device)), G)
    else:
        check(lambda t, g: fn(t, g.to(device)), G)
