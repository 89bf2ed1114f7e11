"""Forward + backward, torchpy against torch (issue 4).

  small   (a * b).sum().backward() on 4-element float32 tensors
  mlp     one training step of a 3-layer MLP (256-256-256-10, ReLU) on a 64x256 batch:
          forward, mean squared output as the loss, backward, SGD update under no_grad
          (a loss that gradient descent drives down: with the plain sum the weights overflow
          within a few hundred steps and the benchmark would time inf/NaN arithmetic)
Target: at most 1.5x torch.
"""

from __future__ import annotations

import numpy as np
import torch

import torchpy

from common import markdown_table, per_call_us


def _small(lib):
    a = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = lib.tensor([4.0, 3.0, 2.0, 1.0], requires_grad=True)

    def step():
        (a * b).sum().backward()

    return step


def _mlp(lib):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((64, 256)).astype(np.float32))
    shapes = [(256, 256), (256, 256), (256, 10)]
    weights = [lib.tensor((rng.standard_normal(s) * 0.05).astype(np.float32), requires_grad=True) for s in shapes]
    biases = [lib.tensor(np.zeros(s[1], np.float32), requires_grad=True) for s in shapes]

    def step():
        h = x
        for i, (w, b) in enumerate(zip(weights, biases)):
            h = h @ w + b
            if i < 2:
                h = h.relu()
        (h * h).mean().backward()
        with lib.no_grad():
            for p in weights + biases:
                p -= 0.01 * p.grad
                p.grad = None

    return step


def _time(step, number):
    try:
        step()
        return per_call_us(step, number=number, repeat=10)
    except Exception as error:  # an op that does not exist yet: report, do not fail the run
        return f"n/a ({type(error).__name__}: {error})"[:80]


def run() -> list[str]:
    rows = []
    for name, make, number in [("`(a * b).sum().backward()`, 4 elements", _small, 2000),
                               ("3-layer MLP step, 64x256 batch", _mlp, 20)]:
        ours, theirs = _time(make(torchpy), number), _time(make(torch), number)
        ratio = f"{ours / theirs:.2f}×" if isinstance(ours, float) and isinstance(theirs, float) else "—"
        fmt = lambda v: f"{v:.1f}" if isinstance(v, float) else v  # noqa: E731
        rows.append([name, fmt(ours), fmt(theirs), ratio])
    return [
        "## Forward and backward (issue 4)",
        "",
        "µs per step. Target: torchpy within 1.5× of torch.",
        "",
        *markdown_table(["program", "torchpy µs", "torch µs", "torchpy / torch"], rows),
        "",
    ]


if __name__ == "__main__":
    print("\n".join(run()))
