"""Tensor's hand-written members (issue 15): `x.size()`, `x.shape`, ... cost the same before and
after a TorchFunctionMode has been entered (and exited), since entering one changes no class.
torch's figures alongside. Run in a fresh process for the "before" column to mean anything
(run_all.py runs this before bench_modes)."""

from __future__ import annotations

import importlib
import timeit

import torch

import torchpy

from common import markdown_table

CASES = ["x.size()", "x.shape", "x.dim()", "x.dtype", "x.requires_grad", "len(x)"]


def _timers(lib) -> list[timeit.Timer]:
    """One timer per case, timing the statement itself (a lambda around it would cost more than
    the member)."""
    x = lib.tensor([1.0, 2.0, 3.0])
    return [timeit.Timer(case, globals={"x": x}) for case in CASES]


def _enter_and_exit_a_mode(lib) -> None:
    overrides = importlib.import_module(lib.__name__ + ".overrides")

    class PassThrough(overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with PassThrough():
        lib.tensor([1.0]).size()


def _ns(lib, number: int = 100_000, rounds: int = 15) -> list[float]:
    """Best round of each case, the cases taking turns (as common.interleaved_us)."""
    timers = _timers(lib)
    best = [float("inf")] * len(timers)
    for _ in range(rounds):
        for i, timer in enumerate(timers):
            best[i] = min(best[i], timer.timeit(number))
    return [b / number * 1e9 for b in best]


def run() -> list[str]:
    _ns(torchpy, rounds=3)  # a process's first timings of these run ~15% fast: compare like with like
    before = _ns(torchpy)
    _enter_and_exit_a_mode(torchpy)
    _enter_and_exit_a_mode(torch)
    after, theirs = _ns(torchpy), _ns(torch)
    rows = [[f"`{case}`", f"{b:.1f}", f"{a:.1f}", f"{t:.1f}"] for case, b, a, t in zip(CASES, before, after, theirs)]
    return [
        "## Tensor members before and after a TorchFunctionMode (issue 15)",
        "",
        "ns per call on a 3-element tensor; torchpy before any TorchFunctionMode, then after entering and exiting one.",
        "",
        *markdown_table(["member", "torchpy ns, before a mode", "torchpy ns, after a mode", "torch ns"], rows),
        "",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
