"""Backward formulas against torch: gradients of every input and the grad_fn's name.

`check_grad(fn, *inputs)` runs `fn(lib, *tensors)` through torch and torchpy with
the same float64 inputs (NumPy arrays become tensors that require grad; `Const`
arrays become tensors that do not), feeds the same random grad_output to every
differentiable output and compares `autograd.grad` for every input that requires
grad, plus the name of each output's grad_fn. `second_order=True` also compares
the gradient of <first-order grads, v> (create_graph=True), i.e. double backward.

This file holds the helpers and the pointwise formulas; the other families are
in test_formulas_*.py.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np
import pytest
import torch

import torchpy
from tests.oracle import assert_same, scaled

LIBS = (torch, torchpy)


@dataclasses.dataclass
class Const:
    """A tensor argument that does not require grad (an index, a mask, a condition)."""

    values: Any
    dtype: str | None = None


@dataclasses.dataclass
class Strided:
    """A float64 input that requires grad, given as a non-contiguous (transposed) leaf."""

    values: Any


@dataclasses.dataclass
class Typed:
    """An input that requires grad, of another floating dtype than float64."""

    values: Any
    dtype: str = "float32"


def rand(*shape: int, seed: int = 0, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    rng = np.random.default_rng(1000 * seed + 17 * len(shape) + sum(shape))
    return rng.uniform(low, high, shape)


def positive(*shape: int, seed: int = 0) -> np.ndarray:
    return rand(*shape, seed=seed, low=0.5, high=2.5)


def _make(x: Any, lib: Any) -> Any:
    if isinstance(x, Const):
        array = np.asarray(x.values)
        dtype = getattr(lib, x.dtype) if x.dtype else None
        return lib.tensor(array, dtype=dtype)
    if isinstance(x, Strided):
        # Built with reversed dims and permuted back: the leaf itself is a non-contiguous view.
        array = np.ascontiguousarray(np.asarray(x.values, dtype=np.float64).T)
        leaf = lib.tensor(array, dtype=lib.float64).permute(*reversed(range(array.ndim)))
        return leaf.detach().requires_grad_(True)
    if isinstance(x, Typed):
        return lib.tensor(np.asarray(x.values), dtype=getattr(lib, x.dtype), requires_grad=True)
    if isinstance(x, np.ndarray):
        return lib.tensor(x, dtype=lib.float64, requires_grad=True)
    return x


def _leaves(args: list) -> list:
    found = []
    for a in args:
        if isinstance(a, (list, tuple)):
            found.extend(_leaves(list(a)))
        elif isinstance(a, (torch.Tensor, torchpy.Tensor)) and a.requires_grad:
            found.append(a)
    return found


def _convert(x: Any, lib: Any) -> Any:
    if isinstance(x, list):
        return [_convert(v, lib) for v in x]
    return _make(x, lib)


def _grad_outputs(outs: list, lib: Any) -> list:
    rng = np.random.default_rng(7)
    return [lib.tensor(rng.uniform(-1, 1, tuple(o.shape)), dtype=o.dtype) for o in outs]


def _names(outs: list) -> list:
    return [o.grad_fn.name() if o.grad_fn is not None else None for o in outs]


def _run(lib: Any, fn: Callable, inputs: tuple, second_order: bool) -> dict:
    args = [_convert(x, lib) for x in inputs]
    wrt = _leaves(args)
    out = fn(lib, *args)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    names = _names(outs)
    differentiable = [o for o in outs if o.requires_grad]
    grads = lib.autograd.grad(differentiable, wrt, _grad_outputs(differentiable, lib),
                              allow_unused=True, create_graph=second_order)
    low_precision = any(o.dtype != lib.float64 for o in outs) or any(x.dtype != lib.float64 for x in wrt)
    result = {"names": names, "grads": list(grads), "float32": low_precision}
    if second_order:
        used = [(g, x) for g, x in zip(grads, wrt) if g is not None and g.requires_grad]
        total = sum((g * v).sum() for (g, _), v in zip(used, _grad_outputs([g for g, _ in used], lib)))
        result["second"] = list(lib.autograd.grad(total, wrt, allow_unused=True))
    return result


def check_grad(fn: Callable, *inputs: Any, name: str | list | None = None, second_order: bool = False,
               atol: float = 1e-9, rtol: float = 1e-7) -> None:
    """fn(lib, *tensors) through torch and torchpy: same grads, same grad_fn names."""
    expected = _run(torch, fn, inputs, second_order)
    actual = _run(torchpy, fn, inputs, second_order)
    assert actual["names"] == expected["names"], f"grad_fn {actual['names']} != {expected['names']}"
    if name is not None:
        wanted = name if isinstance(name, list) else [name]
        assert expected["names"][: len(wanted)] == wanted, f"torch names {expected['names']}"
    assert any(g is not None for g in expected["grads"]), "torch computed no gradient: the test is empty"
    if expected["float32"]:  # float32 arithmetic may round differently
        atol, rtol = max(atol, 1e-6), max(rtol, 1e-5)
    for key in ("grads", "second") if second_order else ("grads",):
        for i, (a, e) in enumerate(zip(actual[key], expected[key])):
            if e is None:
                assert a is None or not torch.tensor(np.asarray(a._data)).any(), f"{key}[{i}]: torch gives None"
                continue
            assert a is not None, f"{key}[{i}]: torchpy gives None, torch a gradient"
            assert_same(a, e, scaled(rtol, atol), path=f"{key}[{i}]")


# --- arithmetic --------------------------------------------------------------------------------

A, B = rand(3, 4), rand(4, seed=1)


@pytest.mark.parametrize("fn, name", [
    (lambda t, x, y: t.add(x, y, alpha=2), "AddBackward0"),
    (lambda t, x, y: t.sub(x, y, alpha=3), "SubBackward0"),
    (lambda t, x, y: x * y, "MulBackward0"),
    (lambda t, x, y: x / y, "DivBackward0"),
    (lambda t, x, y: t.rsub(x, y, alpha=2), "RsubBackward0"),
    (lambda t, x, y: t.div(x, y, rounding_mode=None), "DivBackward2"),
    (lambda t, x, y: t.div(x, y, rounding_mode="floor"), "DivBackward2"),
    (lambda t, x, y: t.div(x, y, rounding_mode="trunc"), "DivBackward2"),
    (lambda t, x, y: t.remainder(x, y), "RemainderBackward1"),
    (lambda t, x, y: t.fmod(x, y), "FmodBackward1"),
    (lambda t, x, y: t.maximum(x, y), "MaximumBackward0"),
    (lambda t, x, y: t.minimum(x, y), "MinimumBackward0"),
    (lambda t, x, y: t.fmax(x, y), "FmaxBackward0"),
    (lambda t, x, y: t.logaddexp(x, y), "LogaddexpBackward0"),
    (lambda t, x, y: t.logaddexp2(x, y), "Logaddexp2Backward0"),
    (lambda t, x, y: t.copysign(x, y), "CopysignBackward0"),
    (lambda t, x, y: t.copysign(x, -2), "CopysignBackward1"),
    (lambda t, x, y: t.xlogy(x, y.abs() + 0.1), "XlogyBackward0"),
    (lambda t, x, y: t.xlogy(2, y.abs() + 0.1), "XlogyBackward1"),
    (lambda t, x, y: t.xlogy(x, 3), "XlogyBackward2"),
    (lambda t, x, y: t.fmin(x, y), "FminBackward0"),
    (lambda t, x, y: t.fmax(x, t.where(y > 0, y, float("nan"))), "FmaxBackward0"),
    (lambda t, x, y: t.fmin(t.where(x > 0, x, float("nan")), y), "FminBackward0"),
    (lambda t, x, y: t.max(x, y), "MaximumBackward0"),
    (lambda t, x, y: t.min(x, y), "MinimumBackward0"),
    (lambda t, x, y: t.atan2(x, y), "Atan2Backward0"),
    (lambda t, x, y: t.hypot(x, y), "HypotBackward0"),
    (lambda t, x, y: t.lerp(x, y, 0.3), "LerpBackward0"),
])
def test_binary(fn, name):
    check_grad(fn, A, B, name=name)
    check_grad(fn, Strided(A), rand(3, 1, seed=2), name=name)


def test_binary_one_side_requires_grad():
    check_grad(lambda t, x, y: x * y, A, Const(B))
    check_grad(lambda t, x, y: x / y, Const(A), B)


@pytest.mark.parametrize("fn, name", [
    (lambda t, x: t.ops.aten.add.Scalar(x, 2.5, 3), "AddBackward1"),
    (lambda t, x: t.ops.aten.sub.Scalar(x, 2.5, 3), "SubBackward1"),
    (lambda t, x: t.ops.aten.rsub.Scalar(x, 2.5, 3), "RsubBackward1"),
    (lambda t, x: t.rsub(x, 2.5), "RsubBackward1"),
    (lambda t, x: t.ops.aten.mul.Scalar(x, 2.5), "MulBackward1"),
    (lambda t, x: t.ops.aten.div.Scalar(x, 2.5), "DivBackward1"),
    (lambda t, x: t.ops.aten.div.Scalar_mode(x, 2.5, rounding_mode="floor"), "DivBackward3"),
    (lambda t, x: t.ops.aten.div.Scalar_mode(x, 2.5, rounding_mode=None), "DivBackward3"),
    (lambda t, x: t.remainder(x, 1.5), "RemainderBackward0"),
    (lambda t, x: t.fmod(x, 1.5), "FmodBackward0"),
    (lambda t, x: x + 2, "AddBackward0"),
    (lambda t, x: 2 - x, "RsubBackward1"),
    (lambda t, x: x * 3, "MulBackward0"),
    (lambda t, x: 3 / x, "MulBackward0"),
])
def test_with_scalar(fn, name):
    check_grad(fn, A, name=name)


def test_lerp_tensor_weight():
    check_grad(lambda t, x, y, w: t.lerp(x, y, w), A, B, rand(3, 1, seed=3), name="LerpBackward1")


# --- pow ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("exponent", [2, 3.5, 0, -1.5, 1])
def test_pow_scalar_exponent(exponent):
    check_grad(lambda t, x: x.pow(exponent), positive(3, 4), name="PowBackward0")


def test_pow_scalar_exponent_negative_base():
    check_grad(lambda t, x: x ** 3, A, name="PowBackward0")


def test_pow_tensor_tensor():
    check_grad(lambda t, x, y: x ** y, positive(3, 4), B, name="PowBackward1")
    # zero bases and zero exponents take the special values
    base = np.array([0.0, 0.0, 0.0, 2.0, 1.5])
    exponent = np.array([0.0, 2.0, -1.0, 0.0, 1.0])
    check_grad(lambda t, x, y: x ** y, base, exponent, name="PowBackward1")


@pytest.mark.parametrize("base", [2.0, 0.5, 0.0, 3])
def test_pow_scalar_base(base):
    check_grad(lambda t, x: base ** x, np.array([-1.0, 0.0, 0.5, 2.0]), name="PowBackward2")


# --- unary -------------------------------------------------------------------------------------

UNARY = [
    ("tril", "TrilBackward0", A), ("triu", "TriuBackward0", A),
    ("deg2rad", "Deg2RadBackward0", A), ("rad2deg", "Rad2DegBackward0", A), ("sinc", "SincBackward0", A),
    ("abs", "AbsBackward0", A), ("neg", "NegBackward0", A), ("sign", "SignBackward0", A), ("sgn", "SgnBackward0", A),
    ("exp", "ExpBackward0", A), ("exp2", "Exp2Backward0", A), ("expm1", "Expm1Backward0", A),
    ("log", "LogBackward0", positive(3, 4)), ("log2", "Log2Backward0", positive(3, 4)),
    ("log10", "Log10Backward0", positive(3, 4)), ("log1p", "Log1PBackward0", positive(3, 4)),
    ("sqrt", "SqrtBackward0", positive(3, 4)), ("rsqrt", "RsqrtBackward0", positive(3, 4)),
    ("reciprocal", "ReciprocalBackward0", positive(3, 4)),
    ("sin", "SinBackward0", A), ("cos", "CosBackward0", A), ("tan", "TanBackward0", A / 2),
    ("asin", "AsinBackward0", A / 3), ("acos", "AcosBackward0", A / 3), ("atan", "AtanBackward0", A),
    ("sinh", "SinhBackward0", A), ("cosh", "CoshBackward0", A), ("tanh", "TanhBackward0", A),
    ("sigmoid", "SigmoidBackward0", A), ("relu", "ReluBackward0", A),
    ("erf", "ErfBackward0", A), ("erfc", "ErfcBackward0", A),
    ("floor", "FloorBackward0", A), ("ceil", "CeilBackward0", A), ("trunc", "TruncBackward0", A),
    ("round", "RoundBackward0", A), ("frac", "FracBackward0", A),
    ("nan_to_num", "NanToNumBackward0", np.array([1.0, np.nan, np.inf, -np.inf, -2.0])),
]


@pytest.mark.parametrize("op, name, values", UNARY, ids=[u[0] for u in UNARY])
def test_unary(op, name, values):
    check_grad(lambda t, x: getattr(t, op)(x), values, name=name)
    if values.ndim == 2:
        check_grad(lambda t, x: getattr(x, op)(), Strided(values), name=name)


@pytest.mark.parametrize("op,name,values", [
    ("asinh", "AsinhBackward0", A), ("atanh", "AtanhBackward0", A / 3), ("acosh", "AcoshBackward0", positive(3, 4) + 1),
])
def test_unary_no_inplace_grad(op, name, values):
    """torch's asinh_ / acosh_ / atanh_ have no derivative: only the functional forms here."""
    check_grad(lambda t, x: getattr(t, op)(x), values, name=name)
    check_grad(lambda t, x: getattr(x, op)(), Strided(values), name=name)


