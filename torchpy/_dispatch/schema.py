"""Operator schemas: the data model, a parser, and PyTorch's canonical printer.

    aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor

`parse_schema(s)` turns such a line into a frozen `FunctionSchema`;
`str(schema)` prints it back exactly as PyTorch prints it (defaults in their
canonical spelling, `int[2] padding=0`, `Tensor(a!)[]`, ...). The parser is a
small tokenizer plus a recursive-descent parser; errors are RuntimeErrors in
PyTorch's shape: a message, the source line, and a `~~~ <--- HERE` marker.

Types form a tiny tree (`BaseType`, `OptionalType`, `ListType` with an optional
fixed size N, and the rarer `TupleType` / `ParametricType`). Alias annotations
live on the `Argument` (as in PyTorch), because `Tensor(a!)[]` annotates the
list's element while `Tensor[](a!)` annotates the list itself.
"""

from __future__ import annotations

import enum
import math
import re
from dataclasses import dataclass
from typing import Any, Iterator

__all__ = [
    "AliasInfo",
    "Argument",
    "BaseType",
    "FunctionSchema",
    "ListType",
    "NO_DEFAULT",
    "OperatorName",
    "OptionalType",
    "ParametricType",
    "SchemaKind",
    "SchemaParseError",
    "TupleType",
    "Type",
    "parse_schema",
    "parse_type",
]


# --- types -----------------------------------------------------------------------------

# Base names the schema language knows. Any other name starting with a lower-case
# letter is a type variable (PyTorch accepts `t`, `t1`, ...); `__torch__.torch.classes.*`
# names are custom classes. (Dimname is kept for named-tensor schemas although
# PyTorch 2.13's parser no longer accepts it.)
KNOWN_BASE_TYPES = frozenset({
    "Tensor", "int", "SymInt", "SymBool", "float", "complex", "bool", "str", "Scalar",
    "ScalarType", "Layout", "Device", "MemoryFormat", "Generator", "Dimname", "Storage",
    "Stream", "QScheme", "ConstQuantizerPtr", "Any", "AnyClassType", "AnyEnumType",
    "NoneType", "number", "Capsule",
})

# How PyTorch's Python-facing type objects name each base type (str(arg.type) in
# torch._C, and the type named in "Expected a value of type ..." errors).
_JIT_NAMES = {
    "SymInt": "int", "SymBool": "bool", "Scalar": "number", "ScalarType": "int",
    "Layout": "int", "MemoryFormat": "int", "ConstQuantizerPtr": "int", "Dimname": "str",
}


