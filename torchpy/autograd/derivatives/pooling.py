"""Derivatives of adaptive pooling and of the backward ops its formulas call.

Forward: the gradient goes through the matching backward op (averages spread over each bin,
maxima back to the index the forward chose). Those backward ops are linear in grad_output and
do not depend on self's values, so their own gradient is the forward op again (average) or a
gather at the saved indices (max), and zeros for self.
"""

from __future__ import annotations

from ..._aten.public import functions  # torchpy.<name>, made below the package root
from ..._dispatch.ops import ops

from . import formula
from ._common import zeros

_aten = ops.aten


@formula(inputs=("self",), save=("self",))
def adaptive_avg_pool2d_backward(grad, self):
    return _aten._adaptive_avg_pool2d_backward.default(grad, self)


@formula(inputs=("self",), save=("self",))
def adaptive_avg_pool3d_backward(grad, self):
    return _aten._adaptive_avg_pool3d_backward.default(grad, self)


@formula(inputs=("self",), save=("self", "result1"))
def adaptive_max_pool2d_backward(grads, self, result1):
    return _aten.adaptive_max_pool2d_backward.default(grads[0], self, result1)


@formula(inputs=("self",), save=("self", "result1"))
def adaptive_max_pool3d_backward(grads, self, result1):
    return _aten.adaptive_max_pool3d_backward.default(grads[0], self, result1)


# --- double backward -------------------------------------------------------------------------


def _avg_double_backward(forward, spatial: int, grad, grad_output_shape, self, needs):
    grad_grad_output = forward(grad, list(grad_output_shape[-spatial:])) if needs[0] else None
    grad_self = zeros(self.shape, self) if needs[1] else None
    return grad_grad_output, grad_self


@formula(inputs=("grad_output", "self"), save=("grad_output.shape", "self"))
def adaptive_avg_pool2d_double_backward(grad, grad_output_shape, self, needs):
    return _avg_double_backward(_aten._adaptive_avg_pool2d.default, 2, grad, grad_output_shape, self, needs)


@formula(inputs=("grad_output", "self"), save=("grad_output.shape", "self"))
def adaptive_avg_pool3d_double_backward(grad, grad_output_shape, self, needs):
    return _avg_double_backward(_aten._adaptive_avg_pool3d.default, 3, grad, grad_output_shape, self, needs)


def gather_at_indices(grad, indices, spatial: int):
    """Each output position's value of `grad` (input-shaped) at the flat spatial index the
    forward chose: PyTorch's max_pool_double_backward."""
    if indices.numel() == 0:
        return functions.empty_like(indices, dtype=grad.dtype)
    size = list(indices.shape[: indices.dim() - spatial]) + [-1]
    flat_indices = indices.view(size)
    return grad.contiguous().view(size).gather(-1, flat_indices).view(list(indices.shape))


def _max_double_backward(spatial: int, grad, self, indices, needs):
    grad_grad_output = gather_at_indices(grad, indices, spatial) if needs[0] else None
    grad_self = zeros(self.shape, self) if needs[1] else None
    return grad_grad_output, grad_self


@formula(inputs=("grad_output", "self"), save=("self", "indices"))
def adaptive_max_pool2d_double_backward(grad, self, indices, needs):
    return _max_double_backward(2, grad, self, indices, needs)


@formula(inputs=("grad_output", "self"), save=("self", "indices"))
def adaptive_max_pool3d_double_backward(grad, self, indices, needs):
    return _max_double_backward(3, grad, self, indices, needs)
