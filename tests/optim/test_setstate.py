"""Optimizer.__setstate__ (unpickling an optimizer saved before some options existed) fills the
missing options of every param group as torch's does."""

import copy

import pytest
import torch

import torchpy

NAMES = ["Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "ASGD", "NAdam", "RAdam", "RMSprop",
         "Rprop", "SGD"]


def _reloaded_groups(lib, name):
    param = lib.nn.Parameter(lib.ones(2))
    optimizer = getattr(lib.optim, name)([param], lr=0.01)
    state = copy.copy(optimizer.__dict__)
    # a group as an old version saved it: only lr and the params
    state["param_groups"] = [{"params": group["params"], "lr": group["lr"]} for group in optimizer.param_groups]
    fresh = object.__new__(type(optimizer))
    fresh.__setstate__(state)
    return [{k: v for k, v in group.items() if k != "params"} for group in fresh.param_groups]


@pytest.mark.parametrize("name", NAMES)
def test_setstate_fills_missing_group_options_as_torch(name):
    assert _reloaded_groups(torchpy, name) == _reloaded_groups(torch, name)


def _reloaded_scalar_states(lib, name):
    param = lib.nn.Parameter(lib.ones(2))
    optimizer = getattr(lib.optim, name)([param], lr=0.01)
    param.grad = lib.ones(2)
    optimizer.step()
    state = copy.copy(optimizer.__dict__)
    # per-parameter scalars as an old version saved them: Python numbers
    state["state"] = {p: {k: (float(v) if isinstance(v, lib.Tensor) and v.dim() == 0 else v) for k, v in s.items()}
                      for p, s in optimizer.state.items()}
    fresh = object.__new__(type(optimizer))
    fresh.__setstate__(state)
    return {k: (type(v).__name__, str(v.dtype).split(".")[-1], float(v)) if isinstance(v, lib.Tensor) and v.dim() == 0
            else type(v).__name__ for k, v in fresh.state.get(param, {}).items()}


@pytest.mark.parametrize("name", NAMES)
def test_setstate_makes_number_states_scalar_tensors_as_torch(name):
    assert _reloaded_scalar_states(torchpy, name) == _reloaded_scalar_states(torch, name)
