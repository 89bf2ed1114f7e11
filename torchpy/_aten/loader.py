"""Strict loading of native_functions/*.yaml: every op once, every field known.

An entry:

    - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
      variants: function, method        # optional; default: function
      tags: [core, pointwise]           # optional
      dispatch:                         # optional: dispatch key(s) -> kernel name
        CPU, Meta: add
      python_module: linalg             # optional: torchpy.linalg.<name> instead of torchpy.<name>
      python_name: vector_norm          # optional: the public name, if not the op's base name
      backward: add_backward            # autograd: the formula's name in autograd/derivatives/,
                                        # or not_differentiable / no_formula (see BACKWARD_MARKERS)
      grad_fn: AddBackward0             # optional: the node's name, if not <CamelCase base>Backward0
      forward: auto_linear              # forward mode: a rule kind (FORWARD_KINDS) or a jvp's name

An out= or in-place entry (add.out, add_.Tensor) names kernels `<functional>_out` / `<functional>_`;
where no module registers one, it is made from the functional kernel by a policy (out_policy.py):

      policy: exact                     # optional: out_policy.OUT_POLICIES / INPLACE_POLICIES; default castable
      out_error: "index_select(): self and result must have the same scalar type"
                                        # policy like_self only: the error, with {self} / {out} dtypes

The dispatch map also names the op's meta rule (the `Meta` kernel) and, for a composite
op, its decomposition (the `CompositeImplicitAutograd` / `CompositeExplicitAutograd` kernel).

Unknown fields, unknown variants, unparsable dispatch keys, and a differentiable op that
says nothing about its backward are errors that name the file and line. Whether the
formulas named exist is checked where they live (autograd/derivatives/table.py).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import yaml

from .._dispatch.keys import parse_key
from .._dispatch.schema import FunctionSchema, parse_schema
from .out_policy import INPLACE_POLICIES, OUT_POLICIES

_FIELDS = {"func", "variants", "tags", "dispatch", "python_module", "python_name", "backward", "grad_fn", "forward",
           "policy", "out_error", "__line__"}
_VARIANTS = {"function", "method"}
# `backward:` values that name no formula. not_differentiable: autograd records nothing and the
# outputs never require grad. no_formula: integer / bool results carry no gradient, and a float
# result that requires grad gets torch's "derivative for ... is not implemented".
BACKWARD_MARKERS = frozenset({"not_differentiable", "no_formula"})
# `forward:` values that name a rule kind rather than a jvp function (autograd/derivatives/forward.py).
FORWARD_KINDS = frozenset({"auto_linear", "auto_element_wise", "reduction", "double_vjp"})
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
    backward: str | None = None       # formula name or a BACKWARD_MARKERS value
    grad_fn: str | None = None        # the backward node's name, where the default is not it
    forward: str | None = None        # a FORWARD_KINDS value or a jvp function's name
    policy: str | None = None         # out= / in-place: how a kernel made from the functional one writes
    out_error: str | None = None      # policy like_self: its error message

    @property
    def qualified_name(self) -> str:
        schema = self.schema
        return f"{schema.name}.{schema.overload_name}" if schema.overload_name else schema.name

    @property
    def public_name(self) -> str:
        return self.python_name or self.schema.name.split("::")[1]

    @property
    def has_formula(self) -> bool:
        """Whether `backward` names a formula function (not a marker)."""
        return self.backward is not None and self.backward not in BACKWARD_MARKERS

    @property
    def node_name(self) -> str:
        """The backward node's name: `grad_fn`, else torch's usual one (`_adaptive_avg_pool2d`
        -> AdaptiveAvgPool2DBackward0: each word title-cased, a letter after a digit too)."""
        if self.grad_fn:
            return self.grad_fn
        base = self.schema.name.split("::")[1]
        return "".join(word.title() for word in base.split("_")) + "Backward0"


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
    backward, grad_fn, forward = (_identifier(raw, field, where) for field in ("backward", "grad_fn", "forward"))
    formula = backward is not None and backward not in BACKWARD_MARKERS
    if grad_fn is not None and not formula:
        raise NativeFunctionsError(f"{where}: grad_fn without a backward formula in {raw['func']!r}")
    if (forward is not None) != formula:
        raise NativeFunctionsError(
            f"{where}: {raw['func']!r}: " + ("a forward rule needs a backward formula" if forward is not None
                                              else "an op with a backward formula needs a forward rule"))
    policy, out_error = _policy(raw, schema, where)
    return NativeFunction(
        schema=schema,
        variants=variants,
        tags=tuple(_split_list(raw.get("tags", []))),
        dispatch=dispatch,
        python_module=raw.get("python_module"),
        python_name=raw.get("python_name"),
        location=where,
        backward=backward,
        grad_fn=grad_fn,
        forward=forward,
        policy=policy,
        out_error=out_error,
    )


def _policy(raw: dict, schema: FunctionSchema, where: str) -> tuple[str | None, str | None]:
    """The entry's `policy:` and `out_error:`, checked: only on out= / in-place overloads, a known
    name for the kind, out_error exactly with like_self."""
    policy, out_error = raw.get("policy"), raw.get("out_error")
    kind = schema.kind.name
    if policy is None and out_error is None:
        return None, None
    known = OUT_POLICIES if kind == "out" else INPLACE_POLICIES if kind == "inplace" else None
    if known is None:
        raise NativeFunctionsError(f"{where}: {raw['func']!r} is not an out= or in-place overload: policy / "
                                   "out_error apply to those only")
    if policy not in known:
        raise NativeFunctionsError(f"{where}: unknown {kind} policy {policy!r} in {raw['func']!r} "
                                   f"(known: {', '.join(sorted(known))})")
    if (policy == "like_self") != isinstance(out_error, str):
        raise NativeFunctionsError(f"{where}: {raw['func']!r}: policy like_self needs an out_error: message, "
                                   "and out_error needs policy like_self")
    return policy, out_error


def _identifier(raw: dict, field: str, where: str) -> str | None:
    value = raw.get(field)
    if value is None:
        return None
    # a node name may be namespaced, as torch's torch::autograd::CopyBackwards is
    parts = value.split("::") if isinstance(value, str) and field == "grad_fn" else [value]
    if not all(isinstance(part, str) and part.isidentifier() for part in parts):
        raise NativeFunctionsError(f"{where}: {field} must be a Python name, got {value!r} in {raw['func']!r}")
    return value


def needs_backward(entry: NativeFunction) -> bool:
    """Whether autograd can meet the op with an input that requires grad and must know what to do:
    not an out= op (autograd refuses those), not decomposed under autograd (CompositeImplicit or
    no kernel), with a Tensor argument to differentiate and a Tensor result."""
    schema = entry.schema
    if schema.kind.name == "out" or set(entry.dispatch) <= {"CompositeImplicitAutograd"}:
        return False
    return (any(str(a.type).startswith("Tensor") for a in schema.arguments)
            and any(str(r.type).startswith("Tensor") for r in schema.returns))


def check_backward_rules(entries: list[NativeFunction]) -> None:
    """Every op that needs one states its backward: an in-place op without its own statement
    uses its functional op's (mul_.Tensor -> mul.Tensor), as the autograd kernel does."""
    by_name = {entry.qualified_name: entry for entry in entries}
    for entry in entries:
        if entry.backward is not None:
            if not needs_backward(entry):
                raise NativeFunctionsError(
                    f"{entry.location}: {entry.qualified_name} names a backward but autograd never uses it "
                    "(an out= op, a composite op, or one without Tensor arguments and results)")
            continue
        if not needs_backward(entry):
            continue
        if entry.schema.kind.name == "inplace":
            schema = entry.schema
            functional = by_name.get(schema.name[:-1] + (f".{schema.overload_name}" if schema.overload_name else ""))
            if functional is not None and functional.backward is not None:
                continue
        raise NativeFunctionsError(
            f"{entry.location}: {entry.qualified_name} is differentiable but names no backward: add "
            f"'backward: <formula>' (autograd/derivatives/), or not_differentiable / no_formula")


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
    check_backward_rules(entries)
    return entries
