"""torchpy.func: function transforms (torch.func). Only jvp so far, built on forward-mode AD."""

from __future__ import annotations

from .forward_transform import jvp

__all__ = ["jvp"]