class Type:
    """A schema type. Subclasses are frozen dataclasses; str() prints schema syntax."""

    __slots__ = ()

    @property
    def is_optional(self) -> bool:
        return isinstance(self, OptionalType)

    def unwrap_optional(self) -> "Type":
        return self.elem if isinstance(self, OptionalType) else self  # type: ignore[attr-defined]

    @property
    def is_list(self) -> bool:
        """True for `T[]`, `T[N]` and their optional forms (`int[]?`)."""
        return isinstance(self.unwrap_optional(), ListType)

    @property
    def list_size(self) -> int | None:
        """N of a fixed-size list `T[N]` / `T[N]?`; None otherwise."""
        inner = self.unwrap_optional()
        return inner.size if isinstance(inner, ListType) else None

    @property
    def base_name(self) -> str:
        """The innermost base name: `Tensor` for Tensor, Tensor?, Tensor?[] and Tensor[]?."""
        inner: Type = self
        while isinstance(inner, (OptionalType, ListType)):
            inner = inner.elem
        return inner.name if isinstance(inner, BaseType) else str(inner)

    def is_tensor_like(self) -> bool:
        return self.base_name == "Tensor"

    def jit_str(self) -> str:
        """PyTorch's Python-facing spelling: List[int], Optional[Tensor], number, ..."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class BaseType(Type):
    name: str

    def __str__(self) -> str:
        return self.name

    @property
    def is_type_var(self) -> bool:
        return self.name not in KNOWN_BASE_TYPES and not self.name.startswith("__torch__")

    def jit_str(self) -> str:
        return _JIT_NAMES.get(self.name, self.name)


@dataclass(frozen=True, slots=True)
class OptionalType(Type):
    elem: Type

    def __post_init__(self) -> None:
        if isinstance(self.elem, OptionalType):
            raise ValueError("OptionalType of an OptionalType; use optional() to build")

    def __str__(self) -> str:
        return f"{self.elem}?"

    def jit_str(self) -> str:
        return f"Optional[{self.elem.jit_str()}]"


@dataclass(frozen=True, slots=True)
class ListType(Type):
    elem: Type
    size: int | None = None  # N of `T[N]`; None for `T[]`

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.size is None else self.size}]"

    def jit_str(self) -> str:
        return f"List[{self.elem.jit_str()}]"


@dataclass(frozen=True, slots=True)
class TupleType(Type):
    elems: tuple[Type, ...]

    def __str__(self) -> str:
        return "(" + ", ".join(map(str, self.elems)) + ")"

    def jit_str(self) -> str:
        inner = ", ".join(e.jit_str() for e in self.elems) if self.elems else "()"
        return f"Tuple[{inner}]"


@dataclass(frozen=True, slots=True)
class ParametricType(Type):
    """Dict(K, V), Future(T), RRef(T), Await(T)."""

    name: str
    params: tuple[Type, ...]

    def __str__(self) -> str:
        return f"{self.name}(" + ", ".join(map(str, self.params)) + ")"

    def jit_str(self) -> str:
        return f"{self.name}[" + ", ".join(p.jit_str() for p in self.params) + "]"


def optional(t: Type) -> Type:
    """T? (PyTorch collapses T?? to T?)."""
    return t if isinstance(t, OptionalType) else OptionalType(t)


# --- alias annotations -------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class AliasInfo:
    """An alias annotation such as (a), (a!), (a -> *), (a|b).

    `before`/`after` keep the source order (for printing); `before_set`/`after_set`
    are the sets PyTorch exposes. For `Tensor(a!)[]` the argument's AliasInfo is an
    unnamed container (no sets, is_write copied from the element) whose `contained`
    holds the element's (a!), exactly as PyTorch models it.
    """

    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    is_write: bool = False
    contained: tuple["AliasInfo", ...] = ()

    @property
    def before_set(self) -> frozenset[str]:
        return frozenset(self.before)

    @property
    def after_set(self) -> frozenset[str]:
        return frozenset(self.after)

    @property
    def is_wildcard_before(self) -> bool:
        return "*" in self.before

    def all_sets(self) -> Iterator["AliasInfo"]:
        """This annotation and every contained one, depth first."""
        yield self
        for inner in self.contained:
            yield from inner.all_sets()

    def __str__(self) -> str:
        text = "|".join(self.before) + ("!" if self.is_write else "")
        if self.before_set != self.after_set:
            text += " -> " + "|".join(self.after)
        return f"({text})"


# --- arguments ----------------------------------------------------------------------------

class _NoDefault:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT: Any = _NoDefault()


def _freeze_default(value: Any) -> Any:
    # Lists are stored as tuples so schemas stay hashable; default_value gives lists back.
    return tuple(value) if isinstance(value, list) else value


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument (or return) of a schema."""

    name: str
    type: Type
    default: Any = NO_DEFAULT  # frozen form: lists as tuples; NO_DEFAULT when absent
    kwarg_only: bool = False
    alias_info: AliasInfo | None = None

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    def has_default_value(self) -> bool:
        return self.default is not NO_DEFAULT

    @property
    def default_value(self) -> Any:
        """The default as PyTorch's parser gives it (a fresh list for list defaults);
        None when there is no default (check has_default to tell the two apart)."""
        if self.default is NO_DEFAULT:
            return None
        return list(self.default) if isinstance(self.default, tuple) else self.default

    @property
    def N(self) -> int | None:
        return self.type.list_size

    @property
    def is_write(self) -> bool:
        return self.alias_info is not None and self.alias_info.is_write

    @property
    def is_out(self) -> bool:
        """A kwarg-only argument the op writes to (PyTorch's Argument.is_out)."""
        return self.kwarg_only and self.is_write

    def type_str(self) -> str:
        """The type as printed in a schema, with the alias annotation in its place."""
        return _format_annotated_type(self.type, self.alias_info)

    def __str__(self) -> str:
        text = self.type_str()
        if self.name:
            text += " " + self.name
        if self.has_default:
            text += "=" + format_default(self.default, self.type)
        return text


