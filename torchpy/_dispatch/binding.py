"""Binding a Python call to a schema, and normalizing it as PyTorch does.

`Binder(schema).bind(args, kwargs)` checks and converts every argument against
its schema type, fills defaults, and returns the (args, kwargs) pair that
`__torch_dispatch__` handlers and Python kernels receive in PyTorch 2.13:

* positional parameters stay positional, keyword-only ones go to kwargs;
* trailing positional arguments equal to their default are dropped, and
  keyword-only arguments appear only when they differ from their default;
* "equal" is PyTorch's IValue equality: type-sensitive for numbers (1 != 1.0 !=
  True), element-wise for lists (see `default_equals`);
* values are converted as torch.ops converts them: an int for `float` becomes a
  float, `int[2]` accepts a single int (-> [v, v]), tuples become lists, ...

Bad calls raise `BindError`, a RuntimeError (the type torch.ops raises), with
PyTorch's wording.

How values are checked. The dispatch layer does not know the Tensor class: a
tensor is any object with a `_keyset` attribute. Higher layers plug in
conversions with `register_type_converter(base_type_name, fn)`:

* `fn(value)` returns the converted value, or `NO_MATCH` (or raises TypeError)
  when the value does not fit. Other exceptions propagate unchanged.
* For types with a built-in rule (Tensor, int, SymInt, float, complex, bool,
  str, Scalar) the converter is consulted only for values the rule rejects,
  e.g. a Python number passed for a Tensor, or a 0-dim tensor passed for an int.
* Object types without a built-in rule (ScalarType, Layout, Device,
  MemoryFormat, Generator, Storage, Stream, QScheme, Dimname, ...) accept any
  value as-is until a converter is registered; from then on every non-None value
  goes through it. Defaults are converted the same way (ScalarType's `long`,
  stored as 4, reaches kernels as whatever the ScalarType converter makes of 4).
* Optional types accept None before any converter is asked. List elements go
  through the element type's rule and converter. SymInt uses the "int"
  converter unless one is registered for "SymInt" itself.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

from .schema import BaseType, FunctionSchema, ListType, OptionalType, Type

__all__ = [
    "NO_MATCH",
    "BindError",
    "Binder",
    "bind",
    "binder_for",
    "default_equals",
    "register_type_converter",
]


class _NoMatch:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_MATCH"


NO_MATCH: Any = _NoMatch()


class BindError(RuntimeError):
    """A call that does not fit its schema (torch.ops raises RuntimeError too)."""


class _Mismatch(Exception):
    """Internal: a value does not fit a type."""


# --- converters ---------------------------------------------------------------------------

_converters: dict[str, Callable[[Any], Any]] = {}
_converters_version = 0  # binders recompile when this moves


def register_type_converter(
        base_type_name: str, fn: Callable[[Any], Any] | None) -> Callable[[Any], Any] | None:
    """Install (or with fn=None remove) the converter for a base type name such as
    "Tensor", "ScalarType" or "Device"; returns the one it replaces, so callers can put
    it back. See the module docstring for the protocol."""
    global _converters_version
    previous = _converters.pop(base_type_name, None)
    if fn is not None:
        _converters[base_type_name] = fn
    _converters_version += 1
    return previous


def _run_converter(fn: Callable[[Any], Any], value: Any) -> Any:
    try:
        result = fn(value)
    except TypeError:
        raise _Mismatch from None
    if result is NO_MATCH:
        raise _Mismatch
    return result


# --- default equality -----------------------------------------------------------------------

def default_equals(value: Any, default: Any) -> bool:
    """Whether `value` counts as the default, as PyTorch decides when it drops arguments.

    Numbers compare with their type: alpha=1.0 or alpha=True is not the default 1
    (but a `float` parameter given 1 was converted to 1.0 first, so it is). Lists
    compare element-wise ([1, 1] is stride=[1, 1]); [] is not None; None is None.
    """
    if value is default:
        return True
    if type(value) is not type(default):
        return False
    if type(value) is list:
        return len(value) == len(default) and all(map(default_equals, value, default))
    try:
        return bool(value == default)
    except Exception:  # e.g. objects whose == is element-wise
        return False


# --- fast-path type sets ----------------------------------------------------------------------

# Fast path: per parameter, the set of Python types that pass unchanged. Tensor classes
# are learnt as they are seen (a class whose instances carry `_keyset`), into one shared
# set, so a tensor argument costs one set lookup instead of a function call.
_NoneType = type(None)
_TENSOR_TYPES: set[type] = {_NoneType}  # a plain Tensor parameter passes None through too
_TENSOR_TYPES_NOT_NONE: set[type] = set()  # for elements of Tensor[]
_UNCHANGED_TYPES: dict[str, frozenset[type]] = {
    "int": frozenset({int}),
    "SymInt": frozenset({int}),
    "float": frozenset({float}),
    "complex": frozenset({complex}),
    "bool": frozenset({bool}),
    "str": frozenset({str}),
    "Scalar": frozenset({int, float, bool, complex}),
}
_NOTHING: frozenset[type] = frozenset()
_ABSENT: Any = object()  # "not passed", distinct from None


def _learn_tensor_type(value: Any) -> None:
    cls = type(value)
    if hasattr(cls, "_keyset"):  # only when every instance has it (slot, property, class attr)
        _TENSOR_TYPES.add(cls)
        _TENSOR_TYPES_NOT_NONE.add(cls)


def _unchanged_types(t: Type, in_list: bool = False) -> frozenset[type] | set[type]:
    """Types that make make_coercer(t) an identity (a subset is fine: misses just go slow)."""
    inner = t.unwrap_optional()
    if not isinstance(inner, BaseType):
        return _NOTHING  # lists are always rebuilt
    if inner.name == "Tensor":
        if in_list and not t.is_optional:
            return _TENSOR_TYPES_NOT_NONE
        return _TENSOR_TYPES  # includes NoneType, right for Tensor and Tensor?
    fast = _UNCHANGED_TYPES.get(inner.name, _NOTHING)
    return fast | {_NoneType} if t.is_optional else fast


# --- per-type coercion -------------------------------------------------------------------------

def _is_tensor(value: Any) -> bool:
    return hasattr(value, "_keyset")


def _int_rule(value: Any) -> Any:
    if type(value) is int:
        return value
    if isinstance(value, int):  # bool and other int subclasses
        return int(value)
    if not isinstance(value, float) and hasattr(type(value), "__index__") and not _is_tensor(value):
        return operator.index(value)
    raise _Mismatch


def _float_rule(value: Any) -> Any:
    if type(value) is float:
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if hasattr(type(value), "__float__") and not _is_tensor(value):
        return float(value)
    if hasattr(type(value), "__index__") and not _is_tensor(value):
        return float(operator.index(value))
    raise _Mismatch


def _complex_rule(value: Any) -> Any:
    if isinstance(value, (int, float, complex)):
        return complex(value)
    cls = type(value)
    if (hasattr(cls, "__complex__") or hasattr(cls, "__float__")) and not _is_tensor(value):
        return complex(value)
    raise _Mismatch


def _bool_rule(value: Any) -> Any:
    if type(value) is bool:
        return value
    if value is None:  # torch.ops turns None into False for a plain bool
        return False
    if isinstance(value, (int, float, complex)):
        return bool(value)
    cls = type(value)
    if (hasattr(cls, "__index__") or hasattr(cls, "__float__")) and not _is_tensor(value):
        return bool(value)
    raise _Mismatch


def _str_rule(value: Any) -> Any:
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str(value)
    raise _Mismatch


def _scalar_rule(value: Any) -> Any:
    cls = type(value)
    if cls is int or cls is float or cls is bool or cls is complex:
        return value  # the Python type is kept: 1, 1.0 and True are different Scalars
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, complex):
        return complex(value)
    raise _Mismatch


_RULES: dict[str, Callable[[Any], Any]] = {
    "int": _int_rule,
    "SymInt": _int_rule,
    "float": _float_rule,
    "complex": _complex_rule,
    "bool": _bool_rule,
    "str": _str_rule,
    "Scalar": _scalar_rule,
}


def _identity(value: Any) -> Any:
    return value


def _with_fallback(rule: Callable[[Any], Any], converter: Callable[[Any], Any] | None) -> Callable[[Any], Any]:
    if converter is None:
        return rule

    def coerce(value: Any) -> Any:
        try:
            return rule(value)
        except _Mismatch:
            return _run_converter(converter, value)

    return coerce


def _tensor_coercer(converter: Callable[[Any], Any] | None, allow_none: bool) -> Callable[[Any], Any]:
    def coerce(value: Any) -> Any:
        if hasattr(value, "_keyset"):
            _learn_tensor_type(value)
            return value
        if value is None and allow_none:  # torch.ops passes None for a Tensor through (undefined tensor)
            return None
        if converter is None:
            raise _Mismatch
        return _run_converter(converter, value)

    return coerce


def _base_coercer(t: BaseType, in_list: bool) -> Callable[[Any], Any]:
    converter = _converters.get(t.name)
    if converter is None and t.name == "SymInt":
        converter = _converters.get("int")  # a SymInt takes what an int takes
    if t.name == "Tensor":
        return _tensor_coercer(converter, allow_none=not in_list)
    rule = _RULES.get(t.name)
    if rule is not None:
        return _with_fallback(rule, converter)
    if converter is not None:
        return lambda value: _run_converter(converter, value)
    return _identity


def _is_sequence(value: Any) -> bool:
    # list and tuple, plus other sequences (range, torch.Size-like); never strings or tensors.
    if isinstance(value, (list, tuple)):
        return True
    if isinstance(value, (str, bytes, dict)) or _is_tensor(value):
        return False
    cls = type(value)
    return hasattr(cls, "__len__") and hasattr(cls, "__getitem__")


def _list_coercer(t: ListType, allow_none: bool) -> Callable[[Any], Any]:
    elem = t.elem
    coerce_elem = make_coercer(elem, in_list=True)
    elem_unchanged = _unchanged_types(elem, in_list=True)
    # torch.ops broadcasts a single value to a fixed-size list only for int[N] (an int,
    # bools included) and float[N] (a float, not an int); SymInt[N] and bool[N] do not.
    broadcast_kind: type | None = None
    if t.size is not None and elem == BaseType("int"):
        broadcast_kind = int
    elif t.size is not None and elem == BaseType("float"):
        broadcast_kind = float
    size = t.size or 0

    def coerce(value: Any) -> Any:
        cls = type(value)
        if cls is list or cls is tuple:
            items = list(value)  # always a fresh list, as torch.ops hands out
        elif value is None and allow_none:
            return None
        elif broadcast_kind is not None and isinstance(value, broadcast_kind):
            return [coerce_elem(value)] * size
        elif _is_sequence(value):
            items = list(value)
        else:
            raise _Mismatch
        for item in items:
            if type(item) not in elem_unchanged:
                break
        else:
            return items  # the common case: nothing to convert
        for i, item in enumerate(items):
            if type(item) not in elem_unchanged:
                items[i] = coerce_elem(item)
        return items

    return coerce


def _optional_coercer(t: OptionalType, in_list: bool) -> Callable[[Any], Any]:
    if isinstance(t.elem, ListType):
        return _list_coercer(t.elem, allow_none=True)
    coerce_inner = make_coercer(t.elem, in_list)

    def coerce(value: Any) -> Any:
        return None if value is None else coerce_inner(value)

    return coerce


def make_coercer(t: Type, in_list: bool = False) -> Callable[[Any], Any]:
    """A function value -> converted value for type `t`, raising _Mismatch when the
    value does not fit. Built with the converters registered right now."""
    if isinstance(t, BaseType):
        return _base_coercer(t, in_list)
    if isinstance(t, OptionalType):
        return _optional_coercer(t, in_list)
    if isinstance(t, ListType):
        return _list_coercer(t, allow_none=False)
    return _identity  # tuples, Dict(...), Future(...): not checked


def _kept_by_coercion(default: Any, unchanged: frozenset[type] | set[type]) -> bool:
    """Whether a parameter's (converted) default comes out of its coercer as it is; a list
    of numbers comes out as an equal fresh list, which is what a filled-in list must be."""
    if type(default) is list:
        return all(type(item) in (int, float, bool) for item in default)
    return type(default) in unchanged


def _cast_details(t: Type, value: Any) -> str:
    jit = t.jit_str()
    if t.unwrap_optional() == BaseType("Scalar"):
        return f"Cannot cast {value} to {jit}"
    return f"Unable to cast {value} to {jit}"


# --- the binder ----------------------------------------------------------------------------------

class Binder:
    """Precompiled binding for one schema; `bind` is the per-call entry point."""

    def __init__(self, schema: FunctionSchema) -> None:
        self.schema = schema
        arguments = schema.arguments
        self._names = tuple(a.name for a in arguments)
        self._index = {a.name: i for i, a in enumerate(arguments)}
        self._n_args = len(arguments)
        self._n_positional = sum(1 for a in arguments if not a.kwarg_only)
        self._has_default = tuple(a.has_default for a in arguments)
        # Positional parameters before this index have no default and are always kept.
        self._n_required = max((i + 1 for i, a in enumerate(arguments)
                                if not a.kwarg_only and not a.has_default), default=0)
        self._n_kwarg_only_required = sum(1 for a in arguments if a.kwarg_only and not a.has_default)
        self._kwarg_only_index = {a.name: i for i, a in enumerate(arguments) if a.kwarg_only}
        self._label = f"{schema.name}()"
        self._declaration = str(schema)
        self._version = -1
        self._compile()

    def _compile(self) -> None:
        self._version = _converters_version
        arguments = self.schema.arguments
        self._coercers = tuple(make_coercer(a.type) for a in arguments)
        self._unchanged = tuple(_unchanged_types(a.type) for a in arguments)
        defaults: list[Any] = []
        for arg, coerce in zip(arguments, self._coercers):
            value = arg.default_value
            if arg.has_default:
                try:
                    value = coerce(value)
                except _Mismatch:
                    pass  # e.g. a Device default spelled "cpu" with no Device converter
            defaults.append(value)
        self._defaults = tuple(defaults)
        # What `bind` puts in for a positional parameter left out before one named by keyword:
        # its default where the coercion loop takes it as it is (a list is copied, as it must
        # be), else _ABSENT (required, or a converted object: the general path fills those).
        self._gap_defaults = tuple(
            default if arg.has_default and _kept_by_coercion(default, unchanged) else _ABSENT
            for arg, default, unchanged in zip(arguments, self._defaults, self._unchanged))

    # -- public -----------------------------------------------------------------------------

    def bind(self, args: tuple, kwargs: dict | None) -> tuple[tuple, dict]:
        """Check and convert a call; return PyTorch's normalized (args, kwargs).

        The result's kwargs is always a new dict; its args is `args` itself when
        nothing needed converting or dropping."""
        # Fast path for valid calls. Anything unusual (an unknown or repeated keyword, too
        # many arguments, a missing one, a keyword-only value a coercer refuses) takes the
        # general path, so that errors come in torch.ops's order; most of that is decided
        # before any work.
        n = len(args)
        if n > self._n_positional or self._version != _converters_version:
            return self._bind_general(args, kwargs)
        values = None  # the positional values, once they differ from `args`
        named = 0  # keywords that name positional parameters (x.sum(0, keepdim=True))
        if kwargs:
            if n + len(kwargs) > self._n_args:
                return self._bind_general(args, kwargs)  # raises "expected at most"
            kwarg_only_index = self._kwarg_only_index
            end = n  # one past the last positional parameter named by keyword
            for name in kwargs:
                if name not in kwarg_only_index:
                    i = self._index.get(name, -1)
                    if i < n:  # an unknown name (-1), or one also given positionally
                        return self._bind_general(args, kwargs)
                    named += 1
                    if i >= end:
                        end = i + 1
            if named:
                # PyTorch keeps a positional argument given by keyword when it is required
                # or not its default, with every one before it, and otherwise drops
                # trailing defaults: the rule for positional calls, applied to the call
                # spelled out positionally up to the last parameter named. So spell it out.
                values = list(args)
                names = self._names
                for i in range(n, end):
                    value = kwargs.get(names[i], _ABSENT)
                    if value is _ABSENT:
                        value = self._gap_defaults[i]
                        if value is _ABSENT:  # required, or a default the loop below would alter
                            return self._bind_general(args, kwargs)
                    values.append(value)
                n = end
        if n < self._n_required:
            return self._bind_general(args, kwargs)  # raises "missing value"
        unchanged = self._unchanged
        i = 0
        for value in args if values is None else values:
            if type(value) not in unchanged[i]:
                if values is None:
                    values = list(args)
                try:
                    values[i] = self._coercers[i](value)
                except _Mismatch:
                    raise self._type_error(i, value) from None
            i += 1
        if n > self._n_required:  # drop trailing arguments equal to their default
            if values is None:
                values = list(args)
            defaults = self._defaults
            while n > self._n_required:
                value, default = values[n - 1], defaults[n - 1]
                # (bools and None are singletons: for them, not identical means not equal)
                if value is not default and (type(value) is not type(default) or type(value) is bool
                                             or not default_equals(value, default)):
                    break
                n -= 1
            del values[n:]
        bound_args = args if values is None else tuple(values)
        if not kwargs or named == len(kwargs):  # no keyword-only arguments given
            if self._n_kwarg_only_required:
                return self._bind_general(args, kwargs)  # raises "missing value"
            return bound_args, {}
        has_default = self._has_default
        defaults = self._defaults
        out_kwargs = {}
        required_seen = 0
        in_order = True
        last = -1
        for name, value in kwargs.items():
            i = kwarg_only_index.get(name, -1)
            if i < 0:  # a positional parameter, bound above
                continue
            if type(value) not in unchanged[i]:
                try:
                    value = self._coercers[i](value)
                except Exception:  # a refusal, or a converter's own error (Device "s"): keywords
                    # come in the caller's order, errors must come in schema order
                    return self._bind_general(args, kwargs)
            if has_default[i]:
                default = defaults[i]
                if value is default or (type(value) is type(default) and default_equals(value, default)):
                    continue
            else:
                required_seen += 1
            out_kwargs[name] = value
            if i < last:
                in_order = False
            last = i
        if required_seen != self._n_kwarg_only_required:
            return self._bind_general(args, kwargs)  # raises "missing value"
        if not in_order:  # kwargs come out in schema order, as PyTorch builds them
            out_kwargs = {name: out_kwargs[name] for name in self._names if name in out_kwargs}
        return bound_args, out_kwargs

    def bind_values(self, args: tuple, kwargs: dict | None) -> list[Any]:
        """Every argument's value in schema order, converted, defaults filled in."""
        if self._version != _converters_version:
            self._compile()
        return self._collect(args, kwargs or {})

    # -- the general path ---------------------------------------------------------------------

    def _coerce(self, index: int, value: Any) -> Any:
        try:
            result = self._coercers[index](value)
        except _Mismatch:
            raise self._type_error(index, value) from None
        return result

    def _collect(self, args: tuple, kwargs: dict) -> list[Any]:
        """Values for all parameters, raising PyTorch's error for a bad call. Checks run
        in torch.ops's order: count, positional conversions, keywords and defaults in
        schema order, then leftover keywords."""
        n = len(args)
        n_args = self._n_args
        if n + len(kwargs) > n_args:
            raise BindError(
                f"{self._label} expected at most {n_args} argument(s) but received "
                f"{n + len(kwargs)} argument(s). Declaration: {self._declaration}")
        unchanged = self._unchanged
        values = list(args)
        for i, value in enumerate(args):
            if i >= self._n_positional:
                raise BindError(
                    f"{self._label} takes {self._n_positional} positional argument(s) but "
                    f"{n} was/were given.  Declaration: {self._declaration}")
            if type(value) not in unchanged[i]:
                values[i] = self._coerce(i, value)
        consumed = 0
        names = self._names
        for i in range(n, n_args):
            value = kwargs.get(names[i], _ABSENT)
            if value is not _ABSENT:
                consumed += 1
                values.append(value if type(value) in unchanged[i] else self._coerce(i, value))
            elif self._has_default[i]:
                default = self._defaults[i]
                values.append(default.copy() if type(default) is list else default)
            else:
                raise self._missing_error(i)
        if consumed != len(kwargs):
            raise self._kwargs_error(kwargs, n)
        return values

    def _bind_general(self, args: tuple, kwargs: dict | None) -> tuple[tuple, dict]:
        if self._version != _converters_version:
            self._compile()
        if kwargs is None:
            kwargs = {}
        n = len(args)
        n_positional = self._n_positional
        if n > n_positional or n + len(kwargs) > self._n_args:
            self._collect(args, kwargs)  # raises the matching error
        unchanged = self._unchanged
        values = list(args)
        i = 0
        for value in args:
            if type(value) not in unchanged[i]:
                values[i] = self._coerce(i, value)
            i += 1
        names = self._names
        has_default = self._has_default
        defaults = self._defaults
        for i in range(n, n_positional):
            value = kwargs.get(names[i], _ABSENT)
            if value is _ABSENT:
                if not has_default[i]:
                    raise self._missing_error(i)
                default = defaults[i]
                value = default.copy() if type(default) is list else default
            elif type(value) not in unchanged[i]:
                value = self._coerce(i, value)
            values.append(value)
        # Trailing values equal to their default go: PyTorch's normalization, whichever
        # of them came by keyword (see `bind`).
        end = n_positional
        while end > self._n_required and default_equals(values[end - 1], defaults[end - 1]):
            end -= 1
        del values[end:]
        out_kwargs = {}
        for i in range(n_positional, self._n_args):
            name = names[i]
            value = kwargs.get(name, _ABSENT)
            if value is _ABSENT:
                if not has_default[i]:
                    raise self._missing_error(i)
                continue
            if type(value) not in unchanged[i]:
                value = self._coerce(i, value)
            if not has_default[i] or not default_equals(value, defaults[i]):
                out_kwargs[name] = value
        for name in kwargs:  # the keywords left over, reported once every value is checked
            if self._index.get(name, -1) < n:
                raise self._kwargs_error(kwargs, n)
        return tuple(values), out_kwargs

    # -- errors -----------------------------------------------------------------------------------

    def _missing_error(self, index: int) -> BindError:
        return BindError(
            f"{self._label} is missing value for argument '{self._names[index]}'. "
            f"Declaration: {self._declaration}")

    def _type_error(self, index: int, value: Any) -> BindError:
        arg = self.schema.arguments[index]
        jit = arg.type.jit_str()
        return BindError(
            f"{self._label} Expected a value of type '{jit}' for argument '{arg.name}' but "
            f"instead found type '{type(value).__name__}'.\n"
            f"Position: {index}\n"
            f"Value: {value!r}\n"
            f"Declaration: {self._declaration}\n"
            f"Cast error details: {_cast_details(arg.type, value)}")

    def _kwargs_error(self, kwargs: dict, n_positional_given: int) -> BindError:
        # Unknown names are reported before names that repeat a positional argument.
        for name in kwargs:
            if name not in self._index:
                return BindError(
                    f"Unknown keyword argument '{name}' for operator '{self.schema.name}'. "
                    f"Schema: {self._declaration}")
        for name in kwargs:
            if self._index[name] < n_positional_given:
                return BindError(
                    f"Argument '{name}' specified both as positional and keyword argument. "
                    f"Schema: {self._declaration}")
        raise AssertionError("no keyword error to report")

    def __repr__(self) -> str:
        return f"Binder({self._declaration})"


# --- convenience ------------------------------------------------------------------------------------

_binders: dict[int, tuple[FunctionSchema, Binder]] = {}


def binder_for(schema: FunctionSchema) -> Binder:
    """The cached Binder of a schema object."""
    hit = _binders.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    binder = Binder(schema)
    _binders[id(schema)] = (schema, binder)
    return binder


def bind(schema: FunctionSchema, args: tuple, kwargs: dict | None) -> tuple[tuple, dict]:
    """Normalize a call against `schema` (see Binder.bind)."""
    return binder_for(schema).bind(args, kwargs)
