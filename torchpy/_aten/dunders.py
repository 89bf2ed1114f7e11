"""Tensor's operator dunders (+ - * / // % ** & | ^ << >> ~ comparisons, in-place forms),
each reaching the same aten op(s) as torch's:

    x + 2    -> aten::add.Tensor(x, 2)            2 + x  -> aten::add.Tensor(x, 2)
    x - 2    -> aten::sub.Tensor(x, 2)            2 - x  -> aten::rsub.Scalar(x, 2)
    x / 2    -> aten::div.Tensor(x, 2)            2 / x  -> aten::reciprocal(x), then mul.Tensor(r, 2)
    x // 2   -> aten::floor_divide(x, 2)          2 // x -> aten::floor_divide(2, x)
    x % 2    -> aten::remainder.Scalar(x, 2)      2 % x  -> aten::remainder.Scalar_Tensor(2, x)
    x ** 2   -> aten::pow.Tensor_Scalar(x, 2)     2 ** x -> aten::pow.Scalar(2, x)
    x & 2    -> aten::bitwise_and.Scalar(x, 2)    2 & x  -> aten::bitwise_and.Scalar(x, 2)
    x << 2   -> aten::__lshift__.Scalar(x, 2)     2 << x -> aten::bitwise_left_shift.Scalar_Tensor(2, x)
    x == 2   -> aten::eq.Scalar(x, 2)             x += 2 -> aten::add_.Tensor(x, 2)

where the 2 of a `.Tensor` overload is a wrapped number (a dispatch mode sees the number).
Each dunder calls its OpOverload directly: one dispatch, no overload search. An operand
that is neither a Tensor nor a number gives NotImplemented, so Python's fallbacks apply
(x == None is False, x + [1] raises TypeError), as with torch. NumPy scalars are numbers;
a NumPy array on the right becomes a tensor.

A TorchFunctionMode, a Tensor subclass or an operand whose type defines
__torch_function__ gets the call first, with the function torch hands it: the method
where torch's dunder is an alias of one (x + 1 -> Tensor.add, x != 1 -> Tensor.ne), else
the dunder itself (x ** 2 -> Tensor.__pow__).
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import numpy as np

from .._dispatch.ops import op_for
from .._tensor.dtype import from_numpy_dtype
from .._tensor.members import NONE, PROTOCOL, declare
from .._tensor.tensor import Tensor, from_array, wrapped_number
from .._tensor.torch_function import _DECLINED, dispatch_from_binding, needs_override, run_default_binary
from .._tensor.torch_function import state as _function_state
from .._dispatch import tls as _tls
from .fastcall import call
from .kernels.elementwise import quiet
from .build import FUNCTIONS
from .positional_plans import probe_tensor
from .python_api import PythonOp

_local = _tls.local

_NOT_A_NUMBER = object()
_PLAIN_NUMBERS = frozenset({bool, int, float, complex})
_PLAIN_OPERANDS = _PLAIN_NUMBERS | {Tensor}  # operands that never carry a __torch_function__


def wrap_number(number: Any) -> Tensor:
    """A wrapped-number tensor; a float beyond float32's range (whose 0-dim array is inf, the
    number itself being what kernels read) is made without NumPy's overflow warning."""
    if type(number) is float and not -3.4e38 < number < 3.4e38:
        with quiet():
            return wrapped_number(number)
    return wrapped_number(number)


def _as_tensor(x: Any) -> Any:
    """A NumPy array operand as a tensor (a copy), as torch's argument parser takes it."""
    return from_array(np.array(x), from_numpy_dtype(x.dtype))


def _as_number(x: Any) -> Any:
    """`x` as a Python number (NumPy scalars included, as torch takes them), or _NOT_A_NUMBER."""
    if type(x) in _PLAIN_NUMBERS:
        return x
    if isinstance(x, np.generic) and x.dtype.kind in "biufc":
        # torch reads a NumPy bool as a float (np.bool_(True) + int_tensor is float32)
        return float(x) if x.dtype.kind == "b" else x.item()
    for kind in (bool, int, float, complex):
        if isinstance(x, kind):
            return kind(x)
    return _NOT_A_NUMBER


def _aten(qualified: str) -> Any:
    return op_for("aten::" + qualified)


