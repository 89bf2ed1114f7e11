"""The TypeError a public function or method raises when no overload takes its arguments,
worded as PyTorch's Python argument parser words it (python_arg_parser.cpp's print_error).

torch counts the arguments (a method's self not counted) and keeps the signatures that take
that many ("plausible": at least their required ones, at most all of them, out= folded into
its functional signature). When exactly one is plausible it names the problem with that
signature: too many positionals, a missing argument, the first argument of the wrong type,
an unexpected keyword. Otherwise it lists what it got and the signatures it expected.
Everything here runs only on the error path."""

from __future__ import annotations

from typing import Any, NamedTuple

from .._dispatch.schema import NO_DEFAULT
from .._tensor.dtype import dtype as _dtype
from .._tensor.tensor import Tensor


class _Param(NamedTuple):
    name: str
    type: str         # the schema's type, "?" stripped
    optional: bool    # has a default (None allowed where the type is optional)
    nullable: bool    # None is a value it takes
    kwarg_only: bool


def _torch_type_name(type_: str) -> str | None:
    """How torch's parser names a parameter type in "must be X", or None for types we leave alone."""
    if type_ in ("Tensor", "bool", "float", "str"):
        return type_
    if type_ in ("int", "SymInt"):
        return "int"
    if type_ == "Scalar":
        return "Number"
    if type_ == "ScalarType":
        return "torch.dtype"
    if type_.startswith(("int[", "SymInt[")):
        return "tuple of ints"
    return None


def _fits(type_: str, value: Any) -> bool | None:
    """Whether torch's parser takes `value` for `type_`; None where we cannot tell."""
    if type_ == "Tensor":
        return isinstance(value, Tensor)
    if isinstance(value, Tensor):
        return None  # 0-dim tensors pass for numbers in places: leave it to the generic message
    if type_ in ("int", "SymInt"):
        return type(value) is not bool and (isinstance(value, int) or hasattr(value, "__index__"))
    if type_ == "bool":
        return type(value) is bool
    if type_ == "float":
        return isinstance(value, (int, float))
    if type_ == "Scalar":
        return isinstance(value, (int, float, complex))
    if type_ == "ScalarType":
        return isinstance(value, _dtype)
    if type_ == "str":
        return isinstance(value, str)
    return None


def _value_type_name(value: Any) -> str:
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def python_params(schema: Any, is_method: bool, has_out: bool, is_factory: bool) -> list[_Param]:
    """A schema's parameters as torch's Python signature has them: no self for a method (`input`
    for a function), out= tensors folded into one optional `out`, factories' requires_grad."""
    params = []
    for i, argument in enumerate(schema.arguments):
        if argument.kwarg_only and argument.is_write:
            continue
        if i == 0 and argument.name == "self":
            if is_method:
                continue
            name = "input"
        else:
            name = argument.name
        type_ = str(argument.type)
        params.append(_Param(name, type_.rstrip("?"), argument.default is not NO_DEFAULT,
                             type_.endswith("?"), argument.kwarg_only))
    if has_out:
        params.append(_Param("out", "Tensor", True, True, True))
    if is_factory:
        params.append(_Param("requires_grad", "bool", True, False, True))
    return params


def single_signature_message(name: str, params: list[_Param], args: tuple, kwargs: dict,
                             varargs: bool) -> str | None:
    """FunctionSignature::parse's error for the one plausible signature, or None where this
    cannot say (the caller then gives the generic message)."""
    positional = [p for p in params if not p.kwarg_only]
    required = sum(1 for p in params if not p.optional)
    # torch reads varargs as the int list only when they start with an int (x.repeat(2.0, 1) is
    # two positionals for one parameter)
    varargs = varargs and len(args) >= len(positional) > 0 and _fits("int", args[len(positional) - 1]) is True
    if len(args) > len(positional) and not varargs:
        if required != len(positional):
            return (f"{name}() takes from {required} to {len(positional)} positional arguments "
                    f"but {len(args)} were given")
        plural = "" if len(positional) == 1 else "s"
        return (f"{name}() takes {len(positional)} positional argument{plural} "
                f"but {len(args)} {'was' if len(args) == 1 else 'were'} given")
    missing = [p.name for i, p in enumerate(params)
               if not p.optional and not (i < len(args) and not p.kwarg_only) and p.name not in kwargs]
    if missing:
        # (torch's plural is the other way round: "1 required positional arguments")
        return (f"{name}() missing {len(missing)} required positional argument{'s' if len(missing) == 1 else ''}: "
                + ", ".join(f'"{m}"' for m in missing))
    for i, param in enumerate(params):
        by_position = i < len(args) and not param.kwarg_only
        if by_position and varargs and param is positional[-1] and len(args) > len(positional):
            return _varargs_message(name, param, args[i:])
        if not by_position and param.name not in kwargs:
            continue
        value = args[i] if by_position else kwargs[param.name]
        if value is None and param.nullable:
            continue
        where = f"{name}(): argument '{param.name}'" + (f" (position {i + 1})" if by_position else "")
        if param.type.startswith(("int[", "SymInt[")):
            problem = _int_list_problem(value)
            if problem is not None:
                return f"{where} must be tuple of ints, {problem}"
            continue
        fits = _fits(param.type, value)
        expected = _torch_type_name(param.type)
        if fits is None or expected is None:
            return None
        if not fits:
            return f"{where} must be {expected}, not {_value_type_name(value)}"
    names = {p.name for p in params}
    for key in kwargs:
        if key not in names:
            return f"{name}() got an unexpected keyword argument '{key}'"
    return None


def _int_list_problem(value: Any) -> str | None:
    """What torch's parser says of a value given for an int list, or None if it takes it."""
    if isinstance(value, int) or hasattr(value, "__index__"):
        return None
    if not isinstance(value, (list, tuple, str)):
        return f"not {_value_type_name(value)}"
    for i, item in enumerate(value):
        if not (isinstance(item, int) or hasattr(item, "__index__")):
            return f"but found element of type {type(item).__name__} at pos {i}"
    return None


def _varargs_message(name: str, param: _Param, values: tuple) -> str | None:
    """permute(0, 'a'): an int list given as varargs with an element that is no int."""
    for position, value in enumerate(values):
        if _fits("int", value) is False:
            return (f"{name}(): argument '{param.name}' failed to unpack the object at pos {position + 1} "
                    f"with error \"type must be tuple of ints,but got {_value_type_name(value)}\"")
    return None


def no_arguments_message(name: str, args: tuple, kwargs: dict) -> str:
    """A method torch defines without parameters (x.relu(1)): Python's own METH_NOARGS error."""
    if kwargs:
        return f"TensorBase.{name}() takes no keyword arguments"
    return f"TensorBase.{name}() takes no arguments ({len(args)} given)"


def got_list(args: tuple, kwargs: dict) -> str:
    """The "got (int, unbiased=int)" part of the generic message."""
    return ", ".join([_value_type_name(a) for a in args] + [f"{k}={_value_type_name(v)}" for k, v in kwargs.items()])
