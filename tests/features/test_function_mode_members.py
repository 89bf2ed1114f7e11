"""What a TorchFunctionMode sees of plain tensors' hand-written members (properties, size(),
len(), repr(), ...), of the functions torch lists as ignored (torch.tensor: modes see it,
subclasses do not) and of torch.einsum, each against torch on the same calls."""

import copy
import importlib

import numpy as np
import pytest
import torch

import torchpy

LIBS = (torch, torchpy)


def _recording_mode(lib, seen):
    overrides = importlib.import_module(lib.__name__ + ".overrides")

    class Recording(overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    return Recording()


CALLS = {
    "properties": lambda lib, x: (x.shape, x.dtype, x.device, x.requires_grad, x.grad, x.is_leaf, x.ndim, x.data),
    "size / dim / numel / stride": lambda lib, x: (x.size(), x.size(0), x.dim(), x.numel(), x.stride()),
    "item / tolist / numpy": lambda lib, x: (x[0].item(), x.tolist(), x.numpy()),
    "python protocols": lambda lib, x: (len(x), bool(x[0]), float(x[0]), int(x[0]), 2.0 in x, repr(x)),
    "iteration": lambda lib, x: list(x),
    "factories torch lists as ignored": lambda lib, x: (lib.tensor([1.0]), lib.as_tensor([1.0]),
                                                         lib.can_cast(lib.float32, lib.int32),
                                                         lib.promote_types(lib.float32, lib.int32)),
    "from_numpy and is_tensor (not seen)": lambda lib, x: (lib.from_numpy(np.ones(2)), lib.is_tensor(x)),
    "einsum": lambda lib, x: (lib.einsum("i,i->", x, x), lib.einsum("i,i->", [x, x])),
    "hooks and backward": lambda lib, x: lib.tensor([1.0], requires_grad=True).register_hook(lambda g: g),
}


@pytest.mark.parametrize("name", CALLS)
def test_a_mode_sees_what_torch_shows_it(name):
    logs = []
    for lib in LIBS:
        seen = []
        x = lib.tensor([1.0, 2.0, 3.0])
        with _recording_mode(lib, seen):
            CALLS[name](lib, x)
        logs.append(seen)
    assert logs[1] == logs[0]


def test_nested_modes_both_see_a_plain_member_inner_first():
    logs = []
    for lib in LIBS:
        seen = []
        outer = _recording_mode(lib, seen)
        inner_seen = []
        inner = _recording_mode(lib, inner_seen)
        x = lib.tensor([1.0, 2.0])
        with outer, inner:
            x.size()
            x.shape
        logs.append((inner_seen, seen))
    assert logs[1] == logs[0] == (["size", "__get__"], ["size", "__get__"])


def test_ignored_functions_reach_modes_but_not_subclasses():
    logs = []
    for lib in LIBS:
        seen = []

        class Logged(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return super().__torch_function__(func, types, args, kwargs or {})

        s = lib.tensor([1.0]).as_subclass(Logged)
        lib.as_tensor(s)
        lib.einsum("i,i->", s, s)
        logs.append(seen)
    assert logs[1] == logs[0] == ["einsum"]


def test_a_base_class_member_is_not_replaced_in_its_subclasses():
    results = []
    for lib in LIBS:
        class Base(lib.Tensor):
            def size(self, dim=None):
                return "Base.size"

            def __repr__(self):
                return "Base repr"

        class Derived(Base):
            pass

        d = lib.tensor([1.0]).as_subclass(Derived)
        results.append((d.size(), repr(d)))
    assert results[1] == results[0] == ("Base.size", "Base repr")


def test_a_subclass_made_while_a_mode_is_active_checks_once():
    logs = []
    for lib in LIBS:
        seen = []
        with _recording_mode(lib, []):
            class Logged(lib.Tensor):
                @classmethod
                def __torch_function__(cls, func, types, args=(), kwargs=None):
                    seen.append(func.__name__)
                    return super().__torch_function__(func, types, args, kwargs or {})

        s = lib.tensor([1.0, 2.0]).as_subclass(Logged)
        s.size()
        s.shape
        len(s)
        logs.append(seen)
    assert logs[1] == logs[0] == ["size", "__get__", "__len__"]


def test_mode_errors_leave_plain_members_working():
    seen = []
    x = torchpy.tensor([1.0, 2.0])
    with pytest.raises(ZeroDivisionError):
        with _recording_mode(torchpy, seen):
            x.size()
            1 / 0
    assert seen == ["size"] and x.size() == (2,) and x.shape == (2,) and len(x) == 2
    seen.clear()
    assert x.dim() == 1 and seen == []  # no mode now: nothing seen
    assert copy.copy(x).tolist() == [1.0, 2.0]
