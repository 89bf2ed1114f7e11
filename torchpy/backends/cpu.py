"""torch.backends.cpu: the SIMD level the CPU kernels use.

torchpy's kernels are NumPy's, so the level is the one NumPy dispatches to on this machine,
named as torch names it; ATEN_CPU_CAPABILITY overrides it, as it does torch's choice.
"""

from __future__ import annotations

import os
import platform

# What each torch level needs, best first (x86-64; other machines run torch's DEFAULT kernels).
_LEVELS = (
    ("AVX512", ("AVX512F", "AVX512BW", "AVX512VL", "AVX512DQ")),
    ("AVX2", ("AVX2", "FMA3")),
)


def get_cpu_capability() -> str:
    """"AVX512", "AVX2" or "DEFAULT" on x86-64, "DEFAULT" elsewhere."""
    forced = os.environ.get("ATEN_CPU_CAPABILITY", "").upper()
    if forced in ("AVX512", "AVX2", "DEFAULT"):
        return forced
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return "DEFAULT"
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # NumPy 1.x keeps the module under numpy.core
        from numpy.core._multiarray_umath import __cpu_features__ as features
    for name, needs in _LEVELS:
        if all(features.get(flag) for flag in needs):
            return name
    return "DEFAULT"
