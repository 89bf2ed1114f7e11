"""Schema parsing and printing, checked against torch._C.parse_schema (PyTorch 2.13)."""

import pytest
import torch

from torchpy._dispatch.schema import (
    AliasInfo,
    Argument,
    BaseType,
    FunctionSchema,
    ListType,
    OptionalType,
    SchemaKind,
    parse_schema,
    parse_type,
)

# The corpus is read from the oracle itself: every schema torch 2.13 registers (aten's 3,754,
# TorchScript's prim:: and friends included), in torch's canonical printing.
LINES = sorted(str(schema) for schema in torch._C._jit_get_all_schemas())


def test_corpus_is_the_expected_one():
    # torch 2.13 registers 3,754 aten schemas; the 3,110 of shared/targets/aten_schemas.txt
    # (the operators torch's native_functions.yaml declares) are among them.
    assert sum(line.startswith("aten::") for line in LINES) == 3754
    assert "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor" in LINES


def test_whole_corpus_round_trips():
    mismatches = [line for line in LINES if str(parse_schema(line)) != line]
    assert mismatches == []


# --- field-by-field against torch ------------------------------------------------------------

def _alias(info):
    if info is None:
        return None
    return (set(info.before_set), set(info.after_set), info.is_write)


def _typed(value):
    """A default with its Python type, so 1 and 1.0 and True differ."""
    if isinstance(value, list):
        return ("list", [_typed(v) for v in value])
    return (type(value).__name__, value)


def _describe_ours(schema):
    return {
        "name": schema.name,
        "overload": schema.overload_name,
        "args": [(a.name, a.type.jit_str(), a.N, a.kwarg_only, a.has_default_value(),
                  _typed(a.default_value) if a.has_default_value() else None,
                  _alias(a.alias_info), a.is_write, a.is_out) for a in schema.arguments],
        "returns": [(r.name, r.type.jit_str(), _alias(r.alias_info)) for r in schema.returns],
        "is_mutable": schema.is_mutable,
        "is_view": schema.is_view,
    }


def _describe_torch(schema):
    return {
        "name": schema.name,
        "overload": schema.overload_name,
        "args": [(a.name, str(a.type), a.N, a.kwarg_only, a.has_default_value(),
                  _typed(a.default_value) if a.has_default_value() else None,
                  _alias(a.alias_info), a.is_write, a.is_out) for a in schema.arguments],
        "returns": [(r.name, str(r.type), _alias(r.alias_info)) for r in schema.returns],
        "is_mutable": schema.is_mutable,
        "is_view": schema._is_view_op(),
    }


# Every 7th line plus every line with an unusual feature: a fair sample, fast to run.
SAMPLE = sorted(set(LINES[::7]) | {
    line for line in LINES
    if any(mark in line for mark in ("->  *", "-> *)", "[]?", "?[]", "(a!)[]", "Storage", "Stream",
                                     "Generator", "MemoryFormat", "Layout", "Device", "=\"",
                                     "e-", "[2]", "[3]", "bool[", "float[", "Scalar[", "str?",
                                     "__torch__", "Dict(", "QScheme", "Tensor(a)", "=[", "=0."))
})


@pytest.mark.parametrize("line", SAMPLE)
def test_fields_match_torch(line):
    assert _describe_ours(parse_schema(line)) == _describe_torch(torch._C.parse_schema(line))


