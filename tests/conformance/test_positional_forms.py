"""The generated positional fast paths (_aten/positional.py) for the forms hand-written bindings
used to take: unary and binary pointwise methods and functions with a tensor or a Python
number (the Scalar overload where the parser picks it, else a wrapped number), in-place
forms, clamp with int / float / None bounds by position or keyword, where, fill_,
unflatten, as_strided, sort / argsort / topk (named-tuple results), gather / index_select
and contiguous(). Each makes torch's aten call with the same result; a subclass keeping
Tensor's __torch_function__ and a TorchFunctionMode see them as under torch."""

import numpy as np
import pytest
import torch

import torchpy
from torchpy._aten import python_api

from .dispatch_log import assert_same_dispatch
from tests.oracle import check, randint, randn

LIBS = (torch, torchpy)

CALLS = {
    "x.exp()": lambda t, x, y: x.exp(), "x.sigmoid()": lambda t, x, y: x.sigmoid(),
    "x.abs()": lambda t, x, y: x.abs(), "x.isnan()": lambda t, x, y: x.isnan(),
    "t.exp(x)": lambda t, x, y: t.exp(x), "t.neg(x)": lambda t, x, y: t.neg(x),
    "x.exp_()": lambda t, x, y: x.clone().exp_(), "x.neg_()": lambda t, x, y: x.clone().neg_(),
    "x.add(y)": lambda t, x, y: x.add(y), "x.add(2)": lambda t, x, y: x.add(2),
    "x.add(2.5)": lambda t, x, y: x.add(2.5), "x.add(True)": lambda t, x, y: x.add(True),
    "x.mul(2)": lambda t, x, y: x.mul(2), "x.div(3)": lambda t, x, y: x.div(3),
    "x.sub(y)": lambda t, x, y: x.sub(y), "x.floor_divide(2)": lambda t, x, y: x.floor_divide(2),
    "x.eq(0)": lambda t, x, y: x.eq(0), "x.lt(0.5)": lambda t, x, y: x.lt(0.5), "x.ge(y)": lambda t, x, y: x.ge(y),
    "x.pow(2)": lambda t, x, y: x.pow(2), "x.pow(y)": lambda t, x, y: x.abs().pow(y),
    "x.remainder(2)": lambda t, x, y: x.remainder(2), "x.fmod(1.5)": lambda t, x, y: x.fmod(1.5),
    "x.maximum(y)": lambda t, x, y: x.maximum(y), "x.atan2(y)": lambda t, x, y: x.atan2(y),
    "t.add(x, 2)": lambda t, x, y: t.add(x, 2), "t.mul(x, y)": lambda t, x, y: t.mul(x, y),
    "t.eq(x, 0)": lambda t, x, y: t.eq(x, 0), "t.pow(x, 3)": lambda t, x, y: t.pow(x, 3),
    "x.add_(1)": lambda t, x, y: x.clone().add_(1), "x.mul_(y)": lambda t, x, y: x.clone().mul_(y),
    "x.div_(2.0)": lambda t, x, y: x.clone().div_(2.0),
    "x.clamp(0, 1)": lambda t, x, y: x.clamp(0, 1), "x.clamp(-0.5)": lambda t, x, y: x.clamp(-0.5),
    "x.clamp(None, 1)": lambda t, x, y: x.clamp(None, 1), "x.clamp(0.5, None)": lambda t, x, y: x.clamp(0.5, None),
    "x.clamp(min=0)": lambda t, x, y: x.clamp(min=0), "x.clamp(max=1)": lambda t, x, y: x.clamp(max=1),
    "x.clamp(min=0, max=1)": lambda t, x, y: x.clamp(min=0, max=1), "x.clamp(y, y)": lambda t, x, y: x.clamp(y, y),
    "x.clamp_(0, 1)": lambda t, x, y: x.clone().clamp_(0, 1), "x.clamp_min(0)": lambda t, x, y: x.clamp_min(0),
    "x.clamp_max(1)": lambda t, x, y: x.clamp_max(1), "t.clamp(x, 0, 1)": lambda t, x, y: t.clamp(x, 0, 1),
    "t.clamp(x, max=1)": lambda t, x, y: t.clamp(x, max=1), "t.clamp_min(x, 0.5)": lambda t, x, y: t.clamp_min(x, 0.5),
    "t.where(c, x, y)": lambda t, x, y: t.where(x > 0, x, y),
    "x.fill_(1)": lambda t, x, y: x.clone().fill_(1), "x.fill_(2.5)": lambda t, x, y: x.clone().fill_(2.5),
    "x.unflatten(1, (2, 2))": lambda t, x, y: x.unflatten(1, (2, 2)),
    "x.unflatten(0, [2, -1])": lambda t, x, y: x.unflatten(0, [2, -1]),
    "x.as_strided((2, 2), (1, 2))": lambda t, x, y: x.as_strided((2, 2), (1, 2)),
    "x.as_strided([2], [3], 1)": lambda t, x, y: x.as_strided([2], [3], 1),
    "x.as_strided((2, 2), (1, 2), None)": lambda t, x, y: x.as_strided((2, 2), (1, 2), None),
    "x.sort()": lambda t, x, y: x.sort(), "x.sort(0)": lambda t, x, y: x.sort(0),
    "x.sort(0, True)": lambda t, x, y: x.sort(0, True), "x.sort(-1, False)": lambda t, x, y: x.sort(-1, False),
    "x.sort(descending=True)": lambda t, x, y: x.sort(descending=True),
    "x.argsort()": lambda t, x, y: x.argsort(), "x.argsort(1, True)": lambda t, x, y: x.argsort(1, True),
    "x.topk(2)": lambda t, x, y: x.topk(2), "x.topk(2, 0)": lambda t, x, y: x.topk(2, 0),
    "x.topk(1, -1, False, True)": lambda t, x, y: x.topk(1, -1, False, True),
    "x.gather(1, i)": lambda t, x, y: x.gather(1, y.argsort(1)),
    "x.index_select(0, i)": lambda t, x, y: x.index_select(0, y[0].argsort()),
    "x.t().contiguous()": lambda t, x, y: x.t().contiguous(), "x.contiguous()": lambda t, x, y: x.contiguous(),
}


