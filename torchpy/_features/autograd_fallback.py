"""The Autograd keys' backend fallback: run the operator below the autograd layer.

Every CPU tensor carries AutogradCPU, as in PyTorch, so an operator without an
autograd kernel still passes through this key. PyTorch's fallback
(VariableFallbackKernel) redispatches below autograd; so does this one. It is
the place where the autograd layer (graph recording) will plug in.
"""

from __future__ import annotations

from typing import Any

from .._dispatch import keys as K
from .._dispatch.dispatcher import RAW, Kernel, caller_location, dispatcher
from .._dispatch.keys import DispatchKey

BELOW_AUTOGRAD = K.full_after(DispatchKey.AutogradOther)


def autograd_fallback(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    return op._redispatch_raw(ks & BELOW_AUTOGRAD, args, kwargs)


# The autograd keys PyTorch 2.13 registers its fallback at (not HIP, IPU, VE,
# PrivateUse2/3 or NestedTensor: those stay free for users' fallbacks).
AUTOGRAD_FALLBACK_KEYS = tuple(DispatchKey[f"Autograd{b}"] for b in (
    "Other", "CPU", "CUDA", "XLA", "MPS", "XPU", "HPU", "Lazy", "MTIA", "MAIA", "PrivateUse1", "Meta",
))

_kernel = Kernel(autograd_fallback, RAW, caller_location())
_handles = [dispatcher.register_fallback(key, _kernel) for key in AUTOGRAD_FALLBACK_KEYS]