# Schemas outside the corpus: odd-but-valid types, annotations and defaults. For each, our
# printing and parsed defaults must be torch's.
EXTRA_VALID = [
    "aten::f(int a=Mean, int b=long, ScalarType c=float, ScalarType? d=complex, Layout e=strided, "
    "MemoryFormat f=contiguous_format) -> Tensor",
    "aten::f(Scalar a=1j, Scalar b=2.5j, Scalar c=-3j) -> Tensor",
    "aten::f(float a=1e-5, float b=1E5, float c=.5, float d=5., float e=0x10, float f=1.5e+3, float g=-0.) -> Tensor",
    "aten::f(int a=0x10) -> Tensor",
    "aten::f(int[2] a=[0,0], int[2] b=[1, 2], SymInt[2] c=1, SymInt[2] d=[1,1], int[] e=[3], int[1] f=2, "
    "float[] g=[1, 2.5], bool[3] h=[True, False, True], bool[2] i=True) -> Tensor",
    "aten::f(Tensor(a!)? a, Tensor(a)[] b, Tensor(*) e, Tensor(a -> *) f) -> Tensor(a!) x",
    "aten::f(Tensor a, ...) -> ...",
    "aten::f(...) -> (Tensor, ...)",
    "aten::f(Tensor a, *, Tensor b, ...) -> Tensor",
    "aten::f(Tensor a, *) -> Tensor",
    "aten::f(*, *, Tensor a) -> Tensor",
    "aten::f(int a=1.5, bool b=1, int c=\"x\", float d=True, float? e=1, int f=-1j) -> Tensor",
    "aten::f(Tensor a) -> ()",
    "aten::f.ov(Tensor a) -> (Tensor a, Tensor)",
    "aten::f(Tensor a) -> (Tensor(a!) a)",
    "f(Tensor a) -> Tensor",
    "aten::f(Tensor?[] a, Tensor[]? b, int[]? c, SymInt[1]? d, Tensor[][] e, Tensor?? f, int?[2] g) -> Tensor",
    "aten::f(Storage a, Stream b, QScheme c, Any d, t e, t[] f, Future(t) g, Dict(str, Tensor) h, "
    "(Tensor, int) i, RRef(t) j, Await(t) k, AnyEnumType l, complex m, SymBool n, Device[] o) -> Tensor",
    "aten::f(Tensor[](a!) a, Tensor(a!)[](b) b, Tensor(a!)?[] c, Tensor(a!)[]? d, Tensor(a)[2](b)? e, "
    "Tensor(a)[][] g, Tensor[][2] h, int(a) i) -> Tensor",
    "aten::f(Tensor (a) a, Tensor [ ] b, int [ 2 ] c) -> Tensor",
    "  aten::f( Tensor  a )->Tensor  # a comment",
    "aten::f(Tensor\ta,\n    int b) -> Tensor",
    "aten::f(str a=\"\\a\\b\\f\\n\\t\\v\\\\\\'\\\"\", str b='x\"y', str c=\"\\012\\101\", str d='''abc''', "
    "str e=\"\x07\x7f~\") -> Tensor",
    "aten::f(int a=9223372036854775807, int b=-9223372036854775808, float c=9.3e18, float d=9.2e18, "
    "float e=1e300, float f=0.1, float g=2.5e-3, float h=0x1.8p1, float i=1e5j) -> Tensor",
    "aten::f(int[] a=[2,2], SymInt[] b=[2,2], int[3] c=[2,2,2], int[1] d=[2], int[] e=[ ]) -> Tensor",
    "aten::f(Tensor? a=None, Tensor[]? b=None, int[2]? c=None, str? d=\"x\", bool a2=None) -> Tensor",
    "aten::f.int(int from, int to) -> Tensor",
]


@pytest.mark.parametrize("text", EXTRA_VALID)
def test_unusual_schemas_print_and_parse_like_torch(text):
    ours, theirs = parse_schema(text), torch._C.parse_schema(text)
    assert str(ours) == str(theirs)
    ours_fields, torch_fields = _describe_ours(ours), _describe_torch(theirs)
    assert ours_fields == torch_fields


@pytest.mark.parametrize("text", [
    "aten::f(Tensor(a|b) x) -> Tensor",  # torch prints alias sets in hash order; compare as sets
    "aten::f(Tensor(a -> b|c) x) -> Tensor",
])
def test_alias_sets(text):
    ours, theirs = parse_schema(text), torch._C.parse_schema(text)
    assert _alias(ours.arguments[0].alias_info) == _alias(theirs.arguments[0].alias_info)
    assert str(ours) == text


def test_canonical_printing_of_defaults():
    cases = {
        "float a=1e-5": "float a=1.0000000000000001e-05",
        "float a=100000": "float a=100000.",
        "float a=-0.": "float a=0.",  # PyTorch loses the sign of a negative zero
        "int[2] a=[3, 3]": "int[2] a=3",
        "SymInt[2] a=3": "SymInt[2] a=[3, 3]",
        "int[1] a=3": "int[1] a=[3]",
        "Scalar a=2j": "Scalar a=0.+2.j",
        "ScalarType a=long": "ScalarType a=4",
        "str a='it'": 'str a="it"',
    }
    for given, printed in cases.items():
        text = f"aten::f({given}) -> Tensor"
        assert str(parse_schema(text)) == f"aten::f({printed}) -> Tensor"
        assert str(torch._C.parse_schema(text)) == f"aten::f({printed}) -> Tensor"


def test_special_defaults_have_torch_values():
    text = ("aten::f(int a=Mean, ScalarType b=long, MemoryFormat c=contiguous_format, "
            "Layout d=strided, ScalarType e=float, ScalarType f=complex, float g=2, "
            "Scalar h=2, Scalar i=2., complex j=1j, int[2] k=1, str l=\"x\") -> Tensor")
    values = {a.name: a.default_value for a in parse_schema(text).arguments}
    assert values == {"a": 1, "b": 4, "c": 0, "d": 0, "e": 6, "f": 9, "g": 2.0, "h": 2, "i": 2.0,
                      "j": 1j, "k": [1, 1], "l": "x"}
    assert type(values["g"]) is float and type(values["h"]) is int
    torch_values = {a.name: a.default_value for a in torch._C.parse_schema(text).arguments}
    assert torch_values == values