def _format_annotated_type(t: Type, alias: AliasInfo | None) -> str:
    # PyTorch prints: element type, the element's annotation, [N], the argument's own
    # annotation (only if it names sets), then '?'.
    inner = t.unwrap_optional()
    if isinstance(inner, ListType):
        text = str(inner.elem)
        if alias is not None and alias.contained:
            text += str(alias.contained[0])
        text += f"[{'' if inner.size is None else inner.size}]"
    else:
        text = str(inner)
    if alias is not None and alias.before:
        text += str(alias)
    if t.is_optional:
        text += "?"
    return text


# --- default values: canonical printing -----------------------------------------------------

def format_float(value: float) -> str:
    """A double as PyTorch prints it: integral values as `5.`, else 17 significant digits."""
    if math.isfinite(value) and value == int(value) and -2.0**63 <= value < 2.0**63:
        return f"{int(value)}."
    return f"{value:.17g}"


def format_complex(value: complex) -> str:
    imag = value.imag
    sign = "-" if imag < 0 else "+"
    return f"{format_float(value.real)}{sign}{format_float(abs(imag))}j"


_ESCAPES = {"\\": "\\\\", "'": "\\'", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f",
            "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def format_string(value: str) -> str:
    out = []
    for ch in value:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\{ord(ch):03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _format_scalar(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value)
    if isinstance(value, complex):
        return format_complex(value)
    if isinstance(value, str):
        return value  # a string default of a non-string type prints bare, as PyTorch does
    raise TypeError(f"cannot print default value {value!r}")


def format_default(value: Any, t: Type) -> str:
    """A default value in PyTorch's canonical spelling for an argument of type `t`."""
    if isinstance(value, str) and t.unwrap_optional() == BaseType("str"):
        return format_string(value)
    if isinstance(value, (list, tuple)):
        # `int[2] padding=[0, 0]` prints as `padding=0` (only for plain int lists, as
        # native_functions.yaml spells them); other lists print in full.
        if (isinstance(t, ListType) and t.elem == BaseType("int") and len(value) > 1
                and all(v == value[0] for v in value)):
            return _format_scalar(value[0])
        return "[" + ", ".join(_format_scalar(v) for v in value) + "]"
    return _format_scalar(value)


# --- operator names and schema kinds --------------------------------------------------------

@dataclass(frozen=True, slots=True)
class OperatorName:
    name: str  # "aten::add"
    overload_name: str = ""  # "Tensor", or "" for the default overload

    @property
    def namespace(self) -> str:
        return self.name.split("::", 1)[0] if "::" in self.name else ""

    @property
    def base_name(self) -> str:
        return self.name.split("::", 1)[-1]

    def __str__(self) -> str:
        return f"{self.name}.{self.overload_name}" if self.overload_name else self.name


class SchemaKind(enum.Enum):
    functional = enum.auto()
    inplace = enum.auto()
    out = enum.auto()
    mutable = enum.auto()
    view = enum.auto()


# Dunder names whose `__i<name>__` form is in-place (a += b -> __iadd__), as torchgen has them.
_AUGMENTED_ASSIGNMENT_NAMES = frozenset(
    {"add", "sub", "mul", "div", "mod", "pow", "lshift", "rshift", "and", "xor", "or"})


def _is_inplace_name(base: str) -> bool:
    if base.startswith("__") and base.endswith("__"):
        inner = base[2:-2]
        return inner.startswith("i") and inner[1:] in _AUGMENTED_ASSIGNMENT_NAMES
    return base.endswith("_")


# --- the schema -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class FunctionSchema:
    name: str  # "aten::add"
    overload_name: str  # "Tensor" or ""
    arguments: tuple[Argument, ...]
    returns: tuple[Argument, ...]
    is_vararg: bool = False
    is_varret: bool = False

    def __post_init__(self) -> None:
        seen_default = seen_kwarg_only = False
        for arg in self.arguments:
            if arg.kwarg_only:
                seen_kwarg_only = True
                continue
            if seen_kwarg_only:
                raise RuntimeError(f"Positional argument {arg.name} follows keyword-only arguments")
            if arg.has_default:
                seen_default = True
            elif seen_default:
                raise RuntimeError(
                    "Non-default positional argument follows default argument. "
                    f"Parameter {arg.name} in {self}")

    # names
    @property
    def operator_name(self) -> OperatorName:
        return OperatorName(self.name, self.overload_name)

    @property
    def qualified_name(self) -> str:
        """"aten::add.Tensor" (no trailing dot for the default overload)."""
        return str(self.operator_name)

    @property
    def namespace(self) -> str:
        return self.operator_name.namespace

    @property
    def base_name(self) -> str:
        return self.operator_name.base_name

    # argument groups
    @property
    def positional_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if not a.kwarg_only)

    @property
    def kwarg_only_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.kwarg_only)

    @property
    def out_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.is_out)

    def argument_index(self, name: str) -> int:
        for i, arg in enumerate(self.arguments):
            if arg.name == name:
                return i
        raise KeyError(name)

    # semantics
    @property
    def is_mutable(self) -> bool:
        """Some argument is written to (PyTorch's FunctionSchema.is_mutable)."""
        return any(a.alias_info is not None and any(s.is_write for s in a.alias_info.all_sets())
                   for a in self.arguments)

    @property
    def is_view(self) -> bool:
        """Some argument is aliased by the output without being written (view, split, unbind)."""
        return any(a.alias_info is not None
                   and any(s.before and not s.is_write for s in a.alias_info.all_sets())
                   for a in self.arguments)

    @property
    def kind(self) -> SchemaKind:
        # torchgen's order: in-place by name, then out= arguments, then any other
        # written argument; what is left is a view if an input is aliased, else functional.
        if _is_inplace_name(self.base_name):
            return SchemaKind.inplace
        if self.out_arguments:
            return SchemaKind.out
        if self.is_mutable:
            return SchemaKind.mutable
        if self.is_view:
            return SchemaKind.view
        return SchemaKind.functional

    # printing
    def __str__(self) -> str:
        parts = []
        seen_kwarg_only = False
        for arg in self.arguments:
            if arg.kwarg_only and not seen_kwarg_only:
                parts.append("*")
                seen_kwarg_only = True
            parts.append(str(arg))
        if self.is_vararg:
            parts.append("...")
        return f"{self.qualified_name}({', '.join(parts)}) -> {self._format_returns()}"

    def _format_returns(self) -> str:
        items = [str(r) for r in self.returns]
        if self.is_varret:
            items.append("...")
        single = len(self.returns) == 1 and not self.is_varret
        if single and not items[0].startswith("("):
            return items[0]
        if not self.returns and self.is_varret:
            return "..."
        return "(" + ", ".join(items) + ")"


