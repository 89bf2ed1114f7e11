"""The Python dispatch key: __torch_dispatch__ for tensor subclasses and TorchDispatchMode.

A tensor whose class defines `__torch_dispatch__` carries the Python key (and
PythonTLSSnapshot, as in PyTorch). While a TorchDispatchMode is active, the
thread's included set has the Python key, so every op reaches it, factories
included.

The Python key's fallback:
* with modes active, pops the innermost mode, calls its `__torch_dispatch__`
  and pushes it back afterwards (so calls made by the handler go to the next
  mode, then to subclasses, then to the backend);
* otherwise calls the subclasses' `__torch_dispatch__`, subclasses before
  superclasses and otherwise left to right, until one does not return
  NotImplemented.
While a handler runs, every key above Python is excluded: the handler is below
autograd, so what it calls records no graph.

Handlers receive the OpOverload, the overloaded types, and args / kwargs
normalized per schema, with wrapped numbers shown as the Python numbers they
came from.
"""

from __future__ import annotations

from typing import Any, Callable

from .._dispatch import keys as K
from .._dispatch import tls
from .._dispatch.dispatcher import RAW, Kernel, caller_location, dispatcher
from .._dispatch.keys import DispatchKey
from .._tensor import subclassing
from .._tensor.subclassing import _dispatches_in_python
from .._tensor.tensor import Tensor

PYTHON_BITS = K.PYTHON_BITS
BELOW_PYTHON = K.full_after(DispatchKey.Python)
# Everything above Python: excluded while a handler runs.
ABOVE_PYTHON = K.functionalities_above(DispatchKey.Python)


# This thread's TorchDispatchMode stack (mode_stack.dispatch_modes), kept on the dispatcher's
# per-thread object so the Python key's fallback reads it and the salt with one lookup.
mode_stack = tls.thread_state(dispatch_modes=list)


_with_python_key = tls.transition(include=PYTHON_BITS)
_without_python_key = tls.transition(uninclude=PYTHON_BITS)


def push_mode(mode: Any) -> None:
    stack = mode_stack.dispatch_modes
    stack.append(mode)
    if len(stack) == 1:
        tls.local.salt = _with_python_key()


def pop_mode() -> Any:
    stack = mode_stack.dispatch_modes
    if not stack:
        raise AssertionError("Trying to pop from an empty mode stack")
    mode = stack.pop()
    if not stack:
        tls.local.salt = _without_python_key()
    return mode


def run_without_modes(fn: Callable, *args: Any) -> Any:
    """fn(*args) with this thread's TorchDispatchMode stack set aside, then restored (torch's
    StashTorchDispatchStackGuard, which Tensor.as_subclass uses around its alias)."""
    stack = mode_stack.dispatch_modes
    if not stack:
        return fn(*args)
    saved = []
    while stack:
        saved.append(pop_mode())
    try:
        return fn(*args)
    finally:
        for mode in reversed(saved):
            push_mode(mode)


subclassing._run_without_dispatch_modes = run_without_modes


def has_torch_dispatch(cls: type) -> bool:
    return _dispatches_in_python(cls)


