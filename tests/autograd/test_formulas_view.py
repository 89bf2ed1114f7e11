"""Views, copies, fills, cat / stack: gradients and node names against torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchpy
from tests.autograd.test_formulas import Const, Strided, check_grad, rand

A = rand(2, 3, 4)
M = rand(3, 4, seed=1)


@pytest.mark.parametrize("fn, name", [
    (lambda t, x: x.view(6, 4), "ViewBackward0"),
    (lambda t, x: x.view(-1), "ViewBackward0"),
    (lambda t, x: t.ops.aten._unsafe_view(x, [4, 6]), "UnsafeViewBackward0"),
    (lambda t, x: x.reshape(4, 6), "ViewBackward0"),
    (lambda t, x: x.flatten(1), "ViewBackward0"),
    (lambda t, x: t.ops.aten.alias(x), "AliasBackward0"),
    (lambda t, x: t.ops.aten.lift_fresh(x), "LiftFreshBackward0"),
    (lambda t, x: x.transpose(0, 2), "TransposeBackward0"),
    (lambda t, x: x.transpose(-1, 1), "TransposeBackward0"),
    (lambda t, x: x.permute(2, 0, 1), "PermuteBackward0"),
    (lambda t, x: x.permute(-1, -3, -2), "PermuteBackward0"),
    (lambda t, x: x.movedim(0, 2), "PermuteBackward0"),
    (lambda t, x: x.unsqueeze(1), "UnsqueezeBackward0"),
    (lambda t, x: x.unsqueeze(-1), "UnsqueezeBackward0"),
    (lambda t, x: x.unsqueeze(0).expand(5, 2, 3, 4), "ExpandBackward0"),
    (lambda t, x: x[:, :1].expand(2, 3, 4), "ExpandBackward0"),
    (lambda t, x: x.select(1, 2), "SelectBackward0"),
    (lambda t, x: x.select(-1, -1), "SelectBackward0"),
    (lambda t, x: x[1], "SelectBackward0"),
    (lambda t, x: t.ops.aten.slice.Tensor(x, 2, 1, 3), "SliceBackward0"),
    (lambda t, x: t.ops.aten.slice.Tensor(x, -1, None, None, 2), "SliceBackward0"),
    (lambda t, x: t.ops.aten.slice.Tensor(x, 1, -2, 100), "SliceBackward0"),
    (lambda t, x: x[:, 1:], "SliceBackward0"),
    (lambda t, x: x.narrow(2, 1, 2), "SliceBackward0"),
    (lambda t, x: x.diagonal(), "DiagonalBackward0"),
    (lambda t, x: x.diagonal(1, 1, 2), "DiagonalBackward0"),
    (lambda t, x: x.diagonal(-1, 2, 0), "DiagonalBackward0"),
    (lambda t, x: x.as_strided((3, 2), (4, 1), 1), "AsStridedBackward0"),
    (lambda t, x: x.as_strided((2, 2, 2), (12, 2, 1)), "AsStridedBackward0"),
    (lambda t, x: x.as_strided((4, 3), (1, 1)), "AsStridedBackward0"),
    (lambda t, x: x.unbind(1), "UnbindBackward0"),
    (lambda t, x: x.split(2, 2), "SplitBackward0"),
    (lambda t, x: x.split(3, 1), "SplitBackward0"),
    (lambda t, x: x.split([1, 3], 2), "SplitWithSizesBackward0"),
    (lambda t, x: x.split_with_sizes([2, 1], 1), "SplitWithSizesBackward0"),
    (lambda t, x: x.chunk(2, 2), "SplitBackward0"),
    (lambda t, x: x.clone(), "CloneBackward0"),
    (lambda t, x: x.to(t.float32), "ToCopyBackward0"),
    (lambda t, x: t.ops.aten._to_copy(x, dtype=t.float64), "ToCopyBackward0"),
    (lambda t, x: x.contiguous(), None),
])
def test_view(fn, name):
    check_grad(fn, A, name=name)


STRIDED_SAFE = [  # views that also apply to a non-contiguous input (reshape then copies)
    lambda t, x: x.reshape(4, 6),
    lambda t, x: x.flatten(1),
    lambda t, x: x.transpose(0, 2),
    lambda t, x: x.permute(2, 0, 1),
    lambda t, x: x.unsqueeze(0).expand(5, 2, 3, 4),
    lambda t, x: x.select(1, 2),
    lambda t, x: x[:, 1:, ::2],
    lambda t, x: x.diagonal(1, 1, 2),
    lambda t, x: x.unbind(2),
    lambda t, x: x.split([1, 3], 2),
    lambda t, x: x.clone(),
    lambda t, x: x.contiguous(),
]


@pytest.mark.parametrize("fn", STRIDED_SAFE)
def test_view_of_strided(fn):
    check_grad(fn, Strided(A))


def test_matrix_views():
    check_grad(lambda t, x: x.t(), M, name="TBackward0")
    check_grad(lambda t, x: x.T, M, name="PermuteBackward0")
    check_grad(lambda t, x: x.mT, M, name="TransposeBackward0")
    check_grad(lambda t, x: x.squeeze(), M[None, :, None], name="SqueezeBackward0")
    check_grad(lambda t, x: x.squeeze(2), M[:, :, None], name="SqueezeBackward1")
    check_grad(lambda t, x: x.squeeze((0, 2)), M[None, :, None], name="SqueezeBackward2")
    check_grad(lambda t, x: x.squeeze(1), M, name="SqueezeBackward1")  # not size 1: a no-op view


def test_inplace_views():
    check_grad(lambda t, x: (x * 1).t_(), M, name="TBackward1")
    check_grad(lambda t, x: (x * 1).transpose_(0, 2), A, name="TransposeBackward1")
    check_grad(lambda t, x: (x * 1).unsqueeze_(1), M, name="UnsqueezeBackward1")
    check_grad(lambda t, x: (x * 1).squeeze_(), M[None, :, None], name="SqueezeBackward3")
    check_grad(lambda t, x: (x * 1).squeeze_(0), M[None], name="SqueezeBackward4")
    check_grad(lambda t, x: (x * 1).squeeze_((0, 2)), M[None, :, None], name="SqueezeBackward5")


def test_as_strided_overlapping_input():
    # The input itself repeats storage elements (an expanded view): they share the gradient.
    check_grad(lambda t, x: x.expand(3, 4).as_strided((2, 2), (1, 1)), rand(4))


def test_as_strided_of_a_view():
    # Sizes, strides and offset are in the storage: a view's own offset counts.
    check_grad(lambda t, x: (x * 1)[1:].as_strided((2, 3), (1, 2)), M, name="AsStridedBackward0")
    check_grad(lambda t, x: (x * 1)[1:].as_strided((2, 3), (4, 1), 5), M, name="AsStridedBackward0")
    check_grad(lambda t, x: (x * 1)[1:].as_strided((2, 2), (1, 1), 2), M, name="AsStridedBackward0")
    check_grad(lambda t, x: (x * 1).t().as_strided((3, 2), (1, 3)), M, name="AsStridedBackward0")


def test_unused_outputs():
    check_grad(lambda t, x: x.unbind(0)[1], M, name="UnbindBackward0")
    check_grad(lambda t, x: x.split(2, 1)[0] * 2, M)
    check_grad(lambda t, x: x.split(4, 1)[0], M, name="SplitBackward0")  # a single piece


def test_view_then_inplace_on_base_is_allowed():
    # Views save only shapes, so changing the base after taking a view keeps backward working.
    for lib in (torch, torchpy):
        x = lib.tensor(M, requires_grad=True)
        base = x * 1
        y = base.view(12).sum() + base.select(0, 1).sum() + base.t().sum()
        base.mul_(2)
        y.backward()
        assert x.grad.tolist() == [[2.0] * 4, [3.0] * 4, [2.0] * 4]


# --- copies and fills --------------------------------------------------------------------------


def test_copy_():
    check_grad(lambda t, x, y: (x * 1).copy_(y), M, rand(4, seed=2), name="torch::autograd::CopyBackwards")
    check_grad(lambda t, x, y: t.zeros(3, 4, dtype=t.float32).copy_(y), M, rand(4, seed=2),
               name="torch::autograd::CopyBackwards")
    check_grad(lambda t, x, y: (x * 1).copy_(y), M, Const(rand(3, 4)), name="torch::autograd::CopyBackwards")


def test_copy_functional_is_not_implemented():
    for lib in (torch, torchpy):
        x = lib.tensor(M, requires_grad=True)
        out = lib.ops.aten.copy(x, lib.ones(3, 4, dtype=lib.float64))
        assert out.grad_fn.name() == "torch::autograd::NotImplemented"
        assert repr(out.grad_fn).startswith("<NotImplemented object at")
        with pytest.raises(RuntimeError, match="derivative for aten::copy is not implemented"):
            out.sum().backward()


def test_fill_and_zero():
    check_grad(lambda t, x: t.ops.aten.fill.Scalar(x, 1.5) * x, M, name="MulBackward0")
    check_grad(lambda t, x: t.ops.aten.fill.Scalar(x, 1.5), M, name="FillBackward0")
    check_grad(lambda t, x, v: t.ops.aten.fill.Tensor(x, v), M, np.array(2.0), name="FillBackward1")
    check_grad(lambda t, x: (x * 1).fill_(1.5), M, name="FillBackward2")
    check_grad(lambda t, x, v: (x * 1).fill_(v), M, np.array(2.0), name="FillBackward3")
    check_grad(lambda t, x: (x * 1).zero_(), M, name="ZeroBackward0")
    check_grad(lambda t, x: t.ops.aten.zero(x), M, name="ZeroBackward0")


@pytest.mark.parametrize("fn, name", [
    (lambda t, x: (x * 1).uniform_(), "UniformBackward0"),
    (lambda t, x: (x * 1).normal_(), "NormalBackward0"),
    (lambda t, x: (x * 1).random_(), "RandomBackward2"),
    (lambda t, x: (x * 1).random_(0, 5), "RandomBackward0"),
    (lambda t, x: (x * 1).random_(5), "RandomBackward1"),
    (lambda t, x: (x * 1).exponential_(), "ExponentialBackward0"),
])
def test_random_fills_have_zero_gradient(fn, name):
    check_grad(fn, M, name=name)


@pytest.mark.parametrize("fn", [
    lambda t, x: x.detach(),
    lambda t, x: t.zeros_like(x),
    lambda t, x: t.ones_like(x),
    lambda t, x: t.empty_like(x),
    lambda t, x: t.full_like(x, 2.0),
    lambda t, x: t.rand_like(x),
    lambda t, x: t.randn_like(x),
    lambda t, x: t.randint_like(x, 5),
    lambda t, x: x.new_zeros(2),
    lambda t, x: x.new_ones(2),
    lambda t, x: x.new_empty(2),
    lambda t, x: x.new_full((2,), 1.0),
    lambda t, x: x.new_empty_strided((2,), (1,)),
    lambda t, x: x.view(t.float64),
])
def test_not_differentiable(fn):
    for lib in (torch, torchpy):
        out = fn(lib, lib.tensor(M, requires_grad=True))
        assert not out.requires_grad and out.grad_fn is None, lib.__name__


# --- cat / stack -------------------------------------------------------------------------------


def test_cat():
    check_grad(lambda t, x, y: t.cat([x, y]), M, rand(2, 4, seed=3), name="CatBackward0")
    check_grad(lambda t, x, y: t.cat([x, y], -1), M, rand(3, 2, seed=3), name="CatBackward0")
    check_grad(lambda t, x, y, z: t.cat([x, y, z], 1), M, Const(rand(3, 1)), Strided(rand(3, 2, seed=4)),
               name="CatBackward0")
    check_grad(lambda t, x: t.cat([x]), M, name="CatBackward0")


def test_cat_with_legacy_empty_tensor():
    check_grad(lambda t, x, e: t.cat([x, e, x], 1), M, np.zeros((0,)), name="CatBackward0")


def test_stack():
    check_grad(lambda t, x, y: t.stack([x, y]), M, rand(3, 4, seed=3), name="StackBackward0")
    check_grad(lambda t, x, y: t.stack([x, y], -1), M, Const(rand(3, 4, seed=3)), name="StackBackward0")
    check_grad(lambda t, x, y: t.stack([x, y], 1), Strided(M), rand(3, 4, seed=3), name="StackBackward0")


@pytest.mark.parametrize("fn", [
    lambda t, x: x.view(4, 3).t() * x,
    lambda t, x: x[1:, ::2].sum(0) * x[0, 1:3],
    lambda t, x: t.cat([x, x * x]).unbind(0)[2],
    lambda t, x: t.stack([x, x.exp()]).diagonal(0, 1, 2),
    lambda t, x: x.unsqueeze(0).expand(2, 3, 4) * x,
    lambda t, x: x.as_strided((2, 2), (1, 2)) * x.as_strided((2, 2), (2, 1)),
])
def test_second_order(fn):
    check_grad(fn, M, second_order=True)


def test_repr_shows_torch_short_node_names():
    for lib in (torch, torchpy):
        x = lib.ones(2, dtype=lib.float64, requires_grad=True)
        copied = lib.zeros(2, dtype=lib.float64).copy_(x * 1)
        assert copied.grad_fn.name() == "torch::autograd::CopyBackwards"
        assert type(copied.grad_fn).__name__ == "CopyBackwards"
        assert repr(copied).endswith("grad_fn=<CopyBackwards>)"), repr(copied)
        assert type((x * 2).grad_fn).__name__ == "MulBackward0"
