"""Run one program through torch and torchpy and compare what it returns.

A program is `fn(lib)` with `lib` the library module; it returns plain data
(strings, numbers, lists, dicts, tuples) and tensors, which are compared by
dtype name, shape and values (under the oracle's policies, `tests/oracle.py`). A raised
exception becomes ("raised", type name, message), so error types and texts compare as data;
`check` fails when either library raises unless the test says it expects an error.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch

import torchpy
from tests.oracle import Policy, assert_values

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
    """fn(lib) as plain data, or ("raised", type name, message) with the error kept aside."""
    return _run(fn, lib)[0]


def _run(fn: Callable[[Any], Any], lib: Any) -> tuple[Any, BaseException | None]:
    lib.manual_seed(0)  # both libraries draw the same numbers from the same seed
    try:
        return plain(fn(lib)), None
    except Exception as e:  # the error is the result being compared
        # module paths differ only in the package name (torchpy.nn.modules... vs torch.nn.modules...)
        return ("raised", type(e).__name__, str(e).replace("torchpy.", "torch.")), e


def assert_same(a: Any, b: Any, policy: Policy | None = None, path: str = "") -> None:
    """torch's plain result `a` against torchpy's `b`, tensors' values under `policy`."""
    if isinstance(a, tuple) and len(a) == 4 and a and a[0] == "tensor":
        assert isinstance(b, tuple) and b[0] == "tensor", f"{path}: {a} vs {b}"
        assert a[1:3] == b[1:3], f"{path}: dtype/shape {a[1:3]} vs {b[1:3]}"
        assert_values(b[3], a[3], policy, a[1].removeprefix("torch."), path or "result")
        return
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), f"{path}: keys {list(a)} vs {list(b) if isinstance(b, dict) else b}"
        for k in a:
            assert_same(a[k], b[k], policy, f"{path}[{k!r}]")
        return
    if isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), f"{path}: {a} vs {b}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, policy, f"{path}[{i}]")
        return
    if isinstance(a, float) and isinstance(b, float):
        assert_values(b, a, policy, "float64", path or "result")
        return
    assert a == b, f"{path}: torch {a!r} vs torchpy {b!r}"


def check(fn: Callable[[Any], Any], policy: Policy | None = None,
          expect_error: type[BaseException] | None = None) -> Any:
    """Run fn through both libraries; assert equal results; return torch's.

    A success-path check fails when either library raises. With `expect_error`, both must
    raise that type with the same message (module paths aside)."""
    expected, theirs = _run(fn, torch)
    actual, ours = _run(fn, torchpy)
    if expect_error is None:
        assert theirs is None and ours is None, f"raised: torch {expected!r}, torchpy {actual!r}"
    else:
        assert theirs is not None, f"torch did not raise; it gave {expected!r}"
        assert isinstance(theirs, expect_error), f"torch raised {expected!r}, not {expect_error.__name__}"
    assert_same(expected, actual, policy)
    return expected
