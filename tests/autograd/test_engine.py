"""The autograd engine, grad modes and hooks, against torch on the same programs."""

import gc
import threading
import weakref

import numpy as np
import pytest
import torch

import torchpy
from tests.oracle import assert_values, scaled

LIBS = (torch, torchpy)


def _leaves(lib, *arrays, dtype="float32"):
    return [lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True) for a in arrays]


def _grads(ts):
    return [None if t.grad is None else np.asarray(t.grad.tolist()) for t in ts]


def _same_grads(program, *arrays):
    results = []
    for lib in LIBS:
        leaves = _leaves(lib, *arrays)
        program(lib, *leaves)
        results.append(_grads(leaves))
    for theirs, ours in zip(*results):
        if theirs is None:
            assert ours is None
        else:
            assert_values(ours, theirs, scaled(rtol=1e-6))
    return results


A = [1.0, 2.0, 3.0]
B = [4.0, -5.0, 6.0]


def test_backward_accumulates_into_leaves():
    _same_grads(lambda t, a, b: (a * b + a / b - b).backward(t.ones(3)), A, B)


def test_broadcast_gradients_are_unbroadcast():
    _same_grads(lambda t, a, b: (a * b).backward(t.ones(2, 3)), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[2.0, 3.0, 4.0]])


def test_gradients_accumulate_across_backward_calls():
    def program(t, a, b):
        y = a * b
        y.backward(t.ones(3), retain_graph=True)
        y.backward(t.ones(3))

    _same_grads(program, A, B)


def test_shared_subexpression_gets_summed_gradients():
    def program(t, a, b):
        c = a * b
        (c * c + c).backward(t.ones(3))

    _same_grads(program, A, B)


def _error(fn):
    messages = []
    for lib in LIBS:
        with pytest.raises(Exception) as info:
            fn(lib)
        messages.append((type(info.value), str(info.value)))
    assert messages[0] == messages[1], messages
    return messages[0]


def test_backward_twice_without_retain_graph_is_torchs_error():
    def fn(t):
        a, b = _leaves(t, A, B)
        y = a * b
        y.backward(t.ones(3))
        y.backward(t.ones(3))

    assert _error(fn)[1].startswith("Trying to backward through the graph a second time")


def test_implicit_grad_needs_a_scalar():
    _error(lambda t: (_leaves(t, A)[0] * 2).backward())


def test_backward_of_a_tensor_without_grad_fn():
    _error(lambda t: t.tensor([1.0, 2.0]).backward(t.ones(2)))


def test_grad_shape_mismatch():
    _error(lambda t: (_leaves(t, A)[0] * 2).backward(t.ones(2)))


def test_inplace_on_a_leaf_that_requires_grad():
    _error(lambda t: _leaves(t, A)[0].mul_(2))


def test_modified_saved_tensor_is_reported_with_the_version():
    def fn(t):
        a, b = _leaves(t, A, B)
        c = a * b
        d = c * c
        c.mul_(2)
        d.backward(t.ones(3))

    kind, message = _error(fn)
    assert "is at version 1; expected version 0 instead" in message


def test_autograd_grad_returns_gradients_without_accumulating():
    results = []
    for lib in LIBS:
        a, b = _leaves(lib, A, B)
        (ga, gb) = lib.autograd.grad((a * b).sum(), (a, b))
        results.append((ga.tolist(), gb.tolist(), a.grad, b.grad))
    assert results[0] == results[1]


def test_autograd_grad_unused_inputs():
    for lib in LIBS:
        a, b = _leaves(lib, A, B)
        y = a * 2
        with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
            lib.autograd.grad(y, (a, b), lib.ones(3), retain_graph=True)
        ga, gb = lib.autograd.grad(y, (a, b), lib.ones(3), allow_unused=True, retain_graph=True)
        assert gb is None and ga.tolist() == [2.0, 2.0, 2.0]
        ga, gb = lib.autograd.grad(y, (a, b), lib.ones(3), materialize_grads=True)
        assert gb.tolist() == [0.0, 0.0, 0.0]


def test_double_backward_through_mul():
    results = []
    for lib in LIBS:
        (a,) = _leaves(lib, A)
        y = a * a * a
        (g,) = lib.autograd.grad(y, a, lib.ones(3), create_graph=True)
        (gg,) = lib.autograd.grad(g, a, lib.ones(3))
        results.append((g.tolist(), gg.tolist()))
    assert results[0] == results[1]


