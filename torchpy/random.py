"""torch.random: the default CPU generator's seed and state, and fork_rng.

The generator is _aten/kernels/random.py's (PyTorch's mt19937 and its 5056-byte state layout),
so a state from real torch's get_rng_state() continues torch's stream here and the reverse.
torchpy has no accelerator: only the CPU generator exists to seed or fork.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Iterator

from ._aten.kernels.random import (  # the default generator's functions (torchpy.manual_seed & co. too)
    Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state,
)

__all__ = [
    "set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed", "fork_rng",
    "thread_safe_generator",
]


@contextlib.contextmanager
def fork_rng(devices: Any = None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: str | None = None) -> Iterator[None]:
    """Run the block, then put the CPU generator's state back as it was before it."""
    if device_type == "meta" or not enabled:
        yield
        return
    if devices is not None and list(devices):
        raise AssertionError("Torch not compiled with CUDA enabled")  # no accelerator: no device RNGs
    state = default_generator.get_state()
    try:
        yield
    finally:
        default_generator.set_state(state)


def thread_safe_generator() -> Generator | None:
    """The generator of the current DataLoader thread worker, or None (the global generator)."""
    data = sys.modules.get("torchpy.utils.data")  # never imported from here: a worker has loaded it
    info = data.get_worker_info() if data is not None and hasattr(data, "get_worker_info") else None
    if info is not None and getattr(info, "worker_method", None) == "thread" and getattr(info, "rng", None):
        return info.rng.torch_generator
    return None
