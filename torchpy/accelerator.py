"""torch.accelerator: the current accelerator, as torch reports it when there is none."""

from __future__ import annotations

from typing import Any

_NONE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def current_accelerator(check_available: bool = False) -> None:
    """The accelerator's device type: None, since torchpy runs on the CPU only."""
    return None


def _none_available(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError(_NONE)


current_device_index = current_device_idx = set_device_index = set_device_idx = _none_available
synchronize = current_stream = set_stream = _none_available
