"""How gradients land in .grad, against torch's AccumulateGrad: the first one is taken over
only when nothing else holds it (use_count), later ones are added in place with grad mode
off (`.grad` stays the same tensor; a mode sees add_) and out of place with create_graph."""

from __future__ import annotations

import numpy as np
import torch

import torchpy
from tests.conformance.dispatch_log import dispatch_log


def _ptr(t):
    return t.untyped_storage().data_ptr()


def _storage_sharing(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    g = lib.tensor([1.0, 1.0])
    (a + b).backward(g)  # the same gradient reaches both leaves, and the caller still holds it
    c = lib.tensor([[1.0, 2.0]], requires_grad=True)
    g2 = lib.tensor([5.0, 6.0])
    c.view(2).backward(g2)  # a fresh view of g2 that nothing else holds: taken over
    shares_g2 = _ptr(c.grad) == _ptr(g2)
    c.view(2).backward(g2)  # ... so the in-place accumulation writes through to g2
    return (_ptr(a.grad) == _ptr(g), _ptr(b.grad) == _ptr(g), _ptr(a.grad) == _ptr(b.grad),
            shares_g2, g2.tolist(), c.grad.tolist())


def test_gradients_are_taken_over_only_when_unshared():
    assert _storage_sharing(torchpy) == _storage_sharing(torch)


def _identity_and_values(lib):
    d = lib.tensor([1.0, 2.0], requires_grad=True)
    (d * 3).sum().backward()
    first = d.grad
    (d * 3).sum().backward()
    e = lib.tensor([1.0, 2.0], requires_grad=True)
    (e * 2).sum().backward(create_graph=True)
    kept = e.grad
    (e * 2).sum().backward(create_graph=True)
    return d.grad is first, d.grad.tolist(), e.grad is kept, e.grad.tolist()


def test_accumulation_is_in_place_without_create_graph():
    assert _identity_and_values(torchpy) == _identity_and_values(torch)


def test_accumulation_dispatches_what_torch_dispatches():
    def second_backward(t, x):
        x.requires_grad_()
        (x * 2).sum().backward()
        (x * 2).sum().backward()
        (x * 2).sum().backward(inputs=[x])

    x = np.array([1.0, 2.0], dtype=np.float32)
    assert dispatch_log(torchpy, second_backward, x) == dispatch_log(torch, second_backward, x)


def test_only_the_wanted_inputs_gradients_are_computed():
    # torch runs only the nodes on a path to a wanted input, and formulas skip the others'
    # gradients: a mode sees one mul for d(a*b)/da, and nothing of the branch through c.
    def program(t, x):
        a = x.clone().requires_grad_()
        b = (x * 3).requires_grad_()
        c = (x + 1).requires_grad_()
        y = (a * b).sum() + (c.exp() * b).sum()
        (ga,) = t.autograd.grad(y, [a], retain_graph=True)
        y.backward(inputs=[b])
        return ga

    x = np.array([1.0, 2.0], dtype=np.float32)
    assert dispatch_log(torchpy, program, x) == dispatch_log(torch, program, x)
