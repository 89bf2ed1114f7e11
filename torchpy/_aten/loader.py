"""Strict loading of native_functions/*.yaml: every op once, every field known.

An entry:

    - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
      variants: function, method        # optional; default: function
      tags: [core, pointwise]           # optional
      dispatch:                         # optional: dispatch key(s) -> kernel name
        CPU, Meta: add
      python_module: linalg             # optional: torchpy.linalg.<name> instead of torchpy.<name>
      python_name: vector_norm          # optional: the public name, if not the op's base name

Unknown fields, unknown variants and unparsable dispatch keys are errors that
name the file and line.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import yaml

from .._dispatch.keys import parse_key
from .._dispatch.schema import FunctionSchema, parse_schema

_FIELDS = {"func", "variants", "tags", "dispatch", "python_module", "python_name", "__line__"}
_VARIANTS = {"function", "method"}
DIRECTORY = os.path.join(os.path.dirname(__file__), "native_functions")


@dataclasses.dataclass(frozen=True)
class NativeFunction:
    schema: FunctionSchema
    variants: frozenset[str]
    tags: tuple[str, ...]
    dispatch: dict[str, str]          # dispatch key name -> kernel name
    python_module: str | None
    python_name: str | None
    location: str                     # "file.yaml:line"

    @property
    def qualified_name(self) -> str:
        schema = self.schema
        return f"{schema.name}.{schema.overload_name}" if schema.overload_name else schema.name

    @property
    def public_name(self) -> str:
        return self.python_name or self.schema.name.split("::")[1]


class _LineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml's parser where PyYAML has it
    """Records each mapping's line so errors can point at it."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        mapping = super().construct_mapping(node, deep=deep)
        mapping["__line__"] = node.start_mark.line + 1
        return mapping


class NativeFunctionsError(ValueError):
    pass


def _split_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [str(v) for v in value]


def _parse_entry(raw: Any, filename: str) -> NativeFunction:
    if not isinstance(raw, dict):
        raise NativeFunctionsError(f"{filename}: every entry must be a mapping, got {raw!r}")
    where = f"{os.path.basename(filename)}:{raw.get('__line__', '?')}"
    unknown = set(raw) - _FIELDS
    if unknown:
        raise NativeFunctionsError(f"{where}: unknown field(s) {sorted(unknown)} in entry {raw.get('func')!r}")
    if "func" not in raw:
        raise NativeFunctionsError(f"{where}: entry without 'func'")
    try:
        schema = parse_schema("aten::" + raw["func"])
    except RuntimeError as error:
        raise NativeFunctionsError(f"{where}: bad schema: {error}") from None
    variants = frozenset(_split_list(raw.get("variants", "function")))
    if variants - _VARIANTS:
        raise NativeFunctionsError(f"{where}: unknown variant(s) {sorted(variants - _VARIANTS)}")
    dispatch: dict[str, str] = {}
    for keys, kernel in (raw.get("dispatch") or {}).items():
        if keys == "__line__":
            continue
        for key in _split_list(keys):
            try:
                parse_key(key)
            except ValueError:
                raise NativeFunctionsError(f"{where}: unknown dispatch key {key!r}") from None
            dispatch[key] = str(kernel)
    return NativeFunction(
        schema=schema,
        variants=variants,
        tags=tuple(_split_list(raw.get("tags", []))),
        dispatch=dispatch,
        python_module=raw.get("python_module"),
        python_name=raw.get("python_name"),
        location=where,
    )


def load_file(path: str) -> list[NativeFunction]:
    with open(path) as f:
        raw = yaml.load(f, Loader=_LineLoader) or []
    if not isinstance(raw, list):
        raise NativeFunctionsError(f"{path}: expected a list of entries")
    return [_parse_entry(entry, path) for entry in raw]


def load_all(directory: str = DIRECTORY) -> list[NativeFunction]:
    """Every entry of every YAML file in `directory`; an op defined twice is an error."""
    entries: list[NativeFunction] = []
    seen: dict[str, str] = {}
    for filename in sorted(os.listdir(directory)):
        if not filename.endswith(".yaml"):
            continue
        for entry in load_file(os.path.join(directory, filename)):
            name = entry.qualified_name
            if name in seen:
                raise NativeFunctionsError(f"{entry.location}: {name} is already defined at {seen[name]}")
            seen[name] = entry.location
            entries.append(entry)
    return entries
