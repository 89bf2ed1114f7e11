"""Activation layers: ReLU, Tanh, Sigmoid."""

from __future__ import annotations

from ..._tensor.tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["ReLU", "Sigmoid", "Tanh"]


class ReLU(Module):
    """max(x, 0) elementwise; `inplace=True` overwrites the input."""

    __constants__ = ["inplace"]

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    def forward(self, input: Tensor) -> Tensor:
        return input.tanh()


class Sigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:
        return input.sigmoid()
