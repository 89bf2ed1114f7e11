"""Derivatives of copies, fills, cat / stack, and the ops torch does not differentiate.

A "not differentiable" registration (detach, zeros_like, ...) tells the
Autograd kernel to record nothing: the output does not require grad, as in
torch. Ops with no registration at all record a node that raises "derivative
for ... is not implemented" (torch's NotImplemented), e.g. aten::copy.
"""

from __future__ import annotations

import torchpy

from . import derivative
from ._common import not_differentiable, wrap_dim, zeros, zeros_like

# --- not differentiable ----------------------------------------------------------------------


for _op in (
    "aten::detach", "aten::view.dtype",
    "aten::empty_like", "aten::zeros_like", "aten::ones_like", "aten::full_like",
    "aten::new_empty", "aten::new_empty_strided", "aten::new_zeros", "aten::new_ones", "aten::new_full",
    "aten::rand_like", "aten::rand_like.generator", "aten::randn_like", "aten::randn_like.generator",
    "aten::randint_like", "aten::randint_like.low_dtype", "aten::randint_like.generator",
    "aten::randint_like.low_generator_dtype", "aten::randint_like.Tensor",
    "aten::randint_like.Tensor_generator",
):
    not_differentiable(_op)


# --- copies ----------------------------------------------------------------------------------


@derivative("aten::clone", "CloneBackward0", inputs=("self",))
def clone_backward(grad):
    return grad


def _to_options(grad, dtype):
    """grad.to(dtype=, layout=, device=) as C++ formulas call it: nothing when it already fits."""
    if grad.dtype == dtype:
        return grad
    return torchpy.ops.aten._to_copy.default(grad, dtype=dtype, layout=torchpy.strided, device=grad.device)


@derivative("aten::_to_copy", "ToCopyBackward0", inputs=("self",), save=("self.dtype",))
def to_copy_backward(grad, self_dtype):
    return _to_options(grad, self_dtype)


# copy_ overwrites self: src gets the gradient (summed to its shape centrally).
@derivative("aten::copy_", "torch::autograd::CopyBackwards", inputs=("self", "src"), save=("src.dtype",))
def copy_backward(grad, src_dtype, needs):
    grad_self = zeros_like(grad, memory_format=torchpy.contiguous_format) if needs[0] else None
    return grad_self, (_to_options(grad, src_dtype) if needs[1] else None)


# --- fills: the old values of self no longer matter ------------------------------------------


def _fill_scalar_backward(grad):
    return zeros_like(grad)


def _fill_tensor_backward(grad):
    return zeros_like(grad), grad.sum()


derivative("aten::fill.Scalar", "FillBackward0", inputs=("self",))(_fill_scalar_backward)
derivative("aten::fill.Tensor", "FillBackward1", inputs=("self", "value"))(_fill_tensor_backward)
derivative("aten::fill_.Scalar", "FillBackward2", inputs=("self",))(_fill_scalar_backward)
derivative("aten::fill_.Tensor", "FillBackward3", inputs=("self", "value"))(_fill_tensor_backward)
derivative("aten::zero", "ZeroBackward0", inputs=("self",))(_fill_scalar_backward)

# In-place random fills: torch records a node whose gradient is zero.
for _op, _name in (
    ("aten::uniform_", "UniformBackward0"),
    ("aten::normal_", "NormalBackward0"),
    ("aten::random_.from", "RandomBackward0"),
    ("aten::random_.to", "RandomBackward1"),
    ("aten::random_", "RandomBackward2"),
):
    derivative(_op, _name, inputs=("self",))(_fill_scalar_backward)


# --- cat / stack: one gradient per tensor of the list ----------------------------------------


def _is_legacy_empty(shape) -> bool:
    """cat skips 1-D empty tensors whatever the other tensors' shapes (torch's legacy rule)."""
    return tuple(shape) == (0,)


@derivative("aten::cat", "CatBackward0", inputs=("tensors",), save=("tensors.shape", "dim"))
def cat_backward(grad, tensors_shape, dim):
    dim = wrap_dim(dim, grad.dim())
    grads, start = [], 0
    for shape in tensors_shape:
        if _is_legacy_empty(shape) and grad.dim() != 1:
            grads.append(zeros((0,), grad))
            continue
        grads.append(grad.narrow(dim, start, shape[dim]))
        start += shape[dim]
    return tuple(grads)


@derivative("aten::stack", "StackBackward0", inputs=("tensors",), save=("dim",))
def stack_backward(grad, dim):
    return tuple(grad.select(dim, i) for i in range(grad.shape[wrap_dim(dim, grad.dim())]))


# normal(mean, std) samples: torch treats the sample as constant in mean and std (zero gradients,
# in each input's own shape).
@derivative("aten::normal.Tensor_float", "NormalBackward1", inputs=("mean",), save=("mean.shape",))
def normal_mean_backward(grad, mean_shape):
    return zeros(mean_shape, grad)


@derivative("aten::normal.float_Tensor", "NormalBackward2", inputs=("std",), save=("std.shape",))
def normal_std_backward(grad, std_shape):
    return zeros(std_shape, grad)


@derivative("aten::normal.Tensor_Tensor", "NormalBackward3", inputs=("mean", "std"), save=("mean.shape", "std.shape"))
def normal_both_backward(grad, mean_shape, std_shape, needs):
    grad_mean = zeros(mean_shape, grad) if needs[0] else None
    return grad_mean, (zeros(std_shape, grad) if needs[1] else None)


@derivative("aten::flip", "FlipBackward0", inputs=("self",), save=("dims",))
def flip_backward(grad, dims):
    return grad.flip(dims)


@derivative("aten::repeat", "RepeatBackward0", inputs=("self",), save=("self.shape", "repeats"))
def repeat_backward(grad, self_shape, repeats):
    """Sum the tiles back onto the input: the added leading dims first, then each repeated dim
    split into (repeats, size) and summed over its repeats, in one reshape and one sum."""
    if 0 in repeats:
        return zeros(self_shape, grad)
    for _ in range(len(repeats) - len(self_shape)):
        grad = grad.sum(0)
    split, summed = [], []
    for size, times in zip(self_shape, repeats[len(repeats) - len(self_shape):]):
        if times != 1:
            split.append(times)
            summed.append(len(split) - 1)
        split.append(size)
    if summed:
        grad = grad.reshape(split).sum(summed)
    return grad
