"""The __torch_function__ protocol and TorchFunctionMode (public as torchpy.overrides).

Every public function, Tensor method and operator dunder generated from the op
table checks, before parsing its arguments, whether an argument's type (other
than Tensor itself) defines `__torch_function__`, or a TorchFunctionMode is
active. If so the call goes to `handle_torch_function`: the innermost mode
first (popped while it runs), then the overloaded types, subclasses before
superclasses and otherwise left to right, until one does not return
NotImplemented.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Iterable, Iterator

from .._dispatch.ops import call
from . import function_modes
from .function_modes import all_declined as _all_declined
from .function_modes import dispatch_to_mode, resolve_name  # noqa: F401  (this module's API too)
from .function_modes import func_name as _func_name
from .function_modes import mode_on
from .members import NONE, TABLE, declare
from .subclassing import as_subclass
from .tensor import Tensor

__all__ = [
    "TorchFunctionMode",
    "enable_reentrant_dispatch",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "resolve_name",
]


def _disabled_torch_function_impl(func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    """Tensor subclasses set `__torch_function__ = _disabled_torch_function_impl` to opt out."""
    return func(*args, **(kwargs or {}))


# This thread's __torch_function__ state (function_modes.py: the mode stack and the switches
# DisableTorchFunctionSubclass and DisableTorchFunction turn off).
state = function_modes.state
_function_modes = False  # whether any thread has a TorchFunctionMode (function_modes keeps it)
function_modes.track(globals())


def disable_for_internals() -> tuple[bool, bool]:
    """Turn __torch_function__ off (modes and subclasses) while torchpy's own autograd code
    runs: in torch that code is C++ and never passes through Python bindings. Returns the
    state to hand to `restore`."""
    saved = (state.enabled, state.subclasses_enabled)
    state.enabled = state.subclasses_enabled = False
    return saved


def restore(saved: tuple[bool, bool]) -> None:
    state.enabled, state.subclasses_enabled = saved

# Types that can never carry an override; checked first so plain calls stay cheap.
_PLAIN_TYPES = frozenset({Tensor, int, float, bool, complex, str, type(None), slice, type(Ellipsis)})


def _overrides(cls: type) -> bool:
    """Whether instances of `cls` take part in __torch_function__ dispatch."""
    handler = getattr(cls, "__torch_function__", None)
    if handler is None:
        return False
    return getattr(handler, "__func__", handler) is not _disabled_torch_function_impl


def _collect(values: Iterable[Any], found: list[Any], seen: set[type]) -> None:
    for value in values:
        cls = type(value)
        if cls in _PLAIN_TYPES:
            continue
        if cls is list or cls is tuple:
            _collect(value, found, seen)
            continue
        if cls in seen or not _overrides(cls):
            continue
        seen.add(cls)
        # A subclass goes before the first of its superclasses already found.
        index = len(found)
        for i, other in enumerate(found):
            if issubclass(cls, type(other)):
                index = i
                break
        found.insert(index, value)


def _overloaded_args(relevant: Iterable[Any]) -> list[Any]:
    found: list[Any] = []
    if state.subclasses_enabled:
        _collect(relevant, found, set())
    return found


def _any_overrides(values: Iterable[Any]) -> bool:
    """Whether some value (in nested lists / tuples too) has a type that overrides: the
    yes / no of _overloaded_args without building its ordered list."""
    for value in values:
        cls = type(value)
        if cls in _PLAIN_TYPES:
            continue
        if cls is list or cls is tuple:
            if _any_overrides(value):
                return True
        elif _overrides(cls):
            return True
    return False


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Whether calling a function on these arguments must go through __torch_function__."""
    if not state.enabled:
        return False
    if state.modes:
        return True
    return bool(_overloaded_args(relevant_args))


def has_torch_function_unary(arg: Any) -> bool:
    return has_torch_function((arg,))


def has_torch_function_variadic(*args: Any) -> bool:
    return has_torch_function(args)


def needs_override(args: tuple, kwargs: dict) -> bool:
    """The hot-path test public bindings make: True only for overriding types or modes."""
    if not state.enabled:
        return False
    if state.modes:
        return True
    if not state.subclasses_enabled:  # inside a subclass's handler: only modes could claim it
        return False
    return _any_overrides(args) or (bool(kwargs) and _any_overrides(kwargs.values()))


