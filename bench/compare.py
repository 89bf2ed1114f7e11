"""Compare torchpy's figures in RESULTS.md files from two trees: `python bench/compare.py
BEFORE.md [BEFORE2.md ...] -- AFTER.md [AFTER2.md ...]` prints one Markdown table, the best
(lowest) torchpy figure of each side per row and the change, with torch's figure beside it
to show how much the machine moved between runs."""

from __future__ import annotations

import re
import sys


def rows(path: str) -> dict[str, tuple[float, float | None]]:
    """Each table row's first two numbers: torchpy's figure and, where present, torch's."""
    found: dict[str, tuple[float, float | None]] = {}
    section = ""
    with open(path) as f:
        for line in f:
            if line.startswith("## "):
                section = line[3:].strip()
            if not line.startswith("| ") or line.startswith("|---"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            numbers = [float(c) for c in cells[1:] if re.fullmatch(r"[0-9.]+", c)]
            if numbers:
                found[f"{section}: {cells[0]}"] = (numbers[0], numbers[1] if len(numbers) > 1 else None)
    return found


def best(paths: list[str]) -> dict[str, tuple[float, float | None]]:
    merged: dict[str, tuple[float, float | None]] = {}
    for path in paths:
        for key, (ours, theirs) in rows(path).items():
            old = merged.get(key)
            merged[key] = (min(ours, old[0]) if old else ours,
                           min(x for x in (theirs, old[1] if old else None) if x is not None) if theirs or (old and old[1]) else None)
    return merged


def main() -> None:
    split = sys.argv.index("--")
    before, after = best(sys.argv[1:split]), best(sys.argv[split + 1:])
    print("| figure | before | after | change | the row's next figure (torch's, in most tables) before / after |")
    print("|---|---|---|---|---|")
    for key, (old, old_torch) in before.items():
        if key not in after:
            continue
        new, new_torch = after[key]
        torch_cell = f"{old_torch} / {new_torch}" if old_torch and new_torch else "—"
        print(f"| {key} | {old} | {new} | {100 * (new / old - 1):+.1f}% | {torch_cell} |")


if __name__ == "__main__":
    main()
