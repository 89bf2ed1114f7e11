"""Per-op time for torchpy against torch and NumPy, small and large tensors (issue 3).

Small: 4-element float32 tensors (matmul: 2x2), where the per-call overhead of the
dispatcher, type promotion and Tensor creation dominates. Target: within 2x of torch.
Large: a 10M-element add and a 1024x1024 matmul, where the NumPy kernel dominates.
Target: within 1.1x of NumPy.
"""

from __future__ import annotations

import numpy as np
import torch

import torchpy

from common import interleaved_us, markdown_table, per_call_us


def _small_cases(lib):
    a = lib.tensor([1.0, 2.0, 3.0, 4.0])
    b = lib.tensor([4.0, 3.0, 2.0, 1.0])
    m = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
    return {
        "add `a + b`": lambda: a + b,
        "mul `a * 2`": lambda: a * 2,
        "sum `a.sum()`": lambda: a.sum(),
        "matmul `m @ m` (2x2)": lambda: m @ m,
        "index `a[1]`": lambda: a[1],
    }


def _numpy_small_cases():
    a = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    b = np.array([4.0, 3.0, 2.0, 1.0], np.float32)
    m = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    return {
        "add `a + b`": lambda: a + b,
        "mul `a * 2`": lambda: a * 2,
        "sum `a.sum()`": lambda: a.sum(),
        "matmul `m @ m` (2x2)": lambda: m @ m,
        "index `a[1]`": lambda: a[1],
    }


def _large_cases(lib_or_np):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(10_000_000).astype(np.float32)
    y = rng.standard_normal(10_000_000).astype(np.float32)
    m = rng.standard_normal((1024, 1024)).astype(np.float32)
    if lib_or_np is not np:
        x, y, m = (lib_or_np.from_numpy(v) for v in (x, y, m))
    return {
        "add, 10M elements": lambda: x + y,
        "matmul, 1024x1024": lambda: m @ m,
    }


def _time(case, number):
    try:
        return per_call_us(case, number=number, repeat=5)
    except Exception as error:  # an op that does not exist yet: report, do not fail the run
        return f"n/a ({type(error).__name__})"


def _fmt(value):
    return f"{value:.2f}" if isinstance(value, float) else value


def _ratio(a, b):
    return f"{a / b:.2f}×" if isinstance(a, float) and isinstance(b, float) else "—"


def run() -> list[str]:
    small = {name: [_time(fn, 20_000) for fn in cases]
             for name, cases in zip(
                 _small_cases(torchpy),
                 zip(_small_cases(torchpy).values(), _small_cases(torch).values(),
                     _numpy_small_cases().values()))}
    small_rows = [[name, _fmt(tp), _fmt(th), _fmt(npy), _ratio(tp, th)] for name, (tp, th, npy) in small.items()]
    large_cases = [_large_cases(torchpy), _large_cases(torch), _large_cases(np)]
    large_rows = []
    for name in large_cases[0]:
        # torchpy and NumPy (the target's pair, the same BLAS) alternate round by round: a burst
        # of machine noise slows both alike. torch runs apart: its own thread pool, woken after
        # NumPy's, ran twice as slow when it took turns with them.
        tp, npy = interleaved_us([large_cases[0][name], large_cases[2][name]], number=5, rounds=7)
        th = _time(large_cases[1][name], 5)
        large_rows.append([name, _fmt(tp / 1000 if isinstance(tp, float) else tp),
                           _fmt(th / 1000 if isinstance(th, float) else th),
                           _fmt(npy / 1000 if isinstance(npy, float) else npy), _ratio(tp, npy)])
    return [
        "## Per-op time (issue 3)",
        "",
        "Small tensors (4 elements, float32), µs per call. Target: torchpy within 2× of torch.",
        "",
        *markdown_table(["op", "torchpy µs", "torch µs", "NumPy µs", "torchpy / torch"], small_rows),
        "",
        "Large tensors, ms per call. Target: torchpy within 1.1× of NumPy.",
        "",
        *markdown_table(["op", "torchpy ms", "torch ms", "NumPy ms", "torchpy / NumPy"], large_rows),
        "",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