def _run_handlers(public_api: Callable, overloaded: list[Any], args: tuple, kwargs: dict) -> Any:
    """The innermost mode (popped while it runs), then each overloaded type, until one does
    not return NotImplemented; NotImplemented if all decline."""
    types = tuple([type(a) for a in overloaded]) if overloaded else ()
    if state.modes:
        mode = state.modes.pop()
        try:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        finally:
            state.modes.append(mode)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    return NotImplemented


def handle_torch_function(public_api: Callable, relevant_args: Iterable[Any], *args: Any, **kwargs: Any) -> Any:
    """Call the __torch_function__ overrides for `public_api(*args, **kwargs)`."""
    overloaded = _overloaded_args(tuple(relevant_args))
    result = _run_handlers(public_api, overloaded, args, kwargs)
    if result is NotImplemented:
        raise TypeError(
            f"no implementation found for '{_func_name(public_api)}' on types that implement "
            f"__torch_function__: {[type(a) for a in overloaded]}"
        )
    return result


def dispatch_from_binding(public_api: Callable, args: tuple, kwargs: dict) -> Any:
    """What a native binding does when needs_override() is true (PyTorch's message when every
    handler declines differs from the Python-level one)."""
    if not kwargs:  # the usual case, one subclass keeping Tensor's handler: its work, without the protocol
        cls = default_handler_class(args)
        if cls is not None:
            return run_default(cls, public_api, public_api, args, kwargs)
    relevant = (*args, *kwargs.values()) if kwargs else args
    overloaded = _overloaded_args(relevant) if _any_overrides(relevant) else []
    if not overloaded and state.modes:
        return dispatch_to_mode(public_api, args, kwargs)
    if len(overloaded) == 1 and not state.modes and _keeps_default(type(overloaded[0])):
        return run_default(type(overloaded[0]), public_api, public_api, args, kwargs)  # Tensor's handler, inline
    # a native binding hands its handlers kwargs=None when the call had none
    result = _run_handlers(public_api, overloaded, args, kwargs or None)
    if result is not NotImplemented:
        return result
    raise _all_declined(public_api, overloaded)


def mode_checked(fn: Callable) -> Callable:
    """`fn` as torch's C++ bindings of functions it lists as ignored (torch.tensor,
    torch.as_tensor, ...): no subclass's handler sees them, but a TorchFunctionMode does."""

    @functools.wraps(fn)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if _function_modes and mode_on():
            return dispatch_to_mode(checked, args, kwargs)
        return fn(*args, **kwargs)

    return checked


# --- modes -----------------------------------------------------------------------------------


class TorchFunctionMode:
    """Override every torchpy function in a dynamic scope: `with MyMode(): ...`."""

    def __init__(self) -> None:
        pass

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: Any = None) -> Any:
        raise NotImplementedError

    def __enter__(self) -> "TorchFunctionMode":
        function_modes.push(self)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        function_modes.pop()

    @classmethod
    def push(cls, *args: Any, **kwargs: Any) -> "TorchFunctionMode":
        return cls(*args, **kwargs)


def _get_current_function_mode() -> TorchFunctionMode | None:
    return state.modes[-1] if state.modes else None


def _get_current_function_mode_stack() -> list[TorchFunctionMode]:
    return list(state.modes)


@contextlib.contextmanager
def _pop_mode_temporarily() -> Iterator[TorchFunctionMode]:
    mode = state.modes.pop()
    try:
        yield mode
    finally:
        state.modes.append(mode)


class DisableTorchFunctionSubclass:
    """Inside: subclasses' __torch_function__ is skipped (modes still run)."""

    def __enter__(self) -> None:
        self._prev = state.subclasses_enabled
        state.subclasses_enabled = False

    def __exit__(self, *exc: Any) -> None:
        state.subclasses_enabled = self._prev


class DisableTorchFunction:
    """Inside: no __torch_function__ at all, modes included."""

    def __enter__(self) -> None:
        self._prev = (state.enabled, state.subclasses_enabled)
        state.enabled = False
        state.subclasses_enabled = False

    def __exit__(self, *exc: Any) -> None:
        state.enabled, state.subclasses_enabled = self._prev


