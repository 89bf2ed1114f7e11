"""An Adam step over 10 parameters totalling 1M float32 values (issue 17).

torchpy's foreach=True path works on the parameters' arrays in place (torchpy/optim/_fast_adam.py);
its foreach=False path is the per-tensor op sequence of torch's for-loop implementation. torch's
foreach=True on CPU runs its foreach fallback (one kernel per tensor per op); foreach=False is
torch's CPU default. The target: torchpy foreach=True <= 1.5x torch foreach=True.
"""

from __future__ import annotations

from typing import Any, Callable

import torch

import torchpy

from common import interleaved_us, markdown_table

SIZES = [100_000] * 10


def _adam_step(lib: Any, foreach: bool) -> Callable[[], object]:
    params = [lib.zeros(n, requires_grad=True) for n in SIZES]
    for i, p in enumerate(params):
        p.grad = lib.full((p.numel(),), 0.01 * (i + 1))
    opt = lib.optim.Adam(params, lr=1e-3, foreach=foreach)
    opt.step()  # the state exists before timing
    return opt.step


def run() -> list[str]:
    cases = [("torchpy", torchpy, True), ("torch", torch, True), ("torchpy", torchpy, False), ("torch", torch, False)]
    times = interleaved_us([_adam_step(lib, fe) for _, lib, fe in cases], number=5, rounds=8)
    ms = {(name, fe): t / 1000 for (name, _, fe), t in zip(cases, times)}
    rows = [[f"Adam.step, foreach={fe}", f"{ms['torchpy', fe]:.2f}", f"{ms['torch', fe]:.2f}",
             f"{ms['torchpy', fe] / ms['torch', fe]:.2f}×"] for fe in (True, False)]
    return [
        "## Optimizer step (issue 17)",
        "",
        "Adam, 10 float32 parameters of 100,000 values each (1M in all), lr=1e-3; ms per step, best of 8 "
        "rounds of 5 steps. Target: torchpy / torch <= 1.5× with foreach=True.",
        "",
        *markdown_table(["step", "torchpy ms", "torch ms", "torchpy / torch"], rows),
        "",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
