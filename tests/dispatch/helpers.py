"""Shared helpers for dispatcher tests: tensor-like objects and table comparison."""

from __future__ import annotations

import itertools
import re

from torchpy._dispatch.keys import DispatchKey, DispatchKeySet

_namespace_counter = itertools.count()


def fresh_namespace(prefix: str = "tpytest") -> str:
    """A namespace no other test uses (torch and torchpy both keep namespaces per process)."""
    return f"{prefix}{next(_namespace_counter)}"


class FakeTensor:
    """The dispatcher sees a tensor only as an object with a raw key set."""

    def __init__(self, *keys: DispatchKey, name: str = "t") -> None:
        self._keyset = DispatchKeySet(keys).raw_repr()
        self.name = name

    def __repr__(self) -> str:
        return f"FakeTensor({self.name})"


def cpu_tensor(name: str = "t") -> FakeTensor:
    """Key set of a plain CPU tensor in PyTorch: CPU, ADInplaceOrView, AutogradCPU, AutocastCPU."""
    return FakeTensor(DispatchKey.CPU, DispatchKey.ADInplaceOrView, DispatchKey.AutogradCPU,
                      DispatchKey.AutocastCPU, name=name)


_LINE = re.compile(r"^(\w+): (.*) \[([^\]]+)\]$")


def table_labels(dump: str, *, skip_backend_fallbacks: bool = True) -> dict[str, str]:
    """{key: label} from a `_dispatch_dump_table` string (torch's or torchpy's)."""
    labels = {}
    for line in dump.splitlines():
        match = _LINE.match(line)
        assert match, line
        key, _, label = match.groups()
        if skip_backend_fallbacks and label == "backend fallback":
            continue
        labels[key] = label
    return labels