def _is_torch_function_enabled() -> bool:
    """torch._C._is_torch_function_enabled: False under DisableTorchFunction and under
    DisableTorchFunctionSubclass alike."""
    return state.enabled and state.subclasses_enabled


def _is_torch_function_mode_enabled() -> bool:
    """torch._C._is_torch_function_mode_enabled."""
    return mode_on()


def _convert(ret: Any, cls: type) -> Any:
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return as_subclass(ret, cls)  # the function: no mode sees this conversion
    if isinstance(ret, (tuple, list)):
        converted = type(ret)(_convert(r, cls) for r in ret) if not hasattr(ret, "_fields") else type(ret)(
            *(_convert(r, cls) for r in ret))
        return converted
    return ret


@classmethod  # type: ignore[misc]
def _tensor_torch_function(cls: type, func: Any, types: Any, args: tuple = (), kwargs: Any = None) -> Any:
    """Tensor.__torch_function__: run the function, then give tensor results the subclass."""
    if kwargs is None:
        kwargs = {}
    for t in types:
        if t is not cls and not issubclass(cls, t):
            return NotImplemented
    # DisableTorchFunctionSubclass, inline: this runs for every op on a subclass.
    previous = state.subclasses_enabled
    state.subclasses_enabled = False
    try:
        ret = func(*args, **kwargs)
        if func in _NO_WRAP:
            return ret
        return _convert(ret, cls)
    finally:
        state.subclasses_enabled = previous


# functions whose results Tensor's __torch_function__ hands back as they are (torch's
# get_default_nowrap_functions: a subclass's .grad is the plain gradient)
_NO_WRAP: set = {Tensor.__dict__["grad"].__get__}
_DEFAULT_IMPL = _tensor_torch_function.__func__


def _keeps_default(cls: type) -> bool:
    """Whether `cls.__torch_function__` is Tensor's default one, bound to `cls` (looked up on
    every call: a class may reassign it at any time)."""
    handler = cls.__torch_function__
    return getattr(handler, "__func__", None) is _DEFAULT_IMPL and handler.__self__ is cls


def default_handler_class(args: tuple) -> type | None:
    """The class whose __torch_function__ alone would handle a call on `args` (no keywords),
    when that is Tensor's default one and no mode is active; else None. Its work is known
    (run_default), so callers can skip the general protocol. One subclass among plain
    tensors and numbers is the case recognised; anything else is left to the protocol."""
    if state.modes or not state.subclasses_enabled or not state.enabled:
        return None
    cls = None
    for value in args:
        kind = type(value)
        if kind is cls or kind in _PLAIN_TYPES:
            continue
        if kind is list or kind is tuple:
            return None
        if not isinstance(value, Tensor):  # a dtype, a hook function ...; or a type with a handler
            if _overrides(kind):
                return None
            continue
        if cls is not None:
            return None
        cls = kind
    if cls is None or not _keeps_default(cls):
        return None
    return cls


def run_default(cls: type, func: Any, fn: Callable, args: tuple, kwargs: dict) -> Any:
    """What Tensor's default __torch_function__ does for one overloaded class `cls` and
    `func`: run `fn` (func itself, or a callable doing the same work) with subclasses'
    __torch_function__ off, then give tensor results the class (unless func is a no-wrap
    function)."""
    previous = state.subclasses_enabled
    state.subclasses_enabled = False
    try:
        ret = fn(*args, **kwargs)
        if type(ret) is cls or func in _NO_WRAP:  # (a result of the class needs no converting)
            return ret
        return _convert(ret, cls)
    finally:
        state.subclasses_enabled = previous


_DECLINED = object()  # run_default_binary's "not a case it handles"