@pytest.mark.parametrize("values", [A, A.T.copy(), A[:1]])
def test_trace_grad(values):
    check_grad(lambda t, x: t.trace(x), values, name="TraceBackward0")


def test_diag_embed_grad():
    check_grad(lambda t, x: t.diag_embed(x), A, name="DiagEmbedBackward0")
    check_grad(lambda t, x: x.diag_embed(-1, 2, 0), Strided(A), name="DiagEmbedBackward0")
    check_grad(lambda t, x: t.diagflat(x, 1), A, name="DiagEmbedBackward0")


def test_roll_grad():
    check_grad(lambda t, x: t.roll(x, (1, -2), (0, 1)), A, name="RollBackward0")
    check_grad(lambda t, x: x.roll(5), Strided(A), name="RollBackward0")


@pytest.mark.parametrize("op, name, values", UNARY, ids=[u[0] for u in UNARY])
def test_unary_inplace(op, name, values):
    if not hasattr(torch.Tensor, op + "_"):
        pytest.fail(f"torch has no {op}_")
    check_grad(lambda t, x: getattr(x * 1, op + "_")(), values, name=name)


def test_relu_at_zero():
    check_grad(lambda t, x: t.relu(x), np.array([-1.0, 0.0, 1.0]), name="ReluBackward0")