def test_tensor_hooks_run_in_order_and_can_replace_the_grad():
    results = []
    for lib in LIBS:
        a, b = _leaves(lib, A, B)
        c = a * b
        seen = []
        c.register_hook(lambda g: seen.append(("first", g.tolist())))
        c.register_hook(lambda g: g * 10)
        c.register_hook(lambda g: seen.append(("third", g.tolist())))
        a.register_hook(lambda g: seen.append(("leaf", g.tolist())))
        c.backward(lib.ones(3))
        results.append((seen, a.grad.tolist(), b.grad.tolist()))
    assert results[0] == results[1]


def test_hook_handles_remove_and_hooks_need_requires_grad():
    for lib in LIBS:
        (a,) = _leaves(lib, A)
        handle = a.register_hook(lambda g: g * 0)
        handle.remove()
        (a * 1).backward(lib.ones(3))
        assert a.grad.tolist() == [1.0, 1.0, 1.0]
    _error(lambda t: t.tensor([1.0]).register_hook(lambda g: g))


def test_retain_grad_and_node_hooks():
    results = []
    for lib in LIBS:
        a, b = _leaves(lib, A, B)
        c = a * b
        c.retain_grad()
        d = c * 3
        log = []
        d.grad_fn.register_prehook(lambda grads: log.append("pre"))
        d.grad_fn.register_hook(lambda grad_inputs, grad_outputs: log.append("post"))
        d.backward(lib.ones(3))
        results.append((c.retains_grad, c.grad.tolist(), log, d.grad_fn.name(),
                        [type(f).__name__ if f is not None else None for f, _ in d.grad_fn.next_functions]))
    assert results[0][:4] == results[1][:4]


def test_grad_modes_as_context_managers_and_decorators():
    for lib in LIBS:
        (a,) = _leaves(lib, A)
        with lib.no_grad():
            assert not lib.is_grad_enabled()
            assert not (a * 2).requires_grad
            with lib.enable_grad():
                assert (a * 2).requires_grad
        with lib.set_grad_enabled(False):
            assert not (a * 2).requires_grad
        assert lib.is_grad_enabled()

        @lib.no_grad()
        def f(x):
            return x * 2

        assert not f(a).requires_grad
        with lib.inference_mode():
            assert lib.is_inference_mode_enabled() and not (a * 2).requires_grad
        assert not lib.is_inference_mode_enabled()


def test_grad_mode_is_per_thread():
    seen = []
    with torchpy.no_grad():
        thread = threading.Thread(target=lambda: seen.append(torchpy.is_grad_enabled()))
        thread.start()
        thread.join()
    assert seen == [True]


def test_grad_mode_restored_after_an_exception():
    with pytest.raises(ValueError):
        with torchpy.no_grad():
            raise ValueError
    assert torchpy.is_grad_enabled()


def test_deep_graph_runs_without_recursion():
    (a,) = _leaves(torchpy, [1.0])
    y = a
    for _ in range(5000):
        y = y * 1.0
    y.backward(torchpy.ones(1))
    assert a.grad.tolist() == [1.0]


def test_saved_tensors_are_freed_after_backward():
    a, b = _leaves(torchpy, A, B)
    big = b * 2
    ref = weakref.ref(big)
    y = a * big
    del big
    gc.collect()
    assert ref() is not None  # kept alive by the graph
    y.backward(torchpy.ones(3))
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("op", ["exp", "relu", "sigmoid", "tanh"])
def test_a_graph_that_saves_its_result_is_freed_without_the_garbage_collector(op):
    # The node owns the saved output; the saved output must not own the node (torch's
    # SavedVariable keeps no reference to its grad_fn), or every such graph is a cycle that
    # only the garbage collector frees. (torch's nodes take no weak references, so this
    # looks at torchpy's node alone.)
    gc.disable()
    try:
        (a,) = _leaves(torchpy, A)
        y = getattr(a, op)()
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None
    finally:
        gc.enable()