def _plain(value: Any) -> Any:
    """What a handler sees for an argument: the number behind a wrapped number."""
    if isinstance(value, Tensor) and value._wrapped is not None:
        return value._wrapped
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _handler_arguments(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    for a in args:
        if type(a) is list or (isinstance(a, Tensor) and a._wrapped is not None):
            break
    else:
        if not kwargs:
            return args, kwargs  # no wrapped number (a list may hold one): nothing to convert
    return tuple([_plain(a) for a in args]), {k: _plain(v) for k, v in kwargs.items()}


_dispatching_classes: dict[type, bool] = {}


def _is_dispatching(cls: type) -> bool:
    known = _dispatching_classes.get(cls)
    if known is None:
        known = _dispatching_classes[cls] = issubclass(cls, Tensor) and has_torch_dispatch(cls)
    return known


def overloaded_types(args: tuple, kwargs: dict) -> list[type]:
    """Tensor classes with __torch_dispatch__ among the arguments, in PyTorch's order:
    first appearance, but a subclass before any of its superclasses."""
    found: list[type] = []
    for value in (*args, *kwargs.values()) if kwargs else args:
        for item in (value if isinstance(value, (list, tuple)) else (value,)):
            cls = type(item)
            if cls is Tensor or cls in found or not _is_dispatching(cls):
                continue
            index = len(found)
            for i, other in enumerate(found):
                if issubclass(cls, other):
                    index = i
                    break
            found.insert(index, cls)
    return found


# argument types -> (overloaded types, whether an argument may be or hold a wrapped number),
# for positional calls without lists or tuples (whose contents vary under one signature);
# _is_dispatching is fixed per class, so the types are too
_plans_by_signature: dict[tuple, tuple[tuple, bool]] = {}


def _handler_inputs(args: tuple, kwargs: dict) -> tuple[tuple, tuple, dict]:
    """(overloaded types, args, kwargs as handlers see them): overloaded_types and
    _handler_arguments, from a plan cached per argument signature where that is sound."""
    if kwargs:
        return (tuple(overloaded_types(args, kwargs)), *_handler_arguments(args, kwargs))
    signature = tuple(map(type, args))
    plan = _plans_by_signature.get(signature)
    if plan is None:
        plan = (tuple(overloaded_types(args, kwargs)), Tensor in signature or list in signature)
        if list not in signature and tuple not in signature:
            _plans_by_signature[signature] = plan
    if plan[1]:
        return (plan[0], *_handler_arguments(args, kwargs))
    return plan[0], args, kwargs


def _first_instance(cls: type, args: tuple, kwargs: dict) -> Any:
    for value in (*args, *kwargs.values()):
        for item in (value if isinstance(value, (list, tuple)) else (value,)):
            if type(item) is cls:
                return item
    return cls


def _call_below_python(handler: Any, op: Any, types: tuple, args: tuple, kwargs: dict,
                       included: int) -> Any:
    """Run a handler with every key above Python excluded (and `included` as the included set)."""
    saved = tls.snapshot()
    tls.set_keys(included, tls.local.excluded | ABOVE_PYTHON)
    try:
        return handler(op, types, args, kwargs)
    finally:
        tls.restore(saved)


# TLS state (its salt) -> the salt of the state a handler runs under: every key above Python
# excluded; for the last mode (popped while its handler runs) the Python key dropped too
_handler_states: dict[int, int] = {}
_last_mode_states: dict[int, int] = {}
_local = tls.local


def _handler_state(saved: int, drop_python: bool) -> int:
    states = _last_mode_states if drop_python else _handler_states
    state = states.get(saved)
    if state is None:
        included, excluded = tls.state_sets(saved)
        if drop_python:
            included &= K.ALL_BUT_PYTHON_BITS
        state = states[saved] = tls._salt_for(included, excluded | ABOVE_PYTHON)
    return state


def python_fallback(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    state = _local.__dict__  # the thread's TLS as a dict: one lookup for every read and write below
    stack = state["dispatch_modes"]
    saved = state["salt"]
    if stack:  # the innermost mode, popped while it runs: its own calls go to the next (or below)
        types, handler_args, handler_kwargs = (), args, kwargs  # the common case: nothing to look at
        if kwargs:
            types, handler_args, handler_kwargs = _handler_inputs(args, kwargs)
        else:
            for a in args:  # only plain tensors: no types to report, no wrapped numbers to show
                if type(a) is not Tensor or a._wrapped is not None:
                    types, handler_args, handler_kwargs = _handler_inputs(args, kwargs)
                    break
        mode = stack.pop()
        # _handler_state's caches, read here: a mode's handler runs for every op
        if stack:
            state["salt"] = _handler_states.get(saved) or _handler_state(saved, False)
        else:
            state["salt"] = _last_mode_states.get(saved) or _handler_state(saved, True)
        try:
            return mode.__torch_dispatch__(op, types, handler_args, handler_kwargs)
        finally:
            state["salt"] = saved
            stack.append(mode)
    if kwargs:
        types, handler_args, handler_kwargs = _handler_inputs(args, kwargs)
    else:  # _handler_inputs' cached plan, inline: a subclass's every op comes here
        # (for two arguments, the key spelled out: half the cost of tuple(map(type, args)))
        plan = _plans_by_signature.get((type(args[0]), type(args[1])) if len(args) == 2 else tuple(map(type, args)))
        if plan is not None and not plan[1]:
            types, handler_args, handler_kwargs = plan[0], args, kwargs
        else:
            types, handler_args, handler_kwargs = _handler_inputs(args, kwargs)
    handler_salt = _handler_states.get(saved) or _handler_state(saved, False)
    for cls in types:
        # torch looks the handler up on an argument, so a plain method binds to that instance
        first = args[0] if args and type(args[0]) is cls else _first_instance(cls, args, kwargs)
        handler = first.__torch_dispatch__
        state["salt"] = handler_salt
        try:
            result = handler(op, types, handler_args, handler_kwargs)
        finally:
            state["salt"] = saved
        if result is not NotImplemented:
            return result
    if not types:  # reached through an included Python key with no handler left: go below it
        return op.redispatch_raw(ks & BELOW_PYTHON, args, kwargs)
    raise TypeError(
        f"Multiple dispatch failed for 'torch._ops.{op}'; all __torch_dispatch__ handlers returned NotImplemented:\n\n"
        + "\n".join(f"  - tensor subclass {t}" for t in types)
        + "\n\nFor more information, try re-running with TORCH_LOGS=not_implemented"
    )


_kernel = Kernel(python_fallback, RAW, caller_location())
_handle = dispatcher.register_fallback(DispatchKey.Python, _kernel)