def test_round_decimals():
    check_grad(lambda t, x: t.round(x, decimals=2), A, name="RoundBackward1")


# --- clamp -------------------------------------------------------------------------------------

EDGES = np.array([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0])


@pytest.mark.parametrize("fn, name", [
    (lambda t, x: x.clamp(-0.5, 0.5), "ClampBackward1"),
    (lambda t, x: x.clamp(min=-0.5), "ClampBackward1"),
    (lambda t, x: x.clamp(max=0.25), "ClampBackward1"),
    (lambda t, x: t.ops.aten.clamp.default(x, -0.5), "ClampBackward1"),
    (lambda t, x: t.ops.aten.clamp.default(x, None, 0.25), "ClampBackward1"),
    (lambda t, x: t.ops.aten.clamp.default(x, 0.5, -0.5), "ClampBackward1"),
    (lambda t, x: x.clamp_min(0.0), "ClampMinBackward0"),
    (lambda t, x: x.clamp_max(0.0), "ClampMaxBackward0"),
    (lambda t, x: (x * 1).clamp_(-0.5, 0.5), "ClampBackward1"),
])
def test_clamp_scalar(fn, name):
    check_grad(fn, EDGES, name=name)


LOW = np.array([-0.5, -0.5, 0.5, 0.25, 0.75, 0.0])
HIGH = np.array([0.5, 0.0, -0.5, 0.25, 1.0, 0.5])


