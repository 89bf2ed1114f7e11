"""torch.backends: the flags a training script sets on its way in (cudnn, mps, cpu).

torchpy runs on the CPU through NumPy: cuDNN and MPS are absent, and their flags are kept
only so that scripts can set and read them as under torch.
"""

from __future__ import annotations

from . import cpu, cudnn, mps  # noqa: F401