# --- tokenizer ----------------------------------------------------------------------------------

IDENT, NUMBER, STRING, ARROW, ELLIPSIS, EOF = "ident", "number", "string_literal", "arrow", "...", "eof"

_SKIP = re.compile(r"(?:\s+|#[^\n]*)*")  # whitespace and comments
_TOKEN = re.compile(
    r"(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"
    # what C's strtod reads (decimal or hex, no sign), plus an imaginary `j` suffix
    r"|(?P<number>(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)j?)"
    r"|(?P<string_literal>'''.*?'''|\"\"\".*?\"\"\"|'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")"
    r"|(?P<arrow>->)"
    r"|(?P<ellipsis>\.\.\.)"
    r"|(?P<punctuation>[()\[\],=?!*|:.\-+/%&^~<>{};@])",
    re.DOTALL)
_KINDS = {"ident": IDENT, "number": NUMBER, "string_literal": STRING, "arrow": ARROW, "ellipsis": ELLIPSIS}


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # one of the constants above, or the punctuation character itself
    text: str
    start: int
    end: int


def tokenize(src: str) -> list[Token]:
    tokens: list[Token] = []
    position = 0
    while True:
        position = _SKIP.match(src, position).end()  # type: ignore[union-attr]
        if position >= len(src):
            tokens.append(Token(EOF, "", len(src), len(src)))
            return tokens
        match = _TOKEN.match(src, position)
        if match is None:  # includes an unterminated string
            raise SchemaParseError(f"expected a valid token but found '{src[position]}' here",
                                   src, position, position + 1)
        group = match.lastgroup
        kind = match.group() if group == "punctuation" else _KINDS[group]  # type: ignore[index]
        tokens.append(Token(kind, match.group(), position, match.end()))
        position = match.end()


