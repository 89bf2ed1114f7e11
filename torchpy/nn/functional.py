"""torchpy.nn.functional: the functional forms of neural-network layers.

The functions come from the op table (entries with `python_module: nn`), as
torch.nn.functional's come from torch._C._nn.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .._aten import public_functions as _public_functions
from .._aten.public import functions  # torchpy.<name>, made below the package root
from .._tensor.tensor import Tensor
from .._tensor.torch_function import handle_torch_function as _handle_torch_function
from .._tensor.torch_function import has_torch_function_unary as _has_torch_function_unary

_nn = _public_functions("nn")

linear = _nn["linear"]

# torch.nn.functional's convolutions are torch.<name> itself (both overloads: padding as ints or a string)
conv1d = functions.conv1d
conv2d = functions.conv2d
conv3d = functions.conv3d
conv_transpose1d = functions.conv_transpose1d
conv_transpose2d = functions.conv_transpose2d
conv_transpose3d = functions.conv_transpose3d


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    """Pads the last len(pad) // 2 dims, last dim first (Python-level in torch too, over aten::pad)."""
    if _has_torch_function_unary(input):
        return _handle_torch_function(globals()["pad"], (input,), input, pad, mode=mode, value=value)
    return _nn["pad"](input, pad, mode, value)

# Python-level in torch too: an implicit dim (with its deprecation warning), then Tensor.softmax.
from .._aten.python_reductions import functional_log_softmax as log_softmax  # noqa: E402
from .._aten.python_reductions import functional_softmax as softmax  # noqa: E402



def relu(input, inplace: bool = False):  # type: ignore[no-untyped-def]
    """max(input, 0); in place with inplace=True (Python-level in torch too, over aten relu / relu_)."""
    if _has_torch_function_unary(input):
        return _handle_torch_function(relu, (input,), input, inplace=inplace)
    return input.relu_() if inplace else input.relu()


def tanh(input):  # type: ignore[no-untyped-def]
    return input.tanh()


def sigmoid(input):  # type: ignore[no-untyped-def]
    return input.sigmoid()


# --- adaptive pooling ----------------------------------------------------------------------------


def _list_with_default(out_size: int | Sequence[int | None], defaults: Sequence[int]) -> Any:
    """output_size with None entries taken from the input's trailing sizes (an int stays as is)."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def _boolean_dispatch(arg_name: str, arg_index: int, default: bool, if_true: Callable, if_false: Callable,
                      func_name: str) -> Callable:
    """One public function choosing between two on a boolean argument (torch's boolean_dispatch):
    F.adaptive_max_pool2d returns (values, indices) only with return_indices=True."""

    def fn(*args: Any, **kwargs: Any) -> Any:
        flag = kwargs[arg_name] if arg_name in kwargs else args[arg_index] if arg_index < len(args) else default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    fn.__doc__ = if_true.__doc__
    fn.__name__ = fn.__qualname__ = func_name
    return fn


adaptive_avg_pool1d = functions.adaptive_avg_pool1d  # the aten op itself, as in torch


def adaptive_avg_pool2d(input: Tensor, output_size: int | Sequence[int | None]) -> Tensor:
    """2-D adaptive average pooling over the last two dims; None in output_size keeps that size."""
    if _has_torch_function_unary(input):
        return _handle_torch_function(adaptive_avg_pool2d, (input,), input, output_size)
    return _nn["adaptive_avg_pool2d"](input, _list_with_default(output_size, input.size()))


def adaptive_avg_pool3d(input: Tensor, output_size: int | Sequence[int | None]) -> Tensor:
    """3-D adaptive average pooling over the last three dims; None in output_size keeps that size."""
    if _has_torch_function_unary(input):
        return _handle_torch_function(adaptive_avg_pool3d, (input,), input, output_size)
    return _nn["adaptive_avg_pool3d"](input, _list_with_default(output_size, input.size()))


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: int | Sequence[int],
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """adaptive_max_pool1d(input, output_size, return_indices=False): values and int64 indices."""
    if _has_torch_function_unary(input):
        return _handle_torch_function(adaptive_max_pool1d_with_indices, (input,), input, output_size,
                                      return_indices=return_indices)
    return functions.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: int | Sequence[int | None],
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """adaptive_max_pool2d(input, output_size, return_indices=False): values and int64 indices."""
    if _has_torch_function_unary(input):
        return _handle_torch_function(adaptive_max_pool2d_with_indices, (input,), input, output_size,
                                      return_indices=return_indices)
    return _nn["adaptive_max_pool2d"](input, _list_with_default(output_size, input.size()))


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: int | Sequence[int | None],
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """adaptive_max_pool3d(input, output_size, return_indices=False): values and int64 indices."""
    if _has_torch_function_unary(input):
        return _handle_torch_function(adaptive_max_pool3d_with_indices, (input,), input, output_size,
                                      return_indices=return_indices)
    return _nn["adaptive_max_pool3d"](input, _list_with_default(output_size, input.size()))


# The values-only forms. As in torch, an override sees the public (dispatching) function here.
def _adaptive_max_pool1d(input: Tensor, output_size: int | Sequence[int], return_indices: bool = False) -> Tensor:
    if _has_torch_function_unary(input):
        return _handle_torch_function(adaptive_max_pool1d, (input,), input, output_size,
                                      return_indices=return_indices)
    return adaptive_max_pool1d_with_indices(input, output_size)[0]


def _adaptive_max_pool2d(input: Tensor, output_size: int | Sequence[int | None],
                         return_indices: bool = False) -> Tensor:
    if _has_torch_function_unary(input):
        return _handle_torch_function(adaptive_max_pool2d, (input,), input, output_size,
                                      return_indices=return_indices)
    return adaptive_max_pool2d_with_indices(input, output_size)[0]


def _adaptive_max_pool3d(input: Tensor, output_size: int | Sequence[int | None],
                         return_indices: bool = False) -> Tensor:
    if _has_torch_function_unary(input):
        return _handle_torch_function(adaptive_max_pool3d, (input,), input, output_size,
                                      return_indices=return_indices)
    return adaptive_max_pool3d_with_indices(input, output_size)[0]


adaptive_max_pool1d = _boolean_dispatch("return_indices", 2, False, adaptive_max_pool1d_with_indices,
                                        _adaptive_max_pool1d, "adaptive_max_pool1d")
adaptive_max_pool2d = _boolean_dispatch("return_indices", 2, False, adaptive_max_pool2d_with_indices,
                                        _adaptive_max_pool2d, "adaptive_max_pool2d")
adaptive_max_pool3d = _boolean_dispatch("return_indices", 2, False, adaptive_max_pool3d_with_indices,
                                        _adaptive_max_pool3d, "adaptive_max_pool3d")


__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "linear", "pad", "log_softmax", "relu", "sigmoid",
    "softmax", "tanh",
]
