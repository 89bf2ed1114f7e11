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


# --- entering a mode changes no class ----------------------------------------------------------

_SNAPSHOT_PROGRAM = """
import torchpy
from torchpy.nn import Parameter
from torchpy.overrides import TorchFunctionMode
from torchpy.testing._internal.logging_tensor import LoggingTensor

classes = (torchpy.Tensor, Parameter, LoggingTensor)
before = [dict(cls.__dict__) for cls in classes]

class Recording(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))

x = torchpy.tensor([1.0, 2.0])
with Recording():
    x.size(), x.shape, len(x), repr(x), x.dtype, x + 1
x.size(), x.shape
after = [dict(cls.__dict__) for cls in classes]
for cls, old, new in zip(classes, before, after):
    assert old.keys() == new.keys(), (cls, old.keys() ^ new.keys())
    changed = [name for name in old if old[name] is not new[name]]
    assert not changed, (cls, changed)
print("unchanged")
"""


def test_entering_a_mode_changes_no_class():
    # a fresh process: the first mode ever entered is the one that matters
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _SNAPSHOT_PROGRAM], capture_output=True, text=True,
                          cwd=str(__import__("pathlib").Path(torchpy.__file__).parent.parent))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "unchanged"


def _cuda_refused(x):
    """x.cuda() reaches the mode, then is refused (no CUDA), as under torch's CPU build."""
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        x.cuda()


def _member_calls():
    """name -> call of Tensor's member on a plain tensor, for every member declared MODES."""
    def t(*shape, **kw):
        return torchpy.ones(*shape, **kw)

    special = {
        "__array__": lambda: t(2).__array__(), "__array_wrap__": lambda: t(2).__array_wrap__(np.ones(2)),
        "__contains__": lambda: 1.0 in t(2), "__deepcopy__": lambda: copy.deepcopy(t(2)),
        "__format__": lambda: format(t(()), ".1f"), "__getitem__": lambda: t(2)[0],
        "__index__": lambda: torchpy.tensor(1).__index__(), "__setitem__": lambda: t(2).__setitem__(0, 1.0),
        "as_strided": lambda: t(4).as_strided((2,), (1,)), "as_subclass": lambda: t(2).as_subclass(torchpy.Tensor),
        "backward": lambda: t((), requires_grad=True).backward(), "bmm": lambda: t(1, 2, 2).bmm(t(1, 2, 2)),
        "chunk": lambda: t(4).chunk(2), "copy_": lambda: t(2).copy_(t(2)), "diagonal": lambda: t(2, 2).diagonal(),
        "dot": lambda: t(2).dot(t(2)), "expand": lambda: t(1).expand(3), "expand_as": lambda: t(1).expand_as(t(3)),
        "fill_": lambda: t(2).fill_(0), "gather": lambda: t(3).gather(0, torchpy.tensor([0])),
        "index_select": lambda: t(3).index_select(0, torchpy.tensor([0])), "matmul": lambda: t(2).matmul(t(2)),
        "mm": lambda: t(2, 2).mm(t(2, 2)), "moveaxis": lambda: t(2, 3).moveaxis(0, 1),
        "movedim": lambda: t(2, 3).movedim(0, 1), "mv": lambda: t(2, 2).mv(t(2)), "narrow": lambda: t(4).narrow(0, 1, 2),
        "new_tensor": lambda: t(2).new_tensor([1.0]), "permute": lambda: t(2, 3).permute(1, 0),
        "register_hook": lambda: t(2, requires_grad=True).register_hook(lambda g: g),
        "register_post_accumulate_grad_hook": lambda: t(2, requires_grad=True).register_post_accumulate_grad_hook(
            lambda p: None),
        "reshape": lambda: t(4).reshape(2, 2), "reshape_as": lambda: t(4).reshape_as(t(2, 2)),
        "retain_grad": lambda: (t(2, requires_grad=True) * 2).retain_grad(), "select": lambda: t(2, 2).select(0, 1),
        "split": lambda: t(4).split(2), "swapaxes": lambda: t(2, 3).swapaxes(0, 1),
        "swapdims": lambda: t(2, 3).swapdims(0, 1), "topk": lambda: t(4).topk(2), "transpose": lambda: t(2, 3).transpose(0, 1),
        "type_as": lambda: t(2).type_as(t(2)), "unflatten": lambda: t(4).unflatten(0, (2, 2)),
        "unsqueeze": lambda: t(2).unsqueeze(0), "view": lambda: t(4).view(2, 2), "view_as": lambda: t(4).view_as(t(2, 2)),
        "to": lambda: t(2).to(torchpy.float64), "item": lambda: t(()).item(),
        "cuda": lambda: _cuda_refused(t(2)),
    }
    from torchpy._tensor.members import MODES, TABLE

    calls = {}
    for name, declaration in TABLE.declared.items():
        if declaration.checks != MODES:
            continue
        member = torchpy.Tensor.__dict__[name]
        if name in special:
            calls[name] = special[name]
        elif isinstance(member, property):
            calls[name] = lambda name=name: getattr(t(1, 1), name)
        else:
            calls[name] = lambda name=name: getattr(t(1, 1), name)()  # (one element: item(), float(), ...)
    return calls


@pytest.mark.parametrize("name", sorted(_member_calls()))
def test_every_member_declared_mode_checked_is_seen_by_a_mode(name):
    """A member declared MODES must reach a mode on a plain tensor (its guard, or the
    generated binding it defers to under one)."""
    call = _member_calls()[name]
    seen = []
    with _recording_mode(torchpy, seen):
        call()
    assert seen, f"Tensor.{name}: no mode saw it"


def test_a_mode_on_another_thread_is_not_seen_here():
    import threading

    from torchpy._tensor import function_modes, tensor

    entered, leave, seen = threading.Event(), threading.Event(), []

    def other():
        with _recording_mode(torchpy, seen):
            entered.set()
            leave.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    entered.wait(10)
    try:
        assert tensor._function_modes is True  # a mode exists somewhere: members look at their thread
        x = torchpy.tensor([1.0])
        assert x.size() == (1,) and x.shape == (1,) and seen == []
    finally:
        leave.set()
        thread.join()
    assert function_modes._pushed == []
    # The flags come down at the first check that finds no mode anywhere, not at the exit (a
    # mode entered around a few ops does not rewrite every tracked module's globals twice).
    assert x.size() == (1,) and seen == []
    assert tensor._function_modes is False
