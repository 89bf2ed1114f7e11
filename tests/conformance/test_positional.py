"""Tensor methods' positional fast paths, generated from the schema (_aten/positional.py):
the same aten calls, with the same normalized arguments, as torch's bindings make."""

import pytest

import torchpy
from torchpy._aten.positional import make_positional_method, probe_tensor
from torchpy._aten.python_api import PythonOp

from .dispatch_log import assert_same_dispatch
from tests.oracle import check, check_error, randn

PLAIN_INT_CALLS = [
    lambda t, x: x.diagonal(), lambda t, x: x.diagonal(0, 0, 1), lambda t, x: x.diagonal(1, 0, 1),
    lambda t, x: x.diagonal(0, 1, 0), lambda t, x: x.flatten(), lambda t, x: x.flatten(0, -1),
    lambda t, x: x.flatten(1), lambda t, x: x.flatten(0, 1), lambda t, x: x.split(1),
    lambda t, x: x.split(1, 0), lambda t, x: x.split(1, 1), lambda t, x: x.chunk(2, 0),
    lambda t, x: x.unbind(), lambda t, x: x.unbind(0), lambda t, x: x.unbind(1), lambda t, x: x.cumsum(0),
    lambda t, x: x.narrow(1, 0, 2), lambda t, x: x.select(0, 1), lambda t, x: x.transpose(0, 1),
    lambda t, x: x.movedim(0, 1), lambda t, x: x.unsqueeze(-1), lambda t, x: x.squeeze(0),
    lambda t, x: x.t(), lambda t, x: x.clone(), lambda t, x: x.detach(),
    lambda t, x: x.argmax(1), lambda t, x: x.softmax(0), lambda t, x: x.log_softmax(1),
]


PLAIN_TENSOR_CALLS = [
    lambda t, x, y: x.view_as(y), lambda t, x, y: x.expand_as(y), lambda t, x, y: x.reshape_as(y),
    lambda t, x, y: x.type_as(y), lambda t, x, y: x.mm(y.t()), lambda t, x, y: x.matmul(y.t()),
    lambda t, x, y: x.clone().copy_(y), lambda t, x, y: x.maximum(y), lambda t, x, y: x.t().addmm(x, y),
    lambda t, x, y: x.clone().lerp_(y, 0.5),
]


@pytest.mark.parametrize("index", range(len(PLAIN_TENSOR_CALLS)))
def test_plain_tensor_calls_dispatch_as_torchs(index):
    program = PLAIN_TENSOR_CALLS[index]
    assert_same_dispatch(program, randn(3, 3), randn(3, 3, seed=1))
    check(program, randn(3, 3), randn(3, 3, seed=1))


@pytest.mark.parametrize("index", range(len(PLAIN_INT_CALLS)))
def test_plain_int_calls_dispatch_as_torchs(index):
    program = PLAIN_INT_CALLS[index]
    assert_same_dispatch(program, randn(2, 3))
    check(program, randn(2, 3))


# an int list that is the only positional parameter: as varargs, or as one tuple / list / Size
INT_LIST_CALLS = [
    lambda t, x: x.view(6), lambda t, x: x.view(3, 2), lambda t, x: x.view((3, 2)), lambda t, x: x.view([3, 2]),
    lambda t, x: x.view(x.shape), lambda t, x: x.view(-1), lambda t, x: x.view(2, -1),
    lambda t, x: x.reshape(6), lambda t, x: x.reshape((3, 2)),
    lambda t, x: x.reshape([-1]), lambda t, x: x.reshape(1, 6, 1), lambda t, x: x.permute(1, 0),
    lambda t, x: x.permute((1, 0)), lambda t, x: x.permute([-1, 0]), lambda t, x: x.expand(2, 2, 3),
    lambda t, x: x.expand((2, -1, -1)), lambda t, x: x.expand([2, 3]), lambda t, x: x.flip(0),
    lambda t, x: x.flip(0, 1), lambda t, x: x.flip((1,)), lambda t, x: x.repeat(2, 1), lambda t, x: x.repeat((1, 2, 1)),
    lambda t, x: x.tile(2), lambda t, x: x.tile(2, 1), lambda t, x: x.squeeze(0), lambda t, x: x.squeeze((0, 1)),
]


@pytest.mark.parametrize("index", range(len(INT_LIST_CALLS)))
def test_int_list_varargs_dispatch_as_torchs(index):
    program = INT_LIST_CALLS[index]
    assert_same_dispatch(program, randn(2, 3))
    check(program, randn(2, 3))


