"""Binder-free bindings for the pointwise family's hottest methods and functions.

x.exp(), torchpy.exp(x), x.add(y), torchpy.mul(x, 2), x.eq(0), x.add_(1), ...: for the
common argument forms (one plain tensor; a plain tensor and a plain tensor or Python
number, no keywords) these make the very aten call the generated binding makes, with
the same normalized arguments (a number goes to the Scalar overload where torch picks
it, else in as a wrapped number), skipping overload resolution and argument binding.
Any other form goes to the generated binding, which handles everything. A
TorchFunctionMode or an operand whose type defines __torch_function__ gets the call
with these functions as `func`, as from the generated ones; Tensor subclasses are
handled the same way.
"""

from __future__ import annotations

from typing import Any, Callable

from .._tensor.members import PROTOCOL, TABLE, declare_wrapper
from .._tensor.tensor import Tensor
from .dunders import wrap_number
from .._tensor.torch_function import (
    _DECLINED, default_handler_class, dispatch_from_binding, dispatch_to_mode, needs_override,
    run_default, run_default_binary,
)
from .._tensor.function_modes import mode_on, track
from .._tensor.function_modes import state as _function_state
from .._dispatch import tls as _tls
from .fastcall import aten, call

_local = _tls.local
_function_modes = False  # whether any thread has a TorchFunctionMode (function_modes keeps it)
track(globals())

_NUMBERS = frozenset({bool, int, float, complex})

# one plain tensor in, the op's default overload
UNARY = (
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos",
    "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "erf", "erfc", "abs", "neg", "sign",
    "relu", "floor", "ceil", "round", "trunc", "frac", "bitwise_not", "logical_not", "isnan", "isinf",
    "isfinite",
)
UNARY_INPLACE = tuple(f"{name}_" for name in UNARY if name not in ("isnan", "isinf", "isfinite"))

# name -> (overload for a tensor operand, for a number: the Scalar overload, "wrap" to pass it
# wrapped to the tensor overload, or None to leave numbers to the generated binding)
BINARY: dict[str, tuple[str, str | None]] = {
    "add": ("add.Tensor", "wrap"), "sub": ("sub.Tensor", "wrap"), "mul": ("mul.Tensor", "wrap"),
    "div": ("div.Tensor", "wrap"), "floor_divide": ("floor_divide", "wrap"),
    "remainder": ("remainder.Tensor", "remainder.Scalar"), "fmod": ("fmod.Tensor", "fmod.Scalar"),
    "pow": ("pow.Tensor_Tensor", "pow.Tensor_Scalar"),
    "eq": ("eq.Tensor", "eq.Scalar"), "ne": ("ne.Tensor", "ne.Scalar"), "lt": ("lt.Tensor", "lt.Scalar"),
    "le": ("le.Tensor", "le.Scalar"), "gt": ("gt.Tensor", "gt.Scalar"), "ge": ("ge.Tensor", "ge.Scalar"),
    "maximum": ("maximum", None), "minimum": ("minimum", None), "atan2": ("atan2", None),
    "hypot": ("hypot", None), "logical_and": ("logical_and", None), "logical_or": ("logical_or", None),
    "logical_xor": ("logical_xor", None), "bitwise_and": ("bitwise_and.Tensor", "bitwise_and.Scalar"),
    "bitwise_or": ("bitwise_or.Tensor", "bitwise_or.Scalar"),
    "bitwise_xor": ("bitwise_xor.Tensor", "bitwise_xor.Scalar"),
    "add_": ("add_.Tensor", "wrap"), "sub_": ("sub_.Tensor", "wrap"), "mul_": ("mul_.Tensor", "wrap"),
    "div_": ("div_.Tensor", "wrap"),
}

def _slow(binding: Callable, python_op: Any, args: tuple, kwargs: dict) -> Any:
    """The generated binding's path: overrides first, then overload resolution and binding."""
    if needs_override(args, kwargs):
        return dispatch_from_binding(binding, args, kwargs)
    return python_op(args, kwargs)


