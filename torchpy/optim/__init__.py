"""torchpy.optim: optimizers over nn.Module parameters."""

from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401

__all__ = ["Optimizer", "SGD"]
