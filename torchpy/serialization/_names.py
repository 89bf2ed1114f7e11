"""torch's pickled names and the torchpy objects they stand for, both ways.

A checkpoint must name torch's globals (`torch._utils._rebuild_tensor_v2`, `torch.FloatStorage`,
`torch.float32`, ...) so that real torch can read it; torchpy's unpicklers map those names to
torchpy's objects. TORCH_GLOBALS is also the weights-only unpickler's default allowlist (torch's
`_get_allowed_globals`, less what torchpy has no counterpart for).
"""

from __future__ import annotations

import codecs
import collections
import importlib
from typing import Any

from .._tensor import dtype as _dt
from .._tensor.device import device
from .._tensor.tensor import Size, Tensor, UntypedStorage
from ..nn.parameter import Parameter
from . import _rebuild
from ._storage import STORAGE_TYPES


def _dtype_names() -> dict[str, Any]:
    return {str(d): d for d in _dt.all_dtypes}  # 'torch.float32' -> float32


TORCH_GLOBALS: dict[str, Any] = {
    "collections.OrderedDict": collections.OrderedDict,
    "collections.Counter": collections.Counter,
    "torch.nn.parameter.Parameter": Parameter,
    "torch.serialization._get_layout": _rebuild._get_layout,
    "torch.Size": Size,
    "torch.Tensor": Tensor,
    "torch.device": device,
    "_codecs.encode": codecs.encode,
    "builtins.bytearray": bytearray,
    "builtins.set": set,
    "builtins.complex": complex,
    "torch.storage.UntypedStorage": UntypedStorage,
    "torch._utils._rebuild_tensor_v2": _rebuild._rebuild_tensor_v2,
    "torch._utils._rebuild_tensor_v3": _rebuild._rebuild_tensor_v3,
    "torch._utils._rebuild_parameter": _rebuild._rebuild_parameter,
    "torch._utils._rebuild_parameter_with_state": _rebuild._rebuild_parameter_with_state,
    "torch._tensor._rebuild_from_type_v2": _rebuild._rebuild_from_type_v2,
    **{f"torch.{name}": storage_type for name, storage_type in STORAGE_TYPES.items()},
    **_dtype_names(),
}

# torchpy object -> (module, name) it is pickled as: the reverse of TORCH_GLOBALS, for the
# objects torchpy's pickler writes itself
TORCH_NAMES: dict[int, tuple[str, str]] = {
    id(value): tuple(key.rsplit(".", 1))  # type: ignore[misc]
    for key, value in TORCH_GLOBALS.items()
    if key.startswith("torch.")
}


def torch_name(obj: Any) -> tuple[str, str] | None:
    """(module, qualified name) under which torch knows a torchpy object, or None if it is not
    torchpy's: the table first, then torchpy's module path read as torch's (torchpy.nn.X ->
    torch.nn.X)."""
    known = TORCH_NAMES.get(id(obj))
    if known is not None:
        return known
    module = getattr(obj, "__module__", None) or ""
    if module == "torchpy" or module.startswith("torchpy."):
        return "torch" + module[len("torchpy"):], obj.__qualname__
    return None


def find_torchpy_global(module: str, name: str) -> Any:
    """The torchpy object for a global torch pickled (any torch name, for weights_only=False)."""
    known = TORCH_GLOBALS.get(f"{module}.{name}")
    if known is not None:
        return known
    if module == "torch" or module.startswith("torch."):
        target = importlib.import_module("torchpy" + module[len("torch"):])
        for part in name.split("."):
            target = getattr(target, part)
        return target
    return None
