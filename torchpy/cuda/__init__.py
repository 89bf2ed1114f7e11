"""torch.cuda as torch's CPU-only build has it: no device, seeding accepted and ignored, and
torch's "Torch not compiled with CUDA enabled" wherever a device would be needed.

torchpy has no CUDA backend; a CUDA tensor is refused where devices are resolved
(torchpy/_tensor/device.py), with the same message.
"""

from __future__ import annotations

from typing import Any

_NOT_COMPILED = "Torch not compiled with CUDA enabled"
_initialized = False  # read by torch.utils.checkpoint-style code to decide whether to stash states


def _no_cuda(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError(_NOT_COMPILED)


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Seed the CUDA generators: none exist, so nothing to do (torch defers it the same way)."""


def manual_seed_all(seed: int) -> None:
    """Seed every CUDA generator: none exist."""


def seed() -> None:
    """Seed the CUDA generator from entropy: none exists."""


def seed_all() -> None:
    """Seed every CUDA generator from entropy: none exist."""


def empty_cache() -> None:
    """Free the caching allocator's unused blocks: there is no CUDA allocator, so nothing to free."""


def memory_allocated(device: Any = None) -> int:
    return 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


# Everything that needs a device raises as torch's CPU build does.
synchronize = current_device = set_device = init = initial_seed = _no_cuda
get_rng_state = get_rng_state_all = set_rng_state = set_rng_state_all = _no_cuda
get_device_name = get_device_capability = get_device_properties = _no_cuda
