"""torch.onnx: importable, since scripts import it at the top; exporting is not provided."""

from __future__ import annotations

from typing import Any


def export(*args: Any, **kwargs: Any) -> None:
    """Refuse: torchpy traces no graphs, so it has nothing to write as ONNX."""
    raise NotImplementedError(
        "torchpy does not export ONNX: torchpy.onnx.export is not implemented. Export the model "
        "with real PyTorch (torch.onnx.export) instead.")


def is_in_onnx_export() -> bool:
    return False
