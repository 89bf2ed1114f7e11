"""How Tensor subclass instances are made from tensors, against torch: as_subclass (an alias,
made out of the dispatch modes' sight), _make_subclass (a detached sharer), the subclass
results of Tensor's default __torch_function__, and _make_wrapper_subclass's metadata."""

import importlib

import pytest
import torch

import torchpy

LIBS = (torch, torchpy)


def _recording_mode(lib, seen):
    python_dispatch = importlib.import_module(lib.__name__ + ".utils._python_dispatch")

    class Recording(python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    return Recording()


def _alias_facts(lib):
    Sub = type("Sub", (lib.Tensor,), {})
    x = lib.tensor([1.0, 2.0])
    x.tag = "x's"
    y = x.as_subclass(Sub)
    facts = {
        "base is x": y._base is x,
        "is view": y._is_view(),
        "x is view": x._is_view(),
        "same memory": y.data_ptr() == x.data_ptr(),
        "takes x's attributes": hasattr(y, "tag"),
    }
    y.mine = 1
    facts["gives x its attributes"] = hasattr(x, "mine")
    x.add_(1)
    facts["versions"] = (x._version, y._version)
    facts["sees the write"] = y.tolist()
    facts["view of a view: base"] = x[0].as_subclass(Sub)._base is x
    return facts


def test_as_subclass_is_an_alias_with_attributes_of_its_own():
    theirs, ours = _alias_facts(torch), _alias_facts(torchpy)
    assert ours == theirs
    assert ours["base is x"] and ours["versions"] == (1, 1) and not ours["takes x's attributes"]


def _make_subclass_facts(lib):
    Sub = type("Sub", (lib.Tensor,), {})
    x = lib.tensor([1.0, 2.0])
    x.tag = 1
    z = lib.Tensor._make_subclass(Sub, x)
    x.add_(1)
    return {"base": z._base, "is view": z._is_view(), "attributes": hasattr(z, "tag"),
            "versions": (x._version, z._version), "values": z.tolist(), "class": type(z).__name__}


def test_make_subclass_shares_memory_and_version_but_not_attributes():
    assert _make_subclass_facts(torchpy) == _make_subclass_facts(torch)


@pytest.mark.parametrize("requires_grad", [False, True])
def test_a_dispatch_mode_does_not_see_as_subclass(requires_grad):
    logs = []
    for lib in LIBS:
        Sub = type("Sub", (lib.Tensor,), {})
        x = lib.tensor([1.0, 2.0], requires_grad=requires_grad)
        seen = []
        with _recording_mode(lib, seen):
            y = x.as_subclass(Sub)
            y.sum().backward() if requires_grad else y.sum()
        logs.append((seen, type(y).__name__, y.requires_grad, type(y.grad_fn).__name__,
                     None if x.grad is None else x.grad.tolist()))
    assert logs[1] == logs[0]


def test_default_torch_function_results_are_aliases_of_the_plain_results():
    facts = []
    for lib in LIBS:
        Sub = type("Sub", (lib.Tensor,), {})
        a = lib.tensor([1.0, 2.0]).as_subclass(Sub)
        results = [a + a, lib.add(a, 1), a.sum(), a.mul(2), a[0]]
        facts.append([(type(r).__name__, r._base is not None, r._is_view(), r.tolist()) for r in results])
    assert facts[1] == facts[0]


def test_logging_a_view_result_inside_torch_function_does_not_recurse():
    printed = []
    for lib in LIBS:
        lines = []

        class Logging(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                if func is not lib.Tensor.__repr__:
                    lines.append(f"{func.__name__}: {args!r}")
                return super().__torch_function__(func, types, args, kwargs or {})

        x = Logging([1.0, 2.0])
        (x + 1).sum()
        printed.append(lines)
    assert printed[1] == printed[0]


@pytest.mark.parametrize("size", [(2, 3), [2, 3], "shape", ()])
def test_wrapper_subclass_metadata_from_a_size_a_tuple_or_a_list(size):
    facts = []
    for lib in LIBS:
        class Wrapper(lib.Tensor):
            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

        shape = lib.zeros(2, 3).shape if size == "shape" else size
        w = lib.Tensor._make_wrapper_subclass(Wrapper, shape, dtype=lib.float32)
        v = lib.Tensor._make_wrapper_subclass(Wrapper, shape, strides=(1, 2) if len(shape) == 2 else (),
                                              dtype=lib.float32)
        facts.append((tuple(w.shape), type(w.shape).__name__, w.stride(), w.size(), w.dim(), v.stride(),
                      w.is_contiguous(), v.is_contiguous()))
    assert facts[1] == facts[0]
    if size == "shape":  # the Size handed in is not the tensor's own shape record
        w = torchpy.Tensor._make_wrapper_subclass(Wrapper, torchpy.zeros(2, 3).shape, dtype=torchpy.float32)
        assert type(w._shape) is tuple


def test_a_subclass_grad_is_the_plain_gradient_before_and_after_a_mode():
    kinds = []
    for lib in LIBS:
        overrides = importlib.import_module(lib.__name__ + ".overrides")
        Sub = type("Sub", (lib.Tensor,), {})
        found = []
        for _ in range(2):
            w = lib.tensor([1.0, 2.0], requires_grad=True)
            s = w.as_subclass(Sub)
            s.retain_grad()
            (s * 2).sum().backward()
            found.append((type(s.grad).__name__, s.grad.tolist()))
            with type("Passing", (overrides.TorchFunctionMode,), {
                    "__torch_function__": lambda self, f, t, a=(), k=None: f(*a, **(k or {}))})():
                pass
        kinds.append(found)
    assert kinds[1] == kinds[0] == [("Tensor", [2.0, 2.0])] * 2


def test_a_class_that_is_not_a_tensor_class_is_refused_as_torch_refuses_it():
    messages = []
    for lib in LIBS:
        x = lib.tensor([1.0])
        found = []
        for make in (lambda: x.as_subclass(int), lambda: lib.Tensor._make_subclass(int, x),
                     lambda: x.as_subclass(object)):
            with pytest.raises(TypeError) as info:
                make()
            found.append(str(info.value))
        messages.append(found)
    assert messages[1] == messages[0]
