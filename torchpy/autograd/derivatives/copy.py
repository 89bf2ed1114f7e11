"""Derivatives of copies, fills and cat / stack.

The ops torch does not differentiate say so in their YAML entry: `backward:
not_differentiable` (detach, zeros_like, ...) has the Autograd kernel record nothing, so
the output does not require grad, as in torch; `backward: no_formula` (aten::copy) records
a node that raises "derivative for ... is not implemented" (torch's NotImplemented).
"""

from __future__ import annotations

from ..._dispatch.ops import ops
from ..._tensor.enums import contiguous_format, strided

from . import formula
from ._common import wrap_dim, zeros, zeros_like

# --- copies ----------------------------------------------------------------------------------


@formula(inputs=("self",))
def clone_backward(grad):
    return grad


def _to_options(grad, dtype):
    """grad.to(dtype=, layout=, device=) as C++ formulas call it: nothing when it already fits."""
    if grad.dtype == dtype:
        return grad
    return ops.aten._to_copy.default(grad, dtype=dtype, layout=strided, device=grad.device)


@formula(inputs=("self",), save=("self.dtype",))
def to_copy_backward(grad, self_dtype):
    return _to_options(grad, self_dtype)


# copy_ overwrites self: src gets the gradient (summed to its shape centrally).
@formula(inputs=("self", "src"), save=("src.dtype",))
def copy_backward(grad, src_dtype, needs):
    grad_self = zeros_like(grad, memory_format=contiguous_format) if needs[0] else None
    return grad_self, (_to_options(grad, src_dtype) if needs[1] else None)


# --- fills: the old values of self no longer matter ------------------------------------------


# fill / zero, and the in-place random fills (torch records a node whose gradient is zero)
@formula(inputs=("self",))
def fill_scalar_backward(grad):
    return zeros_like(grad)


@formula(inputs=("self", "value"))
def fill_tensor_backward(grad):
    return zeros_like(grad), grad.sum()


# --- cat / stack: one gradient per tensor of the list ----------------------------------------


def _is_legacy_empty(shape) -> bool:
    """cat skips 1-D empty tensors whatever the other tensors' shapes (torch's legacy rule)."""
    return tuple(shape) == (0,)


@formula(inputs=("tensors",), save=("tensors.shape", "dim"))
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


@formula(inputs=("tensors",), save=("dim",))
def stack_backward(grad, dim):
    return tuple(grad.select(dim, i) for i in range(grad.shape[wrap_dim(dim, grad.dim())]))


# normal(mean, std) samples: torch treats the sample as constant in mean and std (zero gradients,
# in each input's own shape).
@formula(inputs=("mean",), save=("mean.shape",))
def normal_mean_backward(grad, mean_shape):
    return zeros(mean_shape, grad)


@formula(inputs=("std",), save=("std.shape",))
def normal_std_backward(grad, std_shape):
    return zeros(std_shape, grad)


@formula(inputs=("mean", "std"), save=("mean.shape", "std.shape"))
def normal_both_backward(grad, mean_shape, std_shape, needs):
    grad_mean = zeros(mean_shape, grad) if needs[0] else None
    return grad_mean, (zeros(std_shape, grad) if needs[1] else None)


@formula(inputs=("self",), save=("dims",))
def flip_backward(grad, dims):
    return grad.flip(dims)


@formula(inputs=("self",), save=("self.shape", "repeats"))
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
