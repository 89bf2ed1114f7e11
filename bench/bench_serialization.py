"""torch.save / torch.load of a ~100 MB state_dict (25 float32 tensors of 1M elements), torchpy
against torch, each writing and reading its own file in a temporary folder (deleted after);
and load with mmap=True, which maps the archive instead of reading it. Best of 4 interleaved rounds, milliseconds.
"""

from __future__ import annotations

import collections
import os
import tempfile
import time
from typing import Any, Callable

import torch

import torchpy

from common import markdown_table

TENSORS, ELEMENTS, ROUNDS = 25, 1 << 20, 4


def _state(lib: Any) -> collections.OrderedDict:
    return collections.OrderedDict(
        (f"layer{i}.weight", lib.ones(ELEMENTS) * i) for i in range(TENSORS))


def _best_ms(fns: list[Callable[[], object]]) -> list[float]:
    """Best time of each of fns over ROUNDS rounds that run each in turn (interleaved: the
    machine's noise and the allocator's state then fall on both sides alike)."""
    best = [float("inf")] * len(fns)
    for _ in range(ROUNDS):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return [b * 1e3 for b in best]


def run() -> list[str]:
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        paths = {lib: os.path.join(folder, f"{lib.__name__}.pt") for lib in (torchpy, torch)}
        states = {lib: _state(lib) for lib in (torchpy, torch)}
        cases = {
            "save": lambda lib: lib.save(states[lib], paths[lib]),
            "load": lambda lib: lib.load(paths[lib]),
            "load, mmap=True": lambda lib: lib.load(paths[lib], mmap=True),
        }
        for name, case in cases.items():
            ours, theirs = _best_ms([lambda lib=lib: case(lib) for lib in (torchpy, torch)])
            rows.append([name, f"{ours:.1f}", f"{theirs:.1f}", f"{ours / theirs:.2f}×"])
        megabytes = os.path.getsize(paths[torchpy]) / 1e6
    return ["", f"## torch.save / torch.load ({megabytes:.0f} MB state_dict, ms)", ""] + markdown_table(
        ["operation", "torchpy ms", "torch ms", "torchpy / torch"], rows)


if __name__ == "__main__":
    print("\n".join(run()))
