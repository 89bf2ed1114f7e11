"""Module.to's argument forms, parsed as torch's `_nn._parse_to` does, with its errors."""

from __future__ import annotations

from typing import Any

from ..._tensor.device import device as device_cls
from ..._tensor.dtype import dtype as dtype_cls
from ..._tensor.tensor import Tensor


_TO_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, "
    "*, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"
)


def _to_error(args: tuple, kwargs: dict) -> TypeError:
    got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in sorted(kwargs.items())]
    # torch's parser prints a trailing ", " when only keywords were given
    described = ", ".join(got) + (", " if kwargs and not args else "")
    return TypeError(f"to() received an invalid combination of arguments - got ({described}), "
                     f"but expected one of:\n{_TO_SIGNATURES}")


def parse_to(args: tuple, kwargs: dict) -> tuple[Any, Any, bool]:
    """Module.to's argument forms: (device, dtype, non_blocking), (dtype, ...), (tensor, ...)."""
    if len(args) > 4:
        raise TypeError(f"to() takes from 0 to 4 positional arguments but {len(args)} were given")
    known = {"device", "dtype", "non_blocking", "copy", "memory_format"}
    if any(k not in known for k in kwargs):
        raise _to_error(args, kwargs)
    device = kwargs.get("device")
    dtype = kwargs.get("dtype")
    non_blocking = kwargs.get("non_blocking", False)
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        other = rest.pop(0)
        device, dtype = other.device, other.dtype
    elif rest and isinstance(rest[0], dtype_cls):
        dtype = rest.pop(0)
    elif rest and isinstance(rest[0], (str, device_cls)):
        device = rest.pop(0)
        if rest and isinstance(rest[0], dtype_cls):
            dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        rest.pop(0)  # copy: a module's tensors are converted either way
    if rest:
        raise _to_error(args, kwargs)
    if device is not None:
        device = device_cls(device)
    return device, dtype, non_blocking
