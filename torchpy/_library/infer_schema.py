"""infer_schema: an operator schema string from a function's type hints.

The rules are torch.library.infer_schema's: each parameter's annotation maps to a
schema type (int is SymInt, Sequence[int] is SymInt[], Optional[X] is X?, ...),
defaults print as schema literals, arguments named in `mutates_args` become
`Tensor(a<index>!)`, and the return annotation maps to the returns.
"""

from __future__ import annotations

import collections.abc
import inspect
import typing
from types import GenericAlias
from typing import Any, Callable, Iterable

from .._tensor.device import device
from .._tensor.dtype import dtype
from .._tensor.tensor import Tensor
from ..types import Number

UNKNOWN_MUTATES = "unknown"
_UNSUPPORTED_TAGS = ("inplace", "out")


def _sequence_forms(element: Any) -> tuple:
    """The four spellings of "a sequence of `element`" that infer_schema accepts."""
    return (
        typing.Sequence[element],
        typing.List[element],  # noqa: UP006
        GenericAlias(collections.abc.Sequence, (element,)),
        GenericAlias(list, (element,)),
    )


def _supported_param_types() -> dict[Any, str]:
    # (annotation, schema type, T[] forms, T?[] forms, T[]? forms), in torch's order so
    # error messages list the types in the same order.
    table = [
        (Tensor, "Tensor", True, True, False),
        (int, "SymInt", True, False, True),
        (float, "float", True, False, True),
        (bool, "bool", True, False, True),
        (str, "str", False, False, False),
        (Number, "Scalar", True, False, False),
        (dtype, "ScalarType", False, False, False),
        (device, "Device", False, False, False),
    ]
    result: dict[Any, str] = {}
    for annotation, name, lists, optional_elements, optional_lists in table:
        result[annotation] = name
        result[typing.Optional[annotation]] = f"{name}?"
        if lists:
            for form in _sequence_forms(annotation):
                result[form] = f"{name}[]"
        if optional_elements:
            for form in _sequence_forms(typing.Optional[annotation]):
                result[form] = f"{name}?[]"
        if optional_lists:
            for form in _sequence_forms(annotation):
                result[typing.Optional[form]] = f"{name}[]?"
    return result


SUPPORTED_PARAM_TYPES = _supported_param_types()

SUPPORTED_RETURN_TYPES = {
    Tensor: "Tensor",
    typing.List[Tensor]: "Tensor[]",  # noqa: UP006
    list[Tensor]: "Tensor[]",
    int: "SymInt",
    float: "float",
    bool: "bool",
    Number: "Scalar",
}


def _tuple_as_list(annotation: Any) -> Any:
    """The list type infer_schema suggests instead of a tuple annotation."""
    args = typing.get_args(annotation)
    if not args:
        return list
    if len(args) == 1 or (len(args) == 2 and args[1] is Ellipsis):
        return list[args[0]]
    return list[typing.Union[args]]


def _default_literal(value: Any) -> str | None:
    """A Python default as a schema literal, or None when it has no schema form."""
    if value is None or isinstance(value, (int, float, bool)):
        return str(value)
    if isinstance(value, (str, device)):
        return f'"{value}"'
    if isinstance(value, dtype):
        return str(value).removeprefix("torchpy.").removeprefix("torch.")
    return None


def _normalize_tags(tags: Any) -> tuple[str, ...]:
    if tags is None:
        return ()
    if isinstance(tags, str) or hasattr(tags, "name"):
        tags = (tags,)
    return tuple(dict.fromkeys(getattr(t, "name", t) for t in tags))