# The function a __torch_function__ handler receives, where torch's dunder aliases a method.
_HANDLER_FUNCTION = {
    "__add__": "add", "__radd__": "add", "__sub__": "sub", "__mul__": "mul", "__rmul__": "mul",
    "__truediv__": "div", "__mod__": "remainder", "__rand__": "bitwise_and", "__ror__": "bitwise_or",
    "__rxor__": "bitwise_xor", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt",
    "__ge__": "ge", "__neg__": "neg", "__abs__": "abs", "__iadd__": "add_", "__isub__": "sub_",
    "__imul__": "mul_", "__itruediv__": "div_", "__ifloordiv__": "floor_divide_",
    "__imod__": "remainder_", "__matmul__": "matmul", "__pos__": "positive",
}

# The __name__ torch's dunders carry where it differs from the dunder's (Tensor.__pow__ is pow).
_TORCH_NAMES = {"__pow__": "pow", "__ipow__": "pow_", "__rtruediv__": "__rdiv__", "__itruediv__": "__idiv__",
                "__neg__": "neg", "__pos__": "positive", "__abs__": "abs"}

def _handler(name: str) -> Callable:
    """The function a __torch_function__ handler gets for dunder `name` (looked up when first
    needed, so that it is the method Tensor finally has)."""
    fn = _handlers.get(name)
    if fn is None:
        fn = _handlers[name] = getattr(Tensor, _HANDLER_FUNCTION.get(name, name))
    return fn


_handlers: dict[str, Callable] = {}


def _overridden(self: Tensor, other: Any) -> bool:
    """The cheap pre-test: could a mode, a subclass or an operand's type claim this call?"""
    return (type(self) is not Tensor or _function_state.modes or type(other) not in _PLAIN_OPERANDS) and \
        needs_override((self, other), {})


def _operand(other: Any, arrays: bool) -> Any:
    """A tensor, a Python number, or _NOT_A_NUMBER for what the dunder cannot take."""
    if isinstance(other, Tensor):
        return other
    number = _as_number(other)
    if number is _NOT_A_NUMBER and arrays and isinstance(other, np.ndarray):
        return _as_tensor(other)
    return number


def _binary(name: str, tensor_op: str, number_op: str | None = None, arrays: bool = True) -> Callable:
    """self OP other: `tensor_op`(self, other) for a tensor; for a number, `number_op`(self, n)
    if given (a Scalar overload), else `tensor_op` with the number wrapped. `arrays`: a NumPy
    array operand is taken as a tensor (torch's reflected operators refuse it)."""
    on_tensor = _aten(tensor_op)
    on_number = _aten(number_op) if number_op else None
    probe = on_tensor.probe_call_raw

    def dunder(self: Tensor, other: Any) -> Any:
        tensor = type(other) is Tensor or isinstance(other, Tensor)
        if not tensor:
            other = _operand(other, arrays)
            if other is _NOT_A_NUMBER:
                return NotImplemented
            tensor = isinstance(other, Tensor)  # a NumPy array becomes one
        # the pre-test of _overridden, inline: this is the hottest path. The function modes and
        # the salt are both on the thread's TLS object: one lookup of its dict reads both.
        thread = _local.__dict__
        if type(self) is not Tensor or thread["modes"] or type(other) not in _PLAIN_OPERANDS:
            # a subclass with Tensor's own __torch_function__: this dunder does its work (for
            # two tensors that work is the op call itself, with nothing left to check)
            result = run_default_binary(_handlers.get(name) or _handler(name), on_tensor if tensor else dunder,
                                        self, other, thread, tensor)
            if result is not _DECLINED:
                return result
            if needs_override((self, other), {}):
                return dispatch_from_binding(_handler(name), (self, other), {})
        if tensor:
            # call()'s first step, inline (autograd's kernel for these key sets): the hottest path
            hit = probe(self._keyset | other._keyset | thread["salt"])
            if hit is not None:
                return hit[0](on_tensor, hit[1], (self, other), {})
            return call(on_tensor, self._keyset | other._keyset, self, other)  # normalized already
        if on_number is not None:
            return call(on_number, self._keyset, self, other)  # normalized already: skip the binder
        return on_tensor(self, wrap_number(other))

    return dunder


