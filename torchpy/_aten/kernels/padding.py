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
