"""Sum-like reductions: sum, nansum, mean, prod, count_nonzero, any, all.

The array code takes the array module `xp` and arrays (`*_values`); the CPU kernels are thin
adapters that take the axes, output shape and dtype from the meta rules (meta/reduction.py),
hand `self`'s array to the array code and wrap the result. The Meta kernels are the meta rules
themselves, registered here beside the CPU ones (`<name>_meta`), with their out= forms.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor, from_array, meta_tensor
from ..meta import reduction as rules
from .reduction_util import accumulate_dtype, cast, check_out_dtype, reduction_size, register_kernel, wrap
from .variants import write_out

_int64 = _dt.int64
Array = Any


# --- array code ------------------------------------------------------------------------------------


def sum_values(xp: Any, data: Array, axes: rules.Axes, keepdim: bool, compute: np.dtype) -> Array:
    # ufunc.reduce directly: np.sum's wrapper costs more than the sum
    return xp.add.reduce(cast(data, compute), axes, None, None, keepdim)


def nansum_values(xp: Any, data: Array, axes: rules.Axes, keepdim: bool, compute: np.dtype) -> Array:
    return xp.nansum(cast(data, compute), axis=axes, keepdims=keepdim)


def prod_values(xp: Any, data: Array, axes: rules.Axes, keepdim: bool, compute: np.dtype) -> Array:
    return xp.multiply.reduce(cast(data, compute), axes, None, None, keepdim)


def mean_values(xp: Any, data: Array, axes: rules.Axes, keepdim: bool, result: np.dtype, compute: np.dtype,
                count: int) -> Array:
    # PyTorch divides the (rounded) sum by the count in the result dtype (0 / 0: nan).
    total = xp.asarray(sum_values(xp, data, axes, keepdim, compute)).astype(result, copy=False)
    return total / count


def count_nonzero_values(xp: Any, data: Array, axes: rules.Axes) -> Array:
    return xp.count_nonzero(data, axis=axes)


def logical_values(xp: Any, ufunc: Any, data: Array, axes: rules.Axes, keepdim: bool) -> Array:
    truth = data if data.dtype == xp.bool_ else data != 0
    return ufunc.reduce(truth, axis=axes, keepdims=keepdim)


# --- CPU kernels: the adapters ---------------------------------------------------------------------

# Summed in their own dtype with no widening or accumulation type: sum() is one NumPy reduce.
_SUMMED_AS_IS = frozenset({_dt.float32, _dt.float64})
_add_reduce = np.add.reduce


def _summed_as_is(data: Array, shape: tuple[int, ...], dim: Any, keepdim: bool) -> tuple[Any, rules.Axes] | None:
    """(NumPy sum, axes) of a float32 / float64 array over no dim or one (x.sum(), x.sum(0),
    the un-broadcasting in autograd): one reduce, no dtype work. None for any other case."""
    if dim is None:
        return None if keepdim else (_add_reduce(data, None), None)
    if type(dim) is list and len(dim) == 1:
        axes = rules.reduction(shape, dim, keepdim)[0]
        return _add_reduce(data, axes, None, None, keepdim), axes
    return None


def _widening(values: Callable) -> Callable:
    """A CPU kernel for sum / nansum / prod: widened dtype, computed in its accumulation type."""

    def kernel(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
        result = rules.widened_dtype(self._dtype, dtype)
        axes = rules.reduction(self._shape, dim, keepdim)[0]
        return wrap(values(np, self._data, axes, keepdim, accumulate_dtype(result)), result)

    kernel.__name__ = kernel.__qualname__ = values.__name__.replace("_values", "")
    return kernel


_sum, prod = _widening(sum_values), _widening(prod_values)
_nansum = _widening(nansum_values)


def sum(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    if dtype is None and self._dtype in _SUMMED_AS_IS:
        summed = _summed_as_is(self._data, self._shape, dim, keepdim)
        if summed is not None:
            total = summed[0]
            return from_array(total if type(total) is np.ndarray else np.asarray(total), self._dtype)
    return _sum(self, dim, keepdim, dtype=dtype)


def nansum(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    if self._dtype.is_complex:  # a CPU kernel check, not a meta one
        raise RuntimeError("nansum on CPU does not support complex inputs")
    return _nansum(self, dim, keepdim, dtype=dtype)


def mean(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None) -> Tensor:
    data = self._data
    if dtype is None and self._dtype in _SUMMED_AS_IS:
        summed = _summed_as_is(data, self._shape, dim, keepdim)
        if summed is not None:
            total, axes = summed  # divided in the tensor's dtype, as PyTorch's mean does
            return from_array(np.asarray(total / reduction_size(self._shape, axes)), self._dtype)
    result = rules.mean_dtype(self._dtype, dtype)
    axes = rules.reduction(self._shape, dim, keepdim)[0]
    count = reduction_size(self._shape, axes)
    return wrap(mean_values(np, data, axes, keepdim, result._numpy, accumulate_dtype(result), count), result)


def count_nonzero(self: Tensor, dim: Any = None) -> Tensor:
    return wrap(count_nonzero_values(np, self._data, rules.reduction(self._shape, dim, False)[0]), _int64)


def _logical(ufunc: np.ufunc) -> Callable:
    def kernel(self: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
        axes = rules.reduction(self._shape, dim, keepdim, all_if_empty=False)[0]
        return wrap(logical_values(np, ufunc, self._data, axes, keepdim), rules.logical_dtype(self._dtype))

    return kernel


any, all = _logical(np.logical_or), _logical(np.logical_and)


# --- out= kernels (one builder serves CPU and Meta) ------------------------------------------------


def _nansum_out(functional: Callable) -> Callable:
    def kernel(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None,
               out: Tensor) -> Tensor:
        if dtype is not None and dtype is not out._dtype:
            raise RuntimeError(
                f"nansum: provided dtype must match dtype of result. Got {out._dtype._c10_name} and "
                f"{dtype._c10_name}."
            )
        return write_out(out, functional(self, dim, keepdim, dtype=out._dtype))

    return kernel


def _mean_out(functional: Callable) -> Callable:
    def kernel(self: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: dtype | None = None,
               out: Tensor) -> Tensor:
        if dtype is None:
            rules.mean_dtype(self._dtype, None)  # an integer input is an error even with a float out
            if rules.is_floating_or_complex(out._dtype):
                dtype = out._dtype  # computed in out's dtype, as PyTorch's mean.out does
        else:
            check_out_dtype(out, dtype)
        return write_out(out, functional(self, dim, keepdim, dtype=dtype))

    return kernel


def _logical_out(name: str, functional: Callable, retype: Callable[[Tensor, dtype], Tensor]) -> Callable:
    def kernel(self: Tensor, *args: Any, out: Tensor, **kwargs: Any) -> Tensor:
        if out._dtype is not _dt.bool and out._dtype is not _dt.uint8:
            raise RuntimeError(f"{name} only supports bool tensor for result, got: {out._dtype._c10_name}")
        result = functional(self, *args, **kwargs)
        if result._dtype is not out._dtype:  # uint8 <-> bool: the truth values carry over
            result = retype(result, out._dtype)
        return write_out(out, result)

    kernel.__name__ = f"{name}_out"
    kernel.__wrapped__ = functional  # type: ignore[attr-defined]
    return kernel


# --- registration: CPU kernels under the op's name, Meta kernels as <name>_meta -------------------


def _register(name: str, cpu: Callable, meta: Callable, out: Callable | None = None) -> None:
    register_kernel(name, cpu)
    register_kernel(f"{name}_meta", meta)
    if out is not None:
        register_kernel(f"{name}_out", out(cpu))
        register_kernel(f"{name}_out_meta", out(meta))


# out= kernels not registered here are made from these by the YAML's policy (out_policy.py)
_register("sum", sum, rules.sum)
_register("sum_dim", sum, rules.sum)
_register("nansum", nansum, rules.nansum, _nansum_out)
_register("prod", prod, rules.prod)
_register("prod_dim", prod, rules.prod)
_register("mean", mean, rules.mean)
_register("mean_dim", mean, rules.mean, _mean_out)
_register("count_nonzero", count_nonzero, rules.count_nonzero)
_register("count_nonzero_dims", count_nonzero, rules.count_nonzero)
def _retype_cpu(result: Tensor, d: dtype) -> Tensor:
    return wrap(result._data, d)


def _retype_meta(result: Tensor, d: dtype) -> Tensor:
    return meta_tensor(result._shape, d)


for _name, _cpu, _meta in (("any", any, rules.any), ("all", all, rules.all)):
    for _form in (_name, f"{_name}_dim", f"{_name}_dims"):
        register_kernel(_form, _cpu)
        register_kernel(f"{_form}_meta", _meta)
        register_kernel(f"{_form}_out", _logical_out(_name, _cpu, _retype_cpu))
        register_kernel(f"{_form}_out_meta", _logical_out(_name, _meta, _retype_meta))