def _reflected(name: str, tensor_op: str, number_op: str | None = None,
               first: Callable[[Tensor], Tensor] | None = None) -> Callable:
    """other OP self (Python's __rOP__): the operands in their written order (2 ** x is
    pow(2, x)), or, given `first`, first(self) then other (2 - x is rsub(x, 2), 2 / x is
    mul(reciprocal(x), 2), as torch's)."""
    on_tensor = _aten(tensor_op)
    on_number = _aten(number_op) if number_op else None

    def dunder(self: Tensor, other: Any) -> Any:
        if type(other) is not Tensor:
            other = _operand(other, False)
            if other is _NOT_A_NUMBER:
                return NotImplemented
        if _overridden(self, other):
            return dispatch_from_binding(_handler(name), (self, other), {})
        if isinstance(other, Tensor):
            return on_tensor(other, self) if first is None else on_tensor(first(self), other)
        if first is None:
            if on_number is not None:
                return call(on_number, self._keyset, other, self)  # normalized already: skip the binder
            return on_tensor(wrap_number(other), self)
        tensor = first(self)
        if on_number is not None:
            return call(on_number, tensor._keyset, tensor, other)
        return on_tensor(tensor, wrap_number(other))

    return dunder


def _itself(self: Tensor) -> Tensor:
    return self


def _reciprocal(self: Tensor) -> Tensor:
    return _aten("reciprocal")(self)


def _unary(name: str, qualified: str) -> Callable:
    op = _aten(qualified)

    def dunder(self: Tensor) -> Any:
        if (type(self) is not Tensor or _function_state.modes) and needs_override((self,), {}):
            return dispatch_from_binding(_handler(name), (self,), {})
        return op(self)

    return dunder


def _invert(self: Tensor) -> Any:
    if (type(self) is not Tensor or _function_state.modes) and needs_override((self,), {}):
        return dispatch_from_binding(_handler("__invert__"), (self,), {})
    if self._dtype.is_floating_point or self._dtype.is_complex:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return _aten("bitwise_not")(self)




def _matmul(name: str, reflected: bool) -> Callable:
    """x @ y is the linear-algebra family's public matmul, looked up when used."""

    op = mm = decomposition = None

    def dunder(self: Tensor, other: Any) -> Any:
        nonlocal op, mm, decomposition
        if type(self) is Tensor and type(other) is Tensor and not _function_state.modes:
            # Plain tensors: what torchpy.matmul would do after its override checks.
            if op is None:
                op, mm = _aten("matmul"), _aten("mm")
                decomposition = op.decomposition()
            a, b = (other, self) if reflected else (self, other)
            ks = a._keyset | b._keyset
            salted = ks | _local.salt
            if len(a._shape) == 2 and len(b._shape) == 2 and op.probe_call(salted) is decomposition:
                # matrix @ matrix: the step the dispatcher's matmul would take, aten.mm, as
                # mm's call() would take it (autograd's kernel for these key sets)
                hit = mm.probe_call_raw(salted)
                return hit[0](mm, hit[1], (a, b), {}) if hit is not None else call(mm, ks, a, b)
            return call(op, ks, a, b)
        matmul = getattr(sys.modules["torchpy"], "matmul", None)
        if matmul is None or not isinstance(other, Tensor):
            return NotImplemented
        if _overridden(self, other):
            return dispatch_from_binding(_handler(name), (self, other), {})
        return matmul(other, self) if reflected else matmul(self, other)

    return dunder


# What each operator dunder calls, as torch's do (python_variable_methods.cpp, torch/_tensor.py):
# a Tensor method (x & y: bitwise_and, which torch's aten::__and__ decomposes into), self first.
# Which of its overloads takes a tensor and which a number is the parser's choice (_overloads).
_METHODS = {
    "__add__": "add", "__sub__": "sub", "__mul__": "mul", "__truediv__": "div",
    "__floordiv__": "floor_divide", "__mod__": "remainder", "__pow__": "pow",
    "__and__": "bitwise_and", "__or__": "bitwise_or", "__xor__": "bitwise_xor",
    "__lshift__": "__lshift__", "__rshift__": "__rshift__",
    "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge",
    # in place
    "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_",
    "__ifloordiv__": "floor_divide_", "__imod__": "remainder_", "__ipow__": "pow_",
    "__iand__": "bitwise_and_", "__ior__": "bitwise_or_", "__ixor__": "bitwise_xor_",
    "__ilshift__": "__ilshift__", "__irshift__": "__irshift__",
}

