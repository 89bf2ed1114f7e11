"""Pointwise operators: arithmetic, division, powers, unary math, rounding, comparisons,
logical and bitwise ops (see elementwise.py for how array code becomes a kernel;
pointwise_select.py has clamp, lerp, where, masked_fill, nan_to_num and isfinite).

Kernel names follow the YAML (native_functions/pointwise.yaml). Each functional kernel
comes with its in-place (`name_`) and out= (`name_out`) variants. Where PyTorch
implements an overload as CompositeExplicitAutograd by wrapping a Scalar into a tensor
and calling the Tensor overload (add.Scalar -> add.Tensor), so do we
(`_forward_scalar`). The dtype sets and labels of the CPU dtype checks are PyTorch's
('"bitwise_and_cpu" not implemented for 'Float'').
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..._dispatch.dispatcher import dispatcher
from ..._dispatch.ops import op_for
from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, wrapped_number
from ..registry import register
from .bounds import maximum_with
from .elementwise import (
    ALL, ALL_BUT_BOOL, COMPLEX, FLOATING, INTEGRAL, INTEGRAL_AND_BOOL, REAL, Kind, checked_scalar, elementwise,
    make_kernel, on_meta,
)
from .variants import check_out_dtype, write_inplace
from ..out_policy import make_out


_EXACT = (_dt.float32, _dt.float64, _dt.complex64, _dt.complex128)
_REAL_AND_BOOL = FLOATING | INTEGRAL_AND_BOOL


def aten(qualified: str) -> Any:
    """The OpOverload aten::<qualified> ("add.Tensor"), or None if no family defines it."""
    op = _ops.get(qualified)
    if op is None:
        entry = dispatcher.find("aten::" + qualified)
        if entry is None or entry.schema is None:
            return None
        op = _ops[qualified] = op_for("aten::" + qualified)
    return op


_ops: dict[str, Any] = {}


def _forward_scalar(name: str, target: str, *, swap: bool = False, inplace: bool = True,
                    generated: bool = True, inplace_target: str = "") -> None:
    """CompositeExplicitAutograd kernels `name`, `name_`, `name_out` that wrap the Scalar
    argument and call aten::`target` (and its in-place / out= forms), as PyTorch's do.
    `generated`: PyTorch generates the out= kernel from the functional one (the YAML's policy
    makes it; else it calls the target's out= overload)."""
    base, _, overload = target.partition(".")

    def wrap(self: Any, other: Any) -> tuple[Any, Any]:
        # (Scalar self, Tensor other) overloads have the Scalar first
        return (wrapped_number(self), other) if swap else (self, wrapped_number(other))

    def functional(self: Any, other: Any, *args: Any, **kwargs: Any) -> Tensor:
        return aten(target)(*wrap(self, other), **_alpha_keyword(args, kwargs))

    def in_place(self: Tensor, other: Any, *args: Any, **kwargs: Any) -> Tensor:
        op = aten(inplace_target or f"{base}_.{overload}")
        return op(*wrap(self, other), **_alpha_keyword(args, kwargs))

    def out_kernel(self: Any, other: Any, *args: Any, out: Tensor, **kwargs: Any) -> Tensor:
        return aten(f"{base}.{overload}_out")(*wrap(self, other), out=out, **_alpha_keyword(args, kwargs))

    for kernel, suffix in ((functional, ""), (in_place, "_"), (out_kernel, "_out")):
        kernel.__name__ = kernel.__qualname__ = name + suffix
    register(name, functional)
    if inplace:
        register(name + "_", in_place)
    if not generated:
        register(name + "_out", out_kernel)


def _alpha_keyword(args: tuple, kwargs: dict) -> dict:
    """The Scalar overloads' positional alpha, as the Tensor overloads' keyword-only one."""
    return dict(kwargs, alpha=args[0]) if args else kwargs


def _int_zero_check(other: Any) -> None:
    if np.any(other == 0):
        raise RuntimeError("ZeroDivisionError")


def _is_int(x: Any) -> bool:
    return isinstance(x, np.ndarray) and x.dtype.kind in "iub"


def _like(array: Any, value: Any) -> Any:
    """A Python number in `array`'s dtype (C-style wrap for integers)."""
    if isinstance(array, np.ndarray) and array.dtype.kind in "iub":
        return np.array(value).astype(array.dtype)
    return value


# --- add / sub / rsub / mul / div ----------------------------------------------------------------

def _check_alpha(promoted: _dt.dtype, alpha: Any) -> None:
    if isinstance(alpha, bool) and promoted is not _dt.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if not (promoted.is_floating_point or promoted.is_complex) and not isinstance(alpha, int):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if not promoted.is_complex and isinstance(alpha, complex):
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")


def _check_add(promoted: _dt.dtype, self: Any, other: Any, alpha: Any = 1) -> None:
    if type(alpha) is not int or alpha != 1:
        _check_alpha(promoted, alpha)
        checked_scalar(alpha, promoted)


def _check_sub(promoted: _dt.dtype, self: Any, other: Any, alpha: Any = 1) -> None:
    self_bool = getattr(self, "_dtype", None) is _dt.bool
    other_bool = getattr(other, "_dtype", None) is _dt.bool
    if self_bool and other_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead.")
    if self_bool or other_bool:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    _check_add(promoted, self, other, alpha)


def _scaled(xp: Any, other: Any, alpha: Any) -> Any:
    """alpha * other in the computation dtype (a number operand stays a Python number)."""
    if type(alpha) is int and alpha == 1:
        return other
    if isinstance(other, np.ndarray):
        return xp.multiply(other, _like(other, alpha))
    return other * alpha


@elementwise("add", check=_check_add, check_kwargs_only=True, opmath_scalar=True, ufunc=np.add)
def add(xp, self, other, alpha=1):
    if type(alpha) is int and alpha == 1:
        return xp.add(self, other)
    return xp.add(self, _scaled(xp, other, alpha))


@elementwise("sub", check=_check_sub, opmath_scalar=True, ufunc=np.subtract)
def sub(xp, self, other, alpha=1):
    return xp.subtract(self, _scaled(xp, other, alpha))


def rsub(self: Any, other: Any, alpha: Any = 1) -> Tensor:
    """other - alpha * self: sub with the operands swapped (its checks and messages too)."""
    if type(alpha) is int and alpha == 1:
        return sub(other, self)
    return sub(other, self, alpha=alpha)


register("rsub", rsub)


@elementwise("mul", opmath_scalar=True, ufunc=np.multiply)
def mul(xp, self, other):
    return xp.multiply(self, other)


@elementwise("div", kind=Kind.INT_TO_FLOAT, opmath_scalar=True, ufunc=np.true_divide)
def div(xp, self, other):
    return xp.true_divide(self, other)


def _trunc_divide(xp: Any, self: Any, other: Any) -> Any:
    if _is_int(self) or _is_int(other):
        _int_zero_check(other)
        quotient = xp.floor_divide(self, other)
        # floor and trunc differ where the division is inexact and the signs differ
        inexact = xp.remainder(self, other) != 0
        return quotient + (inexact & ((self < 0) != (other < 0)))
    return xp.trunc(xp.true_divide(self, other))


def _floor_divide(xp: Any, self: Any, other: Any) -> Any:
    if _is_int(self) or _is_int(other):
        _int_zero_check(other)
    return xp.floor_divide(self, other)  # NumPy's float algorithm is PyTorch's (fmod based)


def _check_floor_divide(promoted: _dt.dtype, *args: Any) -> None:
    # PyTorch's meta kernel (a Python decomposition) says so; its CPU kernel has the dtype error
    if (promoted is _dt.bool or promoted.is_complex) and on_meta(args):
        raise RuntimeError(f"{promoted} not supported for floor_divide")


_div_trunc = make_kernel(_trunc_divide, dtypes=REAL, label="div_trunc_cpu", opmath_scalar=True)
_div_floor = make_kernel(_floor_divide, dtypes=REAL, label="div_floor_cpu", check=_check_floor_divide,
                         opmath_scalar=True)
_DIV_MODES = {None: div, "trunc": _div_trunc, "floor": _div_floor}


def _div_mode_kernel(rounding_mode: Any) -> Callable:
    kernel = _DIV_MODES.get(rounding_mode)
    if kernel is None:
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'")
    return kernel


def div_mode(self: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    return _div_mode_kernel(rounding_mode)(self, other)


def _div_mode_dtype(self: Any, other: Any, *, rounding_mode: str | None = None) -> _dt.dtype:
    return _div_mode_kernel(rounding_mode).result_dtype(self, other)


div_mode.result_dtype = _div_mode_dtype  # type: ignore[attr-defined]  (for its out= / in-place kernels)
register("div_mode", div_mode)
register("floor_divide", _div_floor)

_forward_scalar("add_Scalar", "add.Tensor")
_forward_scalar("sub_Scalar", "sub.Tensor")
_forward_scalar("rsub_Scalar", "rsub.Tensor", inplace=False)
_forward_scalar("mul_Scalar", "mul.Tensor")
_forward_scalar("div_Scalar", "div.Tensor")
_forward_scalar("div_Scalar_mode", "div.Tensor_mode")
_forward_scalar("floor_divide_Scalar", "floor_divide", inplace_target="floor_divide_.Tensor")


# --- remainder / fmod ------------------------------------------------------------------------------

@elementwise("remainder", dtypes=REAL)
def remainder(xp, self, other):
    if _is_int(self) or _is_int(other):
        _int_zero_check(other)
    return xp.remainder(self, other)


@elementwise("fmod", dtypes=REAL)
def fmod(xp, self, other):
    if _is_int(self) or _is_int(other):
        _int_zero_check(other)
    return xp.fmod(self, other)


register("remainder_Scalar_Tensor", remainder)
_forward_scalar("remainder_Scalar", "remainder.Tensor", generated=False)
_forward_scalar("fmod_Scalar", "fmod.Tensor", generated=False)


# --- pow ---------------------------------------------------------------------------------------------

def _integer_power(xp: Any, base: Any, exponent: Any) -> Any:
    """PyTorch's integer pow: a negative exponent gives 0, except for bases 1 and -1."""
    if base.dtype == np.bool_:
        return _integer_power(xp, base.astype(np.int8), exponent.astype(np.int8)).astype(np.bool_)
    negative = exponent < 0
    if not xp.any(negative):
        return xp.power(base, exponent)
    result = xp.power(base, xp.where(negative, 0, exponent))
    odd = (exponent % 2) != 0
    ones = xp.where(base == -1, xp.where(odd, -1, 1), xp.where(base == 1, 1, 0))
    return xp.where(negative, ones, result).astype(result.dtype)


def _power(xp: Any, base: Any, exponent: Any) -> Any:
    if _is_int(base) or _is_int(exponent):
        return _integer_power(xp, xp.asarray(base), xp.asarray(exponent))
    return xp.power(base, exponent)


# PyTorch's CPU kernel rejects bool ** bool; its meta kernel (a Python decomposition) gives int64:
# two kernel families, pow* for CPU and meta_pow* for Meta.
for _prefix, _kernel in (("", make_kernel(_power, dtypes=ALL_BUT_BOOL, label="pow")),
                         ("meta_", make_kernel(_power, kind=Kind.BOOL_TO_LONG))):
    register(_prefix + "pow", _kernel)
    register(_prefix + "pow_Scalar", _kernel)


def _check_pow_tensor_scalar(promoted: _dt.dtype, self: Tensor, exponent: Any) -> None:
    integral_self = not (self._dtype.is_floating_point or self._dtype.is_complex)
    if integral_self and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def _cpu_check_pow_tensor_scalar(promoted: _dt.dtype, self: Tensor, exponent: Any) -> None:
    if promoted not in _EXACT:  # float and double kernels take the exponent as a double
        checked_scalar(exponent, promoted)


@elementwise("pow_Tensor_Scalar", check=_check_pow_tensor_scalar, cpu_check=_cpu_check_pow_tensor_scalar,
             cpu_check_dtypes=ALL - frozenset(_EXACT))
def pow_tensor_scalar(xp, self, exponent):
    return _power(xp, self, exponent)


# --- unary math ----------------------------------------------------------------------------------------
# Integer and bool inputs compute in the default float dtype; float16 / bfloat16 in float32.

def _sigmoid(xp: Any, x: Any) -> Any:
    out = xp.negative(x, out=xp.empty_like(x))  # 1 / (1 + exp(-x)) in one buffer
    xp.exp(out, out=out)
    xp.add(out, 1, out=out)
    return xp.reciprocal(out, out=out)


def _rsqrt(xp: Any, x: Any) -> Any:
    return 1 / xp.sqrt(x)


def _reciprocal(xp: Any, x: Any) -> Any:
    return 1 / x


def _by_element(fn: Callable) -> Callable:
    """A float64 math-module function over an array (NumPy has no erf)."""

    def apply(xp: Any, x: Any) -> Any:
        values = x.astype(np.float64)  # keeps x's layout (order K), as torch's result does
        result = np.empty_like(values)
        result.ravel(order="K")[...] = np.fromiter(map(fn, values.ravel(order="K").tolist()), np.float64,
                                                   count=values.size)
        return result.astype(x.dtype)

    return apply


_UNARY_FLOAT: dict[str, Callable] = {
    "exp": lambda xp, x: xp.exp(x), "exp2": lambda xp, x: xp.exp2(x),
    "expm1": lambda xp, x: xp.expm1(x), "log": lambda xp, x: xp.log(x),
    "log2": lambda xp, x: xp.log2(x), "log10": lambda xp, x: xp.log10(x),
    "log1p": lambda xp, x: xp.log1p(x), "sqrt": lambda xp, x: xp.sqrt(x), "rsqrt": _rsqrt,
    "reciprocal": _reciprocal, "sin": lambda xp, x: xp.sin(x), "cos": lambda xp, x: xp.cos(x),
    "tan": lambda xp, x: xp.tan(x), "asin": lambda xp, x: xp.arcsin(x),
    "acos": lambda xp, x: xp.arccos(x), "atan": lambda xp, x: xp.arctan(x),
    "sinh": lambda xp, x: xp.sinh(x), "cosh": lambda xp, x: xp.cosh(x),
    "tanh": lambda xp, x: xp.tanh(x), "sigmoid": _sigmoid,
}
_UFUNCS = {"exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10,
           "log1p": np.log1p, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin,
           "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh}
for _name, _fn in _UNARY_FLOAT.items():
    _fn.__name__ = _fn.__qualname__ = _name
    elementwise(_name, operands=1, kind=Kind.INT_TO_FLOAT, ufunc=_UFUNCS.get(_name))(_fn)

for _name, _fn in (("erf", math.erf), ("erfc", math.erfc)):
    _impl = _by_element(_fn)
    _impl.__name__ = _impl.__qualname__ = _name
    elementwise(_name, operands=1, kind=Kind.INT_TO_FLOAT, dtypes=_REAL_AND_BOOL, label=f"{_name}_vml_cpu")(_impl)


def abs_kernel(xp: Any, self: Any) -> Any:
    return xp.abs(self)


_abs = make_kernel(abs_kernel, operands=1, kind=Kind.COMPLEX_TO_FLOAT, dtypes=ALL_BUT_BOOL, label="abs_cpu",
                   warns=False)


def abs_inplace(self: Tensor) -> Tensor:
    if self._dtype.is_complex:
        if self._data is None:
            raise RuntimeError(
                f"Expected out tensor to have dtype {self._dtype.to_real()} but got {self._dtype} instead")
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return write_inplace(self, _abs(self))


def abs_out(self: Tensor, *, out: Tensor) -> Tensor:
    d = self._dtype
    if d.is_complex and out._dtype.is_complex:
        check_out_dtype(out, d, "same")
    # complex abs may write into any real dtype its result casts to; others need their own dtype
    return (_abs_out_castable if d.is_complex else _abs_out_same)(self, out=out)


_abs_out_castable = make_out(_abs, "castable")
_abs_out_same = make_out(_abs, "same")


register("abs", _abs)
register("abs_", abs_inplace)
register("abs_out", abs_out)


def _check_neg(promoted: _dt.dtype, self: Tensor) -> None:
    if promoted is _dt.bool:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
            "invert a mask, use the `~` or `logical_not()` operator instead.")


@elementwise("neg", operands=1, check=_check_neg, warns=False, ufunc=np.negative)
def neg(xp, self):
    return xp.negative(self)


def positive(self: Tensor) -> Tensor:
    """+x: the tensor itself (CompositeImplicitAutograd; no kernel runs), not for bool."""
    if self._dtype is _dt.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


register("positive", positive)


def _no_complex(message: str) -> Callable:
    def cpu_check(promoted: _dt.dtype, *args: Any, **kwargs: Any) -> None:
        if promoted.is_complex:
            raise NotImplementedError(message)

    return cpu_check


@elementwise("sign", operands=1, warns=False, cpu_check_dtypes=COMPLEX, cpu_check=_no_complex(
    "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead."))
def sign(xp, self):
    if self.dtype == np.bool_:
        return self.copy()
    if self.dtype.kind in "iu":
        return xp.sign(self)
    # 0 for zeros of either sign and for NaN, as PyTorch's (0 < x) - (x < 0)
    return (self > 0).astype(self.dtype) - (self < 0).astype(self.dtype)


def _cpu_check_relu(promoted: _dt.dtype, self: Tensor) -> None:
    if promoted is _dt.bool:
        raise RuntimeError("Boolean inputs not supported for relu")
    if promoted.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")


@elementwise("relu", operands=1, cpu_check=_cpu_check_relu, cpu_check_dtypes=COMPLEX | {_dt.bool}, warns=False)
def relu(xp, self):
    return maximum_with(self, 0) if xp is np else xp.maximum(self, 0)


# --- rounding ----------------------------------------------------------------------------------------

def _rounding(name: str, fn: Callable, complex_message: str | None) -> None:
    """floor / ceil / trunc / round: integers pass through unchanged; bool is not supported;
    complex raises `complex_message`, or the dtype error where there is none."""

    def impl(xp: Any, self: Any) -> Any:
        return self.copy() if self.dtype.kind in "iu" else fn(self)

    impl.__name__ = impl.__qualname__ = name
    if complex_message is None:
        dtypes, cpu_check = REAL, None
    else:
        dtypes, cpu_check = ALL_BUT_BOOL, _no_complex(complex_message)
    elementwise(name, operands=1, dtypes=dtypes, label=f"{name}_vml_cpu", cpu_check=cpu_check,
                cpu_check_dtypes=COMPLEX, warns=False)(impl)


_rounding("floor", np.floor, "floor is not supported for complex inputs")
_rounding("ceil", np.ceil, "ceil is not supported for complex inputs")
_rounding("trunc", np.trunc, "trunc is not supported for complex inputs")
_rounding("round", np.rint, None)  # rint rounds half to even, as PyTorch's round


@elementwise("round_decimals", operands=1, dtypes=FLOATING, label="round_cpu")
def round_decimals(xp, self, *, decimals):
    # PyTorch's formula: scale by 10**|decimals| in the computation dtype, round half to even
    scale = self.dtype.type(10.0 ** abs(decimals))
    if decimals < 0:
        return xp.rint(self / scale) * scale
    return xp.rint(self * scale) / scale


def _check_frac(promoted: _dt.dtype, self: Tensor) -> None:
    if promoted is _dt.bool and self._data is None:  # PyTorch's meta kernel computes x - trunc(x)
        _check_sub(promoted, self, self)


@elementwise("frac", operands=1, dtypes=FLOATING, check=_check_frac)
def frac(xp, self):
    return self - xp.trunc(self)


# --- comparisons and binary math --------------------------------------------------------------------------

def _comparison(name: str, fn: Callable, ordered: bool) -> None:
    def impl(xp: Any, self: Any, other: Any) -> Any:
        return fn(self, other)

    impl.__name__ = impl.__qualname__ = name
    dtypes = REAL | {_dt.bool} if ordered else None
    kernel = make_kernel(impl, kind=Kind.ALWAYS_BOOL, dtypes=dtypes, label=f"{name}_cpu", warns=False, ufunc=fn)
    for kernel_name in (name, f"{name}_Scalar"):
        register(kernel_name, kernel)


for _name, _fn, _ordered in [("eq", np.equal, False), ("ne", np.not_equal, False),
                             ("lt", np.less, True), ("le", np.less_equal, True),
                             ("gt", np.greater, True), ("ge", np.greater_equal, True)]:
    _comparison(_name, _fn, _ordered)


def _no_complex_extremum(name: str) -> Callable:
    def cpu_check(promoted: _dt.dtype, *args: Any) -> None:
        if promoted.is_complex:
            raise RuntimeError(f"{name} not implemented for complex tensors.")

    return cpu_check


@elementwise("maximum", cpu_check=_no_complex_extremum("maximum"), cpu_check_dtypes=COMPLEX, warns=False,
             ufunc=np.maximum)
def maximum(xp, self, other):
    return xp.maximum(self, other)


@elementwise("minimum", cpu_check=_no_complex_extremum("minimum"), cpu_check_dtypes=COMPLEX, warns=False,
             ufunc=np.minimum)
def minimum(xp, self, other):
    return xp.minimum(self, other)


@elementwise("atan2", kind=Kind.INT_TO_FLOAT, dtypes=_REAL_AND_BOOL)
def atan2(xp, self, other):
    return xp.arctan2(self, other)


@elementwise("hypot", dtypes=FLOATING)
def hypot(xp, self, other):
    return xp.hypot(self, other)


# --- logical ----------------------------------------------------------------------------------------------
# Functional and in-place forms are CompositeExplicitAutograd in PyTorch, out= is CPU.

@elementwise("logical_and", kind=Kind.ALWAYS_BOOL, warns=False)
def logical_and(xp, self, other):
    return xp.logical_and(self, other)


@elementwise("logical_or", kind=Kind.ALWAYS_BOOL, warns=False)
def logical_or(xp, self, other):
    return xp.logical_or(self, other)


@elementwise("logical_xor", kind=Kind.ALWAYS_BOOL, warns=False)
def logical_xor(xp, self, other):
    return xp.logical_xor(self, other)


@elementwise("logical_not", operands=1, kind=Kind.ALWAYS_BOOL, warns=False)
def logical_not(xp, self):
    return xp.logical_not(self)


# --- bitwise ------------------------------------------------------------------------------------------------

@elementwise("bitwise_and", dtypes=INTEGRAL_AND_BOOL, warns=False)
def bitwise_and(xp, self, other):
    return xp.bitwise_and(self, other)


@elementwise("bitwise_or", dtypes=INTEGRAL_AND_BOOL, warns=False)
def bitwise_or(xp, self, other):
    return xp.bitwise_or(self, other)


@elementwise("bitwise_xor", dtypes=INTEGRAL_AND_BOOL, warns=False)
def bitwise_xor(xp, self, other):
    return xp.bitwise_xor(self, other)


@elementwise("bitwise_not", operands=1, dtypes=INTEGRAL_AND_BOOL, warns=False)
def bitwise_not(xp, self):
    return xp.invert(self)


def _left_shift(xp: Any, self: Any, other: Any) -> Any:
    # PyTorch: a shift by a negative amount or by the width or more gives 0
    bits = self.dtype.itemsize * 8
    valid = (other >= 0) & (other < bits)
    return xp.where(valid, xp.left_shift(self, xp.where(valid, other, 0)), 0).astype(self.dtype)


def _right_shift(xp: Any, self: Any, other: Any) -> Any:
    # PyTorch: a shift by a negative amount or by the width or more fills with the sign bit
    bits = self.dtype.itemsize * 8
    out_of_range = (other < 0) | (other >= bits)
    shifted = xp.right_shift(self, xp.where(out_of_range, bits - 1, other))
    if self.dtype.kind == "u":
        shifted = xp.where(out_of_range, 0, shifted)
    return shifted.astype(self.dtype)


def _check_dunder_shift(name: str) -> Callable:
    def check(promoted: _dt.dtype, *args: Any) -> None:
        if on_meta(args) and (promoted is _dt.bool or promoted.is_floating_point or promoted.is_complex):
            raise RuntimeError(f"{name}: Expected input tensor to have an integral dtype. Got {promoted}")

    return check


for _name, _impl in (("lshift", _left_shift), ("rshift", _right_shift)):
    _shift = make_kernel(_impl, dtypes=INTEGRAL, label=f"{_name}_cpu", warns=False)
    _long = "bitwise_left_shift" if _name == "lshift" else "bitwise_right_shift"
    register(_long, _shift)
    # aten::__lshift__ & co.: the same kernel; PyTorch's meta kernel for them checks the dtype
    _dunder_shift = make_kernel(_impl, dtypes=INTEGRAL, label=f"{_name}_cpu", warns=False,
                                check=_check_dunder_shift(_name))
    for _overload in (f"dunder_{_name}", f"dunder_{_name}_Scalar"):
        register(_overload, _dunder_shift)

for _op in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"):
    _forward_scalar(f"{_op}_Tensor_Scalar" if "shift" in _op else f"{_op}_Scalar", f"{_op}.Tensor", generated=False)
    _forward_scalar(f"{_op}_Scalar_Tensor", f"{_op}.Tensor", swap=True, inplace=False)


def _dunder(name: str, target: str) -> None:
    """CompositeImplicitAutograd __and__ & co.: the bitwise op of the same overload."""

    def kernel(self: Tensor, other: Any) -> Tensor:
        return aten(target)(self, other)

    kernel.__name__ = kernel.__qualname__ = name
    register(name, kernel)


for _op in ("and", "or", "xor"):
    _dunder(f"dunder_{_op}", f"bitwise_{_op}.Tensor")
    _dunder(f"dunder_{_op}_Scalar", f"bitwise_{_op}.Scalar")
    _dunder(f"dunder_{_op}_", f"bitwise_{_op}_.Tensor")
    _dunder(f"dunder_{_op}_Scalar_", f"bitwise_{_op}_.Scalar")


# --- classification ------------------------------------------------------------------------------------------

def _isnan(xp: Any, self: Any) -> Any:
    return xp.isnan(self) if self.dtype.kind in "fc" else xp.zeros(self.shape, np.bool_)


def _isinf(xp: Any, self: Any) -> Any:
    return xp.isinf(self) if self.dtype.kind in "fc" else xp.zeros(self.shape, np.bool_)


for _name, _impl in (("isnan", _isnan), ("isinf", _isinf)):
    _impl.__name__ = _impl.__qualname__ = _name
    _kernel = make_kernel(_impl, operands=1, kind=Kind.ALWAYS_BOOL, warns=False)
    register(_name, _kernel)


# --- aliases -------------------------------------------------------------------------------------------
# CompositeImplicitAutograd names for other ops (torch.divide is div): each overload calls the
# target's overload of the same name, as PyTorch's do.

_OVERLOADS = {
    "unary": ("", "out"), "binary": ("Tensor", "Scalar", "out"),
    "comparison": ("Tensor", "Scalar", "Tensor_out", "Scalar_out"),
    "divide": ("Tensor", "Scalar", "Tensor_mode", "Scalar_mode", "out", "out_mode"),
    "clip": ("", "Tensor", "out", "Tensor_out"),
}
_ALIASES = {
    "true_divide": ("div", "binary"), "divide": ("div", "divide"), "multiply": ("mul", "binary"),
    "subtract": ("sub", "binary"), "absolute": ("abs", "unary"), "negative": ("neg", "unary"),
    "clip": ("clamp", "clip"), "greater": ("gt", "comparison"), "greater_equal": ("ge", "comparison"),
    "less": ("lt", "comparison"), "less_equal": ("le", "comparison"), "not_equal": ("ne", "comparison"),
    "arcsin": ("asin", "unary"), "arccos": ("acos", "unary"), "arctan": ("atan", "unary"),
    "arctan2": ("atan2", "unary"), "fix": ("trunc", "unary"),
}


def _alias(name: str, target: str, *extra: Any) -> None:
    """Kernel alias_<name> (dots as "__"): aten::<target>(*args, *extra, **kwargs)."""

    def kernel(*args: Any, **kwargs: Any) -> Any:
        return aten(target)(*args, *extra, **kwargs)

    kernel.__name__ = kernel.__qualname__ = "alias_" + name.replace(".", "__")
    register(kernel.__name__, kernel)


def _qualified(base: str, overload: str) -> str:
    return f"{base}.{overload}" if overload else base


for _alias_name, (_target, _group) in _ALIASES.items():
    for _overload in _OVERLOADS[_group]:
        _alias(_qualified(_alias_name, _overload), _qualified(_target, _overload))
        if "out" not in _overload:
            _alias(_qualified(_alias_name + "_", _overload), _qualified(_target + "_", _overload))

# square is pow(x, 2)
_alias("square", "pow.Tensor_Scalar", 2)
_alias("square.out", "pow.Tensor_Scalar_out", 2)
_alias("square_", "pow_.Scalar", 2)


# --- sgn ---------------------------------------------------------------------------------------------

@elementwise("sgn", operands=1, warns=False)
def sgn(xp, self):
    """sign for real numbers; z / |z| (0 at 0) for complex ones."""
    if self.dtype.kind != "c":
        return sign.__wrapped__(xp, self)
    magnitude = xp.abs(self)
    return xp.where(magnitude == 0, 0, self / xp.where(magnitude == 0, 1, magnitude)).astype(self.dtype)
