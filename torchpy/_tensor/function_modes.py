"""The thread's TorchFunctionMode stack, and the cheap test Tensor's hand-written members make.

A mode must see plain tensors' calls to hand-written members (`x.size()`, `x.shape`,
`len(x)`, ...) as torch's modes do, without any class changing when a mode is entered.
So each such member starts with

    if _function_modes and mode_on():
        return call_mode(<the member>, self, ...)

`_function_modes` is a plain global of the member's module, written into every module that
`track`s it: True from the first mode pushed on any thread; False again from the first check
that finds no mode anywhere (`mode_on` clears it lazily, so code that enters and leaves a mode
around a few ops does not rewrite a dozen modules' globals each time). While no mode exists
(nearly always) the test is one global read of a bool (an int would cost ~1 ns more, a list
~3: the jump tests True / False by identity); only then is the thread's own stack looked at. The protocol proper (subclasses,
handler order) is torch_function.py's; this module is below Tensor so that tensor.py can
use it.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from .._dispatch import tls

# This thread's __torch_function__ state: its mode stack, and the switches
# DisableTorchFunctionSubclass (subclasses_enabled) and DisableTorchFunction (enabled) turn
# off. It lives on the dispatcher's TLS object, so a binding reads it and the salt through one
# thread-local lookup (`state.__dict__`).
state = tls.thread_state(modes=list, subclasses_enabled=lambda: True, enabled=lambda: True)

# One entry per mode pushed on any thread: list.append / pop are atomic, so no lock is needed
# (a lock would double a mode's entry cost).
_pushed: list[None] = []
_namespaces: list[dict[str, Any]] = []  # the globals of modules whose members test `_function_modes`


def track(namespace: dict[str, Any]) -> None:
    """Keep `namespace["_function_modes"]` (a module's globals) True while any thread has a mode
    pushed: the one read a member makes while none has."""
    namespace["_function_modes"] = bool(_pushed)
    _namespaces.append(namespace)


def _set_flags(value: bool) -> None:
    for namespace in _namespaces:
        namespace["_function_modes"] = value


def push(mode: Any) -> None:
    """Push `mode` on this thread's stack (TorchFunctionMode.__enter__)."""
    state.modes.append(mode)
    _pushed.append(None)
    if not _namespaces[0]["_function_modes"]:
        _set_flags(True)


def pop() -> Any:
    """Pop this thread's innermost mode (TorchFunctionMode.__exit__). The flags stay up until
    a check finds no mode anywhere (mode_on)."""
    mode = state.modes.pop()
    _pushed.pop()
    return mode


def _clear_flags() -> None:
    _set_flags(False)
    if _pushed:  # another thread pushed one meanwhile: its flags may have been overwritten
        _set_flags(True)


def mode_on(thread: dict | None = None) -> bool:
    """Whether a TorchFunctionMode must see a call on this thread: a mode is pushed, and
    DisableTorchFunction is not active (torch._C._is_torch_function_mode_enabled). The one
    definition of the test; callers guard it with their module's `_function_modes` flag (one
    global read while no mode exists anywhere). A handler runs with its own mode popped, so its
    calls reach the next one, or none. `thread`: this thread's state dict (`state.__dict__`),
    where the caller holds it already."""
    if thread is None:
        thread = state.__dict__  # one thread-local lookup for both reads (an attribute read is one each)
    if thread["modes"]:
        return thread["enabled"]
    if not _pushed:  # the last mode anywhere has gone: members answer from the flag alone again
        _clear_flags()
    return False


def call_mode(func: Callable, *args: Any, **kwargs: Any) -> Any:
    """`func(*args, **kwargs)` handed to this thread's innermost mode (a member's guard)."""
    return dispatch_to_mode(func, args, kwargs)


def dispatch_to_mode(public_api: Callable, args: tuple, kwargs: dict, modes: list | None = None) -> Any:
    """What a binding does for a call none of whose arguments overrides, under a mode (the
    binding may know that already): the innermost mode's handler, popped while it runs.
    `modes`: this thread's mode stack, where the caller has read it already."""
    if modes is None:
        modes = state.modes
    mode = modes.pop()
    try:
        result = mode.__torch_function__(public_api, (), args, kwargs or None)
    finally:
        modes.append(mode)
    if result is not NotImplemented:
        return result
    raise all_declined(public_api, [])


def all_declined(public_api: Callable, overloaded: list[Any]) -> TypeError:
    """PyTorch's error when the mode (if any) and every overloaded type declined."""
    listed = f"  - mode object {state.modes[-1]!r}\n" if state.modes else ""
    listed += "".join(f"  - tensor subclass {type(a)}\n" for a in overloaded)
    return TypeError(
        f"Multiple dispatch failed for '{func_name(public_api)}'; all __torch_function__ handlers "
        f"returned NotImplemented:\n\n{listed}\nFor more information, try re-running with "
        "TORCH_LOGS=not_implemented"
    )


def func_name(func: Any) -> str:
    return resolve_name(func) or getattr(func, "__name__", repr(func))


def resolve_name(f: Any) -> str | None:
    """'torch.add'-style name of a public function or Tensor method, or None."""
    python_op = getattr(f, "_python_op", None)
    if python_op is not None:
        if getattr(f, "_is_method", False):
            return "torch.Tensor." + python_op.name
        # torch names a function nn.functional re-exports (F.adaptive_avg_pool1d is
        # torch.adaptive_avg_pool1d) after nn.functional, the later namespace in its index
        functional = sys.modules.get("torchpy.nn.functional")
        if functional is not None and getattr(functional, python_op.name, None) is f:
            return "torch.nn.functional." + python_op.name
        return "torch." + python_op.name
    qualname = getattr(f, "__qualname__", None)
    module = getattr(f, "__module__", None)
    if qualname and module and module.startswith("torchpy"):
        return "torch" + module[len("torchpy"):].replace("._tensor.tensor", "") + "." + qualname
    return None
