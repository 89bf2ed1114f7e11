"""Positional fast paths generated from the schema: Tensor methods and torchpy functions
called with plain ints, bools, numbers, int lists or plain tensors.

x.transpose(0, 1), x.exp(), x.add(y), x.mul(2), x.eq(0), x.add_(1), x.clamp(0, 1),
x.sort(), x.gather(1, idx), x.unflatten(1, (2, 3)), torchpy.where(c, x, y): for each plan
positional_plans.py finds (an arity and a form per argument, checked against PyTorch's
parser), the overload the parser picks is called straight through the dispatcher's call
entry with the arguments the binder would give it: trailing arguments equal to the
schema's default dropped, a number for a Tensor parameter wrapped, an int for an `int[1]`
list and an int tuple made lists, a named-tuple result made the parser's return type.
The same goes for a method's keywords naming the trailing positional parameters of such a
call (x.sum(0, keepdim=True), written into their positions as the binder writes them), and
for an int list that is a method's only positional parameter, as varargs or one sequence
(x.view(2, 3), x.permute((1, 0))).

Overrides: under a TorchFunctionMode, a call on plain tensors and numbers goes to the mode
directly; a call with one Tensor subclass that keeps Tensor's default __torch_function__
runs that handler's work inline (the same plans, subclasses passing for tensors, with
subclass handling off, the result given the class). Anything else takes the generated
binding's path (python_api.make_method / make_function), inlined at the end.

Every default comes from the schema; nothing is restated here. The binding is generated as
Python source, one branch per arity and form with the default checks unrolled, so it costs
no more than a hand-written one.
"""

from __future__ import annotations

from typing import Any, Callable

from .._dispatch.ops import OpOverload, call
from .._tensor import dtype as _dt
from .._tensor.function_modes import dispatch_to_mode, mode_on, track
from .._tensor.function_modes import state as function_state
from .._tensor.tensor import Size, Tensor, from_array
from .._tensor.torch_function import (
    _DECLINED, default_handler_class, dispatch_from_binding, needs_override, run_default,
    run_default_binary,
)
from .dunders import wrap_number
from .positional_plans import DROPPABLE, REQUIRED, Plan, keyword_folds, plans, varargs_op
from .python_api import PythonOp, _tuple_of


def _all_ints(values: Any) -> bool:
    for value in values:
        if type(value) is not int:
            return False
    return True


# The globals every generated binding runs with (its ops, return types and python_op are
# closure cells): one namespace whose `_function_modes` flag function_modes keeps current.
_GLOBALS: dict[str, Any] = {
    "Tensor": Tensor, "call": call, "_SEQUENCES": (tuple, list, Size), "_NUMBERS": frozenset({bool, int, float, complex}),
    "mode_on": mode_on, "state": function_state, "needs_override": needs_override, "wrap_number": wrap_number,
    "dispatch_from_binding": dispatch_from_binding, "dispatch_to_mode": dispatch_to_mode,
    "default_handler_class": default_handler_class, "run_default": run_default,
    "run_default_binary": run_default_binary, "_DECLINED": _DECLINED,
    "_all_ints": _all_ints, "__builtins__": __builtins__,
}
track(_GLOBALS)

# a form's type test: for plain calls, and under subclass handling off (a subclass is a Tensor)
_TESTS = {
    "int": "type({a}) is int", "list": "type({a}) is int", "bool": "type({a}) is bool",
    "Tensor": "type({a}) is Tensor", "wrap": "type({a}) in _NUMBERS", "number": "type({a}) in _NUMBERS",
    "number?": "({a} is None or type({a}) in _NUMBERS)", "int?": "({a} is None or type({a}) is int)",
    "ints": "type({a}) in _SEQUENCES and _all_ints({a})",
}
_SUBCLASS_TESTS = {**_TESTS, "Tensor": "isinstance({a}, Tensor)"}


class _Source:
    """The generated function's closure: the ops, return types and constants its lines name."""

    def __init__(self) -> None:
        self.cells: dict[str, Any] = {}
        self._names: dict[int, str] = {}

    def name(self, value: Any, prefix: str) -> str:
        name = self._names.get(id(value))
        if name is None:
            name = self._names[id(value)] = f"{prefix}{len(self.cells)}"
            self.cells[name] = value
        return name

    def literal(self, value: Any) -> str:
        """Source for a default: inline where repr is a literal, else a closure cell."""
        if value is None or type(value) in (bool, int):
            return repr(value)
        return self.name(value, "c")


def _kept_test(source: _Source, a: str, form: str, default: Any) -> str:
    """Source that is true when `a` must be passed (is not the default the binder drops)."""
    if form in ("int", "bool"):
        return f"{a} != {source.literal(default)}"
    if default is None:
        return f"{a} is not None"
    return f"type({a}) is not {type(default).__name__} or {a} != {source.literal(default)}"


