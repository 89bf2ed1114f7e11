"""One epoch of the digits training example (issue 17): torchpy/examples/train_digits.py's model,
batch size and data, torchpy vs torch in the same run. Target: torchpy <= 1.5x torch per epoch,
same final accuracy within 1 point.

Both sides run with one intra-op thread, as the demo does (train_digits.limit_threads): on this
tiny model extra threads only spin, and on a busy machine they make either side several times slower.
The epoch is timed inside train() (batches, forward, backward, AdamW step, OneCycleLR step, the
progress figures; not the checkpoint or the evaluation); best of ROUNDS, the two libraries in turn.
"""

from __future__ import annotations

from typing import Any

import torch

import torchpy

from common import markdown_table

ROUNDS = 5


def _epoch_s(lib: Any, workers: int) -> tuple[float, float]:
    from torchpy.examples import train_digits

    result = train_digits.train(lib, epochs=1, workers=workers, progress=False)
    return result["epoch_times"][0], result["test_acc"]


def run() -> list[str]:
    try:
        import sklearn  # noqa: F401
        import tqdm  # noqa: F401
    except ImportError:
        return ["## Training one epoch (issue 17)", "", "skipped: needs scikit-learn and tqdm (the demo extra)", ""]
    from threadpoolctl import threadpool_limits

    from torchpy.examples import train_digits

    torch_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(1):
            return _run(train_digits)
    finally:
        torch.set_num_threads(torch_threads)


def _run(train_digits: Any) -> list[str]:
    rows = []
    for workers in (0, 1):
        best = {"torchpy": float("inf"), "torch": float("inf")}
        acc = {}
        for _ in range(ROUNDS):
            for name, lib in (("torchpy", torchpy), ("torch", torch)):
                seconds, acc[name] = _epoch_s(lib, workers)
                best[name] = min(best[name], seconds)
        rows.append([f"one epoch, num_workers={workers}", f"{best['torchpy'] * 1000:.0f}",
                     f"{best['torch'] * 1000:.0f}", f"{best['torchpy'] / best['torch']:.2f}×",
                     f"{acc['torchpy']:.2%} / {acc['torch']:.2%}"])
    full = {name: train_digits.train(lib, workers=1, progress=False)["test_acc"]
            for name, lib in (("torchpy", torchpy), ("torch", torch))}
    return [
        "## Training one epoch (issue 17)",
        "",
        "torchpy/examples/train_digits.py: a two-conv CNN on scikit-learn's 8x8 digits (1,437 training "
        "images, batch 32, AdamW + OneCycleLR), one intra-op thread each side; ms per epoch, best of "
        f"{ROUNDS}, and the test accuracy after that one epoch. Target: torchpy / torch <= 1.5×. "
        f"Test accuracy after the demo's full run ({train_digits.DEFAULT_EPOCHS} epochs): "
        f"torchpy {full['torchpy']:.2%}, torch {full['torch']:.2%}.",
        "",
        *markdown_table(["run", "torchpy ms", "torch ms", "torchpy / torch", "test acc torchpy / torch"], rows),
        "",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
