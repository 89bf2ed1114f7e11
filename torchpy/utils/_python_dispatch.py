"""torchpy.utils._python_dispatch: TorchDispatchMode and the mode-stack helpers.

The stack itself and the Python key's fallback live in torchpy/_features/python_key.py;
this module is the torch-compatible face of it.
"""

from __future__ import annotations

import contextlib
from collections import deque
from typing import Any, Iterator

from .._dispatch import tls
from .._dispatch.keys import DispatchKey, DispatchKeySet
from .._features import python_key
from .._features.python_key import mode_stack, pop_mode, push_mode

_is_in_torch_dispatch_mode = False
_is_in_non_infra_torch_dispatch_mode = False


class TorchDispatchMode:
    """Override every aten call in a dynamic scope: `with MyMode(): ...`.

    Inside `__torch_dispatch__` the mode is popped, so the ops it calls go to the next
    mode on the stack (then subclasses, then the backend). Re-enter with `with self:`.
    """

    def __init__(self, _dispatch_key: Any = None) -> None:
        if _dispatch_key is not None:
            self.__dict__["_dispatch_key"] = _dispatch_key
        self.old_dispatch_mode_flags: deque[bool] = deque()
        self.old_non_infra_dispatch_mode_flags: deque[bool] = deque()

    def _lazy_init_old_dispatch_mode_flags(self) -> None:
        if not hasattr(self, "old_dispatch_mode_flags"):
            self.old_dispatch_mode_flags = deque()
        if not hasattr(self, "old_non_infra_dispatch_mode_flags"):
            self.old_non_infra_dispatch_mode_flags = deque()

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: Any = None) -> Any:
        raise NotImplementedError

    def __enter__(self) -> "TorchDispatchMode":
        global _is_in_torch_dispatch_mode, _is_in_non_infra_torch_dispatch_mode
        if isinstance(type(self).__dict__.get("__torch_dispatch__"), classmethod):
            raise RuntimeError(
                "Defining your mode's `__torch_dispatch__` as a classmethod is not supported, please "
                "make it a plain method"
            )
        self._lazy_init_old_dispatch_mode_flags()
        self.old_dispatch_mode_flags.append(_is_in_torch_dispatch_mode)
        _is_in_torch_dispatch_mode = True
        self.old_non_infra_dispatch_mode_flags.append(_is_in_non_infra_torch_dispatch_mode)
        _is_in_non_infra_torch_dispatch_mode = _is_in_non_infra_torch_dispatch_mode or not self.is_infra_mode()
        push_mode(self)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        global _is_in_torch_dispatch_mode, _is_in_non_infra_torch_dispatch_mode
        _is_in_torch_dispatch_mode = self.old_dispatch_mode_flags.pop()
        _is_in_non_infra_torch_dispatch_mode = self.old_non_infra_dispatch_mode_flags.pop()
        pop_mode()

    @classmethod
    def push(cls, *args: Any, **kwargs: Any) -> "TorchDispatchMode":
        return cls(*args, **kwargs)

    @classmethod
    def is_infra_mode(cls) -> bool:
        return False


def _get_current_dispatch_mode() -> TorchDispatchMode | None:
    stack = mode_stack.dispatch_modes
    return stack[-1] if stack else None


def _get_current_dispatch_mode_stack() -> list[TorchDispatchMode]:
    return list(mode_stack.dispatch_modes)


def _len_torch_dispatch_stack() -> int:
    return len(mode_stack.dispatch_modes)


@contextlib.contextmanager
def _pop_mode_temporarily(k: Any = None) -> Iterator[TorchDispatchMode]:
    mode = pop_mode()
    try:
        yield mode
    finally:
        push_mode(mode)


@contextlib.contextmanager
def _disable_current_modes() -> Iterator[list[TorchDispatchMode]]:
    saved = []
    while mode_stack.dispatch_modes:
        saved.append(pop_mode())
    try:
        yield list(reversed(saved))
    finally:
        for mode in reversed(saved):
            push_mode(mode)


def is_in_torch_dispatch_mode(include_infra_modes: bool = True) -> bool:
    return _is_in_torch_dispatch_mode if include_infra_modes else _is_in_non_infra_torch_dispatch_mode


def _push_mode(mode: TorchDispatchMode) -> None:
    push_mode(mode)


def _pop_mode(k: Any = None) -> TorchDispatchMode:
    return pop_mode()


class _DisableTorchDispatch:
    """No __torch_dispatch__ (modes or subclasses) inside the block: the Python keys are excluded."""

    def __enter__(self) -> "_DisableTorchDispatch":
        self._guard = tls.ExcludeDispatchKeyGuard(
            DispatchKeySet([DispatchKey.Python, DispatchKey.PythonTLSSnapshot]))
        self._guard.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._guard.__exit__(*exc)


def is_traceable_wrapper_subclass(t: Any) -> bool:
    return python_key.has_torch_dispatch(type(t)) and hasattr(t, "__tensor_flatten__")
