"""Positional fast paths generated from the schema, for Tensor methods called with plain ints
or plain tensors.

x.transpose(0, 1), x.diagonal(), x.flatten(1), x.split(2), x.t(), x.view_as(y), x.mm(y): for
each number of plain int arguments (and of plain Tensor ones), the overload PyTorch's parser
picks (worked out once, at install, by the parser's own `PythonOp.choose`) is called straight
through the dispatcher's call entry with the arguments the binder would give it: trailing
ints equal to the schema's default dropped.
Every default comes from the schema; nothing is restated here. Any other call (keywords,
other types, a subclass, a TorchFunctionMode) takes the generated binding's path.

The method is generated as Python source, one branch per arity with the default checks
unrolled, so it costs no more than a hand-written one.
"""

from __future__ import annotations

from typing import Any, Callable

from .._dispatch.ops import OpOverload, call
from .._tensor.tensor import Tensor, from_array
from .._tensor.function_modes import mode_on, track
from .._tensor.function_modes import state as function_state
from .._tensor.torch_function import dispatch_from_binding, needs_override
from .._tensor import dtype as _dt
from .python_api import PythonOp, _tuple_of

_PARAMETER_TYPES = {int: ("int", "SymInt"), Tensor: ("Tensor",)}  # what takes the argument as given
_REQUIRED = object()  # a parameter without a default: never dropped

# The globals every generated binding runs with (its ops and python_op are closure cells): one
# namespace whose `_function_modes` flag function_modes keeps current.
_GLOBALS: dict[str, Any] = {"Tensor": Tensor, "call": call, "mode_on": mode_on, "state": function_state, "needs_override": needs_override,
                            "dispatch_from_binding": dispatch_from_binding, "__builtins__": __builtins__}
track(_GLOBALS)


def _plan(python_op: PythonOp, n: int, kind: type, probe: Tensor) -> tuple[OpOverload, tuple, bool] | None:
    """(op, default per argument or _REQUIRED, returns a list) for a call with n plain ints (or
    n plain tensors) after self, or None when such a call needs more than binding by position."""
    args = (probe,) + ((0,) if kind is int else (probe,)) * n
    choice = python_op.choose(args, {})
    if not isinstance(choice, tuple):
        return None
    candidate, call_args, call_kwargs = choice[:3]
    if call_args is not args or call_kwargs or choice[3] or candidate.return_type not in (None, _tuple_of):
        return None  # a Python convenience reshaped the call (varargs, ...), or named returns
    parameters = candidate.op._schema.arguments
    given, rest = parameters[1:1 + n], parameters[1 + n:]
    if len(given) < n or any(p.kwarg_only or str(p.type) not in _PARAMETER_TYPES[kind] for p in given):
        return None
    if any(not p.has_default for p in rest):
        return None
    defaults = tuple(p.default_value if p.has_default and kind is int else _REQUIRED for p in given)
    return candidate.op, defaults, candidate.return_type is _tuple_of


def _branch(n: int, kind: type, index: int, defaults: tuple, as_tuple: bool) -> list[str]:
    """Source lines for a call of n `kind` arguments: the type test, then one return per number
    of trailing defaults dropped (an arity's int and Tensor branches follow its unpacking)."""
    names = [f"a{j}" for j in range(n)]
    lines = []
    indent = "            "
    if n:
        lines.append(f"            if " + " and ".join(f"type({a}) is {kind.__name__}" for a in names) + ":")
        indent = "                "
    keyset = " | ".join(["self._keyset"] + ([f"{a}._keyset" for a in names] if kind is Tensor else []))
    for kept in range(n, -1, -1):
        expr = f"call(op{index}, {keyset}, {', '.join(['self'] + names[:kept])})"
        if as_tuple:
            expr = f"tuple({expr})"  # PyTorch's bindings give tuples for Tensor[]
        if kept == 0 or defaults[kept - 1] is _REQUIRED:
            lines.append(f"{indent}return {expr}")
            break
        lines.append(f"{indent}if {names[kept - 1]} != {defaults[kept - 1]!r}:")
        lines.append(f"{indent}    return {expr}")
    return lines


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
    if not plans:
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
    ops = []
    arity = -1
    for index, ((n, kind), (op, defaults, as_tuple)) in enumerate(plans.items()):  # (by arity, int first)
        ops.append(op)
        if n != arity:
            arity = n
            lines.append(f"        if n == {n}:")
            targets = [f"a{j}" for j in range(n)] if is_method else ["self"] + [f"a{j}" for j in range(n)]
            if targets:
                lines.append(f"            {', '.join(targets)}, = args")
        lines += _branch(n, kind, index, defaults, as_tuple)
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
