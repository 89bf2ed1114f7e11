"""torch functions whose first argument is not a Tensor, with positional fast paths generated
from the schema (_aten/positional_functions.py): factories (zeros(2, 3), arange(1, 10, 2),
full((2,), 1.5), rand(4, dtype=...)) and functions of a tensor list (cat, stack). Each fast form
must make the aten call torch makes (what a TorchDispatchMode sees), give torch's result, be
seen by a TorchFunctionMode as a call of the public function, and skip the overload resolver;
every other form must take the resolver and still match torch.
"""

import pytest
import torch

import torchpy
from torchpy._aten.python_api import PythonOp

from .dispatch_log import _describe, assert_same_dispatch
from tests.oracle import check, check_error, randn


def layout(t):
    """What an uninitialized tensor can be compared by."""
    return (t.shape, t.dtype, t.stride(), str(t.device))


def seeded(fn):
    def run(t, *args):
        t.manual_seed(0)
        return fn(t, *args)
    return run


A, B = randn(2, 3), randn(2, 3, seed=1)

# (what the call is, fn(lib, a, b)): the forms the fast paths take
FAST = [
    ("zeros varargs", lambda t, a, b: t.zeros(2, 3)),
    ("zeros tuple", lambda t, a, b: t.zeros((2, 3))),
    ("zeros list", lambda t, a, b: t.zeros([4])),
    ("zeros Size", lambda t, a, b: t.zeros(a.shape)),
    ("zeros empty size", lambda t, a, b: t.zeros(())),
    ("zeros dtype", lambda t, a, b: t.zeros(4, dtype=t.float64)),
    ("ones dtype int", lambda t, a, b: t.ones(2, 2, dtype=t.int32)),
    ("empty", lambda t, a, b: layout(t.empty(5))),
    ("empty tuple dtype", lambda t, a, b: layout(t.empty((2, 3), dtype=t.float16))),
    ("rand", seeded(lambda t, a, b: t.rand(4))),
    ("randn", seeded(lambda t, a, b: t.randn(3, 3))),
    ("rand dtype", seeded(lambda t, a, b: t.rand(2, dtype=t.float64))),
    ("zeros device", lambda t, a, b: t.zeros(2, device="cpu")),
    ("zeros device object", lambda t, a, b: t.zeros(2, device=t.device("cpu"))),
    ("zeros meta", lambda t, a, b: layout(t.zeros(2, 3, device="meta"))),
    ("zeros options", lambda t, a, b: t.zeros(2, dtype=t.float64, layout=t.strided, device="cpu",
                                              pin_memory=False, requires_grad=True)),
    ("ones requires_grad", lambda t, a, b: t.ones(3, requires_grad=True)),
    ("zeros None options", lambda t, a, b: t.zeros(2, dtype=None, device=None, layout=None, pin_memory=None,
                                                   requires_grad=None)),
    ("arange end", lambda t, a, b: t.arange(10)),
    ("arange start end", lambda t, a, b: t.arange(1, 10)),
    ("arange step", lambda t, a, b: t.arange(1, 10, 2)),
    ("arange default step", lambda t, a, b: t.arange(1, 10, 1)),
    ("arange float step 1", lambda t, a, b: t.arange(0, 5, 1.0)),
    ("arange float start", lambda t, a, b: t.arange(0.0, 5, 1)),
    ("arange floats", lambda t, a, b: t.arange(0, 1, 0.25)),
    ("arange float end", lambda t, a, b: t.arange(2.5)),
    ("arange dtype", lambda t, a, b: t.arange(5, dtype=t.float32)),
    ("full", lambda t, a, b: t.full((2, 3), 1.5)),
    ("full int", lambda t, a, b: t.full([2], 7)),
    ("full dtype", lambda t, a, b: t.full((2,), 1.0, dtype=t.float64)),
    ("eye", lambda t, a, b: t.eye(3)),
    ("eye m", lambda t, a, b: t.eye(2, 4)),
    ("linspace", lambda t, a, b: t.linspace(0, 1, 5)),
    ("randint", seeded(lambda t, a, b: t.randint(10, (3,)))),
    ("randint low", seeded(lambda t, a, b: t.randint(3, 10, [2, 2]))),
    ("empty_strided", lambda t, a, b: layout(t.empty_strided((2, 3), (1, 2)))),
    ("scalar_tensor", lambda t, a, b: t.scalar_tensor(2.5)),
    ("cat list", lambda t, a, b: t.cat([a, b])),
    ("cat dim 0", lambda t, a, b: t.cat([a, b], 0)),
    ("cat dim 1", lambda t, a, b: t.cat([a, b], 1)),
    ("cat dim -1", lambda t, a, b: t.cat((a, b), -1)),
    ("cat dim keyword", lambda t, a, b: t.cat([a, b], dim=1)),
    ("concat", lambda t, a, b: t.concat([a, b], 1)),
    ("concatenate", lambda t, a, b: t.concatenate((a, b))),
    ("stack tuple", lambda t, a, b: t.stack((a, b))),
    ("stack dim", lambda t, a, b: t.stack([a, b], 2)),
    ("stack dim keyword 0", lambda t, a, b: t.stack([a, b], dim=0)),
    ("hstack", lambda t, a, b: t.hstack([a, b])),
    ("vstack", lambda t, a, b: t.vstack((a, b))),
    ("dstack", lambda t, a, b: t.dstack([a, b])),
    ("column_stack", lambda t, a, b: t.column_stack([a, b])),
    ("randperm", seeded(lambda t, a, b: t.randperm(6))),
]

