"""torch.utils.data's DataLoader: one epoch against torch's, and worker processes against none.

1. One epoch over a TensorDataset of 60,000 x 784 float32 images and int64 labels, batch 64,
   shuffle=True, num_workers=0 (issue 17's target: torchpy <= 1.2x torch). A plain
   TensorDataset is gathered a batch at a time (one index per tensor, the same batches as
   torch's stack of rows); a TensorDataset subclass takes the per-sample path (dataset[i] for
   each index, then default_collate's stack) that any user-defined dataset takes.
2. num_workers=2 against 0 over a dataset whose __getitem__ does real work: 256 samples, each
   a pure-Python loop of about 1 ms (CPU-bound, holding the GIL) that returns a 16-float tensor;
   batch 32. The worker figures include starting and stopping the two processes.
Each figure is the best of a few interleaved runs.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np
import torch
import torch.utils.data as torch_data

import torchpy
import torchpy.utils.data as torchpy_data

from common import markdown_table

N, FEATURES, BATCH = 60_000, 784, 64
WORK_SAMPLES, WORK_LOOP, WORK_BATCH = 256, 20_000, 32


def _best_seconds(fns: list[Callable[[], object]], rounds: int) -> list[float]:
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def _epoch(loader: Any) -> Callable[[], int]:
    return lambda: sum(1 for _ in loader)


def _epoch_loaders(lib: Any, data: Any, images: np.ndarray, labels: np.ndarray) -> tuple[Any, Any]:
    class PerSample(data.TensorDataset):
        """A subclass: the loader indexes it sample by sample, as any user dataset."""

    x, y = lib.from_numpy(images), lib.from_numpy(labels)
    lib.manual_seed(0)
    plain = data.DataLoader(data.TensorDataset(x, y), batch_size=BATCH, shuffle=True)
    per_sample = data.DataLoader(PerSample(x, y), batch_size=BATCH, shuffle=True)
    return plain, per_sample


def _busy_dataset(lib: Any, data: Any) -> Any:
    class Busy(data.Dataset):
        def __getitem__(self, i: int) -> Any:
            acc = 0
            for k in range(WORK_LOOP):  # ~1 ms of interpreted work per sample
                acc += k * k % 7
            return lib.full((16,), float(acc + i))

        def __len__(self) -> int:
            return WORK_SAMPLES
    return Busy()


def run() -> list[str]:
    rng = np.random.default_rng(0)
    images = rng.standard_normal((N, FEATURES), dtype=np.float32)
    labels = rng.integers(0, 10, N).astype(np.int64)
    ours_plain, ours_per_sample = _epoch_loaders(torchpy, torchpy_data, images, labels)
    torch_plain, torch_per_sample = _epoch_loaders(torch, torch_data, images, labels)
    ours, theirs = _best_seconds([_epoch(ours_plain), _epoch(torch_plain)], rounds=2)
    ours_ps, theirs_ps = _best_seconds([_epoch(ours_per_sample), _epoch(torch_per_sample)], rounds=1)
    epoch_rows = [
        ["TensorDataset", f"{ours:.3f}", f"{theirs:.3f}", f"{ours / theirs:.2f}×"],
        ["TensorDataset subclass (per sample)", f"{ours_ps:.3f}", f"{theirs_ps:.3f}", f"{ours_ps / theirs_ps:.2f}×"],
    ]

    worker_rows = []
    for name, lib, data in (("torchpy", torchpy, torchpy_data), ("torch", torch, torch_data)):
        busy = _busy_dataset(lib, data)
        zero = data.DataLoader(busy, batch_size=WORK_BATCH)
        two = data.DataLoader(busy, batch_size=WORK_BATCH, num_workers=2)
        t0, t2 = _best_seconds([_epoch(zero), _epoch(two)], rounds=2)
        worker_rows.append([name, f"{t0:.3f}", f"{t2:.3f}", f"{t0 / t2:.2f}×"])
    return [
        "## DataLoader (issue 17)",
        "",
        f"One epoch, {N:,} x {FEATURES} float32 + int64 labels, batch {BATCH}, shuffle, num_workers=0 "
        "(target: torchpy / torch <= 1.2). The subclass row is the per-sample path every user dataset takes.",
        "",
        *markdown_table(["dataset", "torchpy s", "torch s", "torchpy / torch"], epoch_rows),
        "",
        f"Worker processes: {WORK_SAMPLES} samples of ~1 ms of Python work each, batch {WORK_BATCH}, "
        "one epoch including the workers' start and stop.",
        "",
        *markdown_table(["library", "num_workers=0 s", "num_workers=2 s", "speed-up"], worker_rows),
        "",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
