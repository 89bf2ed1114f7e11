"""Run one program through torch and torchpy and compare what it returns.

A program is `fn(lib)` with `lib` the library module; it returns plain data
(strings, numbers, lists, dicts, tuples) and tensors, which are compared by
dtype name, shape and values. `outcome(fn, lib)` turns a raised exception into
("raised", type name, message) so error types and texts compare as data.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch

import torchpy

LIBS = (torch, torchpy)


def plain(value: Any) -> Any:
    """Library-independent form of a result: tensors become (kind, dtype, shape, values)."""
    if isinstance(value, (torch.Tensor, torchpy.Tensor)):
        t = value.detach()
        return ("tensor", str(t.dtype), tuple(t.shape), np.asarray(t.tolist(), dtype=np.float64))
    if isinstance(value, (torch.Size, torchpy.Size)):
        return ("size", tuple(value))
    if isinstance(value, (torch.dtype, torchpy.dtype)):
        return ("dtype", str(value))
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value) if not hasattr(value, "_fields") else tuple(plain(v) for v in value)
    return value


def outcome(fn: Callable[[Any], Any], lib: Any) -> Any:
    lib.manual_seed(0)  # both libraries draw the same numbers from the same seed
    try:
        return plain(fn(lib))
    except Exception as e:  # the error is the result being compared
        # module paths differ only in the package name (torchpy.nn.modules... vs torch.nn.modules...)
        return ("raised", type(e).__name__, str(e).replace("torchpy.", "torch."))


def assert_same(a: Any, b: Any, rtol: float = 1e-6, atol: float = 1e-7, path: str = "") -> None:
    if isinstance(a, tuple) and len(a) == 4 and a and a[0] == "tensor":
        assert isinstance(b, tuple) and b[0] == "tensor", f"{path}: {a} vs {b}"
        assert a[1:3] == b[1:3], f"{path}: dtype/shape {a[1:3]} vs {b[1:3]}"
        np.testing.assert_allclose(b[3], a[3], rtol=rtol, atol=atol, err_msg=path)
        return
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), f"{path}: keys {list(a)} vs {list(b) if isinstance(b, dict) else b}"
        for k in a:
            assert_same(a[k], b[k], rtol, atol, f"{path}[{k!r}]")
        return
    if isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), f"{path}: {a} vs {b}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, rtol, atol, f"{path}[{i}]")
        return
    if isinstance(a, float) and isinstance(b, float):
        assert np.isclose(a, b, rtol=rtol, atol=atol), f"{path}: {a} vs {b}"
        return
    assert a == b, f"{path}: torch {a!r} vs torchpy {b!r}"


def check(fn: Callable[[Any], Any], rtol: float = 1e-6, atol: float = 1e-7) -> Any:
    """Run fn through both libraries; assert equal results; return torch's."""
    expected = outcome(fn, torch)
    actual = outcome(fn, torchpy)
    assert_same(expected, actual, rtol, atol)
    return expected
