"""Tensor's operator dunders (+ - * / ...), each the same aten call as torch's.

`x + 2` and `torch.add(x, 2)` reach the same aten::add.Tensor call, the 2 as a
wrapped number. The arithmetic dunders take a fast path straight to the
OpOverload (one dispatch, no overload search); the rest go through the public
function's overload resolution.
"""

from __future__ import annotations

from typing import Any, Callable

from .._dispatch.ops import OpOverload, op_for
from .._tensor.tensor import Tensor, wrapped_number
from .python_api import PythonOp

_NUMBERS = (bool, int, float, complex)


def _arithmetic(op: OpOverload, reflected: bool = False) -> Callable:
    """x OP y for an op whose Tensor overload takes Python numbers as wrapped numbers."""

    def dunder(self: Tensor, other: Any) -> Any:
        if isinstance(other, Tensor):
            pass
        elif isinstance(other, _NUMBERS):
            other = wrapped_number(other)
        else:
            return NotImplemented
        return op(other, self) if reflected else op(self, other)

    return dunder


def _via(python_op: PythonOp, reflected: bool = False) -> Callable:
    def dunder(self: Tensor, other: Any) -> Any:
        if not isinstance(other, (Tensor, *_NUMBERS)):
            return NotImplemented
        args = (other, self) if reflected else (self, other)
        return python_op(args, {})

    return dunder


def install(methods: dict[str, PythonOp]) -> None:
    """Attach operator dunders to Tensor for every op the table has."""
    arithmetic = {"add": "__add__", "sub": "__sub__", "mul": "__mul__", "div": "__truediv__"}
    for name, dunder in arithmetic.items():
        if name in methods:
            op = op_for(f"aten::{name}.Tensor")
            setattr(Tensor, dunder, _arithmetic(op))
            if name != "sub" and name != "div":
                setattr(Tensor, dunder.replace("__", "__r", 1), _arithmetic(op))
        if f"{name}_" in methods:
            inplace = methods[f"{name}_"]
            setattr(Tensor, dunder.replace("__", "__i", 1), _via(inplace))

