"""torch.func.jvp on torchpy.autograd.forward_ad: one dual level around the call.

Unlike torch (functorch levels), it cannot nest: calling it inside a dual level, or
inside another jvp, raises forward AD's "Nested forward mode AD is not supported".
"""

from __future__ import annotations

from typing import Any, Callable

from .._tensor.tensor import Tensor
from ..autograd import forward_ad
from ..utils._pytree import tree_flatten, tree_unflatten

_WHERE = "jvp(f, primals, tangents)"


def _only_tensors(values: list, what: str) -> None:
    for v in values:
        if not isinstance(v, Tensor):
            raise RuntimeError(f"{_WHERE}: Expected {what} to only contain Tensors, got {type(v)}")


def jvp(func: Callable, primals: Any, tangents: Any, *, strict: bool = False, has_aux: bool = False) -> tuple:
    """(func(*primals), J(primals) @ tangents), plus func's aux output when has_aux."""
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_WHERE}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_primals, primals_spec = tree_flatten(primals)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(
            f"{_WHERE}: Expected primals and tangents to have the same python structure. For example, if "
            "primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
            f"{primals_spec} and tangents with structure {tangents_spec}")
    if not flat_primals:
        raise RuntimeError(f"{_WHERE}: Expected primals to contain at least one Tensor.")
    _only_tensors(flat_primals, "primals")
    _only_tensors(flat_tangents, "tangents")
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(p, t) for p, t in zip(flat_primals, flat_tangents)]
        output = func(*tree_unflatten(duals, primals_spec))
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError(f"{_WHERE}: output of function f should be a tuple: (output, aux) if has_aux is True")
            output, aux = output
        flat_out, out_spec = tree_flatten(output)
        for o in flat_out:
            if not isinstance(o, Tensor):
                raise RuntimeError(f"{_WHERE}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")
        unpacked = [forward_ad.unpack_dual(o) for o in flat_out]
        primals_out = [u.primal for u in unpacked]
        tangents_out = [u.tangent if u.tangent is not None else u.primal.new_zeros(u.primal.shape)
                        for u in unpacked]
    result = (tree_unflatten(primals_out, out_spec), tree_unflatten(tangents_out, out_spec))
    return result + (aux,) if has_aux else result
