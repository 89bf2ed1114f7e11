"""Meta rules of linalg_vector_norm and the aten::norm overloads: the reduced dims, the result's
shape and (real) dtype, and the checks, from metadata alone.

kernels/norm.py's CPU kernels make these checks in PyTorch's CPU words and compute; the Meta
kernels are these rules (in the meta function's words) plus `meta_tensor`.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from ..._tensor.dtype import dtype
from ..._tensor.promotion import promote_types
from ..._tensor.tensor import Tensor, meta_tensor
from .reduction import Axes, reduction

NAME = "linalg.vector_norm"


def _format_order(order: Any) -> str:
    """The order as c10::Scalar prints it (a double in C++ stream format: -1, -1.5, inf)."""
    if isinstance(order, float):
        return f"{order:g}"
    return str(order)


def result_dtype(self: Tensor, requested: dtype | None, on_meta: bool = False) -> dtype:
    d = self._dtype
    if not (d.is_floating_point or d.is_complex):
        shown = d if on_meta else d._c10_name  # the meta function prints torch.int64
        raise RuntimeError(f"{NAME}: Expected a floating point or complex tensor as input. Got {shown}")
    if requested is None:
        return d.to_real()
    if not (requested.is_floating_point or requested.is_complex):
        raise RuntimeError(f"{NAME}: dtype should be floating point or complex, but got {requested._c10_name}")
    if d.is_complex and not requested.is_complex:
        raise RuntimeError(f"{NAME}: dtype should be complex for complex inputs, but got {requested._c10_name}")
    if not d.is_complex and requested.is_complex:
        raise RuntimeError(f"{NAME}: dtype should be real for real inputs, but got {requested._c10_name}")
    if promote_types(d, requested) is not requested:
        raise RuntimeError(
            f"{NAME}: the dtype of the input ({d._c10_name}) should be convertible without narrowing "
            f"to the specified dtype ({requested._c10_name})"
        )
    return requested.to_real()


def check_identity(self: Tensor, order: float, dim: Sequence[int] | None, on_meta: bool = False) -> None:
    """inf and negative orders have no identity, so they cannot reduce an empty dim."""
    if not (order < 0 or order == math.inf) or 0 not in self._shape:
        return
    shown = _format_order(order)
    if not dim:
        raise RuntimeError(
            f"{NAME} cannot compute the {shown} norm on an empty tensor because the operation does "
            "not have an identity"
        )
    space = " " if on_meta else ""  # the meta function's message has the space
    for d in dim:
        if self._shape[d] == 0:
            raise RuntimeError(
                f"{NAME} cannot compute the {shown} norm on the dimension {d}{space}because this "
                "dimension is empty and the operation does not have an identity"
            )


def vector_norm(self: Tensor, ord: Any, dim: Any, keepdim: bool, requested: dtype | None, on_meta: bool
                ) -> tuple[Axes, tuple[int, ...], dtype]:
    """linalg_vector_norm's checks; (axes, result shape, result dtype)."""
    if isinstance(ord, complex):
        raise RuntimeError(f"{NAME}: Expected a non-complex scalar as the order of norm.")
    result = result_dtype(self, requested, on_meta)
    axes, shape = reduction(self._shape, dim, keepdim)
    check_identity(self, float(ord), dim, on_meta)
    return axes, shape, result


def check_norm_input(self: Tensor) -> None:
    d = self._dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(
            f"norm(): input dtype should be either floating point or complex. Got {d._c10_name} instead."
        )


# --- the Meta kernels ---------------------------------------------------------------------------------

def linalg_vector_norm(self: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,
                       dtype: dtype | None = None) -> Tensor:
    _, shape, result = vector_norm(self, ord, dim, keepdim, dtype, on_meta=True)
    return meta_tensor(shape, result)


def norm(self: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    check_norm_input(self)
    return linalg_vector_norm(self, 2 if p is None else p, dim, keepdim, dtype=dtype)


def norm_dtype(self: Tensor, p: Any, *, dtype: dtype) -> Tensor:
    return norm(self, p, dtype=dtype)
