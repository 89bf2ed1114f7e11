"""The autograd kernel's per-operator forms (kernel.specialize): ops whose tensors are their
first one or two arguments take an unrolled no-grad test. Each case runs in torch and
torchpy and must agree on whether the result requires grad, its grad_fn and the gradient."""

from __future__ import annotations

import pytest
import torch

import torchpy
from torchpy.autograd.kernel import autograd_kernel, specialize


def _run(lib, case):
    b = lib.zeros(3)
    view = b[:2]
    b.requires_grad_()  # the base gains requires_grad after the view was taken
    return case(lib, view, b), b


CASES = {
    "one tensor, view of a base that gained requires_grad": lambda lib, v, b: v.exp(),
    "two tensors, the view second": lambda lib, v, b: lib.ones(2) * v,
    "two tensors, the view first": lambda lib, v, b: v + lib.ones(2),
    "two tensors, neither requires grad": lambda lib, v, b: lib.ones(2) * lib.ones(2),
    "keyword argument with a grad input": lambda lib, v, b: lib.ops.aten.add.Tensor(lib.ones(2), v, alpha=3),
    "keyword argument, no grad input": lambda lib, v, b: lib.ops.aten.add.Tensor(lib.ones(2), lib.ones(2), alpha=3),
    "leaf under no_grad": lambda lib, v, b: _no_grad(lib, lambda: b.exp()),
    "leaf, two tensors": lambda lib, v, b: b * b,
}


def _no_grad(lib, fn):
    with lib.no_grad():
        return fn()


@pytest.mark.parametrize("name", list(CASES))
def test_recording_decision_as_torch(name):
    (ours, our_base), (theirs, their_base) = _run(torchpy, CASES[name]), _run(torch, CASES[name])
    assert ours.requires_grad == theirs.requires_grad
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    assert ours.tolist() == theirs.tolist()
    if theirs.requires_grad:
        ours.sum().backward()
        theirs.sum().backward()
        listed = lambda g: None if g is None else g.tolist()  # noqa: E731
        assert listed(our_base.grad) == listed(their_base.grad)


def test_forward_ad_still_sees_the_op():
    for lib in (torch, torchpy):
        with lib.autograd.forward_ad.dual_level():
            dual = lib.autograd.forward_ad.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([1.0, 1.0]))
            assert lib.autograd.forward_ad.unpack_dual(dual * dual).tangent.tolist() == [2.0, 4.0]
            assert lib.autograd.forward_ad.unpack_dual(dual.exp()).tangent.tolist() == pytest.approx(
                [2.718281828, 7.389056099])


def test_layouts_are_specialized_by_schema():
    aten = torchpy.ops.aten
    assert specialize(aten.exp.default).__name__ == "one_tensor"
    assert specialize(aten.mul.Tensor).__name__ == "two_tensors"
    assert specialize(aten.addmm.default) is autograd_kernel  # three tensors: the general kernel
    assert specialize(aten.cat.default) is autograd_kernel    # a Tensor[] argument
