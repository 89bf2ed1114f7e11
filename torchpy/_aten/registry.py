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
    """The kernel `name`. In-place (`add_`) and out (`add_out`) kernels that no module
    registered are derived from the functional kernel (`add`): compute, then write into
    self / out (see kernels/variants.py)."""
    kernel = KERNELS.get(name)
    if kernel is not None:
        return kernel
    from .kernels.variants import inplace_of, out_of  # the derivation rules live with the kernels

    if name.endswith("_out") and name[:-4] in KERNELS:
        return KERNELS.setdefault(name, out_of(KERNELS[name[:-4]]))
    if name.endswith("_") and name[:-1] in KERNELS:
        return KERNELS.setdefault(name, inplace_of(KERNELS[name[:-1]]))
    return None
