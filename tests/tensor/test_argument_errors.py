"""Calls no overload takes: the TypeError and its first line as torch 2.13's argument parser
words them (single signature: the argument at fault; several: what was given)."""

import pytest
import torch

import torchpy

CASES = {
    "x.sum(0, 1)": lambda l, x: x.sum(0, 1),
    "sum(x, 0, 1)": lambda l, x: l.sum(x, 0, 1),
    "x.sum(0, keepdim=1)": lambda l, x: x.sum(0, keepdim=1),
    "ones(2, requires_grad=1)": lambda l, x: l.ones(2, requires_grad=1),
    "softmax(x, dim=True)": lambda l, x: l.softmax(x, dim=True),
    "x.softmax(True)": lambda l, x: x.softmax(True),
    "x.cumsum(dim=1.5)": lambda l, x: x.cumsum(dim=1.5),
    "cumsum(x, 1.5)": lambda l, x: l.cumsum(x, 1.5),
    "relu(x, 1)": lambda l, x: l.relu(x, 1),
    "x.relu(1)": lambda l, x: x.relu(1),
    "x.relu(foo=1)": lambda l, x: x.relu(foo=1),
    "x.exp(1, 2)": lambda l, x: x.exp(1, 2),
    "x.t(1)": lambda l, x: x.t(1),
    "x.transpose(0, 1.0)": lambda l, x: x.transpose(0, 1.0),
    "x.transpose(0, dim0=1)": lambda l, x: x.transpose(0, dim0=1),
    "x.flatten(0, 'a')": lambda l, x: x.flatten(0, "a"),
    "x.flatten(start_dim=0.5)": lambda l, x: x.flatten(start_dim=0.5),
    "x.mm(1)": lambda l, x: x.mm(1),
    "mm(x, 1)": lambda l, x: l.mm(x, 1),
    "x.std(0, unbiased=0)": lambda l, x: x.std(0, unbiased=0),
    "x.max(0, 1)": lambda l, x: x.max(0, 1),
    "x.clamp('a')": lambda l, x: x.clamp("a"),
    "x.mean(dim=0, keepdim='a')": lambda l, x: x.mean(dim=0, keepdim="a"),
    "x.mean(0, True, float32)": lambda l, x: x.mean(0, True, l.float32),
    "x.argmax(0, 1)": lambda l, x: x.argmax(0, 1),
    "x.unsqueeze(None)": lambda l, x: x.unsqueeze(None),
    "x.unsqueeze(dim=None)": lambda l, x: x.unsqueeze(dim=None),
    "x.unsqueeze()": lambda l, x: x.unsqueeze(),
    "x.cumsum()": lambda l, x: x.cumsum(),
    "cumsum(x)": lambda l, x: l.cumsum(x),
    "x.narrow(0, 0)": lambda l, x: x.narrow(0, 0),
    "x.narrow(0)": lambda l, x: x.narrow(0),
    "x.pow()": lambda l, x: x.pow(),
    "x.add(x, x)": lambda l, x: x.add(x, x),
    "x.add(x, alpha='a')": lambda l, x: x.add(x, alpha="a"),
    "x.permute(0, 'a')": lambda l, x: x.permute(0, "a"),
    "x.permute(0, 1.5)": lambda l, x: x.permute(0, 1.5),
    "x.expand(2, 'a')": lambda l, x: x.expand(2, "a"),
    "x.view(1.5)": lambda l, x: x.view(1.5),
    "x.squeeze(1.5)": lambda l, x: x.squeeze(1.5),
    "x.softmax(0, foo=1)": lambda l, x: x.softmax(0, foo=1),
    "softmax(x, 0, None, 1)": lambda l, x: l.softmax(x, 0, None, 1),
    "x.softmax(0, None, 1)": lambda l, x: x.softmax(0, None, 1),
    "relu(input=x, foo=1)": lambda l, x: l.relu(input=x, foo=1),
}


@pytest.mark.parametrize("name", CASES)
def test_argument_error_is_worded_as_torch(name):
    seen = []
    for lib in (torch, torchpy):
        with pytest.raises(TypeError) as info:
            CASES[name](lib, lib.ones(2, 3))
        seen.append(str(info.value).split("\n")[0])
    assert seen[1] == seen[0]