# --- the structured type model ----------------------------------------------------------------

def test_type_model():
    sum_dim = parse_schema(
        "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
    dim = sum_dim.arguments[1]
    assert dim.type == OptionalType(ListType(BaseType("int"), 1))
    assert str(dim.type) == "int[1]?" and dim.type.jit_str() == "Optional[List[int]]"
    assert (dim.type.is_optional, dim.type.is_list, dim.type.list_size, dim.type.base_name) == (True, True, 1, "int")
    assert dim.N == 1
    assert sum_dim.arguments[3].kwarg_only and sum_dim.arguments[3].default_value is None
    assert sum_dim.arguments[3].has_default and not sum_dim.arguments[1].has_default
    assert parse_type("Tensor?[]") == ListType(OptionalType(BaseType("Tensor")))
    assert parse_type("Tensor?[]").base_name == "Tensor" and parse_type("Tensor?[]").is_tensor_like()
    assert str(parse_type("SymInt[3]")) == "SymInt[3]"
    assert parse_type("Tensor??") == OptionalType(BaseType("Tensor"))


def test_alias_info_on_lists_matches_torch_model():
    # Tensor(a!)[]: the list gets an unnamed container annotation holding the element's (a!).
    out = parse_schema("aten::f(Tensor self, *, Tensor(a!)[] out) -> ()").arguments[1]
    assert out.alias_info == AliasInfo((), (), True, (AliasInfo(("a",), ("a",), True),))
    assert out.is_write and out.is_out and str(out) == "Tensor(a!)[] out"
    unbind = parse_schema("aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]")
    assert unbind.arguments[0].alias_info.after_set == {"*"}
    assert unbind.returns[0].alias_info.contained[0].before_set == {"a"}


def test_schemas_are_frozen_and_hashable():
    schema = parse_schema("aten::f(int[2] a=[1, 2]) -> Tensor")
    assert hash(schema) == hash(parse_schema("aten::f(int[2] a=[1, 2]) -> Tensor"))
    with pytest.raises(AttributeError):
        schema.name = "aten::g"  # type: ignore[misc]
    assert schema.arguments[0].default_value == [1, 2]
    schema.arguments[0].default_value.append(3)  # a fresh list each time
    assert schema.arguments[0].default_value == [1, 2]


def test_names():
    schema = parse_schema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    assert (schema.name, schema.overload_name, schema.qualified_name) == ("aten::add", "Tensor", "aten::add.Tensor")
    assert (schema.namespace, schema.base_name) == ("aten", "add")
    assert str(schema.operator_name) == "aten::add.Tensor"
    assert schema.argument_index("alpha") == 2
    assert [a.name for a in schema.kwarg_only_arguments] == ["alpha"]
    assert parse_schema("aten::relu(Tensor self) -> Tensor").qualified_name == "aten::relu"


# --- schema kinds ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text, kind", [
    ("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", SchemaKind.functional),
    ("aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", SchemaKind.inplace),
    ("aten::__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", SchemaKind.inplace),
    ("aten::__and__.Tensor(Tensor self, Tensor other) -> Tensor", SchemaKind.functional),
    ("aten::_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()", SchemaKind.inplace),
    ("aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", SchemaKind.out),
    ("aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values) "
     "-> (Tensor(a!) values, Tensor(b!) indices)", SchemaKind.out),
    ("aten::_foreach_add.Scalar_out(Tensor[] self, Scalar scalar, *, Tensor(a!)[] out) -> ()", SchemaKind.out),
    ("aten::_cummax_helper(Tensor self, Tensor(a!) values, Tensor(b!) indices, int dim) -> ()", SchemaKind.mutable),
    ("aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)", SchemaKind.view),
    ("aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]", SchemaKind.view),
    ("aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]", SchemaKind.view),
    ("aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", SchemaKind.view),
    ("aten::view_copy(Tensor self, SymInt[] size) -> Tensor", SchemaKind.functional),
])
def test_schema_kinds(text, kind):
    schema = parse_schema(text)
    assert schema.kind is kind
    assert schema.is_mutable == torch._C.parse_schema(text).is_mutable


def test_kinds_over_corpus_are_consistent():
    counts = {kind: 0 for kind in SchemaKind}
    for line in LINES:
        schema = parse_schema(line)
        counts[schema.kind] += 1
        if schema.kind is SchemaKind.out:
            assert schema.out_arguments and all(a.kwarg_only and a.is_write for a in schema.out_arguments)
        if schema.kind is SchemaKind.view:
            assert not schema.is_mutable and schema.is_view
        if schema.kind is SchemaKind.functional:
            assert not schema.is_mutable and not schema.is_view
    assert all(counts.values())