@pytest.mark.parametrize("fn, name", [
    (lambda t, x, lo, hi: x.clamp(lo, hi), "ClampBackward0"),
    (lambda t, x, lo, hi: x.clamp(min=lo), "ClampBackward0"),
    (lambda t, x, lo, hi: x.clamp(max=hi), "ClampBackward0"),
    (lambda t, x, lo, hi: x.clamp_min(lo), "ClampMinBackward1"),
    (lambda t, x, lo, hi: x.clamp_max(hi), "ClampMaxBackward1"),
])
def test_clamp_tensor(fn, name):
    check_grad(fn, EDGES, LOW, HIGH, name=name)


def test_clamp_tensor_broadcast():
    check_grad(lambda t, x, lo, hi: x.clamp(lo, hi), A, rand(4, seed=5) - 1, rand(3, 1, seed=6) + 1,
               name="ClampBackward0")


# --- selection ---------------------------------------------------------------------------------


def test_where():
    check_grad(lambda t, c, x, y: t.where(c, x, y), Const(A > 0), Strided(rand(3, 4)), rand(4, seed=1),
               name="WhereBackward0")
    check_grad(lambda t, c, x: t.where(c, x, 1.5), Const(A > 0), A, name="WhereBackward0")
    check_grad(lambda t, c, x: t.where(c, 2.0, x), Const(A > 0), B, name="WhereBackward0")


