"""Forward-mode derivatives (jvp): the rule kinds and the explicit jvp functions.

An op's YAML entry (_aten/native_functions/*.yaml) says `forward:` with a rule kind or the name
of a function declared here with @jvp_rule; table.py fills FORWARD from the entries. The kinds
follow PyTorch's derivatives.yaml `result:` entries:

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
  An op with a backward formula only (a custom op) gets it too.

Formulas run with forward AD suspended, so their inputs act as primals; reverse-mode
recording stays on, so reverse-over-forward differentiates through them.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from ..._aten.public import functions  # torchpy.<name>, made below the package root
from ..._dispatch.ops import ops

from ._common import reduced_dims, restore_reduced, wrap_dim


@dataclasses.dataclass(frozen=True)
class ForwardDerivative:
    op: str
    kind: str                     # auto_linear | auto_element_wise | reduction | jvp | double_vjp
    jvp: Callable | None = None   # for kind "jvp"


# op name -> its rule; filled from the YAML by table.py
FORWARD: dict[str, ForwardDerivative] = {}
KINDS = ("auto_linear", "auto_element_wise", "reduction", "jvp", "double_vjp")
# jvp name (what a YAML `forward:` says) -> function
JVP_FUNCTIONS: dict[str, Callable] = {}


def jvp_rule(fn: Callable | None = None, *, name: str | None = None) -> Callable:
    """Declare a jvp `fn(T, V, outputs)` under its function name (or `name`), for YAML entries to name."""
    def register(fn: Callable) -> Callable:
        key = name or fn.__name__
        if key in JVP_FUNCTIONS:
            raise RuntimeError(f"a jvp rule named {key!r} is already declared")
        JVP_FUNCTIONS[key] = fn
        return fn

    return register if fn is None else register(fn)


def _or_zeros(T: dict, V: dict, name: str):
    t = T[name]
    return t if t is not None else functions.zeros_like(V[name])


# --- explicit formulas -----------------------------------------------------------------------


@jvp_rule
def mul_jvp(T, V, outputs):
    out = None
    if T["self"] is not None:
        out = T["self"] * V["other"]
    if T["other"] is not None:
        term = T["other"] * V["self"]
        out = term if out is None else out + term
    return out


@jvp_rule
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


@jvp_rule
def mm_jvp(T, V, outputs):
    return _product_rule(T["self"], V["self"], T["mat2"], V["mat2"], functions.mm)


@jvp_rule
def bmm_jvp(T, V, outputs):
    return _product_rule(T["self"], V["self"], T["mat2"], V["mat2"], functions.bmm)


@jvp_rule
def mv_jvp(T, V, outputs):
    return _product_rule(T["self"], V["self"], T["vec"], V["vec"], functions.mv)


@jvp_rule
def dot_jvp(T, V, outputs):
    return _product_rule(T["self"], V["self"], T["tensor"], V["tensor"], functions.dot)


@jvp_rule
def vdot_jvp(T, V, outputs):
    return _product_rule(T["self"], V["self"], T["other"], V["other"], functions.vdot)


def _affine(T, V, product_t, bias: str):
    """beta * bias_t + alpha * product_t, either part possibly absent."""
    out = None
    if product_t is not None:
        out = product_t * V["alpha"] if V["alpha"] != 1 else product_t
    if T[bias] is not None:
        term = T[bias] * V["beta"] if V["beta"] != 1 else T[bias]
        out = term if out is None else out + term
    return out


@jvp_rule
def addmm_jvp(T, V, outputs):
    product = _product_rule(T["mat1"], V["mat1"], T["mat2"], V["mat2"], functions.mm)
    return _affine(T, V, product, "self")


@jvp_rule
def baddbmm_jvp(T, V, outputs):
    product = _product_rule(T["batch1"], V["batch1"], T["batch2"], V["batch2"], functions.bmm)
    return _affine(T, V, product, "self")


@jvp_rule
def addmv_jvp(T, V, outputs):
    product = _product_rule(T["mat"], V["mat"], T["vec"], V["vec"], functions.mv)
    return _affine(T, V, product, "self")


@jvp_rule
def softmax_jvp(T, V, outputs):
    result, self_t = outputs[0], T["self"]
    return result * (self_t - (result * self_t).sum(V["dim"], keepdim=True))


@jvp_rule
def log_softmax_jvp(T, V, outputs):
    self_t = T["self"]
    return self_t - (outputs[0].exp() * self_t).sum(V["dim"], keepdim=True)


@jvp_rule
def gather_by_indices_jvp(T, V, outputs):
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


def _adaptive_max_jvp(spatial: int):
    """adaptive_max_pool2d / 3d: each value is self at its flat index in the spatial plane."""

    def jvp_fn(T, V, outputs):
        indices = outputs[1]
        self_t = T["self"].flatten(-spatial)
        return self_t.gather(-1, indices.flatten(-spatial)).view_as(indices), None

    return jvp_fn


adaptive_max_pool2d_jvp = jvp_rule(_adaptive_max_jvp(2), name="adaptive_max_pool2d_jvp")
adaptive_max_pool3d_jvp = jvp_rule(_adaptive_max_jvp(3), name="adaptive_max_pool3d_jvp")


# The pooling backward ops are linear in grad_output; self gives only the shape (and indices
# the positions), so the tangent is the op on grad_output's tangent.
def _pooling_backward_jvp(name: str):
    def jvp_fn(T, V, outputs):
        op = getattr(ops.aten, name).default
        rest = [V[arg] for arg in ("indices",) if arg in V]
        return op(_or_zeros(T, V, "grad_output"), V["self"], *rest)

    return jvp_fn


for _name in ("_adaptive_avg_pool2d_backward", "_adaptive_avg_pool3d_backward",
              "adaptive_max_pool2d_backward", "adaptive_max_pool3d_backward"):
    jvp_rule(_pooling_backward_jvp(_name), name=_name.lstrip("_") + "_jvp")


# x.eq_(y) and friends: a zero tangent, but only for a self that had one (torch's self_t.zero_()).
@jvp_rule
def compare_inplace_jvp(T, V, outputs):
    return None if T["self"] is None else functions.zeros_like(T["self"])


@jvp_rule
def masked_fill_jvp(T, V, outputs):
    return T["self"].masked_fill(V["mask"], 0)


@jvp_rule
def index_fill_jvp(T, V, outputs):
    return T["self"].index_fill(V["dim"], V["index"], 0)


@jvp_rule
def scatter_value_jvp(T, V, outputs):
    return T["self"].scatter(V["dim"], V["index"], 0)


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


__all__ = ["FORWARD", "ForwardDerivative", "JVP_FUNCTIONS", "forward_for", "jvp_rule", "restore_reduced"]


@jvp_rule
def convolution_jvp(T, V, outputs):
    """convolution is linear in input and in weight (bilinear together), plus the bias."""
    args = [V[n] for n in ("stride", "padding", "dilation", "transposed", "output_padding", "groups")]
    conv = ops.aten.convolution.default
    out = _product_rule(T["input"], V["input"], T["weight"], V["weight"], lambda x, w: conv(x, w, None, *args))
    bias_t = T["bias"]
    if bias_t is not None:
        spatial = V["weight"].dim() - 2
        term = bias_t.reshape([1, -1] + [1] * spatial)
        out = term if out is None else out + term
    return out