def infer_schema(
    prototype_function: Callable,
    /,
    *,
    mutates_args: str | Iterable[str],
    op_name: str | None = None,
    tags: Any = (),
) -> str:
    """The schema for `prototype_function` from its type hints, e.g. "(Tensor x) -> Tensor"."""
    unsupported = [t for t in _normalize_tags(tags) if t in _UNSUPPORTED_TAGS]
    if unsupported:
        raise NotImplementedError(f"torchpy: custom ops tagged {unsupported[0]} are not supported yet")
    sig = inspect.signature(prototype_function)
    if type(mutates_args) is not str:
        mutates_args = tuple(mutates_args)

    def error(what: str) -> None:
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    def resolve(annotation: Any) -> Any:
        # `from __future__ import annotations` leaves strings: evaluate them where the
        # function was defined; a generic may hold strings too (list["Tensor"]).
        if isinstance(annotation, str):
            try:
                return eval(annotation, prototype_function.__globals__)  # noqa: S307
            except NameError as e:
                error(
                    f"Unsupported type annotation {annotation}. It is not a type. ({e}). If you are "
                    "using 'from __future__ import annotations', note that annotations are evaluated "
                    "lazily as strings; make sure all types referenced in annotations are importable "
                    "at module scope, not only inside a local function."
                )
            except Exception as e:  # noqa: BLE001  (any failure: the annotation is not a type)
                error(f"Unsupported type annotation {annotation}. It is not a type. ({type(e).__name__}: {e})")
        origin = typing.get_origin(annotation)
        if origin is not None:
            args = typing.get_args(annotation)
            resolved = tuple(resolve(a) for a in args)
            if any(r is not a for r, a in zip(resolved, args)):
                return GenericAlias(origin, resolved)
        return annotation

    params: list[str] = []
    seen: set[str] = set()
    kwarg_only_started = False
    for index, (name, param) in enumerate(sig.parameters.items()):
        if param.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            error("We do not support positional-only args, varargs, or varkwargs.")
        if param.kind == inspect.Parameter.KEYWORD_ONLY and not kwarg_only_started:
            params.append("*")
            kwarg_only_started = True
        if param.annotation is inspect.Parameter.empty:
            error(f"Parameter {name} must have a type annotation.")
        annotation = resolve(param.annotation)
        schema_type = SUPPORTED_PARAM_TYPES.get(annotation)
        if schema_type is None:
            valid = SUPPORTED_PARAM_TYPES.keys()
            if typing.get_origin(annotation) is tuple:
                as_list = _tuple_as_list(annotation)
                example = f"For example, {as_list}.\n\n" if as_list in SUPPORTED_PARAM_TYPES else "\n\n"
                error(
                    f"Parameter {name} has unsupported type {param.annotation}. We do not support Tuple "
                    f"inputs in schema. As a workaround, please try to use List instead. {example}"
                    f"The valid types are: {valid}."
                )
            error(f"Parameter {name} has unsupported type {param.annotation}. The valid types are: {valid}.")
        if type(mutates_args) is str:
            if mutates_args != UNKNOWN_MUTATES:
                raise ValueError(
                    "mutates_args must either be a sequence of the names of the arguments that are "
                    "mutated or the string 'unknown'. "
                )
            if schema_type.startswith("Tensor"):
                schema_type = f"Tensor(a{index}!){schema_type[len('Tensor'):]}"
        elif name in mutates_args:
            if not schema_type.startswith("Tensor"):
                error(f"Parameter {name} is in mutable_args but only Tensors or collections of Tensors can be mutated")
            schema_type = f"Tensor(a{index}!){schema_type[len('Tensor'):]}"
        seen.add(name)
        if param.default is inspect.Parameter.empty:
            params.append(f"{schema_type} {name}")
        else:
            literal = _default_literal(param.default)
            if literal is None:
                error(
                    f"Parameter {name} has an unsupported default value type {type(param.default)}. "
                    "Please file an issue on GitHub so we can prioritize this."
                )
            params.append(f"{schema_type} {name}={literal}")
    if mutates_args != UNKNOWN_MUTATES:
        not_seen = set(mutates_args) - seen
        if not_seen:
            error(
                f"{not_seen} in mutates_args were not found in the custom op's signature. mutates_args "
                "should contain the names of all args that the custom op mutates, or just the string "
                "'unknown' if you don't know."
            )
    returns = _parse_return(resolve(sig.return_annotation), error)
    return f"{op_name or ''}({', '.join(params)}) -> {returns}"


def _parse_return(annotation: Any, error: Callable[[str], None]) -> str:
    if annotation is None:
        return "()"
    if annotation is inspect.Parameter.empty:
        error("No return type annotation was provided. Please add one.")
    if typing.get_origin(annotation) is not tuple:
        if annotation not in SUPPORTED_RETURN_TYPES:
            error(f"Return has unsupported type {annotation}. The valid types are: {SUPPORTED_RETURN_TYPES}.")
        return SUPPORTED_RETURN_TYPES[annotation]
    args = typing.get_args(annotation)
    for arg in args:
        if arg not in SUPPORTED_RETURN_TYPES:
            error(f"Return has unsupported type {annotation}. The valid types are: {SUPPORTED_RETURN_TYPES}.")
    inner = ", ".join(SUPPORTED_RETURN_TYPES[arg] for arg in args)
    # a one-element tuple prints as ((Tensor)), telling it apart from a plain Tensor
    return f"(({inner}))" if len(args) == 1 else f"({inner})"
