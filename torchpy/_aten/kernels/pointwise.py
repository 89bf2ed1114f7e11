"""Pointwise arithmetic over arrays (see elementwise.py for how these become kernels)."""

from __future__ import annotations

from ..._tensor.promotion import ELEMENTWISE_TYPE_PROMOTION_KIND as Kind
from .elementwise import elementwise


@elementwise("add")
def add(xp, self, other, alpha=1):
    return xp.add(self, other if alpha == 1 else xp.multiply(other, alpha))


@elementwise("sub")
def sub(xp, self, other, alpha=1):
    return xp.subtract(self, other if alpha == 1 else xp.multiply(other, alpha))


@elementwise("mul")
def mul(xp, self, other):
    return xp.multiply(self, other)


@elementwise("div", kind=Kind.INT_TO_FLOAT)
def div(xp, self, other):
    return xp.true_divide(self, other)