def _returning(source: _Source, plan: Plan, expr: str) -> str:
    """`expr`'s result as the parser's binding returns it."""
    if plan.returns is _tuple_of:
        return f"tuple({expr})"  # PyTorch's bindings give tuples for Tensor[]
    if plan.returns is not None:
        return f"{source.name(plan.returns, 'returns')}(*{expr})"  # torch.return_types.<name>
    return expr


def _plan_lines(source: _Source, plan: Plan, indent: str, subclass: bool, whole: bool = False,
                mode: tuple = ()) -> list[str]:
    """The type test for one plan's forms (arguments a0, a1, ...), then `mode` (the lines that
    hand a call on plain values to a TorchFunctionMode), then one return per number of
    trailing defaults dropped. `whole`: `args` is (self, a0, ...) as it stands."""
    tests = _SUBCLASS_TESTS if subclass else _TESTS
    names = [f"a{j}" for j in range(len(plan.forms))]
    lines = []
    if names:
        lines.append(f"{indent}if " + " and ".join(tests[f].format(a=a) for a, f in zip(names, plan.forms)) + ":")
        indent += "    "
    lines += [indent + line for line in mode]
    passed, keyset = [], ["self._keyset"]
    for a, form in zip(names, plan.forms):
        if form == "wrap":  # a number for a Tensor parameter: the binder's wrapped number
            lines.append(f"{indent}w{a[1:]} = wrap_number({a})")
            a = f"w{a[1:]}"
        passed.append({"list": f"[{a}]", "ints": f"list({a})"}.get(form, a))
        if form in ("Tensor", "wrap"):
            keyset.append(f"{a}._keyset")
    op = source.name(plan.op, "op")
    if names and all(form == "Tensor" for form in plan.forms):
        # call()'s first step, inline (autograd's kernel for these key sets), as the dunders do
        operands = ", ".join(["self"] + passed)
        probed = f"hit[0]({op}, hit[1], {'args' if whole else f'({operands},)'}, {{}})"
        called = f"call({op}, keyset, {operands})"
        lines += [f"{indent}keyset = {' | '.join(keyset)}",
                  f"{indent}hit = {source.name(plan.op.probe_call_raw, 'probe')}(keyset | state.salt)",
                  f"{indent}if hit is not None:",
                  f"{indent}    return {_returning(source, plan, probed)}",
                  f"{indent}return {_returning(source, plan, called)}"]
        return lines
    for kept in range(len(names), -1, -1):
        expr = _returning(source, plan, f"call({op}, {' | '.join(keyset)}, {', '.join(['self'] + passed[:kept])})")
        default = plan.defaults[kept - 1] if kept else REQUIRED
        if default is REQUIRED or plan.forms[kept - 1] not in DROPPABLE:
            lines.append(f"{indent}return {expr}")
            break
        lines.append(f"{indent}if {_kept_test(source, names[kept - 1], plan.forms[kept - 1], default)}:")
        lines.append(f"{indent}    return {expr}")
    return lines


def _arity_lines(source: _Source, found: dict, varargs: OpOverload | None, is_method: bool, subclass: bool,
                 mode: tuple = ()) -> list[str]:
    """The branches over `args` (n: their number after self), at two levels of indent; each
    taken branch runs `mode` first (its arguments being plain, only a mode can claim it)."""
    lines = []
    for n, arity in found.items():
        lines.append(f"        if n == {n}:")
        targets = [f"a{j}" for j in range(n)] if is_method else ["self"] + [f"a{j}" for j in range(n)]
        if targets:
            lines.append(f"            {', '.join(targets)}, = args")
        for plan in arity:
            lines += _plan_lines(source, plan, "            ", subclass, not is_method, mode)
    if varargs is not None:
        # plain ints as varargs, or one tuple/list/Size of them: the list the parser folds
        given = "args" if is_method else "args[1:]"
        self = "self" if is_method else "args[0]"
        lines += [f"        if n:",
                  f"            values = {given}[0] if n == 1 and type({given}[0]) in _SEQUENCES else {given}",
                  f"            if _all_ints(values):"]
        lines += ["                " + line for line in mode]
        lines += [f"                return call({source.name(varargs, 'op')}, {self}._keyset, {self}, list(values))"]
    return lines


def _fold_lines(source: _Source, folds: dict, is_method: bool) -> list[str]:
    """x.sum(0, keepdim=True) / x.clamp(min=0) / x.clamp(max=1): keywords naming trailing
    positional parameters of a plan go into their positions, as the binder writes them, and
    the parameters left out before them take their defaults."""
    lines = [f"        n = {'len(args)' if is_method else 'len(args) - 1'}"]
    for (j, fills), fold_plans in folds.items():
        keywords = [name for how, name in fills if how == "keyword"]
        test = " and ".join([f"n == {j}", f"len(kwargs) == {len(keywords)}"] + [f"{k!r} in kwargs" for k in keywords])
        targets = ([] if is_method else ["self"]) + [f"a{i}" for i in range(j + len(fills))]
        filled = "".join(f"kwargs[{value!r}], " if how == "keyword" else f"{source.literal(value)}, "
                         for how, value in fills)
        lines += [f"        if {test}:",
                  f"            {', '.join(targets)}, = args + ({filled})"]
        for plan in fold_plans:
            lines += _plan_lines(source, plan, "            ", subclass=False)
    return lines