# forms that take the overload resolver (other keywords, values to convert, other types)
GENERAL = [
    ("zeros out", lambda t, a, b: t.zeros(2, 3, out=t.empty(6))),
    ("rand generator", lambda t, a, b: t.rand(3, generator=t.Generator().manual_seed(1))),
    ("empty memory_format", lambda t, a, b: layout(t.empty(2, 3, memory_format=t.contiguous_format))),
    ("zeros python dtype", lambda t, a, b: t.zeros(2, dtype=float)),
    ("arange bool", lambda t, a, b: t.arange(True)),
    ("arange out", lambda t, a, b: t.arange(3, out=t.empty(3, dtype=t.int64))),
    ("full bool", lambda t, a, b: t.full((2,), True)),
    ("cat tensors keyword", lambda t, a, b: t.cat(tensors=[a, b])),
    ("cat out", lambda t, a, b: t.cat([a, b], out=t.empty(0))),
    ("concat out", lambda t, a, b: t.concat([a, b], out=t.empty(0))),
    ("concatenate out dim", lambda t, a, b: t.concatenate([a, b], 1, out=t.empty(0))),
]


def _count_resolver_calls(monkeypatch, fn, *inputs):
    calls = []
    original = PythonOp.__call__

    def counting(self, args, kwargs):
        calls.append(self.name)
        return original(self, args, kwargs)

    monkeypatch.setattr(PythonOp, "__call__", counting)
    fn(torchpy, *[torchpy.tensor(x) for x in inputs])
    monkeypatch.setattr(PythonOp, "__call__", original)
    return calls


@pytest.mark.parametrize("name,fn", FAST + GENERAL, ids=[n for n, _ in FAST + GENERAL])
def test_matches_torch_and_its_dispatch_log(name, fn):
    check(fn, A, B)
    assert_same_dispatch(fn, A, B)


@pytest.mark.parametrize("name,fn", FAST, ids=[n for n, _ in FAST])
def test_fast_forms_skip_the_resolver(monkeypatch, name, fn):
    calls = _count_resolver_calls(monkeypatch, fn, A, B)
    assert not [c for c in calls if c not in ("empty", "tensor", "manual_seed")], calls