# Commutative ops reflect to the same call, self first (2 + x is add(x, 2)).
_COMMUTED = {"__radd__": "add", "__rmul__": "mul", "__rand__": "bitwise_and", "__ror__": "bitwise_or",
             "__rxor__": "bitwise_xor"}

# Python's __rOP__ for non-commutative ops: torch's function with the other operand first
# (2 ** x is torch.pow(2, x)).
_REFLECTED = {"__rfloordiv__": "floor_divide", "__rmod__": "remainder", "__rpow__": "pow",
              "__rlshift__": "bitwise_left_shift", "__rrshift__": "bitwise_right_shift"}


def _overloads(python_op: PythonOp, reflected: bool, probe: Tensor) -> tuple[str, str | None]:
    """(the overload the parser picks for two tensors, the one it picks for a Python number, or
    None where that is the same overload, taking the number as a wrapped tensor), read from the
    schema the way the generated bindings read it: by asking the parser with probe arguments."""

    def picked(args: tuple) -> str | None:
        choice = python_op.choose(args, {})
        return choice[0].op.name().removeprefix("aten::") if isinstance(choice, tuple) else None

    on_tensor = picked((probe, probe))
    on_numbers = {picked((n, probe) if reflected else (probe, n)) for n in (0, 0.0, False)} - {None}
    if on_tensor is None or len(on_numbers) != 1:
        raise AssertionError(f"{python_op.name}: no single overload for a tensor and for a number")
    on_number = on_numbers.pop()
    return on_tensor, (None if on_number == on_tensor else on_number)


_UNARY = {"__neg__": "neg", "__abs__": "abs", "__pos__": "positive"}


def _where_method(where: PythonOp) -> Callable:
    def method(self: Tensor, condition: Any, other: Any) -> Any:
        if needs_override((self, condition, other), {}):
            return dispatch_from_binding(method, (self, condition, other), {})
        return where((condition, self, other), {})  # torch: x.where(c, y) is where(c, x, y)

    method.__name__ = method.__qualname__ = "where"
    method._python_op = where  # type: ignore[attr-defined]  (it checks overrides itself)
    return method


def declare_members(methods: dict[str, PythonOp]) -> None:
    """Declare the operator dunders (and Tensor.where); a dunder the op table also generates
    (__and__, __iand__, ...) replaces that binding."""
    probe = probe_tensor()
    dunders: dict[str, Callable] = {}
    for name, method in _METHODS.items():
        dunders[name] = _binary(name, *_overloads(methods[method], False, probe))
    for name, method in _COMMUTED.items():
        dunders[name] = _binary(name, *_overloads(methods[method], False, probe), arrays=False)
    for name, function in _REFLECTED.items():
        dunders[name] = _reflected(name, *_overloads(FUNCTIONS[("", function)], True, probe))
    for name, op in _UNARY.items():
        dunders[name] = _unary(name, op)
    dunders["__rsub__"] = _reflected("__rsub__", *_overloads(FUNCTIONS[("", "rsub")], False, probe), first=_itself)
    dunders["__rtruediv__"] = _reflected("__rtruediv__", *_overloads(methods["mul"], False, probe), first=_reciprocal)
    dunders.update(__invert__=_invert,
                   __matmul__=_matmul("__matmul__", reflected=False),
                   __rmatmul__=_matmul("__rmatmul__", reflected=True))
    for name, fn in dunders.items():
        fn.__name__ = _TORCH_NAMES.get(name, name)
        fn.__qualname__ = f"Tensor.{fn.__name__}"
        fn._python_op = None  # type: ignore[attr-defined]  (checks overrides itself, subclasses too)
        declare(name, fn, checks=PROTOCOL, replaces_generated=name in methods)
    declare("__array_priority__", 1000, checks=NONE)  # NumPy scalars and arrays defer to Tensor's operators
    where = FUNCTIONS.get(("", "where"))
    if where is not None:
        declare("where", _where_method(where), checks=PROTOCOL)
