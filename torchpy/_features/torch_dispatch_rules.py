"""torch.library.register_torch_dispatch: per-(operator, class) replacements of __torch_dispatch__.

A rule registered for (op, cls) runs instead of `cls.__torch_dispatch__` (a tensor
subclass) or `mode.__torch_dispatch__` (a TorchDispatchMode whose type is cls) when
the Python key handles `op`, called as rule(cls_or_mode, func, types, args, kwargs).
Only operators with rules pay for them: such an op gets its own kernel at the Python
key, which hands everything its rules do not cover to the Python fallback.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from .._dispatch import tls
from .._dispatch.dispatcher import RAW, Kernel, RegistrationHandle, caller_location, dispatcher
from .._dispatch.keys import DispatchKey
from .python_key import _call_below_python, _handler_arguments, mode_stack, overloaded_types, python_fallback

_rules: dict[str, dict[type, Callable]] = {}           # "ns::name" -> {class: rule}
_kernels: dict[str, RegistrationHandle] = {}          # "ns::name" -> its Python-key kernel


def register_torch_dispatch_rule(op: Any, cls: type, fn: Callable) -> RegistrationHandle:
    name = op.name()
    rules = _rules.setdefault(name, {})
    if cls in rules:
        raise RuntimeError(f"{cls} already has a `__torch_dispatch__` rule registered for {name}")
    rules[cls] = fn
    if name not in _kernels:
        kernel = Kernel(_python_kernel, RAW, caller_location())
        _kernels[name] = dispatcher.register_kernel(name, DispatchKey.Python, kernel)

    def undo() -> None:
        del rules[cls]
        if not rules:
            del _rules[name]
            _kernels.pop(name).remove()

    return RegistrationHandle(undo)


class _RuleAsMode:
    """Stands in for a mode on the stack, so the Python fallback calls the rule as its handler."""

    def __init__(self, mode: Any, rule: Callable) -> None:
        self.mode = mode
        self.rule = rule

    def __torch_dispatch__(self, func: Any, types: tuple, args: tuple = (), kwargs: dict | None = None) -> Any:
        return self.rule(self.mode, func, types, args, kwargs)


def _python_kernel(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    rules = _rules.get(op.name(), {})
    stack = mode_stack.dispatch_modes
    if stack:
        mode = stack[-1]
        rule = rules.get(type(mode))
        if rule is None:
            return python_fallback(op, ks, args, kwargs)
        stack[-1] = _RuleAsMode(mode, rule)
        try:
            return python_fallback(op, ks, args, kwargs)
        finally:
            stack[-1] = mode
    types = overloaded_types(args, kwargs)
    if not any(cls in rules for cls in types):
        return python_fallback(op, ks, args, kwargs)
    handler_args, handler_kwargs = _handler_arguments(args, kwargs)
    for cls in types:
        rule = rules.get(cls)
        handler = cls.__torch_dispatch__ if rule is None else functools.partial(rule, cls)
        result = _call_below_python(handler, op, tuple(types), handler_args, handler_kwargs,
                                    tls.local.included)
        if result is not NotImplemented:
            return result
    raise TypeError(  # the Python fallback's error, for the same situation
        f"Multiple dispatch failed for 'torch._ops.{op}'; all __torch_dispatch__ handlers returned NotImplemented:\n\n"
        + "\n".join(f"  - tensor subclass {t}" for t in types)
        + "\n\nFor more information, try re-running with TORCH_LOGS=not_implemented"
    )