@pytest.mark.parametrize("program", [
    lambda t, x: x.view(True, 6), lambda t, x: x.view((2, 3), 1), lambda t, x: x.permute(0, None),
    lambda t, x: x.expand(),
])
def test_int_list_varargs_errors_as_torchs(program):
    check_error(program, randn(2, 3))


def test_varargs_only_for_the_only_positional_int_list():
    lib = torchpy.library.Library("positionaltest", "DEF")
    lib.define("g(Tensor self, SymInt[] size) -> Tensor")
    lib.define("h(Tensor self, int[] size, int k=0) -> Tensor")
    seen = []

    def kernel(self, *args):
        seen.append(args)
        return self

    lib.impl("g", kernel, "CPU")
    lib.impl("h", kernel, "CPU")
    g = make_positional_method(PythonOp("g", [torchpy.ops.positionaltest.g.default], is_method=True), probe_tensor())
    h = make_positional_method(PythonOp("h", [torchpy.ops.positionaltest.h.default], is_method=True), probe_tensor())
    x = torchpy.tensor([1.0])
    g(x, 2, 3), g(x, (2, 3)), g(x, [4]), g(x, torchpy.Size([5, 6])), g(x, 7)
    assert seen == [([2, 3],), ([2, 3],), ([4],), ([5, 6],), ([7],)]
    # h(x, 2, 3) is size=[2], k=3: no varargs; an int list for the list parameter only
    seen.clear()
    h(x, (2, 3)), h(x, [4], 1), h(x, (5,), 0)
    assert seen == [([2, 3],), ([4], 1), ([5],)]
    assert "values" not in h._source
    lib._destroy()


# an int for an int[1] list, bools by position, and keywords naming trailing positional parameters
REDUCTION_CALLS = [
    lambda t, x: x.sum(), lambda t, x: x.sum(0), lambda t, x: x.sum(-1, True), lambda t, x: x.sum(1, False),
    lambda t, x: x.sum(0, keepdim=True), lambda t, x: x.sum(0, keepdim=False), lambda t, x: x.sum(dim=1),
    lambda t, x: x.sum(dim=0, keepdim=True), lambda t, x: x.sum(keepdim=True, dim=1), lambda t, x: x.mean(),
    lambda t, x: x.mean(-1, keepdim=True), lambda t, x: x.mean(1, True), lambda t, x: x.mean(dim=0),
    lambda t, x: x.sum((0, 1)), lambda t, x: x.sum([1], keepdim=True), lambda t, x: x.sum(0, dtype=t.float64),
    lambda t, x: x.std(0, True), lambda t, x: x.std(1, False, True), lambda t, x: x.std(dim=0, unbiased=False),
    lambda t, x: x.var(1, keepdim=True), lambda t, x: x.amax(0, True), lambda t, x: x.logsumexp(1),
    lambda t, x: x.logsumexp(1, keepdim=True), lambda t, x: x.transpose(dim0=0, dim1=1),
    lambda t, x: x.transpose(0, dim1=1), lambda t, x: x.flatten(start_dim=1), lambda t, x: x.squeeze(dim=0),
]


@pytest.mark.parametrize("index", range(len(REDUCTION_CALLS)))
def test_bool_and_keyword_forms_dispatch_as_torchs(index):
    program = REDUCTION_CALLS[index]
    assert_same_dispatch(program, randn(2, 3))
    check(program, randn(2, 3))


@pytest.mark.parametrize("program", [
    lambda t, x: x.sum(0, 1), lambda t, x: x.sum(0, keepdim=1), lambda t, x: x.sum(True),
    lambda t, x: x.sum(dim=0, keepdim=None), lambda t, x: x.sum(dim=0, keepdim=True, other=1),
])
def test_bool_and_keyword_form_errors_as_torchs(program):
    check_error(program, randn(2, 3))


FUNCTION_CALLS = [
    lambda t, x, y: t.transpose(x, 0, 1), lambda t, x, y: t.flatten(x), lambda t, x, y: t.flatten(x, 0, -1),
    lambda t, x, y: t.diagonal(x, 0, 0, 1), lambda t, x, y: t.mm(x, y), lambda t, x, y: t.matmul(x, y),
    lambda t, x, y: t.dot(x[0], y[0]), lambda t, x, y: t.mv(x, y[0]), lambda t, x, y: t.bmm(x[None], y[None]),
    lambda t, x, y: t.cumsum(x, 1), lambda t, x, y: t.split(x, 1), lambda t, x, y: t.maximum(x, y),
    lambda t, x, y: t.sum(x, 0), lambda t, x, y: t.sum(x, 1, True), lambda t, x, y: t.mean(x, 0, True),
    lambda t, x, y: t.mean(x, 0, False), lambda t, x, y: t.std(x, 0, True), lambda t, x, y: t.logsumexp(x, 1),
    lambda t, x, y: t.logsumexp(x, 0, True), lambda t, x, y: t._softmax(x, 1, False),
    lambda t, x, y: t.adaptive_avg_pool1d(x[None], 2), lambda t, x, y: t.sum(x, 0, keepdim=True),
]


