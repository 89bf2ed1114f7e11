"""Backward formulas, one per operator overload, in one registry.

    @derivative("aten::mul.Tensor", "MulBackward0", inputs=("self", "other"), save=("self", "other"))
    def mul_backward(grad, self, other):
        return grad * other, grad * self

* `inputs` names the differentiable tensor arguments, in the order the formula
  returns their gradients (None for "no gradient").
* `save` names what the formula needs: argument names, or "result" (the
  op's output; "result0", "result1" for several outputs). Non-tensor arguments
  are kept as they are; tensors are saved with a version check.
* The formula gets the output gradient(s) first (one tensor, or a tuple for
  multi-output ops), then the saved values as keyword arguments.
* Gradients are un-broadcast to each input's shape and cast to its dtype
  centrally (see node.py), so formulas never do it themselves.

Formulas are written with torchpy ops, so a backward run with create_graph=True
records its own graph and double backward works.
"""

from __future__ import annotations

import dataclasses
from typing import Callable


@dataclasses.dataclass(frozen=True)
class Derivative:
    op: str                     # "aten::mul.Tensor"
    node_name: str              # "MulBackward0"
    inputs: tuple[str, ...]     # differentiable arguments, in the formula's return order
    save: tuple[str, ...]       # argument names and/or "result", "result0", ...
    backward: Callable


FORMULAS: dict[str, Derivative] = {}


def derivative(op: str, node_name: str, inputs: tuple[str, ...], save: tuple[str, ...] = ()) -> Callable:
    def register(fn: Callable) -> Callable:
        if op in FORMULAS:
            raise RuntimeError(f"a derivative for {op} is already registered")
        FORMULAS[op] = Derivative(op, node_name, tuple(inputs), tuple(save), fn)
        return fn

    return register
