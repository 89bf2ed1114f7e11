"""torchpy.testing._internal.logging_tensor against torch's: the same programs give the same log lines."""

import logging

import pytest
import torch
import torch.testing._internal.logging_tensor as torch_logging

import torchpy
import torchpy.testing._internal.logging_tensor as torchpy_logging

LIBS = [(torch, torch_logging), (torchpy, torchpy_logging)]

MODE_PROGRAMS = {
    "mul_sum_backward": lambda t: (t.tensor([1.0, 2.0, 3.0], requires_grad=True) ** 2).sum().backward(),
    "exp_div_mean_backward": lambda t: (t.tensor([1.0, 2.0], requires_grad=True).exp() / 2).mean().backward(),
    "matmul_relu_backward": lambda t: (t.ones(2, 3, requires_grad=True) @ t.ones(3, 4)).relu().sum().backward(),
    "sum_backward_copies_grad": lambda t: t.ones(2, 3, requires_grad=True).t().sum().backward(),
    "views": lambda t: t.arange(6.0).view(2, 3).t()[1].unsqueeze(0).expand(3, 2).reshape(6),
    "in_place": lambda t: t.zeros(2, 2).add_(1).mul_(t.ones(2)).clamp_(max=0.5),
    "multiple_outputs": lambda t: (t.tensor([[3.0, 1.0], [2.0, 4.0]]).max(1), t.arange(5.0).split(2)),
    "multiple_outputs_backward": lambda t: t.tensor([[3.0, 1.0], [2.0, 4.0]], requires_grad=True).max(1)[0].sum().backward(),
    "factories": lambda t: (t.zeros(2, dtype=t.int64), t.ones(1, 2), t.full((2,), 7.0), t.arange(3),
                            t.empty(2).fill_(1), t.eye(2), t.tensor([True, False]), t.linspace(0, 1, 3)),
    "random_factories": lambda t: (t.manual_seed(0), t.rand(2), t.randn(3), t.randint(0, 5, (2,))),
    "mul_self_backward": lambda t: (lambda x: (x * x).sum().backward())(t.tensor([1.0, 2.0], requires_grad=True)),
    "two_leaves_backward": lambda t: (t.tensor([1.0, 2.0], requires_grad=True) * t.tensor([3.0, 4.0], requires_grad=True)).sum().backward(),
    "linear_backward": lambda t: t.nn.functional.linear(t.ones(4, 2, requires_grad=True), t.ones(3, 2, requires_grad=True),
                                                       t.ones(3, requires_grad=True)).sum().backward(),
    "linear_no_bias_relu_backward": lambda t: t.nn.functional.linear(t.ones(4, 2), t.ones(3, 2, requires_grad=True)).relu().sum().backward(),
    "create_graph_backward": lambda t: (t.tensor([1.0, 2.0], requires_grad=True) ** 3).sum().backward(create_graph=True),
}


@pytest.mark.parametrize("name", sorted(MODE_PROGRAMS))
def test_logging_tensor_mode_logs_as_torch(name):
    program = MODE_PROGRAMS[name]
    logs = []
    for lib, module in LIBS:
        with module.capture_logs(is_mode=True) as log, module.LoggingTensorMode():
            program(lib)
        logs.append(log)
    assert logs[1] == logs[0]
    assert logs[1]  # every program runs ops


def _wrapper_program(name):
    def mul_backward(t, L, x):
        (x.exp() * 2).mean().backward()
        return x.grad

    def mul_self_backward(t, L, x):
        (x * x).sum().backward()
        return x.grad

    def views_then_backward(t, L, x):
        y = x.sin().t()
        first, _ = y.split(1, 0)[:2]
        first.sum().backward()
        return x.grad

    def in_place(t, L, x):
        y = x.cos()
        y.add_(1)
        y.mul_(2)
        return y

    def multiple_outputs(t, L, x):
        values, indices = x.max(1)
        return values + indices

    def mixed_with_plain(t, L, x):
        return x + t.ones(2, 3) * 2

    return {"mul_backward": mul_backward, "mul_self_backward": mul_self_backward, "views_then_backward": views_then_backward, "in_place": in_place,
            "multiple_outputs": multiple_outputs, "mixed_with_plain": mixed_with_plain}[name]


@pytest.mark.parametrize("name", ["mul_backward", "mul_self_backward", "views_then_backward", "in_place", "multiple_outputs",
                                  "mixed_with_plain"])
def test_logging_tensor_logs_as_torch(name):
    program = _wrapper_program(name)
    outputs = []
    for lib, module in LIBS:
        x = module.LoggingTensor(lib.arange(6.0).view(2, 3), requires_grad=name.endswith("backward"))
        with module.capture_logs() as log:
            module.log_input("x", x)
            result = program(lib, module, x)
        outputs.append((log, repr(result)))
    assert outputs[1] == outputs[0]


def test_logging_tensor_where_the_wrapped_tensor_requires_grad():
    outputs = []
    for lib, module in LIBS:
        elem = lib.tensor([1.0, 2.0], requires_grad=True)
        for cls in (module.LoggingTensor, module.LoggingTensorReentrant):
            x = cls(elem)
            with module.capture_logs() as log:
                module.log_input("x", x)
                y = (x * x).sum()
            outputs.append((cls.__name__, log, type(y).__name__, repr(y)))
    assert outputs[2:] == outputs[:2]


def test_repr_of_a_logging_tensor():
    reprs = [[repr(module.LoggingTensor(lib.arange(4.0).view(2, 2), requires_grad=rg)) for rg in (False, True)]
             + [repr(module.LoggingTensor(lib.arange(3, dtype=lib.int32)))]
             for lib, module in LIBS]
    assert reprs[1] == reprs[0]


def test_capture_logs_without_mode_names_only_logging_tensors():
    # With is_mode=False plain tensors are shown by repr, LoggingTensors by $n.
    logs = []
    for lib, module in LIBS:
        x = module.LoggingTensor(lib.tensor([1.0, 2.0]))
        with module.capture_logs() as log:
            lib.cat([x, lib.tensor([3.0])])
            x.add(lib.tensor([1.0, 1.0]), alpha=2)
        logs.append(log)
    assert logs[1] == logs[0]


def test_capture_logs_restores_the_logger():
    for lib, module in LIBS:
        logger = logging.getLogger("LoggingTensor")
        before = list(logger.handlers)
        with module.capture_logs(is_mode=True) as log:
            with module.LoggingTensorMode():
                lib.ones(1)
        assert logger.handlers == before
        with module.LoggingTensorMode():
            lib.ones(1)
        assert len(log) == 1


def test_python_tracebacks_name_the_calling_line():
    # torch's frames are its own (dynamo wrappers, ...); both end in the line that ran the op.
    lines = []
    for lib, module in LIBS:
        with module.capture_logs(is_mode=True, python_tb=True) as (log, tracebacks):
            with module.LoggingTensorMode():
                lib.ones(1)
        assert len(log) == len(tracebacks) == 1
        caller = [f for f in tracebacks[0] if f["filename"] == __file__]
        lines.append((caller[-1]["name"], caller[-1]["line"] - lines[0][1] if lines else caller[-1]["line"]))
    assert lines[1][0] == lines[0][0] == "test_python_tracebacks_name_the_calling_line"
