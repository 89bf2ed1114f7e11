"""_softmax / _log_softmax kernels and the CompositeImplicitAutograd softmax / log_softmax.

softmax.int(self, dim, dtype) decomposes as PyTorch's does on CPU: a `_to_copy` to
dtype= when it differs from the input's, then `_softmax(x, dim, False)`; a dispatch
mode sees exactly those calls. 16-bit floats are computed in float32. The array code takes
the array module `xp`; the Meta kernels are meta/softmax.py's, registered here as `<name>_meta`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._dispatch.ops import ops
from ..._tensor.dtype import dtype
from ..._tensor.enums import strided
from ..._tensor.tensor import Tensor, _wrap_dim
from ..meta import softmax as rules
from ..registry import register
from .reduction_util import accumulate_dtype, check_out_dtype, register_kernel, wrap

Array = Any  # an array of the module `xp`


def softmax_array(xp: Any, data: Array, axis: int) -> Array:
    exp = xp.exp(data - xp.maximum.reduce(data, axis, None, None, True))
    exp /= xp.add.reduce(exp, axis, None, None, True)
    return exp


def log_softmax_array(xp: Any, data: Array, axis: int) -> Array:
    shifted = data - xp.maximum.reduce(data, axis, None, None, True)
    shifted -= xp.log(xp.add.reduce(xp.exp(shifted), axis, None, None, True))
    return shifted


def _apply(name: str, compute: Any, self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    d = self._dtype
    if half_to_float:
        raise RuntimeError("softmax with half to float conversion is not supported on CPU")
    ndim = len(self._shape)
    axis = _wrap_dim(dim, ndim)
    data = self._data
    if data.size == 0:  # PyTorch returns before its dtype dispatch
        return wrap(np.empty(data.shape, data.dtype), d)
    if not d.is_floating_point:
        kernel = f"{name}_lastdim_kernel_impl" if axis == max(ndim, 1) - 1 else f"{name}_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{d._c10_name}\'')
    precision = accumulate_dtype(d)
    values = data.astype(precision) if data.dtype != precision else data
    if ndim == 0:
        return wrap(compute(np, values.reshape(1), 0).reshape(()), d)
    return wrap(np.asarray(compute(np, values, axis), order="C"), d)  # torch's result: contiguous


def _softmax(self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    return _apply("softmax", softmax_array, self, dim, half_to_float)


def _log_softmax(self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    return _apply("log_softmax", log_softmax_array, self, dim, half_to_float)


# --- softmax.int / log_softmax.int ---------------------------------------------------------------


def _converted(self: Tensor, dtype: dtype | None) -> Tensor:
    """input.toType(dtype): the input itself when it already has that dtype."""
    if dtype is None or dtype is self._dtype:
        return self
    return ops.aten._to_copy.default(self, dtype=dtype, layout=strided, device=self._device)


def softmax(self: Tensor, dim: int, dtype: dtype | None = None) -> Tensor:
    return ops.aten._softmax.default(_converted(self, dtype), dim, False)


def log_softmax(self: Tensor, dim: int, dtype: dtype | None = None) -> Tensor:
    return ops.aten._log_softmax.default(_converted(self, dtype), dim, False)


def _public_out(private: str) -> Any:
    """softmax.int_out / log_softmax.int_out: the private op's out= form on the converted input."""

    def kernel(self: Tensor, dim: int, dtype: dtype | None = None, *, out: Tensor) -> Tensor:
        check_out_dtype(out, self._dtype if dtype is None else dtype)
        return getattr(ops.aten, private).out(_converted(self, dtype), dim, False, out=out)

    kernel.__name__ = f"{private[1:]}_out"
    return kernel


register_kernel("_softmax", _softmax)
register_kernel("_log_softmax", _log_softmax)
register_kernel("_softmax_meta", rules._softmax)
register_kernel("_log_softmax_meta", rules._log_softmax)
# the out= forms (CPU and Meta) of the private ops: made from these by the YAML's policy
register("softmax", softmax)
register("log_softmax", log_softmax)
register("softmax_out", _public_out("_softmax"))
register("log_softmax_out", _public_out("_log_softmax"))
