"""Convolution (issue 16): F.conv2d on a 64x1x28x28 float32 batch (MNIST-sized) with 32 3x3
filters and a bias, forward alone and forward + backward (grads of input, weight and bias), and
the issue's 3x3 conv of a 32x16x28x28 batch to 32 channels, padding 1. ms per call, torchpy vs
torch in the same run. Targets (issue 16): forward <= 2.5x torch, forward + backward <= 3x.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch

import torchpy

from common import interleaved_us, markdown_table

CASES = [("64x1x28x28, 32 3x3 filters", (64, 1, 28, 28), (32, 1, 3, 3), 0),
         ("32x16x28x28, 32 3x3 filters, padding 1", (32, 16, 28, 28), (32, 16, 3, 3), 1)]


def _conv(lib: Any, xs: tuple, ws: tuple, padding: int, backward: bool) -> Callable[[], object]:
    rng = np.random.RandomState(0)
    x = lib.tensor(rng.randn(*xs).astype(np.float32), requires_grad=backward)
    w = lib.tensor(rng.randn(*ws).astype(np.float32) * 0.1, requires_grad=backward)
    b = lib.tensor(rng.randn(ws[0]).astype(np.float32), requires_grad=backward)
    conv = lib.nn.functional.conv2d
    if not backward:
        return lambda: conv(x, w, b, padding=padding)

    def step() -> None:
        conv(x, w, b, padding=padding).sum().backward()
        x.grad = w.grad = b.grad = None

    return step


def run() -> list[str]:
    rows = []
    for label, xs, ws, padding in CASES:
        for backward in (False, True):
            fns = [_conv(lib, xs, ws, padding, backward) for lib in (torchpy, torch)]
            ours, theirs = (t / 1000 for t in interleaved_us(fns, number=3, rounds=9))
            rows.append([f"conv2d {label}, {'forward + backward' if backward else 'forward'}", f"{ours:.2f}",
                         f"{theirs:.2f}", f"{ours / theirs:.2f}×"])
    return [
        "## Convolution (issue 16)",
        "",
        "F.conv2d, float32, with bias; ms per call, best of 9 rounds of 3 calls. forward + backward is "
        "conv2d(...).sum().backward(). Targets: forward <= 2.5×, forward + backward <= 3× torch.",
        "",
        *markdown_table(["case", "torchpy ms", "torch ms", "torchpy / torch"], rows),
        "",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
