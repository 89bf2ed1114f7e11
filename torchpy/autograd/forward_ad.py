"""torchpy.autograd.forward_ad: dual tensors for forward-mode AD (torch.autograd.forward_ad)."""

from __future__ import annotations

from typing import Any, NamedTuple

from .._tensor.tensor import Tensor
from . import forward_grad
from . import forward_kernel as _forward_kernel  # noqa: F401  (installs the kernel)
from .grad_mode import _DecoratorContextManager

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]

_current_level = -1


def enter_dual_level() -> int:
    """Enter a new forward grad level (only one may exist at a time)."""
    global _current_level
    new_level = forward_grad.enter_level()
    if new_level != _current_level + 1:
        raise RuntimeError("Entering a new forward AD level but the current level is not valid. "
                           "Make sure you did not modify it directly.")
    _current_level = new_level
    return new_level


def exit_dual_level(*, level: int | None = None) -> None:
    """Exit the latest forward grad level, deleting every tangent of that level."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. "
                           "This is not supported.")
    forward_grad.exit_level(level)
    _current_level = level - 1


def _check_level(level: int, what: str) -> None:
    if level != forward_grad.state.level:
        raise RuntimeError(f"Invalid level given to {what}")


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of `tensor` carrying `tangent` (as is if it has tensor's layout, else a copy)."""
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    _check_level(level, "_make_dual")
    if forward_grad.get_tangent(tensor, level) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward gradient at the "
                           f"same level {level} is not supported.")
    if tangent._shape != tensor._shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, this "
            f"is not supported. Tensor is of size {list(tensor._shape)} while the given forward gradient is of "
            f"size {list(tangent._shape)}.")
    with forward_grad.suspended():
        dual = tensor.view(tuple(tensor._shape))  # a view, differentiable for reverse mode
        forward_grad.set_tangent(dual, tangent, level)
    return dual


class UnpackedDualTensor(NamedTuple):
    """unpack_dual's result: the primal (a view of the dual) and its tangent (or None)."""

    primal: Tensor
    tangent: Tensor | None


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent): primal is a view of `tensor` without its tangent; tangent is as stored."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    meta = tensor._autograd_meta
    if meta is not None and meta.fw_grads:  # only a tensor with tangents checks the level
        _check_level(level, "_fw_primal")
    tangent = forward_grad.get_tangent(tensor, level)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    with forward_grad.suspended():
        primal = tensor.view(tuple(tensor._shape))
    forward_grad.mark_primal(primal)
    return UnpackedDualTensor(primal, tangent)


class dual_level(_DecoratorContextManager):
    """Context manager (or decorator) for forward AD: enters a level, exits it on the way out."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: Any) -> None:
        exit_dual_level()

    def clone(self) -> "dual_level":
        return dual_level()


def _is_fwd_grad_enabled() -> bool:
    return forward_grad.state.enabled


class _set_fwd_grad_enabled(_DecoratorContextManager):
    """Turn forward gradient computation on or off (at construction, restored on exit)."""

    def __init__(self, mode: bool) -> None:
        self.prev = forward_grad.state.enabled
        self.mode = mode
        forward_grad.state.enabled = bool(mode)
        forward_grad.state.refresh()

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        forward_grad.state.enabled = self.prev
        forward_grad.state.refresh()

    def clone(self) -> "_set_fwd_grad_enabled":
        return _set_fwd_grad_enabled(self.mode)
