"""Forward-mode AD in the Autograd kernel: output tangents from the inputs' tangents.

The Autograd kernel hands an op call here only while a dual level is active. When no
input has a tangent the call goes on as plain (reverse-mode) autograd. Otherwise the op
runs (recording its backward graph as usual), then the op's forward derivative
(derivatives/forward.py) computes the output tangents, with forward AD suspended so the
formula's own ops see primals. An in-place op updates self's tangent in place, so views
of self's tangent (the tangents of self's views) see the change, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

from .._aten.public import functions  # torchpy.<name>, made below the package root
from .._tensor.tensor import Tensor
from . import grad_mode
from .derivatives import Derivative
from .derivatives.forward import ForwardDerivative, forward_for, reduction_dims
from .forward_grad import copy_tangents, get_tangent, set_tangent, state, suspended, tangent_for_update
from .functional_api import grad
from .graph import SavedTensor
from .kernel import _argument_values, _differentiable, _facts_for, _flat_inputs, _geometry, reverse_kernel
from .node import sum_to_shape

# An op with no derivative at all (torch's "not_implemented" ops: floor_divide, copy, ...). Every op
# with a backward formula has a forward one (the double-vjp fallback at the least).
_NOT_IMPLEMENTED = "Trying to use forward AD with {} that does not support it."


def _has_tangent(value: Any) -> bool:
    if isinstance(value, Tensor):
        return get_tangent(value) is not None
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, Tensor) and get_tangent(v) is not None for v in value)
    return False


def _tangent_of(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [get_tangent(v) if isinstance(v, Tensor) else None for v in value]
    return get_tangent(value) if isinstance(value, Tensor) else None


def forward_kernel(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
    if not (any(_has_tangent(a) for a in args) or any(_has_tangent(v) for v in kwargs.values())):
        return reverse_kernel(op, ks, args, kwargs)
    schema = op._schema
    kind = schema.kind.name
    if kind == "out":
        raise NotImplementedError(
            f"Trying to use forward AD with {op._entry.name.split('::')[1]}_out that does not support it "
            "because it is an out= function")
    facts = _facts_for(op)
    formula = facts.formula()
    values = _argument_values(facts, args, kwargs)
    with suspended():
        if formula is None:
            result = reverse_kernel(op, ks, args, kwargs)
            outputs = result if isinstance(result, (tuple, list)) else (result,)
            if any(_differentiable(o) for o in outputs):
                raise NotImplementedError(_NOT_IMPLEMENTED.format(op._entry.name))
            return result
        if formula.backward is None:
            return reverse_kernel(op, ks, args, kwargs)
        tangents = {name: _tangent_of(values[name]) for name in formula.inputs}
        if not any(_has_any(t) for t in tangents.values()):
            return reverse_kernel(op, ks, args, kwargs)
        forward = forward_for(formula.op)
        inplace = kind == "inplace"
        if inplace and forward.kind == "auto_linear":
            result = reverse_kernel(op, ks, args, kwargs)
            _inplace_linear(op, values, tangents, formula)
            return result
        primals = values
        if inplace:
            # The formula needs self as it was before the op overwrote it.
            primals = dict(values)
            primals["self"] = values["self"].clone()
        result = reverse_kernel(op, ks, args, kwargs)
        outputs = result if isinstance(result, (tuple, list)) else (result,)
        out_tangents = compute_tangents(op, forward, formula, primals, tangents, outputs)
        if inplace:
            new = out_tangents[0]
            if new is not None:
                target = values["self"]
                tangent_for_update(target).copy_(_fit(new, target))
            return result
        for out, tangent in zip(outputs, out_tangents):
            if _differentiable(out):
                # an input had a tangent: every differentiable output gets one (zeros where the
                # formula gave none, as PyTorch's zero-tangent inputs give)
                set_tangent(out, _fit(tangent, out) if tangent is not None else _zeros_tangent(out))
        _tangents_to_saved_outputs(outputs)
        return result


def _tangents_to_saved_outputs(outputs: tuple) -> None:
    """The backward node saved its outputs detached, before their tangents existed: give the
    saved copies the tangents, so a backward run inside the level (forward over reverse,
    Hessian-vector products) differentiates through them, as PyTorch's SavedVariable does."""
    node = next((o._grad_fn for o in outputs if isinstance(o, Tensor) and o._grad_fn is not None), None)
    saved = getattr(node, "_saved", None)
    if not isinstance(saved, dict):
        return
    for value in saved.values():
        if isinstance(value, SavedTensor) and value.output_nr >= 0 and value.tensor is not None:
            copy_tangents(outputs[value.output_nr], value.tensor)


def _zeros_tangent(out: Tensor) -> Tensor:
    return functions.zeros_like(out)


def _has_any(tangent: Any) -> bool:
    if isinstance(tangent, list):
        return any(t is not None for t in tangent)
    return tangent is not None


def _fit(tangent: Tensor, out: Tensor) -> Tensor:
    """A formula's tangent in the output's shape (a broadcast operand's tangent).

    Its dtype stays the formula's, as in PyTorch: a float32 tangent of a float64 primal
    stays float32 through views and sums."""
    if tangent._shape != out._shape:
        tangent = tangent.expand(out._shape)
    return tangent


