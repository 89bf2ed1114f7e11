"""torchpy.nn.functional: the functional forms of neural-network layers.

The functions come from the op table (entries with `python_module: nn`), as
torch.nn.functional's come from torch._C._nn.
"""

from __future__ import annotations

from .._aten import public_functions

_nn = public_functions("nn")

linear = _nn["linear"]

# Python-level in torch too: an implicit dim (with its deprecation warning), then Tensor.softmax.
from .._aten.python_reductions import functional_log_softmax as log_softmax  # noqa: E402
from .._aten.python_reductions import functional_softmax as softmax  # noqa: E402

__all__ = ["linear", "log_softmax", "softmax"]
