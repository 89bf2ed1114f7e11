"""Every check_grad case of the formula tests, as data: (id, fn, inputs).

The formula tests write their cases inline (parametrize lists, loops, several calls per
test). Rather than keep a second copy of those inputs, each test is run once with its
module's `check_grad` swapped for a recorder, which keeps the arguments of every call.
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
from typing import Any, Callable

MODULES = (
    "tests.autograd.test_formulas",
    "tests.autograd.test_formulas_convolution",
    "tests.autograd.test_formulas_extra",
    "tests.autograd.test_formulas_indexing",
    "tests.autograd.test_formulas_linalg",
    "tests.autograd.test_formulas_optim",
    "tests.autograd.test_formulas_pooling",
    "tests.autograd.test_formulas_reduction",
    "tests.autograd.test_formulas_view",
)


@dataclasses.dataclass(frozen=True)
class Case:
    id: str
    fn: Callable
    inputs: tuple


def _parameter_sets(test: Callable) -> list[tuple[str, dict[str, Any]]]:
    """(id, kwargs) for every combination of the test's parametrize marks."""
    axes = []
    for mark in getattr(test, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names = [n.strip() for n in mark.args[0].split(",")] if isinstance(mark.args[0], str) else list(mark.args[0])
        ids = mark.kwargs.get("ids")
        axis = []
        for i, values in enumerate(mark.args[1]):
            values = getattr(values, "values", values)  # pytest.param
            if len(names) == 1:
                values = (values,)
            label = ids[i] if ids is not None else str(i)
            axis.append((label, dict(zip(names, values))))
        axes.append(axis)
    combos = []
    for picks in itertools.product(*axes):
        kwargs: dict[str, Any] = {}
        for _, k in picks:
            kwargs.update(k)
        combos.append(("-".join(label for label, _ in picks), kwargs))
    return combos


def collect() -> list[Case]:
    cases = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        recorded: list[tuple[Callable, tuple]] = []
        original = module.check_grad
        module.check_grad = lambda fn, *inputs, **_: recorded.append((fn, inputs))
        try:
            for name, test in vars(module).items():
                if not name.startswith("test_") or not callable(test):
                    continue
                for label, kwargs in _parameter_sets(test):
                    recorded.clear()
                    try:
                        test(**kwargs)
                    except BaseException:  # a test's own assertions are its file's business
                        pass
                    short = module_name.rsplit(".", 1)[1].removeprefix("test_formulas").lstrip("_") or "pointwise"
                    for n, (fn, inputs) in enumerate(recorded):
                        cases.append(Case(f"{short}::{name}[{label}]#{n}", fn, inputs))
        finally:
            module.check_grad = original
    return cases
