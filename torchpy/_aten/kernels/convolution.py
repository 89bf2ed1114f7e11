"""Convolution: aten::convolution (forward and transposed, any number of spatial dims) and
aten::convolution_backward, as array code (the Meta kernels are meta/convolution.py's).

Three primitives carry everything, each one BLAS matmul per call (batched over groups):

    conv_array            y = conv(x, w): im2col from a strided window view of the padded input
    conv_transpose_array  its adjoint in x: one matmul to columns, then a scatter-add per kernel
                          position (a loop over the kernel's elements only, never over batch or channels)
    weight_grad_array     its adjoint in w: the same window view, contracted with grad_output

A transposed convolution is conv_transpose_array; its gradients are conv_array (input) and
weight_grad_array with the roles of input and grad_output swapped (weight).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor
from ..meta import convolution as rules
from .adaptive_pool import result_tensor
from .reduction_util import accumulate_dtype, register_kernel

Array = np.ndarray


# --- array code ------------------------------------------------------------------------------


def _pad(x: Array, padding: Sequence[int]) -> Array:
    if not any(padding):
        return x
    out = np.zeros(x.shape[:2] + tuple(s + 2 * p for s, p in zip(x.shape[2:], padding)), x.dtype)
    out[(slice(None), slice(None)) + tuple(slice(p, p + s) for s, p in zip(x.shape[2:], padding))] = x
    return out


def _windows(x: Array, kernel: Sequence[int], stride: Sequence[int], dilation: Sequence[int],
             out: Sequence[int]) -> Array:
    """A read-only (N, C, *out, *kernel) view of the padded input: each output position's window."""
    st = x.strides
    k = len(kernel)
    strides = st[:2] + tuple(st[2 + i] * stride[i] for i in range(k)) + tuple(st[2 + i] * dilation[i] for i in range(k))
    return np.lib.stride_tricks.as_strided(x, x.shape[:2] + tuple(out) + tuple(kernel), strides, writeable=False)


