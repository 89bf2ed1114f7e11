"""Convolution and constant_pad_nd: gradients, node names and forward-mode tangents against torch
(the backward's aten calls, convolution_backward with its output_mask, are compared by
test_backward_dispatch.py, which collects these cases)."""

from __future__ import annotations

import pytest

from tests.autograd.test_formulas import check_grad, rand
from tests.autograd.test_forward_ad import check_jvp

X4, W4, B4 = rand(2, 4, 6, 5, seed=40), rand(6, 2, 3, 2, seed=41), rand(6, seed=42)
X3, W3 = rand(2, 3, 7, seed=43), rand(3, 2, 3, seed=44)

CONV = [
    (lambda t, x, w, b: t.nn.functional.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
     (X4, W4, B4), "ConvolutionBackward0"),
    (lambda t, x, w: t.nn.functional.conv2d(x, w, padding=1, groups=2), (X4, W4), "ConvolutionBackward0"),
    (lambda t, x, w: t.nn.functional.conv1d(x[0], w.transpose(0, 1)), (X3, W3), "SqueezeBackward1"),
    (lambda t, x, w: t.nn.functional.conv1d(x, w, padding="same"), (X3, rand(2, 3, 5, seed=45)),
     "ConvolutionBackward0"),
    (lambda t, x, w: t.nn.functional.conv_transpose1d(x, w, stride=2, output_padding=1), (X3, W3),
     "ConvolutionBackward0"),
    (lambda t, x, w, b: t.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=(1, 0), groups=2),
     (X4, rand(4, 3, 2, 3, seed=46), rand(6, seed=47)), "ConvolutionBackward0"),
    (lambda t, x, w: t.nn.functional.conv3d(x, w, stride=2, padding=1),
     (rand(1, 2, 4, 5, 3, seed=48), rand(3, 2, 2, 3, 2, seed=49)), "ConvolutionBackward0"),
    (lambda t, x: t.nn.functional.pad(x, (1, 2, -1, 0)), (X4,), "ConstantPadNdBackward0"),
]


@pytest.mark.parametrize("fn, inputs, name", CONV)
def test_convolution(fn, inputs, name):
    check_grad(fn, *inputs, name=name)


@pytest.mark.parametrize("fn, inputs, name", CONV)
def test_convolution_jvp(fn, inputs, name):
    check_jvp(fn, *inputs)


PADS = [
    (lambda t, x: t.nn.functional.pad(x, (2, -1), mode="reflect"), (X3,), "ReflectionPad1DBackward0"),
    (lambda t, x: t.nn.functional.pad(x, (1, 2, -1, 3), mode="reflect"), (X4,), "ReflectionPad2DBackward0"),
    (lambda t, x: t.nn.functional.pad(x, (1, 0, 2, 1, 0, 2), mode="reflect"), (X4,), "ReflectionPad3DBackward0"),
    (lambda t, x: t.nn.functional.pad(x, (2, -1), mode="replicate"), (X3,), "ReplicationPad1DBackward0"),
    (lambda t, x: t.nn.functional.pad(x, (3, 2, -1, 4), mode="replicate"), (X4,), "ReplicationPad2DBackward0"),
    (lambda t, x: t.nn.functional.pad(x, (1, 0, 2, 1, 0, 2), mode="replicate"), (X4,), "ReplicationPad3DBackward0"),
    (lambda t, x: t.nn.functional.pad(x, (1, 2, 0, 3), mode="circular"), (X4,), "torch::autograd::CopySlices"),
]


# the backward ops, called directly (their own gradient: the forward op on grad, zeros for self)
PAD_BACKWARDS = [
    (lambda t, g, x, name=name, n=n, pad=pad: getattr(t.ops.aten, f"{name}_pad{n}d_backward")(g, x, pad),
     (rand(*shape, seed=56), x), f"{name.capitalize()}Pad{n}DBackwardBackward0")
    for name in ("reflection", "replication")
    for n, x, pad, shape in ((1, X3, [2, -1], (2, 3, 8)), (2, X4, [1, 2, -1, 3], (2, 4, 8, 8)),
                             (3, X4, [1, 0, 2, 1, 0, 2], (2, 6, 9, 6)))
]


@pytest.mark.parametrize("fn, inputs, name", PADS)
def test_padding(fn, inputs, name):
    # circular padding is views and copies: its gradient does not depend on the input
    check_grad(fn, *inputs, name=name, second_order=not name.endswith("CopySlices"))


@pytest.mark.parametrize("fn, inputs, name", PAD_BACKWARDS)
def test_padding_backward_ops(fn, inputs, name):
    check_grad(fn, *inputs, name=name)


@pytest.mark.parametrize("fn, inputs, name", PADS)
def test_padding_jvp(fn, inputs, name):
    check_jvp(fn, *inputs)
