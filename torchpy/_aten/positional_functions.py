"""Positional fast paths generated from the schema, for torch.<name> functions whose first
argument is not a Tensor: factories and functions of a tensor list.

torchpy.zeros(2, 3), zeros((2, 3)), rand(4, dtype=torchpy.float64), full((2,), 1.5),
arange(1, 10, 2), eye(3), randint(10, (3,)), cat([a, b], 1), stack((a, b)): for each number of
plain arguments (ints, Python numbers for a Scalar, a tuple / list / Size of ints for an int
list, a list or tuple of plain tensors for a Tensor list), and for a size given as varargs, the
overload PyTorch's parser picks (worked out once, at install, by the parser's own
`PythonOp.choose`) is called straight through the dispatcher's call entry with the arguments
the binder would give it: trailing arguments equal to the schema's default dropped, and a
factory's TensorOptions normalized as PyTorch's bindings do (device=cpu, pin_memory=False).
A factory also takes its TensorOptions keywords given as plain values (dtype=, device=,
layout=, pin_memory=, requires_grad=); a function of a tensor list takes keywords naming its
trailing positional parameters (cat([a, b], dim=1)).

Every default and every normalized option comes from the schema and the binder, checked at
install against what the parser does with probe arguments; nothing is restated per name. Any
other call (other keywords or types, a subclass, a TorchFunctionMode) takes the generated
binding's path. positional.py does the same for functions and methods whose first argument
is a Tensor.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

from .._dispatch.ops import call, call_kw
from .._tensor import dtype as _dt
from .._tensor.device import CPU, META, device as device_type
from .._tensor.enums import strided
from .._tensor.function_modes import mode_on, track
from .._tensor.function_modes import state as function_state
from .._tensor.tensor import Size, Tensor
from .._tensor.torch_function import dispatch_from_binding, needs_override
from .python_api import PythonOp

# how a plain argument is passed for a parameter's type, and the values the plan is checked with
_FORMS = {"int": "int", "SymInt": "int", "Scalar": "scalar", "int[]": "ints", "SymInt[]": "ints",
          "Tensor[]": "tensors"}
_REQUIRED = object()  # a parameter without a default: never dropped
_OPTION_NAMES = frozenset({"dtype", "layout", "device", "pin_memory", "requires_grad"})
# the device values passed as they are (what the binder makes of them); others bind in full
_DEVICES: dict[Any, device_type] = {None: CPU, "cpu": CPU, CPU: CPU, "meta": META, META: META}


def tensor_options(kwargs: dict) -> tuple[dict, bool] | None:
    """(the options the binder passes, requires_grad) for TensorOptions keywords given as plain
    values (dtype=torchpy.float64, device="cpu", requires_grad=True, ...), or None for anything
    else (another keyword, a value to convert or refuse)."""
    for name in kwargs:
        if name not in _OPTION_NAMES:
            return None
    options: dict[str, Any] = {}
    dtype = kwargs.get("dtype")
    if dtype is not None:
        if type(dtype) is not _dt.dtype:
            return None
        options["dtype"] = dtype
    layout = kwargs.get("layout")
    if layout is not None:
        if layout is not strided:
            return None
        options["layout"] = layout
    device = kwargs.get("device")
    if not (device is None or type(device) is str or type(device) is device_type):
        return None
    device = _DEVICES.get(device)
    if device is None:
        return None
    options["device"] = device
    pin_memory = kwargs.get("pin_memory")
    if pin_memory is not None and pin_memory is not False:
        return None
    options["pin_memory"] = False
    requires_grad = kwargs.get("requires_grad")
    if requires_grad is None:
        requires_grad = False
    elif type(requires_grad) is not bool:
        return None
    return options, requires_grad


def int_list(values: Any) -> list[int] | None:
    """values as a list if they are a tuple / list / Size of plain ints."""
    if type(values) not in _SEQUENCES:
        return None
    for v in values:
        if type(v) is not int:
            return None
    return list(values)


_SEQUENCES = (tuple, list, Size)

# The globals every generated binding runs with: one namespace whose `_function_modes` flag
# function_modes keeps current.
_GLOBALS: dict[str, Any] = {"Tensor": Tensor, "call": call, "call_kw": call_kw, "_SEQUENCES": _SEQUENCES,
                            "mode_on": mode_on, "state": function_state, "needs_override": needs_override,
                            "dispatch_from_binding": dispatch_from_binding, "dtype": _dt.dtype,
                            "tensor_options": tensor_options, "int_list": int_list, "__builtins__": __builtins__}
track(_GLOBALS)


class _Plan:
    """One fast branch: the op, each argument's form and default, the options it passes."""

    def __init__(self, op: Any, forms: tuple, defaults: tuple, options: dict, varargs: bool = False) -> None:
        self.op, self.forms, self.defaults, self.options, self.varargs = op, forms, defaults, options, varargs
        self.dtype_at: int | None = None  # where dtype= goes among the options, when it can be given
        self.all_options = False  # whether tensor_options()'s dict is what the binder passes


