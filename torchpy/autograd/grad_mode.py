"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode (per thread).

Each is a context manager and a decorator. Grad mode is read by the Autograd
kernel on every call, so it is a plain attribute of a threading.local.
Inference mode additionally removes the autograd and ADInplaceOrView keys from
dispatch, as in PyTorch, so ops skip the autograd layer entirely.
"""

from __future__ import annotations

import functools
import inspect
import threading
from typing import Any, Callable

from .._dispatch import keys as K
from .._dispatch import tls
from .._dispatch.keys import DispatchKey
from .._tensor import tensor as _tensor_module


class _GradState(threading.local):
    enabled: bool = True
    inference: bool = False


state = _GradState()
_tensor_module.grad_mode_enabled = lambda: state.enabled  # Tensor.numpy() asks

_INFERENCE_EXCLUDED = K.AUTOGRAD_BITS | K.key_bits(DispatchKey.ADInplaceOrView)


def is_grad_enabled() -> bool:
    return state.enabled


def is_inference_mode_enabled() -> bool:
    return state.inference


class _DecoratorContextManager:
    """A context manager that also decorates functions (and generator functions)."""

    def __call__(self, fn: Callable) -> Callable:
        if inspect.isclass(fn):
            raise RuntimeError("Cannot decorate classes; it is ambiguous")
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def generator(*args: Any, **kwargs: Any) -> Any:
                gen = fn(*args, **kwargs)
                with self.clone():
                    value = next(gen)
                while True:
                    try:
                        with self.clone():
                            sent = yield value
                        with self.clone():
                            value = gen.send(sent)
                    except StopIteration as stop:
                        return stop.value

            return generator

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper

    def clone(self) -> "_DecoratorContextManager":
        return self.__class__()


class set_grad_enabled(_DecoratorContextManager):
    """Turn gradient recording on or off; works as a function call too."""

    def __init__(self, mode: bool) -> None:
        self.prev = state.enabled
        self.mode = bool(mode)
        state.enabled = self.mode  # takes effect at once, as torch.set_grad_enabled(False) does

    def __enter__(self) -> None:
        state.enabled = self.mode

    def __exit__(self, *exc: object) -> None:
        state.enabled = self.prev

    def clone(self) -> "set_grad_enabled":
        return self.__class__(self.mode)

    def __call__(self, fn: Callable) -> Callable:  # used as a decorator: undo the eager switch
        state.enabled = self.prev
        return super().__call__(fn)


class no_grad(_DecoratorContextManager):
    """Don't record operations for autograd inside the block."""

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = False

    def __exit__(self, *exc: object) -> None:
        state.enabled = self.prev


class enable_grad(_DecoratorContextManager):
    """Record operations for autograd inside the block (e.g. within no_grad)."""

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = True

    def __exit__(self, *exc: object) -> None:
        state.enabled = self.prev


class inference_mode(_DecoratorContextManager):
    """no_grad, and ops skip the autograd and ADInplaceOrView keys altogether."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def __enter__(self) -> None:
        self.prev = (state.enabled, state.inference, tls.local.excluded)
        if self.mode:
            state.enabled = False
            state.inference = True
            tls.local.excluded = tls.local.excluded | _INFERENCE_EXCLUDED
        else:
            state.inference = False

    def __exit__(self, *exc: object) -> None:
        state.enabled, state.inference, tls.local.excluded = self.prev

    def clone(self) -> "inference_mode":
        return self.__class__(self.mode)
