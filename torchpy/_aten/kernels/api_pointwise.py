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
from ..fastcall import aten, call, call_kw
from ..registry import register
from .elementwise import FLOATING, FLOATING_AND_COMPLEX, INTEGRAL, INTEGRAL_AND_BOOL, elementwise

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


# --- isposinf / isneginf -----------------------------------------------------------------------------

def _inf_check(name: str) -> Any:
    def check(promoted: _dt.dtype, *args: Any, **kwargs: Any) -> None:
        if promoted.is_complex:
            raise RuntimeError(f"{name} does not support complex inputs.")
    return check


@_functional("isposinf", operands=1, kind=Kind.ALWAYS_BOOL, check=_inf_check("isposinf"), warns=False)
def isposinf(xp, self):
    return xp.isposinf(self) if self.dtype.kind == "f" else xp.zeros(self.shape, bool)


@_functional("isneginf", operands=1, kind=Kind.ALWAYS_BOOL, check=_inf_check("isneginf"), warns=False)
def isneginf(xp, self):
    return xp.isneginf(self) if self.dtype.kind == "f" else xp.zeros(self.shape, bool)


# --- float_power (CompositeImplicitAutograd: pow in double / complex double) ---------------------------

def _wide(*complex_flags: bool) -> _dt.dtype:
    return _dt.complex128 if any(complex_flags) else _dt.float64


def _to(t: Any, d: _dt.dtype) -> Any:
    """t.to(d): nothing when t already has dtype d (as Tensor.to)."""
    return t if t._dtype is d else call_kw(aten("_to_copy"), t._keyset, (t,), {"dtype": d})


def _scalar_as(value: Any, d: _dt.dtype) -> Any:
    return complex(value) if d.is_complex else float(value)


@register("float_power_tensor_tensor")
def float_power_tensor_tensor(self: Any, exponent: Any) -> Any:
    d = _wide(self._dtype.is_complex, exponent._dtype.is_complex)
    base, exp = _to(self, d), _to(exponent, d)
    return call(aten("pow.Tensor_Tensor"), base._keyset | exp._keyset, base, exp)


@register("float_power_scalar")
def float_power_scalar(self: Any, exponent: Any) -> Any:
    d = _wide(isinstance(self, complex), exponent._dtype.is_complex)
    exp = _to(exponent, d)
    return call(aten("pow.Scalar"), exp._keyset, _scalar_as(self, d), exp)


@register("float_power_tensor_scalar")
def float_power_tensor_scalar(self: Any, exponent: Any) -> Any:
    d = _wide(self._dtype.is_complex, isinstance(exponent, complex))
    base = _to(self, d)
    return call(aten("pow.Tensor_Scalar"), base._keyset, base, _scalar_as(exponent, d))


def _float_power_inplace_check(self: Any, d: _dt.dtype) -> None:
    if self._dtype is not d:
        raise RuntimeError(f"the base given to float_power_ has dtype {self._dtype._c10_name} but the operation's "
                           f"result requires dtype {d._c10_name}")


@register("float_power__scalar")
def float_power__scalar(self: Any, exponent: Any) -> Any:
    d = _wide(self._dtype.is_complex, isinstance(exponent, complex))
    _float_power_inplace_check(self, d)
    return call(aten("pow_.Scalar"), self._keyset, self, _scalar_as(exponent, d))


@register("float_power__tensor")
def float_power__tensor(self: Any, exponent: Any) -> Any:
    d = _wide(self._dtype.is_complex, exponent._dtype.is_complex)
    _float_power_inplace_check(self, d)
    exp = _to(exponent, d)
    return call(aten("pow_.Tensor"), self._keyset | exp._keyset, self, exp)


# --- nanmean (CompositeImplicitAutograd) ------------------------------------------------------------

@register("nanmean")
def nanmean(self: Any, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Any:
    if not (self._dtype.is_floating_point or self._dtype.is_complex):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{self._dtype._c10_name}")
    ks = self._keyset
    detached = call(aten("detach"), ks, self)
    not_nan = call(aten("logical_not_"), ks, call(aten("ne.Tensor"), ks, detached, detached))
    count_args = (not_nan, dim, True) if keepdim else (not_nan, dim)
    count = call(aten("sum.dim_IntList"), ks, *count_args)
    # nansum's arguments as torch passes them: the ones left at their defaults are not passed
    args = (self,) if dim is None and not keepdim else ((self, dim, True) if keepdim else (self, dim))
    total = call_kw(aten("nansum"), ks, args, {"dtype": dtype} if dtype is not None else {})
    return call(aten("div.Tensor"), ks, total, count)


# --- gcd / lcm, sinc -------------------------------------------------------------------------------

@_functional("gcd", dtypes=INTEGRAL, warns=False)
def gcd(xp, self, other):
    return xp.gcd(self, other)


@_functional("lcm", dtypes=INTEGRAL, warns=False)
def lcm(xp, self, other):
    return xp.lcm(self, other)


@_functional("sinc", operands=1, kind=Kind.INT_TO_FLOAT, warns=False)
def sinc(xp, self):
    return xp.sinc(self)
