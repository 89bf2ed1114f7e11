"""Shared helpers for custom-op tests: one definition run through torch and torchpy."""

from __future__ import annotations

import itertools
import re
from typing import Any, Callable

import numpy as np
import pytest
import torch
import torch.utils._python_dispatch

import torchpy
import torchpy.utils._python_dispatch
from tests.oracle import CLOSE, assert_values

LIBS = (torch, torchpy)
_counter = itertools.count()


def fresh_ns(name: str) -> str:
    """A namespace no other test uses: torch keeps registrations for the whole process."""
    return f"mylib_{name}_{next(_counter)}"


def normalize(message: str) -> str:
    """Drop what legitimately differs between the libraries' messages: class paths and modules."""
    for ours, theirs in (("torchpy._tensor.tensor.Tensor", "torch.Tensor"),
                         ("torchpy._tensor.dtype.dtype", "torch.dtype"),
                         ("torchpy._tensor.device.device", "torch.device")):
        message = message.replace(ours, theirs)
    message = re.sub(r"<module '[\w.]+' from '[^']+'>", "<module>", message)
    # torch lists torch.distributed's GroupName among the valid parameter types
    message = message.replace(", torch.distributed.distributed_c10d.GroupName, "
                              "typing.Optional[torch.distributed.distributed_c10d.GroupName]", "")
    return message.replace("torchpy", "torch")


def to_numpy(value: Any) -> Any:
    """Tensors (also inside lists and tuples) as NumPy arrays, for comparison across libraries."""
    if isinstance(value, (torch.Tensor, torchpy.Tensor)):
        return value.detach().numpy()
    if isinstance(value, (list, tuple)):
        return type(value)(to_numpy(v) for v in value)
    return value


def assert_same(ours: Any, theirs: Any) -> None:
    ours, theirs = to_numpy(ours), to_numpy(theirs)
    if isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray), (ours, theirs)
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        assert_values(ours, theirs, CLOSE, str(theirs.dtype))
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), (ours, theirs)
        for o, t in zip(ours, theirs):
            assert_same(o, t)
    else:
        assert ours == theirs


def run_both(program: Callable[[Any, str], Any], name: str) -> tuple[Any, Any]:
    """program(lib, ns) in torch and torchpy (one namespace each, as registries are separate)."""
    ns = fresh_ns(name)
    return program(torchpy, ns), program(torch, ns)


def both_raise(program: Callable[[Any, str], Any], name: str, exc_type: type = RuntimeError) -> tuple[str, str]:
    """program(lib, ns) must raise `exc_type` with the same (normalized) message in both."""
    ns = fresh_ns(name)
    messages = []
    for lib in (torch, torchpy):
        with pytest.raises(exc_type) as info:
            program(lib, ns)
        assert type(info.value) is exc_type
        messages.append(normalize(str(info.value)))
    assert messages[1] == messages[0]
    return messages[1], messages[0]


def logging_mode(lib: Any, log: list) -> Any:
    """A TorchDispatchMode recording each op it sees with its argument kinds."""
    dispatch = torch.utils._python_dispatch if lib is torch else torchpy.utils._python_dispatch

    def describe(a: Any) -> Any:
        if isinstance(a, lib.Tensor):
            return ("Tensor", tuple(a.shape), a.requires_grad, a._version)
        if isinstance(a, (list, tuple)):
            return [describe(v) for v in a]
        return a if isinstance(a, (int, float, str, type(None))) else str(a)  # dtypes, formats

    class Logging(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            log.append((str(func), describe(args), {k: describe(v) for k, v in (kwargs or {}).items()}))
            return func(*args, **(kwargs or {}))

    return Logging()


def table_labels_of(lib: Any, qualname: str) -> dict[str, str]:
    """{key: label} of an op's computed dispatch table; a fallthrough shows as "fallthrough"."""
    from ..dispatch.helpers import table_labels

    dump = lib._C._dispatch_dump_table(qualname)
    labels = table_labels(dump, skip_backend_fallbacks=False)
    for line in dump.splitlines():
        key, _, rest = line.partition(": ")
        if rest.startswith("fallthrough"):
            labels[key] = "fallthrough"
    return labels
