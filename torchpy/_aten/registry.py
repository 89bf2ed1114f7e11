"""Where kernel implementations register under the names native_functions/*.yaml uses.

A YAML entry says ``dispatch: {CPU, Meta: add}``; build.py looks up the kernel named "add"
here and registers it for CPU and for Meta. Which keys a kernel serves is said only there:
kernel modules register a name and a function (usually through a family's adapter, which
turns array-level code into a dispatcher kernel that takes and returns Tensors). Code that
must differ per key is two kernels with two names (pow for CPU, pow_meta for Meta).
"""

from __future__ import annotations

from typing import Callable

# kernel name -> kernel
KERNELS: dict[str, Callable] = {}


def register(name: str, fn: Callable | None = None) -> Callable:
    """Register `fn` as kernel `name`; usable as a decorator (`@register("add")`)."""

    def add(kernel: Callable) -> Callable:
        if name in KERNELS:
            raise RuntimeError(f"kernel {name!r} registered twice")
        KERNELS[name] = kernel
        return kernel

    return add if fn is None else add(fn)


def lookup(name: str) -> Callable | None:
    """The kernel `name`: registered by a kernel module, or (after the op table is built) an
    out= / in-place kernel build.py made from a functional one (out_policy.py)."""
    return KERNELS.get(name)
