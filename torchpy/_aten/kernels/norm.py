"""linalg_vector_norm and the aten::norm overloads.

`torch.norm` and `Tensor.norm` are Python functions in PyTorch that call
linalg_vector_norm (see torchpy/_aten/norm_api.py); the aten::norm overloads are
reachable through torchpy.ops and share this kernel, with their own dtype message.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..._tensor.dtype import dtype
from ..._tensor.promotion import promote_types
from ..._tensor.tensor import Tensor
from .reduction_util import accumulate_dtype, layout, meta, register_kernel, wrap

_NAME = "linalg.vector_norm"


def _format_order(order: Any) -> str:
    """The order as c10::Scalar prints it (a double in C++ stream format: -1, -1.5, inf)."""
    if isinstance(order, float):
        return f"{order:g}"
    return str(order)


def _result_dtype(self: Tensor, requested: dtype | None) -> dtype:
    d = self._dtype
    if not (d.is_floating_point or d.is_complex):
        shown = d if self._data is None else d._c10_name  # the meta function prints torch.int64
        raise RuntimeError(f"{_NAME}: Expected a floating point or complex tensor as input. Got {shown}")
    if requested is None:
        return d.to_real()
    if not (requested.is_floating_point or requested.is_complex):
        raise RuntimeError(f"{_NAME}: dtype should be floating point or complex, but got {requested._c10_name}")
    if d.is_complex and not requested.is_complex:
        raise RuntimeError(f"{_NAME}: dtype should be complex for complex inputs, but got {requested._c10_name}")
    if not d.is_complex and requested.is_complex:
        raise RuntimeError(f"{_NAME}: dtype should be real for real inputs, but got {requested._c10_name}")
    if promote_types(d, requested) is not requested:
        raise RuntimeError(
            f"{_NAME}: the dtype of the input ({d._c10_name}) should be convertible without narrowing "
            f"to the specified dtype ({requested._c10_name})"
        )
    return requested.to_real()


def _check_identity(self: Tensor, order: float, dim: Sequence[int] | None) -> None:
    """inf and negative orders have no identity, so they cannot reduce an empty dim."""
    if not (order < 0 or order == math.inf) or 0 not in self._shape:
        return
    shown = _format_order(order)
    if not dim:
        raise RuntimeError(
            f"{_NAME} cannot compute the {shown} norm on an empty tensor because the operation does "
            "not have an identity"
        )
    space = " " if self._data is None else ""  # the meta function's message has the space
    for d in dim:
        if self._shape[d] == 0:
            raise RuntimeError(
                f"{_NAME} cannot compute the {shown} norm on the dimension {d}{space}because this "
                "dimension is empty and the operation does not have an identity"
            )


def vector_norm_array(data: np.ndarray, order: float, axes: tuple[int, ...] | None, keepdim: bool) -> np.ndarray:
    """The `order`-norm of `data` over `axes`, in data's (real) precision."""
    magnitude = np.abs(data)
    if order == 2:
        return np.sqrt(np.add.reduce(magnitude * magnitude, axes, None, None, keepdim))
    if order == 1:
        return np.add.reduce(magnitude, axes, None, None, keepdim)
    if order == math.inf:
        return np.maximum.reduce(magnitude, axes, None, None, keepdim)
    if order == -math.inf:
        return np.minimum.reduce(magnitude, axes, None, None, keepdim)
    if order == 0:
        return np.add.reduce(magnitude != 0, axes, magnitude.dtype, None, keepdim)
    powered = np.add.reduce(magnitude ** order, axes, None, None, keepdim)
    return powered ** (1.0 / order)


def linalg_vector_norm(self: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *,
                       dtype: dtype | None = None) -> Tensor:
    if isinstance(ord, complex):
        raise RuntimeError(f"{_NAME}: Expected a non-complex scalar as the order of norm.")
    result = _result_dtype(self, dtype)
    axes, shape = layout(self, dim, keepdim)
    _check_identity(self, float(ord), dim)
    if self._data is None:
        return meta(shape, result)
    compute = accumulate_dtype(dtype if dtype is not None else self._dtype)
    data = self._data if self._data.dtype == compute else self._data.astype(compute)
    return wrap(vector_norm_array(data, float(ord), axes, keepdim), result)


# --- aten::norm overloads (not public functions in torch; torch.norm is Python) -----------------


def _check_norm_input(self: Tensor) -> None:
    d = self._dtype
    if not (d.is_floating_point or d.is_complex):
        raise RuntimeError(
            f"norm(): input dtype should be either floating point or complex. Got {d._c10_name} instead."
        )


def norm(self: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    _check_norm_input(self)
    return linalg_vector_norm(self, 2 if p is None else p, dim, keepdim, dtype=dtype)


def norm_dtype(self: Tensor, p: Any, *, dtype: dtype) -> Tensor:
    return norm(self, p, dtype=dtype)


register_kernel("linalg_vector_norm", linalg_vector_norm)
register_kernel("norm", norm)
register_kernel("norm_dim", norm)
register_kernel("norm_dtype", norm_dtype)