def test_masked_fill():
    check_grad(lambda t, x, m: x.masked_fill(m, 2.0), A, Const(B > 0), name="MaskedFillBackward0")
    check_grad(lambda t, x, m, v: x.masked_fill(m, v), A, Const(B > 0), np.array(1.5),
               name="MaskedFillBackward1")
    check_grad(lambda t, x, m: (x * 1).masked_fill_(m, 2.0), A, Const(A > 0), name="MaskedFillBackward0")


# --- in-place forms use their functional formula ----------------------------------------------


@pytest.mark.parametrize("fn, name", [
    (lambda t, x, y: (x * 1).mul_(y), "MulBackward0"),
    (lambda t, x, y: (x * 1).div_(y), "DivBackward0"),
    (lambda t, x, y: (x * 1).add_(y, alpha=2), "AddBackward0"),
    (lambda t, x, y: (x * 1).sub_(y), "SubBackward0"),
    (lambda t, x, y: (x * 1).pow_(2), "PowBackward0"),
    (lambda t, x, y: (x.abs() + 1).pow_(y), "PowBackward1"),
    (lambda t, x, y: (x * 1).lerp_(y, 0.5), "LerpBackward0"),
    (lambda t, x, y: (x * 1).div_(y, rounding_mode="floor"), "DivBackward2"),
    (lambda t, x, y: (x * 1).atan2_(y), "Atan2Backward0"),
])
def test_inplace_binary(fn, name):
    check_grad(fn, A, B, name=name)


# --- ops torch does not differentiate ----------------------------------------------------------


@pytest.mark.parametrize("fn", [
    lambda t, x: t.floor_divide(x, 2.0),
    lambda t, x: t.remainder(2.0, x),
])
def test_not_implemented(fn):
    for lib in LIBS:
        x = lib.tensor(A, requires_grad=True)
        out = fn(lib, x)
        assert out.requires_grad
        with pytest.raises(RuntimeError, match="derivative for .* is not implemented"):
            out.sum().backward()


