"""Where kernel implementations register under the names native_functions/*.yaml uses.

A YAML entry says ``dispatch: {CPU, Meta: add}``; the loader looks up the
kernel named "add" for CPU and for Meta here. Kernel modules fill the tables
with `register(name, keys)` (usually through a family's adapter, which turns
array-level code into a dispatcher kernel that takes and returns Tensors).
"""

from __future__ import annotations

from typing import Callable

# dispatch key name -> kernel name -> kernel
KERNELS: dict[str, dict[str, Callable]] = {}


def register(name: str, keys: tuple[str, ...] | str, fn: Callable | None = None) -> Callable:
    """Register `fn` as kernel `name` for each dispatch key in `keys`; usable as a decorator."""
    if isinstance(keys, str):
        keys = (keys,)

    def add(kernel: Callable) -> Callable:
        for key in keys:
            table = KERNELS.setdefault(key, {})
            if name in table:
                raise RuntimeError(f"kernel {name!r} registered twice for {key}")
            table[name] = kernel
        return kernel

    return add if fn is None else add(fn)


def lookup(key: str, name: str) -> Callable | None:
    """The kernel `name` for `key`. In-place (`add_`) and out (`add_out`) kernels that no
    module registered are derived from the functional kernel (`add`): compute, then write
    into self / out (see kernels/variants.py)."""
    table = KERNELS.get(key, {})
    kernel = table.get(name)
    if kernel is not None:
        return kernel
    from .kernels.variants import inplace_of, out_of  # the derivation rules live with the kernels

    if name.endswith("_out") and name[:-4] in table:
        return table.setdefault(name, out_of(table[name[:-4]]))
    if name.endswith("_") and name[:-1] in table:
        return table.setdefault(name, inplace_of(table[name[:-1]]))
    return None
