"""What a TorchDispatchMode sees, recorded the same way for torch and torchpy.

    assert_same_dispatch(lambda t, a, b: t.matmul(a, b), randn(2, 3), randn(3))

runs the lambda under a recording mode in both libraries and compares the
sequences of (op, args, kwargs), with tensors reduced to (shape, dtype) and
devices, dtypes and generators to their names.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

import torch

import torchpy

from tests.oracle import convert


_GENERATORS = tuple(lib.Generator for lib in (torch, torchpy) if hasattr(lib, "Generator"))


def _describe(x: Any) -> Any:
    if isinstance(x, (torch.Tensor, torchpy.Tensor)):
        return ("Tensor", tuple(x.shape), str(x.dtype))
    if isinstance(x, (list, tuple)):
        return [_describe(v) for v in x]
    if isinstance(x, dict):
        return {k: _describe(v) for k, v in x.items()}
    if isinstance(x, (torch.dtype, torchpy.dtype, torch.device, torchpy.device)):
        return str(x)
    if isinstance(x, _GENERATORS):
        return "Generator"
    if type(x).__name__ in ("layout", "memory_format"):
        return str(x)
    return x


def dispatch_log(lib: Any, fn: Callable, *inputs: Any) -> list:
    """The (op, args, kwargs) a TorchDispatchMode sees while fn(lib, *inputs) runs."""
    args = [convert(x, lib) for x in inputs]
    log = []

    python_dispatch = importlib.import_module(lib.__name__ + ".utils._python_dispatch")

    class Recorder(python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            log.append((str(func), _describe(list(args)), _describe(kwargs or {})))
            return func(*args, **(kwargs or {}))

    with Recorder():
        fn(lib, *args)
    return log


def assert_same_dispatch(fn: Callable, *inputs: Any) -> list:
    expected = dispatch_log(torch, fn, *inputs)
    actual = dispatch_log(torchpy, fn, *inputs)
    assert actual == expected, f"\ntorchpy: {actual}\ntorch:   {expected}"
    return actual