def make_positional_method(python_op: PythonOp, probe: Tensor) -> Callable | None:
    """Tensor.<name> for `python_op` with fast paths from its schema, or None if no arity has one."""
    return _make(python_op, probe, is_method=True)


def make_positional_function(python_op: PythonOp, probe: Tensor) -> Callable | None:
    """torchpy.<name> (self first) for `python_op` with fast paths from its schema, or None."""
    return _make(python_op, probe, is_method=False)


def _make(python_op: PythonOp, probe: Tensor, is_method: bool) -> Callable | None:
    found = plans(python_op, probe)
    arity_one_ints = any(plan.forms == ("int",) for plan in found.get(1, ()))
    varargs = varargs_op(python_op, arity_one_ints, probe)
    if not found and varargs is None:
        return None
    source = _Source()
    mode = "_function_modes and state.modes and mode_on()"
    if is_method:
        signature, everything, count = "self, *args", "(self,) + args", "len(args)"
        plain, subclassed = "type(self) is Tensor", "isinstance(self, Tensor)"
    else:
        signature, everything, count = "*args", "args", "len(args) - 1"
        plain, subclassed = "args and type(args[0]) is Tensor", "args and isinstance(args[0], Tensor)"
    # one global read while no mode exists anywhere; under one, the stack's emptiness first (a
    # handler's own calls): mode_on() is called only with a mode on this thread's stack
    to_mode = ("if _function_modes and (thread := state.__dict__)['modes'] and mode_on(thread):",
               f"    return dispatch_to_mode(binding, {everything}, kwargs, thread['modes'])")
    lines = [f"def binding({signature}, **kwargs):",
             f"    if not kwargs and {plain}:",
             f"        n = {count}"]
    lines += _arity_lines(source, found, varargs, is_method, subclass=False, mode=to_mode)
    folds = keyword_folds(python_op, found, probe)
    if folds:
        lines += [f"    elif kwargs and {plain} and not ({mode}):"] + _fold_lines(source, folds, is_method)
    # one subclass keeping Tensor's __torch_function__: that handler's work, inline (for two
    # tensors, the dunders' one step: run_default_binary)
    lines += ["    if not kwargs:"]
    binary = [plan.op for plan in found.get(1, ()) if plan.forms == ("Tensor",)]
    if binary:
        pair = "len(args) == 1 and isinstance(self, Tensor) and isinstance(args[0], Tensor)" if is_method else \
            "len(args) == 2 and isinstance(args[0], Tensor) and isinstance(args[1], Tensor)"
        operands = "self, args[0]" if is_method else "args[0], args[1]"
        lines += [f"        if {pair}:",
                  f"            result = run_default_binary(binding, {source.name(binary[0], 'op')}, {operands}, "
                  "state.__dict__, True)",
                  "            if result is not _DECLINED:",
                  "                return result"]
    lines += [
              f"        cls = default_handler_class({everything})",
              "        if cls is not None:",
              f"            return run_default(cls, binding, subclassed, {everything}, kwargs)"]
    # the generated binding's body (python_api.make_method / make_function), inline: no second
    # frame for the other calls
    lines += [f"    if needs_override({everything}, kwargs):",
              f"        return dispatch_from_binding(binding, {everything}, kwargs)",
              f"    return python_op({everything}, kwargs)",
              "",
              f"def subclassed({signature}):",
              "    # subclass handling is off here: a Tensor subclass passes for a Tensor",
              f"    if {subclassed}:",
              f"        n = {count}"]
    lines += _arity_lines(source, found, varargs, is_method, subclass=True)
    lines += [f"    return python_op({everything}, {{}})"]
    parameters = ", ".join(list(source.cells) + ["python_op"])
    text = "\n".join([f"def make({parameters}):"] + ["    " + line for line in lines] + ["    return binding"])
    namespace: dict[str, Any] = {}
    exec(compile(text, f"<positional {python_op.name}>", "exec"), _GLOBALS, namespace)
    binding = namespace["make"](*source.cells.values(), python_op)
    binding.__name__ = python_op.name
    binding.__qualname__ = python_op.name if is_method else f"_VariableFunctionsClass.{python_op.name}"  # as make_function's
    binding._python_op = python_op  # type: ignore[attr-defined]
    binding._source = text  # type: ignore[attr-defined]  (for reading what was generated)
    if is_method:
        binding._is_method = True  # type: ignore[attr-defined]
    return binding


def probe_tensor() -> Tensor:
    """A plain tensor to ask the parser with (overload choice depends on types only)."""
    import numpy as np

    return from_array(np.zeros(1, np.float32), _dt.float32)
