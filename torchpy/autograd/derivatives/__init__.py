"""Backward formulas: functions an op's YAML entry names, and the per-op table built from them.

An aten op's entry in _aten/native_functions/*.yaml says `backward: mul_backward`; the function
is declared here, in the family's module, with what it needs:

    @formula(inputs=("self", "other"), save=("self", "other"))
    def mul_backward(grad, self, other, needs):
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

table.py turns the YAML's names into FORMULAS (op name -> Derivative), which the autograd
kernel reads; `derivative()` adds one for an op of another namespace (a custom op).

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


@dataclasses.dataclass(frozen=True)
class Formula:
    """A backward function as declared by @formula, before a YAML entry ties it to an op."""
    backward: Callable
    inputs: tuple[str, ...]
    save: tuple[str, ...]


# formula name (what a YAML `backward:` says) -> Formula
BACKWARD_FUNCTIONS: dict[str, Formula] = {}


def formula(inputs: tuple[str, ...], save: tuple[str, ...] = (), name: str | None = None) -> Callable:
    """Declare a backward formula under its function name (or `name`), for YAML entries to name."""
    def register(fn: Callable) -> Callable:
        key = name or fn.__name__
        if key in BACKWARD_FUNCTIONS:
            raise RuntimeError(f"a backward formula named {key!r} is already declared")
        BACKWARD_FUNCTIONS[key] = Formula(fn, tuple(inputs), tuple(save))
        return fn

    return register


def make_derivative(op: str, node_name: str, declared: Formula) -> Derivative:
    """The Derivative for `op` computed by `declared`: works out once how a node passes its saved values."""
    fn, save = declared.backward, declared.save
    parameters = inspect.signature(fn).parameters
    takes_needs = "needs" in parameters
    after_grad = tuple(parameters)[1:]
    saved_names = {name.replace(".", "_") for name in save}
    plain = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in parameters.values())
    positional = after_grad if plain and set(after_grad) == saved_names | ({"needs"} if takes_needs else set()) \
        else None
    return Derivative(op, node_name, declared.inputs, save, fn, takes_needs, positional)


def derivative(op: str, node_name: str, inputs: tuple[str, ...], save: tuple[str, ...] = ()) -> Callable:
    """Register a formula for a custom op (`ns::name`); aten ops name theirs in their YAML entry."""
    if op.startswith("aten::"):
        raise RuntimeError(f"{op}: an aten op's backward is named by its entry in _aten/native_functions/*.yaml")

    def register(fn: Callable) -> Callable:
        if op in FORMULAS:
            raise RuntimeError(f"a derivative for {op} is already registered")
        FORMULAS[op] = make_derivative(op, node_name, Formula(fn, tuple(inputs), tuple(save)))
        return fn

    return register
