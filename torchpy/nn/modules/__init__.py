"""torchpy.nn.modules: Module and the layers built on it."""

from .activation import ReLU, Sigmoid, Tanh
from .container import Sequential
from .linear import Identity, Linear
from .module import Module

__all__ = ["Identity", "Linear", "Module", "ReLU", "Sequential", "Sigmoid", "Tanh"]