def run_default_binary(func: Any, fn: Callable, a: Any, b: Any, thread: dict, fn_is_op: bool = False) -> Any:
    """default_handler_class and run_default in one step for a binary call on (a, b), the
    operator dunders' and pointwise bindings' common subclass case: `fn(a, b)` with subclasses'
    __torch_function__ off, the result given the class. _DECLINED when the general protocol
    must run (a mode, torch function disabled, two overriding classes, a class with its own
    __torch_function__). `thread`: the thread's TLS dict (the caller has read it already);
    `fn_is_op`: fn is an OpOverload and a, b tensors, so (a, b) is already its normalized form
    and the dispatcher's call entry takes it without binding."""
    if thread["modes"] or not thread["enabled"] or not thread["subclasses_enabled"]:
        return _DECLINED
    cls, other = type(a), type(b)
    if other is not cls:
        if cls in _PLAIN_TYPES:
            cls = other
        elif other not in _PLAIN_TYPES:
            return _DECLINED
    if cls in _PLAIN_TYPES or cls is list or cls is tuple:
        return _DECLINED
    handler = cls.__torch_function__  # _keeps_default, inline
    try:
        if handler.__func__ is not _DEFAULT_IMPL or handler.__self__ is not cls:
            return _DECLINED
    except AttributeError:  # not a bound method: a staticmethod or another callable
        return _DECLINED
    thread["subclasses_enabled"] = False
    try:
        if fn_is_op:  # call()'s first step, inline (a subclass's key set reaches autograd's kernel)
            hit = fn.probe_call_raw(a._keyset | b._keyset | thread["salt"])
            ret = hit[0](fn, hit[1], (a, b), {}) if hit is not None else call(fn, a._keyset | b._keyset, a, b)
        else:
            ret = fn(a, b)
        if type(ret) is cls or func in _NO_WRAP:  # (a result of the class needs no converting)
            return ret
        return _convert(ret, cls)
    finally:
        thread["subclasses_enabled"] = True  # it was on: checked above


def get_default_nowrap_functions() -> set:
    return _NO_WRAP


# --- introspection ---------------------------------------------------------------------------


def is_tensor_like(inp: Any) -> bool:
    """A Tensor, or an object whose type defines __torch_function__."""
    return type(inp) is Tensor or hasattr(type(inp), "__torch_function__")


def enable_reentrant_dispatch() -> contextlib.AbstractContextManager:
    """Kept for torch compatibility: torchpy's Python key is always re-entrant."""
    return contextlib.nullcontext()


def wrap_with_override(fn: Callable, *, is_method: bool = False) -> Callable:
    """A public callable that checks for overrides before running `fn`."""

    @functools.wraps(fn)
    def public(*args: Any, **kwargs: Any) -> Any:
        if needs_override(args, kwargs):
            return dispatch_from_binding(public, args, kwargs)
        return fn(*args, **kwargs)

    public._is_method = is_method  # type: ignore[attr-defined]
    return public


# --- Tensor's side of the protocol ---------------------------------------------------------

def _checked_method(original: Callable, name: str) -> Callable:
    @functools.wraps(original)
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        full = (self, *args)
        if not kwargs:  # a subclass keeping Tensor's handler (the usual case): its work, directly
            cls = default_handler_class(full)
            if cls is not None:
                return run_default(cls, original, original, full, kwargs)
        if needs_override(full, kwargs):
            # handlers get Tensor's member: `func is torch.Tensor.__repr__` holds, and
            # calling func checks for a mode again
            return dispatch_from_binding(Tensor.__dict__.get(name, original), full, kwargs)
        return original(self, *args, **kwargs)

    return method


def _checked_property(original: property, name: str) -> property:
    getter = original.__get__

    def get(self: Any) -> Any:
        if needs_override((self,), {}):
            return dispatch_from_binding(Tensor.__dict__.get(name, original).__get__, (self,), {})
        return getter(self)

    return property(get, original.fset, original.fdel, original.__doc__)


def _checked(member: Any, name: str) -> Any:
    return _checked_property(member, name) if isinstance(member, property) else _checked_method(member, name)


def _init_subclass(cls: type, **kwargs: Any) -> None:
    """Route a subclass's inherited hand-written members (those declared MODES: they look for
    modes but not for subclasses) through __torch_function__; generated ops check already,
    and plain Tensor keeps its members as they are."""
    super(Tensor, cls).__init_subclass__(**kwargs)
    if not _overrides(cls):
        return
    between = cls.__mro__[:cls.__mro__.index(Tensor)]  # cls and its bases below Tensor
    for name, member in TABLE.mode_checked(Tensor).items():
        if not any(name in klass.__dict__ for klass in between):  # (a base's own, or its copy)
            setattr(cls, name, _checked(member, name))


declare("__torch_function__", _tensor_torch_function, checks=NONE)
declare("__init_subclass__", classmethod(_init_subclass), checks=NONE)
