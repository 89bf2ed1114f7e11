"""Convolution's meta rule: PyTorch's checks (with its messages) and the output's sizes.

`conv_params` expands and checks the int lists of aten::convolution against the weight's
number of spatial dims; `check_forward` is PyTorch's check_shape_forward; `output_shape`
the result's sizes (forward and transposed).
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from ..._tensor.tensor import Tensor, meta_tensor
from .adaptive_pool import suggests_channels_last
from .copy import channels_last_strides


class ConvParams(NamedTuple):
    stride: tuple[int, ...]
    padding: tuple[int, ...]
    dilation: tuple[int, ...]
    transposed: bool
    output_padding: tuple[int, ...]
    groups: int


def _sizes(shape: Sequence[int]) -> str:
    return f"[{', '.join(map(str, shape))}]"


def _expand(name: str, values: Sequence[int], spatial: int) -> tuple[int, ...]:
    """PyTorch's expand_param_if_needed: one value serves every spatial dim."""
    values = tuple(int(v) for v in values)
    if len(values) == 1:
        return values * spatial
    if len(values) != spatial:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {spatial} values to match "
                           f"the convolution dimensions, but got {name}={list(values)}")
    return values


def conv_params(weight_shape: Sequence[int], stride: Sequence[int], padding: Sequence[int],
                dilation: Sequence[int], transposed: bool, output_padding: Sequence[int], groups: int) -> ConvParams:
    spatial = len(weight_shape) - 2
    params = ConvParams(_expand("stride", stride, spatial), _expand("padding", padding, spatial),
                        _expand("dilation", dilation, spatial), bool(transposed),
                        _expand("output_padding", output_padding, spatial), int(groups))
    if params.groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    return params


