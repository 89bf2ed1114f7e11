"""Binding calls to schemas, compared with what PyTorch 2.13 hands a Python kernel.

Every case runs twice: through torch.ops on an operator defined in a private torch
namespace (its Python kernel records the (args, kwargs) it receives), and through
torchpy's Binder on the same schema. Tensors are real torch tensors on one side and
objects with a `_keyset` on the other; everything else is the same Python value.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import torchpy
from tests.conformance.dispatch_log import dispatch_log
from torchpy._dispatch import binding
from torchpy._dispatch.binding import (
    NO_MATCH,
    BindError,
    Binder,
    bind,
    binder_for,
    default_equals,
    register_type_converter,
)
from torchpy._dispatch.schema import parse_schema

NS = "tpbind_test_binding"


class Tensor:
    """All the dispatch layer knows of a tensor: an object with an int `_keyset`."""

    __slots__ = ("_keyset", "name")

    def __init__(self, name: str) -> None:
        self._keyset = 1
        self.name = name

    def __repr__(self) -> str:
        return f"Tensor({self.name})"


class T:
    """A tensor placeholder in a test case: a torch tensor for torch, a Tensor for us."""

    def __init__(self, name: str, value: float = 1.0) -> None:
        self.name = name
        self.value = value

    def __repr__(self) -> str:
        return self.name


X, Y, Z = T("X"), T("Y"), T("Z")

SCHEMAS = {
    "add": "(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "sum": "(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "many": "(Tensor self, Scalar a=1, Scalar b=1., int[1] c=[], int[1]? d=None, int[2] p=0, str? s=None, "
            "Scalar? t=None, float? f=None, bool? g=None, Tensor? h=None, float z=0., int[] l=[1, 2], "
            "Scalar k=0.5) -> Tensor",
    "addout": "(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "pool": "(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, "
            "bool ceil_mode=False) -> Tensor",
    "cat": "(Tensor[] tensors, int dim=0) -> Tensor",
    "index": "(Tensor self, Tensor?[] indices) -> Tensor",
    "kwonly": "(Tensor self, *, int a, float b=2., bool c=False, str d=\"x\", int[] e=[]) -> Tensor",
    "fill": "(Tensor self, Scalar value, float eps=1e-05, str mode=\"mean\") -> Tensor",
}

# One single-argument op per type, for the conversion table.
CONVERSION_TYPES = [
    "int", "SymInt", "float", "bool", "Scalar", "str", "complex", "Tensor", "Tensor?", "Tensor[]",
    "Tensor?[]", "int?", "float?", "bool?", "str?", "Scalar?", "int[]", "int[1]", "int[2]", "int[2]?",
    "int[]?", "SymInt[]", "SymInt[2]", "float[]", "float[2]", "bool[]", "bool[2]", "Scalar[]", "str[]",
]


def _type_op(type_text: str) -> str:
    return "conv_" + type_text.replace("[", "L").replace("]", "").replace("?", "_opt")


for _t in CONVERSION_TYPES:
    SCHEMAS[_type_op(_t)] = f"(Tensor self, {_t} a) -> Tensor"


# --- running a case on both sides ---------------------------------------------------------------

class TorchSide:
    def __init__(self) -> None:
        self.lib = torch.library.Library(NS, "DEF")
        self.record: list = []
        for name, tail in SCHEMAS.items():
            self.lib.define(name + tail)
            self.lib.impl(name, self._kernel, "CompositeExplicitAutograd")

    def _kernel(self, *args, **kwargs):
        self.record.append((args, kwargs))
        return torch.zeros(1)

    def call(self, op: str, args: tuple, kwargs: dict):
        names: dict[int, str] = {}
        targs = _materialize(args, torch_side=True, names=names)
        tkwargs = _materialize(kwargs, torch_side=True, names=names)
        self.record.clear()
        try:
            getattr(getattr(torch.ops, NS), op).default(*targs, **tkwargs)
        except Exception as error:  # noqa: BLE001 - the error is the result
            return _error(error)
        got_args, got_kwargs = self.record[-1]
        return _canon(got_args, names), _canon(got_kwargs, names)


def _ours(op: str, args: tuple, kwargs: dict):
    schema = parse_schema(f"{NS}::{op}{SCHEMAS[op]}")
    try:
        got_args, got_kwargs = binder_for(schema).bind(
            _materialize(args, torch_side=False), _materialize(kwargs, torch_side=False))
    except Exception as error:  # noqa: BLE001
        return _error(error)
    return _canon(got_args), _canon(got_kwargs)


def _materialize(value, *, torch_side: bool, names: dict | None = None):
    if isinstance(value, T):
        if not torch_side:
            return Tensor(value.name)
        tensor = torch.tensor(value.value)
        names[id(tensor)] = value.name
        return tensor
    if isinstance(value, list):
        return [_materialize(v, torch_side=torch_side, names=names) for v in value]
    if isinstance(value, tuple):
        return tuple(_materialize(v, torch_side=torch_side, names=names) for v in value)
    if isinstance(value, dict):
        return {k: _materialize(v, torch_side=torch_side, names=names) for k, v in value.items()}
    return value


def _canon(value, names: dict | None = None):
    """A comparable form that keeps Python types (1, 1.0 and True differ)."""
    if isinstance(value, torch.Tensor):
        return ("T", names.get(id(value), "?"))
    if isinstance(value, Tensor):
        return ("T", value.name)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_canon(v, names) for v in value])
    if isinstance(value, dict):
        return ("dict", [(k, _canon(v, names)) for k, v in value.items()])
    return (type(value).__name__, value)


def _error(error: Exception):
    # A "Value:" line holding a tensor shows its repr, and the last line ("Cast error
    # details: ..." or " Python error details: ...") is pybind's text in torch; every
    # other line of the message must match.
    lines = []
    for line in str(error).splitlines():
        if line.startswith(("Cast error details", " Python error details")):
            break  # pybind's details, sometimes followed by a Python traceback
        if not (line.startswith("Value: ") and ("tensor(" in line or "Tensor(" in line)):
            lines.append(line)
    kind = "RuntimeError" if isinstance(error, RuntimeError) else type(error).__name__
    return ("error", kind, "\n".join(lines))


@pytest.fixture(autouse=True)
def without_converters():
    """These tests describe the dispatch layer on its own: converters that higher layers
    registered (number -> Tensor, ints -> dtype objects, ...) are set aside meanwhile."""
    saved = {name: register_type_converter(name, None) for name in list(binding._converters)}
    yield saved
    for name in list(binding._converters):
        register_type_converter(name, None)
    for name, fn in saved.items():
        register_type_converter(name, fn)


@pytest.fixture(scope="module")
def torch_side():
    side = TorchSide()
    yield side
    side.lib._destroy()


def check(torch_side, op, *args, **kwargs):
    theirs = torch_side.call(op, args, kwargs)
    ours = _ours(op, args, kwargs)
    assert ours == theirs, f"{op}{args}{kwargs}"
    return ours


# --- normalization rules ----------------------------------------------------------------------

NORMALIZATION_CASES = [
    # keyword-only args appear only when they differ from their default
    ("add", (X, Y), {}),
    ("add", (X, Y), {"alpha": 2}),
    ("add", (X, Y), {"alpha": 1}),
    ("add", (X, Y), {"alpha": 1.0}),  # 1.0 is not the Scalar default 1
    ("add", (X, Y), {"alpha": True}),  # nor is True
    ("add", (X,), {"other": Y}),  # positional parameter passed by keyword
    ("add", (), {"self": X, "other": Y, "alpha": 3}),
    ("add", (X, Y), {"alpha": 2.5}),
    ("add", (X, Y), {"alpha": 1j}),
    # trailing positional args equal to their default are dropped
    ("sum", (X, 0), {}),
    ("sum", (X, [0]), {}),
    ("sum", (X, (0, 1)), {}),
    ("sum", (X, 0, True), {}),
    ("sum", (X, 0, False), {}),
    ("sum", (X, 0), {"keepdim": True}),
    ("sum", (X, 0), {"keepdim": False}),
    ("sum", (X, [0]), {"keepdim": None}),  # None is False for a bool
    ("sum", (X, None), {}),
    ("sum", (X, []), {}),
    ("sum", (X,), {"dim": [1]}),
    ("sum", (X, [0]), {"dtype": None}),
    ("sum", (X, [0], False), {"dtype": None}),
    ("sum", (X, [0], True), {"dtype": None}),
    # defaults fill gaps before a later non-default positional argument
    ("many", (X,), {}),
    ("many", (X,), {"g": False}),
    ("many", (X,), {"k": 0.5}),
    ("many", (X,), {"k": 1}),
    ("many", (X,), {"a": True}),
    ("many", (X,), {"a": 1.0}),
    ("many", (X,), {"b": 1}),  # Scalar default 1. vs 1: different
    ("many", (X,), {"b": True}),
    ("many", (X,), {"c": []}),
    ("many", (X,), {"c": ()}),
    ("many", (X,), {"d": []}),  # [] is not None
    ("many", (X,), {"d": None}),
    ("many", (X,), {"p": 0}),  # int[2] 0 -> [0, 0], the default
    ("many", (X,), {"p": [0, 0]}),
    ("many", (X,), {"p": [0]}),
    ("many", (X,), {"p": 3}),
    ("many", (X,), {"s": "none"}),
    ("many", (X,), {"t": None}),
    ("many", (X,), {"f": 0.0}),
    ("many", (X,), {"h": None}),
    ("many", (X,), {"h": Y}),
    ("many", (X,), {"z": -0.0}),  # -0.0 == 0.0
    ("many", (X,), {"z": 0}),  # an int for a float becomes 0.0, the default
    ("many", (X,), {"z": False}),
    ("many", (X,), {"z": 1.0}),
    ("many", (X,), {"l": [1, 2]}),
    ("many", (X,), {"l": (1, 2)}),
    ("many", (X,), {"l": [1, True]}),
    ("many", (X, 1, 1.0, [], None, [0, 0], None, None, None, None, None, 0.0, [1, 2], 0.5), {}),
    ("many", (X, 2), {}),
    ("many", (X, 1, 2), {}),
    ("many", (X, 1, 1.0, [], None, [0, 0], "x"), {}),
    # keyword-only and out= arguments
    ("addout", (X, Y), {"out": Z}),
    ("addout", (X, Y), {"out": Z, "alpha": 2}),
    ("addout", (X, Y), {"alpha": 2, "out": Z}),  # kwargs come out in schema order
    ("kwonly", (X,), {"a": 1}),
    ("kwonly", (X,), {"a": 1, "b": 2}),
    ("kwonly", (X,), {"a": 1, "b": 2.0}),
    ("kwonly", (X,), {"e": [1], "d": "y", "c": True, "b": 3.5, "a": 1}),
    ("kwonly", (X,), {"a": True, "c": 0, "d": "x", "e": ()}),
    # fixed-size int lists broadcast a single int; defaults compare by value
    ("pool", (X, 2), {}),
    ("pool", (X, [2, 2], [2, 2]), {}),
    ("pool", (X, [2, 2], [2, 2], 0), {}),
    ("pool", (X, [2, 2], [], [0, 0], [1, 1], False), {}),
    ("pool", (X, [2, 2], [], 1), {}),
    ("pool", (X, 2, 1, 0, 1, True), {}),
    ("pool", (X, (3, 3)), {"ceil_mode": True}),
    ("pool", (X, True), {}),
    # lists of tensors
    ("cat", ([X, Y],), {}),
    ("cat", ((X, Y),), {}),
    ("cat", ([X, Y], 0), {}),
    ("cat", ([X, Y], 1), {}),
    ("cat", ([],), {"dim": 2}),
    ("index", (X, [None, Y]), {}),
    ("index", (X, (Y,)), {}),
    ("fill", (X, 2), {}),
    ("fill", (X, 2, 1e-05), {}),
    ("fill", (X, 2, 1e-05, "mean"), {}),
    ("fill", (X, 2, 1e-05, "max"), {}),
    ("fill", (X, 2), {"mode": "mean", "eps": 0.001}),
]


@pytest.mark.parametrize("op, args, kwargs", NORMALIZATION_CASES)
def test_normalization_matches_torch(torch_side, op, args, kwargs):
    result = check(torch_side, op, *args, **kwargs)
    assert result[0] != "error", result


def test_documented_examples(torch_side):
    x, y = Tensor("x"), Tensor("y")
    assert bind(_schema("sum"), (x, 0), {}) == ((x, [0]), {})
    assert bind(_schema("sum"), (x, 0), {"keepdim": True}) == ((x, [0], True), {})
    assert bind(_schema("add"), (x, y), {"alpha": 2}) == ((x, y), {"alpha": 2})
    args, kwargs = bind(_schema("many"), (x,), {"z": 3})
    assert kwargs == {} and args[-1] == 3.0 and type(args[-1]) is float and len(args) == 12


def _schema(op: str):
    return parse_schema(f"{NS}::{op}{SCHEMAS[op]}")


def test_mode_sees_what_the_kernel_sees(torch_side):
    seen = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append((args, kwargs or {}))
            return func(*args, **(kwargs or {}))

    op = getattr(torch.ops, NS).sum.default
    x = torch.ones(2)
    with Record():
        op(x, 0, True, dtype=None)
    assert seen[0] == torch_side.record[-1] == ((x, [0], True), {})
    assert Binder(_schema("sum")).bind((Tensor("x"), 0, True), {"dtype": None})[1] == {}


# --- conversions, type by type ----------------------------------------------------------------

CONVERSION_VALUES = [
    0, 5, -1, True, False, 2.5, 2.0, 1j, "s", "cpu", None, [1], [1, 2], (1, 2), [], [True], [1.5],
    [1, 2.5], [1, True], [1, 1j], [None], [1, None], ["a"], [[1]], range(3), X, [X], (X,), [X, None],
    {"a": 1}, object,
]


def _known_divergence(type_text: str, value) -> bool:
    """Inputs where torch.ops relies on Python/pybind machinery the dispatch layer leaves
    to converters, or on quirks we deliberately do not copy."""
    if "Tensor" not in type_text and (value is X or (isinstance(value, (list, tuple)) and X in value)):
        return True  # a tensor read as a number: the Tensor layer's int/float/bool converters
    if type_text == "str[]" and isinstance(value, (str, dict)):
        return True  # torch iterates a string into characters, a dict into its keys
    if type_text == "Tensor?[]" and value is X:
        return True  # torch iterates a tensor into its rows
    if type_text in ("bool", "bool?") and isinstance(value, range):
        return True  # torch takes the truth value of any object for a bool
    return False


@pytest.mark.parametrize("type_text", CONVERSION_TYPES)
def test_conversions_match_torch(torch_side, type_text):
    op = _type_op(type_text)
    mismatches = []
    compared = 0
    for value in CONVERSION_VALUES:
        if _known_divergence(type_text, value):
            continue
        compared += 1
        theirs = torch_side.call(op, (X, value), {})
        ours = _ours(op, (X, value), {})
        if ours != theirs:
            mismatches.append((value, theirs, ours))
    assert mismatches == []
    assert compared >= 20


def test_float_parameters_take_ints_as_floats(torch_side):
    result = check(torch_side, "conv_float", X, 3)
    assert result == (("tuple", [("T", "X"), ("float", 3.0)]), ("dict", []))
    result = check(torch_side, "conv_floatL", X, [1, True])
    assert result[0][1][1] == ("list", [("float", 1.0), ("float", 1.0)])


def test_fixed_size_list_broadcasting(torch_side):
    assert check(torch_side, "conv_intL2", X, 7)[0][1][1] == ("list", [("int", 7), ("int", 7)])
    assert check(torch_side, "conv_intL1", X, 7)[0][1][1] == ("list", [("int", 7)])
    assert check(torch_side, "conv_floatL2", X, 0.5)[0][1][1] == ("list", [("float", 0.5)] * 2)
    # no broadcast for SymInt[N], for float[N] given an int, or for int[]
    for op, value in (("conv_SymIntL2", 7), ("conv_floatL2", 1), ("conv_intL", 7), ("conv_boolL2", True)):
        assert check(torch_side, op, X, value)[0] == "error"
    # the length of a fixed-size list is not checked
    assert check(torch_side, "conv_intL2", X, [1, 2, 3])[0][1][1] == ("list", [("int", 1), ("int", 2), ("int", 3)])


def test_scalar_keeps_python_type(torch_side):
    for value in (True, 3, 3.0, 2j):
        result = check(torch_side, "conv_Scalar", X, value)
        assert result[0][1][1] == (type(value).__name__, value)


def test_none_for_plain_tensor_and_bool(torch_side):
    # torch.ops lets None through for a non-optional Tensor and reads None as False for a bool
    assert check(torch_side, "conv_Tensor", X, None)[0][1][1] == ("NoneType", None)
    assert check(torch_side, "conv_bool", X, None)[0][1][1] == ("bool", False)


# --- errors ---------------------------------------------------------------------------------------

ERROR_CASES = [
    ("sum", (X,), {}),  # missing argument
    ("sum", (), {}),
    ("sum", (X, 0, True, None), {}),  # a keyword-only argument passed positionally
    ("sum", (X, 0, True, None, 1), {}),  # more arguments than the schema has
    ("sum", (X, "s"), {"a": 1, "b": 2, "c": 3}),  # the count is checked before any value
    ("sum", (X, 0), {"foo": 1}),  # unknown keyword
    ("sum", (X, 0), {"foo": 1, "bar": 2}),
    ("sum", (X,), {"foo": 1}),  # missing is reported before unknown
    ("sum", (X, 0), {"dim": 1}),  # duplicate
    ("sum", (X, 0, True), {"self": X}),
    ("sum", (X, "s"), {}),  # wrong types
    ("sum", (X, 0.5), {}),
    ("sum", (X, [0.5]), {}),
    ("sum", (X, 0), {"keepdim": "yes"}),
    ("add", (X, Y), {"alpha": "s"}),
    ("add", (X, Y), {"alpha": None}),
    ("add", (X, 2), {}),
    ("add", (X, "s"), {}),
    ("add", (2, X), {}),
    ("add", (X, Y, 2), {}),
    ("add", (X,), {}),
    ("add", (X, Y), {"alpha": "s", "foo": 1}),
    ("addout", (X, Y), {}),  # missing out=
    ("addout", (X, Y), {"alpha": 2}),
    ("addout", (X, Y), {"alpha": "bad"}),  # type error before missing out (schema order)
    ("addout", (X, Y, 1), {"out": Z}),
    ("kwonly", (X,), {}),
    ("kwonly", (X,), {"a": 1.5}),
    ("kwonly", (X, 1), {}),
    ("cat", (X,), {}),
    ("cat", ([X, 1],), {}),
    ("cat", ([X, None],), {}),
    ("pool", (X, 2.5), {}),
    ("pool", (X, "2"), {}),
    ("fill", (X, None), {}),
    ("fill", (X, 1, 2, "mean", 5), {}),
    ("fill", (X, 1), {"mode": 2}),
    ("index", (X, Y), {}),
]


@pytest.mark.parametrize("op, args, kwargs", ERROR_CASES)
def test_errors_match_torch(torch_side, op, args, kwargs):
    result = check(torch_side, op, *args, **kwargs)
    assert result[0] == "error" and result[1] == "RuntimeError"


def test_error_type_and_wording():
    binder = Binder(parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"))
    x = Tensor("x")
    with pytest.raises(BindError) as error:
        binder.bind((x,), {})
    assert isinstance(error.value, RuntimeError)
    assert str(error.value) == ("aten::add() is missing value for argument 'other'. Declaration: "
                                "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    with pytest.raises(BindError) as error:
        binder.bind((x, x), {"alpha": "s"})
    assert str(error.value).splitlines() == [
        "aten::add() Expected a value of type 'number' for argument 'alpha' but instead found type 'str'.",
        "Position: 2",
        "Value: 's'",
        "Declaration: aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "Cast error details: Cannot cast s to number",
    ]
    with pytest.raises(BindError, match=r"takes 2 positional argument\(s\) but 3 was/were given\.  Declaration"):
        binder.bind((x, x, 1), {})


def test_aten_errors_match_torch():
    schema = parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    x = torch.ones(1)
    calls = [((x, x, x), {}), ((x,), {}), ((x, x), {"foo": 1}), ((x, x), {"alpha": "s"}),
             ((x, x, 1, 2), {})]
    for args, kwargs in calls:
        with pytest.raises(RuntimeError) as theirs:
            torch.ops.aten.add.Tensor(*args, **kwargs)
        ours_args = tuple(Tensor("x") if a is x else a for a in args)
        with pytest.raises(RuntimeError) as ours:
            bind(schema, ours_args, kwargs)
        assert _error(ours.value) == _error(theirs.value)


# --- aten operators under a TorchDispatchMode -----------------------------------------------------

def test_aten_normalization_seen_by_a_mode():
    seen = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append((func._schema, args, kwargs or {}))
            return func(*args, **(kwargs or {}))

    x = torch.ones(1, 1, 4, 4)
    calls = [
        (torch.ops.aten.sum.dim_IntList, (x, 0), {}),
        (torch.ops.aten.sum.dim_IntList, (x, 0, True), {}),
        (torch.ops.aten.sum.dim_IntList, (x, [0], False), {"dtype": None}),
        (torch.ops.aten.add.Tensor, (x, x), {"alpha": 2}),
        (torch.ops.aten.add.Tensor, (x, x), {"alpha": 1}),
        (torch.ops.aten.avg_pool2d.default, (x, 2), {}),
        (torch.ops.aten.avg_pool2d.default, (x, [2, 2], [2, 2], 0), {}),
        (torch.ops.aten.view.default, (x, (16,)), {}),
        (torch.ops.aten.mean.dim, (x, [1]), {"keepdim": True}),
        (torch.ops.aten.var.correction, (x,), {"dim": [1], "correction": 0}),
    ]
    for op, args, kwargs in calls:
        seen.clear()
        with Record():
            op(*args, **kwargs)
        schema_text = str(seen[0][0])
        theirs = _canon(seen[0][1], {id(x): "x"}), _canon(seen[0][2], {id(x): "x"})
        ours_args = tuple(Tensor("x") if a is x else a for a in args)
        got = bind(parse_schema(schema_text), ours_args, kwargs)
        assert (_canon(got[0]), _canon(got[1])) == theirs, schema_text


# --- default equality ------------------------------------------------------------------------------

def test_default_equals_edge_cases():
    assert default_equals(1, 1) and default_equals(None, None) and default_equals([1, 1], [1, 1])
    assert not default_equals(1.0, 1)  # alpha=1.0 vs default 1
    assert not default_equals(True, 1)
    assert not default_equals(1, 1.0)
    assert not default_equals([], None)  # dim=[] vs None
    assert not default_equals(None, [])
    assert default_equals(-0.0, 0.0)
    assert not default_equals(float("nan"), float("nan"))  # IValue equality: nan != nan
    assert not default_equals([1, True], [1, 1])
    assert default_equals("mean", "mean") and not default_equals("mean", "max")
    assert default_equals(2j, 2j) and not default_equals(2j, 2)
    tensor = Tensor("t")
    assert default_equals(tensor, tensor) and not default_equals(tensor, None)


# --- converters -------------------------------------------------------------------------------------

class FakeDtype:
    def __init__(self, code: int) -> None:
        self.code = code

    def __eq__(self, other):
        return isinstance(other, FakeDtype) and other.code == self.code

    def __hash__(self):
        return hash(self.code)

    def __repr__(self):
        return f"FakeDtype({self.code})"


@pytest.fixture
def converters():
    replaced = []

    def install(name, fn):
        replaced.append((name, register_type_converter(name, fn)))

    yield install
    for name, previous in reversed(replaced):
        register_type_converter(name, previous)


def test_opaque_types_accept_anything_without_a_converter():
    binder = Binder(parse_schema("aten::f(Tensor self, ScalarType dtype, Device? device=None, "
                                 "Generator? generator=None, Layout layout=strided) -> Tensor"))
    x = Tensor("x")
    marker = object()
    assert binder.bind((x, marker), {}) == ((x, marker), {})
    assert binder.bind((x, "float32", "cpu", marker, 0), {}) == ((x, "float32", "cpu", marker), {})


def test_scalartype_converter_and_converted_defaults(converters):
    def to_dtype(value):
        if isinstance(value, FakeDtype):
            return value
        if type(value) is int:
            return FakeDtype(value)
        return NO_MATCH

    schema = parse_schema("aten::f(Tensor self, ScalarType dt=long, ScalarType? opt=None, int k=0) -> Tensor")
    binder = Binder(schema)
    x = Tensor("x")
    assert binder.bind((x, 6), {}) == ((x, 6), {})  # no converter yet: kept as given
    assert binder.bind((x, 4), {}) == ((x,), {})  # 4 is the default `long`
    converters("ScalarType", to_dtype)
    # the binder notices the new converter; torch drops dtype=torch.int64 against default long
    assert binder.bind((x, FakeDtype(4)), {}) == ((x,), {})
    assert binder.bind((x, 4), {}) == ((x,), {})
    assert binder.bind((x, FakeDtype(6)), {}) == ((x, FakeDtype(6)), {})
    assert binder.bind((x,), {"k": 1}) == ((x, FakeDtype(4), None, 1), {})  # default converted
    with pytest.raises(BindError, match="Expected a value of type 'int' for argument 'dt'"):
        binder.bind((x, "float32"), {})


def test_tensor_converter_for_numbers(converters):
    made = []

    def number_to_tensor(value):
        if isinstance(value, (bool, int, float, complex)):
            made.append(value)
            return Tensor(f"wrapped {value}")
        raise TypeError("not a number")

    binder = Binder(parse_schema("aten::mul.Tensor(Tensor self, Tensor other) -> Tensor"))
    x = Tensor("x")
    with pytest.raises(BindError, match="Expected a value of type 'Tensor' for argument 'other'"):
        binder.bind((x, 2), {})
    converters("Tensor", number_to_tensor)
    args, kwargs = binder.bind((x, 2), {})
    assert args[0] is x and args[1].name == "wrapped 2" and made == [2]
    with pytest.raises(BindError, match="found type 'str'"):
        binder.bind((x, "2"), {})


def test_int_converter_applies_to_list_elements(converters):
    class ZeroDim:
        _keyset = 1

        def __init__(self, value):
            self.value = value

    def tensor_to_int(value):
        return value.value if isinstance(value, ZeroDim) else NO_MATCH

    binder = Binder(parse_schema("aten::f(Tensor self, int[] dims, SymInt n) -> Tensor"))
    x = Tensor("x")
    with pytest.raises(BindError):
        binder.bind((x, [ZeroDim(3)], 1), {})
    converters("int", tensor_to_int)
    assert binder.bind((x, [ZeroDim(3)], ZeroDim(2)), {}) == ((x, [3], 2), {})  # SymInt uses "int"


def test_converter_errors_other_than_typeerror_propagate(converters):
    def bad_device(value):
        raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {value}")

    converters("Device", bad_device)
    binder = Binder(parse_schema("aten::f(Tensor self, Device? device=None) -> Tensor"))
    x = Tensor("x")
    assert binder.bind((x, None), {}) == ((x,), {})  # None never reaches the converter
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        binder.bind((x, "s"), {})


# --- the binder object ----------------------------------------------------------------------------

def test_bind_values_gives_every_argument():
    binder = Binder(_schema("sum"))
    x = Tensor("x")
    assert binder.bind_values((x, 0), {}) == [x, [0], False, None]
    assert binder.bind_values((x,), {"dim": (1, 2), "dtype": 7}) == [x, [1, 2], False, 7]


def test_list_defaults_are_fresh_and_inputs_are_copied():
    binder = Binder(_schema("many"))
    x = Tensor("x")
    first = binder.bind((x,), {"k": 1})[0]
    first[3].append(99)  # c=[] filled in; mutating it must not leak into the next call
    second = binder.bind((x,), {"k": 1})[0]
    assert second[3] == []
    dims = [0]
    args, _ = Binder(_schema("sum")).bind((x, dims, True), {})
    assert args[1] == [0] and args[1] is not dims


def test_tensor_classes_are_learnt_for_the_fast_path():
    class Fresh:
        __slots__ = ("_keyset",)

        def __init__(self):
            self._keyset = 1

    binder = Binder(_schema("add"))
    a, b = Fresh(), Fresh()
    assert Fresh not in binding._TENSOR_TYPES
    assert binder.bind((a, b), {}) == ((a, b), {})
    assert Fresh in binding._TENSOR_TYPES
    assert binder.bind((a, b), {}) == ((a, b), {})


# --- the fast path against the general one ---------------------------------------------------------
#
# `Binder.bind` binds valid calls itself, positional parameters named by keyword included
# (x.sum(0, keepdim=True)), and hands anything unusual to `_bind_general`. For random calls
# on every aten schema (and the synthetic ones above) both must give the same (args, kwargs),
# types and kwargs order included, or the same error; and both must agree with the
# normalization rules applied to `bind_values` (every argument, converted, in schema order).

_POOLS = {  # values each type takes (some only through a converter: 2 for a Tensor)
    "Tensor": ["x", "y", 2],
    "Tensor[]": [["x", "y"], ("x",), []],
    "Tensor?[]": [["x", None], ("y",), []],
    "Scalar": [1, 2, 1.0, True, 0.5, 1j],
    "int": [0, 1, -1, 2, True, False],
    "bool": [True, False, None, 1, 0],
    "float": [0.0, 1.0, 1, 0.5, True],
    "str": ["mean", "none", "sum"],
    "complex": [1j, 1, 0.5],
    "int[]": [[], [0], [0, 1], (1,), 0, 2, [True], range(2)],
    "float[]": [[1.0], [1], (0.5, 1.5), 0.5],
    "bool[]": [[True], [1]],
    "ScalarType": ["float32", "int64", 6, 4],
    "Layout": ["strided"],
    "Device": ["cpu", "cpu-device"],
    "MemoryFormat": ["contiguous_format", 0],
}
_REFUSED = [None, 1.5, "s", [0.5], ("x",), "x", object()]  # some type refuses each of these


def _pool(t) -> list:
    inner = t.unwrap_optional()
    key = str(inner).replace("SymInt", "int")
    if inner.is_list:
        key = re.sub(r"\[\d*\]$", "[]", key)  # int[2] -> int[]
    values = _POOLS.get(key, [0])
    return values + [None] if t.is_optional else values


def _materialize_aten(value, objects: dict):
    """The call with the names in `objects` ("x", "float32", ...) replaced by those objects."""
    if type(value) is str and value in objects:
        return objects[value]
    if isinstance(value, list):
        return [_materialize_aten(v, objects) for v in value]
    if isinstance(value, tuple):
        return tuple(_materialize_aten(v, objects) for v in value)
    if isinstance(value, dict):
        return {k: _materialize_aten(v, objects) for k, v in value.items()}
    return value


def _random_value(arg, rng):
    if arg.has_default and rng.random() < 0.4:
        default = arg.default_value
        if type(default) is list and rng.random() < 0.5:
            return tuple(default)  # the same value, spelled differently
        return default
    if rng.random() < 0.07:
        return rng.choice(_REFUSED)
    return rng.choice(_pool(arg.type))


def _random_calls(schema, rng, count: int):
    """Calls with the first few positional parameters given positionally and a random
    selection of the rest by keyword (in a shuffled order), now and then a bad one."""
    arguments = schema.arguments
    positional = [a for a in arguments if not a.kwarg_only]
    for _ in range(count):
        n = rng.randint(0, len(positional))
        args = tuple(_random_value(a, rng) for a in positional[:n])
        named = [a for a in arguments[n:] if rng.random() < (0.5 if a.has_default else 0.95)]
        rng.shuffle(named)
        kwargs = {a.name: _random_value(a, rng) for a in named}
        odd = rng.random()
        if odd < 0.04:
            kwargs["no_such_argument"] = 1
        elif odd < 0.08 and n:
            kwargs[positional[rng.randrange(n)].name] = args[-1]  # also given positionally
        elif odd < 0.1:
            args = args + (0,) * rng.randint(1, 3)  # too many
        yield args, kwargs


def _form(value, names: dict):
    """A comparable form that keeps Python types, list/tuple and kwargs order."""
    if hasattr(value, "_keyset"):
        if id(value) in names:
            return ("T", names[id(value)])
        return ("T*", str(value.dtype), value.tolist())  # made from a number by a converter
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_form(v, names) for v in value])
    if isinstance(value, dict):
        return ("dict", [(k, _form(v, names)) for k, v in value.items()])
    return (type(value).__name__, repr(value))


def _outcome(fn, args, kwargs, names):
    try:
        got_args, got_kwargs = fn(args, dict(kwargs))
    except Exception as error:  # noqa: BLE001 - the error is the result
        return ("error", type(error).__name__, str(error))
    return _form(got_args, names), _form(got_kwargs, names)


def _by_the_rules(binder, args, kwargs):
    """The normalized call, from every argument's value and the rules in binding's docstring."""
    values = binder.bind_values(args, kwargs)  # raises torch.ops's error for a bad call
    arguments = binder.schema.arguments
    defaults = binder._defaults  # converted as the values are

    def differs(i):
        return not arguments[i].has_default or not default_equals(values[i], defaults[i])

    n = len(args)
    n_positional = sum(1 for a in arguments if not a.kwarg_only)
    n_required = max((i + 1 for i, a in enumerate(arguments) if not a.kwarg_only and not a.has_default),
                     default=0)
    # A positional argument given by keyword is kept when it is required or not its default,
    # with everything before it; otherwise trailing arguments equal to their default go.
    keep = max((i + 1 for i in range(n, n_positional) if arguments[i].name in kwargs and differs(i)),
               default=0)
    if not keep:
        keep = n
        while keep > n_required and not differs(keep - 1):
            keep -= 1
    out_kwargs = {a.name: values[i] for i, a in enumerate(arguments)
                  if a.kwarg_only and a.name in kwargs and differs(i)}
    return tuple(values[:keep]), out_kwargs


def _equivalence_schemas():
    aten = torchpy.ops.aten
    schemas = [parse_schema(f"{NS}::{op}{tail}") for op, tail in SCHEMAS.items()]
    for name in aten:
        packet = getattr(aten, name)
        schemas += [getattr(packet, overload)._schema for overload in packet.overloads()]
    return schemas


@pytest.mark.parametrize("converters_on", [False, True], ids=["bare", "with-converters"])
def test_fast_path_matches_general_path(without_converters, converters_on):
    if converters_on:  # as torchpy runs: numbers become tensors, dtypes are objects, ...
        for name, fn in without_converters.items():
            register_type_converter(name, fn)
    objects = {"x": torchpy.ones(2), "y": torchpy.zeros(3), "float32": torchpy.float32,
               "int64": torchpy.int64, "strided": torchpy.strided, "cpu-device": torchpy.device("cpu"),
               "contiguous_format": torchpy.contiguous_format}
    names = {id(objects["x"]): "x", id(objects["y"]): "y"}
    rng = random.Random(2013)
    schemas = _equivalence_schemas()
    assert len(schemas) > 800
    bound_fast = 0  # calls naming a positional parameter by keyword that bind did alone
    for schema in schemas:
        binder = Binder(schema)
        general_calls = []
        general = binder._bind_general
        binder._bind_general = lambda a, k: general_calls.append(1) or general(a, k)
        n_positional = sum(1 for a in schema.arguments if not a.kwarg_only)
        for args, kwargs in _random_calls(schema, rng, 30):
            args, kwargs = _materialize_aten(args, objects), _materialize_aten(kwargs, objects)
            general_calls.clear()
            fast = _outcome(binder.bind, args, kwargs, names)
            assert fast == _outcome(general, args, kwargs, names), (str(schema), args, kwargs)
            by_rules = _outcome(lambda a, k: _by_the_rules(binder, a, k), args, kwargs, names)
            assert fast == by_rules, (str(schema), args, kwargs)
            if fast[0] == "error":
                continue
            # values of list parameters are fresh lists: neither the caller's nor a default
            shared = {id(v) for v in (*args, *kwargs.values(), *binder._defaults) if type(v) is list}
            bound_args, bound_kwargs = binder.bind(args, kwargs)
            for name, value in (*zip(binder._names, bound_args), *bound_kwargs.items()):
                is_list = schema.arguments[binder._index[name]].type.unwrap_optional().is_list
                assert not (is_list and id(value) in shared), (str(schema), name)
            keyword_positional = any(binder._index.get(k, n_positional) < n_positional for k in kwargs)
            if keyword_positional and not general_calls:
                bound_fast += 1
    assert bound_fast > 4000  # the comparison did exercise the new fast path


def test_keyword_positionals_examples():
    x, y = Tensor("x"), Tensor("y")
    sum_ = Binder(_schema("sum"))
    assert sum_.bind((x, 0), {"keepdim": True}) == ((x, [0], True), {})
    assert sum_.bind((x, 0), {"keepdim": False}) == ((x, [0]), {})
    assert sum_.bind((x,), {"dim": 0, "keepdim": False}) == ((x, [0]), {})
    assert sum_.bind((), {"keepdim": True, "self": x, "dim": None}) == ((x, None, True), {})
    many = Binder(_schema("many"))
    args, kwargs = many.bind((x,), {"l": (3,), "b": 1.0, "k": 2})
    assert args == (x, 1, 1.0, [], None, [0, 0], None, None, None, None, None, 0.0, [3], 2) and kwargs == {}
    assert args[3] is not many._defaults[3]  # a list default is filled in as a copy
    addout = Binder(_schema("addout"))
    assert addout.bind((), {"out": y, "other": y, "alpha": 2, "self": x}) == ((x, y), {"alpha": 2, "out": y})


def test_errors_keep_their_order_with_keywords():
    x = Tensor("x")
    sum_ = Binder(_schema("sum"))
    # the count is checked before any value (torch.ops's order), keyword or not
    with pytest.raises(BindError, match="expected at most 4 argument"):
        sum_.bind((x, "bad"), {"a": 1, "b": 2, "c": 3})
    # a missing positional argument before a refused keyword-only one
    with pytest.raises(BindError, match="missing value for argument 'dim'"):
        sum_.bind((x,), {"keepdim": True, "dtype": 1.5})
    many = Binder(_schema("many"))
    with pytest.raises(BindError, match="argument 'c'"):  # schema order, not the keywords' order
        many.bind((x,), {"d": "bad", "c": "bad"})


def test_keyword_only_converter_errors_come_in_schema_order(converters):
    def bad_device(value):
        raise RuntimeError(f"bad device string: {value}")

    converters("Device", bad_device)
    binder = Binder(parse_schema("aten::f(int[] size, *, int? dtype=None, Device? device=None) -> Tensor"))
    with pytest.raises(BindError, match="argument 'dtype'"):
        binder.bind(([2],), {"device": "s", "dtype": "bad"})
    with pytest.raises(RuntimeError, match="bad device string"):
        binder.bind(([2],), {"device": "s", "dtype": 1})


# --- what a TorchDispatchMode sees from Python calls with keywords, against torch -----------------

def _typed_log(lib, fn, x):
    return repr(dispatch_log(lib, fn, x))  # repr: 0 and False, [0] and (0,) differ


PYTHON_KEYWORD_CALLS = [
    lambda t, x: x.sum(0, keepdim=True),
    lambda t, x: x.sum(dim=0, keepdim=False),
    lambda t, x: x.sum(dim=0),
    lambda t, x: x.sum(dim=(0, 1), keepdim=True),
    lambda t, x: t.sum(x, dim=1),
    lambda t, x: x.softmax(dim=-1),
    lambda t, x: t.softmax(x, dim=0, dtype=t.float64),
    lambda t, x: x.mean(dim=[0], keepdim=True),
    lambda t, x: x.mean(1, keepdim=False),
    lambda t, x: x.max(dim=1),
    lambda t, x: x.max(dim=1, keepdim=True),
    lambda t, x: x.transpose(dim0=0, dim1=1),
    lambda t, x: x.cumsum(dim=0),
    lambda t, x: x.argmax(dim=1, keepdim=True),
    lambda t, x: x.add(x, alpha=2),
    lambda t, x: t.add(x, other=x),
    lambda t, x: t.ones(2, 3, dtype=t.float32),
    # sum / mean with one int dim, keepdim either way (generated positional fast paths)
    lambda t, x: x.sum(0, True),
    lambda t, x: x.sum(-1, False),
    lambda t, x: x.mean(dim=1, keepdim=True),
    lambda t, x: x.mean(keepdim=False, dim=-1),
    lambda t, x: x.sum(1, keepdim=False),
]


@pytest.mark.parametrize("fn", PYTHON_KEYWORD_CALLS, ids=range(len(PYTHON_KEYWORD_CALLS)))
def test_python_keyword_calls_dispatch_as_torch(fn):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert _typed_log(torchpy, fn, x) == _typed_log(torch, fn, x)
