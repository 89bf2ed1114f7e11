"""aten::constant_pad_nd: pads (or, with negative amounts, crops) the last len(pad)/2 dims.

`pad` runs from the last dim backwards, (left, right) per dim, as F.pad's does. One
CompositeExplicitAutograd kernel, as torch's, serves CPU and meta tensors; `padded_shape` holds
PyTorch's checks and messages.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..._tensor.tensor import Tensor, from_array, meta_tensor
from .reduction_util import register_kernel


def padded_shape(shape: Sequence[int], pad: Sequence[int]) -> tuple[int, ...]:
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) > 2 * len(shape):
        # PyTorch's message has no spaces before "while" and "dimensions"
        raise RuntimeError("Length of pad should be no more than twice the number of dimensions of the input. Pad "
                           f"length is {len(pad)}while the input has {len(shape)}dimensions.")
    out = list(shape)
    for i in range(len(pad) // 2):
        dim = len(shape) - 1 - i
        size = shape[dim] + pad[2 * i] + pad[2 * i + 1]
        if shape[dim] + min(pad[2 * i], 0) + min(pad[2 * i + 1], 0) < 0 or size < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        out[dim] = size
    return tuple(out)


def constant_pad_nd(self: Tensor, pad: Sequence[int], value: complex | float | bool = 0) -> Tensor:
    pad = [int(p) for p in pad]
    shape = padded_shape(self._shape, pad)
    if self.is_meta:  # one kernel serves CPU and Meta, as torch's CompositeExplicitAutograd one does
        return meta_tensor(shape, self._dtype)
    out = np.full(shape, np.array(value).astype(self._dtype._numpy), self._dtype._numpy)
    source, target = [slice(None)] * len(shape), [slice(None)] * len(shape)
    for i in range(len(pad) // 2):
        dim = len(shape) - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        source[dim] = slice(max(-left, 0), self._shape[dim] - max(-right, 0))
        target[dim] = slice(max(left, 0), shape[dim] - max(right, 0))
    if 0 not in shape:
        out[tuple(target)] = self._data[tuple(source)]
    return from_array(out, self._dtype)


register_kernel("constant_pad_nd", constant_pad_nd)


# --- reflection / replication padding: an index map per padded dim -----------------------------


def _source_index(mode: str, size: int, left: int, right: int) -> np.ndarray:
    """For each output position along one dim, the input position it copies (negative pads crop)."""
    i = np.arange(-left, size + right)
    if mode == "reflect":
        i = np.abs(i)
        return np.where(i >= size, 2 * (size - 1) - i, i)
    return np.clip(i, 0, size - 1)


def _check_pad(mode: str, self_shape: Sequence[int], padding: Sequence[int], spatial: int) -> tuple[int, ...]:
    """PyTorch's checks; the output's sizes."""
    ndim = len(self_shape)
    if ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"Expected {spatial + 1}D or {spatial + 2}D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: [{', '.join(map(str, self_shape))}]")
    out = list(self_shape)
    for k in range(spatial):
        dim = ndim - 1 - k
        left, right = padding[2 * k], padding[2 * k + 1]
        if mode == "reflect" and (left >= self_shape[dim] or right >= self_shape[dim]):
            raise RuntimeError(f"Argument #{4 + 2 * k}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({left}, {right}) at dimension {dim} of input "
                               f"[{', '.join(map(str, self_shape))}]")
        out[dim] = self_shape[dim] + left + right
    if any(s < 0 for s in out):
        bad = next(s for s in out if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: [{', '.join(map(str, out))}]")
    return tuple(out)


def _pad_kernel(mode: str, spatial: int):  # type: ignore[no-untyped-def]
    def kernel(self: Tensor, padding: Sequence[int]) -> Tensor:
        padding = [int(p) for p in padding]
        shape = _check_pad(mode, self._shape, padding, spatial)
        if self.is_meta:
            return meta_tensor(shape, self._dtype)
        data = self._data
        for k in range(spatial):
            axis = data.ndim - 1 - k
            data = np.take(data, _source_index(mode, self._shape[axis], padding[2 * k], padding[2 * k + 1]), axis)
        return from_array(np.ascontiguousarray(data), self._dtype)

    def backward(grad_output: Tensor, self: Tensor, padding: Sequence[int]) -> Tensor:
        padding = [int(p) for p in padding]
        if grad_output.is_meta:
            return meta_tensor(self._shape, grad_output._dtype)
        grad = grad_output._data
        for k in reversed(range(spatial)):  # undo the forward's takes, last one first
            axis = grad.ndim - 1 - k
            index = _source_index(mode, self._shape[axis], padding[2 * k], padding[2 * k + 1])
            moved = np.moveaxis(grad, axis, 0)
            summed = np.zeros((self._shape[axis],) + moved.shape[1:], grad.dtype)
            np.add.at(summed, index, moved)
            grad = np.moveaxis(summed, 0, axis)
        return from_array(np.ascontiguousarray(grad), grad_output._dtype)

    return kernel, backward


for _mode, _name in (("reflect", "reflection"), ("replicate", "replication")):
    for _spatial in (1, 2, 3):
        _forward, _backward = _pad_kernel(_mode, _spatial)
        register_kernel(f"{_name}_pad{_spatial}d", _forward)
        register_kernel(f"{_name}_pad{_spatial}d_backward", _backward)
