"""The per-op derivative tables, built from the YAML entries' `backward:` / `grad_fn:` / `forward:`.

The formula modules of this package declare functions by name (@formula, @jvp_rule); an entry
of _aten/native_functions/*.yaml names the ones its op uses. `resolve` checks every name and
every saved value against the op's schema, so a mistake fails at import with the YAML file:line.
"""

from __future__ import annotations

from ..._aten.loader import FORWARD_KINDS, NativeFunction, NativeFunctionsError
from . import BACKWARD_FUNCTIONS, FORMULAS, Derivative, Formula, make_derivative
from .forward import FORWARD, JVP_FUNCTIONS, ForwardDerivative


def _check_names(entry: NativeFunction, declared: Formula) -> None:
    """The formula's inputs are tensor arguments of the op; what it saves is an argument, an
    argument's geometry ("self.shape") or a result the op has."""
    schema = entry.schema
    arguments = {a.name: a for a in schema.arguments}
    where = f"{entry.location}: {entry.qualified_name}: backward formula {entry.backward!r}"
    for name in declared.inputs:
        if name not in arguments or not str(arguments[name].type).startswith("Tensor"):
            raise NativeFunctionsError(f"{where} differentiates {name!r}, which is not a Tensor argument of the op")
    results = {"result"} | {f"result{i}" for i in range(len(schema.returns))}
    for name in declared.save:
        if name.split(".")[0] not in arguments and name not in results:
            raise NativeFunctionsError(f"{where} saves {name!r}, which is neither an argument nor a result")


def resolve(entries: list[NativeFunction]) -> tuple[dict[str, Derivative], dict[str, ForwardDerivative]]:
    """op name -> Derivative and op name -> ForwardDerivative for `entries`; a name that no
    formula module declares is an error naming the entry."""
    formulas: dict[str, Derivative] = {}
    forward: dict[str, ForwardDerivative] = {}
    for entry in entries:
        op = entry.qualified_name
        if entry.backward is None or entry.backward == "no_formula":
            continue  # autograd records a node that raises "not implemented", as for an unknown op
        if entry.backward == "not_differentiable":
            formulas[op] = Derivative(op, "", (), (), None)
            continue
        declared = BACKWARD_FUNCTIONS.get(entry.backward)
        if declared is None:
            raise NativeFunctionsError(
                f"{entry.location}: {op} names backward formula {entry.backward!r}, which no module of "
                "torchpy/autograd/derivatives declares (@formula)")
        _check_names(entry, declared)
        formulas[op] = make_derivative(op, entry.node_name, declared)
        if entry.forward in FORWARD_KINDS:
            forward[op] = ForwardDerivative(op, entry.forward)
            continue
        jvp = JVP_FUNCTIONS.get(entry.forward)
        if jvp is None:
            raise NativeFunctionsError(
                f"{entry.location}: {op} names forward rule {entry.forward!r}, which is neither a rule kind "
                f"({', '.join(sorted(FORWARD_KINDS))}) nor a jvp declared in autograd/derivatives/forward.py")
        forward[op] = ForwardDerivative(op, "jvp", jvp)
    return formulas, forward


def unused(entries: list[NativeFunction]) -> list[str]:
    """Declared formulas and jvps that no entry names (dead code, or a name misspelt in the YAML)."""
    named = {e.backward for e in entries} | {e.forward for e in entries}
    return sorted((set(BACKWARD_FUNCTIONS) | set(JVP_FUNCTIONS)) - named)


def install(entries: list[NativeFunction]) -> None:
    """Fill FORMULAS and FORWARD from the whole op table."""
    formulas, forward = resolve(entries)
    left = unused(entries)
    if left:
        raise NativeFunctionsError(f"formulas declared in autograd/derivatives but named by no YAML entry: {left}")
    for op, found in formulas.items():
        FORMULAS[op] = found
    FORWARD.update(forward)