@pytest.mark.parametrize("name", CALLS)
def test_calls_dispatch_and_compute_as_torchs(name):
    assert_same_dispatch(CALLS[name], randn(4, 4), randn(4, 4, seed=1))
    check(CALLS[name], randn(4, 4), randn(4, 4, seed=1))


def test_named_tuple_results_are_torchs_return_types():
    for name in ("x.sort()", "x.sort(0, True)", "x.topk(2)"):
        result = CALLS[name](torchpy, torchpy.tensor(randn(4, 4)), None)
        expected = CALLS[name](torch, torch.tensor(randn(4, 4)), None)
        assert type(result).__name__ == type(expected).__name__
        assert type(result).__module__ == type(expected).__module__ == "torch.return_types"
        assert np.array_equal(result.indices.numpy(), expected.indices.numpy())


@pytest.fixture
def no_resolution(monkeypatch):
    """Fails a call that reaches overload resolution (the generated binding's slow path)."""

    def resolve(self, args, kwargs):
        raise AssertionError(f"{self.name} took overload resolution")

    monkeypatch.setattr(python_api.PythonOp, "__call__", resolve)


@pytest.mark.parametrize("name", [n for n in CALLS if n not in ("x.sort(descending=True)",)])
def test_plain_calls_take_the_fast_path(name, no_resolution):
    CALLS[name](torchpy, torchpy.tensor(randn(4, 4)), torchpy.tensor(randn(4, 4, seed=1)))


