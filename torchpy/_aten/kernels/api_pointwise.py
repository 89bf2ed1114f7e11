"""Pointwise kernels of api_ops.yaml: inverse hyperbolic functions, deg2rad / rad2deg,
logaddexp / logaddexp2, copysign, signbit, heaviside, xlogy.

Array code over NumPy, made into dispatcher kernels by the elementwise adapter (promotion,
broadcasting, torch's dtype checks). Only the functional kernels are registered: the in-place
and out= forms are derived from them (registry.lookup).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.promotion import ELEMENTWISE_TYPE_PROMOTION_KIND as Kind
from ..fastcall import aten
from ..registry import register
from .elementwise import FLOATING, FLOATING_AND_COMPLEX, INTEGRAL_AND_BOOL, elementwise

_REAL_AND_BOOL = FLOATING | INTEGRAL_AND_BOOL


def _functional(name: str, **options: Any) -> Any:
    """elementwise(name, ...) registering the functional kernel alone."""
    def wrap(impl: Any) -> Any:
        kernel = elementwise(name, registers=False, **options)(impl)
        register(name, kernel)
        return kernel
    return wrap


@_functional("acosh", operands=1, kind=Kind.INT_TO_FLOAT, ufunc=np.arccosh)
def acosh(xp, self):
    return xp.arccosh(self)


@_functional("asinh", operands=1, kind=Kind.INT_TO_FLOAT, ufunc=np.arcsinh)
def asinh(xp, self):
    return xp.arcsinh(self)


@_functional("atanh", operands=1, kind=Kind.INT_TO_FLOAT, ufunc=np.arctanh)
def atanh(xp, self):
    return xp.arctanh(self)


@_functional("deg2rad", operands=1, kind=Kind.INT_TO_FLOAT, warns=False)
def deg2rad(xp, self):
    return self * self.dtype.type(math.pi / 180)


@_functional("rad2deg", operands=1, kind=Kind.INT_TO_FLOAT, warns=False)
def rad2deg(xp, self):
    return self * self.dtype.type(180 / math.pi)


@_functional("logaddexp", kind=Kind.INT_TO_FLOAT, dtypes=FLOATING_AND_COMPLEX, warns=False)
def logaddexp(xp, self, other):
    return xp.logaddexp(self, other)


@_functional("logaddexp2", kind=Kind.INT_TO_FLOAT, dtypes=FLOATING, warns=False)
def logaddexp2(xp, self, other):
    return xp.logaddexp2(self, other)


@_functional("copysign", kind=Kind.INT_TO_FLOAT, dtypes=_REAL_AND_BOOL, warns=False)
def copysign(xp, self, other):
    return xp.copysign(self, other)


register("copysign_scalar", copysign)


def _signbit_check(promoted: _dt.dtype, *args: Any, **kwargs: Any) -> None:
    if promoted.is_complex:
        raise NotImplementedError("signbit is not implemented for complex tensors.")


@_functional("signbit", operands=1, kind=Kind.ALWAYS_BOOL, check=_signbit_check, warns=False)
def signbit(xp, self):
    return xp.signbit(self)


@_functional("xlogy", kind=Kind.INT_TO_FLOAT, warns=False)
def xlogy(xp, self, other):
    with np.errstate(divide="ignore", invalid="ignore"):
        result = self * xp.log(other)
    # 0 * log(y) is 0 for every y but NaN; NaN in y gives NaN
    return xp.where((self == 0) & ~xp.isnan(other), xp.zeros_like(result), result)


register("xlogy_scalar_self", xlogy)
register("xlogy_scalar_other", xlogy)


def _heaviside_check(promoted: _dt.dtype, self: Any, values: Any, **kwargs: Any) -> None:
    if self.dtype.is_complex or values.dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if self.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")


@_functional("heaviside", check=_heaviside_check, warns=False)
def heaviside(xp, self, values):
    return xp.where(self == 0, values, (self > 0).astype(self.dtype))


def _alias(name: str, target: str) -> None:
    """Kernel api_alias_<name>: aten::<target>, as torch's alias ops call their target."""
    def kernel(*args: Any, **kwargs: Any) -> Any:
        return aten(target)(*args, **kwargs)

    kernel.__name__ = kernel.__qualname__ = "api_alias_" + name
    register(kernel.__name__, kernel)


for _alias_name, _target in (("arccosh", "acosh"), ("arcsinh", "asinh"), ("arctanh", "atanh")):
    _alias(_alias_name, _target)
    _alias(_alias_name + "_", _target + "_")
