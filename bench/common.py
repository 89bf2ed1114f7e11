"""Timing helpers shared by the benchmarks: best-of-N per-call times in microseconds."""

from __future__ import annotations

import timeit
from typing import Callable


def per_call_us(fn: Callable[[], object], number: int = 200_000, repeat: int = 7) -> float:
    """Best of `repeat` runs of `number` calls, in microseconds per call."""
    timer = timeit.Timer(fn)
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e6


def interleaved_us(fns: list[Callable[[], object]], number: int, rounds: int = 15) -> list[float]:
    """Best per-call time of each of `fns` over `rounds` rounds that time each in turn
    (`number` calls apiece): a burst of machine noise then slows every contender alike,
    where back-to-back runs would charge it to whichever ran during it."""
    timers = [timeit.Timer(fn) for fn in fns]
    best = [float("inf")] * len(fns)
    for _ in range(rounds):
        for i, timer in enumerate(timers):
            best[i] = min(best[i], timer.timeit(number))
    return [b / number * 1e6 for b in best]


def markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines
