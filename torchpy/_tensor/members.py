"""Tensor's method table: each member declared once, by the module that owns it; installed once.

Tensor's class body (tensor.py) declares its metadata and Python protocols; every other
member is declared where it is written: `@tensor_member(...)` / `declare(...)`, or
`declare_wrapper(...)` for a hand-written binding that stands in front of the op table's
generated one (it is handed that binding). The op table hands its generated methods to
`declare_generated`. `install()` (torchpy/__init__.py calls it once, after the last declaring
module has loaded) puts the table onto Tensor; it is the one place that assigns onto Tensor
(tests/tensor/test_members.py scans the package for any other).

Rules, checked as they are declared or installed: a name is declared once; a hand-written
member replaces a generated binding only where its declaration says `replaces_generated`; a
public member or protocol dunder states how it takes part in `__torch_function__`:

  PROTOCOL  it consults the protocol itself, for subclasses and modes (a generated binding, an
            operator dunder); a subclass inherits it unchanged.
  MODES     it looks for a TorchFunctionMode itself (function_modes' guard, or by deferring
            to the generated binding under one) but not for subclasses: a subclass that
            overrides __torch_function__ gets a checked copy (torch_function._init_subclass).
  NONE      not part of the protocol (private helpers, constructors, the protocol's hooks).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Callable

PROTOCOL = "protocol"
MODES = "modes"
NONE = "none"
_KINDS = (PROTOCOL, MODES, NONE)

# Operator and protocol dunders that go through __torch_function__ (torch's handle them).
PROTOCOL_DUNDERS = frozenset(
    f"__{op}__" for base in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
                             "and", "or", "xor", "lshift", "rshift")
    for op in (base, "r" + base, "i" + base)
) | frozenset({"__neg__", "__pos__", "__abs__", "__invert__", "__eq__", "__ne__", "__lt__", "__le__",
               "__gt__", "__ge__", "__len__", "__getitem__", "__setitem__", "__format__",
               "__bool__", "__float__", "__int__", "__index__", "__reversed__", "__contains__",
               "__array__", "__array_wrap__", "__repr__", "__deepcopy__"})


def in_protocol(name: str) -> bool:
    """Whether torch routes Tensor.<name> through __torch_function__: public names and the
    protocol dunders."""
    return not name.startswith("_") or name in PROTOCOL_DUNDERS


@dataclass(frozen=True)
class Declaration:
    name: str
    value: Any              # the member; for a wrapper, make(generated) -> member
    checks: str             # PROTOCOL / MODES / NONE
    module: str             # the declaring module, for error messages
    replaces_generated: bool = False
    wrapper: bool = False

    def __post_init__(self) -> None:
        if self.checks not in _KINDS:
            raise ValueError(f"Tensor.{self.name}: checks must be one of {_KINDS}, not {self.checks!r}")
        if in_protocol(self.name) and self.checks == NONE:
            raise ValueError(f"Tensor.{self.name} ({self.module}) is part of __torch_function__: "
                             "declare it PROTOCOL or MODES")


class MemberTable:
    """Declarations collected until `install` puts them onto a class."""

    def __init__(self) -> None:
        self.declared: dict[str, Declaration] = {}
        self.generated: dict[str, Callable] = {}
        self.installed: dict[str, Any] | None = None  # name -> member, once installed

    def add(self, declaration: Declaration) -> None:
        self._open(declaration.name)
        previous = self.declared.get(declaration.name)
        if previous is not None:
            raise ValueError(f"Tensor.{declaration.name} is declared twice: in {previous.module} "
                             f"and in {declaration.module}")
        self.declared[declaration.name] = declaration

    def add_generated(self, name: str, binding: Callable) -> None:
        self._open(name)
        if name in self.generated:
            raise ValueError(f"Tensor.{name}: the op table generated two methods")
        self.generated[name] = binding

    def _open(self, name: str) -> None:
        if self.installed is not None:
            raise RuntimeError(f"Tensor.{name} declared after Tensor's members were installed")

    def resolve(self, cls: type) -> dict[str, Any]:
        """name -> member for everything `cls` (whose class body holds the rest) must gain."""
        table: dict[str, Any] = {}
        for name, binding in self.generated.items():
            if name not in self.declared:
                table[name] = binding
        for name, d in self.declared.items():
            generated = self.generated.get(name)
            if generated is not None and not d.replaces_generated:
                raise ValueError(f"Tensor.{name} ({d.module}) hides the op table's binding: "
                                 "declare it with replaces_generated=True")
            if d.wrapper:
                if generated is None:
                    raise ValueError(f"Tensor.{name} ({d.module}) wraps a generated binding the op table lacks")
                table[name] = d.value(generated)
            elif name in cls.__dict__:
                if cls.__dict__[name] is not d.value:
                    raise ValueError(f"Tensor.{name} is in Tensor's class body and declared in {d.module}")
            else:
                table[name] = d.value
        for name, member in cls.__dict__.items():
            if in_protocol(name) and name not in self.declared and name not in table and _is_member(member):
                raise ValueError(f"Tensor.{name} (class body) has no declaration: mark it with @tensor_member")
        return table

    def install(self, cls: type) -> None:
        if self.installed is not None:
            raise RuntimeError("Tensor's members are installed once")
        table = self.resolve(cls)
        for name, member in table.items():
            setattr(cls, name, member)
        self.installed = table

    def checks(self, name: str) -> str:
        """How Tensor.<name> takes part in __torch_function__."""
        d = self.declared.get(name)
        if d is not None:
            return d.checks
        return PROTOCOL if name in self.generated else NONE

    def mode_checked(self, cls: type) -> dict[str, Any]:
        """name -> member of cls for the members declared MODES: the ones a subclass that
        overrides __torch_function__ gets checked copies of."""
        return {name: cls.__dict__[name] for name, d in self.declared.items()
                if d.checks == MODES and name in cls.__dict__ and _is_member(cls.__dict__[name])}


def _is_member(value: Any) -> bool:
    """A property or a plain function (what a checked copy can stand in for)."""
    return isinstance(value, property) or (
        callable(value) and not isinstance(value, (staticmethod, classmethod, type)))


TABLE = MemberTable()


def _caller_module(depth: int) -> str:
    return sys._getframe(depth + 1).f_globals.get("__name__", "?")


def declare(name: str, value: Any, *, checks: str, replaces_generated: bool = False) -> Any:
    """Declare `value` as Tensor.<name>; returns it."""
    TABLE.add(Declaration(name, value, checks, _caller_module(1), replaces_generated))
    return value


def tensor_member(name: str | None = None, *, checks: str, replaces_generated: bool = False) -> Callable[[Any], Any]:
    """Decorator: declare the function or property as Tensor.<name> (default: its own name)."""

    def decorate(value: Any) -> Any:
        fn = value.fget if isinstance(value, property) else value
        TABLE.add(Declaration(name or fn.__name__, value, checks, _caller_module(1), replaces_generated))
        return value

    return decorate


def declare_wrapper(name: str, make: Callable[[Callable], Any], *, checks: str) -> None:
    """Declare Tensor.<name> as `make(generated)`, a hand-written binding in front of the op
    table's generated one (which it defers to for the forms it does not take)."""
    TABLE.add(Declaration(name, make, checks, _caller_module(1), True, wrapper=True))


def declare_generated(name: str, binding: Callable) -> None:
    """The op table's binding for Tensor.<name> (checks the protocol itself)."""
    TABLE.add_generated(name, binding)


def install(cls: type) -> None:
    """Put every declared member onto `cls` (Tensor), once."""
    TABLE.install(cls)
