"""Anomaly mode against torch: the flags, the warning on entry, the forward traceback recorded on
nodes, NaN detection in backward and the "Error detected in ..." warnings.

Each scenario runs once per library from the same line, so the recorded forward stacks (which end
at the user's call: torchpy drops its own frames, torch's are C++) can be compared whole. torch's
warnings raised from C++ end with " (Triggered internally at ...)", which is cut before comparing.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, Callable

import numpy as np
import pytest
import torch

import torchpy
from tests.oracle import EXACT, assert_values, scaled

LIBS = (torch, torchpy)


def _warning_texts(caught: list) -> list[str]:
    return [str(w.message).split(" (Triggered internally at")[0] for w in caught]


def run(t: Any, scenario: Callable) -> tuple:
    """(exception type and message or None, warning texts, anomaly flags after) of scenario(t)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            scenario(t)
            error = None
        except Exception as e:  # noqa: BLE001  (the type is compared)
            error = (type(e).__name__, str(e))
    return error, _warning_texts(caught), (t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled())


def both(scenario: Callable) -> list[tuple]:
    return [run(t, scenario) for t in LIBS]  # one line: the same stack above each scenario


def zero_and_one(t: Any) -> Any:
    return t.tensor([0.0, 1.0], requires_grad=True)


def divide(x: Any) -> Any:
    return x / x


