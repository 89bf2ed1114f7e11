"""Fake (meta) implementations of operators registered from Python, and get_ctx().

A fake impl computes an op's output metadata from its inputs' metadata. As in
torch, the fake impls of one operator form a stack (the newest runs), and the
operator's Meta kernel calls the active one. `get_ctx()` inside a fake impl
asks for the fake-tensor context; with plain meta tensors there is none, which
is an error naming the operator.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Iterator

from .._dispatch.dispatcher import RegistrationHandle, dispatcher
from .._dispatch.keys import DispatchKey


def _no_ctx() -> None:
    return None


_ctx_getter: Callable[[], Any] = _no_ctx


def get_ctx() -> Any:
    """The context of the fake impl now running (torch.library.get_ctx)."""
    return _ctx_getter()


@contextlib.contextmanager
def set_ctx_getter(getter: Callable[[], Any]) -> Iterator[None]:
    global _ctx_getter
    previous = _ctx_getter
    _ctx_getter = getter
    try:
        yield
    finally:
        _ctx_getter = previous


class FakeImplHolder:
    """The fake impls registered for one operator, newest last."""

    def __init__(self, qualname: str) -> None:
        self.qualname = qualname
        self.kernels: list[tuple[Callable, str]] = []  # (fn, source)

    @property
    def kernel(self) -> tuple[Callable, str] | None:
        return self.kernels[-1] if self.kernels else None

    def register(self, fn: Callable, source: str, lib: Any, *, allow_override: bool = True) -> RegistrationHandle:
        """Push `fn` and (re)register the op's Meta kernel on `lib`; the handle pops `fn`."""
        if not allow_override:
            self._check_no_other_impl()
        entry = (fn, source)
        self.kernels.append(entry)
        try:
            lib.impl(self.qualname, _meta_kernel(self.qualname, self), "Meta", allow_override=allow_override)
        except Exception:
            self.kernels.remove(entry)
            raise
        return RegistrationHandle(lambda: self.kernels.remove(entry))

    def _check_no_other_impl(self) -> None:
        if self.kernel is not None:
            raise RuntimeError(
                f"register_fake(...): the operator {self.qualname} already has a fake impl registered "
                f"at {self.kernel[1]}."
            )
        entry = dispatcher.find(self.qualname)
        kernels = entry.kernels if entry is not None else {}
        if DispatchKey.Meta in kernels:
            raise RuntimeError(
                f"register_fake(...): the operator {self.qualname} already has a DispatchKey::Meta "
                "implementation via a pre-existing torch.library or TORCH_LIBRARY registration. Please "
                "either remove that registration or don't call register_fake."
            )
        if DispatchKey.CompositeImplicitAutograd in kernels:
            raise RuntimeError(
                f"register_fake(...): the operator {self.qualname} already has an implementation for "
                "this device type via a pre-existing registration to "
                "DispatchKey::CompositeImplicitAutograd.CompositeImplicitAutograd operators do not need a "
                "fake impl; instead, the operator will decompose into its constituents and those can "
                "have fake impls defined on them."
            )


_holders: dict[str, FakeImplHolder] = {}


def holder_for(qualname: str) -> FakeImplHolder:
    holder = _holders.get(qualname)
    if holder is None:
        holder = _holders[qualname] = FakeImplHolder(qualname)
    return holder


def _meta_kernel(qualname: str, holder: FakeImplHolder) -> Callable:
    fn, _ = holder.kernel

    @functools.wraps(fn)
    def meta_kernel(*args: Any, **kwargs: Any) -> Any:
        active, source = holder.kernel

        def error_on_ctx() -> None:
            raise RuntimeError(
                f"{qualname} ({source}): You're trying to run this operator with meta Tensors (as "
                "opposed to FakeTensors), but this operator may return an output Tensor with "
                "data-dependent shape. Meta Tensors don't support operators with outputs that have "
                "data-dependent shapes but FakeTensors do. If your operator does not return an output "
                "with data-dependent shape, make sure the FakeTensor and/or meta kernel does not call "
                "torch.library.get_ctx(). Otherwise, please use FakeTensors."
            )

        with set_ctx_getter(error_on_ctx):
            return active(*args, **kwargs)

    return meta_kernel