@pytest.mark.parametrize("index", range(len(FUNCTION_CALLS)))
def test_function_calls_dispatch_as_torchs(index):
    program = FUNCTION_CALLS[index]
    assert_same_dispatch(program, randn(3, 3), randn(3, 3, seed=1))
    check(program, randn(3, 3), randn(3, 3, seed=1))


def test_the_defaults_dropped_are_the_schemas():
    lib = torchpy.library.Library("positionaltest", "DEF")
    lib.define("f(Tensor self, int a=7, int b=-3) -> Tensor")
    seen = []

    def kernel(self, *args):
        seen.append(args)
        return self

    lib.impl("f", kernel, "CPU")
    method = make_positional_method(PythonOp("f", [torchpy.ops.positionaltest.f.default], is_method=True),
                                    probe_tensor())
    x = torchpy.tensor([1.0])
    for args in [(), (7,), (7, -3), (1, -3), (7, 5), (1,)]:
        method(x, *args)
    assert seen == [(), (), (), (1,), (7, 5), (1,)]
    lib._destroy()


def test_modes_and_subclasses_still_see_the_call():
    seen = []

    class Mode(torchpy.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    class Sub(torchpy.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append("sub " + func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    x = torchpy.ones(2, 3)
    with Mode():
        x.diagonal(0, 0, 1)
        x.view(3, 2)
        x.permute((1, 0))
        x.sum(0, keepdim=True)
    x.as_subclass(Sub).flatten(1)
    x.as_subclass(Sub).reshape(6)
    x.as_subclass(Sub).expand(2, 2, 3)
    x.as_subclass(Sub).mean(1, keepdim=True)
    assert seen == ["diagonal", "view", "permute", "sum", "sub flatten", "sub reshape", "sub expand", "sub mean"]
    assert type(x.as_subclass(Sub).flatten(1)) is Sub


class _NoBinding:
    def bind(self, args, kwargs):
        raise AssertionError("the fast path bound its arguments")


@pytest.mark.parametrize("program, qualified", [
    (lambda x: x.unsqueeze(0), "aten::unsqueeze"), (lambda x: x.diagonal(0, 0, 1), "aten::diagonal"),
    (lambda x: x.t(), "aten::t"), (lambda x: x.view_as(x), "aten::view_as"), (lambda x: x.mm(x), "aten::mm"),
    (lambda x: torchpy.transpose(x, 0, 1), "aten::transpose.int"), (lambda x: torchpy.mm(x, x), "aten::mm"),
    (lambda x: torchpy.flatten(x), "aten::flatten.using_ints"), (lambda x: x.view(4), "aten::view"),
    (lambda x: x.view(2, 2), "aten::view"), (lambda x: x.view((1, 4)), "aten::view"),
    (lambda x: x.reshape([4]), "aten::reshape"), (lambda x: x.permute(1, 0), "aten::permute"),
    (lambda x: x.expand(3, 2, 2), "aten::expand"), (lambda x: x.flip(0, 1), "aten::flip"),
    (lambda x: x.repeat(2, 1), "aten::repeat"), (lambda x: x.tile(2), "aten::tile"),
    (lambda x: x.sum(), "aten::sum"), (lambda x: x.sum(0), "aten::sum.dim_IntList"),
    (lambda x: x.sum(0, True), "aten::sum.dim_IntList"), (lambda x: x.sum(0, keepdim=True), "aten::sum.dim_IntList"),
    (lambda x: x.sum(dim=1), "aten::sum.dim_IntList"), (lambda x: x.mean(-1, keepdim=True), "aten::mean.dim"),
    (lambda x: x.transpose(0, dim1=1), "aten::transpose.int"),
])
def test_plain_calls_skip_the_binder(program, qualified, monkeypatch):
    op = torchpy._dispatch.ops.op_for(qualified)
    monkeypatch.setattr(op, "binder", _NoBinding())
    program(torchpy.ones(2, 2))