def _replace(values: dict, tangents: dict) -> dict:
    """The arguments with each differentiable one replaced by its tangent (zeros without one)."""
    replaced = dict(values)
    for name, tangent in tangents.items():
        value = values[name]
        if isinstance(value, (list, tuple)):
            replaced[name] = [t if t is not None else functions.zeros_like(v) for t, v in zip(tangent, value)]
        elif value is not None:
            replaced[name] = tangent if tangent is not None else functions.zeros_like(value)
    return replaced


def _call(op: Any, values: dict) -> Any:
    args = [values[a.name] for a in op._schema.arguments if not a.kwarg_only]
    kwargs = {a.name: values[a.name] for a in op._schema.arguments if a.kwarg_only}
    return op(*args, **kwargs)


def _inplace_linear(op: Any, values: dict, tangents: dict, formula: Derivative) -> None:
    """add_, copy_, t_, ...: the same in-place op on self's tangent."""
    replaced = _replace(values, tangents)
    replaced["self"] = tangent_for_update(values["self"])
    _call(op, replaced)


def _saved(formula: Derivative, values: dict, outputs: tuple) -> dict:
    """What the backward formula takes, as the reverse kernel would have saved it."""
    saved: dict[str, Any] = {}
    for name in formula.save:
        if name.startswith("result"):
            saved[name] = outputs[int(name[6:] or 0)]
        elif "." in name:
            arg, attr = name.split(".")
            saved[f"{arg}_{attr}"] = _geometry(values[arg], attr)
        else:
            saved[name] = values[name]
    return saved


def compute_tangents(op: Any, forward: ForwardDerivative, formula: Derivative, values: dict,
                     tangents: dict, outputs: tuple) -> list:
    """One tangent (or None) per output of the op."""
    kind = forward.kind
    if kind == "auto_linear":
        result = _call(op, _replace(values, tangents))
        result = list(result) if isinstance(result, (tuple, list)) else [result]
    elif kind == "jvp":
        result = forward.jvp(tangents, values, outputs)
        result = list(result) if isinstance(result, (tuple, list)) else [result]
    elif kind == "auto_element_wise":
        result = [_element_wise(formula, values, tangents, outputs)]
    elif kind == "reduction":
        result = [_reduction(formula, values, tangents, outputs)]
    else:
        result = _double_vjp(formula, values, tangents, outputs)
    return result + [None] * (len(outputs) - len(result))


def _element_wise(formula: Derivative, values: dict, tangents: dict, outputs: tuple) -> Tensor | None:
    saved = _saved(formula, values, outputs)
    total = None
    for position, name in enumerate(formula.inputs):
        tangent = tangents[name]
        if tangent is None:
            continue
        if formula.takes_needs:
            saved["needs"] = tuple(i == position for i in range(len(formula.inputs)))
        part = formula.backward(tangent, **saved)
        if isinstance(part, (tuple, list)):
            part = part[position]
        if part is None:
            continue
        total = part if total is None else total + part
    return total


def _reduction(formula: Derivative, values: dict, tangents: dict, outputs: tuple) -> Tensor:
    saved = _saved(formula, values, outputs)
    if formula.takes_needs:
        saved["needs"] = (True,)
    local = formula.backward(functions.ones_like(outputs[0]), **saved)
    if isinstance(local, (tuple, list)):
        local = local[0]
    product = local * tangents["self"]
    if product.dim() == 0:
        return product.reshape(outputs[0]._shape)
    return product.sum(reduction_dims(values, product.dim()), keepdim=True).reshape(outputs[0]._shape)


def _double_vjp(formula: Derivative, values: dict, tangents: dict, outputs: tuple) -> list:
    """J v = d/du <J^T u, v>, with J^T u from the (differentiable, u-linear) backward formula."""
    inputs = _flat_inputs(values, formula.inputs)
    flat_tangents: list = []
    for name in formula.inputs:
        t = tangents[name]
        flat_tangents.extend(t if isinstance(t, list) else [t])
    wanted = [_differentiable(o) for o in outputs]
    us = [functions.zeros_like(o).requires_grad_(w) for o, w in zip(outputs, wanted)]
    saved = _saved(formula, values, outputs)
    if formula.takes_needs:
        saved["needs"] = tuple(t is not None for t in flat_tangents)
    create = grad_mode.is_grad_enabled() and any(
        isinstance(x, Tensor) and x._requires_grad for x in (*inputs, *flat_tangents, *outputs))
    with grad_mode.enable_grad():
        grads = formula.backward(us[0] if len(us) == 1 else tuple(us), **saved)
        if not isinstance(grads, (tuple, list)):
            grads = (grads,)
        inner = None
        for g, x, v in zip(grads, inputs, flat_tangents):
            if g is None or v is None:
                continue
            term = (sum_to_shape(g, x._shape) * v).sum()
            inner = term if inner is None else inner + term
    targets = [u for u, w in zip(us, wanted) if w]
    if inner is None or not inner._requires_grad:
        found = [None] * len(targets)
    else:
        found = list(grad(inner, targets, allow_unused=True, create_graph=create))
    result: list = []
    for out, w in zip(outputs, wanted):
        if not w:
            result.append(None)
            continue
        g = found.pop(0)
        result.append(g if g is not None else functions.zeros_like(out))
    return result


state.kernel = forward_kernel
