"""Derivatives of api_ops.yaml's ops: fmax / fmin, tril / triu (PyTorch's derivatives.yaml facts)."""

from __future__ import annotations

from ..._aten.public import functions

from . import formula


def _fmax_mask(self, other):
    """Where fmax takes self: self >= other, or other is NaN."""
    return functions.ge(self, other).logical_or_(functions.isnan(other))


@formula(inputs=("self", "other"), save=("self", "other"))
def fmax_backward(grad, self, other, needs):
    grad_other = grad.masked_fill(_fmax_mask(self, other), 0) if needs[1] else None
    grad_self = grad.masked_fill(_fmax_mask(self, other).logical_not_(), 0) if needs[0] else None
    return grad_self, grad_other


def _fmin_mask(self, other):
    """Where fmin takes self: self <= other, or other is NaN."""
    return functions.le(self, other).logical_or_(functions.isnan(other))


@formula(inputs=("self", "other"), save=("self", "other"))
def fmin_backward(grad, self, other, needs):
    grad_other = grad.masked_fill(_fmin_mask(self, other), 0) if needs[1] else None
    grad_self = grad.masked_fill(_fmin_mask(self, other).logical_not_(), 0) if needs[0] else None
    return grad_self, grad_other


@formula(inputs=("self",), save=("diagonal",))
def tril_backward(grad, diagonal):
    return functions.tril(grad, diagonal)


@formula(inputs=("self",), save=("diagonal",))
def triu_backward(grad, diagonal):
    return functions.triu(grad, diagonal)