# --- errors -------------------------------------------------------------------------------------

def highlight(src: str, start: int, end: int) -> str:
    """The source with a `~~~ <--- HERE` marker under [start, end), PyTorch style."""
    if start >= len(src):  # at end of input PyTorch shows the source without a marker
        return src
    line_start = src.rfind("\n", 0, start) + 1
    line_end = src.find("\n", start)
    if line_end < 0:
        line_end = len(src)
    end = max(start + 1, min(end, line_end))
    marker = " " * (start - line_start) + "~" * (end - start) + " <--- HERE"
    text = src[:line_end] + "\n" + marker + "\n"
    if line_end < len(src):
        text += src[line_end + 1:] + "\n"
    return text


class SchemaParseError(RuntimeError):
    """A malformed schema. A RuntimeError, as torch._C.parse_schema raises."""

    def __init__(self, message: str, src: str, start: int, end: int) -> None:
        self.source = src
        self.position = start
        super().__init__(f"{message}:\n{highlight(src, start, end)}")


def _describe(tok: Token) -> str:
    return tok.kind if tok.kind in (IDENT, NUMBER, STRING, ARROW, EOF) else tok.text


# --- parser -------------------------------------------------------------------------------------

_UNKNOWN_TYPE = (
    "unknown type specifier. Common valid schema types include Tensor, SymInt, int, float, "
    "bool, Scalar; for a full list, please see "
    "https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/README.md#func ")

# Named constants PyTorch's parser accepts as defaults (their enum values).
_NAMED_DEFAULTS = {
    "float": 6,  # ScalarType::Float
    "complex": 9,  # ScalarType::ComplexFloat
    "long": 4,  # ScalarType::Long
    # dtype names (torch.float32 -> "float32"), as infer_schema writes dtype defaults
    "uint8": 0, "int8": 1, "int16": 2, "short": 2, "int32": 3, "int": 3, "int64": 4,
    "float16": 5, "half": 5, "float32": 6, "float64": 7, "double": 7, "complex32": 8, "chalf": 8,
    "complex64": 9, "cfloat": 9, "complex128": 10, "cdouble": 10, "bool": 11, "qint8": 12,
    "quint8": 13, "qint32": 14, "bfloat16": 15, "quint4x2": 16, "quint2x4": 17, "bits1x8": 18,
    "bits2x4": 19, "bits4x2": 20, "bits8": 21, "bits16": 22, "float8_e5m2": 23,
    "float8_e4m3fn": 24, "float8_e5m2fnuz": 25, "float8_e4m3fnuz": 26, "uint16": 27, "uint32": 28,
    "uint64": 29, "uint1": 30, "bit": 30, "uint2": 31, "uint3": 32, "uint4": 33, "uint5": 34,
    "uint6": 35, "uint7": 36, "int1": 37, "int2": 38, "int3": 39, "int4": 40, "int5": 41,
    "int6": 42, "int7": 43, "float8_e8m0fnu": 44, "float4_e2m1fn_x2": 45,
    "strided": 0,  # Layout::Strided
    "Mean": 1,  # Reduction::Mean
    "contiguous_format": 0,  # MemoryFormat::Contiguous
}

_LIST_DEFAULT_ELEMENTS = {"int": int, "SymInt": int, "float": float, "complex": complex, "bool": bool}
_STRING_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
                   "\\": "\\", "'": "'", '"': '"'}


