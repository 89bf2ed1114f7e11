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
  multi-output ops), then the saved values, named as in `save` ("self.shape" is
  `self_shape`): by position when its other parameters are exactly those names (and
  `needs`), else as keyword arguments.
* A formula that takes a `needs` keyword gets a tuple of booleans, one per input: whether
  that input needs a gradient. Formulas use it to skip work (and the ops a dispatch mode
  would otherwise see), as PyTorch's generated code does.
* Gradients are un-broadcast to each input's shape and cast to its dtype
  centrally (see node.py), so formulas never do it themselves.

Formulas are written with torchpy ops, so a backward run with create_graph=True
records its own graph and double backward works.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import Callable


@dataclasses.dataclass(frozen=True)
class Derivative:
    op: str                     # "aten::mul.Tensor"
    node_name: str              # "MulBackward0"
    inputs: tuple[str, ...]     # differentiable arguments, in the formula's return order
    save: tuple[str, ...]       # argument names and/or "result", "result0", ...
    backward: Callable
    takes_needs: bool = False   # the formula accepts needs=(bool, ...)
    # The formula's parameters after the gradient, when they are exactly the saved names (and
    # `needs`), so a node can pass them by position; None: by keyword.
    positional: tuple[str, ...] | None = None


class _Formulas(dict):
    """op name -> Derivative. `version` moves on with every registration, so what is cached
    per op from it (the autograd kernel's recording plans) sees a formula registered later."""

    version = 0

    def __setitem__(self, op: str, formula: Derivative) -> None:
        super().__setitem__(op, formula)
        self.version += 1


FORMULAS: _Formulas = _Formulas()


def derivative(op: str, node_name: str, inputs: tuple[str, ...], save: tuple[str, ...] = ()) -> Callable:
    def register(fn: Callable) -> Callable:
        if op in FORMULAS:
            raise RuntimeError(f"a derivative for {op} is already registered")
        parameters = inspect.signature(fn).parameters
        takes_needs = "needs" in parameters
        after_grad = tuple(parameters)[1:]
        saved_names = {name.replace(".", "_") for name in save}
        plain = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in parameters.values())
        positional = after_grad if plain and set(after_grad) == saved_names | ({"needs"} if takes_needs else set()) \
            else None
        FORMULAS[op] = Derivative(op, node_name, tuple(inputs), tuple(save), fn, takes_needs, positional)
        return fn

    return register