@pytest.mark.parametrize("name,fn", GENERAL, ids=[n for n, _ in GENERAL])
def test_other_forms_take_the_resolver(monkeypatch, name, fn):
    assert _count_resolver_calls(monkeypatch, fn, A, B)


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn", "arange", "full", "eye",
                                  "randint", "empty_strided", "linspace", "cat", "concat", "concatenate", "stack"])
def test_generated_not_hand_written(name):
    assert getattr(torchpy, name).__code__.co_filename == f"<positional {name}>"


def test_errors_match_torch():
    check_error(lambda t: t.zeros(-1, 2))
    check_error(lambda t: t.arange(0, 5, 0))
    check_error(lambda t: t.zeros(2, dtype=t.int64, requires_grad=True), match_message=False)
    check_error(lambda t: t.cat([t.zeros(2), t.zeros(2, 2)], 1), match_message=False)
    check_error(lambda t: t.zeros(2, device="cuda"), match_message=False)
    check_error(lambda t: t.cat([]), match_message=False)
    check_error(lambda t: t.zeros(True), match_message=False)


# --- what a TorchFunctionMode sees -------------------------------------------------------------

def _function_log(lib, fn, *inputs):
    """(public function, args, kwargs) each call a TorchFunctionMode sees while fn runs."""
    import importlib

    overrides = importlib.import_module(lib.__name__ + ".overrides")
    values = [lib.tensor(x) for x in inputs]
    log = []

    class Recording(overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append((func, _describe(list(args)), _describe(kwargs or {})))
            return func(*args, **(kwargs or {}))

    with Recording():
        fn(lib, *values)
    return log


MODE_FORMS = [
    ("zeros", lambda t, a, b: t.zeros(2, 3), lambda t: t.zeros),
    ("zeros tuple dtype", lambda t, a, b: t.zeros((2, 3), dtype=t.float64), lambda t: t.zeros),
    ("rand", lambda t, a, b: t.rand(4), lambda t: t.rand),
    ("arange", lambda t, a, b: t.arange(1, 10, 2), lambda t: t.arange),
    ("full", lambda t, a, b: t.full((2,), 1.5), lambda t: t.full),
    ("cat", lambda t, a, b: t.cat([a, b], 1), lambda t: t.cat),
    ("stack", lambda t, a, b: t.stack((a, b)), lambda t: t.stack),
    ("new_tensor", lambda t, a, b: a.new_tensor([1, 2]), lambda t: t.Tensor.new_tensor),
    ("atleast_2d", lambda t, a, b: t.atleast_2d(a, b), lambda t: t.atleast_2d),
    ("atleast_1d", lambda t, a, b: t.atleast_1d(a), lambda t: t.atleast_1d),
]


@pytest.mark.parametrize("name,fn,public", MODE_FORMS, ids=[n for n, _, _ in MODE_FORMS])
def test_a_function_mode_sees_the_public_function(name, fn, public):
    expected = _function_log(torch, fn, A, B)
    actual = _function_log(torchpy, fn, A, B)
    assert [entry[1:] for entry in actual] == [entry[1:] for entry in expected]
    assert actual[0][0] is public(torchpy)
    assert expected[0][0] is public(torch)


# --- new_tensor and atleast_*d, Python-level members -------------------------------------------

def test_new_tensor_and_atleast():
    check(lambda t, a: a.new_tensor([1, 2]), A)
    check(lambda t, a: a.new_tensor([[1.5]], dtype=t.int32, requires_grad=False), A)
    assert_same_dispatch(lambda t, a: a.new_tensor([1, 2]), A)
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        check(lambda t, a, b: getattr(t, name)(a), A, B)
        check(lambda t, a, b: getattr(t, name)(a, b), A, B)
        check(lambda t, a, b: getattr(t, name)([a, b]), A, B)
        assert_same_dispatch(lambda t, a, b: getattr(t, name)(a[0], b), A, B)
