"""`make demo`: a tour of what torchpy can do today.

1. A custom operator, defined with the library API, with kernels at two keys;
   its computed dispatch table; a call under the dispatch trace.
2. A short tensor tour: creation, promotion, broadcasting, views, reductions.
3. Autograd: a backward pass and the graph it ran.
4. A TorchDispatchMode logging the aten ops of a forward and backward pass.
5. torch's LoggingTensorMode log lines and the FLOP counter, forward and backward.
"""

from __future__ import annotations

import sys

import torchpy
from torchpy.testing._internal.logging_tensor import LoggingTensorMode, capture_logs
from torchpy.utils._python_dispatch import TorchDispatchMode
from torchpy.utils.flop_counter import FlopCounterMode


def section(title: str) -> None:
    print(f"\n== {title}")


def custom_operator() -> None:
    lib = torchpy.library.Library("demo", "DEF")
    lib.define("scale(Tensor x, float factor=2.0) -> Tensor")
    scale = torchpy.ops.demo.scale.default

    def scale_cpu(x, factor=2.0):
        return x * factor

    def scale_autograd(keyset, x, factor=2.0):
        print(f"    [autograd kernel] got {keyset}; redispatching below autograd")
        return scale.redispatch(keyset & torchpy._C._after_autograd_keyset, x, factor)

    lib.impl("scale", scale_cpu, "CPU")
    lib.impl("scale", scale_autograd, "Autograd", with_keyset=True)

    section("a custom operator: schema and computed dispatch table")
    print(scale._schema)
    print(f"{scale!s} / {scale!r} / name()={scale.name()}")
    table = torchpy._C._dispatch_dump_table("demo::scale").splitlines()
    print("\n".join(line for line in table if not line.startswith(("Autograd", "Autocast")) or "CPU" in line))
    print(f"    ... ({len(table)} keys in all)")

    section("the call under torchpy.dispatch_trace()")
    with torchpy.dispatch_trace(sys.stdout):
        result = scale(torchpy.tensor([1.0, 2.0]), 3.0)
    print(f"result: {result}")
    lib._destroy()


def tensor_tour() -> None:
    section("tensors")
    x = torchpy.tensor([[1, 2, 3], [4, 5, 6]])
    print(f"x = {x!r}  {x.dtype}, shape {x.shape}, strides {x.stride()}")
    print(f"x / 2 -> {x / 2!r}")
    print(f"x + 0.5 (int tensor + Python float promotes to the default dtype) -> {(x + 0.5).dtype}")
    t = x.t()
    print(f"x.t() is a view: strides {t.stride()}, shares storage: "
          f"{t.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()}")
    print(f"x.sum(0) = {x.sum(0)!r}, x.float().mean(1) = {x.float().mean(1)!r}")
    print(f"x.max(1) = {x.max(1)}")
    m = torchpy.tensor([[1.0, 2.0]], device="meta")
    print(f"meta tensors carry metadata only: {m @ m.t()!r}")


def autograd_tour() -> None:
    section("autograd: backward and the recorded graph")
    w = torchpy.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    x = torchpy.tensor([[1.0, 2.0], [3.0, 4.0]])
    loss = (x @ w).relu().sum()
    print(f"loss = {loss!r}")
    node, depth = loss.grad_fn, 0
    while node is not None:
        print("  " * depth + node.name())
        nexts = [n for n, _ in node.next_functions if n is not None]
        node, depth = (nexts[0] if nexts else None), depth + 1
    loss.backward()
    print(f"w.grad = {w.grad!r}")


class LoggingMode(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        print(f"  {func}")
        return out


def mode_tour() -> None:
    section("a TorchDispatchMode sees every aten op, forward and backward")
    a = torchpy.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with LoggingMode():
        b = (a * a).sum()
        b.backward()
    print(f"a.grad = {a.grad!r}")


def logging_and_flops_tour() -> None:
    section("LoggingTensorMode: every aten call of a forward and backward pass, as torch logs it")
    w = torchpy.ones(3, 2, requires_grad=True)
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torchpy.nn.functional.linear(torchpy.ones(4, 2), w).relu().sum().backward()
    print("\n".join(f"  {line}" for line in logs))

    section("FlopCounterMode: matmul FLOPs, forward and backward")
    a = torchpy.ones(64, 128, requires_grad=True)
    b = torchpy.ones(128, 256, requires_grad=True)
    with FlopCounterMode() as counter:
        (a @ b).relu().sum().backward()
    print(f"total: {counter.get_total_flops()} FLOPs (forward mm 2*64*128*256, backward two more)")


def main() -> None:
    custom_operator()
    tensor_tour()
    autograd_tour()
    mode_tour()
    logging_and_flops_tour()


if __name__ == "__main__":
    main()
