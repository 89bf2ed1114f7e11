"""Backward formulas of addcmul / addcdiv (torch's derivatives.yaml), making the aten calls
torch's generated code makes, in its order (C++ evaluates the right operand first)."""

from __future__ import annotations

from ..._dispatch.ops import ops
from ..._tensor.enums import preserve_format
from . import formula

aten = ops.aten


@formula(inputs=("self", "tensor1", "tensor2"), save=("tensor1", "tensor2", "value"))
def addcmul_backward(grad, tensor1, tensor2, value, needs):
    grad_t1 = aten.mul.Tensor(grad, aten.mul.Scalar(tensor2, value)) if needs[1] else None
    grad_t2 = aten.mul.Tensor(grad, aten.mul.Scalar(tensor1, value)) if needs[2] else None
    return (grad if needs[0] else None), grad_t1, grad_t2


@formula(inputs=("self", "tensor1", "tensor2"), save=("tensor1", "tensor2", "value"))
def addcdiv_backward(grad, tensor1, tensor2, value, needs):
    grad_t1 = grad_t2 = None
    if needs[1]:  # grad * (value / tensor2)
        ratio = aten.empty_like.default(tensor2, memory_format=preserve_format).fill_(value).div_(tensor2)
        grad_t1 = aten.mul.Tensor(grad, ratio)
    if needs[2]:  # -grad * (value * tensor1 / (tensor2 * tensor2))
        square = aten.mul.Tensor(tensor2, tensor2)
        quotient = aten.div.Tensor(aten.mul.Scalar(tensor1, value), square)
        grad_t2 = aten.mul.Tensor(aten.neg.default(grad), quotient)
    return (grad if needs[0] else None), grad_t1, grad_t2
