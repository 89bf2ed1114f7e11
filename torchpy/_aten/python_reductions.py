"""Reductions that PyTorch writes in Python rather than binding from the op table.

torch.norm (torch/functional.py) and Tensor.norm choose an aten op from their
arguments: linalg_vector_norm for numeric orders and for "fro" over at most two
dims, linalg.matrix_norm otherwise. nn.functional.softmax / log_softmax pick an
implicit dim (with a deprecation warning) and call Tensor.softmax / log_softmax.
"""

from __future__ import annotations

import warnings
from typing import Any

from .._tensor.dtype import dtype
from .._tensor.members import MODES, declare
from .._tensor.tensor import Tensor
from .._tensor.torch_function import handle_torch_function, has_torch_function_unary
from .public import linalg


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, out: Tensor | None = None,
         dtype: dtype | None = None) -> Tensor:
    """torch.norm: the p-norm of `input` over `dim` (all dims by default)."""
    if has_torch_function_unary(input):
        return handle_torch_function(norm, (input,), input, p=p, dim=dim, keepdim=keepdim, out=out, dtype=dtype)

    dims = [dim] if isinstance(dim, int) else dim
    kwargs: dict[str, Any] = {"dtype": dtype} if out is None else {"dtype": dtype, "out": out}
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return linalg.vector_norm(input, 2, dims, keepdim, **kwargs)
        # "nuc", or "fro" over more than two dims: matrix_norm computes or raises.
        if dims is None:
            dims = list(range(input.dim()))
        return linalg.matrix_norm(input, p, dims, keepdim, **kwargs)
    return linalg.vector_norm(input, 2.0 if p is None else p, dims, keepdim, **kwargs)


def tensor_norm(self: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
                dtype: dtype | None = None) -> Tensor:
    """Tensor.norm: see torch.norm."""
    if has_torch_function_unary(self):
        return handle_torch_function(Tensor.norm, (self,), self, p=p, dim=dim, keepdim=keepdim, dtype=dtype)
    return norm(self, p, dim, keepdim, dtype=dtype)


def _implicit_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
        "as an argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def functional_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                       dtype: dtype | None = None) -> Tensor:
    """nn.functional.softmax."""
    if has_torch_function_unary(input):
        return handle_torch_function(functional_softmax, (input,), input, dim=dim, _stacklevel=_stacklevel,
                                     dtype=dtype)
    if dim is None:
        dim = _implicit_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim) if dtype is None else input.softmax(dim, dtype=dtype)


def functional_log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                           dtype: dtype | None = None) -> Tensor:
    """nn.functional.log_softmax."""
    if has_torch_function_unary(input):
        return handle_torch_function(functional_log_softmax, (input,), input, dim=dim,
                                     _stacklevel=_stacklevel, dtype=dtype)
    if dim is None:
        dim = _implicit_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim) if dtype is None else input.log_softmax(dim, dtype=dtype)


tensor_norm.__name__ = "norm"
tensor_norm.__qualname__ = "Tensor.norm"
declare("norm", tensor_norm, checks=MODES)
functional_softmax.__name__ = functional_softmax.__qualname__ = "softmax"
functional_log_softmax.__name__ = functional_log_softmax.__qualname__ = "log_softmax"
