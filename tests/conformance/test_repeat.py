"""Tensor.repeat and torch.tile against torch: values, shapes, strides, meta and out=, errors,
gradients, and the aten ops a dispatch mode sees forward and backward."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.utils._python_dispatch

import torchpy
import torchpy.utils._python_dispatch

from tests.oracle import Input, check, check_error

X = np.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("fn", [
    lambda t, x: x.repeat(2, 1),
    lambda t, x: x.repeat(1, 3),
    lambda t, x: x.repeat([2, 2, 2]),
    lambda t, x: x.repeat(3, 1, 1, 2),
    lambda t, x: x.repeat(0, 2),
    lambda t, x: x.t().repeat(2, 2),
    lambda t, x: x[0].repeat(4),
    lambda t, x: x[0, 0].repeat(()),
    lambda t, x: x[0, 0].repeat(3, 2),
    lambda t, x: x.to(t.int64).repeat(2, 1),
    lambda t, x: x.to("meta").repeat(2, 1, 3),
    lambda t, x: t.ops.aten.repeat.out(x, [2, 1], out=t.empty(4, 3, dtype=x.dtype)),
    lambda t, x: t.tile(x, (2,)),
    lambda t, x: t.tile(x, (2, 1, 2)),
    lambda t, x: x.tile(3, 1),
    lambda t, x: x.repeat(2, 1).stride(),
])
def test_repeat_and_tile_as_torch(fn):
    check(fn, X)


@pytest.mark.parametrize("fn", [
    lambda t, x: x.repeat(2),
    lambda t, x: x.repeat(-1, 2),
    lambda t, x: x.repeat(2.0, 1),
    lambda t, x: x.repeat(1, "a"),
    lambda t, x: x.to("meta").repeat(2, -1),  # torch's meta rule names the repeat, not the size
    lambda t, x: x.to("meta").repeat(-1, 0, -2),
    lambda t, x: x.to("meta").repeat(-1),
])
def test_repeat_errors_as_torch(fn):
    check_error(fn, X)


@pytest.mark.parametrize("repeats", [(2, 1), (1, 3), (2, 2, 2), (3, 1, 1, 2), (1, 1), (0, 2)])
def test_repeat_gradients_as_torch(repeats):
    grads = []
    for lib in (torch, torchpy):
        x = lib.tensor(X, requires_grad=True)
        weights = lib.arange(float(np.prod(np.array(X.shape + (1,) * 2)[:0]) or 1))  # a scalar weight
        y = x.repeat(*repeats)
        (y * lib.arange(float(y.numel())).reshape(y.shape) * weights).sum().backward()
        grads.append((type(y.grad_fn).__name__, x.grad.tolist()))
    assert grads[0] == grads[1]


def test_repeat_dispatch_log_forward_and_backward_as_torch():
    logs = []
    for lib in (torch, torchpy):
        log = []

        class Logging(lib.utils._python_dispatch.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                log.append((str(func), [list(a.shape) if isinstance(a, lib.Tensor) else a for a in args]))
                return func(*args, **(kwargs or {}))

        x = lib.tensor(X, requires_grad=True)
        with Logging():
            y = x.repeat(2, 1, 2)
            y.sum().backward()
            lib.tile(x, (2,))
            x.repeat(0, 1).sum().backward()
        logs.append(log)
    assert logs[0] == logs[1]
