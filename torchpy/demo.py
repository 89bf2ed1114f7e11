"""`make demo`: a tour of what torchpy can do today.

1. Define a custom operator with the library API.
2. Register kernels at two keys: a CPU backend kernel and an Autograd-layer
   kernel that logs and redispatches below itself.
3. Print the operator's computed dispatch table, as torch._C._dispatch_dump_table does.
4. Call it under a dispatch trace, which shows every decision the dispatcher made.
"""

from __future__ import annotations

import sys

import torchpy
from torchpy._C import DispatchKey, DispatchKeySet


class CPUTensorLike:
    """Stands in for a CPU tensor until the Tensor class exists: the dispatcher only reads
    its key set (PyTorch's for a CPU tensor: CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)."""

    _keyset = DispatchKeySet([DispatchKey.CPU, DispatchKey.ADInplaceOrView,
                              DispatchKey.AutogradCPU, DispatchKey.AutocastCPU]).raw_repr()

    def __repr__(self) -> str:
        return "<cpu tensor>"


def main() -> None:
    lib = torchpy.library.Library("demo", "DEF")
    lib.define("scale(Tensor x, float factor=2.0) -> Tensor")
    scale = torchpy.ops.demo.scale.default

    def scale_cpu(x, factor=2.0):
        return f"scale_cpu({x!r}, factor={factor})"

    def scale_autograd(keyset, x, factor=2.0):
        print(f"    [autograd kernel] got {keyset}; redispatching below autograd")
        return scale.redispatch(keyset & torchpy._C._after_autograd_keyset, x, factor)

    lib.impl("scale", scale_cpu, "CPU")
    lib.impl("scale", scale_autograd, "Autograd", with_keyset=True)

    print("== schema")
    print(scale._schema)
    print(f"{scale!s} / {scale!r} / name()={scale.name()}")
    print()
    print("== computed dispatch table (torchpy._C._dispatch_dump_table)")
    print(torchpy._C._dispatch_dump_table("demo::scale"), end="")
    print()
    print("== a call under torchpy.dispatch_trace()")
    with torchpy.dispatch_trace(sys.stdout):
        result = scale(CPUTensorLike(), 3.0)
    print(f"result: {result}")
    lib._destroy()


if __name__ == "__main__":
    main()
