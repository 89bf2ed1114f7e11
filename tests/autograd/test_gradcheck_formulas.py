"""Every registered backward formula passes gradcheck (float64), and a representative set passes
gradgradcheck. Each case also runs through torch's gradcheck (so the inputs are a fair test), and
must record the formula under test in its graph. A formula without a case fails the coverage test."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

import torchpy
from tests.autograd.gradcheck_cases import CASES, GRADGRAD, ZERO_BY_DEFINITION
from tests.autograd.test_formulas import Const
from torch.autograd.gradcheck import GradcheckError as TorchGradcheckError
from torchpy.autograd.derivatives import FORMULAS
from torchpy.autograd.gradcheck import GradcheckError

DIFFERENTIABLE = sorted(op for op, f in FORMULAS.items() if f.backward is not None)


def _inputs(lib: Any, values: tuple, strided: bool = False) -> tuple:
    """Leaves from the case's values; with `strided`, inputs of 2+ dims are transposed views."""
    made = []
    for v in values:
        if isinstance(v, Const):
            made.append(lib.tensor(np.asarray(v.values), dtype=getattr(lib, v.dtype) if v.dtype else None))
        elif strided and np.ndim(v) >= 2:
            dims = tuple(reversed(range(np.ndim(v))))
            base = lib.tensor(np.ascontiguousarray(np.transpose(v)), dtype=lib.float64)
            made.append(base.permute(*dims).detach().requires_grad_(True))
        else:
            made.append(lib.tensor(np.asarray(v), dtype=lib.float64, requires_grad=True))
    return tuple(made)


def _bound(lib: Any, fn: Callable) -> Callable:
    return lambda *xs: fn(lib, *xs)


def _formulas_in_graph(outputs: Any) -> set:
    """The formulas of every node reachable from the outputs' grad_fns."""
    outs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
    stack = [o.grad_fn for o in outs if isinstance(o, torchpy.Tensor) and o.grad_fn is not None]
    seen, found = set(), set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        formula = getattr(node, "_formula", None)
        if formula is not None:
            found.add(formula.op)
        stack.extend(n for n, _ in node.next_functions)
    return found


ALL = [(op, i, fn, inputs) for op, cases in sorted(CASES.items()) for i, (fn, inputs) in enumerate(cases)]


def test_every_formula_has_a_gradcheck_case():
    missing = [op for op in DIFFERENTIABLE if op not in CASES]
    assert not missing, f"formulas without a gradcheck case in tests/autograd/gradcheck_cases.py: {missing}"
    stale = [op for op in CASES if op not in DIFFERENTIABLE]
    assert not stale, f"gradcheck cases for ops without a differentiable formula: {stale}"
    unknown = [op for op in GRADGRAD if "aten::" + op not in CASES]
    assert not unknown, f"GRADGRAD names ops without cases: {unknown}"


@pytest.mark.parametrize("op, index, fn, inputs", ALL, ids=[f"{op[6:]}-{i}" for op, i, _, _ in ALL])
def test_gradcheck(op, index, fn, inputs):
    args = _inputs(torchpy, inputs)
    assert op in _formulas_in_graph(fn(torchpy, *args)), f"{op}'s formula is not in the graph of this case"
    if op in ZERO_BY_DEFINITION:
        with pytest.raises(TorchGradcheckError) as expected:
            torch.autograd.gradcheck(_bound(torch, fn), _inputs(torch, inputs))
        with pytest.raises(GradcheckError) as actual:
            torchpy.autograd.gradcheck(_bound(torchpy, fn), args)
        assert str(actual.value) == str(expected.value)
        return
    assert torch.autograd.gradcheck(_bound(torch, fn), _inputs(torch, inputs))  # the case is fair
    assert torchpy.autograd.gradcheck(_bound(torchpy, fn), args)


# Non-contiguous leaves (fast mode, to keep it cheap); a view needs contiguous input, as in torch.
STRIDED = [(op, i, fn, inputs) for op, i, fn, inputs in ALL
           if any(not isinstance(v, Const) and np.ndim(v) >= 2 for v in inputs)
           and op not in ZERO_BY_DEFINITION and op not in ("aten::view", "aten::_unsafe_view")]


@pytest.mark.parametrize("op, index, fn, inputs", STRIDED, ids=[f"{op[6:]}-{i}" for op, i, _, _ in STRIDED])
def test_gradcheck_strided_inputs(op, index, fn, inputs):
    assert torch.autograd.gradcheck(_bound(torch, fn), _inputs(torch, inputs, strided=True), fast_mode=True)
    args = _inputs(torchpy, inputs, strided=True)
    assert not args[[i for i, v in enumerate(inputs) if np.ndim(v) >= 2][0]].is_contiguous()
    assert torchpy.autograd.gradcheck(_bound(torchpy, fn), args, fast_mode=True)


GG = [(op, CASES["aten::" + op][0]) for op in GRADGRAD]


@pytest.mark.parametrize("op, case", GG, ids=[op for op, _ in GG])
def test_gradgradcheck(op, case):
    fn, inputs = case
    assert torch.autograd.gradgradcheck(_bound(torch, fn), _inputs(torch, inputs))
    assert torchpy.autograd.gradgradcheck(_bound(torchpy, fn), _inputs(torchpy, inputs))
