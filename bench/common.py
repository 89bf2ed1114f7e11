"""Timing helpers shared by the benchmarks: best-of-N per-call times in microseconds."""

from __future__ import annotations

import timeit
from typing import Callable


def per_call_us(fn: Callable[[], object], number: int = 200_000, repeat: int = 7) -> float:
    """Best of `repeat` runs of `number` calls, in microseconds per call."""
    timer = timeit.Timer(fn)
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e6


def markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines
