"""Run code written for `torch` on torchpy: `torchpy.compat.install()` makes `import torch`
(and `import torch.nn.functional as F`, `from torch.utils._python_dispatch import ...`)
resolve to torchpy's modules. `python -m torchpy.compat script.py [args]` runs a script so.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import torchpy


def _torchpy_modules() -> list[str]:
    """Every module of the torchpy package, imported, by dotted name."""
    names = ["torchpy"]
    for info in pkgutil.walk_packages(torchpy.__path__, prefix="torchpy."):
        if info.name.startswith("torchpy.compat") or ".tests" in info.name:
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:
            continue
        names.append(info.name)
    return names


def install() -> None:
    """Alias torch and torch.<submodule> to torchpy and torchpy.<submodule> in sys.modules."""
    for name in _torchpy_modules():
        alias = "torch" + name[len("torchpy"):]
        sys.modules[alias] = sys.modules[name]


def uninstall() -> None:
    """Remove the aliases install() made."""
    for alias in [n for n, m in sys.modules.items() if n == "torch" or n.startswith("torch.")]:
        module = sys.modules[alias]
        if getattr(module, "__name__", "").startswith("torchpy"):
            del sys.modules[alias]