def _unary(name: str, python_op: Any) -> Callable:
    op = aten(name)

    def binding(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs:
            self = args[0]
            if type(self) is Tensor:
                # plain tensors / numbers: a mode only (one global read while none exists; under a
                # mode, the stack's emptiness first: a handler's own calls make no call here)
                if _function_modes and _function_state.modes and mode_on():
                    return dispatch_to_mode(binding, args, kwargs)
                return call(op, self._keyset, self)
            if isinstance(self, Tensor):
                cls = default_handler_class(args)
                if cls is not None:  # a subclass with Tensor's default __torch_function__: its work, inline
                    return run_default(cls, binding, op, args, {})
        return _slow(binding, python_op, args, kwargs)

    return binding


def _binary(name: str, python_op: Any) -> Callable:
    tensor_name, number_name = BINARY[name]
    on_tensor = aten(tensor_name)
    on_number = aten(number_name) if number_name not in (None, "wrap") else None
    wrap = number_name == "wrap"
    probe = on_tensor.probe_call_raw

    def binding(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 2 and not kwargs and type(args[0]) is Tensor:
            self, other = args
            kind = type(other)
            if kind is Tensor or (kind in _NUMBERS and number_name is not None):
                thread = _local.__dict__  # function modes and salt: one thread-local lookup
                if _function_modes and thread["modes"] and mode_on(thread):  # plain tensors / numbers: a mode only
                    return dispatch_to_mode(binding, args, kwargs, thread["modes"])
                if kind is Tensor:
                    # call()'s first step, inline (autograd's kernel for these key sets)
                    hit = probe(self._keyset | other._keyset | thread["salt"])
                    if hit is not None:
                        return hit[0](on_tensor, hit[1], args, {})
                    return call(on_tensor, self._keyset | other._keyset, self, other)
                if wrap:
                    other = wrap_number(other)
                    return call(on_tensor, self._keyset | other._keyset, self, other)
                return call(on_number, self._keyset, self, other)
        if len(args) == 2 and not kwargs and isinstance(args[0], Tensor) and isinstance(args[1], Tensor):
            # a subclass with Tensor's default __torch_function__: its work, inline
            result = run_default_binary(binding, on_tensor, args[0], args[1], _local.__dict__, True)
            if result is not _DECLINED:
                return result
        return _slow(binding, python_op, args, kwargs)

    return binding


_BOUNDS = frozenset({int, float, type(None)})
_CLAMP_PARAMETERS = {"clamp": ("min", "max"), "clamp_": ("min", "max"), "clamp_min": ("min",), "clamp_max": ("max",)}


def _clamp(name: str, python_op: Any) -> Callable:
    """clamp(x, lo, hi) / x.clamp(min=lo) / clamp_min(x, lo) with int / float bounds: the Scalar
    overload, with trailing None dropped as the binder drops it."""
    op = aten(name)
    parameters = _CLAMP_PARAMETERS[name]

    def binding(*args: Any, **kwargs: Any) -> Any:
        if args and type(args[0]) is Tensor and len(args) - 1 <= len(parameters):
            given = dict(zip(parameters, args[1:]))
            if all(key in parameters and key not in given for key in kwargs):
                given.update(kwargs)
                bounds = [given.get(p) for p in parameters]
                if all(type(b) in _BOUNDS for b in bounds) and any(b is not None for b in bounds):
                    while bounds[-1] is None:
                        bounds.pop()
                    if _function_modes and mode_on():  # needs_override's answer here
                        return dispatch_from_binding(binding, args, kwargs)
                    return call(op, args[0]._keyset, args[0], *bounds)
        return _slow(binding, python_op, args, kwargs)

    return binding


def _where(name: str, python_op: Any) -> Callable:
    """where(condition, x, y) on three plain tensors."""
    op = aten("where.self")

    def binding(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 3 and not kwargs:
            condition, self, other = args
            if type(condition) is Tensor and type(self) is Tensor and type(other) is Tensor:
                if _function_modes and _function_state.modes and mode_on():  # plain tensors: a mode only
                    return dispatch_to_mode(binding, args, kwargs)
                return call(op, condition._keyset | self._keyset | other._keyset, condition, self, other)
        return _slow(binding, python_op, args, kwargs)

    return binding


_SPECIAL = {"clamp": _clamp, "clamp_": _clamp, "clamp_min": _clamp, "clamp_max": _clamp, "where": _where}


def _fast(name: str, generated: Callable) -> Callable:
    """The fast binding standing in front of `generated` (with its PythonOp, which marks it
    as an op-table binding that checks overrides itself)."""
    python_op = generated._python_op  # type: ignore[attr-defined]
    if name in _SPECIAL:
        binding = _SPECIAL[name](name, python_op)
    elif name in UNARY or name in UNARY_INPLACE:
        binding = _unary(name, python_op)
    else:
        binding = _binary(name, python_op)
    binding.__name__ = name
    binding.__qualname__ = getattr(generated, "__qualname__", name)
    binding.__doc__ = getattr(generated, "__doc__", None)
    binding._python_op = python_op  # type: ignore[attr-defined]
    binding._is_method = getattr(generated, "_is_method", False)  # type: ignore[attr-defined]
    return binding


_NAMES = UNARY + UNARY_INPLACE + tuple(BINARY) + ("clamp", "clamp_", "clamp_min", "clamp_max")


def declare_members() -> None:
    """Declare the fast methods in front of the generated Tensor methods of the same names."""
    for name in _NAMES:
        if name in TABLE.generated:
            declare_wrapper(name, lambda generated, name=name: _fast(name, generated), checks=PROTOCOL)


def fast_functions(generated: dict[str, Callable]) -> dict[str, Callable]:
    """Fast torchpy.<name> functions to stand in front of the generated ones in `generated`."""
    return {name: _fast(name, generated[name]) for name in _NAMES + ("where",)
            if getattr(generated.get(name), "_python_op", None) is not None}
