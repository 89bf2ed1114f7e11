"""Tensor's operator dunders against torch: the aten calls a TorchDispatchMode sees (op,
arguments, keyword arguments, in order), the values and dtypes they give across dtypes,
in-place forms, reflected forms, NumPy operands and Python's fallbacks."""

import io
import re

import numpy as np
import pytest
import torch

import torchpy

from .dispatch_log import assert_same_dispatch
from tests.oracle import ALL_DTYPES, Input, agree, check, check_error, close_for

X = Input([1.5, -2.0, 3.0], "float32")
Y = Input([0.5, 4.0, -1.0], "float32")
I = Input([5, -3, 7], "int64")
J = Input([2, 3, -1], "int64")
B = Input([True, False, True], "bool")

BINARY = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
    "//": lambda a, b: a // b, "%": lambda a, b: a % b, "**": lambda a, b: a ** b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}
INPLACE = {
    "+=": lambda a, b: a.__iadd__(b), "-=": lambda a, b: a.__isub__(b), "*=": lambda a, b: a.__imul__(b),
    "/=": lambda a, b: a.__itruediv__(b), "//=": lambda a, b: a.__ifloordiv__(b),
    "%=": lambda a, b: a.__imod__(b), "**=": lambda a, b: a.__ipow__(b), "&=": lambda a, b: a.__iand__(b),
    "|=": lambda a, b: a.__ior__(b), "^=": lambda a, b: a.__ixor__(b), "<<=": lambda a, b: a.__ilshift__(b),
    ">>=": lambda a, b: a.__irshift__(b),
}
INTEGER_ONLY = {"&", "|", "^", "<<", ">>", "&=", "|=", "^=", "<<=", ">>="}


def _operands(op):
    return (I, J) if op in INTEGER_ONLY else (X, Y)


def same_dispatch(fn, *inputs):
    """The same aten calls as torch, or the same error where torch raises."""
    try:
        fn(torch, *[x.make(torch) for x in inputs])
    except Exception:  # noqa: BLE001
        check_error(fn, *inputs)
        return
    assert_same_dispatch(fn, *inputs)


# --- which aten ops run ------------------------------------------------------------------------------

@pytest.mark.parametrize("op", BINARY)
def test_binary_dunders_call_torchs_ops(op):
    a, b = _operands(op)
    fn = BINARY[op]
    same_dispatch(lambda t, x, y: fn(x, y), a, b)
    same_dispatch(lambda t, x: fn(x, 2), a)   # tensor OP number
    same_dispatch(lambda t, x: fn(2, x), a)   # number OP tensor (reflected)
    same_dispatch(lambda t, x: fn(x, True), a)
    same_dispatch(lambda t, x, y: fn(x, y), B, B)
    if op not in INTEGER_ONLY:
        same_dispatch(lambda t, x: fn(x, 2.5), a)
        same_dispatch(lambda t, x: fn(0.5, x), a)
        same_dispatch(lambda t, x, y: fn(x, y), a, I)


def test_dunders_name_methods_and_take_their_overloads_from_the_parser():
    # dunders.py says which method (or, reflected, which function) each operator is, as torch's
    # do; which overload takes a tensor and which a number is the parser's choice, not restated
    import inspect
    import re

    from torchpy._aten import dunders
    from torchpy._aten.build import FUNCTIONS, METHODS

    assert not re.search(r"[\"'][a-z_]+\.(Tensor|Scalar)", inspect.getsource(dunders))
    assert set(dunders._METHODS.values()) | set(dunders._COMMUTED.values()) <= set(METHODS)
    assert all(("", name) in FUNCTIONS for name in dunders._REFLECTED.values())
    probe = dunders.probe_tensor()
    assert dunders._overloads(METHODS["add"], False, probe) == ("add.Tensor", None)  # the number wrapped
    assert dunders._overloads(METHODS["remainder"], False, probe) == ("remainder.Tensor", "remainder.Scalar")
    assert dunders._overloads(FUNCTIONS[("", "pow")], True, probe) == ("pow.Tensor_Tensor", "pow.Scalar")


@pytest.mark.parametrize("op", INPLACE)
def test_inplace_dunders_call_torchs_ops(op):
    a, b = _operands(op)
    fn = INPLACE[op]
    same_dispatch(lambda t, x, y: fn(x, y), a, b)
    same_dispatch(lambda t, x: fn(x, 2), a)
    same_dispatch(lambda t, x: fn(x, 2.5), a)


