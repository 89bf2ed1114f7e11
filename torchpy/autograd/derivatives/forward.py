"""Forward-mode derivatives (jvp), one per operator overload, next to the backward formulas.

Organised as PyTorch's derivatives.yaml organises its `result:` entries:

* "auto_linear": the op is linear in its differentiable inputs, so the output tangent is the
  op applied to the tangents (zeros for inputs without one): views, add/sub, sum/mean,
  cat/stack, clone, copy_, index/gather/scatter writes, where...
* "auto_element_wise": an elementwise op's backward is `grad * f'(x)`, so calling the
  backward formula with the tangent as grad gives the tangent. An op of several inputs
  (mul, div, pow, atan2, maximum, clamp.Tensor...) calls it once per input that has a tangent
  and adds the contributions: J is diagonal in each input.
* "reduction": each input element feeds exactly one output element (prod, amax, norm, var,
  logsumexp...), so the tangent is sum over the reduced dims of backward(ones) * tangent.
* "jvp": an explicit formula `fn(T, V, outputs)`: T maps each differentiable argument to its
  tangent (None without one; a list for Tensor[]), V every argument's value (primal; an
  in-place op's self as it was before the op), outputs the op's results.
* "double_vjp": the fallback for the rest. The backward formulas are differentiable and
  linear in grad, so J v = d/du <J^T u, v>: run the backward on u = zeros (requiring grad),
  take the inner product with the tangents, and differentiate with respect to u.
  DOUBLE_VJP lists the ops that use it.

Formulas run with forward AD suspended, so their inputs act as primals; reverse-mode
recording stays on, so reverse-over-forward differentiates through them.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import torchpy

from . import FORMULAS
from ._common import reduced_dims, restore_reduced, wrap_dim


@dataclasses.dataclass(frozen=True)
class ForwardDerivative:
    op: str
    kind: str                     # auto_linear | auto_element_wise | reduction | jvp | double_vjp
    jvp: Callable | None = None   # for kind "jvp"


FORWARD: dict[str, ForwardDerivative] = {}
KINDS = ("auto_linear", "auto_element_wise", "reduction", "jvp", "double_vjp")


def forward_derivative(op: str, kind: str, jvp: Callable | None = None) -> None:
    if op in FORWARD:
        raise RuntimeError(f"a forward derivative for {op} is already registered")
    if kind not in KINDS or (kind == "jvp") != (jvp is not None):
        raise ValueError(f"bad forward derivative for {op}: {kind}")
    FORWARD[op] = ForwardDerivative(op, kind, jvp)


def jvp(*ops: str) -> Callable:
    def register(fn: Callable) -> Callable:
        for op in ops:
            forward_derivative(op, "jvp", fn)
        return fn

    return register


def _or_zeros(T: dict, V: dict, name: str):
    t = T[name]
    return t if t is not None else torchpy.zeros_like(V[name])


# --- auto_linear -----------------------------------------------------------------------------

AUTO_LINEAR = (
    "add.Tensor", "sub.Tensor", "neg", "clone", "_to_copy", "lift_fresh", "copy_",
    "fill.Tensor", "fill_.Tensor",
    # views (the tangent of a view is the same view of the tangent)
    "alias", "_unsafe_view", "view", "expand", "permute", "select.int", "slice.Tensor", "diagonal",
    "as_strided", "unbind.int", "split.Tensor", "split_with_sizes", "unsafe_split.Tensor",
    "unsafe_split_with_sizes", "unfold", "squeeze", "squeeze.dim", "squeeze.dims", "unsqueeze", "t",
    "transpose.int", "t_", "transpose_", "squeeze_", "squeeze_.dim", "squeeze_.dims", "unsqueeze_",
    # reductions and scans that are sums
    "sum", "sum.dim_IntList", "mean", "mean.dim", "cumsum",
    "cat", "stack",
    # reads and writes at indices: linear in the data, the indices are constants
    "index.Tensor", "index_select", "gather", "take", "masked_select",
    "scatter.src", "scatter_add", "index_add", "index_copy", "index_put", "_index_put_impl",
    "masked_scatter", "put", "index_fill.int_Tensor", "masked_fill.Tensor", "where.self",
    # averages over fixed bins
    "_adaptive_avg_pool2d", "_adaptive_avg_pool3d",
)

# --- auto_element_wise -----------------------------------------------------------------------

AUTO_ELEMENT_WISE = (
    "abs", "acos", "asin", "atan", "cos", "cosh", "sin", "sinh", "tan", "tanh", "erf", "erfc",
    "exp", "exp2", "expm1", "log", "log10", "log1p", "log2", "sqrt", "rsqrt", "reciprocal",
    "sigmoid", "relu", "frac", "nan_to_num", "sign", "sgn", "floor", "ceil", "trunc", "round",
    "round.decimals",
    "add.Scalar", "sub.Scalar", "rsub.Scalar", "rsub.Tensor", "mul.Scalar", "div.Scalar",
    "div.Scalar_mode", "div.Tensor_mode", "remainder.Scalar", "remainder.Tensor", "fmod.Scalar",
    "fmod.Tensor", "pow.Tensor_Scalar", "pow_.Scalar", "pow.Tensor_Tensor", "pow_.Tensor", "pow.Scalar",
    "clamp", "clamp.Tensor", "clamp_min", "clamp_min.Tensor", "clamp_max", "clamp_max.Tensor",
    "maximum", "minimum", "atan2", "hypot", "lerp.Scalar", "lerp.Tensor", "threshold_backward",
    # piecewise constant or random: zero tangents, as their backward gives zero gradients
    "normal.Tensor_float", "normal.float_Tensor", "normal.Tensor_Tensor", "normal_", "uniform_",
    "random_", "random_.from", "random_.to", "fill.Scalar", "fill_.Scalar", "zero",
)

# --- reduction -------------------------------------------------------------------------------

REDUCTION = (
    "prod", "prod.dim_int", "amax", "amin", "max", "min", "nansum", "logsumexp",
    "var.correction", "std.correction", "linalg_vector_norm", "norm.Scalar", "norm.ScalarOpt_dim",
    "norm.ScalarOpt_dtype", "norm.ScalarOpt_dim_dtype",
)

# --- double_vjp: ops whose forward derivative comes from their backward formula -------------

DOUBLE_VJP = (
    "cumprod", "scatter_reduce.two", "var_mean.correction", "std_mean.correction", "aminmax",
    "_softmax_backward_data", "_log_softmax_backward_data", "masked_scatter_backward",
)

# The backward ops that formulas call (their own forward derivatives, for forward-over-reverse):
# linear in the gradient they scatter, or elementwise in both operands.
AUTO_LINEAR += ("select_backward", "slice_backward", "diagonal_backward", "unfold_backward", "flip", "repeat")
AUTO_ELEMENT_WISE += ("tanh_backward", "sigmoid_backward")


# --- explicit formulas -----------------------------------------------------------------------


@jvp("aten::mul.Tensor")
def mul_jvp(T, V, outputs):
    out = None
    if T["self"] is not None:
        out = T["self"] * V["other"]
    if T["other"] is not None:
        term = T["other"] * V["self"]
        out = term if out is None else out + term
    return out


@jvp("aten::div.Tensor")
def div_jvp(T, V, outputs):
    # (a/b)' = (a' - (a/b) b') / b
    self_t, other_t, other = T["self"], T["other"], V["other"]
    if other_t is None:
        return self_t / other
    num = -outputs[0] * other_t if self_t is None else self_t - outputs[0] * other_t
    return num / other


def _product_rule(left_t, left, right_t, right, product: Callable):
    out = None
    if left_t is not None:
        out = product(left_t, right)
    if right_t is not None:
        term = product(left, right_t)
        out = term if out is None else out + term
    return out


@jvp("aten::mm")
def mm_jvp(T, V, outputs):
    return _product_rule(T["self"], V["self"], T["mat2"], V["mat2"], torchpy.mm)


@jvp("aten::bmm")
def bmm_jvp(T, V, outputs):
    return _product_rule(T["self"], V["self"], T["mat2"], V["mat2"], torchpy.bmm)


@jvp("aten::mv")
def mv_jvp(T, V, outputs):
    return _product_rule(T["self"], V["self"], T["vec"], V["vec"], torchpy.mv)


@jvp("aten::dot")
def dot_jvp(T, V, outputs):
    return _product_rule(T["self"], V["self"], T["tensor"], V["tensor"], torchpy.dot)


@jvp("aten::vdot")
def vdot_jvp(T, V, outputs):
    return _product_rule(T["self"], V["self"], T["other"], V["other"], torchpy.vdot)


def _affine(T, V, product_t, bias: str):
    """beta * bias_t + alpha * product_t, either part possibly absent."""
    out = None
    if product_t is not None:
        out = product_t * V["alpha"] if V["alpha"] != 1 else product_t
    if T[bias] is not None:
        term = T[bias] * V["beta"] if V["beta"] != 1 else T[bias]
        out = term if out is None else out + term
    return out


@jvp("aten::addmm")
def addmm_jvp(T, V, outputs):
    product = _product_rule(T["mat1"], V["mat1"], T["mat2"], V["mat2"], torchpy.mm)
    return _affine(T, V, product, "self")


@jvp("aten::baddbmm")
def baddbmm_jvp(T, V, outputs):
    product = _product_rule(T["batch1"], V["batch1"], T["batch2"], V["batch2"], torchpy.bmm)
    return _affine(T, V, product, "self")


@jvp("aten::addmv")
def addmv_jvp(T, V, outputs):
    product = _product_rule(T["mat"], V["mat"], T["vec"], V["vec"], torchpy.mv)
    return _affine(T, V, product, "self")


@jvp("aten::_softmax")
def softmax_jvp(T, V, outputs):
    result, self_t = outputs[0], T["self"]
    return result * (self_t - (result * self_t).sum(V["dim"], keepdim=True))


@jvp("aten::_log_softmax")
def log_softmax_jvp(T, V, outputs):
    self_t = T["self"]
    return self_t - (outputs[0].exp() * self_t).sum(V["dim"], keepdim=True)


def _gather_by_indices(T, V, outputs):
    """sort / topk / max.dim / min.dim: each value is self at its index along dim."""
    self_t = T["self"]
    if self_t.dim() == 0:
        return self_t.clone(), None
    dim = wrap_dim(V["dim"], self_t.dim())
    indices = outputs[1]
    keepdim = V.get("keepdim", True)
    if not keepdim:
        indices = indices.unsqueeze(dim)
    values_t = self_t.gather(dim, indices)
    return (values_t if keepdim else values_t.squeeze(dim)), None


jvp("aten::sort", "aten::sort.stable", "aten::topk", "aten::max.dim", "aten::min.dim")(_gather_by_indices)


def _adaptive_max_jvp(spatial: int):
    """adaptive_max_pool2d / 3d: each value is self at its flat index in the spatial plane."""

    def jvp_fn(T, V, outputs):
        indices = outputs[1]
        self_t = T["self"].flatten(-spatial)
        return self_t.gather(-1, indices.flatten(-spatial)).view_as(indices), None

    return jvp_fn


jvp("aten::adaptive_max_pool2d")(_adaptive_max_jvp(2))
jvp("aten::adaptive_max_pool3d")(_adaptive_max_jvp(3))


# The pooling backward ops are linear in grad_output; self gives only the shape (and indices
# the positions), so the tangent is the op on grad_output's tangent.
def _pooling_backward_jvp(name: str):
    def jvp_fn(T, V, outputs):
        op = getattr(torchpy.ops.aten, name).default
        rest = [V[arg] for arg in ("indices",) if arg in V]
        return op(_or_zeros(T, V, "grad_output"), V["self"], *rest)

    return jvp_fn


for _name in ("_adaptive_avg_pool2d_backward", "_adaptive_avg_pool3d_backward",
              "adaptive_max_pool2d_backward", "adaptive_max_pool3d_backward"):
    jvp("aten::" + _name)(_pooling_backward_jvp(_name))


# x.eq_(y) and friends: a zero tangent, but only for a self that had one (torch's self_t.zero_()).
@jvp(*(f"aten::{cmp}_.{kind}" for cmp in ("eq", "ne", "lt", "le", "gt", "ge") for kind in ("Scalar", "Tensor")))
def compare_inplace_jvp(T, V, outputs):
    return None if T["self"] is None else torchpy.zeros_like(T["self"])


@jvp("aten::masked_fill.Scalar")
def masked_fill_jvp(T, V, outputs):
    return T["self"].masked_fill(V["mask"], 0)


@jvp("aten::index_fill.int_Scalar")
def index_fill_jvp(T, V, outputs):
    return T["self"].index_fill(V["dim"], V["index"], 0)


@jvp("aten::scatter.value")
def scatter_value_jvp(T, V, outputs):
    return T["self"].scatter(V["dim"], V["index"], 0)


for _name in AUTO_LINEAR:
    forward_derivative("aten::" + _name, "auto_linear")
for _name in AUTO_ELEMENT_WISE:
    forward_derivative("aten::" + _name, "auto_element_wise")
for _name in REDUCTION:
    forward_derivative("aten::" + _name, "reduction")
for _name in DOUBLE_VJP:
    forward_derivative("aten::" + _name, "double_vjp")

_FALLBACKS: dict[str, ForwardDerivative] = {}


def forward_for(op: str) -> ForwardDerivative:
    """The op's forward derivative; an op with only a backward formula gets the double-vjp one."""
    found = FORWARD.get(op)
    if found is None:
        found = _FALLBACKS.get(op)
        if found is None:
            found = _FALLBACKS[op] = ForwardDerivative(op, "double_vjp")
    return found


def reduction_dims(values: dict, ndim: int) -> list[int]:
    return reduced_dims(values.get("dim"), ndim)


__all__ = ["FORWARD", "ForwardDerivative", "forward_for", "DOUBLE_VJP", "restore_reduced", "FORMULAS"]
