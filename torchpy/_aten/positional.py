"""Positional fast paths generated from the schema, for Tensor methods called with plain ints
or plain tensors.

x.transpose(0, 1), x.diagonal(), x.flatten(1), x.split(2), x.t(), x.view_as(y), x.mm(y): for
each number of plain int arguments (and of plain Tensor ones), the overload PyTorch's parser
picks (worked out once, at install, by the parser's own `PythonOp.choose`) is called straight
through the dispatcher's call entry with the arguments the binder would give it: trailing
ints equal to the schema's default dropped.
The same goes for bools by position and an int for an `int[1]` list (x.sum(0, True)), for a
method's keywords naming the trailing positional parameters of such a call (x.sum(0,
keepdim=True), written into their positions as the binder writes them), and for an int list
that is a method's only positional parameter, as varargs or one sequence (x.view(2, 3),
x.permute((1, 0))).
Every default comes from the schema; nothing is restated here. Any other call (other
keywords or types, a subclass, a TorchFunctionMode) takes the generated binding's path.

The method is generated as Python source, one branch per arity with the default checks
unrolled, so it costs no more than a hand-written one.
"""

from __future__ import annotations

from typing import Any, Callable

from .._dispatch.ops import OpOverload, call
from .._tensor.tensor import Size, Tensor, from_array
from .._tensor.function_modes import mode_on, track
from .._tensor.function_modes import state as function_state
from .._tensor.torch_function import dispatch_from_binding, needs_override
from .._tensor import dtype as _dt
from .python_api import PythonOp, _tuple_of

# how a plain int / bool argument is passed for a parameter's type: as given, or (an int for a
# one-element list, which the binder makes [n]) in a list
_INT_FORMS = {"int": "int", "SymInt": "int", "bool": "bool", "int[1]": "list", "int[1]?": "list",
              "SymInt[1]": "list"}
_REQUIRED = object()  # a parameter without a default: never dropped

# The globals every generated binding runs with (its ops and python_op are closure cells): one
# namespace whose `_function_modes` flag function_modes keeps current.
_GLOBALS: dict[str, Any] = {"Tensor": Tensor, "call": call, "_SEQUENCES": (tuple, list, Size), "mode_on": mode_on, "state": function_state, "needs_override": needs_override,
                            "dispatch_from_binding": dispatch_from_binding, "__builtins__": __builtins__}
track(_GLOBALS)


def _plan(python_op: PythonOp, n: int, kind: type, probe: Tensor) -> tuple | None:
    """(op, default per argument or _REQUIRED, returns a list, form per argument) for a call
    with n plain tensors, or n plain ints / bools after self (an int for an `int[1]` list, as in
    x.sum(0, True)), or None when such a call needs more than binding by position."""
    if kind is Tensor:
        return _plan_for(python_op, (probe,) + (probe,) * n, ("Tensor",) * n)
    # all ints first (what the plain-int branches always took), then each overload's bools
    plan = _plan_for(python_op, (probe,) + (0,) * n, ("int",) * n)
    if plan is not None:
        return plan
    for candidate in python_op.candidates:
        given = candidate.op._schema.arguments[1:1 + n]
        if len(given) < n or any(_INT_FORMS.get(str(p.type)) is None for p in given):
            continue
        forms = tuple(_INT_FORMS[str(p.type)] for p in given)
        if "bool" not in forms and "list" not in forms:
            continue
        plan = _plan_for(python_op, (probe,) + tuple(False if f == "bool" else 0 for f in forms), forms)
        if plan is not None:
            return plan
    return None


def _plan_for(python_op: PythonOp, args: tuple, forms: tuple) -> tuple | None:
    choice = python_op.choose(args, {})
    if not isinstance(choice, tuple):
        return None
    candidate, call_args, call_kwargs = choice[:3]
    if call_args is not args or call_kwargs or choice[3] or candidate.return_type not in (None, _tuple_of):
        return None  # a Python convenience reshaped the call (varargs, ...), or named returns
    n = len(forms)
    parameters = candidate.op._schema.arguments
    given, rest = parameters[1:1 + n], parameters[1 + n:]
    if len(given) < n or any(p.kwarg_only or _INT_FORMS.get(str(p.type), str(p.type)) != form
                             for p, form in zip(given, forms)):
        return None
    if any(not p.has_default for p in rest):
        return None
    defaults = tuple(p.default_value if p.has_default and form in ("int", "bool") else _REQUIRED
                     for p, form in zip(given, forms))
    return candidate.op, defaults, candidate.return_type is _tuple_of, forms


