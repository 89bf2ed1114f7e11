"""Reductions, scans, norms, softmax and sorting: gradients and node names against torch."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import torchpy

from tests.autograd.test_formulas import Const, Strided, check_grad, positive, rand

A = rand(3, 4, 5)
M = rand(3, 4, seed=1)
# Ties (for max / amax / sort) and zeros (for prod / cumprod).
TIES = np.array([[1.0, 3.0, 3.0, -1.0], [2.0, 2.0, 0.5, 2.0], [-4.0, 0.0, -4.0, 1.0]])
ZEROS = np.array([[1.5, 0.0, 2.0, -1.0], [0.0, 0.0, 0.5, 2.0], [-1.5, 0.7, 1.2, 0.9]])



@pytest.mark.parametrize("fn, name", [
    (lambda t, x: x.sum(), "SumBackward0"),
    (lambda t, x: x.sum(1), "SumBackward1"),
    (lambda t, x: x.sum((0, 2), keepdim=True), "SumBackward1"),
    (lambda t, x: x.sum(-1, dtype=t.float32), "SumBackward1"),
    (lambda t, x: t.ops.aten.sum.dim_IntList(x, []), "SumBackward1"),
    (lambda t, x: x.mean(), "MeanBackward0"),
    (lambda t, x: x.mean(1), "MeanBackward1"),
    (lambda t, x: x.mean((0, -1), keepdim=True), "MeanBackward1"),
    (lambda t, x: x.nansum(), "NansumBackward0"),
    (lambda t, x: x.nansum(1, keepdim=True), "NansumBackward0"),
    (lambda t, x: x.prod(), "ProdBackward0"),
    (lambda t, x: x.prod(1), "ProdBackward1"),
    (lambda t, x: x.prod(-1, keepdim=True), "ProdBackward1"),
    (lambda t, x: x.logsumexp(1), "LogsumexpBackward0"),
    (lambda t, x: x.logsumexp((0, 2), keepdim=True), "LogsumexpBackward0"),
    (lambda t, x: x.var(), "VarBackward0"),
    (lambda t, x: x.var(1), "VarBackward0"),
    (lambda t, x: x.var((0, 2), keepdim=True, correction=0), "VarBackward0"),
    (lambda t, x: x.var(1, unbiased=False), "VarBackward0"),
    (lambda t, x: x.std(), "StdBackward0"),
    (lambda t, x: x.std(2, correction=2, keepdim=True), "StdBackward0"),
    (lambda t, x: t.var_mean(x, 1), "VarMeanBackward0"),
    (lambda t, x: t.var_mean(x), "VarMeanBackward0"),
    (lambda t, x: t.std_mean(x, (0, 1), keepdim=True), "StdMeanBackward0"),
    (lambda t, x: x.cumsum(1), "CumsumBackward0"),
    (lambda t, x: x.cumsum(-1, dtype=t.float32), "CumsumBackward0"),
    (lambda t, x: x.cumprod(1), "CumprodBackward0"),
    (lambda t, x: t.linalg.vector_norm(x), "LinalgVectorNormBackward0"),
    (lambda t, x: t.linalg.vector_norm(x, 1, dim=1), "LinalgVectorNormBackward0"),
    (lambda t, x: t.linalg.vector_norm(x, 3, dim=(0, 2), keepdim=True), "LinalgVectorNormBackward0"),
    (lambda t, x: t.linalg.vector_norm(x, 0.5, dim=1), "LinalgVectorNormBackward0"),
    (lambda t, x: t.linalg.vector_norm(x, math.inf, dim=1), "LinalgVectorNormBackward0"),
    (lambda t, x: t.linalg.vector_norm(x, -math.inf), "LinalgVectorNormBackward0"),
    (lambda t, x: x.norm(), "LinalgVectorNormBackward0"),
    (lambda t, x: t.ops.aten.norm.Scalar(x, 3), "NormBackward0"),
    (lambda t, x: t.ops.aten.norm.ScalarOpt_dim(x, 1.5, [1]), "NormBackward1"),
    (lambda t, x: t.ops.aten.norm.ScalarOpt_dim(x, None, [1], True), "NormBackward1"),
    (lambda t, x: t.ops.aten.norm.ScalarOpt_dtype(x, 2, dtype=t.float64), "NormBackward2"),
    (lambda t, x: t.ops.aten.norm.ScalarOpt_dim_dtype(x, 4, [0, 2], False, dtype=t.float64), "NormBackward3"),
    (lambda t, x: t.ops.aten._softmax(x, 1, False), "SoftmaxBackward0"),
    (lambda t, x: t.ops.aten._log_softmax(x, -1, False), "LogSoftmaxBackward0"),
    (lambda t, x: x.softmax(0), "SoftmaxBackward0"),
    (lambda t, x: x.log_softmax(2), "LogSoftmaxBackward0"),
    (lambda t, x: x.amax(1), "AmaxBackward0"),
    (lambda t, x: x.amin((0, 2), keepdim=True), "AminBackward0"),
    (lambda t, x: x.max(), "MaxBackward1"),
    (lambda t, x: x.min(), "MinBackward1"),
    (lambda t, x: x.max(1), "MaxBackward0"),
    (lambda t, x: x.min(-1, keepdim=True), "MinBackward0"),
    (lambda t, x: t.aminmax(x), "AminmaxBackward0"),
    (lambda t, x: t.aminmax(x, dim=1, keepdim=True), "AminmaxBackward0"),
    (lambda t, x: x.sort(1), "SortBackward0"),
    (lambda t, x: x.sort(descending=True), "SortBackward0"),
    (lambda t, x: x.sort(dim=0, stable=True), "SortBackward1"),
    (lambda t, x: x.msort(), "SortBackward0"),
    (lambda t, x: x.topk(2), "TopkBackward0"),
    (lambda t, x: x.topk(2, dim=0, largest=False), "TopkBackward0"),
])
def test_reduction(fn, name):
    check_grad(fn, A, name=name)
    check_grad(fn, Strided(A.transpose(2, 1, 0).copy()), name=name)


@pytest.mark.parametrize("fn, name", [
    (lambda t, x: x.max(), "MaxBackward1"),
    (lambda t, x: x.min(), "MinBackward1"),
    (lambda t, x: x.amax(1), "AmaxBackward0"),
    (lambda t, x: x.amax(), "AmaxBackward0"),
    (lambda t, x: x.amin(0, keepdim=True), "AminBackward0"),
    (lambda t, x: t.aminmax(x, dim=1), "AminmaxBackward0"),
    (lambda t, x: t.linalg.vector_norm(x, math.inf, dim=1), "LinalgVectorNormBackward0"),
    (lambda t, x: x.max(1), "MaxBackward0"),
])
def test_ties(fn, name):
    check_grad(fn, TIES, name=name)


@pytest.mark.parametrize("fn, name", [
    (lambda t, x: x.prod(), "ProdBackward0"),
    (lambda t, x: x.prod(0), "ProdBackward1"),
    (lambda t, x: x.prod(1, keepdim=True), "ProdBackward1"),
    (lambda t, x: x.cumprod(0), "CumprodBackward0"),
    (lambda t, x: x.cumprod(1), "CumprodBackward0"),
    (lambda t, x: t.linalg.vector_norm(x, 0.5), "LinalgVectorNormBackward0"),
    (lambda t, x: t.linalg.vector_norm(x, 2, dim=0), "LinalgVectorNormBackward0"),
    (lambda t, x: x.std(1), "StdBackward0"),
])
def test_zeros(fn, name):
    check_grad(fn, ZEROS, name=name)
    check_grad(fn, np.zeros((2, 3)), name=name)


def test_nan_handling():
    values = np.array([[1.0, np.nan, 2.0], [0.5, 0.25, -1.0]])
    check_grad(lambda t, x: x.nansum(1), values, name="NansumBackward0")
    check_grad(lambda t, x: x.max(), values, name="MaxBackward1")


def test_scalar_inputs():
    x = np.array(1.5)
    check_grad(lambda t, x: x.sum(0), x, name="SumBackward1")
    check_grad(lambda t, x: x.prod(0), x, name="ProdBackward1")
    check_grad(lambda t, x: x.cumsum(0), x, name="CumsumBackward0")
    check_grad(lambda t, x: x.cumprod(0), x, name="CumprodBackward0")
    check_grad(lambda t, x: x.max(0), x, name="MaxBackward0")
    check_grad(lambda t, x: x.logsumexp(0), x, name="LogsumexpBackward0")
    check_grad(lambda t, x: x.sort(0), x, name="SortBackward0")


def test_inplace_scans():
    check_grad(lambda t, x: (x * 1).cumsum_(1), M, name="CumsumBackward0")
    check_grad(lambda t, x: (x * 1).cumprod_(0), M, name="CumprodBackward0")


def test_one_output_used():
    # The other output's gradient is zero (torch and torchpy fill it in).
    check_grad(lambda t, x: t.var_mean(x, 1)[1], M, name="VarMeanBackward0")
    check_grad(lambda t, x: t.aminmax(x)[0], TIES, name="AminmaxBackward0")
    check_grad(lambda t, x: x.sort(0)[0][1], M)


@pytest.mark.parametrize("fn, inputs", [
    (lambda t, x: x.sum(1) * x.sum(0, keepdim=True).sum(), (M,)),
    (lambda t, x: x.mean(0).pow(2), (M,)),
    (lambda t, x: x.softmax(1), (M,)),
    (lambda t, x: x.log_softmax(0), (M,)),
    (lambda t, x: x.prod(1), (M,)),
    (lambda t, x: x.cumprod(1), (M,)),
    (lambda t, x: x.cumsum(0) * x, (M,)),
    (lambda t, x: x.var(1), (M,)),
    (lambda t, x: x.std(0), (M,)),
    (lambda t, x: x.logsumexp(1), (M,)),
    (lambda t, x: x.norm(), (M,)),
    (lambda t, x: t.linalg.vector_norm(x, 3, dim=1), (M,)),
    (lambda t, x: x.amax(1) * x.sum(), (M,)),
    (lambda t, x: x.sort(1)[0] * x, (M,)),
])
def test_second_order(fn, inputs):
    check_grad(fn, *inputs, second_order=True)


def test_norm_of_order_zero_has_no_gradient():
    # torch's formula gives an undefined gradient: .grad stays None.
    for lib in (torch, torchpy):
        x = lib.tensor(M, requires_grad=True)
        y = lib.linalg.vector_norm(x, 0, dim=1)
        assert y.grad_fn.name() == "LinalgVectorNormBackward0"
        y.sum().backward()
        assert x.grad is None
    check_grad(lambda t, x: t.linalg.vector_norm(x, 0, dim=1) + x.sum(1), M)


def test_masked_reduction_composition():
    check_grad(lambda t, x, m: t.where(m, x, 0.0).sum(1), M, Const(M > 0), name="SumBackward1")
    check_grad(lambda t, x: positive_only(t, x).mean(), positive(3, 4), name="MeanBackward0")


def positive_only(t, x):
    return x.clamp(min=0.6)
