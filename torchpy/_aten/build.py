"""Turn the op table into dispatcher definitions, kernel registrations and the public API."""

from __future__ import annotations

import os
from typing import Any, Callable

from .._dispatch.dispatcher import PLAIN, Kernel, dispatcher
from .._dispatch.keys import parse_key
from .._dispatch.ops import OpOverload, op_for
from . import out_policy, registry
from .loader import NativeFunction, NativeFunctionsError, load_all
from .python_api import PythonOp

NATIVE_FUNCTIONS: list[NativeFunction] = []
# (python module or "", public name) -> PythonOp, for functions; name -> PythonOp, for methods
FUNCTIONS: dict[tuple[str, str], PythonOp] = {}
METHODS: dict[str, PythonOp] = {}


def _where(fn: Callable) -> str:
    """'registered at file:line' of the code a kernel runs (the array code, for adapters)."""
    code = getattr(getattr(fn, "__wrapped__", fn), "__code__", None)
    if code is None:
        return "registered at <builtin>"
    return f"registered at {code.co_filename}:{code.co_firstlineno}"


def effective_tags(entry: NativeFunction) -> tuple[str, ...]:
    """The YAML's tags plus those PyTorch adds to every op of a kind: `out` and `inplace`
    by schema kind, and `pt2_compliant_tag` on every aten op."""
    tags = list(entry.tags)
    kind = entry.schema.kind.name
    for tag, applies in (("out", kind == "out"), ("inplace", kind == "inplace"), ("pt2_compliant_tag", True)):
        if applies and tag not in tags:
            tags.append(tag)
    return tuple(tags)


def register_native_functions() -> None:
    """Define every op of the table in the dispatcher and register its kernels."""
    for entry in load_all():
        qualified = entry.qualified_name
        dispatcher.define(entry.schema, f"registered at {entry.location}", effective_tags(entry))
        for key_name, kernel_name in entry.dispatch.items():
            fn = _kernel(entry, key_name, kernel_name)
            dispatcher.register_kernel(qualified, parse_key(key_name), Kernel(fn, PLAIN, _where(fn)))
        NATIVE_FUNCTIONS.append(entry)


def _kernel(entry: NativeFunction, key_name: str, kernel_name: str) -> Callable:
    """The kernel `kernel_name` for `entry`: registered by a kernel module, or, for an out= or
    in-place overload, made from its functional kernel by the entry's policy (out_policy.py)
    and registered under that name for the entries that share it."""
    where = f"{entry.location}: {entry.qualified_name}"
    policy = entry.policy or out_policy.DEFAULT_POLICY
    fn = registry.lookup(kernel_name)
    if fn is not None:
        made = getattr(fn, "policy", None)
        if made is None and entry.policy is not None:
            raise NativeFunctionsError(f"{where} names policy {entry.policy!r}, but kernel {kernel_name!r} is a "
                                       "module's own: drop the policy or the registration")
        outs = [a.name for a in entry.schema.arguments if a.kwarg_only and a.is_write]
        if made is not None and (made != policy or getattr(fn, "out_name", None) not in (None, *outs)):
            raise NativeFunctionsError(f"{where}: kernel {kernel_name!r} is made with policy {made!r} for "
                                       f"another entry, and {policy!r} here (or another out= name): give "
                                       "one of them its own name")
        return fn
    functional_name = (out_policy.functional_kernel_name(kernel_name)
                       if entry.schema.kind.name in ("out", "inplace") else None)
    functional = registry.lookup(functional_name) if functional_name else None
    if functional is None:
        raise NativeFunctionsError(
            f"{where}: no kernel named {kernel_name!r} is registered (for {key_name})"
            + (f", nor its functional kernel {functional_name!r} to make it from" if functional_name else ""))
    try:
        fn = out_policy.build(entry, functional)
    except ValueError as error:
        raise NativeFunctionsError(str(error)) from None
    return registry.register(kernel_name, fn)


def build_python_api() -> None:
    """Group overloads by public name, in table order, into PythonOps."""
    for entry in NATIVE_FUNCTIONS:
        op = op_for(entry.qualified_name)
        name = entry.public_name
        # PyTorch binds no Python out= for the out kernels it generates (tag "generated")
        if entry.schema.kind.name == "out":
            python_function = "generated" not in entry.tags
        else:
            python_function = "function" in entry.variants
        if python_function:
            key = (entry.python_module or "", name)
            if key not in FUNCTIONS:
                FUNCTIONS[key] = PythonOp(name, [])
            FUNCTIONS[key].add_overload(op)
        if "method" in entry.variants:
            if name not in METHODS:
                METHODS[name] = PythonOp(name, [], is_method=True)
            METHODS[name].add_overload(op)
    # An out= overload is reachable only from a name that also has a plain variant.
    for key in [k for k, p in FUNCTIONS.items() if all(c.op._schema.kind.name == "out" for c in p.candidates)]:
        del FUNCTIONS[key]
