"""Convolutions against torch: F.conv*/conv_transpose* values and gradients, the aten calls a
dispatch mode sees (forward and backward), shape / option errors with torch's messages, and
nn.Conv*/ConvTranspose* modules (initial weights under a seed, repr, state_dict, forward)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import torchpy
from tests.conformance.dispatch_log import dispatch_log
from tests.nn.helpers import check
from tests.oracle import EXACT, scaled

SUMS = scaled(rtol=1e-5, atol=1e-5)  # every output is a sum over channels and the kernel


def _data(*shape, seed=0):
    return np.random.RandomState(seed).randn(*shape)


# (label, fn(F, x, w, b), x shape, w shape, bias size or None)
CONVS = [
    ("2d", lambda F, x, w, b: F.conv2d(x, w, b, padding=1), (2, 3, 8, 8), (4, 3, 3, 3), 4),
    ("2d-stride-dil-groups", lambda F, x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=(2, 1),
                                                          groups=2), (2, 4, 9, 8), (6, 2, 3, 2), 6),
    ("2d-unbatched", lambda F, x, w, b: F.conv2d(x, w, b), (3, 6, 5), (2, 3, 2, 2), None),
    ("2d-same", lambda F, x, w, b: F.conv2d(x, w, b, padding="same"), (2, 3, 7, 8), (4, 3, 3, 5), 4),
    ("2d-same-even", lambda F, x, w, b: F.conv2d(x, w, b, padding="same", dilation=(1, 3)), (2, 3, 7, 8),
     (4, 3, 2, 4), None),
    ("2d-valid", lambda F, x, w, b: F.conv2d(x, w, b, padding="valid"), (2, 3, 7, 8), (4, 3, 3, 5), None),
    ("1d", lambda F, x, w, b: F.conv1d(x, w, b, stride=2, padding=1), (2, 3, 10), (4, 3, 3), 4),
    ("1d-same", lambda F, x, w, b: F.conv1d(x, w, b, padding="same"), (2, 3, 10), (4, 3, 4), None),
    ("3d", lambda F, x, w, b: F.conv3d(x, w, b, stride=2, padding=1, dilation=(1, 2, 1)), (2, 2, 6, 7, 5),
     (4, 2, 3, 2, 3), 4),
    ("t1d", lambda F, x, w, b: F.conv_transpose1d(x, w, b, stride=3), (2, 3, 5), (3, 2, 4), 2),
    ("t2d", lambda F, x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1), (2, 3, 5, 4),
     (3, 4, 3, 3), 4),
    ("t2d-groups-dil", lambda F, x, w, b: F.conv_transpose2d(x, w, b, (2, 3), (0, 1), (1, 0), 2, (2, 1)),
     (2, 4, 5, 4), (4, 3, 3, 2), 6),
    ("t2d-unbatched", lambda F, x, w, b: F.conv_transpose2d(x, w, b), (3, 5, 4), (3, 2, 3, 3), None),
    ("t3d", lambda F, x, w, b: F.conv_transpose3d(x, w, b, stride=2, padding=1), (1, 2, 3, 4, 3), (2, 3, 3, 3, 2),
     3),
]


def _program(fn, xs, ws, bs, dtype="float64"):
    def program(lib):
        d = getattr(lib, dtype)
        x = lib.tensor(_data(*xs), dtype=d, requires_grad=True)
        w = lib.tensor(_data(*ws, seed=1), dtype=d, requires_grad=True)
        b = None if bs is None else lib.tensor(_data(bs, seed=2), dtype=d, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = fn(lib.nn.functional, x, w, b)
        y.backward(lib.tensor(_data(*y.shape, seed=3), dtype=d))
        return y, type(y.grad_fn).__name__, x.grad, w.grad, None if b is None else b.grad

    return program


@pytest.mark.parametrize("label, fn, xs, ws, bs", CONVS, ids=[c[0] for c in CONVS])
def test_values_and_gradients(label, fn, xs, ws, bs):
    check(_program(fn, xs, ws, bs), policy=SUMS)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_dtypes(dtype):
    fn, xs, ws, bs = CONVS[1][1:]
    policy = SUMS if dtype == "float32" else scaled(rtol=2e-2, atol=2e-2)
    check(_program(fn, xs, ws, bs, dtype), policy=policy)


def test_integer_convolution_and_empty_batch():
    def program(lib):
        x = lib.arange(2 * 3 * 5 * 4).reshape(2, 3, 5, 4)
        w = lib.arange(4 * 3 * 2 * 2).reshape(4, 3, 2, 2) - 20
        empty = lib.nn.functional.conv2d(lib.ones(0, 3, 5, 4), w.float())
        return lib.nn.functional.conv2d(x, w, stride=2), empty

    check(program, policy=EXACT)


def test_channels_last_input_gives_channels_last_result():
    def program(lib):
        x = lib.tensor(_data(2, 4, 6, 5), dtype=lib.float32).to(memory_format=lib.channels_last)
        y = lib.nn.functional.conv2d(x, lib.tensor(_data(3, 4, 3, 3, seed=1), dtype=lib.float32), padding=1)
        return y, y.stride(), y.is_contiguous(memory_format=lib.channels_last)

    check(program, policy=SUMS)


def test_meta_shapes():
    def program(lib):
        x = lib.empty(2, 4, 9, 8, device="meta")
        y = lib.nn.functional.conv2d(x, lib.empty(6, 2, 3, 2, device="meta"), stride=(2, 1), padding=1, groups=2)
        t = lib.nn.functional.conv_transpose2d(x, lib.empty(4, 3, 3, 3, device="meta"), stride=2, output_padding=1)
        return y.shape, y.device.type, t.shape

    check(program)


def _log(lib, x, w, b, fn):
    # the inputs are made outside the mode (dispatch_log converts them), so only the conv is logged
    for t in (x, w, b):
        if t is not None:
            t.requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = fn(lib.nn.functional, x, w, b)
    y.sum().backward()


@pytest.mark.parametrize("label, fn, xs, ws, bs", CONVS, ids=[c[0] for c in CONVS])
def test_dispatch_log_forward_and_backward(label, fn, xs, ws, bs):
    # forward and backward both run under the mode: convolution, then convolution_backward
    inputs = (_data(*xs), _data(*ws, seed=1), None if bs is None else _data(bs, seed=2), fn)
    assert dispatch_log(torchpy, _log, *inputs) == dispatch_log(torch, _log, *inputs)


def test_dispatch_log_frozen_weight_masks_its_gradient():
    def program(lib, x, w, b):
        x.requires_grad_()
        b.requires_grad_()
        lib.nn.functional.conv2d(x, w, b).sum().backward()

    inputs = (_data(1, 2, 5, 5), _data(3, 2, 3, 3), _data(3))
    assert dispatch_log(torchpy, program, *inputs) == dispatch_log(torch, program, *inputs)


X, W = _data(2, 4, 8, 8), _data(6, 4, 3, 3)
ERRORS = [
    lambda F, t: F.conv2d(t.tensor(X), t.randn(6, 3, 3, 3)),
    lambda F, t: F.conv2d(t.tensor(X), t.tensor(W), groups=3),
    lambda F, t: F.conv2d(t.tensor(X), t.randn(5, 2, 3, 3), groups=2),
    lambda F, t: F.conv2d(t.tensor(X), t.tensor(W), t.randn(5).double()),
    lambda F, t: F.conv2d(t.tensor(X), t.randn(6, 4, 9, 9).double()),
    lambda F, t: F.conv2d(t.tensor(X), t.tensor(W), stride=0),
    lambda F, t: F.conv2d(t.tensor(X), t.tensor(W), padding=-1),
    lambda F, t: F.conv2d(t.tensor(X), t.tensor(W), dilation=0),
    lambda F, t: F.conv2d(t.tensor(X), t.tensor(W), groups=0),
    lambda F, t: F.conv2d(t.randn(8, 8).double(), t.tensor(W)),
    lambda F, t: F.conv2d(t.tensor(X), t.randn(6, 4, 3).double()),
    lambda F, t: F.conv2d(t.tensor(X), t.tensor(W), padding="foo"),
    lambda F, t: F.conv2d(t.tensor(X), t.tensor(W), padding="same", stride=2),
    lambda F, t: F.conv2d(t.tensor(X).float(), t.tensor(W)),
    lambda F, t: F.conv2d(t.tensor(X), t.tensor(W), t.randn(6)),
    lambda F, t: F.conv2d(t.randn(2, 4, 0, 8).double(), t.tensor(W)),
    lambda F, t: F.conv_transpose2d(t.tensor(X), t.randn(4, 2, 3, 3).double(), output_padding=1),
    lambda F, t: F.conv_transpose1d(t.randn(2, 4, 8), t.randn(4, 2, 3), output_padding=1),
    lambda F, t: F.conv_transpose3d(t.randn(2, 4, 3, 3, 3), t.randn(4, 2, 3, 3, 3), output_padding=(0, 0, 1)),
    lambda F, t: F.conv_transpose2d(t.tensor(X), t.randn(3, 2, 3, 3).double()),
    lambda F, t: F.conv_transpose2d(t.tensor(X), t.randn(4, 2, 3, 3).double(), t.randn(3).double()),
    lambda F, t: F.conv1d(t.randn(8), t.randn(4, 3, 3)),
    lambda F, t: t.ops.aten.convolution(t.randn(4, 8, 8), t.randn(6, 4, 3, 3), None, [1], [0], [1], False, [0], 1),
    lambda F, t: t.ops.aten.convolution(t.randn(2, 4, 8, 8), t.randn(6, 4, 3, 3), None, [1, 1, 1], [0], [1], False,
                                        [0], 1),
    lambda F, t: t.ops.aten.convolution(t.randn(2, 4, 8, 8), t.randn(6, 4, 3, 3), None, [1], [0], [1], False, [-1],
                                        1),
    lambda F, t: t.ops.aten.convolution(t.randn(2, 4, 8, 8), t.randn(6, 4, 3, 3), None, [1], [0], [1], False, [0],
                                        12),
    lambda F, t: F.pad(t.randn(2, 3), (1, 2, 3)),
    lambda F, t: F.pad(t.randn(2, 3), (1, 2, 3, 4, 5, 6)),
    lambda F, t: F.pad(t.randn(2, 3), (-2, -2)),
    lambda F, t: F.pad(t.randn(2, 3, 4), (5, 5), mode="reflect"),
    lambda F, t: F.pad(t.randn(2, 3, 4, 5), (1, 1, 5, 5), mode="reflect"),
    lambda F, t: F.pad(t.randn(2, 3, 4, 5), (1, 1, -3, -3), mode="replicate"),
    lambda F, t: F.pad(t.randn(2, 3, 4, 4), (5, 5, 1, 1), mode="circular"),
    lambda F, t: F.pad(t.randn(2, 3, 4, 4), (1, 1, 1, 1), mode="replicate", value=1.0),
]


NOT_IMPLEMENTED = [
    lambda F, t: F.pad(t.randn(2, 3, 4, 4), (4, 4), mode="reflect"),
    lambda F, t: F.pad(t.randn(3), (1, 1), mode="replicate"),
    lambda F, t: F.pad(t.randn(2, 3, 4, 4), (1, 1), mode="foo"),
    lambda F, t: F.conv2d(t.tensor(X) > 0, t.tensor(W) > 0),
]


@pytest.mark.parametrize("index", range(len(NOT_IMPLEMENTED)))
def test_not_implemented_errors(index):
    check(lambda t: NOT_IMPLEMENTED[index](t.nn.functional, t), expect_error=NotImplementedError)


PAD_MODES = [(mode, shape, pad) for mode in ("reflect", "replicate", "circular")
             for shape, pad in (((2, 3, 5), (2, 1)), ((3, 5), (1, 3)), ((2, 3, 4, 5), (1, 2, 3, 0)),
                                ((2, 2, 3, 4, 5), (1, 1, 2, 0, 1, 2)), ((3, 4, 5), (-1, 2, 1, -2)))]


@pytest.mark.parametrize("mode, shape, pad", PAD_MODES)
def test_pad_modes_values_and_gradients(mode, shape, pad):
    def program(lib):
        x = lib.tensor(_data(*shape), requires_grad=True)
        y = lib.nn.functional.pad(x, pad, mode=mode)
        y.backward(lib.tensor(_data(*y.shape, seed=1)))
        return y, type(y.grad_fn).__name__, x.grad

    check(program, policy=SUMS)


@pytest.mark.parametrize("mode, shape, pad", PAD_MODES[::2])
def test_pad_modes_dispatch_log(mode, shape, pad):
    def program(lib, x):
        x.requires_grad_()
        lib.nn.functional.pad(x, pad, mode=mode).sum().backward()

    assert dispatch_log(torchpy, program, _data(*shape)) == dispatch_log(torch, program, _data(*shape))


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors(index):
    check(lambda t: ERRORS[index](t.nn.functional, t), expect_error=RuntimeError)


def test_constant_pad():
    def program(lib):
        x = lib.arange(6.0).reshape(2, 3)
        return (lib.nn.functional.pad(x, (1, 2)), lib.nn.functional.pad(x, (-1, 2, 1, -1), value=7.0),
                lib.constant_pad_nd(x.long(), [1, 1], 2.5), lib.nn.functional.pad(x, (0, 0, 0, 0)))

    check(program, policy=EXACT)


# --- modules -------------------------------------------------------------------------------------

MODULES = [
    ("Conv1d", (4, 6, 3), {}),
    ("Conv2d", (1, 8, 3), {}),
    ("Conv2d", (4, 6, (3, 2)), dict(stride=2, padding=1, dilation=2, groups=2, bias=False)),
    ("Conv2d", (3, 5, 4), dict(padding="same", dilation=(1, 2))),
    ("Conv2d", (3, 5, 3), dict(padding="valid", dtype="float64")),
    ("Conv3d", (2, 4, 3), dict(padding=(1, 0, 1), stride=(1, 2, 1))),
    ("ConvTranspose1d", (2, 4, 3), dict(groups=2, stride=2)),
    ("ConvTranspose2d", (4, 6, 3), dict(output_padding=1, stride=2, padding=1)),
    ("ConvTranspose2d", (4, 6, 3), dict(dilation=2, bias=False)),
    ("ConvTranspose3d", (2, 4, 2), {}),
    ("Conv1d", (2, 4, 3), dict(padding=2, padding_mode="reflect")),
    ("Conv2d", (2, 4, 3), dict(padding=(1, 2), padding_mode="replicate", stride=2)),
    ("Conv2d", (2, 4, 3), dict(padding="same", padding_mode="circular")),
    ("Conv3d", (2, 4, 2), dict(padding=1, padding_mode="circular")),
    ("Conv2d", (2, 4, 4), dict(padding="same", padding_mode="reflect", dilation=2)),
]


def _module(lib, cls, args, kwargs):
    kwargs = dict(kwargs)
    if "dtype" in kwargs:
        kwargs["dtype"] = getattr(lib, kwargs["dtype"])
    return getattr(lib.nn, cls)(*args, **kwargs)


@pytest.mark.parametrize("cls, args, kwargs", MODULES)
def test_module_init_under_seed_repr_and_state_dict(cls, args, kwargs):
    def program(lib):
        lib.manual_seed(0)
        m = _module(lib, cls, args, kwargs)
        state = m.state_dict()
        return repr(m), list(state), [v for v in state.values()], m.weight.dtype

    check(program, policy=EXACT)


@pytest.mark.parametrize("cls, args, kwargs", MODULES)
def test_module_forward_backward(cls, args, kwargs):
    def program(lib):
        lib.manual_seed(1)
        m = _module(lib, cls, args, kwargs)
        spatial = int(cls[-2])
        x = lib.tensor(_data(2, args[0], *(7,) * spatial), dtype=m.weight.dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = m(x)
        y.sum().backward()
        return y, [p.grad for p in m.parameters()]

    check(program, policy=SUMS)


def test_module_with_padding_mode_dispatch_log():
    def program(lib, x):
        lib.manual_seed(0)
        m = lib.nn.Conv2d(3, 4, 3, padding=1, padding_mode="reflect")
        m(x).sum().backward()

    x = _data(2, 3, 6, 6).astype(np.float32)
    assert dispatch_log(torchpy, program, x) == dispatch_log(torch, program, x)


def test_conv_transpose_output_size():
    def program(lib):
        lib.manual_seed(2)
        m = lib.nn.ConvTranspose2d(3, 2, 3, stride=2)
        x = lib.tensor(_data(1, 3, 4, 4), dtype=lib.float32)
        return m(x, output_size=[10, 10]), m(x, output_size=[1, 2, 9, 10]).shape

    check(program, policy=SUMS)


MODULE_ERRORS = [
    lambda nn: nn.Conv2d(4, 6, 3, groups=3),
    lambda nn: nn.Conv2d(4, 9, 3, groups=2),
    lambda nn: nn.Conv2d(4, 6, 3, groups=0),
    lambda nn: nn.Conv2d(4, 6, 3, padding="same", stride=2),
    lambda nn: nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect"),
    lambda nn: nn.ConvTranspose2d(3, 2, 3, stride=2)(nn.Parameter(nn.init.zeros_(nn.Conv2d(1, 3, 1).weight.new_empty(
        1, 3, 4, 4))), output_size=[12, 12]),
]


@pytest.mark.parametrize("index", range(len(MODULE_ERRORS)))
def test_module_errors(index):
    check(lambda t: MODULE_ERRORS[index](t.nn), expect_error=ValueError)


def test_module_option_errors_with_sets_in_the_message():
    # the message prints a set, whose order differs between runs: compare the type and the start
    for fn in (lambda nn: nn.Conv2d(4, 6, 3, padding_mode="foo"), lambda nn: nn.Conv2d(4, 6, 3, padding="bar")):
        errors = []
        for lib in (torch, torchpy):
            with pytest.raises(ValueError) as info:
                fn(lib.nn)
            errors.append(str(info.value).split("{")[0])
        assert errors[0] == errors[1]
