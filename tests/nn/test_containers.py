"""nn.Sequential and the activation layers against torch: printing, indexing, forward, backward."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
import torch

import torchpy
from tests.oracle import assert_values, scaled


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU(inplace=True), lib.nn.Tanh(),
                             lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.Sigmoid()), lib.nn.ReLU())


def test_sequential_prints_and_indexes_as_torch():
    theirs, ours = _model(torch), _model(torchpy)
    assert repr(ours) == repr(theirs)
    assert repr(ours[1:3]) == repr(theirs[1:3])
    assert repr(ours[-1]) == repr(theirs[-1])
    assert len(ours) == len(theirs)
    assert [type(m).__name__ for m in ours] == [type(m).__name__ for m in theirs]
    named = lambda lib: repr(lib.nn.Sequential(OrderedDict([("act", lib.nn.ReLU())])).append(lib.nn.Tanh()))  # noqa: E731
    assert named(torchpy) == named(torch)


def test_sequential_index_out_of_range():
    for lib in (torch, torchpy):
        with pytest.raises(IndexError, match="index 5 is out of range"):
            _model(lib)[5]


def test_sequential_forward_and_backward_match_torch():
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    results = []
    for lib in (torch, torchpy):
        model = _model(lib)
        out = model(lib.tensor(x))
        out.sum().backward()
        results.append((out.detach().numpy(), [p.grad.numpy() for p in model.parameters()]))
    assert_values(results[1][0], results[0][0], scaled(rtol=1e-6))
    for ours, theirs in zip(results[1][1], results[0][1]):
        assert_values(ours, theirs, scaled(rtol=1e-5, atol=1e-7))


@pytest.mark.parametrize("inplace", [False, True])
def test_functional_relu(inplace):
    values = [[-1.0, 2.0], [3.0, -4.0]]
    outs = []
    for lib in (torch, torchpy):
        x = lib.tensor(values)
        y = lib.nn.functional.relu(x, inplace=inplace)
        outs.append((y.tolist(), x.tolist(), y is x))
    assert outs[1] == outs[0]


@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_functional_tanh_sigmoid(name):
    values = [[-1.0, 2.0], [3.0, -4.0]]
    outs = [getattr(lib.nn.functional, name)(lib.tensor(values)).tolist() for lib in (torch, torchpy)]
    assert_values(outs[1], outs[0], scaled(rtol=1e-6))