def _varargs_plan(python_op: PythonOp, plans: dict, probe: Tensor) -> OpOverload | None:
    """The op for x.view(2, 3) / x.view((2, 3)) / x.view(2): an int list that is the only
    positional parameter, taken as varargs or as one sequence, or None when the parser picks
    another overload for one of those forms (squeeze(0) is squeeze.dim, not squeeze.dims)."""
    forms = [((0, 0), [0, 0]), ((0, 0, 0), [0, 0, 0]), (((0, 0),), None), (([0, 0],), None)]
    if (1, int) not in plans:  # an int arity-1 plan goes first and takes x.op(2) itself
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
    parameters = op._schema.arguments
    if any(not p.has_default for p in parameters[2:]):
        return None
    return op


def _branch(forms: tuple, index: int, defaults: tuple, as_tuple: bool, keyset_of: str) -> list[str]:
    """Source lines for a call of len(forms) arguments: the type test, then one return per
    number of trailing defaults dropped (an arity's int and Tensor branches follow its unpacking)."""
    n = len(forms)
    names = [f"a{j}" for j in range(n)]
    lines = []
    indent = "            "
    if n:
        types = {"int": "int", "list": "int", "bool": "bool", "Tensor": "Tensor"}
        lines.append(f"            if " + " and ".join(f"type({a}) is {types[f]}" for a, f in zip(names, forms)) + ":")
        indent = "                "
    keyset = " | ".join([keyset_of] + [f"{a}._keyset" for a, f in zip(names, forms) if f == "Tensor"])
    passed = [f"[{a}]" if f == "list" else a for a, f in zip(names, forms)]
    for kept in range(n, -1, -1):
        expr = f"call(op{index}, {keyset}, {', '.join(['self'] + passed[:kept])})"
        if as_tuple:
            expr = f"tuple({expr})"  # PyTorch's bindings give tuples for Tensor[]
        if kept == 0 or defaults[kept - 1] is _REQUIRED:
            lines.append(f"{indent}return {expr}")
            break
        lines.append(f"{indent}if {names[kept - 1]} != {defaults[kept - 1]!r}:")
        lines.append(f"{indent}    return {expr}")
    return lines


def _branches(plans: dict, is_method: bool, source: str, with_tensors: bool) -> list[str]:
    """The per-arity branches over the arguments in `source` (op<i> is the i-th plan's op)."""
    lines = []
    arity = -1
    for index, ((n, kind), (op, defaults, as_tuple, forms)) in enumerate(plans.items()):  # by arity, int first
        if kind is Tensor and not with_tensors:
            continue
        if n != arity:
            arity = n
            lines.append(f"        if n == {n}:")
            targets = [f"a{j}" for j in range(n)] if is_method else ["self"] + [f"a{j}" for j in range(n)]
            if targets:
                lines.append(f"            {', '.join(targets)}, = {source}")
        lines += _branch(forms, index, defaults, as_tuple, "self._keyset")
    return lines


def _keyword_folds(python_op: PythonOp, plans: dict, probe: Tensor) -> list[tuple[int, tuple[str, ...]]]:
    """(positional count, trailing parameter names given by keyword) for each int branch whose
    call the parser resolves to the same overload, with those keywords, as positionally."""
    folds = []
    for (n, kind), (op, _, _, forms) in plans.items():
        if kind is Tensor or not n:
            continue
        names = tuple(p.name for p in op._schema.arguments[1:1 + n])
        values = tuple(False if f == "bool" else 0 for f in forms)
        for j in range(n):
            args = (probe,) + values[:j]
            choice = python_op.choose(args, dict(zip(names[j:], values[j:])))
            if isinstance(choice, tuple) and choice[0].op is op and choice[1] is args and not choice[3]:
                folds.append((j, names[j:]))
    return folds


