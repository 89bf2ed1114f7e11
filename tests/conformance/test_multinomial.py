"""multinomial and exponential_ against torch: the same draws from the same seed (torch's CPU
kernels' stream), the same dtypes and shapes, torch's errors."""

import numpy as np
import torch

import torchpy
import pytest

from tests.oracle import EXACT, Input, check

WEIGHTS = np.array([0.1, 0.9, 0.4, 0.7, 3.0, 0.6, 0.0, 2.5])


def _seeded(fn):
    def run(t, *args):
        t.manual_seed(12)
        out = fn(t, *args)
        return out, t.rand(2)  # the stream moved by as many draws as torch's
    return run


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("n,replacement", [(1, False), (1, True), (5, False), (8, False), (40, True)])
def test_multinomial_one_row(dtype, n, replacement):
    check(_seeded(lambda t, w: t.multinomial(w, n, replacement)), Input(WEIGHTS, dtype), policy=EXACT)


@pytest.mark.parametrize("replacement", [False, True])
def test_multinomial_rows_method_and_generator(replacement):
    rows = np.random.default_rng(0).random((4, 300))

    def run(t, w):
        g = t.Generator().manual_seed(5)
        return w.multinomial(100, replacement, generator=g), t.multinomial(w[0], 3, generator=g)
    check(run, Input(rows, "float64"), policy=EXACT)


def test_multinomial_out():
    def run(t, w):
        t.manual_seed(1)
        out = t.empty(0, dtype=t.int64)
        result = t.multinomial(w, 4, True, out=out)
        return out, result is out
    check(run, Input(WEIGHTS, "float32"), policy=EXACT)


def test_multinomial_empty_rows():
    check(lambda t, w: t.multinomial(w, 2, True), Input(np.zeros((0, 3)), "float32"), policy=EXACT)


@pytest.mark.parametrize("weights,n,replacement", [
    ([1.0, 2.0], 3, False), ([1.0, 2.0], 0, True), ([1, 2], 1, False), (1.0, 1, False),
    ([-1.0, 2.0], 1, False), ([-1.0, 2.0], 2, True), ([np.inf, 2.0], 2, True), ([np.nan, 2.0], 1, False),
    ([0.0, 0.0], 2, True), ([0.0, 0.0], 1, False), ([[1.0, 0.0], [0.0, 0.0]], 1, False),
])
def test_multinomial_errors(weights, n, replacement):
    check(lambda t, w: t.multinomial(w, n, replacement), Input(np.array(weights)), expect_error=RuntimeError)


def test_multinomial_out_dtype_error():
    check(lambda t, w: t.multinomial(w, 2, out=t.empty(2)), Input(WEIGHTS), expect_error=RuntimeError)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("lambd", [1.0, 2.5, 0.3])
def test_exponential_(dtype, lambd):
    def run(t, x):
        t.manual_seed(3)
        return x.exponential_(lambd), x.exponential_(lambd, generator=t.Generator().manual_seed(4))
    check(run, Input(np.zeros(50), dtype), policy=EXACT)


@pytest.mark.parametrize("lambd,dtype", [(0.0, "float32"), (-1.0, "float32"), (1.0, "int64")])
def test_exponential_errors(lambd, dtype):
    check(lambda t, x: x.exponential_(lambd), Input(np.zeros(3), dtype), expect_error=RuntimeError)


def test_meta():
    def run(t):
        w = t.ones(3, 4, device="meta")
        out = t.empty(0, dtype=t.int64, device="meta")
        return [(tuple(r.shape), str(r.dtype), r.device.type) for r in
                (t.multinomial(w, 2), t.multinomial(w[0], 3, True), t.multinomial(w, 5, out=out),
                 t.empty(3, device="meta").exponential_(2.0))]
    assert run(torchpy) == run(torch)


@pytest.mark.parametrize("fn", [lambda t: t.multinomial(t.ones(2, 2, 2, device="meta"), 1),
                                lambda t: t.empty(3, device="meta").exponential_(-1)])
def test_meta_errors(fn):
    check(fn, expect_error=RuntimeError)
