"""Sample inputs for every registered backward formula, for gradcheck.

CASES maps a formula's op ("aten::mul.Tensor") to calls `fn(lib, *tensors)` that
reach it, with float64 inputs away from kinks (distinct values for max/sort,
nothing near a clamp bound or a rounding step). NumPy arrays become leaves that
require grad; `Const` values do not (indices, masks). Random ops take a fresh
seeded generator per call, so finite differences see the same draw every time.
GRADGRAD names the cases also run through gradgradcheck.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from tests.autograd.test_formulas import Const, positive, rand

A = rand(3, 4)                      # uniform in [-2, 2)
B = rand(4, seed=1)
C = rand(3, 4, seed=2)
P = positive(3, 4)                  # in [0.5, 2.5)
Q = positive(4, seed=3)
SMALL = rand(3, 4, seed=4) / 3      # in the domain of asin / acos
COL = rand(3, 1, seed=5)
SCALAR = np.array(0.75)
DISTINCT = np.array([[0.3, -1.2, 2.1, 0.8], [1.7, -0.4, 0.05, -2.3], [-0.9, 1.1, 2.6, 0.45]])
IDX = Const(np.array([2, 0]), "int64")
DUP = Const(np.array([1, 2, 1]), "int64")
MASK = Const(rand(3, 4, seed=6) > 0)
GATHER = Const(np.array([[0, 2, 1, 0], [2, 1, 0, 2]]), "int64")
SCATTER = Const(np.array([[0, 1, 2, 0], [2, 0, 1, 1]]), "int64")
EDGES = np.array([-1.3, -0.2, 0.35, 0.7, 1.6])   # clamp bounds -0.5 / 0.5 lie between them


def gen(lib: Any) -> Any:
    return lib.Generator().manual_seed(0)


def aten(lib: Any, name: str) -> Any:
    """lib.ops.aten.<op>.<overload> from "op.overload" (so the exact overload is called)."""
    op, _, overload = name.partition(".")
    return getattr(getattr(lib.ops.aten, op), overload or "default")


Case = tuple[Callable, tuple]
CASES: dict[str, list[Case]] = {}


def case(op: str, fn: Callable, *inputs: Any) -> None:
    CASES.setdefault("aten::" + op, []).append((fn, inputs))


def unary(op: str, values: np.ndarray = A) -> None:
    case(op, lambda t, x: aten(t, op)(x), values)


# --- pointwise -----------------------------------------------------------------------------------

for _op in ("abs", "neg", "exp", "exp2", "expm1", "sin", "cos", "atan", "sinh", "cosh", "tanh", "sigmoid",
            "erf", "erfc", "floor", "ceil", "trunc", "round", "frac", "sign", "sgn", "relu"):
    unary(_op)
for _op in ("log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal"):
    unary(_op, P)
unary("asin", SMALL)
unary("acos", SMALL)
unary("tan", A / 2)
case("round.decimals", lambda t, x: t.round(x, decimals=2), A)
case("nan_to_num", lambda t, x: t.nan_to_num(x, posinf=1.0), A)

case("add.Tensor", lambda t, x, y: t.add(x, y, alpha=2), A, B)
case("add.Scalar", lambda t, x: aten(t, "add.Scalar")(x, 2.5, 3), A)
case("sub.Tensor", lambda t, x, y: t.sub(x, y, alpha=3), A, COL)
case("sub.Scalar", lambda t, x: aten(t, "sub.Scalar")(x, 2.5, 3), A)
case("rsub.Tensor", lambda t, x, y: t.rsub(x, y, alpha=2), A, B)
case("rsub.Scalar", lambda t, x: aten(t, "rsub.Scalar")(x, 2.5, 3), A)
case("mul.Tensor", lambda t, x, y: x * y, A, B)
case("mul.Scalar", lambda t, x: aten(t, "mul.Scalar")(x, 2.5), A)
case("div.Tensor", lambda t, x, y: x / y, A, P)
case("div.Scalar", lambda t, x: aten(t, "div.Scalar")(x, 2.5), A)
case("div.Tensor_mode", lambda t, x, y: t.div(x, y, rounding_mode="floor"), A, P)
case("div.Tensor_mode", lambda t, x, y: t.div(x, y, rounding_mode=None), A, P)
case("div.Scalar_mode", lambda t, x: aten(t, "div.Scalar_mode")(x, 2.5, rounding_mode="trunc"), A)
case("remainder.Tensor", lambda t, x, y: t.remainder(x, y), A, P)
case("remainder.Scalar", lambda t, x: t.remainder(x, 1.5), A)
case("fmod.Tensor", lambda t, x, y: t.fmod(x, y), A, P)
case("fmod.Scalar", lambda t, x: t.fmod(x, 1.5), A)
case("maximum", lambda t, x, y: t.maximum(x, y), A, C)
case("minimum", lambda t, x, y: t.minimum(x, y), A, C)
case("fmax", lambda t, x, y: t.fmax(x, y), A, C)
case("fmin", lambda t, x, y: t.fmin(x, y), A, C)
case("tril", lambda t, x: t.tril(x, 1), A)
case("roll", lambda t, x: t.roll(x, (1, -2), (0, 1)), A)
case("roll", lambda t, x: t.roll(x, 5), A)
case("trace", lambda t, x: t.trace(x), A)
case("sinc", lambda t, x: t.sinc(x), A)
case("diag_embed", lambda t, x: t.diag_embed(x, 1, 0, 2), A)
case("acosh", lambda t, x: t.acosh(x + 1.5), P)
case("asinh", lambda t, x: t.asinh(x), A)
case("atanh", lambda t, x: t.atanh(x), SMALL)
case("deg2rad", lambda t, x: t.deg2rad(x), A)
case("rad2deg", lambda t, x: t.rad2deg(x), A)
case("logaddexp", lambda t, x, y: t.logaddexp(x, y), A, C)
case("logaddexp2", lambda t, x, y: t.logaddexp2(x, y), A, B)
case("copysign.Tensor", lambda t, x, y: t.copysign(x, y), A, C)
case("copysign.Scalar", lambda t, x: t.copysign(x, -1.0), A)
case("xlogy.Tensor", lambda t, x, y: t.xlogy(x, y), A, P)
case("xlogy.Scalar_Self", lambda t, y: t.xlogy(2.5, y), P)
case("xlogy.Scalar_Other", lambda t, x: t.xlogy(x, 3.0), A)
case("triu", lambda t, x: t.triu(x, -1), A)
case("atan2", lambda t, x, y: t.atan2(x, y), A, C)
case("hypot", lambda t, x, y: t.hypot(x, y), A, C)
case("lerp.Scalar", lambda t, x, y: t.lerp(x, y, 0.3), A, B)
case("lerp.Tensor", lambda t, x, y, w: t.lerp(x, y, w), A, B, COL)
case("addcmul", lambda t, x, y, z: t.addcmul(x, y, z, value=-0.7), A, B, COL)
case("addcdiv", lambda t, x, y, z: t.addcdiv(x, y, z, value=2.5), A, B, P)
case("pow.Tensor_Scalar", lambda t, x: x.pow(3.5), P)
case("pow.Tensor_Scalar", lambda t, x: x.pow(3), A)
case("pow.Tensor_Tensor", lambda t, x, y: x.pow(y), P, B)
case("pow.Scalar", lambda t, x: 2.0 ** x, A)
case("pow_.Scalar", lambda t, x: (x * 1).pow_(2.5), P)
case("pow_.Tensor", lambda t, x, y: (x * 1).pow_(y), P, B)
case("clamp", lambda t, x: x.clamp(-0.5, 0.5), EDGES)
case("clamp.Tensor", lambda t, x, lo, hi: x.clamp(lo, hi), A, rand(4, seed=7) / 10 - 1, COL / 10 + 1)
case("clamp_min", lambda t, x: x.clamp_min(0.5), EDGES)
case("clamp_min.Tensor", lambda t, x, lo: x.clamp_min(lo), A, C)
case("clamp_max", lambda t, x: x.clamp_max(0.5), EDGES)
case("clamp_max.Tensor", lambda t, x, hi: x.clamp_max(hi), A, C)
case("where.self", lambda t, c, x, y: t.where(c, x, y), MASK, A, B)
case("masked_fill.Scalar", lambda t, x, m: x.masked_fill(m, 2.0), A, MASK)
case("masked_fill.Tensor", lambda t, x, m, v: x.masked_fill(m, v), A, MASK, SCALAR)
case("threshold_backward", lambda t, g, x: aten(t, "threshold_backward")(g, x, 0.1), A, C)
# the backward ops formulas call, differentiated themselves (double backward goes through them)
case("tanh_backward", lambda t, g, y: aten(t, "tanh_backward")(g, y.tanh()), A, C)
case("sigmoid_backward", lambda t, g, y: aten(t, "sigmoid_backward")(g, y.sigmoid()), A, C)
case("_softmax_backward_data", lambda t, g, y: aten(t, "_softmax_backward_data")(g, y.softmax(1), 1, g.dtype), A, C)
case("_log_softmax_backward_data",
     lambda t, g, y: aten(t, "_log_softmax_backward_data")(g, y.log_softmax(0), 0, g.dtype), A, C)
case("select_backward", lambda t, g: aten(t, "select_backward")(g, [3, 4], 0, 1), B)
case("slice_backward", lambda t, g: aten(t, "slice_backward")(g, [5, 4], 0, 1, 4, 1), A)
case("diagonal_backward", lambda t, g: aten(t, "diagonal_backward")(g, [3, 3], 0, 0, 1), rand(3, seed=7))
case("unfold_backward", lambda t, g: aten(t, "unfold_backward")(g, [6], 0, 4, 1), A)
case("masked_scatter_backward", lambda t, g, m: aten(t, "masked_scatter_backward")(g, m, [12]), A, MASK)
case("flip", lambda t, x: x.flip(0, 1), A)
case("repeat", lambda t, x: x.repeat(2, 1, 2), A)
for _cmp in ("eq", "ne", "lt", "le", "gt", "ge"):
    case(f"{_cmp}_.Scalar", lambda t, x, _c=_cmp: getattr(x * 1, _c + "_")(0.5) * x, A)
    case(f"{_cmp}_.Tensor", lambda t, x, y, _c=_cmp: getattr(x * 1, _c + "_")(y) * x, A, B)

# --- random: a fresh seeded generator per call -------------------------------------------------

case("normal.Tensor_Tensor", lambda t, m, s: t.normal(m, s, generator=gen(t)), A, P)
case("normal.Tensor_float", lambda t, m: t.normal(m, 0.5, generator=gen(t)), A)
case("normal.float_Tensor", lambda t, s: t.normal(1.5, s, generator=gen(t)), P)
case("normal_", lambda t, x: (x * 1).normal_(generator=gen(t)) * x, A)
case("uniform_", lambda t, x: (x * 1).uniform_(generator=gen(t)) * x, A)
case("random_", lambda t, x: (x * 1).random_(generator=gen(t)) * x, A)
case("random_.from", lambda t, x: (x * 1).random_(2, 9, generator=gen(t)) * x, A)
case("random_.to", lambda t, x: (x * 1).random_(7, generator=gen(t)) * x, A)
case("exponential_", lambda t, x: (x * 1).exponential_(generator=gen(t)) * x, A)

# --- copies and fills --------------------------------------------------------------------------

case("clone", lambda t, x: x.clone(), A)
case("_to_copy", lambda t, x: aten(t, "_to_copy")(x), A)
case("lift_fresh", lambda t, x: aten(t, "lift_fresh")(x * 1), A)
case("copy_", lambda t, x, y: (x * 1).copy_(y), A, B)
case("fill.Scalar", lambda t, x: aten(t, "fill.Scalar")(x, 2.0) * x, A)
case("fill.Tensor", lambda t, x, v: aten(t, "fill.Tensor")(x, v) * x, A, SCALAR)
case("fill_.Scalar", lambda t, x: (x * 1).fill_(2.0) * x, A)
case("fill_.Tensor", lambda t, x, v: (x * 1).fill_(v), A, SCALAR)
case("zero", lambda t, x: aten(t, "zero")(x) + x, A)
case("cat", lambda t, x, y: t.cat([x, y], 1), A, C)
case("stack", lambda t, x, y: t.stack([x, y], 2), A, C)

# --- views ---------------------------------------------------------------------------------------

case("alias", lambda t, x: aten(t, "alias")(x), A)
case("_unsafe_view", lambda t, x: aten(t, "_unsafe_view")(x * 1, [4, 3]), A)
case("view", lambda t, x: x.view(2, 6), A)
case("as_strided", lambda t, x: x.as_strided((2, 2), (1, 2), 1), A)
case("diagonal", lambda t, x: x.diagonal(1), A)
case("expand", lambda t, x: x.expand(3, 2, 4), B)
case("permute", lambda t, x: x.permute(1, 0), A)
case("select.int", lambda t, x: x.select(1, 2), A)
case("slice.Tensor", lambda t, x: x[:, 1:4:2], A)
case("split.Tensor", lambda t, x: x.split(3, 1), A)
case("split_with_sizes", lambda t, x: x.split([1, 3], 1), A)
case("unsafe_split.Tensor", lambda t, x: t.unsafe_split(x, 2, 0), A)
case("unsafe_split_with_sizes", lambda t, x: t.unsafe_split_with_sizes(x, [2, 2], 1), A)
case("unbind.int", lambda t, x: x.unbind(1), A)
case("squeeze", lambda t, x: x.squeeze(), A.reshape(3, 1, 4))
case("squeeze.dim", lambda t, x: x.squeeze(1), A.reshape(3, 1, 4))
case("squeeze.dims", lambda t, x: x.squeeze((0, 1)), A.reshape(1, 3, 1, 4))
case("squeeze_", lambda t, x: (x * 1).squeeze_(), A.reshape(3, 1, 4))
case("squeeze_.dim", lambda t, x: (x * 1).squeeze_(1), A.reshape(3, 1, 4))
case("squeeze_.dims", lambda t, x: (x * 1).squeeze_((0, 1)), A.reshape(1, 3, 1, 4))
case("unsqueeze", lambda t, x: x.unsqueeze(1), A)
case("unsqueeze_", lambda t, x: (x * 1).unsqueeze_(2), A)
case("t", lambda t, x: x.t(), A)
case("t_", lambda t, x: (x * 1).t_(), A)
case("transpose.int", lambda t, x: x.transpose(0, 1), A)
case("transpose_", lambda t, x: (x * 1).transpose_(0, 1), A)
case("unfold", lambda t, x: x.unfold(1, 2, 1), A)

# --- indexing ------------------------------------------------------------------------------------

case("index.Tensor", lambda t, x, i: x[i], A, DUP)
case("index_put", lambda t, x, i, v: x.index_put((i,), v, accumulate=True), A, DUP, B)
case("index_put", lambda t, x, i, v: x.index_put((i,), v), A, IDX, B)
case("_index_put_impl", lambda t, x, i, v: aten(t, "_index_put_impl")(x, [i], v, True), A, DUP, B)
case("index_add", lambda t, x, i, s: x.index_add(0, i, s, alpha=2), A, DUP, rand(3, 4, seed=8))
case("index_copy", lambda t, x, i, s: x.index_copy(1, i, s), A, IDX, rand(3, 2, seed=8))
case("index_fill.int_Scalar", lambda t, x, i: x.index_fill(1, i, 2.5), A, IDX)
case("index_fill.int_Tensor", lambda t, x, i, v: x.index_fill(1, i, v), A, IDX, SCALAR)
case("index_select", lambda t, x, i: x.index_select(0, i), A, DUP)
case("gather", lambda t, x, i: x.gather(0, i), A, GATHER)
case("scatter.src", lambda t, x, i, s: x.scatter(0, i, s), A, Const(np.array([[0, 1, 2, 1], [2, 0, 1, 0]]), "int64"),
     rand(2, 4, seed=9))
case("scatter.value", lambda t, x, i: x.scatter(0, i, 1.5), A, SCATTER)
case("scatter_add", lambda t, x, i, s: x.scatter_add(0, i, s), A, SCATTER, rand(2, 4, seed=9))
case("scatter_reduce.two", lambda t, x, i, s: x.scatter_reduce(0, i, s, "sum"), A, SCATTER, rand(2, 4, seed=9))
case("scatter_reduce.two", lambda t, x, i, s: x.scatter_reduce(0, i, s, "prod"), P, SCATTER, positive(2, 4, seed=9))
case("scatter_reduce.two", lambda t, x, i, s: x.scatter_reduce(0, i, s, "mean", include_self=False), A, SCATTER,
     rand(2, 4, seed=9))
case("scatter_reduce.two", lambda t, x, i, s: x.scatter_reduce(0, i, s, "amax"), DISTINCT, SCATTER,
     rand(2, 4, seed=9) + 5)
case("masked_scatter", lambda t, x, m, s: x.masked_scatter(m, s), A, MASK, rand(12, seed=10))
case("masked_select", lambda t, x, m: x.masked_select(m), A, MASK)
case("put", lambda t, x, i, s: x.put(i, s, accumulate=True), A, DUP, rand(3, seed=11))
case("take", lambda t, x, i: x.take(i), A, Const(np.array([[5, 0], [11, 5]]), "int64"))

# --- reductions ----------------------------------------------------------------------------------

case("sum", lambda t, x: x.sum(), A)
case("sum.dim_IntList", lambda t, x: x.sum(1, keepdim=True), A)
case("nansum", lambda t, x: t.nansum(x, 0), A)
case("mean", lambda t, x: x.mean(), A)
case("mean.dim", lambda t, x: x.mean((0, 1)), A)
case("prod", lambda t, x: x.prod(), P)
case("prod.dim_int", lambda t, x: x.prod(1), A)
case("amax", lambda t, x: x.amax(1), DISTINCT)
case("amin", lambda t, x: x.amin(0, keepdim=True), DISTINCT)
case("aminmax", lambda t, x: t.aminmax(x, dim=1), DISTINCT)
case("max", lambda t, x: x.max(), DISTINCT)
case("min", lambda t, x: x.min(), DISTINCT)
case("max.dim", lambda t, x: x.max(1), DISTINCT)
case("min.dim", lambda t, x: x.min(0, keepdim=True), DISTINCT)
case("cumsum", lambda t, x: x.cumsum(1), A)
case("cumprod", lambda t, x: x.cumprod(1), A)
case("logsumexp", lambda t, x: x.logsumexp(1), A)
case("_softmax", lambda t, x: aten(t, "_softmax")(x, 1, False), A)
case("_log_softmax", lambda t, x: aten(t, "_log_softmax")(x, 0, False), A)
case("linalg_vector_norm", lambda t, x: t.linalg.vector_norm(x, 3, dim=1), A)
case("norm.Scalar", lambda t, x: aten(t, "norm.Scalar")(x, 2), A)
case("norm.ScalarOpt_dim", lambda t, x: aten(t, "norm.ScalarOpt_dim")(x, 1.5, [1]), A)
case("norm.ScalarOpt_dim_dtype", lambda t, x: aten(t, "norm.ScalarOpt_dim_dtype")(x, 2, [0], True, dtype=t.float64), A)
case("norm.ScalarOpt_dtype", lambda t, x: aten(t, "norm.ScalarOpt_dtype")(x, 3, dtype=t.float64), A)
case("var.correction", lambda t, x: x.var(1), A)
case("std.correction", lambda t, x: x.std(0, correction=0), A)
case("var_mean.correction", lambda t, x: t.var_mean(x, 1), A)
case("std_mean.correction", lambda t, x: t.std_mean(x, 0, keepdim=True), A)
case("sort", lambda t, x: x.sort(1), DISTINCT)
case("sort.stable", lambda t, x: x.sort(stable=True, dim=0, descending=True), DISTINCT)
case("topk", lambda t, x: x.topk(2, 1), DISTINCT)

# --- matrix products -----------------------------------------------------------------------------

case("mm", lambda t, x, y: x.mm(y), A, rand(4, 2, seed=12))
case("bmm", lambda t, x, y: x.bmm(y), rand(2, 3, 4, seed=13), rand(2, 4, 2, seed=14))
case("mv", lambda t, x, v: x.mv(v), A, B)
case("dot", lambda t, x, y: x.dot(y), B, Q)
case("vdot", lambda t, x, y: x.vdot(y), B, Q)
case("addmm", lambda t, s, x, y: t.addmm(s, x, y, beta=0.5, alpha=2), rand(2, seed=15), A.T.copy(), rand(3, 2, seed=18))
case("addmv", lambda t, s, x, v: t.addmv(s, x, v, beta=2), rand(3, seed=16), A, B)
case("baddbmm", lambda t, s, x, y: t.baddbmm(s, x, y, alpha=0.5), rand(2, 3, 2, seed=17), rand(2, 3, 4, seed=13),
     rand(2, 4, 2, seed=14))

# --- adaptive pooling (and the backward ops its formulas call) ------------------------------------

POOL, POOL3 = rand(2, 5, 7, seed=19), rand(2, 4, 5, 3, seed=20)
POOL_IDX = Const(np.array([[[0, 9], [15, 34]], [[3, 3], [20, 28]]]), "int64")       # into 5 * 7
POOL3_IDX = Const(np.array([[[[0, 59], [7, 7]]], [[[12, 30], [44, 1]]]]), "int64")  # into 4 * 5 * 3
case("_adaptive_avg_pool2d", lambda t, x: aten(t, "_adaptive_avg_pool2d")(x, [3, 4]), POOL)
case("_adaptive_avg_pool3d", lambda t, x: aten(t, "_adaptive_avg_pool3d")(x, [3, 2, 2]), POOL3)
case("adaptive_max_pool2d", lambda t, x: aten(t, "adaptive_max_pool2d")(x, [3, 4])[0], POOL)
case("adaptive_max_pool3d", lambda t, x: aten(t, "adaptive_max_pool3d")(x, [3, 2, 2])[0], POOL3)
case("_adaptive_avg_pool2d_backward", lambda t, g, x: aten(t, "_adaptive_avg_pool2d_backward")(g, x),
     rand(2, 3, 4, seed=21), POOL)
case("_adaptive_avg_pool3d_backward", lambda t, g, x: aten(t, "_adaptive_avg_pool3d_backward")(g, x),
     rand(2, 3, 2, 2, seed=22), POOL3)
case("adaptive_max_pool2d_backward", lambda t, g, x, i: aten(t, "adaptive_max_pool2d_backward")(g, x, i),
     rand(2, 2, 2, seed=23), POOL, POOL_IDX)
case("adaptive_max_pool3d_backward", lambda t, g, x, i: aten(t, "adaptive_max_pool3d_backward")(g, x, i),
     rand(2, 1, 2, 2, seed=24), POOL3[:, :, :, :], POOL3_IDX)

# --- convolution (forward, transposed, groups / stride / dilation) and constant_pad_nd ------------

_conv = lambda t, *a: aten(t, "convolution")(*a)  # noqa: E731
case("convolution", lambda t, x, w, b: _conv(t, x, w, b, [2, 1], [1, 0], [1, 2], False, [0, 0], 2),
     rand(2, 4, 5, 6, seed=31), rand(4, 2, 3, 2, seed=32), rand(4, seed=33))
case("convolution", lambda t, x, w: _conv(t, x, w, None, [2], [1], [1], True, [1], 1),
     rand(2, 3, 4, seed=34), rand(3, 2, 3, seed=35))
case("convolution", lambda t, x, w, b: _conv(t, x, w, b, [1, 2, 1], [0, 1, 0], [1, 1, 2], True, [0, 1, 0], 1),
     rand(1, 2, 3, 2, 3, seed=36), rand(2, 2, 2, 3, 2, seed=37), rand(2, seed=38))
case("constant_pad_nd", lambda t, x: aten(t, "constant_pad_nd")(x, [1, -1, 2, 0], 0.5), rand(2, 3, 4, seed=39))

# reflection / replication padding (negative pads crop) and their backward ops
def _padded(shape: tuple, pad: list) -> tuple:
    out = list(shape)
    for k in range(len(pad) // 2):
        out[-1 - k] += pad[2 * k] + pad[2 * k + 1]
    return tuple(out)


for _name in ("reflection", "replication"):
    for _n, _x, _pad in ((1, rand(2, 3, 5, seed=50), [2, -1]), (2, rand(2, 4, 5, seed=51), [1, 2, -1, 3]),
                         (3, rand(1, 3, 4, 3, seed=52), [1, 0, 2, 1, 0, 2])):
        case(f"{_name}_pad{_n}d", lambda t, x, name=_name, n=_n, pad=_pad: aten(t, f"{name}_pad{n}d")(x, pad), _x)
        case(f"{_name}_pad{_n}d_backward",
             lambda t, g, x, name=_name, n=_n, pad=_pad: aten(t, f"{name}_pad{n}d_backward")(g, x, pad),
             rand(*_padded(_x.shape, _pad), seed=53), _x)

# PyTorch defines these gradients as zero (a sample's dependence on its parameters is not
# differentiated), so finite differences disagree in torch too: the test compares the two
# GradcheckErrors instead.
ZERO_BY_DEFINITION = {"aten::normal.Tensor_Tensor", "aten::normal.Tensor_float", "aten::normal.float_Tensor"}

# --- the cases gradgradcheck also runs (one per op: the first case) --------------------------------

GRADGRAD = [
    "mul.Tensor", "div.Tensor", "pow.Tensor_Tensor", "pow.Tensor_Scalar", "pow.Scalar", "exp", "log", "sin",
    "tanh", "sigmoid", "sqrt", "rsqrt", "reciprocal", "erf", "atan2", "hypot", "lerp.Tensor", "clamp.Tensor",
    "where.self", "masked_fill.Tensor", "mm", "addmm", "bmm", "mv", "sum.dim_IntList", "mean.dim", "prod.dim_int",
    "var.correction", "std.correction", "logsumexp", "_softmax", "_log_softmax", "linalg_vector_norm", "cumsum",
    "cumprod", "gather", "index_select", "cat", "stack", "transpose.int", "expand", "max.dim", "abs",
    "_adaptive_avg_pool2d", "adaptive_max_pool2d", "_adaptive_avg_pool3d", "adaptive_max_pool3d",
    "pow_.Scalar", "pow_.Tensor",  # in-place: double backward reaches self through its saved copy
]