def test_unary_dunders_call_torchs_ops():
    assert_same_dispatch(lambda t, x: -x, X)
    assert_same_dispatch(lambda t, x: abs(x), X)
    assert_same_dispatch(lambda t, x: ~x, I)
    assert_same_dispatch(lambda t, x: ~x, B)
    assert_same_dispatch(lambda t, x: +x, X)  # no op at all


def test_dunders_dispatch_once_at_the_backend():
    """Below the dispatch modes: one top-level dispatcher call per aten op, no hidden extra work."""
    x, i = torchpy.tensor([1.0, 2.0]), torchpy.tensor([1, 2])
    cases = [(lambda: x + 2, ["aten::add.Tensor"]), (lambda: 2 / x, ["aten::reciprocal", "aten::mul.Tensor"]),
             (lambda: 2 - x, ["aten::rsub.Scalar"]), (lambda: x ** 2, ["aten::pow.Tensor_Scalar"]),
             (lambda: i << 1, ["aten::__lshift__.Scalar"]), (lambda: x == x, ["aten::eq.Tensor"]),
             (lambda: i.__ixor__(3), ["aten::bitwise_xor_.Scalar"])]
    for fn, expected in cases:
        stream = io.StringIO()
        with torchpy.dispatch_trace(file=stream):
            fn()
        top = [m.group(1) for m in re.finditer(r"^(?:call|redispatch) (\S+)", stream.getvalue(), re.M)]
        assert top == expected, stream.getvalue()


# --- values -------------------------------------------------------------------------------------------

def values_for(dtype):
    if dtype == "bool":
        return [True, False, True, True]
    if dtype == "uint8":
        return [1, 2, 5, 7]
    if dtype.startswith("int"):
        return [1, -2, 5, 7]
    if dtype.startswith("complex"):
        return [1 + 1j, -2 + 0.5j, 3j, 0.5]
    return [1.5, -2.0, 3.0, 0.25]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("op", BINARY)
def test_binary_dunder_values(op, dtype):
    fn = BINARY[op]
    x = Input(values_for(dtype), dtype)
    y = Input(values_for(dtype)[::-1], dtype)
    agree(lambda t, a, b: fn(a, b), x, y, policy=close_for(dtype))
    # float16 with a complex number is complex32, which torchpy cannot store
    for number in (2, -1, 1.5, True) + ((2j,) if dtype != "float16" else ()):
        agree(lambda t, a: fn(a, number), x, policy=close_for(dtype))
        agree(lambda t, a: fn(number, a), x, policy=close_for(dtype))
    agree(lambda t, a, b: fn(a, b), x, Input(2, "float64"), policy=close_for(dtype))  # a 0-dim tensor
    agree(lambda t, a, b: fn(a, b), x, Input([[1], [2]], "int32"), policy=close_for(dtype))  # broadcasting


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("op", INPLACE)
def test_inplace_dunder_values(op, dtype):
    fn = INPLACE[op]
    x = Input(values_for(dtype), dtype)
    agree(lambda t, a, b: fn(a, b), x, Input(values_for(dtype)[::-1], dtype), policy=close_for(dtype))
    agree(lambda t, a: fn(a, 2), x, policy=close_for(dtype))
    agree(lambda t, a: fn(a, 1.5), x, policy=close_for(dtype))
    agree(lambda t, a, b: fn(a, b), x, Input([[1], [2]], "int32"), policy=close_for(dtype))  # self cannot broadcast


def test_inplace_dunders_keep_the_object():
    for op, fn in INPLACE.items():
        x = torchpy.tensor([1, 2, 3]) if op in INTEGER_ONLY else torchpy.tensor([1.0, 2.0, 3.0])
        same = x
        x = fn(x, 1)
        assert x is same
    x = torchpy.tensor([1.0, 2.0])
    x_view_owner = x
    x += 1
    assert x is x_view_owner and x.tolist() == [2.0, 3.0]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_unary_dunder_values(dtype):
    x = Input(values_for(dtype), dtype)
    agree(lambda t, a: -a, x, policy=close_for(dtype))
    agree(lambda t, a: abs(a), x, policy=close_for(dtype))
    agree(lambda t, a: ~a, x)
    agree(lambda t, a: +a, x)


def test_unary_dunder_errors():
    check_error(lambda t, a: -a, B)
    check_error(lambda t, a: +a, B)
    check_error(lambda t, a: ~a, X)
    check_error(lambda t, a: ~a, Input([1j], "complex64"))
    check(lambda t, a: (+a) is a, X)


