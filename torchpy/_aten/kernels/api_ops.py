"""Kernels of api_ops.yaml: comparison helpers (equal, allclose, isclose), broadcasting and grid
helpers (broadcast_tensors, meshgrid, cartesian_prod), argwhere, diff, fmax / fmin, tril / triu,
logspace and range.

The composite ones (CompositeImplicitAutograd) call the aten ops PyTorch's decompositions call,
in the same order and with the same arguments, so a TorchDispatchMode sees what it sees there.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, _wrap_dim, from_array, meta_tensor
from ..fastcall import aten, call, call_kw
from ..meta import factory as factory_rules
from ..registry import register
from .elementwise import COMPLEX, elementwise
from .pointwise import _no_complex_extremum
from .factory import register_backend_select, write_factory_result


def _floating_or_complex(t: Tensor) -> bool:
    return t._dtype.is_floating_point or t._dtype.is_complex


# --- equal, allclose, isclose -------------------------------------------------------------------

@register("equal")
def equal(self: Tensor, other: Tensor) -> bool:
    """Same sizes and the same values (NaN is not equal to itself); dtypes may differ."""
    if self._shape != other._shape:
        return False
    return bool(np.array_equal(self._data, other._data))


@register("isclose")
def isclose(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    if self._dtype is not other._dtype:
        raise RuntimeError(f"{self._dtype._c10_name} did not match {other._dtype._c10_name}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {_num(rtol)}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {_num(atol)}")
    ks = self._keyset | other._keyset
    close = call(aten("eq.Tensor"), ks, self, other)
    if equal_nan and _floating_or_complex(self):
        both_nan = call(aten("bitwise_and.Tensor"), ks, call(aten("isnan"), ks, self),
                        call(aten("isnan"), ks, other))
        call(aten("bitwise_or_.Tensor"), ks, close, both_nan)
    if not _floating_or_complex(self):  # integer / bool: the error in the default float dtype
        float_kw = {"dtype": _dt.get_default_dtype()}
        if self._dtype is _dt.bool:
            self = call_kw(aten("_to_copy"), self._keyset, (self,), float_kw)
        other = call_kw(aten("_to_copy"), other._keyset, (other,), float_kw)
    allowed = call(aten("add.Scalar"), ks, call(aten("abs"), ks, call(aten("mul.Scalar"), ks, other, rtol)), atol)
    actual = call(aten("abs"), ks, call(aten("sub.Tensor"), ks, self, other))
    finite = call(aten("isfinite"), ks, actual)
    call(aten("bitwise_and_.Tensor"), ks, finite, call(aten("le.Tensor"), ks, actual, allowed))
    return call(aten("bitwise_or_.Tensor"), ks, close, finite)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


@register("allclose")
def allclose(self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    ks = self._keyset | other._keyset
    close = isclose(self, other, rtol, atol, equal_nan)
    return bool(call(aten("all"), ks, close).item())


# --- broadcast_tensors, meshgrid, cartesian_prod -------------------------------------------------

def _broadcast_shape(tensors: Sequence[Tensor]) -> list[int]:
    """The common shape, with PyTorch's message for sizes that do not match."""
    ndim = max((len(t._shape) for t in tensors), default=0)
    shape = [1] * ndim
    for t in tensors:
        offset = ndim - len(t._shape)
        for i, size in enumerate(t._shape):
            j = offset + i
            if shape[j] == 1:
                shape[j] = size
            elif size != 1 and size != shape[j]:
                raise RuntimeError(f"The size of tensor a ({shape[j]}) must match the size of tensor b ({size}) "
                                   f"at non-singleton dimension {i - len(t._shape) + ndim}")
    return shape


@register("broadcast_tensors")
def broadcast_tensors(tensors: Sequence[Tensor]) -> list[Tensor]:
    shape = _broadcast_shape(tensors)
    shape_tuple = tuple(shape)
    return [t if t._shape == shape_tuple else call(aten("expand"), t._keyset, t, shape) for t in tensors]


