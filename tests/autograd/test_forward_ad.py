"""Forward-mode AD against torch.autograd.forward_ad: tangents of every op family, dual
tensor semantics (views, in-place), errors, reverse over forward, autograd.Function.jvp.

`check_jvp(fn, *inputs)` runs `fn(lib, *tensors)` in torch and torchpy inside a dual level:
NumPy arrays become dual tensors with a random float64 tangent, `Const` values plain tensors.
Every output's primal and tangent (or its absence) must match torch's.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np
import pytest
import torch

import torchpy
from tests.oracle import assert_values, scaled, ulp
from torchpy.autograd.derivatives import FORMULAS
from torchpy.autograd.derivatives.forward import FORWARD, KINDS

LIBS = (torch, torchpy)


@dataclasses.dataclass
class Const:
    """A tensor argument without a tangent (an index, a mask, a second operand)."""

    values: Any
    dtype: str = "float64"


def rand(*shape: int, seed: int = 0, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    rng = np.random.default_rng(7919 * seed + 31 * len(shape) + sum(shape))
    return rng.uniform(low, high, shape)


def positive(*shape: int, seed: int = 0) -> np.ndarray:
    return rand(*shape, seed=seed, low=0.5, high=2.5)


def _to_numpy(lib: Any, t: Any) -> np.ndarray:
    with lib.no_grad():
        return np.array(t.detach().tolist() if t.dim() else t.item())


def run_jvp(lib: Any, fn: Callable, inputs: tuple) -> list:
    fwAD = lib.autograd.forward_ad
    results = []
    with fwAD.dual_level():
        args = []
        for i, a in enumerate(inputs):
            if isinstance(a, Const):
                args.append(lib.tensor(a.values, dtype=getattr(lib, a.dtype)))
            else:
                tangent = rand(*np.shape(a), seed=100 + i)
                args.append(fwAD.make_dual(lib.tensor(a, dtype=lib.float64), lib.tensor(tangent, dtype=lib.float64)))
        out = fn(lib, *args)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        for o in outs:
            primal, tangent = fwAD.unpack_dual(o)
            results.append((_to_numpy(lib, primal), None if tangent is None else _to_numpy(lib, tangent),
                            str(o.dtype).split(".")[-1]))
    return results


def check_jvp(fn: Callable, *inputs: Any) -> None:
    expected = run_jvp(torch, fn, inputs)
    actual = run_jvp(torchpy, fn, inputs)
    assert len(actual) == len(expected)
    for (p, t, dt), (ep, et, edt) in zip(actual, expected):
        assert dt == edt
        assert_values(p, ep, scaled(rtol=1e-10, atol=1e-12), dt, "primal")
        assert (t is None) == (et is None), f"tangent presence differs: torchpy {t}, torch {et}"
        if t is not None:
            assert t.shape == et.shape
            assert_values(t, et, scaled(rtol=1e-9, atol=1e-11), dt, "tangent")


# --- pointwise -------------------------------------------------------------------------------

UNARY = {
    "sin": lambda L, x: x.sin(), "cos": lambda L, x: L.cos(x), "tan": lambda L, x: x.tan(),
    "exp": lambda L, x: x.exp(), "exp2": lambda L, x: x.exp2(), "expm1": lambda L, x: x.expm1(),
    "tanh": lambda L, x: x.tanh(), "sigmoid": lambda L, x: L.sigmoid(x), "relu": lambda L, x: L.relu(x),
    "abs": lambda L, x: x.abs(), "neg": lambda L, x: -x, "atan": lambda L, x: x.atan(),
    "erf": lambda L, x: x.erf(), "erfc": lambda L, x: x.erfc(), "sinh": lambda L, x: x.sinh(),
    "cosh": lambda L, x: x.cosh(), "floor": lambda L, x: x.floor(), "round": lambda L, x: x.round(),
    "frac": lambda L, x: x.frac(), "sign": lambda L, x: x.sign(), "square": lambda L, x: x.square(),
    "pow_scalar": lambda L, x: x ** 3, "pow_half": lambda L, x: x.abs() ** 0.5,
    "clamp": lambda L, x: x.clamp(-0.5, 0.7), "clamp_min": lambda L, x: x.clamp(min=0.1),
    "clamp_max": lambda L, x: L.clamp_max(x, 0.2), "nan_to_num": lambda L, x: x.nan_to_num(),
    "scalar_ops": lambda L, x: (x + 2, x - 1, 3 - x, x * 3, x / 4, 2 / x, x % 1.5, x.fmod(1.5)),
    "gelu_like": lambda L, x: x * L.sigmoid(1.702 * x),
}
POSITIVE_UNARY = {
    "log": lambda L, x: x.log(), "log2": lambda L, x: x.log2(), "log10": lambda L, x: x.log10(),
    "log1p": lambda L, x: x.log1p(), "sqrt": lambda L, x: x.sqrt(), "rsqrt": lambda L, x: x.rsqrt(),
    "reciprocal": lambda L, x: x.reciprocal(), "asin": lambda L, x: (x / 3).asin(),
    "acos": lambda L, x: (x / 3).acos(), "scalar_pow": lambda L, x: 2.0 ** x,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name: str) -> None:
    check_jvp(UNARY[name], rand(3, 4))


@pytest.mark.parametrize("name", sorted(POSITIVE_UNARY))
def test_unary_positive_domain(name: str) -> None:
    check_jvp(POSITIVE_UNARY[name], positive(3, 4))


BINARY = {
    "add": lambda L, a, b: L.add(a, b, alpha=2), "sub": lambda L, a, b: a - b, "mul": lambda L, a, b: a * b,
    "div": lambda L, a, b: a / (b.abs() + 1), "atan2": lambda L, a, b: L.atan2(a, b),
    "maximum": lambda L, a, b: L.maximum(a, b), "minimum": lambda L, a, b: L.minimum(a, b),
    "fmax": lambda L, a, b: L.fmax(a, b), "fmin": lambda L, a, b: L.fmin(a, b),
    "logaddexp": lambda L, a, b: L.logaddexp(a, b), "logaddexp2": lambda L, a, b: L.logaddexp2(a, b),
    "xlogy": lambda L, a, b: L.xlogy(a, b.abs() + 0.1),
    "asinh": lambda L, a, b: L.asinh(a * b), "deg2rad": lambda L, a, b: L.deg2rad(a - b),
    "tril": lambda L, a, b: L.tril(a * b, 1), "triu": lambda L, a, b: L.triu(a + b),
    "hypot": lambda L, a, b: L.hypot(a, b), "lerp": lambda L, a, b: L.lerp(a, b, 0.3),
    "lerp_tensor": lambda L, a, b: L.lerp(a, b, b.sigmoid()), "rsub": lambda L, a, b: L.rsub(a, b),
    "where": lambda L, a, b: L.where(a > 0, a, b), "pow": lambda L, a, b: a.abs().add(0.5) ** b,
    "remainder": lambda L, a, b: L.remainder(a, b.abs() + 1), "fmod": lambda L, a, b: L.fmod(a, b.abs() + 1),
    "clamp_tensor": lambda L, a, b: a.clamp(min=b, max=b + 1), "max_other": lambda L, a, b: L.max(a, b),
    "div_floor": lambda L, a, b: L.div(a, b.abs() + 1, rounding_mode="floor"),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((4,), (2, 3, 4))])
def test_binary_broadcasting(name: str, shapes: tuple) -> None:
    a, b = rand(*shapes[0], seed=1), rand(*shapes[1], seed=2)
    check_jvp(BINARY[name], a, b)
    check_jvp(BINARY[name], a, Const(b))  # only one operand has a tangent
    check_jvp(BINARY[name], Const(a), b)


def test_copysign_tangent_comes_from_self() -> None:
    # (torch gives no tangent at all when only `other` has one; torchpy gives zeros: not checked)
    check_jvp(lambda L, x, y: L.copysign(x, y), rand(3, 4, seed=1), Const(rand(3, 4, seed=2)))
    check_jvp(lambda L, x: L.copysign(x, -2.0), rand(3, 4, seed=1))


def test_ties_split_like_torch() -> None:
    a = np.array([1.0, 2.0, 3.0])
    check_jvp(lambda L, x, y: L.maximum(x, y), a, a.copy())
    check_jvp(lambda L, x: x.amax(), np.array([1.0, 3.0, 3.0]))
    check_jvp(lambda L, x: x.max(), np.array([3.0, 1.0, 3.0]))


# --- reductions ------------------------------------------------------------------------------

REDUCTIONS = {
    "sum": lambda L, x: x.sum(), "sum_dims": lambda L, x: x.sum((0, 2), keepdim=True),
    "mean_dim": lambda L, x: x.mean(1), "prod": lambda L, x: x.prod(), "prod_dim": lambda L, x: x.prod(1, keepdim=True),
    "amax": lambda L, x: x.amax((0, 1)), "amin": lambda L, x: x.amin(-1, keepdim=True),
    "max": lambda L, x: x.max(), "min": lambda L, x: x.min(),
    "max_dim": lambda L, x: tuple(x.max(1)), "min_dim": lambda L, x: tuple(x.min(0, keepdim=True)),
    "var": lambda L, x: x.var(1), "std": lambda L, x: x.std((0, 2), keepdim=True),
    "var_correction": lambda L, x: L.var(x, 1, correction=0), "var_mean": lambda L, x: L.var_mean(x, 1),
    "std_mean": lambda L, x: L.std_mean(x, (0, 1), keepdim=True),
    "logsumexp": lambda L, x: x.logsumexp(1), "norm": lambda L, x: x.norm(),
    "norm_dim": lambda L, x: x.norm(p=3, dim=1), "vector_norm": lambda L, x: L.linalg.vector_norm(x, ord=1.5, dim=(1, 2)),
    "nansum": lambda L, x: x.nansum(0), "cumsum": lambda L, x: x.cumsum(1), "cumprod": lambda L, x: x.cumprod(2),
    "aminmax": lambda L, x: tuple(L.aminmax(x, dim=1)), "softmax": lambda L, x: x.softmax(1),
    "log_softmax": lambda L, x: L.log_softmax(x, -1), "functional_softmax": lambda L, x: L.nn.functional.softmax(x, dim=0),
    "sort": lambda L, x: tuple(x.sort(1)), "topk": lambda L, x: tuple(x.topk(2, dim=-1)),
    "argmax": lambda L, x: x.argmax(1),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(name: str) -> None:
    check_jvp(REDUCTIONS[name], rand(2, 3, 4))


# --- views -----------------------------------------------------------------------------------

VIEWS = {
    "view": lambda L, x: x.view(4, 6), "reshape": lambda L, x: x.reshape(-1), "t": lambda L, x: x[0].t(),
    "transpose": lambda L, x: x.transpose(0, 2), "permute": lambda L, x: x.permute(2, 0, 1),
    "select": lambda L, x: x[1], "slice": lambda L, x: x[:, 1:3, ::2], "diagonal": lambda L, x: x.diagonal(0, 1, 2),
    "expand": lambda L, x: x[:, :1].expand(2, 5, 4), "unsqueeze": lambda L, x: x.unsqueeze(1),
    "squeeze": lambda L, x: x[:, :1].squeeze(1), "unbind": lambda L, x: x.unbind(1),
    "split": lambda L, x: x.split(2, dim=2), "chunk": lambda L, x: x.chunk(3, 1),
    "unfold": lambda L, x: x.unfold(2, 2, 1), "flatten": lambda L, x: x.flatten(1),
    "narrow": lambda L, x: x.narrow(1, 1, 2), "as_strided": lambda L, x: x.as_strided((3, 2), (4, 1), 1),
    "movedim": lambda L, x: x.movedim(0, -1), "mT": lambda L, x: x.mT,
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views(name: str) -> None:
    check_jvp(VIEWS[name], rand(2, 3, 4))


def test_view_tangent_is_view_of_tangent() -> None:
    fwAD = torchpy.autograd.forward_ad
    with fwAD.dual_level():
        d = fwAD.make_dual(torchpy.randn(3, 4, dtype=torchpy.float64), torchpy.randn(3, 4, dtype=torchpy.float64))
        v = d[1:].t()
        tangent = fwAD.unpack_dual(v).tangent
        assert tangent._base is fwAD.unpack_dual(d).tangent
        assert tangent.stride() == v.stride()


# --- matrix products -------------------------------------------------------------------------

MATMUL = {
    "mm": (lambda L, a, b: a.mm(b), (3, 4), (4, 5)),
    "bmm": (lambda L, a, b: L.bmm(a, b), (2, 3, 4), (2, 4, 5)),
    "mv": (lambda L, a, b: a.mv(b), (3, 4), (4,)),
    "dot": (lambda L, a, b: a.dot(b), (4,), (4,)),
    "vdot": (lambda L, a, b: L.vdot(a, b), (4,), (4,)),
    "matmul_3d_2d": (lambda L, a, b: a @ b, (2, 3, 4), (4, 5)),
    "matmul_broadcast": (lambda L, a, b: L.matmul(a, b), (2, 1, 3, 4), (3, 4, 2)),
    "matmul_vec": (lambda L, a, b: L.matmul(a, b), (4,), (2, 4, 3)),
    "linear": (lambda L, a, b: L.nn.functional.linear(a, b), (2, 4), (3, 4)),
    "outer": (lambda L, a, b: L.outer(a, b), (3,), (4,)),
    "einsum": (lambda L, a, b: L.einsum("ij,jk->ik", a, b), (3, 4), (4, 2)),
}


@pytest.mark.parametrize("name", sorted(MATMUL))
def test_matmul_family(name: str) -> None:
    fn, sa, sb = MATMUL[name]
    check_jvp(fn, rand(*sa, seed=3), rand(*sb, seed=4))
    check_jvp(fn, rand(*sa, seed=3), Const(rand(*sb, seed=4)))


def test_addmm_family() -> None:
    check_jvp(lambda L, c, a, b: L.addmm(c, a, b, beta=0.5, alpha=2), rand(3, 5), rand(3, 4), rand(4, 5))
    check_jvp(lambda L, c, a, b: L.addmm(c, a, b), rand(5), Const(rand(3, 4)), rand(4, 5))
    check_jvp(lambda L, c, a, b: L.baddbmm(c, a, b, alpha=3), rand(2, 3, 5), rand(2, 3, 4), rand(2, 4, 5))
    check_jvp(lambda L, c, a, b: L.addmv(c, a, b, beta=2), rand(3), rand(3, 4), rand(4))
    check_jvp(lambda L, w, x, b: L.nn.functional.linear(x, w, b), rand(3, 4), Const(rand(2, 4)), rand(3))


# --- indexing --------------------------------------------------------------------------------

INDEX = np.array([2, 0, 2])
MASK = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
INDEXING = {
    "index_tensor": lambda L, x: x[L.tensor(INDEX)],
    "index_2d": lambda L, x: x[L.tensor([0, 2]), L.tensor([1, 3])],
    "bool_mask": lambda L, x: x[L.tensor(MASK)],
    "index_select": lambda L, x: x.index_select(1, L.tensor(INDEX)),
    "gather": lambda L, x: x.gather(1, L.tensor([[0, 1], [3, 3], [2, 0]])),
    "take": lambda L, x: x.take(L.tensor([0, 5, 11])),
    "masked_select": lambda L, x: x.masked_select(L.tensor(MASK)),
    "masked_fill": lambda L, x: x.masked_fill(L.tensor(MASK), 2.0),
    "index_fill": lambda L, x: x.index_fill(1, L.tensor([0, 2]), -1.0),
    "scatter_value": lambda L, x: x.scatter(1, L.tensor([[0], [2], [1]]), 5.0),
}


@pytest.mark.parametrize("name", sorted(INDEXING))
def test_indexing(name: str) -> None:
    check_jvp(INDEXING[name], rand(3, 4))


WRITES = {
    "index_put": lambda L, x, v: x.index_put((L.tensor([0, 2]),), v[:2]),
    "index_put_accumulate": lambda L, x, v: x.index_put((L.tensor([0, 0]),), v[:2], accumulate=True),
    "index_add": lambda L, x, v: x.index_add(0, L.tensor([2, 0, 2]), v, alpha=2),
    "index_copy": lambda L, x, v: x.index_copy(0, L.tensor([2, 0, 1]), v),
    "scatter": lambda L, x, v: x.scatter(1, L.tensor([[0, 1, 2, 3]] * 3), v),
    "scatter_add": lambda L, x, v: x.scatter_add(0, L.tensor([[0, 1, 2, 0]] * 3), v),
    "scatter_reduce": lambda L, x, v: x.scatter_reduce(0, L.tensor([[0, 1, 2, 0]] * 3), v, "amax"),
    "masked_scatter": lambda L, x, v: x.masked_scatter(L.tensor(MASK), v),
    "masked_fill_tensor": lambda L, x, v: x.masked_fill(L.tensor(MASK), v[0, 0]),
    "index_fill_tensor": lambda L, x, v: x.index_fill(1, L.tensor([1]), v[1, 1]),
    "put": lambda L, x, v: x.put(L.tensor([1, 4]), v[0, :2]),
    "setitem": lambda L, x, v: _setitem(x, v),
}


def _setitem(x: Any, v: Any) -> Any:
    y = x.clone()
    y[1:, ::2] = v[:2, :2]
    return y


@pytest.mark.parametrize("name", sorted(WRITES))
def test_index_writes(name: str) -> None:
    check_jvp(WRITES[name], rand(3, 4, seed=5), rand(3, 4, seed=6))
    check_jvp(WRITES[name], Const(rand(3, 4, seed=5)), rand(3, 4, seed=6))
    check_jvp(WRITES[name], rand(3, 4, seed=5), Const(rand(3, 4, seed=6)))


# --- cat / stack, copies ---------------------------------------------------------------------


def test_cat_stack_and_copies() -> None:
    check_jvp(lambda L, a, b: L.cat([a, b], 1), rand(2, 3), Const(rand(2, 2)))
    check_jvp(lambda L, a, b: L.cat([a, b]), rand(2, 3), rand(1, 3))
    check_jvp(lambda L, a, b: L.stack([a, b], -1), Const(rand(2, 3)), rand(2, 3))
    check_jvp(lambda L, a: (a.clone(), a.float(), a.to(L.float32).double(), a.contiguous()), rand(2, 3).T)
    check_jvp(lambda L, a: (a.detach(), a.zeros_like() if False else L.zeros_like(a), a > 0), rand(2, 3))


# --- in-place ops ----------------------------------------------------------------------------

INPLACE = {
    "mul_": lambda L, x, y: x.mul_(y),
    "add_": lambda L, x, y: x.add_(y, alpha=3),
    "div_": lambda L, x, y: x.div_(y.abs() + 1),
    "sin_": lambda L, x, y: x.sin_(),
    "exp_then_sum": lambda L, x, y: x.exp_().sum(),
    "copy_": lambda L, x, y: x.copy_(y),
    "clamp_": lambda L, x, y: x.clamp_(-0.5, 0.5),
    "pow_": lambda L, x, y: x.abs_().pow_(2),
    "t_": lambda L, x, y: x.t_(),
    "unsqueeze_": lambda L, x, y: x.unsqueeze_(0),
    "view_mul_": lambda L, x, y: (x[1:].mul_(y[1:]), x),
    "base_sees_view_write": lambda L, x, y: (x.t()[0].copy_(y[:, 0]), x),
    "zero_": lambda L, x, y: x.zero_(),
    "fill_": lambda L, x, y: (x[0].fill_(2.0), x),
    "masked_fill_": lambda L, x, y: x.masked_fill_(L.tensor(MASK[:, :3]), 1.0),
    "index_add_": lambda L, x, y: x.index_add_(0, L.tensor([0, 0, 2]), y),
    "eq_": lambda L, x, y: x.eq_(y),
    "iadd": lambda L, x, y: _iadd(x, y),
}


def _iadd(x: Any, y: Any) -> Any:
    x += y
    x *= 2
    return x


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace(name: str) -> None:
    fn = INPLACE[name]
    check_jvp(fn, rand(3, 3, seed=7), rand(3, 3, seed=8))
    check_jvp(fn, rand(3, 3, seed=7), Const(rand(3, 3, seed=8)))
    check_jvp(lambda L, x, y: fn(L, x.clone(), y), Const(rand(3, 3, seed=7)), rand(3, 3, seed=8))


def test_inplace_into_view_of_plain_tensor_gives_base_a_tangent() -> None:
    def fn(L: Any, y: Any) -> Any:
        base = L.zeros(4, 3, dtype=L.float64)
        view = base[1:]
        view.copy_(y)
        return base, view, base.sum()

    check_jvp(fn, rand(3, 3))
    fwAD = torchpy.autograd.forward_ad
    with fwAD.dual_level():
        base = torchpy.zeros(4, 3, dtype=torchpy.float64)
        view = base[1:]
        view.mul_(fwAD.make_dual(torchpy.ones(3, 3, dtype=torchpy.float64), torchpy.ones(3, 3, dtype=torchpy.float64)))
        assert fwAD.unpack_dual(view).tangent._base is fwAD.unpack_dual(base).tangent


def test_inplace_updates_the_given_tangent_in_place() -> None:
    for lib in LIBS:
        fwAD = lib.autograd.forward_ad
        tangent = lib.ones(3, dtype=lib.float64)
        with fwAD.dual_level():
            d = fwAD.make_dual(lib.full((3,), 2.0, dtype=lib.float64), tangent)
            d.mul_(3)
            assert fwAD.unpack_dual(d).tangent is tangent
        assert tangent.tolist() == [3.0, 3.0, 3.0]


# --- the dual API: semantics and errors ------------------------------------------------------


def _outcome(fn: Callable) -> tuple:
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (the type and message are compared with torch's)
        return type(e).__name__, str(e)
    return ("ok", "")


def _compare_errors(make: Callable) -> None:
    expected = make(torch)
    actual = make(torchpy)
    assert actual == expected


def test_errors_match_torch() -> None:
    def scenario(lib: Any) -> list:
        fwAD = lib.autograd.forward_ad
        x = lib.ones(3, dtype=lib.float64)
        t = lib.ones(3, dtype=lib.float64)
        out = [_outcome(lambda: fwAD.make_dual(x, t)), _outcome(lambda: fwAD.exit_dual_level()),
               _outcome(lambda: fwAD.exit_dual_level(level=0))]
        with fwAD.dual_level() as level:
            out.append(("level", str(level)))
            out.append(_outcome(lambda: fwAD.make_dual(x, lib.ones(4, dtype=lib.float64))))
            out.append(_outcome(lambda: fwAD.make_dual(lib.ones(2, 3), lib.ones(3, 2))))
            out.append(_outcome(lambda: fwAD.make_dual(lib.arange(3), lib.ones(3))))
            out.append(_outcome(lambda: fwAD.make_dual(x, lib.arange(3))))
            out.append(_outcome(lambda: fwAD.enter_dual_level()))
            out.append(_outcome(lambda: fwAD.make_dual(x, t, level=5)))
            out.append(_outcome(lambda: fwAD.unpack_dual(x, level=3)))
            out.append(_outcome(lambda: fwAD.exit_dual_level(level=3)))
            d = fwAD.make_dual(x, t)
            out.append(_outcome(lambda: fwAD.make_dual(d, t)))
            out.append(_outcome(lambda: lib.sin(d, out=lib.empty(3, dtype=lib.float64))))
            out.append(_outcome(lambda: lib.add(d, 1, out=lib.empty(3, dtype=lib.float64))))
            out.append(_outcome(lambda: lib.mul(x, 2, out=lib.empty(3, dtype=lib.float64))))
            out.append(_outcome(lambda: lib.floor_divide(d, 2.0)))  # an op with no derivative
            out.append(_outcome(lambda: lib.ops.aten.copy.default(x, d)))
            out.append(_outcome(lambda: (d == 1, d.argmax(), d.isnan())))  # outputs without tangents
            # a failed call left the single level usable
            out.append(("tangent", str(fwAD.unpack_dual(d * 2).tangent.tolist())))
        out.append(("after", str(fwAD.unpack_dual(d).tangent)))
        out.append(_outcome(lambda: fwAD.make_dual(x, t)))
        with fwAD.dual_level() as level:  # levels can be entered again afterwards
            out.append(("again", str(level)))
        return out

    _compare_errors(scenario)


def test_tangents_are_deleted_when_the_level_exits() -> None:
    for lib in LIBS:
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            d = fwAD.make_dual(lib.ones(2, dtype=lib.float64), lib.ones(2, dtype=lib.float64))
            y = d.exp()
        assert fwAD.unpack_dual(y).tangent is None and fwAD.unpack_dual(d).tangent is None
        with fwAD.dual_level():
            assert fwAD.unpack_dual(y).tangent is None


def test_unpack_dual_primal_is_a_view_and_tangent_as_given() -> None:
    for lib in LIBS:
        fwAD = lib.autograd.forward_ad
        x = lib.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], dtype=lib.float64)
        same = lib.ones(2, 3, dtype=lib.float64)
        other_layout = lib.ones(3, 2, dtype=lib.float64).t()
        with fwAD.dual_level():
            d = fwAD.make_dual(x, same)
            primal, tangent = fwAD.unpack_dual(d)
            assert type(fwAD.unpack_dual(d)).__name__ == "UnpackedDualTensor"
            assert fwAD.unpack_dual(d)._fields == ("primal", "tangent")
            assert tangent is same
            assert d._base is x and primal._base is x
            assert primal.data_ptr() == x.data_ptr()
            assert fwAD.unpack_dual(primal).tangent is None
            assert fwAD.unpack_dual(d.detach()).tangent is None
            d2 = fwAD.make_dual(x, other_layout)
            t2 = fwAD.unpack_dual(d2).tangent
            assert t2 is not other_layout and t2.stride() == (3, 1)
            assert bool((t2 == other_layout).all())
        assert fwAD.unpack_dual(d) == (d, None)


def test_dual_level_as_decorator_and_fwd_grad_disabled() -> None:
    results = []
    for lib in LIBS:
        fwAD = lib.autograd.forward_ad

        @fwAD.dual_level()
        def f(x: Any) -> Any:
            d = fwAD.make_dual(x, lib.ones_like(x))
            with fwAD._set_fwd_grad_enabled(False):
                off = fwAD.unpack_dual(d.sin()).tangent
                enabled = fwAD._is_fwd_grad_enabled()
            return off, enabled, fwAD.unpack_dual(d.sin()).tangent.tolist()

        results.append(f(lib.tensor([0.5, 1.0], dtype=lib.float64)))
    assert results[0][:2] == results[1][:2]
    assert_values(results[1][2], results[0][2], ulp(2), "float64", "cos(x)")  # transcendental


# --- reverse over forward --------------------------------------------------------------------

REVERSE_OVER_FORWARD = {
    "sin": lambda L, x: x.sin(), "mul_self": lambda L, x: x * x.exp(),
    "softmax": lambda L, x: x.softmax(0), "prod": lambda L, x: x.prod(),
    "cumprod": lambda L, x: x.cumprod(0), "norm": lambda L, x: x.norm(),
    "matmul": lambda L, x: x.view(2, 2) @ x.view(2, 2),
}


@pytest.mark.parametrize("name", sorted(REVERSE_OVER_FORWARD))
def test_reverse_over_forward(name: str) -> None:
    # torch's own reverse-over-forward fails for softmax (its jvp writes a saved exp in place), so
    # torch's side takes J v by the double-backward trick (autograd.functional.jvp), then grad.
    fn = REVERSE_OVER_FORWARD[name]
    x = torch.tensor([0.3, -1.2, 0.8, 1.5], dtype=torch.float64, requires_grad=True)
    v = torch.tensor([1.0, 0.5, -2.0, 0.25], dtype=torch.float64)
    _, jv = torch.autograd.functional.jvp(lambda a: fn(torch, a), x, v, create_graph=True)
    (expected,) = torch.autograd.grad(jv.sum(), x)
    fwAD = torchpy.autograd.forward_ad
    x = torchpy.tensor(x.tolist(), dtype=torchpy.float64, requires_grad=True)
    with fwAD.dual_level():
        out = fn(torchpy, fwAD.make_dual(x, torchpy.tensor(v.tolist(), dtype=torchpy.float64)))
        tangent = fwAD.unpack_dual(out).tangent
        assert_values(tangent.tolist(), jv.tolist(), scaled(rtol=1e-10, atol=1e-15), path="tangent")
        (g,) = torchpy.autograd.grad(tangent.sum(), x)
    # softmax's tangents sum to zero: its gradient cancels to ~1e-17, either sign
    assert_values(g.tolist(), expected.tolist(), scaled(rtol=1e-10, atol=1e-15), path="grad")


def test_primal_and_dual_keep_reverse_history() -> None:
    names = []
    for lib in LIBS:
        fwAD = lib.autograd.forward_ad
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        with fwAD.dual_level():
            d = fwAD.make_dual(x, lib.ones(3, dtype=lib.float64))
            y = (d * 3).sum()
            y.backward()
        names.append((type(d.grad_fn).__name__, d.requires_grad, x.grad.tolist()))
    assert names[0] == names[1]


# --- autograd.Function.jvp -------------------------------------------------------------------


def _functions(lib: Any) -> dict:
    class MulFn(lib.autograd.Function):  # combined forward, save_for_forward
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_forward(x, y)
            return x * y

        @staticmethod
        def jvp(ctx, x_t, y_t):
            x, y = ctx.saved_tensors
            return x_t * y + x * y_t

    class ExpFn(lib.autograd.Function):  # setup_context style, no materialized tangents
        @staticmethod
        def forward(x):
            return x.exp()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_forward(output)
            ctx.set_materialize_grads(False)

        @staticmethod
        def jvp(ctx, x_t):
            (out,) = ctx.saved_tensors
            return None if x_t is None else x_t * out

        @staticmethod
        def backward(ctx, g):
            return g

    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class InplaceFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(3)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def jvp(ctx, x_t):
            x_t.mul_(3)
            return x_t

    class BadInplaceFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(3)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def jvp(ctx, x_t):
            return x_t * 3

    class ViewFn(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[0]

        @staticmethod
        def jvp(ctx, x_t):
            return x_t[0]

    class TwoOutputs(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.scale = scale
            return x * scale, x.argmax()

        @staticmethod
        def jvp(ctx, x_t, scale_t):
            assert scale_t is None  # a non-tensor input has no tangent
            return x_t * ctx.scale, None

    class WrongCount(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def jvp(ctx, x_t):
            return x_t * 2

    return {c.__name__: c for c in (MulFn, ExpFn, NoJvp, InplaceFn, BadInplaceFn, ViewFn, TwoOutputs, WrongCount)}


def test_function_jvp() -> None:
    def scenario(lib: Any) -> list:
        fwAD = lib.autograd.forward_ad
        F = _functions(lib)
        x = lib.tensor([1.0, 2.0], dtype=lib.float64)
        t = lib.tensor([1.0, 10.0], dtype=lib.float64)
        y = lib.tensor([3.0, 4.0], dtype=lib.float64)
        out = []

        def record(value: Any) -> None:
            values = value if isinstance(value, tuple) else (value,)
            for v in values:
                p, tan = fwAD.unpack_dual(v)
                out.append((p.tolist(), None if tan is None else tan.tolist()))

        with fwAD.dual_level():
            d = fwAD.make_dual(x, t)
            record(F["MulFn"].apply(d, y))
            record(F["MulFn"].apply(d, fwAD.make_dual(y, t)))
            record(F["MulFn"].apply(y, y))
            record(F["ExpFn"].apply(d))
            out.append(_outcome(lambda: F["NoJvp"].apply(d)))
            dirty = fwAD.make_dual(x.clone(), t.clone())
            r = F["InplaceFn"].apply(dirty)
            out.append(r is dirty)
            record(r)
            out.append(_outcome(lambda: F["BadInplaceFn"].apply(fwAD.make_dual(x.clone(), t.clone()))))
            record(F["ViewFn"].apply(d))
            record(F["TwoOutputs"].apply(d, 2.5))
            out.append(_outcome(lambda: F["WrongCount"].apply(d)))
        return out

    _compare_errors(scenario)


def test_function_jvp_with_reverse_mode() -> None:
    grads = []
    for lib in LIBS:
        fwAD = lib.autograd.forward_ad
        F = _functions(lib)
        x = lib.tensor([0.5, -0.25], dtype=lib.float64, requires_grad=True)
        with fwAD.dual_level():
            out = F["ExpFn"].apply(fwAD.make_dual(x, lib.ones(2, dtype=lib.float64)))
            out.sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]


# --- coverage --------------------------------------------------------------------------------


def test_every_backward_formula_has_a_forward_derivative() -> None:
    differentiable = {op for op, f in FORMULAS.items() if f.backward is not None}
    missing = sorted(differentiable - set(FORWARD))
    assert missing == []
    assert {f.kind for f in FORWARD.values()} <= set(KINDS)
    extra = sorted(set(FORWARD) - differentiable)
    assert extra == []


DOUBLE_VJP_CASES = {
    "aten::cumprod": lambda L, x: x.cumprod(1),
    "aten::scatter_reduce.two": lambda L, x: x.scatter_reduce(1, L.tensor([[0, 0, 1, 1]] * 3), x, "mean"),
    "aten::var_mean.correction": lambda L, x: L.var_mean(x, 0, correction=2),
    "aten::std_mean.correction": lambda L, x: L.std_mean(x),
    "aten::aminmax": lambda L, x: tuple(L.aminmax(x)),
    "aten::_softmax_backward_data": lambda L, x: L.ops.aten._softmax_backward_data(x, x.softmax(1), 1, x.dtype),
    "aten::_log_softmax_backward_data":
        lambda L, x: L.ops.aten._log_softmax_backward_data(x, x.log_softmax(0), 0, x.dtype),
}

# The backward ops formulas call (forward-over-reverse reaches them): tangents vs torch's.
BACKWARD_OP_CASES = [
    lambda L, x: L.ops.aten.tanh_backward(x, x.tanh()),
    lambda L, x: L.ops.aten.sigmoid_backward(x, x.sigmoid()),
    lambda L, x: L.ops.aten.select_backward(x[0], [3, 4], 0, 1),
    lambda L, x: L.ops.aten.slice_backward(x, [5, 4], 0, 1, 4, 1),
    lambda L, x: L.ops.aten.diagonal_backward(x[0, :3], [3, 3], 0, 0, 1),
    lambda L, x: L.ops.aten.unfold_backward(x, [6], 0, 4, 1),
    lambda L, x: x.flip(0),
]


def test_masked_scatter_backward_tangent() -> None:
    # torch 2.13's forward AD raises a size error here; ours is J v, checked against torch's
    # double-backward jvp.
    x, tx = rand(3, 4, seed=14), rand(3, 4, seed=15)
    mask = x > 0

    def f(L: Any, g: Any) -> Any:
        return L.ops.aten.masked_scatter_backward(g, L.tensor(mask), [12])

    _, expected = torch.autograd.functional.jvp(lambda g: f(torch, g), (torch.tensor(x),), (torch.tensor(tx),))
    fwAD = torchpy.autograd.forward_ad
    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(f(torchpy, fwAD.make_dual(torchpy.tensor(x), torchpy.tensor(tx)))).tangent
    assert_values(tangent.tolist(), expected.tolist(), scaled(rtol=1e-10, atol=1e-15))


@pytest.mark.parametrize("fn", BACKWARD_OP_CASES)
def test_backward_ops_tangents(fn) -> None:
    check_jvp(fn, rand(3, 4, seed=8))


def test_double_vjp_ops_are_listed_and_tested() -> None:
    # masked_scatter_backward: torch 2.13's own forward AD fails on it (tested below instead)
    double_vjp = [op for op, f in FORWARD.items() if f.kind == "double_vjp"]
    listed = sorted(op for op in double_vjp if op != "aten::masked_scatter_backward")
    assert listed == sorted(DOUBLE_VJP_CASES)
    for fn in DOUBLE_VJP_CASES.values():
        check_jvp(fn, rand(3, 4, seed=9))


def test_scatter_reduce_prod_tangent() -> None:
    # torch 2.13's forward AD gives scatter_reduce(..., "prod") no tangent at all; ours is J v,
    # checked against torch's double-backward jvp.
    index = [[0, 1, 2, 0]] * 3
    x, src, tx, tsrc = (rand(3, 4, seed=s) for s in (10, 11, 12, 13))

    def f(L: Any, a: Any, b: Any) -> Any:
        return a.scatter_reduce(0, L.tensor(index), b, "prod")

    as_torch = [torch.tensor(a) for a in (x, src, tx, tsrc)]
    _, expected = torch.autograd.functional.jvp(lambda a, b: f(torch, a, b), tuple(as_torch[:2]), tuple(as_torch[2:]))
    fwAD = torchpy.autograd.forward_ad
    with fwAD.dual_level():
        a, b = (fwAD.make_dual(torchpy.tensor(p), torchpy.tensor(t)) for p, t in ((x, tx), (src, tsrc)))
        tangent = fwAD.unpack_dual(f(torchpy, a, b)).tangent
    assert_values(tangent.tolist(), expected.tolist(), scaled(rtol=1e-10, atol=1e-15))


def test_repr_shows_the_tangent() -> None:
    def scenario(lib: Any) -> list:
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            d = fwAD.make_dual(lib.ones(2, dtype=lib.float64), lib.ones(2, dtype=lib.float64))
            shown = [repr(d), repr(d * 2), str(fwAD.make_dual(lib.ones(2, 3), lib.ones(2, 3)))]
        return shown + [repr(d)]

    _compare_errors(scenario)


def test_forward_ad_ignores_grad_mode() -> None:
    def scenario(lib: Any) -> list:
        fwAD = lib.autograd.forward_ad
        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        with fwAD.dual_level(), lib.no_grad():
            y = fwAD.make_dual(x, lib.ones(2, dtype=lib.float64)).exp()
            return [y.requires_grad, fwAD.unpack_dual(y).tangent.tolist()]

    _compare_errors(scenario)


# --- torchpy.func.jvp ------------------------------------------------------------------------


def test_func_jvp() -> None:
    def scenario(lib: Any) -> list:
        jvp = lib.func.jvp
        x = lib.tensor([1.0, 2.0], dtype=lib.float64)
        t = lib.tensor([1.0, 0.5], dtype=lib.float64)

        def show(value: Any) -> str:
            if isinstance(value, (tuple, list)):
                return "(" + ", ".join(show(v) for v in value) + ")"
            if isinstance(value, dict):
                return "{" + ", ".join(f"{k}: {show(v)}" for k, v in value.items()) + "}"
            return str([round(float(e), 12) for e in value.reshape(-1).tolist()])

        cases = [
            lambda: jvp(lib.sin, (x,), (t,)),
            lambda: jvp(lambda a, b: a * b, (x, x * 3), (t, t)),
            lambda: jvp(lambda a: (a.sin(), {"c": a * 2}), (x,), (t,)),
            lambda: jvp(lambda a: (a.exp(), a * 3), (x,), (t,), has_aux=True),
            lambda: jvp(lambda a: a.argmax() * 1.0 + x, (x,), (t,)),
            lambda: jvp(lambda d: d["w"] @ d["v"], ({"w": x.view(1, 2), "v": x},), ({"w": t.view(1, 2), "v": t},)),
            lambda: jvp(lib.sin, x, (t,)),
            lambda: jvp(lib.sin, (x,), t),
            lambda: jvp(lib.sin, (x,), (t, t)),
            lambda: jvp(lib.sin, (x,), (t[:1],)),
            lambda: jvp(lambda a: a.sin(), (x,), (t,), has_aux=True),
            lambda: jvp(lambda a: 3, (x,), (t,)),
            lambda: jvp(lib.sin, (), ()),
            lambda: jvp(lib.sin, (3.0,), (t,)),
            lambda: jvp(lib.sin, (x,), (3.0,)),
        ]
        out = []
        for case in cases:
            try:
                out.append(show(case()))
            except RuntimeError as e:
                out.append(f"RuntimeError: {e}")
        return out

    _compare_errors(scenario)


def test_tangent_dtype_follows_the_formula() -> None:
    def scenario(lib: Any) -> list:
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            d = fwAD.make_dual(lib.ones(2, dtype=lib.float64), lib.ones(2, dtype=lib.float32))
            outs = [d.sin(), d + lib.ones(2, dtype=lib.float64), d[0], d.sum(), d.float(), d.unsqueeze(0)]
            return [str(fwAD.unpack_dual(o).tangent.dtype) for o in outs]

    _compare_errors(scenario)


def test_products_with_zeros() -> None:
    x = np.array([0.0, 2.0, 0.0, 3.0])
    check_jvp(lambda L, a: (a.prod(), a[1:].prod(), a.view(2, 2).prod(1), a.cumprod(0)), x)
    check_jvp(lambda L, a: ((a * 0).norm(), a.norm(p=1), a.var(), a.std(0, keepdim=True)), x)


# --- forward over reverse (Hessian-vector products) ------------------------------------------

FORWARD_OVER_REVERSE = {
    "sin": lambda L, a: a.sin().sum(), "exp": lambda L, a: a.exp().sum(),
    "tanh_mul": lambda L, a: (a.tanh() * a).sum(), "mm": lambda L, a: (a.view(2, 2) @ a.view(2, 2)).sum(),
    "sigmoid_sqrt": lambda L, a: (a.sigmoid() * a.abs().sqrt()).sum(), "log_softmax": lambda L, a: a.log_softmax(0)[1],
    "prod": lambda L, a: a.prod(), "norm": lambda L, a: a.norm() * a.sum(), "pow": lambda L, a: (a ** 3).mean(),
}


@pytest.mark.parametrize("name", sorted(FORWARD_OVER_REVERSE))
def test_forward_over_reverse(name: str) -> None:
    fn = FORWARD_OVER_REVERSE[name]

    def scenario(lib: Any) -> list:
        fwAD = lib.autograd.forward_ad
        x = lib.tensor([0.3, -1.2, 0.8, 1.5], dtype=lib.float64, requires_grad=True)
        with fwAD.dual_level():
            d = fwAD.make_dual(x, lib.tensor([1.0, 0.5, -2.0, 0.25], dtype=lib.float64))
            (g,) = lib.autograd.grad(fn(lib, d), d)
            hvp = fwAD.unpack_dual(g).tangent
            return g.tolist() + hvp.tolist()

    assert_values(scenario(torchpy), scenario(torch), scaled(rtol=1e-10, atol=1e-12))


def test_view_made_before_its_base_got_a_tangent() -> None:
    def fn(L: Any, y: Any) -> Any:
        base = L.zeros(3, dtype=L.float64)
        early = base[:2]
        base.copy_(y)
        return early, early * 2, base[1:], L.autograd.forward_ad.unpack_dual(base).primal

    check_jvp(fn, rand(3))


# --- the remaining overloads, called as aten ops ---------------------------------------------


def _seeded(L: Any, make: Callable) -> Any:
    L.manual_seed(0)
    return make() * 0  # the sample is random; its tangent (zero) is what is compared


ATEN_CASES = {
    "_index_put_impl": lambda L, x, y: L.ops.aten._index_put_impl(x, [L.tensor([0, 2])], y[0], True),
    "add.Scalar": lambda L, x, y: L.ops.aten.add.Scalar(x, 2.0, 3),
    "sub.Scalar": lambda L, x, y: L.ops.aten.sub.Scalar(x, 2.0),
    "mul.Scalar": lambda L, x, y: L.ops.aten.mul.Scalar(x, 2.5),
    "div.Scalar": lambda L, x, y: L.ops.aten.div.Scalar(x, 2.5),
    "div.Scalar_mode": lambda L, x, y: L.ops.aten.div.Scalar_mode(x, 2.5, rounding_mode="trunc"),
    "alias": lambda L, x, y: L.ops.aten.alias(x),
    "rounding": lambda L, x, y: (x.ceil(), x.trunc(), x.sgn(), x.round(decimals=1)),
    "clamp_overloads": lambda L, x, y: (L.clamp_max(x, y), L.clamp_min(x, 0.1), L.clamp_min(x, y)),
    "compare_inplace": lambda L, x, y: tuple(
        getattr(x.clone(), f"{c}_")(arg) for c in ("eq", "ne", "lt", "le", "gt", "ge") for arg in (0.5, y)),
    "fill": lambda L, x, y: (L.ops.aten.fill.Scalar(x, 2.0), L.ops.aten.fill.Tensor(x, y[0, 0]),
                             x.clone().fill_(y[1, 1])),
    "norm_overloads": lambda L, x, y: (
        L.ops.aten.norm.ScalarOpt_dim(x, 3, [1], True), L.ops.aten.norm.ScalarOpt_dim_dtype(x, 1.5, [0], False, dtype=L.float64)),
    # torch 2.13's forward AD fails on the full-reduction norm overloads (it sets a [1, 1] tangent
    # on a 0-dim result): torch's side computes the same norms with linalg.vector_norm.
    "norm_full": lambda L, x, y: (L.linalg.vector_norm(x, 2), L.linalg.vector_norm(x, 3)) if L is torch else (
        L.ops.aten.norm.Scalar(x, 2), L.ops.aten.norm.ScalarOpt_dtype(x, 3, dtype=L.float64)),
    "random": lambda L, x, y: (
        _seeded(L, lambda: L.normal(x, 1.0)), _seeded(L, lambda: L.normal(1.0, y.abs())),
        _seeded(L, lambda: L.normal(x, y.abs())), _seeded(L, lambda: x.clone().normal_()),
        _seeded(L, lambda: x.clone().uniform_()), _seeded(L, lambda: x.clone().random_()),
        _seeded(L, lambda: x.clone().random_(0, 5)), _seeded(L, lambda: x.clone().random_(5))),
    "pow_tensor_inplace": lambda L, x, y: x.abs().add(0.5).pow_(y),
    "sort_stable": lambda L, x, y: tuple(x.sort(stable=True, dim=1)),
    "splits": lambda L, x, y: (*x.split([1, 2], dim=0), *L.ops.aten.unsafe_split.Tensor(x, 2),
                               *L.ops.aten.unsafe_split_with_sizes(x, [2, 1], 1)),
    "squeezes": lambda L, x, y: (x[:, :1].squeeze(), x[:1].squeeze((0,)), x.clone()[:, :1].squeeze_(),
                                 x.clone()[:1].squeeze_(0), x.clone()[:1].squeeze_((0,)), x.clone().transpose_(0, 1)),
    "threshold_backward": lambda L, x, y: L.ops.aten.threshold_backward(y, x, 0.0),
}


@pytest.mark.parametrize("name", sorted(ATEN_CASES))
def test_aten_overloads(name: str) -> None:
    check_jvp(ATEN_CASES[name], rand(3, 3, seed=14), rand(3, 3, seed=15))
    check_jvp(ATEN_CASES[name], rand(3, 3, seed=14), Const(rand(3, 3, seed=15)))