def test_meta_operands():
    x = Input([[1.0, 2.0]], "float32", device="meta")
    for fn in BINARY.values():
        agree(lambda t, a, b: fn(a, b), Input([[1, 2]], "int64", device="meta"), Input([3], "int64", device="meta"))
        agree(lambda t, a: fn(a, 2), x)
    agree(lambda t, a: -a, x)
    agree(lambda t, a: a.__iadd__(1), x)


# --- operands that are not tensors ------------------------------------------------------------------

def test_numpy_scalars_are_numbers():
    x, i = Input([1.0, 2.0], "float16"), Input([1, 2], "int8")
    for scalar in (np.float32(2.5), np.float64(2.5), np.int64(3), np.int8(3), np.bool_(True)):
        for fn in (lambda a, s: a + s, lambda a, s: s + a, lambda a, s: a * s, lambda a, s: s - a,
                   lambda a, s: a < s, lambda a, s: s < a, lambda a, s: a ** s, lambda a, s: s / a):
            agree(lambda t, a: fn(a, scalar), x, policy=close_for("float16"))
            agree(lambda t, a: fn(a, scalar), i)


def test_numpy_arrays_become_tensors_on_the_right():
    x = Input([1.0, 2.0], "float32")
    check(lambda t, a: a + np.array([1.0, 2.0]), x)
    check(lambda t, a: a == np.array([1.0, 3.0]), x)
    check(lambda t, a: a * np.array([2, 3], dtype=np.int8), x)
    check_error(lambda t, a: np.array([1.0, 2.0]) + a, x, match_message=False)


def test_python_fallbacks_for_other_types():
    x = X
    check(lambda t, a: a == None, x)  # noqa: E711
    check(lambda t, a: a != "a", x)
    check(lambda t, a: (a == [1.5, -2.0, 3.0]) is False, x)
    for fn in (lambda a: a + None, lambda a: None + a, lambda a: a < None, lambda a: a + [1, 2, 3],
               lambda a: a + "a", lambda a: a @ 2, lambda a: a % object()):
        check_error(lambda t, a: fn(a), x)
    check(lambda t, a: a.__iadd__(None) is NotImplemented, x)


def test_inplace_dunder_errors():
    check_error(lambda t, a: a.__itruediv__(2), I)
    check_error(lambda t, a, b: a.__iadd__(b), I, X)
    check_error(lambda t, a, b: a.__iand__(b), I, X)
    check_error(lambda t, a: a.__ipow__(-1), I)
    check_error(lambda t, a: a.__imod__(0), I)
    check_error(lambda t, a, b: a.__isub__(b), B, B)


def test_where_method_and_matmul():
    check(lambda t, a, c: a.where(c, 0.0), X, B)
    check(lambda t, a, b, c: a.where(c, b), X, I, B)
    if hasattr(torchpy, "matmul"):  # matmul belongs to the linear-algebra family
        check(lambda t, a, b: a @ b, X, Y)
        check(lambda t, a, b: b.__rmatmul__(a), X, Y)
    else:
        check_error(lambda t, a, b: a @ b, X, Y, match_message=False)


# --- __torch_function__ ---------------------------------------------------------------------------

EXPRESSIONS = ["x + 1", "1 + x", "x - 1", "2 - x", "x * 2", "2 * x", "x / 2", "2 / x", "x // 2", "2 // x",
               "x % 2", "2 % x", "x ** 2", "2 ** x", "-x", "abs(x)", "+x", "~i", "i & 1", "1 & i", "i | 1",
               "1 | i", "i ^ 1", "i << 1", "1 << i", "i >> 1", "1 >> i", "x == 1", "x != 1", "x < 1",
               "x <= 1", "x > 1", "x >= 1", "x + x", "x == x", "x.where(x > 1, 0.0)"]
IN_PLACE_STATEMENTS = ["x += 1", "x -= 1", "x *= 2", "x /= 2", "x //= 2", "x %= 2", "x **= 2", "i &= 1",
                       "i |= 1", "i ^= 1", "i <<= 1", "i >>= 1"]


