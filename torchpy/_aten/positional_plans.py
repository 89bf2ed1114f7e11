"""Which positional calls of a public op can skip overload resolution and binding, worked out
from the schema and the parser (positional.py turns the plans into Python source).

A plan is one arity and one *form* per argument after self: a plain int, a bool, an int for an
`int[1]` list, a plain Tensor, a Python number (for a Scalar parameter, or wrapped for a
Tensor one where the parser allows numbers as tensors), None or a number for `Scalar?`, None
or an int for `int?`, a tuple / list of ints for an int list. Forms are read from each
overload's schema, and a plan is kept only where PyTorch's parser (`PythonOp.choose`) picks
that overload for every type the form lets through, and binds the call as given, with
nothing but trailing defaults dropped. So a plan restates no rule of the parser's.
"""

from __future__ import annotations

import itertools
from typing import Any, NamedTuple

from .._dispatch.ops import OpOverload
from .._tensor.tensor import Size, Tensor
from .python_api import PythonOp

REQUIRED = object()  # a parameter without a default (or a form never dropped)

# the form(s) a positional argument takes, by its parameter's type
_FORMS = {
    "int": ("int",), "SymInt": ("int",), "bool": ("bool",), "int[1]": ("list",), "int[1]?": ("list",),
    "SymInt[1]": ("list",), "Tensor": ("Tensor",), "Tensor?": ("Tensor",), "Scalar": ("number",),
    "Scalar?": ("number?",), "int?": ("int?",), "SymInt?": ("int?",), "int[]": ("ints",), "SymInt[]": ("ints",),
}
# the forms whose value is dropped, when trailing and equal to the default, as the binder drops it
DROPPABLE = frozenset({"int", "bool", "number", "number?", "int?"})
# the largest number of type combinations a plan is checked with
_MOST_COMBINATIONS = 64


class Plan(NamedTuple):
    """A positional call that goes straight to `op`'s dispatch."""

    forms: tuple[str, ...]  # one per argument after self
    op: OpOverload
    defaults: tuple  # per argument: the schema's default, or REQUIRED
    returns: Any  # None, or what the result is made into (a tuple for Tensor[], a named tuple)


def _probes(form: str, probe: Tensor) -> tuple:
    """A value of each Python type the form lets through (overload choice depends on types)."""
    numbers = (0, 0.0, False, 0j)
    return {"int": (0,), "bool": (False,), "list": (0,), "Tensor": (probe,), "wrap": numbers,
            "number": numbers, "number?": numbers + (None,), "int?": (0, None),
            "ints": ((0, 0), [0, 0], Size([0, 0]))}[form]


def _same(value: Any, default: Any) -> bool:
    """The binder's test for dropping a trailing argument (type-sensitive for numbers)."""
    return type(value) is type(default) and value == default


def plans(python_op: PythonOp, probe: Tensor) -> dict[int, list[Plan]]:
    """arity -> the plans for calls with that many arguments after self, in the overloads' order."""
    found: dict[int, list[Plan]] = {}
    for candidate in python_op.candidates:
        parameters = candidate.op._schema.arguments
        positional = [p for p in parameters if not p.kwarg_only]
        if not positional or str(positional[0].type) != "Tensor" or candidate.varargs_at == 1:
            continue  # (an int list after self alone: positional.py's varargs form)
        for n in range(len(positional)):
            given, rest = positional[1:1 + n], parameters[1 + n:]
            if any(not p.has_default for p in rest) or any(str(p.type) not in _FORMS for p in given):
                continue
            options = [_FORMS[str(p.type)] + (("wrap",) if str(p.type) == "Tensor" and python_op.allow_numbers else ())
                       for p in given]
            for forms in itertools.product(*options):
                if any(plan.forms == forms for plan in found.get(n, ())):
                    continue
                defaults = tuple(p.default_value if p.has_default and form in DROPPABLE else REQUIRED
                                 for p, form in zip(given, forms))
                if _parser_agrees(python_op, candidate, forms, defaults, probe):
                    found.setdefault(n, []).append(Plan(forms, candidate.op, defaults, candidate.return_type))
    return dict(sorted(found.items()))


