"""__torch_function__ and TorchFunctionMode against torch on the same programs."""

import pytest
import torch
import torch.overrides

import torchpy
import torchpy.overrides

LIBS = (torch, torchpy)


def _subclass(lib, name="Sub"):
    return type(name, (lib.Tensor,), {})


def test_subclasses_survive_ops_and_keep_plain_metadata():
    for lib in LIBS:
        Sub = _subclass(lib)
        x = lib.tensor([1.0, 2.0]).as_subclass(Sub)
        assert type(x + 1) is Sub and type(lib.add(x, 1)) is Sub and type(x.mul(2)) is Sub
        assert type(x.shape) is type(lib.tensor([1.0]).shape)
        assert x.tolist() == [1.0, 2.0] and type(x.dim()) is int


def test_handler_order_subclass_before_superclass_then_left_to_right():
    orders = []
    for lib in LIBS:
        order = []

        def make(name, base):
            def handler(cls, func, types, args=(), kwargs=None):
                order.append(name)
                return NotImplemented if name != "A" else "handled by A"
            return type(name, (base,), {"__torch_function__": classmethod(handler)})

        A = make("A", lib.Tensor)
        B = make("B", A)
        a = lib.tensor([1.0]).as_subclass(A)
        b = lib.tensor([1.0]).as_subclass(B)
        result = lib.mul(a, b)
        orders.append((order[:], result))
    assert orders[0] == orders[1]
    assert orders[1] == (["B", "A"], "handled by A")  # the subclass first, although it comes second


def test_all_not_implemented_raises_torchs_type_error():
    messages = []
    for lib in LIBS:
        class Refuses(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

        x = lib.tensor([1.0]).as_subclass(Refuses) if lib is torch else torchpy.Tensor._make_subclass(Refuses, torchpy.tensor([1.0]))
        with pytest.raises(TypeError) as info:
            lib.mul(x, x)
        messages.append(str(info.value).split(";")[0])
    assert messages[0] == messages[1]


class ScalarLike:
    """Not a Tensor, but defines __torch_function__ (the seed's ScalarTensor pattern)."""

    def __init__(self, value):
        self.value = value

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("ScalarLike", getattr(func, "__name__", str(func)), len(args))


def test_non_tensor_types_with_torch_function():
    ours = torchpy.add(ScalarLike(1), torchpy.tensor([1.0]))
    theirs = torch.add(ScalarLike(1), torch.tensor([1.0]))
    assert ours == theirs


def test_function_mode_sees_factories_and_ops_and_is_popped_inside():
    logs = []
    for lib in LIBS:
        log = []

        class Logging(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                log.append(func.__name__)
                return func(*args, **(kwargs or {}))

        with Logging():
            a = lib.zeros(2)
            b = lib.add(a, 1)
            lib.mul(b, b)
        logs.append(log)
    assert logs[0] == logs[1]


def test_disable_torch_function_subclass():
    for lib in LIBS:
        Sub = _subclass(lib)
        x = lib.tensor([1.0]).as_subclass(Sub)
        with lib._C.DisableTorchFunctionSubclass():
            assert type(lib.add(x, 1)) is lib.Tensor


def test_override_helpers():
    t = torchpy.tensor([1.0])
    assert not torchpy.overrides.has_torch_function((t,))
    assert torchpy.overrides.has_torch_function((ScalarLike(1),))
    assert torchpy.overrides.is_tensor_like(t) and torchpy.overrides.is_tensor_like(ScalarLike(1))
    assert not torchpy.overrides.is_tensor_like(1)
    assert torchpy.overrides.resolve_name(torchpy.add) == torch.overrides.resolve_name(torch.add)
    assert torchpy.add in torchpy.overrides.get_overridable_functions()[torchpy]
    dummies = torchpy.overrides.get_testing_overrides()
    assert dummies[torchpy.add](torchpy.tensor([1.0]), torchpy.tensor([1.0])) == -1
    assert torchpy.overrides.handle_torch_function(
        torchpy.add, (ScalarLike(1),), ScalarLike(1), 2) == ("ScalarLike", "add", 2)


def test_torch_function_state_queries_as_torch():
    seen = []
    for lib in (torch, torchpy):
        state = []
        report = lambda: state.append((lib._C._is_torch_function_enabled(),  # noqa: E731
                                       lib._C._is_torch_function_mode_enabled()))
        report()
        with lib.overrides.TorchFunctionMode():
            report()
            with lib._C.DisableTorchFunction():
                report()
            with lib._C.DisableTorchFunctionSubclass():
                report()
        with lib._C.DisableTorchFunctionSubclass():
            report()
        seen.append(state)
    assert seen[0] == seen[1]


def test_function_modes_and_switches_are_per_thread():
    # The mode stack and the DisableTorchFunction switches live on the dispatcher's per-thread
    # object (tls.thread_state): another thread starts with none of this thread's state.
    import threading

    class Count(torchpy.overrides.TorchFunctionMode):
        calls = 0

        def __torch_function__(self, func, types, args=(), kwargs=None):
            Count.calls += 1
            return func(*args, **(kwargs or {}))

    seen = {}

    def worker():
        x = torchpy.ones(2)
        seen["result"] = (x + x).tolist()
        seen["enabled"] = torchpy._C._is_torch_function_enabled()
        seen["mode"] = torchpy.overrides._get_current_function_mode()

    x = torchpy.ones(2)
    with Count(), torchpy._C.DisableTorchFunctionSubclass():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        x + x  # this thread's mode sees it
    assert Count.calls == 1
    assert seen == {"result": [2.0, 2.0], "enabled": True, "mode": None}