def _function_log(lib, code, statement=False):
    """(function name, argument types) a TorchFunctionMode sees while `code` runs."""
    names = {id(getattr(lib.Tensor, n)): n for n in dir(lib.Tensor) if callable(getattr(lib.Tensor, n, None))}
    log = []

    class Recorder(lib.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            log.append((names.get(id(func), repr(func)), [type(a).__name__ for a in args]))
            return func(*args, **(kwargs or {}))

    scope = {"x": lib.tensor([1.0, 2.0]), "i": lib.tensor([1, 2])}
    with Recorder():
        exec(code, {}, scope) if statement else eval(code, {}, scope)
    return log


@pytest.mark.parametrize("code", EXPRESSIONS + IN_PLACE_STATEMENTS)
def test_function_mode_sees_what_torch_shows_it(code):
    import torchpy.overrides  # noqa: F401  (torch.overrides is imported by torch itself)

    statement = code in IN_PLACE_STATEMENTS
    assert _function_log(torchpy, code, statement) == _function_log(torch, code, statement)


def test_subclasses_and_overriding_operands_get_the_call():
    import torchpy.overrides  # noqa: F401

    for lib in (torch, torchpy):
        seen = []

        class Logged(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return super().__torch_function__(func, types, args, kwargs)

        x = lib.tensor([1.0, 2.0])
        s = x.as_subclass(Logged)
        results = [x + s, s * 2, 2 - s, s ** 2, -s, s == x, x.where(s > 1, 0.0)]
        assert all(type(r) is Logged for r in results[:-1])
        if lib is torch:
            expected = seen
        else:
            assert seen == expected


# --- the fast bindings of pointwise methods and functions ------------------------------------------

METHOD_CALLS = ["x.exp()", "torch.exp(x)", "x.add(y)", "torch.add(x, 2)", "x.add(2.5)", "x.mul(y)", "x.div(2)",
                "torch.eq(x, 2)", "x.lt(y)", "x.pow(2)", "torch.pow(x, y)", "x.remainder(2)", "x.fmod(y)",
                "torch.floor_divide(x, 2)", "i.bitwise_and(2)", "torch.bitwise_or(i, i)", "x.maximum(y)",
                "x.add_(1)", "x.mul_(y)", "x.neg_()", "torch.sigmoid(x)", "x.round()", "x.abs_()",
                "torch.logical_and(x, y)", "x.isfinite()", "torch.relu(x)"]


@pytest.mark.parametrize("code", METHOD_CALLS)
def test_pointwise_methods_and_functions_dispatch_as_torch(code):
    fn = eval(f"lambda t, x, y, i: {code.replace('torch.', 't.')}")
    same_dispatch(fn, X, Y, I)
    check(fn, X, Y, I)


@pytest.mark.parametrize("code", [c.replace("torch.", "lib.") for c in METHOD_CALLS])
def test_pointwise_methods_and_functions_under_a_function_mode(code):
    import torchpy.overrides  # noqa: F401

    logs = []
    for lib in (torch, torchpy):
        names = {id(getattr(lib.Tensor, n)): f"Tensor.{n}" for n in dir(lib.Tensor)
                 if callable(getattr(lib.Tensor, n, None))}
        names.update({id(getattr(lib, n)): f"torch.{n}" for n in dir(lib) if callable(getattr(lib, n, None))})
        log = []

        class Recorder(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                log.append(names.get(id(func), repr(func)))
                return func(*args, **(kwargs or {}))

        scope = {"lib": lib, "x": lib.tensor([1.0, 2.0]), "y": lib.tensor([3.0, 0.5]), "i": lib.tensor([1, 2])}
        with Recorder():
            eval(code, {}, scope)
        logs.append(log)
    assert logs[1] == logs[0]


def test_subclasses_through_the_fast_bindings():
    import torchpy.overrides  # noqa: F401

    seen = {}
    for lib in (torch, torchpy):
        log = seen[lib] = []

        class Logged(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                log.append(func.__name__)
                return super().__torch_function__(func, types, args, kwargs)

        x = lib.tensor([1.0, 2.0])
        s = x.as_subclass(Logged)
        results = [s.exp(), lib.add(s, 1), x.mul(s), s.add_(1), lib.eq(x, s)]
        assert all(type(r) is Logged for r in results[:-1]) and type(results[-1]) is Logged
    assert seen[torchpy] == seen[torch]


@pytest.mark.parametrize("code", ["torch.clamp(x, 0, 1)", "x.clamp(0)", "x.clamp(min=0.5)", "x.clamp(None, 1)",
                                  "x.clamp(max=2, min=1)", "torch.clamp_min(x, 1)", "x.clamp_max(1)", "x.clamp_(0, 1)",
                                  "x.clamp_(max=1.5)", "torch.where(x > 1, x, y)", "torch.clamp(x, y, None)",
                                  "torch.clamp(i, 0.5, 2)", "x.clamp(min=y)"])
def test_clamp_and_where_bindings_dispatch_as_torch(code):
    fn = eval(f"lambda t, x, y, i: {code.replace('torch.', 't.')}")
    same_dispatch(fn, X, Y, I)
    check(fn, X, Y, I)
