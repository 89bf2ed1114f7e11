"""Sum-like reductions: sum, nansum, mean, prod, count_nonzero, any, all.

Each op is array code (NumPy over the input, cast to the computation dtype) behind a
Tensor-level adapter that applies the op's dtype rule and builds meta results.
Dtype rules, as PyTorch's:
  sum / prod / nansum   integers and bool widen to int64; dtype= casts the input first
  mean                  floating or complex only (dtype= may make an integer input valid)
  count_nonzero         int64
  any / all             bool, except uint8 in, uint8 out
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor, from_array
from .reduction_util import (
    accumulate_dtype, cast, check_out_dtype, is_floating_or_complex, is_integral, layout, meta,
    out_kernel, reduction_size, register_kernel, wrap,
)
from .variants import write_out

_int64 = _dt.int64
_add_reduce = np.add.reduce  # ufunc.reduce directly: np.sum's wrapper costs more than the sum
_multiply_reduce = np.multiply.reduce


def _widened(self_dtype: dtype, requested: dtype | None) -> dtype:
    """sum/prod's result dtype: dtype= if given; integers and bool widen to int64."""
    if requested is not None:
        return requested
    return _int64 if is_integral(self_dtype) else self_dtype


# --- sum / nansum / prod -------------------------------------------------------------------------


# Summed in their own dtype with no widening or accumulation type: sum() is one NumPy reduce.
_SUMMED_AS_IS = frozenset({_dt.float32, _dt.float64})


def sum_array(data: np.ndarray, axes: tuple[int, ...] | None, keepdim: bool, compute: np.dtype) -> Any:
    return _add_reduce(cast(data, compute), axes, None, None, keepdim)


def _summed_as_is(self: Tensor, dim: Any, keepdim: bool) -> tuple[Any, tuple[int, ...] | None] | None:
    """(NumPy sum, axes) of a float32 / float64 tensor over no dim or one (x.sum(), x.sum(0),
    the un-broadcasting in autograd): one reduce, no dtype work. None for any other case."""
    if dim is None:
        return None if keepdim else (_add_reduce(self._data, None), None)
    if type(dim) is list and len(dim) == 1:
        axes = layout(self, dim, keepdim)[0]
        return _add_reduce(self._data, axes, None, None, keepdim), axes
    return None


