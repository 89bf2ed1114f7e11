"""The CompositeImplicitAutograd convolution ops, decomposed as PyTorch's are, so a dispatch mode
sees PyTorch's aten calls:

    conv1d/2d/3d, conv_transpose1d/2d/3d   an unbatched input: unsqueeze(0), convolution, squeeze.dim(0)
    conv*d.padding, _convolution_mode      "valid": no padding; "same": symmetric padding where the
                                           kernel allows it, else constant_pad_nd first
"""

from __future__ import annotations

import warnings
from typing import Callable, Sequence

from ..._dispatch.ops import ops
from ..._tensor.tensor import Tensor
from ..registry import register

_aten = ops.aten


def _batchify(name: str, input: Tensor, spatial: int) -> bool:
    """Whether `input` is batched; PyTorch's error for the wrong number of dims."""
    ndim = len(input._shape)
    if ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {name}, but got "
                           f"input of size: [{', '.join(map(str, input._shape))}]")
    return ndim == spatial + 2


def _batched(name: str, spatial: int, input: Tensor, run: Callable[[Tensor], Tensor]) -> Tensor:
    if _batchify(name, input, spatial):
        return run(input)
    return _aten.squeeze.dim(run(_aten.unsqueeze.default(input, 0)), 0)


def _conv(spatial: int) -> Callable:
    name = f"conv{spatial}d"

    ones, zeros = (1,) * spatial, (0,) * spatial  # the schema's defaults, [1, 1] / [0, 0] for 2-d

    def conv(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Sequence[int] = ones,
             padding: Sequence[int] = zeros, dilation: Sequence[int] = ones, groups: int = 1) -> Tensor:
        return _batched(name, spatial, input, lambda x: _aten.convolution.default(
            x, weight, bias, list(stride), list(padding), list(dilation), False, [0] * spatial, groups))

    def conv_padding(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Sequence[int] = ones,
                     padding: str = "valid", dilation: Sequence[int] = ones, groups: int = 1) -> Tensor:
        return _batched(name, spatial, input, lambda x: _convolution_mode(
            x, weight, bias, list(stride), padding, list(dilation), groups))

    conv.__name__, conv_padding.__name__ = name, f"{name}_padding"
    return conv, conv_padding


def _expand(values: Sequence[int], spatial: int) -> list[int]:
    return list(values) * spatial if len(values) == 1 else list(values)


