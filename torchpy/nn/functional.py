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



def relu(input, inplace: bool = False):  # type: ignore[no-untyped-def]
    """max(input, 0); in place with inplace=True (Python-level in torch too, over aten relu / relu_)."""
    from .._tensor.torch_function import handle_torch_function, has_torch_function_unary

    if has_torch_function_unary(input):
        return handle_torch_function(relu, (input,), input, inplace=inplace)
    return input.relu_() if inplace else input.relu()


def tanh(input):  # type: ignore[no-untyped-def]
    return input.tanh()


def sigmoid(input):  # type: ignore[no-untyped-def]
    return input.sigmoid()


__all__ = ["linear", "log_softmax", "relu", "sigmoid", "softmax", "tanh"]