def sum(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    if dtype is None and self._dtype in _SUMMED_AS_IS and self._data is not None:
        summed = _summed_as_is(self, dim, keepdim)
        if summed is not None:
            total = summed[0]
            return from_array(total if type(total) is np.ndarray else np.asarray(total), self._dtype)
    result = _widened(self._dtype, dtype)
    axes, shape = layout(self, dim, keepdim)
    if self._data is None:
        return meta(shape, result)
    return wrap(sum_array(self._data, axes, keepdim, accumulate_dtype(result)), result)


def nansum(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    if self._dtype.is_complex and self._data is not None:  # a CPU kernel check, not a meta one
        raise RuntimeError("nansum on CPU does not support complex inputs")
    result = _widened(self._dtype, dtype)
    axes, shape = layout(self, dim, keepdim)
    if self._data is None:
        return meta(shape, result)
    return wrap(np.nansum(cast(self._data, accumulate_dtype(result)), axis=axes, keepdims=keepdim), result)


def nansum_out(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None,
               out: Tensor) -> Tensor:
    if dtype is not None and dtype is not out._dtype:
        raise RuntimeError(
            f"nansum: provided dtype must match dtype of result. Got {out._dtype._c10_name} and "
            f"{dtype._c10_name}."
        )
    return write_out(out, nansum(self, dim, keepdim, dtype=out._dtype))


def prod(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    result = _widened(self._dtype, dtype)
    axes, shape = layout(self, dim, keepdim)
    if self._data is None:
        return meta(shape, result)
    return wrap(_multiply_reduce(cast(self._data, accumulate_dtype(result)), axes, None, None, keepdim), result)


# --- mean ------------------------------------------------------------------------------------------


def _mean_dtype(self_dtype: dtype, requested: dtype | None, on_meta: bool = False) -> dtype:
    if requested is None:
        if not is_floating_or_complex(self_dtype):
            shown = self_dtype if on_meta else self_dtype._c10_name  # the meta function prints torch.int64
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating point "
                f"or complex dtype. Got: {shown}"
            )
        return self_dtype
    if not is_floating_or_complex(requested):
        raise RuntimeError(
            "mean(): could not infer output dtype. Optional dtype must be either a floating point "
            f"or complex dtype. Got: {requested._c10_name}"
        )
    return requested


def mean(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    if dtype is None and self._dtype in _SUMMED_AS_IS and self._data is not None:
        summed = _summed_as_is(self, dim, keepdim)
        if summed is not None:
            total, axes = summed  # divided in the tensor's dtype, as PyTorch's mean does
            return from_array(np.asarray(total / reduction_size(self._shape, axes)), self._dtype)
    result = _mean_dtype(self._dtype, dtype, self._data is None)
    axes, shape = layout(self, dim, keepdim)
    if self._data is None:
        return meta(shape, result)
    # PyTorch divides the (rounded) sum by the count in the result dtype.
    total = wrap(sum_array(self._data, axes, keepdim, accumulate_dtype(result)), result)._data
    return wrap(total / reduction_size(self._shape, axes), result)  # 0 / 0: nan, as PyTorch's


def mean_out(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None,
             out: Tensor) -> Tensor:
    if dtype is None:
        _mean_dtype(self._dtype, None)  # an integer input is an error even with a float out
        if is_floating_or_complex(out._dtype):
            dtype = out._dtype  # computed in out's dtype, as PyTorch's mean.out does
    else:
        check_out_dtype(out, dtype)
    return write_out(out, mean(self, dim, keepdim, dtype=dtype))


# --- count_nonzero / any / all ---------------------------------------------------------------------


def count_nonzero(self: Tensor, dim: Any = None) -> Tensor:
    axes, shape = layout(self, dim, False)
    if self._data is None:
        return meta(shape, _int64)
    return wrap(np.count_nonzero(self._data, axis=axes), _int64)


def _logical_reduce(ufunc: np.ufunc, self: Tensor, dim: Any, keepdim: bool) -> Tensor:
    # any/all.dims with dim=[] reduce nothing (unlike sum), so [] is not "all dims" here.
    axes, shape = layout(self, dim, keepdim, all_if_empty=False)
    result = _dt.uint8 if self._dtype is _dt.uint8 else _dt.bool
    if self._data is None:
        return meta(shape, result)
    data = self._data
    truth = data if data.dtype == np.bool_ else data != 0
    return wrap(ufunc.reduce(truth, axis=axes, keepdims=keepdim), result)


def any(self: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return _logical_reduce(np.logical_or, self, dim, keepdim)


def all(self: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return _logical_reduce(np.logical_and, self, dim, keepdim)


def _logical_out(name: str, functional: Any) -> Any:
    def kernel(self: Tensor, *args: Any, out: Tensor, **kwargs: Any) -> Tensor:
        if out._dtype is not _dt.bool and out._dtype is not _dt.uint8:
            raise RuntimeError(f"{name} only supports bool tensor for result, got: {out._dtype._c10_name}")
        result = functional(self, *args, **kwargs)
        if result._dtype is not out._dtype:  # uint8 <-> bool: the truth values carry over
            result = meta(result._shape, out._dtype) if result._data is None else wrap(result._data, out._dtype)
        return write_out(out, result)

    kernel.__name__ = f"{name}_out"
    kernel.__wrapped__ = functional  # type: ignore[attr-defined]
    return kernel


# --- registration ----------------------------------------------------------------------------------


register_kernel("sum", sum)
register_kernel("sum_dim", sum)
register_kernel("sum_out", out_kernel(sum, "exact"))
register_kernel("sum_dim_out", out_kernel(sum, "dtype"))
register_kernel("nansum", nansum)
register_kernel("nansum_out", nansum_out)
register_kernel("prod", prod)
register_kernel("prod_dim", prod)
register_kernel("prod_out", out_kernel(prod, "exact"))
register_kernel("prod_dim_out", out_kernel(prod, "dtype"))
register_kernel("mean", mean)
register_kernel("mean_dim", mean)
register_kernel("mean_dtype_out", out_kernel(mean, "exact"))
register_kernel("mean_dim_out", mean_out)
register_kernel("count_nonzero", count_nonzero)
register_kernel("count_nonzero_dims", count_nonzero)
register_kernel("count_nonzero_out", out_kernel(count_nonzero, "exact"))
register_kernel("count_nonzero_dims_out", out_kernel(count_nonzero, "exact"))
for _name, _fn in (("any", any), ("all", all)):
    register_kernel(_name, _fn)
    register_kernel(f"{_name}_dim", _fn)
    register_kernel(f"{_name}_dims", _fn)
    register_kernel(f"{_name}_out", _logical_out(_name, _fn))
    register_kernel(f"{_name}_dim_out", _logical_out(_name, _fn))
    register_kernel(f"{_name}_dims_out", _logical_out(_name, _fn))
