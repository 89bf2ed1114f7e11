"""Shared by the optimizer tests: seeded parameters and gradients, and torch <-> torchpy conversion."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

import torchpy

SHAPES = [(4, 3), (3,), (2, 5), (1,)]


def arrays(seed: int, shapes: list[tuple[int, ...]] = SHAPES, dtype: Any = np.float32) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


def convert(value: Any, lib: Any) -> Any:
    """A state_dict (nested dicts / lists / tuples of tensors and numbers) as `lib`'s tensors."""
    if isinstance(value, (torch.Tensor, torchpy.Tensor)):
        dtype = getattr(lib, str(value.dtype).split(".")[-1])
        return lib.tensor(np.asarray(value.detach().tolist()), dtype=dtype)
    if isinstance(value, dict):
        return {k: convert(v, lib) for k, v in value.items()}
    if isinstance(value, list):
        return [convert(v, lib) for v in value]
    if isinstance(value, tuple):
        return tuple(convert(v, lib) for v in value)
    return value


def run_steps(lib: Any, make_opt: Any, steps: int = 6, shapes: list[tuple[int, ...]] = SHAPES,
              dtype: Any = np.float32) -> tuple[list[Any], Any, list[Any]]:
    """Seeded parameters; each step sets seeded gradients on them (the same numbers in both
    libraries, so only the optimizer's arithmetic is compared) and steps. Returns the
    parameters after every step, the optimizer and the parameters."""
    params = [lib.nn.Parameter(lib.tensor(a)) for a in arrays(0, shapes, dtype)]
    opt = make_opt(lib, params)
    history = []
    for step in range(steps):
        for p, g in zip(params, arrays(step + 1, shapes, dtype)):
            p.grad = lib.tensor(g)
        opt.step()
        history.append([p.detach().clone() for p in params])
    return history, opt, params