class _Parser:
    def __init__(self, src: str) -> None:
        self.src = src
        self.tokens = tokenize(src)
        self.pos = 0

    # token helpers
    @property
    def cur(self) -> Token:
        return self.tokens[self.pos]

    def peek(self, offset: int = 1) -> Token:
        return self.tokens[min(self.pos + offset, len(self.tokens) - 1)]

    def next(self) -> Token:
        tok = self.tokens[self.pos]
        if tok.kind != EOF:
            self.pos += 1
        return tok

    def accept(self, kind: str) -> Token | None:
        return self.next() if self.cur.kind == kind else None

    def expect(self, kind: str) -> Token:
        tok = self.cur
        if tok.kind != kind:
            raise SchemaParseError(f"expected {kind} but found '{_describe(tok)}' here",
                                   self.src, tok.start, tok.end)
        return self.next()

    def error(self, message: str, tok: Token) -> SchemaParseError:
        # Semantic errors read "\n<message>:\n<source>..." in PyTorch.
        return SchemaParseError("\n" + message, self.src, tok.start, tok.end)

    # schema
    def parse_schema(self) -> FunctionSchema:
        name, overload = self.parse_operator_name()
        if self.cur.kind == EOF:
            raise RuntimeError("Tried to parse a function schema but only the operator name was given")
        if self.cur.kind != "(":
            self.expect(EOF)  # a bare operator name must end here (PyTorch's wording)
        arguments, is_vararg = self.parse_arguments()
        self.expect(ARROW)
        returns, is_varret = self.parse_returns()
        self.expect(EOF)
        return FunctionSchema(name, overload, arguments, returns, is_vararg, is_varret)

    def parse_operator_name(self) -> tuple[str, str]:
        name = self.expect(IDENT).text
        if self.cur.kind == ":" and self.peek().kind == ":":
            self.next()
            self.next()
            name += "::" + self.expect(IDENT).text
        overload = ""
        if self.accept("."):
            overload = self.expect(IDENT).text
        return name, overload

    def parse_arguments(self) -> tuple[tuple[Argument, ...], bool]:
        self.expect("(")
        arguments: list[Argument] = []
        kwarg_only = is_vararg = False
        seen_default = False
        if not self.accept(")"):
            while True:
                if self.accept("*"):
                    kwarg_only = True
                elif self.accept(ELLIPSIS):
                    if self.accept(","):
                        raise self.error("... must be the last element of the argument list", self.cur)
                    is_vararg = True
                else:
                    start = self.cur
                    arg = self.parse_argument(kwarg_only)
                    if not kwarg_only:
                        if arg.has_default:
                            seen_default = True
                        elif seen_default:
                            raise self.error(
                                "Non-default positional argument follows default argument. "
                                f"Parameter {arg.name}", start)
                    arguments.append(arg)
                if not self.accept(","):
                    break
            self.expect(")")
        return tuple(arguments), is_vararg

    def parse_returns(self) -> tuple[tuple[Argument, ...], bool]:
        if self.cur.kind != "(":
            if self.accept(ELLIPSIS):
                return (), True
            return (self.parse_return(),), False
        self.next()
        returns: list[Argument] = []
        is_varret = False
        if not self.accept(")"):
            while True:
                if self.accept(ELLIPSIS):
                    is_varret = True
                    break
                returns.append(self.parse_return())
                if not self.accept(","):
                    break
            self.expect(")")
        return tuple(returns), is_varret

    def parse_return(self) -> Argument:
        t, alias = self.parse_argument_type()
        name = self.next().text if self.cur.kind == IDENT else ""
        return Argument(name, t, NO_DEFAULT, False, alias)

    def parse_argument(self, kwarg_only: bool) -> Argument:
        t, alias = self.parse_argument_type()
        name = self.expect(IDENT).text
        default = NO_DEFAULT
        if self.accept("="):
            default = _freeze_default(self.parse_default(t))
        return Argument(name, t, default, kwarg_only, alias)

    # types
    def parse_argument_type(self) -> tuple[Type, AliasInfo | None]:
        t, alias = self.parse_type()
        # A fixed size `T[N]` may only close an argument's type (then an annotation, then '?').
        if self.accept("["):
            size = int(self.expect(NUMBER).text)
            self.expect("]")
            t = ListType(t, size)
            alias = _wrap_in_container(alias, self.parse_alias_annotation())
            if self.accept("?"):
                t = optional(t)
        return t, alias

    def parse_type(self) -> tuple[Type, AliasInfo | None]:
        t = self.parse_base_type()
        alias = self.parse_alias_annotation()
        while True:
            if self.cur.kind == "[" and self.peek().kind == "]":
                self.next()
                self.next()
                t = ListType(t)
                alias = _wrap_in_container(alias, self.parse_alias_annotation())
            elif self.accept("?"):
                t = optional(t)
            else:
                return t, alias

    def parse_plain_type(self) -> Type:
        """A type nested inside Dict(...)/Future(...)/(...): annotations are not kept."""
        return self.parse_type()[0]

    def parse_base_type(self) -> Type:
        if self.accept("("):
            elems: list[Type] = []
            if not self.accept(")"):
                while True:
                    elems.append(self.parse_plain_type())
                    if not self.accept(","):
                        break
                self.expect(")")
            return TupleType(tuple(elems))
        tok = self.expect(IDENT)
        name = tok.text
        if name in ("Dict", "Future", "RRef", "Await") and self.cur.kind == "(":
            self.next()
            params = [self.parse_plain_type()]
            if name == "Dict":
                self.expect(",")
                params.append(self.parse_plain_type())
            self.expect(")")
            return ParametricType(name, tuple(params))
        if name == "__torch__":
            parts = [name]
            part_tokens = [tok]
            while self.accept("."):
                part_tokens.append(self.expect(IDENT))
                parts.append(part_tokens[-1].text)
            for got, wanted, where in zip(parts[1:], ("torch", "classes"), part_tokens[1:]):
                if got != wanted:
                    raise self.error(f"Expected classes namespace but got {got}", where)
            if len(parts) < 4:
                raise self.error("Expected a class name under __torch__.torch.classes", tok)
            return BaseType(".".join(parts))
        if name in KNOWN_BASE_TYPES or name[0].islower():
            return BaseType(name)
        raise self.error(_UNKNOWN_TYPE, tok)

    def parse_alias_annotation(self) -> AliasInfo | None:
        if not self.accept("("):
            return None
        before = self.parse_alias_sets()
        is_write = bool(self.accept("!"))
        after = self.parse_alias_sets() if self.accept(ARROW) else before
        self.expect(")")
        return AliasInfo(before, after, is_write)

    def parse_alias_sets(self) -> tuple[str, ...]:
        sets = [self._alias_set()]
        while self.accept("|"):
            sets.append(self._alias_set())
        return tuple(sets)

    def _alias_set(self) -> str:
        if self.accept("*"):
            return "*"
        return self.expect(IDENT).text

    # default values
    def parse_default(self, t: Type) -> Any:
        inner = t.unwrap_optional()
        if isinstance(inner, ListType) and not t.is_optional:
            return self.parse_list_default(inner)
        return self.parse_single_default(inner, t)

    def parse_list_default(self, t: ListType) -> list[Any]:
        elem = t.elem
        if self.cur.kind != "[":
            if t.size is None:
                self.expect("[")
            # `int[2] stride=1` means [1, 1]
            value = self.parse_single_default(elem, elem)
            return [value] * t.size
        bracket = self.cur
        element_kind = _LIST_DEFAULT_ELEMENTS.get(elem.base_name) if isinstance(elem, BaseType) else None
        if element_kind is None:
            raise self.error("lists are only supported for float, int and complex types", bracket)
        self.next()
        values: list[Any] = []
        if not self.accept("]"):
            while True:
                tok = self.cur
                value = self.parse_single_default(elem, elem)
                values.append(_check_list_element(value, element_kind, self, tok))
                if not self.accept(","):
                    break
            self.expect("]")
        return values

    def parse_single_default(self, t: Type, declared: Type) -> Any:
        tok = self.cur
        if tok.kind == IDENT and tok.text == "True":
            self.next()
            return True
        if tok.kind == IDENT and tok.text == "False":
            self.next()
            return False
        if tok.kind == IDENT and tok.text == "None":
            self.next()
            return None
        if t.base_name == "Tensor" and not isinstance(t, ListType):
            self.expect("None")  # a Tensor default can only be None
        if tok.kind == STRING:
            self.next()
            return self.parse_string_literal(tok)
        if tok.kind == IDENT:
            self.next()
            if tok.text in _NAMED_DEFAULTS:
                return _NAMED_DEFAULTS[tok.text]
            raise self.error("invalid numeric default value", self.cur)
        negative = bool(self.accept("-"))
        number = self.expect(NUMBER)
        return _number_value(number, declared, negative, self)

    def parse_string_literal(self, tok: Token) -> str:
        text = tok.text
        quote_len = 3 if text[:3] in ('"""', "'''") else 1
        body = text[quote_len:-quote_len]
        out: list[str] = []
        i = 0
        while i < len(body):
            ch = body[i]
            if ch != "\\":
                out.append(ch)
                i += 1
                continue
            nxt = body[i + 1] if i + 1 < len(body) else ""
            where = tok  # PyTorch marks the whole literal
            if nxt in _STRING_ESCAPES:
                out.append(_STRING_ESCAPES[nxt])
                i += 2
            elif nxt == "x":
                raise self.error("unsupported hex specifier", where)
            elif nxt == "u":
                raise self.error("unsupported unicode specifier", where)
            elif len(octal := body[i + 1:i + 4]) == 3 and all(c in "01234567" for c in octal):
                out.append(chr(int(octal, 8)))
                i += 4
            else:
                raise self.error(" ill formed octal specifier", where)
        return "".join(out)