def _expected(values: tuple, forms: tuple, defaults: tuple) -> list:
    """The bound positional arguments for `values`: lists made lists, trailing defaults dropped
    (a Scalar's default only when of the default's type: arange(0, 5, 1.0) keeps its step)."""
    bound = [list(v) if f == "ints" else v for v, f in zip(values, forms)]
    while bound and defaults[len(bound) - 1] is not _REQUIRED:
        value, default = bound[-1], defaults[len(bound) - 1]
        if value != default or type(value) is not type(default):
            break
        bound.pop()
    return bound


def _chosen(python_op: PythonOp, args: tuple, kwargs: dict) -> tuple | None:
    choice = python_op.choose(args, kwargs)
    if not isinstance(choice, tuple) or choice[0].return_type is not None:
        return None  # no overload, or named / tuple returns
    return choice


def _same(a: Any, b: Any) -> bool:
    """Equal, and of the same types throughout (3 is not 3.0 here)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return a is b or a == b


def _check(python_op: PythonOp, plan: _Plan, probes: list[tuple], bound_of: Callable) -> bool:
    """Whether the parser takes every probe call to plan.op with the arguments the plan passes."""
    for args in probes:
        choice = _chosen(python_op, args, {})
        if choice is None or choice[0].op is not plan.op or choice[3]:
            return False
        if not _same(list(choice[4]), bound_of(args)) or not _same(choice[5], plan.options):
            return False
    return True


def _check_options(python_op: PythonOp, plan: _Plan, args: tuple) -> None:
    """Set plan.dtype_at / all_options where the binder passes dtype= and the other options
    as the fast branches do."""
    if list(plan.options) != ["device", "pin_memory"] or plan.options["device"] is not CPU \
            or plan.options["pin_memory"] is not False:
        return
    choice = _chosen(python_op, args, {"dtype": _dt.float64})
    if choice is not None and choice[0].op is plan.op and not choice[3] \
            and _same(choice[5], {"dtype": _dt.float64, **plan.options}):
        plan.dtype_at = 0
    given = {"dtype": _dt.float64, "layout": strided, "device": META, "pin_memory": False, "requires_grad": True}
    choice = _chosen(python_op, args, given)
    if choice is not None and choice[0].op is plan.op and choice[3] is True \
            and _same(choice[5], {"dtype": _dt.float64, "layout": strided, "device": META, "pin_memory": False}):
        plan.all_options = plan.dtype_at == 0


def _arity_plan(python_op: PythonOp, n: int, probe: Tensor) -> _Plan | None:
    """The plan for n plain positional arguments: the first overload whose first n
    parameters all have a form here, if the parser picks it for every probe."""
    values = {"int": (3,), "scalar": (3, 0.5), "ints": ((3, 3),), "tensors": ([probe, probe],)}
    for candidate in python_op.candidates:
        parameters = [p for p in candidate.op._schema.arguments if not p.kwarg_only]
        if len(parameters) < n:
            continue
        forms = tuple(_FORMS.get(str(p.type)) for p in parameters[:n])
        if None in forms or "tensors" in forms[1:] or not n:
            continue
        defaults = tuple(p.default_value if p.has_default and f in ("int", "scalar") else _REQUIRED
                         for p, f in zip(parameters[:n], forms))
        probes = list(itertools.product(*(values[f] for f in forms)))
        choice = _chosen(python_op, probes[0], {})
        if choice is None or choice[0] is not candidate:
            return None  # the parser takes such calls elsewhere
        plan = _Plan(candidate.op, forms, defaults, dict(choice[5]))
        if not _check(python_op, plan, probes, lambda args: _expected(args, forms, defaults)):
            return None
        _check_options(python_op, plan, probes[0])
        return plan
    return None


def _varargs_plan(python_op: PythonOp) -> _Plan | None:
    """The plan for zeros(2, 3) / zeros((2, 3)) / zeros([2]) / zeros(Size): a size given as
    varargs or as one sequence, if the parser takes all of them to one overload."""
    probes = [(3, 3), (3, 3, 3), (3,), ((3, 3),), ([3, 3],), (Size([3, 3]),)]
    choice = _chosen(python_op, probes[0], {})
    if choice is None or choice[0].varargs_at != 0:
        return None
    plan = _Plan(choice[0].op, ("ints",), (_REQUIRED,), dict(choice[5]), varargs=True)
    if not _check(python_op, plan, probes, lambda args: [list(args[0]) if type(args[0]) is not int else list(args)]):
        return None
    _check_options(python_op, plan, probes[0])
    return plan


def _keyword_folds(python_op: PythonOp, plans: dict, probe: Tensor) -> list[tuple[int, tuple[str, ...]]]:
    """(positional count, trailing parameter names given by keyword) for each branch without
    options whose call the parser resolves the same with those keywords: cat([a, b], dim=1)."""
    values = {"int": 3, "scalar": 3, "ints": [3, 3], "tensors": [probe, probe]}
    folds = []
    for n, plan in plans.items():
        if plan.options or plan.varargs:
            continue
        names = tuple(p.name for p in plan.op._schema.arguments[:n])
        given = tuple(values[f] for f in plan.forms)
        for j in range(1, n):
            choice = _chosen(python_op, given[:j], dict(zip(names[j:], given[j:])))
            if choice is not None and choice[0].op is plan.op and not choice[3] and not choice[5] \
                    and _same(list(choice[4]), _expected(given, plan.forms, plan.defaults)):
                folds.append((j, names[j:]))
    return folds


def _options_source(plan: _Plan, given: str, constants: dict) -> str:
    """The options dict the branch passes: the plan's own, with dtype= (given == "dtype") or
    tensor_options()'s dict (given == "all")."""
    if given == "all":
        return "options"
    items = []
    for name, value in plan.options.items():
        if value is None or type(value) is bool:
            items.append(f"{name!r}: {value!r}")
        else:  # one closure cell per distinct value
            key = next((k for k, v in constants.items() if v is value), f"c{len(constants)}")
            constants[key] = value
            items.append(f"{name!r}: {key}")
    if given == "dtype":
        items.insert(plan.dtype_at or 0, "'dtype': kwargs['dtype']")
    return "{" + ", ".join(items) + "}"