def function_raising(t: Any) -> type:
    class Boom(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom in backward")

    return Boom


# --- flags -------------------------------------------------------------------------------------


def test_flags_default_and_set():
    for t in LIBS:
        assert (t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()) == (False, True)
        t.autograd.set_detect_anomaly(True, check_nan=False)  # as a function
        assert (t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()) == (True, False)
        t.autograd.set_detect_anomaly(False)
        assert (t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()) == (False, True)
        with t.autograd.set_detect_anomaly(True, check_nan=False):  # as a context manager
            assert (t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()) == (True, False)
        assert (t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()) == (False, True)
        t.set_anomaly_enabled(True)
        assert t.is_anomaly_enabled()
        t.set_anomaly_enabled(False)


def test_detect_anomaly_warns_on_creation_and_restores():
    def scenario(t):
        with t.autograd.detect_anomaly(check_nan=False):
            assert (t.is_anomaly_enabled(), t.is_anomaly_check_nan_enabled()) == (True, False)
            with t.autograd.set_detect_anomaly(False):
                assert not t.is_anomaly_enabled()
            assert t.is_anomaly_enabled()
            raise KeyError("leaves the block")

    expected, actual = both(scenario)
    assert actual == expected
    assert expected[1] == ["Anomaly Detection has been enabled. This mode will increase the runtime and should "
                           "only be enabled for debugging."]
    assert expected[2] == (False, True)  # restored although the block raised


def test_detect_anomaly_is_not_a_decorator():
    def scenario(t):
        @t.autograd.detect_anomaly()
        def f():
            return 1

    expected, actual = both(scenario)
    assert actual == expected and expected[0] == ("TypeError", "'detect_anomaly' object is not callable")


# --- forward tracebacks ---------------------------------------------------------------------------


def test_nodes_record_the_forward_stack():
    stacks = []

    def scenario(t):
        with t.autograd.set_detect_anomaly(True):
            y = divide(zero_and_one(t))
        stacks.append((sorted(y.grad_fn.metadata), y.grad_fn.metadata["traceback_"]))

    both(scenario)
    (torch_keys, torch_stack), (keys, stack) = stacks
    assert keys == torch_keys == ["traceback_"]
    assert stack == torch_stack
    assert stack[-1].endswith("return x / x\n")


def test_nothing_recorded_when_off():
    for t in LIBS:
        y = divide(zero_and_one(t))
        assert dict(y.grad_fn.metadata) == {}


# --- backward errors --------------------------------------------------------------------------------


def test_nan_in_backward():
    def scenario(t):
        with t.autograd.detect_anomaly():
            y = divide(zero_and_one(t))
            y.sum().backward()

    expected, actual = both(scenario)
    assert actual == expected
    assert expected[0] == ("RuntimeError", "Function 'DivBackward0' returned nan values in its 1th output.")
    assert expected[1][1].startswith("Error detected in DivBackward0. Traceback of forward call that caused the "
                                     "error:\n")
    assert expected[1][1].endswith("return x / x\n")
    assert expected[2] == (False, True)


def test_nan_check_off():
    grads = []

    def scenario(t):
        x = zero_and_one(t)
        with t.autograd.set_detect_anomaly(True, check_nan=False):
            divide(x).sum().backward()
        grads.append(np.asarray(x.grad.tolist()))

    expected, actual = both(scenario)
    assert actual == expected and expected[0] is None and expected[1] == []
    assert_values(grads[1], grads[0], EXACT)  # divisions: IEEE exact
    assert np.isnan(grads[0][0])


def test_node_created_before_anomaly_mode():
    def scenario(t):
        y = divide(zero_and_one(t))
        with t.autograd.set_detect_anomaly(True):
            y.sum().backward()

    expected, actual = both(scenario)
    assert actual == expected
    assert expected[1] == ["Error detected in DivBackward0. No forward pass information available. Enable detect "
                           "anomaly during forward pass for more information."]


def test_error_in_function_backward():
    def scenario(t):
        with t.autograd.set_detect_anomaly(True):
            out = function_raising(t).apply(zero_and_one(t))
            out.sum().backward()

    expected, actual = both(scenario)
    assert actual[0] == expected[0] == ("ValueError", "boom in backward")  # the error itself passes through
    assert actual[2] == expected[2] == (False, True)
    [torch_warning], [warning] = expected[1], actual[1]
    first = "Error detected in BoomBackward. Traceback of forward call that caused the error:"
    assert torch_warning.split("\n")[0] == warning.split("\n")[0] == first
    # torch's stack ends with a frame inside torch/autograd/function.py (Function.apply is Python
    # there too); torchpy drops its own frames. Everything before it is the same.
    assert warning == torch_warning.split('  File "' + sys.modules["torch.autograd.function"].__file__)[0]
    assert warning.endswith("out = function_raising(t).apply(zero_and_one(t))\n")


def test_error_without_anomaly_mode_has_no_warning():
    def scenario(t):
        function_raising(t).apply(zero_and_one(t)).sum().backward()

    expected, actual = both(scenario)
    assert actual == expected and expected[1] == []


def test_double_backward_records_the_parent():
    names = []

    def scenario(t):
        class Square(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return function_raising(t).apply(g * x * 2)

        with t.autograd.set_detect_anomaly(True):
            x = zero_and_one(t)
            (g,) = t.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
            names.append((g.grad_fn.name(), g.grad_fn.metadata["parent_"].name(), sorted(g.grad_fn.metadata)))
            g.sum().backward()

    expected, actual = both(scenario)
    assert names[1] == names[0] == ("BoomBackward", "SquareBackward", ["parent_", "traceback_"])
    assert actual[0] == expected[0] == ("ValueError", "boom in backward")
    assert [w.split("\n")[:3] for w in actual[1]][1:] == [w.split("\n")[:3] for w in expected[1]][1:]
    assert actual[1][0].split("\n")[0] == expected[1][0].split("\n")[0]
    assert expected[1][1].startswith("\n\nPrevious calculation was induced by SquareBackward. Traceback of forward "
                                     "call that induced the previous calculation:\n")


@pytest.mark.parametrize("check_nan", [True, False])
def test_backward_results_unchanged(check_nan):
    # Anomaly mode only observes: a healthy backward gives the same gradients.
    for t in LIBS:
        x = t.tensor([[0.5, -1.0], [2.0, 3.0]], requires_grad=True)
        with t.autograd.set_detect_anomaly(True, check_nan=check_nan):
            (x.exp() * x).sum().backward()
        expected = torch.tensor([[0.5, -1.0], [2.0, 3.0]])
        assert_values(np.asarray(x.grad.tolist()), ((expected + 1) * expected.exp()).numpy(), scaled(rtol=1e-6))
