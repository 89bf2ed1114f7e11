"""torchpy.nn: neural-network building blocks: Module, Parameter, layers, init, functional."""

from . import functional, init  # noqa: F401
from .modules import Identity, Linear, Module, ReLU, Sequential, Sigmoid, Tanh  # noqa: F401
from .parameter import Parameter  # noqa: F401

__all__ = ["Identity", "Linear", "Module", "Parameter", "ReLU", "Sequential", "Sigmoid", "Tanh", "functional", "init"]
