"""The backward pass dispatches the aten ops torch's does.

Every case of the formula tests (formula_cases.py) runs forward outside any mode in
torch and torchpy; then only `autograd.grad(outputs, inputs, grad_outputs)` runs under a
recording TorchDispatchMode (tests/conformance/dispatch_log.py), and the two logs
(op, args, kwargs) must be equal, or differ exactly as KNOWN_DIFFERENCES says.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

import torchpy
from tests.autograd import formula_cases
from tests.autograd.test_formulas import _convert, _grad_outputs, _leaves
from tests.conformance.dispatch_log import dispatch_log

CASES = formula_cases.collect()

# case id -> (ops only torch's log has, ops only torchpy's log has), as multisets of op names,
# with why the difference is kept. Anything else that differs fails the test.
KNOWN_DIFFERENCES: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
}


def backward_log(lib: Any, case: formula_cases.Case) -> list:
    args = [_convert(x, lib) for x in case.inputs]
    wrt = _leaves(args)
    out = case.fn(lib, *args)
    outs = [o for o in (out if isinstance(out, (tuple, list)) else [out]) if o.requires_grad]
    grad_outputs = _grad_outputs(outs, lib)
    return dispatch_log(lib, lambda lib: lib.autograd.grad(outs, wrt, grad_outputs, allow_unused=True))


def _only_in(a: list, b: list) -> tuple[str, ...]:
    rest = [op for op, _, _ in b]
    missing = []
    for op, _, _ in a:
        if op in rest:
            rest.remove(op)
        else:
            missing.append(op)
    return tuple(sorted(missing))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_backward_dispatch(case):
    expected = backward_log(torch, case)
    actual = backward_log(torchpy, case)
    known = KNOWN_DIFFERENCES.get(case.id)
    if known is None:
        assert actual == expected, f"\ntorchpy: {actual}\ntorch:   {expected}"
    else:
        assert (_only_in(expected, actual), _only_in(actual, expected)) == known[:2], \
            f"\ntorchpy: {actual}\ntorch:   {expected}"


def test_known_differences_name_real_cases():
    ids = {c.id for c in CASES}
    assert set(KNOWN_DIFFERENCES) <= ids


def test_cases_cover_every_formula():
    """Each registered derivative's node appears in some case's forward graph."""
    from torchpy.autograd.derivatives import FORMULAS

    seen = set()
    for case in CASES:
        args = [_convert(x, torchpy) for x in case.inputs]
        try:
            out = case.fn(torchpy, *args)
        except Exception:
            continue
        stack = [o.grad_fn for o in (out if isinstance(out, (tuple, list)) else [out]) if o.grad_fn is not None]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.extend(f for f, _ in node.next_functions if f is not None)
    raise NotImplementedError