def check_forward(input: Tensor, weight: Tensor, bias: Tensor | None, p: ConvParams) -> None:
    """PyTorch's check_shape_forward and its dtype checks."""
    in_shape, w_shape = input._shape, weight._shape
    if any(v < 0 for v in p.padding):
        raise RuntimeError("negative padding is not supported")
    if any(v < 0 for v in p.output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(v <= 0 for v in p.stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(v < 0 for v in p.dilation):
        raise RuntimeError("dilation should be greater than zero")
    if len(w_shape) != len(in_shape):
        raise RuntimeError(f"Expected {len(w_shape)}-dimensional input for {len(w_shape)}-dimensional weight "
                           f"{_sizes(w_shape)}, but got {len(in_shape)}-dimensional input of size {_sizes(in_shape)} "
                           "instead")
    g = p.groups
    if w_shape[0] < g:
        raise RuntimeError(f"Given groups={g}, expected weight to be at least {g} at dimension 0, but got weight of "
                           f"size {_sizes(w_shape)} instead")
    if w_shape[0] % g:
        raise RuntimeError(f"Given groups={g}, expected weight to be divisible by {g} at dimension 0, but got weight "
                           f"of size [{_sizes(w_shape)}] instead")
    if not p.transposed:
        if in_shape[1] != w_shape[1] * g:
            raise RuntimeError(f"Given groups={g}, weight of size {_sizes(w_shape)}, expected input{_sizes(in_shape)} "
                               f"to have {w_shape[1] * g} channels, but got {in_shape[1]} channels instead")
        if bias is not None and (len(bias._shape) != 1 or bias._shape[0] != w_shape[0]):
            raise RuntimeError(f"Given weight of size {_sizes(w_shape)}, expected bias to be 1-dimensional with "
                               f"{w_shape[0]} elements, but got bias of size {_sizes(bias._shape)} instead")
        padded = [s + 2 * pad for s, pad in zip(in_shape[2:], p.padding)]
        kernel = [d * (k - 1) + 1 for d, k in zip(p.dilation, w_shape[2:])]
        if any(a < b for a, b in zip(padded, kernel)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                               f"size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual "
                               "input size")
    else:
        if in_shape[1] != w_shape[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {_sizes(w_shape)}, expected input"
                               f"{_sizes(in_shape)} to have {w_shape[0]} channels, but got {in_shape[1]} channels "
                               "instead")
        if bias is not None and (len(bias._shape) != 1 or bias._shape[0] != w_shape[1] * g):
            raise RuntimeError(f"Given transposed=1, weight of size {_sizes(w_shape)}, expected bias to be "
                               f"1-dimensional with {w_shape[1] * g} elements, but got bias of size "
                               f"{_sizes(bias._shape)} instead")
        _check_output_padding(p)
    _check_backend(input, weight, bias, p)


# C++ type names, as PyTorch's "Input type (...) and bias type (...)" message prints them
_CPP_NAMES = {"Float": "float", "Double": "double", "Half": "c10::Half", "BFloat16": "c10::BFloat16",
              "Long": "long int", "Int": "int", "Short": "short int", "Char": "signed char", "Byte": "unsigned char",
              "Bool": "bool", "ComplexFloat": "c10::complex<float>", "ComplexDouble": "c10::complex<double>"}


def _check_backend(input: Tensor, weight: Tensor, bias: Tensor | None, p: ConvParams) -> None:
    """The checks of the kernel PyTorch picks: float32 runs on mkldnn, other dtypes on the slow kernels,
    and each words a zero dilation and a weight of another dtype its own way."""
    mkldnn = input._dtype._c10_name == "Float"
    if any(v == 0 for v in p.dilation):
        raise RuntimeError("non-positive dilation is not supported" if mkldnn
                           else f"dilation should be greater than zero, but got {list(p.dilation)}")
    if input._dtype != weight._dtype:
        if mkldnn:
            raise RuntimeError(f"Input type ({input.type()}) and weight type ({weight.type()}) should be the same or "
                               "input should be a MKLDNN tensor and weight is a dense tensor")
        raise RuntimeError(f"expected scalar type {input._dtype._c10_name} but found {weight._dtype._c10_name}")
    if bias is not None and bias._dtype != input._dtype:
        names = (_CPP_NAMES.get(t._dtype._c10_name, t._dtype._c10_name) for t in (input, bias))
        raise RuntimeError("Input type ({}) and bias type ({}) should be the same".format(*names))


def _check_output_padding(p: ConvParams) -> None:
    """The slow transposed kernels' check (1-d runs as 2-d with a height of 1, so says height 0)."""
    if all(op < s or op < d for op, s, d in zip(p.output_padding, p.stride, p.dilation)):
        return
    names = ("depth", "height", "width") if len(p.stride) == 3 else ("height", "width")
    pad = (0,) * (len(names) - len(p.stride))
    one = (1,) * len(pad)
    parts = [f"{what}_{n}: {v}" for what, values in (("output_padding", pad + p.output_padding),
                                                      ("stride", one + p.stride), ("dilation", one + p.dilation))
             for n, v in zip(names, values)]
    raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(parts))


def output_shape(input_shape: Sequence[int], weight_shape: Sequence[int], p: ConvParams) -> tuple[int, ...]:
    spatial = []
    for k, s in enumerate(input_shape[2:]):
        extent = p.dilation[k] * (weight_shape[k + 2] - 1)
        if p.transposed:
            spatial.append((s - 1) * p.stride[k] - 2 * p.padding[k] + extent + p.output_padding[k] + 1)
        else:
            spatial.append((s + 2 * p.padding[k] - extent - 1) // p.stride[k] + 1)
    channels = weight_shape[1] * p.groups if p.transposed else weight_shape[0]
    return (input_shape[0], channels, *spatial)


def channels_last_result(input: Tensor, weight: Tensor) -> bool:
    """A channels-last 4-d input (or weight) gives a channels-last result, as PyTorch's CPU kernels do."""
    return suggests_channels_last(input, 2) or suggests_channels_last(weight, 2)


def meta_convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Sequence[int],
                     padding: Sequence[int], dilation: Sequence[int], transposed: bool,
                     output_padding: Sequence[int], groups: int) -> Tensor:
    p = conv_params(weight._shape, stride, padding, dilation, transposed, output_padding, groups)
    check_forward(input, weight, bias, p)
    shape = output_shape(input._shape, weight._shape, p)
    return meta_tensor(shape, input._dtype, channels_last_strides(shape) if channels_last_result(input, weight)
                       else None)


def meta_convolution_backward(grad_output: Tensor, input: Tensor, weight: Tensor, bias_sizes: Sequence[int] | None,
                              stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
                              transposed: bool, output_padding: Sequence[int], groups: int,
                              output_mask: Sequence[bool]) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    d = grad_output._dtype
    return (meta_tensor(input._shape, d) if output_mask[0] else None,
            meta_tensor(weight._shape, d) if output_mask[1] else None,
            meta_tensor(tuple(bias_sizes or (grad_output._shape[1],)), d) if output_mask[2] else None)