def _wrap_in_container(element: AliasInfo | None, container: AliasInfo | None) -> AliasInfo | None:
    """After `[]`: the list's own annotation, holding the element's annotation inside."""
    if element is None:
        return container
    if container is None:
        container = AliasInfo((), (), element.is_write)
    return AliasInfo(container.before, container.after, container.is_write,
                     container.contained + (element,))


def _strtoll_prefix(text: str) -> int:
    # C's stoll reads the leading decimal digits and ignores the rest ("0x10" -> 0).
    return int(re.match(r"[0-9]*", text).group() or 0)  # type: ignore[union-attr]


def _strtod(text: str) -> float:
    if text[:2] in ("0x", "0X"):
        body = text[2:]
        if "p" not in body.lower():
            body += "p0"
        return float.fromhex("0x" + body)
    return float(text)


def _number_value(tok: Token, t: Type, negative: bool, parser: _Parser) -> Any:
    # PyTorch's rule: complex if the type is complex or the literal ends in `j`;
    # a double if the type is float or the literal has '.' or 'e'; else an int64.
    text = tok.text
    base = t.name if isinstance(t, BaseType) else ""
    try:
        if base == "complex" or text.endswith("j"):
            if not text.endswith("j"):
                raise parser.error("invalid complex default value", tok)
            imag = _strtod(text[:-1])
            return complex(0.0, -imag if negative else imag)
        if base == "float" or "." in text or "e" in text:
            value = _strtod(text)
            if math.isinf(value):
                raise OverflowError
            return -value if negative else value
    except (ValueError, OverflowError):
        raise parser.error("number out of range or malformed", tok) from None
    value = _strtoll_prefix(text)
    if value > (2**63 if negative else 2**63 - 1):
        raise parser.error("number out of range or malformed", tok)
    return -value if negative else value


def _check_list_element(value: Any, kind: type, parser: _Parser, tok: Token) -> Any:
    # PyTorch only builds homogeneous lists of the element type (int[] a=[1.5] is refused).
    if type(value) is not kind:
        raise parser.error(f"expected {kind.__name__} in a list default", tok)
    return value


# --- entry points -------------------------------------------------------------------------------

def parse_schema(schema: str) -> FunctionSchema:
    """Parse a schema string; str() of the result is PyTorch's canonical spelling."""
    return _Parser(schema).parse_schema()


def parse_type(text: str) -> Type:
    """Parse a type on its own, e.g. "int[2]?" or "Tensor?[]" (annotations are dropped)."""
    parser = _Parser(text)
    t, _ = parser.parse_argument_type()
    parser.expect(EOF)
    return t