# --- malformed schemas ------------------------------------------------------------------------

MALFORMED = [
    "aten::f(Tensor a -> Tensor",
    "aten::f(Tensor a) ->",
    "aten::f(Tensor a)",
    "aten::f(Tensor a) -> Tensor garbage more",
    "aten::f(Tensr a) -> Tensor",
    "aten::f(T x) -> Tensor",
    "aten::f(Tensor a=1) -> Tensor",
    "aten::f(Tensor a,) -> Tensor",
    "aten::f(Tensor(a! b) a) -> Tensor",
    "aten::f(Tensor() a) -> Tensor",
    "aten::f(Tensor(a!!) x) -> Tensor",
    "aten::f(Tensor(a -> ) a) -> Tensor",
    "aten::f(Tensor?(a!) a) -> Tensor",
    "aten::f(Tensor a, ..., Tensor b) -> Tensor",
    "aten::(Tensor a) -> Tensor",
    "aten::f.(Tensor a) -> Tensor",
    "::f(Tensor a) -> Tensor",
    "aten::f.a.b(Tensor a) -> Tensor",
    "aten::b::f(Tensor a) -> Tensor",
    "aten::f(int a=--1) -> Tensor",
    "aten::f(int a=+1) -> Tensor",
    "aten::f(int[] a=[1,]) -> Tensor",
    "aten::f(int[] a=[[1]]) -> Tensor",
    "aten::f(int a=[1]) -> Tensor",
    "aten::f(str a=\"abc) -> Tensor",
    "aten::f(str a=x) -> Tensor",
    "aten::f(str a=\"\\x41\") -> Tensor",
    "aten::f(str a=\"\\q\") -> Tensor",
    "aten::f(str[] a=[\"a\"]) -> Tensor",
    "aten::f(int[2]? a=[2,2]) -> Tensor",
    "aten::f(int[2][] a) -> Tensor",
    "aten::f(float a=-inf) -> Tensor",
    "aten::f(float a=inf) -> Tensor",
    "aten::f(float a=1e) -> Tensor",
    "aten::f(float a=1.5.3) -> Tensor",
    "aten::f(ScalarType c=Float) -> Tensor",
    "",
    "aten::f(Tensor a) -> (Tensor b, Tensor c",
    "aten::f(Tensor a) -> (Tensor, *)",
    "aten::f(Tensor a) -> Tensor a=1",
    "aten::f(__torch__.foo.Bar x) -> Tensor",
    "aten::f(Tensor\na, int b=,) -> Tensor",
    "aten::f(\n  Tensor a,\n  Tensr b,\n  int c) -> Tensor",
]


@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_schema_errors_match_torch(text):
    with pytest.raises(RuntimeError) as theirs:
        torch._C.parse_schema(text)
    with pytest.raises(RuntimeError) as ours:
        parse_schema(text)
    assert str(ours.value) == str(theirs.value)


def test_error_marks_the_place():
    with pytest.raises(RuntimeError) as error:
        parse_schema("aten::f(Tensor self, Tensr other) -> Tensor")
    lines = str(error.value).splitlines()
    assert lines[-2] == "aten::f(Tensor self, Tensr other) -> Tensor"
    assert lines[-1] == " " * 21 + "~~~~~ <--- HERE"
    assert error.value.position == 21


def test_operator_name_alone_and_default_order_errors():
    with pytest.raises(RuntimeError, match="only the operator name was given"):
        parse_schema("aten::f")
    with pytest.raises(RuntimeError, match="Non-default positional argument follows default argument. Parameter b"):
        parse_schema("aten::f(int? a=None, int b) -> Tensor")
    # keyword-only arguments may come without defaults after defaulted ones
    assert str(parse_schema("aten::f(int a=1, *, Tensor(a!) out) -> Tensor(a!)")) == \
        "aten::f(int a=1, *, Tensor(a!) out) -> Tensor(a!)"


def test_direct_construction_checks_argument_order():
    with_default = Argument("a", BaseType("int"), 1)
    without = Argument("b", BaseType("int"))
    keyword_only = Argument("c", BaseType("int"), kwarg_only=True)
    assert str(FunctionSchema("aten::f", "", (without, with_default, keyword_only), ())) == \
        "aten::f(int b, int a=1, *, int c) -> ()"
    with pytest.raises(RuntimeError, match="Non-default positional argument follows default argument"):
        FunctionSchema("aten::f", "", (with_default, without), ())
    with pytest.raises(RuntimeError, match="follows keyword-only"):
        FunctionSchema("aten::f", "", (keyword_only, without), ())
