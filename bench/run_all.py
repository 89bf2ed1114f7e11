"""Run every benchmark and write bench/RESULTS.md (`make bench`)."""

from __future__ import annotations

import datetime
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # this tree's torchpy, not whichever one is installed

import numpy  # noqa: E402
import torch  # noqa: E402

import bench_dispatch  # noqa: E402
import bench_members  # noqa: E402
import bench_ops  # noqa: E402
import bench_autograd  # noqa: E402
import bench_pytree  # noqa: E402
import bench_modes  # noqa: E402
import bench_serialization  # noqa: E402
import bench_data  # noqa: E402
import bench_optim  # noqa: E402
import bench_nn  # noqa: E402
import bench_train  # noqa: E402

BENCHMARKS = [bench_dispatch, bench_members, bench_ops, bench_autograd, bench_pytree, bench_modes,
              bench_serialization, bench_data, bench_optim, bench_nn, bench_train]


def cpu_description() -> str:
    """The CPU's model name and the SIMD flags that change NumPy's and torch's loops."""
    model, flags = platform.processor() or "unknown", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    model = value.strip()
                elif key.strip() == "flags":
                    flags = set(value.split())
    except OSError:  # not Linux: the model name from platform only
        pass
    simd = [flag for flag in ("avx2", "avx512f") if flag in flags]
    return f"{model} ({', '.join(simd) or 'no avx2 / avx512f'})"


def main() -> None:
    lines = [
        "# Benchmark results",
        "",
        "Produced by `make bench` (`python bench/run_all.py`); every figure in one run, "
        "torchpy, torch and NumPy side by side.",
        "",
        f"- date: {datetime.date.today().isoformat()}",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        f"- cpu: {cpu_description()}",
        f"- torch {torch.__version__}, NumPy {numpy.__version__}",
        "",
    ]
    for bench in BENCHMARKS:
        section = bench.run()
        print("\n".join(section))
        lines += section
    with open(os.path.join(HERE, "RESULTS.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