def test_saved_result_still_reattaches_its_node_for_double_backward():
    results = []
    for lib in LIBS:
        (a,) = _leaves(lib, A, dtype="float64")
        y = a.exp()
        (g,) = lib.autograd.grad(y.sum(), a, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), a)
        results.append((g.detach().numpy().tolist(), gg.numpy().tolist()))
    assert results[0] == results[1]


def test_integer_and_bool_outputs_are_not_differentiable():
    results = []
    for lib in LIBS:
        (a,) = _leaves(lib, A)
        outputs = [a > 1, a.argmax(), a.long(), a.sum()]
        results.append([(o.requires_grad, o.grad_fn is None) for o in outputs])
    assert results[0] == results[1]
    assert results[1][:3] == [(False, True)] * 3


def test_backward_dispatches_what_torch_dispatches():
    # The implicit root gradient is aten.ones_like with torch's memory_format=preserve_format.
    from tests.conformance.dispatch_log import assert_same_dispatch

    def program(t, a):
        y = (a.requires_grad_() * 2).sum()
        y.backward()

    assert_same_dispatch(program, np.array([1.0, 2.0], dtype=np.float32))


def test_queued_callbacks_run_when_backward_ends():
    # Variable._execution_engine.queue_callback and _C._current_graph_task_id, as in torch.
    for lib in (torch, torchpy):
        events = []
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = a * 2

        def hook(grad, lib=lib, events=events):
            events.append(("hook", lib._C._current_graph_task_id() != -1))
            lib.autograd.Variable._execution_engine.queue_callback(lambda: events.append("callback"))

        b.register_hook(hook)
        b.sum().backward()
        events.append(("after", lib._C._current_graph_task_id()))
        assert events == [("hook", True), "callback", ("after", -1)], lib.__name__
        with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass."):
            lib.autograd.Variable._execution_engine.queue_callback(lambda: None)
        assert isinstance(a, lib.autograd.Variable)


def test_a_formula_registered_after_first_use_is_recorded_from_then_on():
    # The autograd kernel caches a recording plan per op; registering a formula must reach it.
    from torchpy.autograd.derivatives import FORMULAS, derivative

    lib = torchpy.library.Library("engine_late_formula", "DEF")
    lib.define("triple(Tensor x) -> Tensor")
    lib.impl("triple", lambda x: x * 3, "CPU")
    x = torchpy.tensor([1.0, 2.0], requires_grad=True)
    before = torchpy.ops.engine_late_formula.triple(x)
    assert type(before.grad_fn).__name__ == "NotImplemented"
    try:
        derivative("engine_late_formula::triple", "TripleBackward0", inputs=("x",))(lambda grad: grad * 3)
        after = torchpy.ops.engine_late_formula.triple(x)
        assert type(after.grad_fn).__name__ == "TripleBackward0"
        after.sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]
    finally:
        dict.pop(FORMULAS, "engine_late_formula::triple", None)


@pytest.mark.parametrize("passing", ["by position", "by keyword"])
def test_formulas_get_their_saved_values_by_position_or_by_keyword(passing):
    # A formula whose parameters after grad are exactly its saved names (and needs) is called
    # by position; one with another parameter (here a default) by keyword. Both see the same.
    from torchpy.autograd.derivatives import FORMULAS, derivative

    ns = "engine_formula_" + passing.replace(" ", "_")
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("scaled(Tensor x, float s) -> Tensor")
    lib.impl("scaled", lambda x, s: x * s, "CPU")
    seen = []
    if passing == "by position":
        def formula(grad, s, x, needs):
            seen.append((s, x.tolist(), needs))
            return grad * s
    else:
        def formula(grad, x, s, needs, extra=10):
            seen.append((s, x.tolist(), needs))
            return grad * s
    try:
        derivative(f"{ns}::scaled", "ScaledBackward0", inputs=("x",), save=("x", "s"))(formula)
        assert (FORMULAS[f"{ns}::scaled"].positional is not None) == (passing == "by position")
        x = torchpy.tensor([1.0, 2.0], requires_grad=True)
        getattr(torchpy.ops, ns).scaled(x, 4.0).sum().backward()
        assert x.grad.tolist() == [4.0, 4.0]
        assert seen == [(4.0, [1.0, 2.0], (True,))]
    finally:
        dict.pop(FORMULAS, f"{ns}::scaled", None)
        lib._destroy()