def _returns(plan: _Plan, index: int, passed: list[str], keyset: str, options: str, given: str,
             indent: str) -> list[str]:
    """The returns of one branch: one per number of trailing defaults dropped."""
    lines = []
    for kept in range(len(passed), -1, -1):
        arguments = passed[:kept]
        if options != "{}":
            expr = f"call_kw(op{index}, {keyset}, ({''.join(a + ', ' for a in arguments)}), {options})"
        else:
            expr = f"call(op{index}, {keyset}{''.join(', ' + a for a in arguments)})"
        if given == "all":
            expr = f"_requiring_grad({expr}, requires_grad)"
        if kept == 0 or plan.defaults[kept - 1] is _REQUIRED:
            lines.append(f"{indent}return {expr}")
            break
        name, default, form = passed[kept - 1], plan.defaults[kept - 1], plan.forms[kept - 1]
        test = f"{name} != {default!r}" + (f" or type({name}) is not {type(default).__name__}" if form == "scalar" else "")
        lines.append(f"{indent}if {test}:")
        lines.append(f"{indent}    return {expr}")
    return lines


def _branch(plan: _Plan, index: int, given: str, constants: dict) -> list[str]:
    """Source lines for the calls `plan` takes, the arguments unpacked as a0, a1, ..."""
    options = _options_source(plan, given, constants)
    if plan.varargs:
        # plain ints as varargs, or one tuple/list/Size of them: the list the parser folds
        return ["            values = args[0] if n == 1 and type(args[0]) in _SEQUENCES else args",
                "            for v in values:",
                "                if type(v) is not int:",
                "                    break",
                "            else:",
                *_returns(plan, index, ["list(values)"], "0", options, given, "                ")]
    names = [f"a{j}" for j in range(len(plan.forms))]
    tests = []
    for name, form in zip(names, plan.forms):
        if form == "int":
            tests.append(f"type({name}) is int")
        elif form == "scalar":
            tests.append(f"(type({name}) is int or type({name}) is float)")
        elif form == "ints":
            tests.append(f"({name} := int_list({name})) is not None")
        else:
            tests.append(f"(type({name}) is list or type({name}) is tuple) and {name}")
    lines = [f"            if {' and '.join(tests)}:"]
    indent = "                "
    keyset = "0"
    if plan.forms[0] == "tensors":
        # a list of plain tensors: their key sets' union, as the dispatcher would take it
        lines += [f"{indent}ks = 0",
                  f"{indent}for t in a0:",
                  f"{indent}    if type(t) is not Tensor:",
                  f"{indent}        break",
                  f"{indent}    ks |= t._keyset",
                  f"{indent}else:"]
        indent += "    "
        keyset = "ks"
        names[0] = "list(a0)"
    return lines + _returns(plan, index, names, keyset, options, given, indent)


