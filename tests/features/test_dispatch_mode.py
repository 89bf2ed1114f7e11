"""TorchDispatchMode and the Python key against torch: what a mode sees, and the stack rules."""

import pytest
import torch
from torch.utils import _python_dispatch as torch_python_dispatch

import torchpy
from torchpy.utils import _python_dispatch as torchpy_python_dispatch

LIBS = [(torch, torch_python_dispatch), (torchpy, torchpy_python_dispatch)]


def _logging_mode(module, log, tag="mode"):
    class Logging(module.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            log.append((tag, str(func), [type(a).__name__ if not isinstance(a, (int, float)) else a for a in args],
                        sorted((kwargs or {}).items())))
            return func(*args, **(kwargs or {}))

    return Logging()


def _run_both(program):
    logs = []
    for lib, module in LIBS:
        log = []
        a = lib.tensor([1.0, 2.0])
        b = lib.tensor([3.0, 4.0])
        with _logging_mode(module, log):
            program(lib, a, b)
        logs.append(log)
    return logs


@pytest.mark.parametrize("program", [
    lambda t, a, b: a + b,
    lambda t, a, b: a + 2,
    lambda t, a, b: 2 * a,
    lambda t, a, b: t.add(a, b, alpha=2),
    lambda t, a, b: a - b / 2,
    lambda t, a, b: t.mul(a, b),
], ids=["add", "add_number", "rmul_number", "add_alpha", "sub_div", "mul"])
def test_mode_sees_the_same_ops_and_arguments_as_torch(program):
    theirs, ours = _run_both(program)
    assert ours == theirs


def test_inner_calls_go_to_the_next_mode_then_the_backend():
    logs = []
    for lib, module in LIBS:
        log = []
        a = lib.tensor([1.0])
        with _logging_mode(module, log, "outer"), _logging_mode(module, log, "inner"):
            a * a
        logs.append(log)
    assert logs[1] == logs[0]
    assert [tag for tag, *_ in logs[1]] == ["inner", "outer"]


def test_mode_stack_helpers_and_restoration_after_an_error():
    for lib, module in LIBS:
        class Failing(module.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                raise ValueError("boom")

        mode = Failing()
        a = lib.tensor([1.0])
        assert module._get_current_dispatch_mode() is None
        with pytest.raises(ValueError):
            with mode:
                assert module._get_current_dispatch_mode() is mode
                assert module._get_current_dispatch_mode_stack() == [mode]
                a + a
        assert module._get_current_dispatch_mode() is None
        assert module._get_current_dispatch_mode_stack() == []
        assert not module.is_in_torch_dispatch_mode()
        # with modes gone, ops run normally
        assert (a + a).tolist() == [2.0]


def test_pop_mode_temporarily_and_disable_current_modes():
    for lib, module in LIBS:
        log = []
        mode = _logging_mode(module, log)
        a = lib.tensor([1.0])
        with mode:
            with module._pop_mode_temporarily() as popped:
                assert popped is mode
                a + a
            with module._disable_current_modes() as disabled:
                assert disabled == [mode]
                a + a
            a + a
        assert len(log) == 1


def test_classmethod_handler_is_an_error_as_in_torch():
    messages = []
    for lib, module in LIBS:
        class Bad(module.TorchDispatchMode):
            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))

        with pytest.raises(RuntimeError) as info:
            with Bad():
                lib.tensor([1.0]) + 1
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_disable_torch_dispatch_skips_modes():
    log = []
    a = torchpy.tensor([1.0])
    with _logging_mode(torchpy_python_dispatch, log):
        with torchpy._C._DisableTorchDispatch():
            a + a
    assert log == []


def test_mode_keys_are_included_only_while_a_mode_is_active():
    from torchpy._dispatch.keys import DispatchKey

    assert not torchpy._C._dispatch_tls_is_dispatch_key_included(DispatchKey.Python)
    with _logging_mode(torchpy_python_dispatch, []):
        assert torchpy._C._dispatch_tls_is_dispatch_key_included(DispatchKey.Python)
    assert not torchpy._C._dispatch_tls_is_dispatch_key_included(DispatchKey.Python)


@pytest.mark.parametrize("program", [
    lambda t, a: (a * a).sum().backward(),
    lambda t, a: (a.exp() / 2).mean().backward(),
    lambda t, a: (t.mm(a.view(1, 3), a.view(3, 1)).relu().sum()).backward(),
], ids=["mul_sum", "exp_div_mean", "mm_relu"])
def test_mode_sees_forward_and_backward_ops_as_torch(program):
    logs = []
    for lib, module in LIBS:
        log = []
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with _logging_mode(module, log):
            program(lib, a)
        logs.append([entry[1] for entry in log])
    assert logs[1] == logs[0]
