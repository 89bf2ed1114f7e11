"""Run one piece of code under torch and under torchpy and compare what comes out."""

from __future__ import annotations

import collections.abc
from typing import Any, Callable

import numpy as np
import pytest
import torch
import torch.utils.data as torch_data

import torchpy
import torchpy.utils.data as torchpy_data

LIBS = [(torch, torch_data), (torchpy, torchpy_data)]


def plain(x: Any) -> Any:
    """A library-free picture of x: tensors as (dtype, shape, values, requires_grad); containers
    keep their type's name, so a list and a tuple (or two dict types) stay different."""
    if isinstance(x, (torch.Tensor, torchpy.Tensor)):
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), x.tolist())
    if isinstance(x, np.ndarray):
        return ("ndarray", str(x.dtype), x.tolist())
    if isinstance(x, collections.abc.Mapping):
        return (type(x).__name__, {k: plain(v) for k, v in x.items()})
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [plain(v) for v in x])
    return x


def same(fn: Callable[[Any, Any], Any]) -> Any:
    """fn(lib, data) under torch and torchpy, compared through plain(); returns torch's result."""
    expected, actual = (plain(fn(lib, data)) for lib, data in LIBS)
    assert actual == expected
    return expected


def same_error(fn: Callable[[Any, Any], Any], first_line_only: bool = False) -> str:
    """fn raises under both, the same type with the same message."""
    caught = []
    for lib, data in LIBS:
        with pytest.raises(Exception) as info:
            fn(lib, data)
        caught.append(info.value)
    want, got = caught
    assert type(got).__name__ == type(want).__name__
    msgs = [str(e).splitlines()[0] if first_line_only else str(e) for e in (want, got)]
    assert msgs[1] == msgs[0]
    return msgs[0]
