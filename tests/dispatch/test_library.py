"""torchpy.library against torch.library: the same calls, the same results and errors."""

import re
import warnings

import pytest
import torch

import torchpy

from .helpers import cpu_tensor, fresh_namespace


def _normalize(message: str, *namespaces: str) -> str:
    """Drop what legitimately differs: namespaces and source locations."""
    for ns in namespaces:
        message = message.replace(ns, "NS")
    return re.sub(r"registered at \S+|block at \S+\)", "<where>", message)


def _both_raise(action, exc_type=RuntimeError):
    """Run action(library_module, ns) for torch and torchpy; both must raise the same error."""
    tns, ons = fresh_namespace("tpyref"), fresh_namespace()
    with pytest.raises(exc_type) as theirs:
        action(torch, tns)
    with pytest.raises(exc_type) as ours:
        action(torchpy, ons)
    assert _normalize(str(ours.value), ons) == _normalize(str(theirs.value), tns)


def test_unsupported_kind():
    _both_raise(lambda lib, ns: lib.library.Library(ns, "BAD"), ValueError)


def test_reserved_namespace():
    _both_raise(lambda lib, ns: lib.library.Library("prim", "DEF"), ValueError)


def test_second_def_library_for_a_namespace():
    keep = []

    def action(lib, ns):
        keep.append(lib.library.Library(ns, "DEF"))
        lib.library.Library(ns, "DEF")

    _both_raise(action)
    for library in keep:
        library._destroy()


def test_duplicate_definition():
    keep = []

    def action(lib, ns):
        library = lib.library.Library(ns, "DEF")
        keep.append(library)
        library.define("f(Tensor x) -> Tensor")
        library.define("f(Tensor x) -> Tensor")

    _both_raise(action)
    for library in keep:
        library._destroy()


def test_define_in_an_impl_library():
    _both_raise(lambda lib, ns: lib.library.Library(ns, "IMPL").define("f(Tensor x) -> Tensor"))


def test_define_with_another_namespace():
    _both_raise(lambda lib, ns: lib.library.Library(ns, "FRAGMENT").define("other::f(Tensor x) -> Tensor"))


def test_impl_key_inconsistent_with_the_impl_library():
    _both_raise(lambda lib, ns: lib.library.Library(ns, "IMPL", "CPU").impl("f", lambda x: x, "CUDA"))


def test_impl_of_a_non_callable():
    _both_raise(lambda lib, ns: lib.library.Library(ns, "FRAGMENT").impl("f", 3, "CPU"), TypeError)


def test_fallback_outside_the_global_namespace():
    _both_raise(lambda lib, ns: lib.library.Library(ns, "IMPL").fallback(lambda *a: None, "CPU"))


def test_invalid_alias_analysis():
    _both_raise(lambda lib, ns: lib.library.Library(ns, "FRAGMENT").define("f(Tensor x) -> Tensor", "BAD"))


def test_define_returns_the_name_like_torch():
    ns = fresh_namespace()
    tlib, lib = torch.library.Library(ns, "DEF"), torchpy.library.Library(ns, "DEF")
    for schema in ["f(Tensor x) -> Tensor", "f.over(Tensor x) -> Tensor"]:
        assert lib.define(schema) == tlib.define(schema)
    tlib._destroy()
    lib._destroy()


def test_destroyed_library_refuses_more_registrations():
    lib = torchpy.library.Library(fresh_namespace(), "DEF")
    lib._destroy()
    with pytest.raises(AssertionError, match="Library object has been destroyed"):
        lib.define("f(Tensor x) -> Tensor")


def test_free_functions_define_impl_and_register_kernel():
    ns = fresh_namespace()
    torchpy.library.define(f"{ns}::f", "(Tensor x, int n) -> Tensor")
    op = getattr(torchpy.ops, ns).f.default
    assert str(op._schema) == f"{ns}::f(Tensor x, int n) -> Tensor"

    @torchpy.library.impl(f"{ns}::f", "cpu")
    def f_cpu(x, n):
        return ("cpu", n)

    assert op(cpu_tensor(), 3) == ("cpu", 3)
    with warnings.catch_warnings():  # overriding the CPU kernel warns (once per process)
        warnings.simplefilter("ignore")
        torchpy.library.register_kernel(op, "cpu", lambda x, n: ("registered", n))
    assert op(cpu_tensor(), 4) == ("registered", 4)
    assert "CPU: registered at" in torchpy._C._dispatch_dump_table(f"{ns}::f")
    # device_types=None registers for every device: CompositeExplicitAutograd
    torchpy.library.register_kernel(f"{ns}::f", None, lambda x, n: "any")
    assert "[default backend kernel]" in torchpy._C._dispatch_dump_table(f"{ns}::f")


def test_impl_accepts_an_op_overload_and_a_qualified_name():
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.define("g(Tensor x) -> Tensor")
    lib.impl(getattr(torchpy.ops, ns).f.default, lambda x: "f", "CPU")
    lib.impl(f"{ns}::g", lambda x: "g", "CPU")
    assert getattr(torchpy.ops, ns).f(cpu_tensor()) == "f"
    assert getattr(torchpy.ops, ns).g(cpu_tensor()) == "g"
    lib._destroy()


def test_impl_without_a_key_registers_composite_implicit_as_torch():
    ns = fresh_namespace()
    tlib, lib = torch.library.Library(ns, "DEF"), torchpy.library.Library(ns, "DEF")
    for library in (tlib, lib):
        library.define("f(Tensor x) -> Tensor")
        library.impl("f", lambda x: x)
    assert torchpy._C._dispatch_has_kernel_for_dispatch_key(f"{ns}::f", "CompositeImplicitAutograd")
    assert torch._C._dispatch_has_kernel_for_dispatch_key(f"{ns}::f", "CompositeImplicitAutograd")
    tlib._destroy()
    lib._destroy()