def conv_array(x: Array, w: Array, stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int],
               groups: int) -> Array:
    """x (N, C, *S), w (O, C/groups, *K) -> (N, O, *out)."""
    n, c = x.shape[:2]
    o, kernel, k = w.shape[0], w.shape[2:], w.ndim - 2
    padded = _pad(x, padding)
    out = tuple((padded.shape[2 + i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(k))
    windows = _windows(padded, kernel, stride, dilation, out)
    # columns (N, groups, C/groups * prod(K), prod(out)): channels and kernel offsets along the rows
    order = (0, 1, *range(2 + k, 2 + 2 * k), *range(2, 2 + k))
    cols = windows.transpose(order).reshape(n, groups, (c // groups) * math.prod(kernel), math.prod(out))
    y = w.reshape(groups, o // groups, -1) @ cols
    return y.reshape((n, o) + out)


def conv_transpose_array(y: Array, w: Array, stride: Sequence[int], padding: Sequence[int],
                         dilation: Sequence[int], groups: int, spatial: Sequence[int]) -> Array:
    """The adjoint of conv_array in x: y (N, O, *Y), w (O, C/groups, *K) -> (N, C, *spatial)."""
    n, o = y.shape[:2]
    per_group, kernel, k = w.shape[1], w.shape[2:], w.ndim - 2
    ys = y.shape[2:]
    wm = w.reshape(groups, o // groups, -1).swapaxes(1, 2)  # (groups, C/groups * prod(K), O/groups)
    cols = (wm @ y.reshape(n, groups, o // groups, math.prod(ys))).reshape((n, groups * per_group) + kernel + ys)
    buf = np.zeros((n, groups * per_group) + tuple(s + 2 * p for s, p in zip(spatial, padding)), cols.dtype)
    for offset in np.ndindex(*kernel):
        target = tuple(slice(offset[i] * dilation[i], offset[i] * dilation[i] + (ys[i] - 1) * stride[i] + 1, stride[i])
                       for i in range(k))
        buf[(slice(None), slice(None)) + target] += cols[(slice(None), slice(None)) + offset]
    return buf[(slice(None), slice(None)) + tuple(slice(p, p + s) for s, p in zip(spatial, padding))]


def weight_grad_array(x: Array, gy: Array, kernel: Sequence[int], stride: Sequence[int], padding: Sequence[int],
                      dilation: Sequence[int], groups: int) -> Array:
    """The adjoint of conv_array in w: x (N, C, *S), gy (N, O, *Y) -> (O, C/groups, *K)."""
    n, c = x.shape[:2]
    o, ys, k = gy.shape[1], gy.shape[2:], len(kernel)
    windows = _windows(_pad(x, padding), kernel, stride, dilation, ys)  # (N, C, *Y, *K)
    per_group = c // groups
    windows = windows.reshape((n, groups, per_group) + ys + tuple(kernel))
    order = (1, 0, *range(3, 3 + k), 2, *range(3 + k, 3 + 2 * k))  # (groups, N, *Y, C/groups, *K)
    cols = windows.transpose(order).reshape(groups, n * math.prod(ys), per_group * math.prod(kernel))
    gm = gy.reshape(n, groups, o // groups, math.prod(ys)).transpose(1, 2, 0, 3).reshape(groups, o // groups, -1)
    return (gm @ cols).reshape((o, per_group) + tuple(kernel))


# --- kernels ---------------------------------------------------------------------------------


def _check_dtype(d: _dt.dtype) -> None:
    if d == _dt.bool:
        raise NotImplementedError("\"slow_conv2d_cpu\" not implemented for 'Bool'")


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Sequence[int], padding: Sequence[int],
                dilation: Sequence[int], transposed: bool, output_padding: Sequence[int], groups: int) -> Tensor:
    p = rules.conv_params(weight._shape, stride, padding, dilation, transposed, output_padding, groups)
    rules.check_forward(input, weight, bias, p)
    _check_dtype(input._dtype)
    shape = rules.output_shape(input._shape, weight._shape, p)
    compute = accumulate_dtype(input._dtype)
    if 0 in shape or 0 in input._shape or 0 in weight._shape:
        y = np.zeros(shape, compute)
    else:
        x, w = input._data.astype(compute, copy=False), weight._data.astype(compute, copy=False)
        if p.transposed:
            y = conv_transpose_array(x, w, p.stride, p.padding, p.dilation, p.groups, shape[2:])
        else:
            y = conv_array(x, w, p.stride, p.padding, p.dilation, p.groups)
    y = np.ascontiguousarray(y)
    if bias is not None:  # in place: y is this call's own array
        y += bias._data.astype(compute, copy=False).reshape((1, -1) + (1,) * (len(shape) - 2))
    return result_tensor(y, input._dtype, rules.channels_last_result(input, weight))


def convolution_backward(grad_output: Tensor, input: Tensor, weight: Tensor, bias_sizes: Sequence[int] | None,
                         stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int], transposed: bool,
                         output_padding: Sequence[int], groups: int,
                         output_mask: Sequence[bool]) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
    p = rules.conv_params(weight._shape, stride, padding, dilation, transposed, output_padding, groups)
    d = grad_output._dtype
    compute = accumulate_dtype(d)
    gy = grad_output._data.astype(compute, copy=False)
    x, w = input._data.astype(compute, copy=False), weight._data.astype(compute, copy=False)
    empty = 0 in gy.shape or 0 in x.shape or 0 in w.shape
    grad_input = grad_weight = grad_bias = None
    if output_mask[0]:
        if empty:
            gx = np.zeros(x.shape, compute)
        elif p.transposed:
            gx = conv_array(gy, w, p.stride, p.padding, p.dilation, p.groups)
        else:
            gx = conv_transpose_array(gy, w, p.stride, p.padding, p.dilation, p.groups, x.shape[2:])
        grad_input = result_tensor(np.ascontiguousarray(gx), d, rules.channels_last_result(input, weight))
    if output_mask[1]:
        kernel = w.shape[2:]
        if empty:
            gw = np.zeros(w.shape, compute)
        elif p.transposed:
            gw = weight_grad_array(gy, x, kernel, p.stride, p.padding, p.dilation, p.groups)
        else:
            gw = weight_grad_array(x, gy, kernel, p.stride, p.padding, p.dilation, p.groups)
        grad_weight = result_tensor(np.ascontiguousarray(gw), d, rules.suggests_channels_last(weight, 2))
    if output_mask[2]:
        gb = gy.sum(axis=(0, *range(2, gy.ndim)))
        grad_bias = result_tensor(np.ascontiguousarray(gb.reshape(tuple(bias_sizes or gb.shape))), d, False)
    return grad_input, grad_weight, grad_bias


register_kernel("convolution", convolution)
register_kernel("convolution_backward", convolution_backward)
register_kernel("meta_convolution", rules.meta_convolution)
register_kernel("meta_convolution_backward", rules.meta_convolution_backward)