def _parser_agrees(python_op: PythonOp, candidate: Any, forms: tuple, defaults: tuple, probe: Tensor) -> bool:
    """Whether the parser picks `candidate` for every combination of the forms' types, binding
    the call as given with only the trailing defaults dropped."""
    combinations = list(itertools.product(*(_probes(form, probe) for form in forms)))
    if len(combinations) > _MOST_COMBINATIONS:
        return False
    for values in combinations:
        args = (probe,) + values
        choice = python_op.choose(args, {})
        if not isinstance(choice, tuple):
            return False
        chosen, call_args, call_kwargs, requires_grad, bound_args, bound_kwargs = choice
        if chosen is not candidate or call_args is not args or call_kwargs or requires_grad or bound_kwargs:
            return False
        kept = len(values)
        while kept and defaults[kept - 1] is not REQUIRED and _same(values[kept - 1], defaults[kept - 1]):
            kept -= 1
        if len(bound_args) != 1 + kept:
            return False
    return True


def varargs_op(python_op: PythonOp, arity_one_ints: bool, probe: Tensor) -> OpOverload | None:
    """The op for x.view(2, 3) / x.view((2, 3)) / x.view(2): an int list that is the only
    positional parameter, taken as varargs or as one sequence, or None when the parser picks
    another overload for one of those forms (squeeze(0) is squeeze.dim, not squeeze.dims).
    `arity_one_ints`: a plan takes x.op(2) already."""
    forms = [((0, 0), [0, 0]), ((0, 0, 0), [0, 0, 0]), (((0, 0),), None), (([0, 0],), None)]
    if not arity_one_ints:
        forms.append(((0,), [0]))
    op = None
    for given, folded in forms:
        args = (probe,) + given
        choice = python_op.choose(args, {})
        if not isinstance(choice, tuple):
            return None
        candidate, call_args, call_kwargs = choice[:3]
        if candidate.varargs_at != 1 or call_kwargs or choice[3] or candidate.return_type is not None:
            return None
        if folded is not None and call_args != (probe, folded):
            return None
        if op is not None and candidate.op is not op:
            return None
        op = candidate.op
    assert op is not None
    if any(not p.has_default for p in op._schema.arguments[2:]):
        return None
    return op


_FILLABLE = frozenset({type(None), bool, int, float})  # defaults a keyword fold writes in for a parameter left out


def keyword_folds(python_op: PythonOp, found: dict[int, list[Plan]], probe: Tensor) -> dict[tuple, list[Plan]]:
    """(positional count, what fills each later position: ("keyword", name) or ("default",
    value)) -> the plans without tensors whose call the parser resolves, with those keywords,
    to the same overload and the same bound arguments as positionally, the parameters left
    out taking their defaults (x.sum(0, keepdim=True), x.clamp(min=0), x.clamp(max=1))."""
    folds: dict[tuple, list[Plan]] = {}
    for n, arity in found.items():
        for plan in arity:
            if not n or n > 4 or "Tensor" in plan.forms or "wrap" in plan.forms:
                continue
            parameters = plan.op._schema.arguments[1:1 + n]
            values = tuple(_probes(form, probe)[0] for form in plan.forms)
            for j in range(n):
                # the last parameter by keyword; each one between by keyword or left out
                for named in itertools.product((True, False), repeat=n - 1 - j):
                    named += (True,)
                    if any(not given and not (p.has_default and type(p.default_value) in _FILLABLE)
                           for p, given in zip(parameters[j:], named)):
                        continue
                    fills = tuple(("keyword", p.name) if given else ("default", p.default_value)
                                  for p, given in zip(parameters[j:], named))
                    if _fold_agrees(python_op, plan, j, fills, values, probe):
                        folds.setdefault((j, fills), []).append(plan)
    return folds


def _fold_agrees(python_op: PythonOp, plan: Plan, j: int, fills: tuple, values: tuple, probe: Tensor) -> bool:
    args = (probe,) + values[:j]
    kwargs = {name: v for (how, name), v in zip(fills, values[j:]) if how == "keyword"}
    positional = (probe,) + values[:j] + tuple(v if how == "keyword" else name for (how, name), v in zip(fills, values[j:]))
    choice, expected = python_op.choose(args, kwargs), python_op.choose(positional, {})
    if not isinstance(choice, tuple) or not isinstance(expected, tuple):
        return False
    return (choice[0].op is plan.op and expected[0].op is plan.op and choice[1] is args and not choice[3]
            and len(choice[4]) == len(expected[4]) and choice[5] == expected[5])
