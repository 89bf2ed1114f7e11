"""torchpy.typename: the type name torch puts into its error messages."""

from __future__ import annotations

from typing import Any

from ._tensor.tensor import Tensor


def typename(obj: Any) -> str:
    """'torch.FloatTensor' for a tensor, 'int' for a builtin, else 'module.QualName'."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    return f"{module}.{qualname}"