def _convolution_mode(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Sequence[int], padding: str,
                      dilation: Sequence[int], groups: int) -> Tensor:
    spatial = len(weight._shape) - 2
    if padding == "valid":  # PyTorch passes one 0 for every dim here
        return _aten.convolution.default(input, weight, bias, list(stride), [0], list(dilation), False, [0], groups)
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dilation_all = _expand(dilation, spatial)
    left, right = [], []
    for i in range(spatial):
        total = dilation_all[i] * (weight._shape[i + 2] - 1)
        left.append(total // 2)
        right.append(total - total // 2)
    if left == right:
        return _aten.convolution.default(input, weight, bias, list(stride), left, list(dilation), False,
                                         [0] * spatial, groups)
    warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy of "
                  "the input be created", UserWarning, stacklevel=2)
    pad_nd = [0] * (2 * spatial)
    for i in range(spatial):
        delta = right[i] - left[i]
        index = 2 * (spatial - 1 - i)  # the pad list runs from the last dim to the first
        if delta > 0:
            pad_nd[index + 1] = delta
        else:
            pad_nd[index] = delta
            left[i] = right[i]
    padded = _aten.constant_pad_nd.default(input, pad_nd)
    return _aten.convolution.default(padded, weight, bias, list(stride), left, list(dilation), False,
                                     [0] * spatial, groups)


def _conv_transpose(spatial: int) -> Callable:
    name = f"conv_transpose{spatial}d"

    ones, zeros = (1,) * spatial, (0,) * spatial

    def conv_transpose(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Sequence[int] = ones,
                       padding: Sequence[int] = zeros, output_padding: Sequence[int] = zeros, groups: int = 1,
                       dilation: Sequence[int] = ones) -> Tensor:
        return _batched(name, spatial, input, lambda x: _aten.convolution.default(
            x, weight, bias, list(stride), list(padding), list(dilation), True, list(output_padding), groups))

    conv_transpose.__name__ = name
    return conv_transpose


for _spatial in (1, 2, 3):
    _c, _cp = _conv(_spatial)
    register(f"conv{_spatial}d", _c)
    register(f"conv{_spatial}d_padding", _cp)
    register(f"conv_transpose{_spatial}d", _conv_transpose(_spatial))
register("_convolution_mode", _convolution_mode)


# --- aten::pad and _pad_circular ------------------------------------------------------------------

_PAD_HELP = ("\nSupported combinations for non-constant padding:\n"
             "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
             "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
             "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def pad(self: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    """PyTorch's _pad_enum: constant_pad_nd, or the mode's op for 1 to 3 padded dims."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    pad = list(pad)
    ndim = len(self._shape)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {ndim}")
    if mode == "constant":
        return _aten.constant_pad_nd.default(self, pad, 0.0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    spatial = len(pad) // 2
    if spatial in (1, 2, 3) and ndim in (spatial + 1, spatial + 2):
        if mode == "circular":
            return _aten._pad_circular.default(self, pad)
        name = "reflection" if mode == "reflect" else "replication"
        return getattr(_aten, f"{name}_pad{spatial}d").default(self, pad)
    raise NotImplementedError(f"Padding size {len(pad)} is not supported for {ndim}D input tensor.{_PAD_HELP}")


def _pad_circular(self: Tensor, pad: Sequence[int]) -> Tensor:
    """PyTorch's decomposition: new_empty, the input copied into the middle, then each padded dim's
    left and right bands copied from the opposite side (corners written more than once)."""
    in_shape = self._shape
    padded = len(pad) // 2
    leading = len(in_shape) - padded
    if leading not in (1, 2):
        raise RuntimeError("Invalid padding size, expected 1 or 2 non-padded dimensions, which would be equivalent "
                           f"to padding of length {(len(in_shape) - 1) * 2} or {(len(in_shape) - 2) * 2} "
                           f"respectively but got {len(pad)}")
    out_shape = list(in_shape[:leading])
    for i in range(padded):
        left, right = pad[2 * (padded - i - 1)], pad[2 * (padded - i - 1) + 1]
        size = in_shape[leading + i]
        out_shape.append(size + left + right)
        if left > size or right > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[-1] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    out = _aten.new_empty.default(self, out_shape, dtype=self.dtype, layout=self.layout, device=self.device)
    out_slice, in_slice = out, self
    for i in range(padded):
        dim = padded - i + leading - 1
        left, right = pad[2 * i], pad[2 * i + 1]
        out_slice = _aten.slice.Tensor(out_slice, dim, max(left, 0), out_shape[dim] - max(right, 0))
        in_slice = _aten.slice.Tensor(in_slice, dim, max(-left, 0), in_shape[dim] - max(-right, 0))
    _aten.copy_.default(out_slice, in_slice)
    for i in range(padded):
        dim = padded - i + leading - 1
        left, right = pad[2 * i], pad[2 * i + 1]
        if left > 0:
            out_slice = _aten.slice.Tensor(out, dim, 0, left)
            in_slice = _aten.slice.Tensor(out, dim, out_shape[dim] - left - max(right, 0),
                                          out_shape[dim] - max(right, 0))
            _aten.copy_.default(out_slice, in_slice)
        if right > 0:
            out_slice = _aten.slice.Tensor(out, dim, out_shape[dim] - right, out_shape[dim])
            in_slice = _aten.slice.Tensor(out, dim, max(left, 0), max(left, 0) + right)
            _aten.copy_.default(out_slice, in_slice)
    return out


register("pad", pad)
register("_pad_circular", _pad_circular)
