"""torchpy.overrides: the __torch_function__ protocol's public helpers (as torch.overrides)."""

from __future__ import annotations

import __future__
import keyword
from types import ModuleType
from typing import Any, Callable

import torchpy  # the namespace these functions enumerate; torchpy imports this module last
import torchpy.nn.functional as F

from ._tensor.tensor import Tensor
from ._tensor.torch_function import (  # noqa: F401
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    TorchFunctionMode,
    _get_current_function_mode,
    _get_current_function_mode_stack,
    _pop_mode_temporarily,
    enable_reentrant_dispatch,
    get_default_nowrap_functions,
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
    is_tensor_like,
    resolve_name,
)


def get_overridable_functions() -> dict[Any, list[Callable]]:
    """Namespaces -> their overridable functions (torchpy, torchpy.Tensor, torchpy.nn.functional)."""
    result: dict[Any, list[Callable]] = {torchpy: [], Tensor: [], F: []}
    for name in dir(torchpy):
        obj = getattr(torchpy, name)
        if callable(obj) and getattr(obj, "_python_op", None) is not None:
            result[torchpy].append(obj)
    for name in dir(Tensor):
        obj = getattr(Tensor, name, None)
        if callable(obj) and getattr(obj, "_python_op", None) is not None:
            result[Tensor].append(obj)
    result[F] = _public_functions_of(F)
    return result


def _public_functions_of(namespace: ModuleType) -> list[Callable]:
    """torch's rule for a Python namespace: every callable in dir() order, except private and
    non-lowercase names, modules, __future__ features and the ignored functions."""
    ignored = get_ignored_functions()
    found = []
    for name in dir(namespace):
        if name.startswith("_") or name.endswith("_") or not name[0].islower():
            continue
        obj = getattr(namespace, name)
        if isinstance(obj, (ModuleType, __future__._Feature)) or not callable(obj) or obj in ignored:
            continue
        found.append(obj)
    return found


def get_ignored_functions() -> set[Callable]:
    """Public functions that do not take part in __torch_function__ (creation helpers, ...)."""
    return {torchpy.tensor, torchpy.as_tensor, torchpy.from_numpy, torchpy.is_tensor,
            torchpy.get_default_dtype, torchpy.set_default_dtype, torchpy.promote_types,
            torchpy.can_cast,
            F.sigmoid, F.tanh}  # Tensor.sigmoid / tanh handle the override


def get_testing_overrides() -> dict[Callable, Callable]:
    """Each overridable function -> a dummy with a matching signature returning -1."""
    import inspect

    known = _torch_dummy_signatures()
    dummies: dict[Callable, Callable] = {}
    prefixes = {torchpy: "torch.", torchpy.nn.functional: "torch.nn.functional."}
    for namespace, functions in get_overridable_functions().items():
        prefix = prefixes.get(namespace, "torch.Tensor.")
        for fn in functions:
            params = known.get(prefix + fn.__name__)
            if params is not None:
                # torch's dummies are hand-written lambdas; their parameter lists are data here
                dummies[fn] = eval(f"lambda {params}: -1", {"torch": torchpy})  # noqa: S307
                continue
            python_op = getattr(fn, "_python_op", None)
            if python_op is None:  # a Python-level function: its own parameters
                dummies[fn] = _dummy_like(fn)
                continue
            schema = python_op.candidates[0].op._schema
            parameters = [inspect.Parameter(a.name + "_" if keyword.iskeyword(a.name) else a.name, inspect.Parameter.KEYWORD_ONLY if a.kwarg_only
                                            else inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                            default=a.default_value if a.has_default else inspect.Parameter.empty)
                          for a in schema.arguments]
            parameters = _valid_order(parameters)

            def dummy(*args: Any, **kwargs: Any) -> int:
                return -1

            dummy.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
            dummies[fn] = dummy
    return dummies


def _dummy_like(fn: Callable) -> Callable:
    import inspect

    def dummy(*args: Any, **kwargs: Any) -> int:
        return -1

    dummy.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    return dummy


def _torch_dummy_signatures() -> dict[str, str]:
    """name -> parameter list (without parentheses) of torch's testing-override dummies."""
    from pathlib import Path

    table = {}
    path = Path(__file__).parent / "_aten" / "testing_override_signatures.tsv"
    for line in path.read_text().splitlines():
        if line and not line.startswith("#"):
            name, signature = line.split("\t")
            table[name] = signature[1:-1]
    return table


def _valid_order(parameters: list) -> list:
    """Positional parameters with defaults followed by ones without are invalid; relax them."""
    import inspect

    seen_default = False
    fixed = []
    for p in parameters:
        if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD:
            if p.default is not inspect.Parameter.empty:
                seen_default = True
            elif seen_default:
                p = p.replace(default=None)
        fixed.append(p)
    return fixed
