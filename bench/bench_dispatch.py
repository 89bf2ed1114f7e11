"""The dispatcher's own cost per call, against a plain Python call and PyTorch's dispatcher.

Cases, all with one tensor-like argument and a kernel that returns its input:
  direct      the kernel called as a plain Python function (the baseline)
  op          torchpy.ops.bench.ident(x): CPU kernel
  feature     the same op with a kernel at a feature key (AutogradCPU) that redispatches to CPU
  torch op    torch.ops.bench.ident(t) with the same Python kernel at CPU (C++ dispatcher + a Python call)
"""

from __future__ import annotations

import torch

import torchpy
from torchpy._dispatch import keys as K
from torchpy._dispatch.dispatcher import RAW, Kernel, caller_location, dispatcher
from torchpy._dispatch.keys import DispatchKey, DispatchKeySet

from common import markdown_table, per_call_us


class TensorLike:
    """What the dispatcher sees of a CPU tensor: its key set."""

    _keyset = DispatchKeySet([DispatchKey.CPU, DispatchKey.ADInplaceOrView,
                              DispatchKey.AutogradCPU, DispatchKey.AutocastCPU]).raw_repr()


def ident(x):
    return x


def run() -> list[str]:
    lib = torchpy.library.Library("bench", "DEF")
    lib.define("ident(Tensor x) -> Tensor")
    lib.define("ident2(Tensor x) -> Tensor")
    lib.impl("ident", ident, "CPU")
    lib.impl("ident2", ident, "CPU")
    after_autograd = K.full_after(DispatchKey.AutogradCPU)

    def autograd_like(op, ks, args, kwargs):  # a feature kernel: do nothing, redispatch below
        return op._redispatch_raw(ks & after_autograd, args, kwargs)

    handle = dispatcher.register_kernel("bench::ident2", DispatchKey.AutogradCPU,
                                        Kernel(autograd_like, RAW, caller_location()))
    x = TensorLike()
    op, op2 = torchpy.ops.bench.ident.default, torchpy.ops.bench.ident2.default

    tlib = torch.library.Library("bench", "DEF")
    tlib.define("ident(Tensor x) -> Tensor")
    tlib.impl("ident", ident, "CPU")
    t = torch.ones(4)
    top = torch.ops.bench.ident.default

    direct = per_call_us(lambda: ident(x))
    through_op = per_call_us(lambda: op(x))
    through_feature = per_call_us(lambda: op2(x))
    torch_op = per_call_us(lambda: top(t), number=50_000)
    handle.remove()
    lib._destroy()
    tlib._destroy()

    rows = [
        ["plain Python call `ident(x)`", f"{direct:.3f}", "—"],
        ["`torchpy.ops.bench.ident(x)`, CPU kernel", f"{through_op:.3f}", f"{through_op - direct:.3f}"],
        ["…with a feature kernel at AutogradCPU that redispatches", f"{through_feature:.3f}",
         f"{through_feature - direct:.3f}"],
        ["`torch.ops.bench.ident(t)`, same Python kernel at CPU", f"{torch_op:.3f}", f"{torch_op - direct:.3f}"],
    ]
    return [
        "## Dispatcher overhead (issue 2)",
        "",
        "One tensor-like argument, a kernel that returns its input. Target: the dispatcher's "
        "own cost (time minus the plain call) at most 0.5 µs.",
        "",
        *markdown_table(["case", "µs per call", "dispatcher's own cost (µs)"], rows),
        "",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