def _meshgrid(tensors: Sequence[Tensor], indexing: str) -> list[Tensor]:
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    first = tensors[0]
    for t in tensors[1:]:
        if t._dtype is not first._dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != first.device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    for t in tensors:
        if len(t._shape) > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    if indexing not in ("xy", "ij"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(tensors)
    if swap:  # 'xy' is 'ij' with the first two inputs swapped, then the first two outputs swapped back
        order[0], order[1] = order[1], order[0]
    shape = [math.prod(t._shape) for t in order]
    grids = []
    for i, t in enumerate(order):
        view_shape = [1] * len(order)
        view_shape[i] = -1
        grids.append(call(aten("expand"), t._keyset, call(aten("view"), t._keyset, t, view_shape), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return grids


@register("meshgrid")
def meshgrid(tensors: Sequence[Tensor]) -> list[Tensor]:
    import warnings
    warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                  UserWarning, stacklevel=2)
    return _meshgrid(tensors, "ij")


@register("meshgrid_indexing")
def meshgrid_indexing(tensors: Sequence[Tensor], *, indexing: str) -> list[Tensor]:
    return _meshgrid(tensors, indexing)


@register("cartesian_prod")
def cartesian_prod(tensors: Sequence[Tensor]) -> Tensor:
    for t in tensors:
        if len(t._shape) != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = _meshgrid(tensors, "ij")
    flat = [call(aten("flatten.using_ints"), g._keyset, g, 0, -1) for g in grids]
    return call(aten("stack"), flat[0]._keyset, flat, 1)


# --- argwhere, diff ------------------------------------------------------------------------------

@register("argwhere")
def argwhere(self: Tensor) -> Tensor:
    return call(aten("nonzero"), self._keyset, self)


def _diff_check(self: Tensor, n: int, dim: int, prepend: Tensor | None, append: Tensor | None) -> None:
    if not self._shape:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    for other in (prepend, append):
        if other is not None and len(other._shape) != len(self._shape):
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for other in (prepend, append):
        if other is None:
            continue
        for i in range(len(self._shape)):
            if i != _wrap_dim(dim, len(self._shape)) and other._shape[i] != self._shape[i]:
                raise RuntimeError("diff expects the shape of tensor to prepend or append to match that of "
                                   "input except along the differencing dimension; input.size(" + str(i) +
                                   ") = " + str(self._shape[i]) + ", but got tensor.size(" + str(i) + ") = "
                                   + str(other._shape[i]))


@register("diff")
def diff(self: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    _diff_check(self, n, dim, prepend, append)
    if n == 0:
        result = call(aten("zeros_like"), self._keyset, self)
        return call(aten("copy_"), result._keyset, result, self)
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, self, append) if t is not None]
        self = call(aten("cat"), self._keyset, parts, dim)
    slice_op = aten("slice.Tensor")
    sub = aten("logical_xor") if self._dtype is _dt.bool else aten("sub.Tensor")
    for _ in range(min(n, self._shape[_wrap_dim(dim, len(self._shape))])):
        length = self._shape[_wrap_dim(dim, len(self._shape))]
        ks = self._keyset
        head = call(slice_op, ks, self, dim, 0, length - 1)  # x[:-1] first, as PyTorch slices
        tail = call(slice_op, ks, self, dim, 1, length)
        self = call(sub, ks, tail, head)
    return self


# --- fmax / fmin ---------------------------------------------------------------------------------

# NaN loses to a number; a tie (0.0 and -0.0 included) keeps self, as PyTorch's CPU kernel does
@elementwise("fmax", cpu_check=_no_complex_extremum("fmax"), cpu_check_dtypes=COMPLEX, warns=False, registers=False)
def fmax(xp, self, other):
    return xp.where((self >= other) | (other != other), self, other)


@elementwise("fmin", cpu_check=_no_complex_extremum("fmin"), cpu_check_dtypes=COMPLEX, warns=False, registers=False)
def fmin(xp, self, other):
    return xp.where((self <= other) | (other != other), self, other)


register("fmax", fmax)
register("fmin", fmin)


# --- tril / triu ---------------------------------------------------------------------------------

def _triangle(name: str, np_fn: Any) -> Any:
    def kernel(self: Tensor, diagonal: int = 0) -> Tensor:
        if len(self._shape) < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        if self._data is None:
            return meta_tensor(self._shape, self._dtype)
        return from_array(np.ascontiguousarray(np_fn(self._data, diagonal)), self._dtype)

    kernel.__name__ = name
    return kernel


tril = _triangle("tril", np.tril)
triu = _triangle("triu", np.triu)
register("tril", tril)
register("triu", triu)


# --- logspace, range -----------------------------------------------------------------------------

def _logspace_values(start: Any, end: Any, steps: int, base: float, d: _dt.dtype) -> np.ndarray:
    """base ** e for e = linspace(start, end) (its two halves, counted from each end), the
    exponents in the result's precision (double for integer results), the power in double."""
    np_dtype = _dt.to_numpy_dtype(d)
    exp_dtype = np_dtype if (d.is_floating_point or d.is_complex) else np.dtype(np.float64)
    if steps <= 1:
        return np.full(steps, base ** (complex(start) if d.is_complex else float(start))).astype(np_dtype)
    first, last = exp_dtype.type(start), exp_dtype.type(end)
    step = (last - first) / exp_dtype.type(steps - 1)
    index = np.arange(steps).astype(exp_dtype)
    halfway = steps // 2
    with np.errstate(over="ignore", invalid="ignore"):
        exponents = np.concatenate([first + step * index[:halfway], last - step * (steps - 1 - index[halfway:])])
        wide = np.complex128 if d.is_complex else np.float64
        return np.power(wide(base), exponents.astype(wide)).astype(np_dtype, copy=False)


def _logspace_dtype(start: Any, end: Any, steps: int, dtype: _dt.dtype | None) -> _dt.dtype:
    return factory_rules.linspace_dtype(start, end, steps, dtype)


@register("logspace")
def logspace(start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: _dt.dtype | None = None,
             layout: Any = None, device: Any = None, pin_memory: bool | None = None) -> Tensor:
    d = _logspace_dtype(start, end, steps, dtype)
    return from_array(_logspace_values(start, end, steps, base, d), d)


@register("logspace_meta")
def logspace_meta(start: Any, end: Any, steps: int, base: float = 10.0, *, dtype: _dt.dtype | None = None,
                  layout: Any = None, device: Any = None, pin_memory: bool | None = None) -> Tensor:
    return meta_tensor((steps,), _logspace_dtype(start, end, steps, dtype))


@register("logspace_out")
def logspace_out(start: Any, end: Any, steps: int, base: float = 10.0, *, out: Tensor) -> Tensor:
    return write_factory_result(out, logspace(start, end, steps, base, dtype=out._dtype))


@register("logspace_out_meta")
def logspace_out_meta(start: Any, end: Any, steps: int, base: float = 10.0, *, out: Tensor) -> Tensor:
    return write_factory_result(out, logspace_meta(start, end, steps, base, dtype=out._dtype))


def _range_plan(start: Any, end: Any, step: Any, d: _dt.dtype) -> tuple[int, Any, Any]:
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(float(start)) and math.isfinite(float(end))):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if d.is_floating_point:
        return int((float(end) - float(start)) / float(step)) + 1, float(start), float(step)
    return int((int(end) - int(start)) // int(step)) + 1, int(start), int(step)


@register("range_step")
def range_step(start: Any, end: Any, step: Any = 1, *, dtype: _dt.dtype | None = None, layout: Any = None,
               device: Any = None, pin_memory: bool | None = None) -> Tensor:
    d = dtype if dtype is not None else _dt.get_default_dtype()
    length, first, step_value = _range_plan(start, end, step, d)
    acc = np.float64 if d.is_floating_point else np.int64
    values = np.arange(length, dtype=acc) * acc(step_value) + acc(first)
    return from_array(values.astype(_dt.to_numpy_dtype(d), copy=False), d)


@register("range_step_meta")
def range_step_meta(start: Any, end: Any, step: Any = 1, *, dtype: _dt.dtype | None = None, layout: Any = None,
                    device: Any = None, pin_memory: bool | None = None) -> Tensor:
    d = dtype if dtype is not None else _dt.get_default_dtype()
    return meta_tensor((_range_plan(start, end, step, d)[0],), d)


@register("range")
def range_(start: Any, end: Any, *, dtype: _dt.dtype | None = None, layout: Any = None,
           device: Any = None, pin_memory: bool | None = None) -> Tensor:
    kwargs = {"dtype": dtype, "layout": layout, "device": device, "pin_memory": pin_memory}
    return call_kw(aten("range.step"), (), (start, end, 1), kwargs)

register_backend_select("logspace", "range.step")
