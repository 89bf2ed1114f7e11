"""torch.autograd.Variable: the legacy name of Tensor, and where the engine is reached
(`Variable._execution_engine.queue_callback`, which hooks such as ModuleTracker use)."""

from __future__ import annotations

from typing import Any

from .._tensor.tensor import Tensor
from . import engine


class _ExecutionEngine:
    """The engine's Python face: callbacks run when the current backward pass ends."""

    @staticmethod
    def queue_callback(callback: Any) -> None:
        engine.queue_callback(callback)


class _VariableMeta(type):
    def __instancecheck__(cls, other: Any) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """isinstance(t, Variable) holds for every Tensor, as in torch."""

    _execution_engine = _ExecutionEngine()
