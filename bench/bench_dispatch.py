"""The dispatcher's own cost per call, against a plain Python call and PyTorch's dispatcher.

All cases: one tensor-like argument and a CPU kernel that returns its input.
  plain       the kernel called as a plain Python function (the baseline)
  op          torchpy.ops.bench.ident(x), x carrying only the CPU key: one dispatch
  feature     the same call with PyTorch's key set for a CPU tensor (CPU, ADInplaceOrView,
              AutogradCPU, AutocastCPU): the Autograd fallback (a feature kernel) runs and
              redispatches below itself to CPU
  torch       torch.ops.bench.ident(t) with the same Python kernel at CPU (C++ dispatcher,
              then a call into Python)
"""

from __future__ import annotations

import torch

import torchpy
from torchpy._dispatch.keys import DispatchKey, DispatchKeySet

from common import markdown_table, per_call_us


class TensorLike:
    """What the dispatcher reads of a tensor (its key set) and what the autograd layer reads."""

    _requires_grad = False
    _base = None  # not a view (a view requires grad when its base does)

    def __init__(self, *keys: DispatchKey) -> None:
        self._keyset = DispatchKeySet(keys).raw_repr()


def ident(x):
    return x


def run() -> list[str]:
    lib = torchpy.library.Library("bench", "DEF")
    lib.define("ident(Tensor x) -> Tensor")
    lib.impl("ident", ident, "CPU")
    op = torchpy.ops.bench.ident.default
    cpu_only = TensorLike(DispatchKey.CPU)
    cpu_tensor = TensorLike(DispatchKey.CPU, DispatchKey.ADInplaceOrView,
                            DispatchKey.AutogradCPU, DispatchKey.AutocastCPU)

    tlib = torch.library.Library("bench", "DEF")
    tlib.define("ident(Tensor x) -> Tensor")
    tlib.impl("ident", ident, "CPU")
    t = torch.ones(4)
    top = torch.ops.bench.ident.default

    plain = per_call_us(lambda: ident(cpu_only))
    one_dispatch = per_call_us(lambda: op(cpu_only))
    with_feature = per_call_us(lambda: op(cpu_tensor))
    torch_op = per_call_us(lambda: top(t), number=50_000)
    lib._destroy()
    tlib._destroy()

    def row(name: str, us: float) -> list[str]:
        return [name, f"{us:.3f}", f"{us - plain:.3f}", f"{torch_op / us:.1f}×"]

    rows = [
        ["plain Python call `ident(x)`", f"{plain:.3f}", "—", "—"],
        row("`torchpy.ops.bench.ident(x)`, x with the CPU key only", one_dispatch),
        row("…x with a CPU tensor's key set: Autograd fallback redispatches to CPU", with_feature),
        ["`torch.ops.bench.ident(t)`, the same Python kernel at CPU", f"{torch_op:.3f}",
         f"{torch_op - plain:.3f}", "1.0×"],
    ]
    return [
        "## Dispatcher overhead (issue 2)",
        "",
        "One tensor-like argument, a CPU kernel that returns its input. Target: the "
        "dispatcher's own cost (time minus the plain call) at most 0.5 µs per call.",
        "",
        *markdown_table(["case", "µs per call", "dispatcher's own cost (µs)", "faster than torch"], rows),
        "",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