@pytest.mark.parametrize("name", ["x.exp()", "t.exp(x)", "x.add(y)", "x.add(2)", "x.eq(0)", "x.mul_(y)",
                                  "x.clamp(0, 1)", "t.where(c, x, y)", "x.sort()", "x.fill_(1)",
                                  "x.unflatten(1, (2, 2))", "x.gather(1, i)"])
def test_subclass_keeping_the_default_torch_function_gets_torchs_results(name):
    seen = []
    for lib in LIBS:
        Sub = type("Sub", (lib.Tensor,), {})
        x, y = lib.tensor(randn(4, 4)).as_subclass(Sub), lib.tensor(randn(4, 4, seed=1))
        out = CALLS[name](lib, x, y)
        values = tuple(out) if isinstance(out, tuple) else (out,)
        seen.append([(type(v).__name__, v.numpy()) for v in values])
    assert [name for name, _ in seen[0]] == [name for name, _ in seen[1]]
    assert all(np.allclose(a, b, rtol=1e-6) for (_, a), (_, b) in zip(*seen))


@pytest.mark.parametrize("name", ["x.exp()", "t.exp(x)", "x.add(y)", "x.add(2)", "x.eq(0)", "x.clamp(0, 1)",
                                  "t.where(c, x, y)", "x.sort()", "x.fill_(1)", "x.gather(1, i)"])
def test_subclass_calls_skip_overload_resolution(name, no_resolution):
    Sub = type("Sub", (torchpy.Tensor,), {})
    x, y = torchpy.tensor(randn(4, 4)).as_subclass(Sub), torchpy.tensor(randn(4, 4, seed=1))
    if name in ("x.exp()", "x.eq(0)", "x.clamp(0, 1)", "x.sort()", "x.fill_(1)"):
        out = CALLS[name](torchpy, x, y)
        assert type(out[0] if isinstance(out, tuple) else out) is Sub
    else:
        CALLS[name](torchpy, y, x)  # the subclass second


@pytest.mark.parametrize("name", ["x.exp()", "t.exp(x)", "x.add(y)", "x.add(2)", "x.eq(0)", "x.add_(1)",
                                  "x.clamp(0, 1)", "x.clamp(max=1)", "t.where(c, x, y)", "x.sort()", "x.topk(2)",
                                  "x.fill_(1)", "x.unflatten(1, (2, 2))", "x.as_strided((2, 2), (1, 2))",
                                  "x.gather(1, i)", "x.index_select(0, i)", "x.t().contiguous()"])
def test_function_mode_sees_the_call_as_under_torch(name):
    logs = []
    for lib in LIBS:
        log = []

        class Logging(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                log.append((func.__name__, len(args), sorted(kwargs or {})))
                return func(*args, **(kwargs or {}))

        x, y = lib.tensor(randn(4, 4)), lib.tensor(randn(4, 4, seed=1))
        with Logging():
            CALLS[name](lib, x, y)
        logs.append(log)
    assert logs[0] == logs[1]


def test_a_subclass_with_its_own_torch_function_sees_the_call():
    seen = []

    class Sub(torchpy.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    x = torchpy.tensor(randn(4, 4)).as_subclass(Sub)
    x.exp(), x.add(2), torchpy.exp(x), x.clamp(0, 1), x.sort(), x.fill_(1)
    assert seen == ["exp", "add", "exp", "clamp", "sort", "fill_"]


def test_int_tensor_numbers_promote_as_torchs():
    for program in (lambda t, x: x.add(2.5), lambda t, x: x.mul(True), lambda t, x: x.div(2),
                    lambda t, x: x.clamp(0.5), lambda t, x: x.eq(1.0), lambda t, x: x.pow(2)):
        assert_same_dispatch(program, randint(-3, 3, 4))
        check(program, randint(-3, 3, 4))


def test_large_float_number_is_wrapped_without_a_warning(recwarn):
    x = torchpy.tensor(np.ones(2, np.float32))
    assert x.mul(1e300).tolist() == torch.ones(2).mul(1e300).tolist()
    assert not [w for w in recwarn if "overflow" in str(w.message)]
