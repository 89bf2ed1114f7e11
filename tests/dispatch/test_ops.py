"""torchpy.ops packets and overloads, compared with torch.ops on the same definitions."""

import pytest
import torch

import torchpy
from torchpy._dispatch.keys import DispatchKey

from .helpers import FakeTensor, cpu_tensor, fresh_namespace

SCHEMAS = [
    "f(Tensor x) -> Tensor",
    "f.Scalar(Tensor x, Scalar s) -> Tensor",
    "f.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)",
]


@pytest.fixture
def both():
    """The same operators defined in torch and in torchpy, under the same namespace name."""
    ns = fresh_namespace()
    tlib = torch.library.Library(ns, "DEF")
    lib = torchpy.library.Library(ns, "DEF")
    for schema in SCHEMAS:
        tlib.define(schema)
        lib.define(schema)
    yield ns, getattr(torch.ops, ns), getattr(torchpy.ops, ns), lib
    tlib._destroy()
    lib._destroy()


def test_names_and_reprs_match_torch(both):
    ns, theirs, ours, _ = both
    for overload in ["default", "Scalar", "out"]:
        t, o = getattr(theirs.f, overload), getattr(ours.f, overload)
        assert str(o) == str(t)
        assert repr(o) == repr(t)
        assert o.name() == t.name()
        assert o.__name__ == t.__name__
        assert str(o._schema) == str(t._schema)
        assert o.overloadpacket is ours.f
        assert o.namespace == t.namespace
    assert str(ours.f) == str(theirs.f)
    assert repr(ours.f) == repr(theirs.f)
    assert ours.f.overloads() == theirs.f.overloads()
    assert ours.f._qualified_op_name == theirs.f._qualified_op_name


def test_identity_equality_and_hash_by_operator(both):
    _, _, ours, _ = both
    assert ours.f.default is ours.f.default
    assert ours.f.default == getattr(torchpy.ops, ours.name).f.default
    assert ours.f.default != ours.f.Scalar
    assert len({ours.f.default, ours.f.default, ours.f.Scalar}) == 2


def test_unknown_names_raise_attribute_error_worded_as_torch(both):
    ns, theirs, ours, _ = both
    for owner_t, owner_o, attr in [(theirs, ours, "nope"), (theirs.f, ours.f, "nope")]:
        with pytest.raises(AttributeError) as t_info:
            getattr(owner_t, attr)
        with pytest.raises(AttributeError) as o_info:
            getattr(owner_o, attr)
        assert str(o_info.value) == str(t_info.value)


def test_packet_call_picks_the_first_overload_that_accepts_the_arguments(both):
    ns, _, ours, lib = both
    lib.impl("f", lambda x: "default", "CPU")
    lib.impl("f.Scalar", lambda x, s: ("Scalar", s), "CPU")
    x = cpu_tensor()
    assert ours.f(x) == "default"
    assert ours.f(x, 2.5) == ("Scalar", 2.5)


def test_tags_are_kept():
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor", tags=("pointwise",))
    assert getattr(torchpy.ops, ns).f.default.tags == ["pointwise"]
    lib._destroy()


def test_decompose_runs_the_composite_implicit_kernel_or_returns_not_implemented():
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    op = getattr(torchpy.ops, ns).f.default
    assert op.decompose(cpu_tensor()) is NotImplemented
    lib.impl("f", lambda x: ("decomposed", x.name), "CompositeImplicitAutograd")
    assert op.decompose(cpu_tensor("a")) == ("decomposed", "a")
    lib._destroy()


def test_fast_and_bound_paths_agree():
    """A positional call that needs no normalization skips binding; the result must not change."""
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    seen = []
    lib.impl("add", lambda *a, **k: seen.append((a, k)), "CPU")
    op = getattr(torchpy.ops, ns).add.Tensor if False else getattr(torchpy.ops, ns).add.default
    a, b = cpu_tensor("a"), cpu_tensor("b")
    op(a, b)                  # fast path
    op(a, other=b)            # bound: keyword
    op(a, b, alpha=1)         # bound: default dropped
    op(a, b, alpha=2)         # bound: kwarg kept
    assert seen == [((a, b), {}), ((a, b), {}), ((a, b), {}), ((a, b), {"alpha": 2})]
    lib._destroy()


def test_non_tensor_where_tensor_expected_is_an_error_not_a_crash():
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x, "CPU")
    with pytest.raises((TypeError, RuntimeError)):
        getattr(torchpy.ops, ns).f.default("not a tensor")
    lib._destroy()


def test_tensor_lists_contribute_their_keys():
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("cat(Tensor[] tensors, int dim=0) -> Tensor")
    lib.impl("cat", lambda tensors, dim=0: "cpu", "CPU")
    lib.impl("cat", lambda tensors, dim=0: "meta", "Meta")
    op = getattr(torchpy.ops, ns).cat.default
    assert op([cpu_tensor(), FakeTensor(DispatchKey.Meta)]) == "meta"  # Meta outranks CPU
    assert op([cpu_tensor()]) == "cpu"
    lib._destroy()
