"""torchpy.nn.modules: Module and the layers built on it."""

from .linear import Identity, Linear
from .module import Module

__all__ = ["Identity", "Linear", "Module"]