def _branches(plans: dict, given: str, source: str, constants: dict) -> list[str]:
    lines = []
    for index, (n, plan) in enumerate(plans.items()):
        if given != "none" and not (plan.dtype_at == 0 if given == "dtype" else plan.all_options):
            continue
        if plan.varargs:
            lines.append("        if n:")
        else:
            lines += [f"        if n == {n}:", f"            {''.join(f'a{j}, ' for j in range(n))}= {source}"]
        lines += _branch(plan, index, given, constants)
    return lines


def _requiring_grad(result: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        result.requires_grad_(True)
    return result


_GLOBALS["_requiring_grad"] = _requiring_grad


def make_value_first_function(python_op: PythonOp, probe: Tensor) -> Callable | None:
    """torchpy.<name> for `python_op`, whose first argument is not a Tensor, with fast paths from
    its schema, or None if no call form has one."""
    plans: dict[Any, _Plan] = {}
    varargs = _varargs_plan(python_op)
    if varargs is not None:
        plans["varargs"] = varargs
    else:
        most = max(len([p for p in c.op._schema.arguments if not p.kwarg_only]) for c in python_op.candidates)
        plans.update({n: plan for n in range(1, most + 1) if (plan := _arity_plan(python_op, n, probe)) is not None})
    if not plans:
        return None
    name = python_op.name
    constants: dict[str, Any] = {}
    # one global read while no mode exists anywhere; under one, the stack's emptiness first
    lines = ["def binding(*args, **kwargs):",
             "    if not (_function_modes and state.modes and mode_on()):",
             "        n = len(args)"]
    lines += ["        if not kwargs:"] + ["    " + line for line in _branches(plans, "none", "args", constants)]
    folds = _keyword_folds(python_op, plans, probe)
    if folds:
        # cat([a, b], dim=1): keywords naming the trailing positional parameters of a branch
        # go into their positions, as the binder writes them
        folded = " else ".join(
            f"args + ({''.join(f'kwargs[{k!r}], ' for k in names)}) if "
            + " and ".join([f"n == {j}", f"len(kwargs) == {len(names)}"] + [f"{k!r} in kwargs" for k in names])
            for j, names in folds)
        lines += [f"        elif (given := {folded} else None) is not None:",
                  "            n = len(given)"]
        lines += ["    " + line for line in _branches(plans, "none", "given", constants)]
    with_dtype = _branches(plans, "dtype", "args", constants)
    if with_dtype:
        # dtype= alone, the most common keyword, without tensor_options()
        lines += ["        elif len(kwargs) == 1 and type(kwargs.get('dtype')) is dtype:"]
        lines += ["    " + line for line in with_dtype]
    with_options = _branches(plans, "all", "args", constants)
    if with_options:
        lines += ["        elif (given_options := tensor_options(kwargs)) is not None:",
                  "            options, requires_grad = given_options"]
        lines += ["    " + line for line in with_options]
    # the generated binding's body (python_api.make_function), inline
    lines += ["    if needs_override(args, kwargs):",
              "        return dispatch_from_binding(binding, args, kwargs)",
              "    return python_op(args, kwargs)"]
    parameters = ", ".join([f"op{index}" for index in range(len(plans))] + list(constants) + ["python_op"])
    source = "\n".join([f"def make({parameters}):"] + ["    " + line for line in lines] + ["    return binding"])
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<positional {name}>", "exec"), _GLOBALS, namespace)
    binding = namespace["make"](*[plan.op for plan in plans.values()], *constants.values(), python_op)
    binding.__name__ = name
    binding.__qualname__ = f"_VariableFunctionsClass.{name}"  # as make_function's
    binding._python_op = python_op  # type: ignore[attr-defined]
    return binding