def make_positional_method(python_op: PythonOp, probe: Tensor) -> Callable | None:
    """Tensor.<name> for `python_op` with fast paths from its schema, or None if no arity has one."""
    return _make(python_op, probe, is_method=True)


def make_positional_function(python_op: PythonOp, probe: Tensor) -> Callable | None:
    """torchpy.<name> (self first) for `python_op` with fast paths from its schema, or None."""
    return _make(python_op, probe, is_method=False)


def _make(python_op: PythonOp, probe: Tensor, is_method: bool) -> Callable | None:
    most = max(c.max_positional for c in python_op.candidates)
    plans = {(n, kind): plan for n in range(most) for kind in ((int, Tensor) if n else (int,))
             if (plan := _plan(python_op, n, kind, probe)) is not None}
    varargs = _varargs_plan(python_op, plans, probe)
    if not plans and varargs is None:
        return None
    name = python_op.name
    # one global read while no mode exists anywhere; under one, the stack's emptiness first (a
    # handler's own calls): mode_on() is called only with a mode on this thread's stack
    no_mode = "not (_function_modes and state.modes and mode_on())"
    if is_method:
        lines = ["def binding(self, *args, **kwargs):",
                 f"    if not kwargs and type(self) is Tensor and {no_mode}:",
                 "        n = len(args)"]
        everything = "(self,) + args"
    else:
        lines = ["def binding(*args, **kwargs):",
                 f"    if not kwargs and args and type(args[0]) is Tensor and {no_mode}:",
                 "        n = len(args) - 1"]
        everything = "args"
    ops = [plan[0] for plan in plans.values()]
    lines += _branches(plans, is_method, "args", with_tensors=True)
    if varargs is not None:
        # plain ints as varargs, or one tuple/list/Size of them: the list the parser folds
        index = len(ops)
        ops.append(varargs)
        given = "args" if is_method else "args[1:]"
        lines += [f"        if n:",
                  f"            values = {given}[0] if n == 1 and type({given}[0]) in _SEQUENCES else {given}",
                  f"            for v in values:",
                  f"                if type(v) is not int:",
                  f"                    break",
                  f"            else:",
                  f"                return call(op{index}, {'self' if is_method else 'args[0]'}._keyset, "
                  f"{'self' if is_method else 'args[0]'}, list(values))"]
    folds = _keyword_folds(python_op, plans, probe) if is_method else []
    if folds:
        # x.sum(0, keepdim=True) / x.sum(dim=1): keywords naming the trailing positional
        # parameters of an int branch go into their positions, as the binder writes them
        lines += [f"    elif kwargs and type(self) is Tensor and {no_mode}:",
                  "        n = len(args)",
                  "        given = None"]
        for at, (j, names) in enumerate(folds):
            test = " and ".join([f"n == {j}", f"len(kwargs) == {len(names)}"] + [f"{k!r} in kwargs" for k in names])
            lines += [f"        {'elif' if at else 'if'} {test}:",
                      f"            given = args + ({''.join(f'kwargs[{k!r}], ' for k in names)})"]
        lines += ["        if given is not None:",
                  "            n = len(given)"]
        lines += ["    " + line for line in _branches(plans, is_method, "given", with_tensors=False)]
    # the generated binding's body (python_api.make_method / make_function), inline: no second
    # frame for the other calls
    lines += [f"    if needs_override({everything}, kwargs):",
              f"        return dispatch_from_binding(binding, {everything}, kwargs)",
              f"    return python_op({everything}, kwargs)"]
    parameters = ", ".join([f"op{index}" for index in range(len(ops))] + ["python_op"])
    source = "\n".join([f"def make({parameters}):"] + ["    " + line for line in lines] + ["    return binding"])
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<positional {name}>", "exec"), _GLOBALS, namespace)
    binding = namespace["make"](*ops, python_op)
    binding.__name__ = name
    binding.__qualname__ = name if is_method else f"_VariableFunctionsClass.{name}"  # as make_function's
    binding._python_op = python_op  # type: ignore[attr-defined]
    if is_method:
        binding._is_method = True  # type: ignore[attr-defined]
    return binding


def probe_tensor() -> Tensor:
    """A plain tensor to ask the parser with (overload choice depends on types only)."""
    import numpy as np

    return from_array(np.zeros(1, np.float32), _dt.float32)
