"""Forward-mode AD state: the dual level, and tangents stored on tensors' autograd meta.

PyTorch keeps one global (not thread-local) stack of forward AD levels and allows
only one level at a time; a tangent lives in the tensor's autograd meta, keyed
by level, and exiting the level deletes every tangent of that level. The
Autograd kernel reads `state.active` once per op call: that single attribute read
is all forward AD costs when no level is active.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

from .._aten.public import functions  # torchpy.<name>, made below the package root
from .._tensor.tensor import Tensor
from .graph import autograd_meta


class _ForwardState:
    __slots__ = ("level", "enabled", "active", "kernel", "tracked")

    def __init__(self) -> None:
        self.level = -1          # the live dual level, or -1
        self.enabled = True      # torch._C._set_fwd_grad_enabled
        self.active = False      # level >= 0 and enabled: what the Autograd kernel tests
        self.kernel: Callable | None = None  # forward_kernel.forward_kernel, set at its import
        self.tracked: weakref.WeakSet = weakref.WeakSet()  # tensors holding a tangent

    def refresh(self) -> None:
        self.active = self.level >= 0 and self.enabled


state = _ForwardState()


class suspended:
    """Forward AD off while formulas and primal ops run: their inputs are then primals.

    Only one level exists, so turning tangent propagation off is the same as
    computing on the primals (PyTorch's `self_p`), and reverse-mode recording stays on."""

    __slots__ = ("previous",)

    def __enter__(self) -> None:
        self.previous = state.active
        state.active = False

    def __exit__(self, *exc: object) -> None:
        state.active = self.previous


def enter_level() -> int:
    if state.level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    state.level = 0
    state.refresh()
    return 0


def exit_level(level: int) -> None:
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != state.level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                           "This is not supported.")
    for t in list(state.tracked):
        meta = t._autograd_meta
        if meta is not None and meta.fw_grads is not None:
            meta.fw_grads.pop(level, None)
            if not meta.fw_grads:
                meta.fw_grads = None
    state.tracked = weakref.WeakSet()
    state.level = -1
    state.refresh()


def get_tangent(t: Any, level: int | None = None) -> Tensor | None:
    """t's tangent at `level` (default: the live one), or None.

    A view made before its base got a tangent gets, as in PyTorch, the same view of the
    base's tangent (made on first use). unpack_dual's primal is marked (an empty dict)
    so that it never does."""
    meta = getattr(t, "_autograd_meta", None)
    level = state.level if level is None else level
    if meta is not None and meta.fw_grads is not None:
        return meta.fw_grads.get(level)
    base = getattr(t, "_base", None)
    if base is None or base._autograd_meta is None or not base._autograd_meta.fw_grads:
        return None
    base_tangent = base._autograd_meta.fw_grads.get(level)
    if base_tangent is None or base_tangent._dtype is not t._dtype:
        return None
    return _view_of_base_tangent(t, base, base_tangent, level)


def _view_of_base_tangent(t: Tensor, base: Tensor, base_tangent: Tensor, level: int) -> Tensor:
    previous = state.active
    state.active = False
    try:
        offset = t.storage_offset() - base.storage_offset() + base_tangent.storage_offset()
        tangent = base_tangent.as_strided(tuple(t._shape), tuple(t.stride()), offset)
    finally:
        state.active = previous
    set_tangent(t, tangent, level)
    return tangent


def mark_primal(t: Tensor) -> None:
    """t has no tangent and does not take one from its base (unpack_dual's primal)."""
    autograd_meta(t).fw_grads = {}
    state.tracked.add(t)


def copy_tangents(source: Tensor, target: Tensor) -> None:
    """Give `target` (an alias of `source`) source's tangents, at every live level."""
    meta = source._autograd_meta
    if meta is not None and meta.fw_grads:
        for level, tangent in meta.fw_grads.items():
            set_tangent(target, tangent, level)


def fw_grad_method(self: Tensor, level: int) -> Tensor | None:
    """Tensor._fw_grad(level): the tangent at `level`, or None (torch returns an undefined tensor)."""
    return get_tangent(self, level)


def _same_layout(a: Tensor, b: Tensor) -> bool:
    return a._shape == b._shape and a.stride() == b.stride()


def set_tangent(t: Tensor, tangent: Tensor | None, level: int | None = None) -> None:
    """Attach `tangent` to `t` as is when it has t's layout, else a copy in t's layout."""
    level = state.level if level is None else level
    meta = autograd_meta(t)
    if tangent is None:
        if meta.fw_grads:
            meta.fw_grads.pop(level, None)
        return
    if not _same_layout(tangent, t):
        tangent = _empty_like_layout(t, tangent._dtype).copy_(tangent)
    if meta.fw_grads is None:
        meta.fw_grads = {}
    meta.fw_grads[level] = tangent
    state.tracked.add(t)


def _empty_like_layout(t: Tensor, dtype: Any = None) -> Tensor:
    return functions.empty_strided(tuple(t._shape), tuple(t.stride()), dtype=dtype or t._dtype)


def _zeros_like_layout(t: Tensor) -> Tensor:
    return _empty_like_layout(t).zero_()


def tangent_for_update(t: Tensor) -> Tensor:
    """t's tangent, made (zero) if missing, for an in-place op that writes into t.

    A view without a tangent gets a view of its base's tangent (made as zeros when the
    base has none), so writing through the view updates the base's tangent, as in PyTorch."""
    existing = get_tangent(t)
    if existing is not None:
        return existing
    base = t._base
    if base is None:
        tangent = _zeros_like_layout(t)
        set_tangent(t, tangent)
        return tangent
    base_tangent = get_tangent(base)
    if base_tangent is None:
        base_tangent = _zeros_like_layout(base)
        set_tangent(base, base_tangent)
    return _view_of_base_tangent(t, base, base_tangent, state.level)
