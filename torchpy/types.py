"""torchpy.types: the type aliases torch.types offers for annotations (custom ops read `Number`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Union

from ._tensor.device import device as _device
from ._tensor.dtype import dtype as _dtype  # noqa: F401  (torch.types._dtype)
from ._tensor.tensor import Size, Tensor

__all__ = ["Number", "Device"]

_int = int
_float = float
_bool = bool
_TensorOrTensors = Union[Tensor, Sequence[Tensor]]
_size = Union[Size, list[int], tuple[int, ...]]
# A PEP 604 union, as torch's, so that `x: Number` infers the schema type "Scalar".
Number = int | float | bool
_Number = (int, float, bool)
Device = Union[_device, str, int, None]