# --- double backward ---------------------------------------------------------------------------


@pytest.mark.parametrize("fn, inputs", [
    (lambda t, x, y: x * y, (A, B)),
    (lambda t, x, y: x / y, (A, positive(4))),
    (lambda t, x: x.exp(), (A,)),
    (lambda t, x: x.tanh(), (A,)),
    (lambda t, x: x.sigmoid(), (A,)),
    (lambda t, x: x.pow(3), (A,)),
    (lambda t, x, y: x.pow(y), (positive(3, 4), B)),
    (lambda t, x: 2.0 ** x, (A,)),
    (lambda t, x: x.log(), (positive(3, 4),)),
    (lambda t, x: x.sqrt(), (positive(3, 4),)),
    (lambda t, x: x.sin() * x.cos(), (A,)),
    (lambda t, x, y: t.atan2(x, y), (A, B)),
    (lambda t, x, y: t.hypot(x, y), (A, B)),
    (lambda t, x: x.abs() * x, (A,)),
    (lambda t, x: x.erf(), (A,)),
    (lambda t, x: x.reciprocal(), (positive(3, 4),)),
])
def test_second_order(fn, inputs):
    check_grad(fn, *inputs, second_order=True)


# --- every differentiable op of the table has a formula ----------------------------------------
# The loader refuses a differentiable op whose YAML entry says nothing about its backward
# (tests/aten/test_loader.py); here: what the entries say holds at run time.


def test_every_differentiable_op_has_a_formula():
    from torchpy._aten.build import NATIVE_FUNCTIONS
    from torchpy._aten.loader import needs_backward
    from torchpy.autograd.derivatives import FORMULAS

    by_name = {entry.qualified_name: entry for entry in NATIVE_FUNCTIONS}
    missing = []
    for entry in NATIVE_FUNCTIONS:
        if not needs_backward(entry) or entry.qualified_name in FORMULAS:
            continue
        if entry.backward is None and entry.schema.kind.name == "inplace":  # uses its functional op's rule
            base, _, overload = entry.qualified_name.partition(".")
            entry = by_name[base[:-1] + (f".{overload}" if overload else "")]
        if entry.qualified_name not in FORMULAS and entry.backward != "no_formula":
            missing.append(entry.qualified_name)
    assert not missing, f"ops without a derivative: {missing}"


@pytest.mark.parametrize("fn, name", [
    (lambda t, x, y: (x * 1).eq_(0.5), "EqBackward0"),
    (lambda t, x, y: (x * 1).lt_(y), "LtBackward1"),
    (lambda t, x, y: (x * 1).ge_(y), "GeBackward1"),
    (lambda t, x, y: (x * 1).ne_(y) * x, "MulBackward0"),
])
def test_inplace_comparison(fn, name):
    check_grad(fn, A, B, name=name)


def test_inplace_logical_keeps_history():
    # torch records nothing: the result still has the clone's node and passes gradients through.
    check_grad(lambda t, x, y: (x * 1).logical_and_(y), A, Const(B), name="MulBackward0")
    check_grad(lambda t, x: (x * 1).logical_not_(), A, name="MulBackward0")


# --- dtypes: each input's gradient comes back in its own dtype ---------------------------------


@pytest.mark.parametrize("fn", [
    lambda t, x, y: x * y,
    lambda t, x, y: x / y + x.exp(),
    lambda t, x, y: t.where(x > 0, x, y),
    lambda t, x, y: t.maximum(x, y),
    lambda t, x, y: t.atan2(x, y),
])
def test_mixed_dtypes(fn):
    check_grad(fn, Typed(A), B)
    check_grad(fn, Typed(A), Typed(B, "float16"))


@pytest.mark.parametrize("fn", [
    lambda t, x: x.sigmoid() * x.tanh(),
    lambda t, x: x.to(t.float64).sum(),
    lambda t, x: x.sum(1, dtype=t.float64),
    lambda t, x: x.softmax(1),
    lambda t, x: x.pow(2.5),
])
def test_float32(fn):
    check_grad(fn, Typed(np.abs(A)))
