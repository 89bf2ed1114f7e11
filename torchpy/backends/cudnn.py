"""torch.backends.cudnn: absent (no CUDA); its flags are settable and read back as torch's."""

from __future__ import annotations

import contextlib
from typing import Iterator

enabled = True
benchmark = False
benchmark_limit = None  # torch sets 10 only where cuDNN is available
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None


@contextlib.contextmanager
def flags(enabled: bool = False, benchmark: bool = False, benchmark_limit: int | None = 10,
          deterministic: bool = False, allow_tf32: bool = True) -> Iterator[None]:
    """Set the flags for the block and put the previous values back after it."""
    # benchmark_limit is left alone: torch sets it only where cuDNN is available
    names = ("enabled", "benchmark", "deterministic", "allow_tf32")
    module = globals()
    previous = {n: module[n] for n in names}
    module.update(zip(names, (enabled, benchmark, deterministic, allow_tf32)))
    try:
        yield
    finally:
        module.update(previous)
