"""The backward pass dispatches the aten ops torch's does.

Every case of the formula tests (formula_cases.py), plus EXTRA_CASES for the formulas those
do not reach, runs forward outside any mode in torch and torchpy; then only
`autograd.grad(outputs, inputs, grad_outputs)` runs under a recording TorchDispatchMode
(tests/conformance/dispatch_log.py). The two logs (op, args, kwargs) must be equal, or
differ exactly as KNOWN_DIFFERENCES says.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import pytest
import torch

import torchpy
from tests.autograd import formula_cases
from tests.autograd.test_formulas import _convert, _grad_outputs, _leaves, check_grad, rand
from tests.conformance.dispatch_log import dispatch_log

A, B = rand(3, 4), rand(3, 4, seed=1)
SOFTMAX_OUT = np.exp(A) / np.exp(A).sum(1, keepdims=True)

# Formulas no formula test reaches: flip, repeat, the in-place comparisons not tested there, and the
# backward ops' own derivatives (double backward), called directly.
EXTRA_CASES = [formula_cases.Case(f"extra_cases::{name}", fn, inputs) for name, fn, inputs in [
    ("flip", lambda t, x: x.flip([0, -1]), (A,)),
    ("repeat", lambda t, x: x.repeat(2, 1, 2), (A,)),
    *[(f"{op}_.Scalar", lambda t, x, op=op: getattr(x * 1, op + "_")(0.5), (A,)) for op in ("ge", "gt", "le", "lt", "ne")],
    *[(f"{op}_.Tensor", lambda t, x, y, op=op: getattr(x * 1, op + "_")(y), (A, B)) for op in ("eq", "gt", "le", "ne")],
    ("tanh_backward", lambda t, g, y: t.ops.aten.tanh_backward(g, y), (A, B / 3)),
    ("sigmoid_backward", lambda t, g, y: t.ops.aten.sigmoid_backward(g, y), (A, B / 3)),
    ("threshold_backward", lambda t, g, x: t.ops.aten.threshold_backward(g, x, 0.5), (A, B)),
    ("_softmax_backward_data", lambda t, g, y: t.ops.aten._softmax_backward_data(g, y, 1, t.float64),
     (A, SOFTMAX_OUT)),
    ("_log_softmax_backward_data", lambda t, g, y: t.ops.aten._log_softmax_backward_data(g, y, 0, t.float64),
     (A, np.log(SOFTMAX_OUT))),
    ("select_backward", lambda t, g: t.ops.aten.select_backward(g, [3, 2, 4], 1, -1), (A,)),
    ("slice_backward", lambda t, g: t.ops.aten.slice_backward(g, [3, 8], 1, 1, 9, 2), (A,)),
    ("diagonal_backward", lambda t, g: t.ops.aten.diagonal_backward(g, [5, 3, 4], 1, 2, 0), (A,)),
    ("unfold_backward", lambda t, g: t.ops.aten.unfold_backward(g.reshape(3, 2, 2), [3, 4], 1, 2, 2), (A,)),
    ("masked_scatter_backward",
     lambda t, g: t.ops.aten.masked_scatter_backward(g, t.tensor(np.asarray(B) > 0), [4, 5]), (A,)),
]]

CASES = formula_cases.collect() + EXTRA_CASES

# Each entry: (case ids, ops only torch's backward calls, ops only torchpy's, why), the ops as
# multisets ("view*2": twice). Any other difference fails the test.
KNOWN_DIFFERENCES = [
    (['pointwise::test_unary[sgn]#0', 'pointwise::test_unary[sgn]#1'],
     '_efficientzerotensor detach',
     'zeros_like',
     "sgn's gradient of a real input is torch's _efficientzerotensor (ZeroTensor), which torchpy lacks; "
     "torchpy returns zeros_like"),
    (['pointwise::test_unary_inplace[sgn]#0'],
     '_efficientzerotensor*2 detach expand prims.mul to.dtype to.dtype_layout*2',
     'mul.Tensor zeros_like',
     'as above, and torch multiplies its ZeroTensor through prims on meta'),
    (['indexing::test_scatter_reduce[0-2]#0', 'indexing::test_scatter_reduce[1-2]#0', 'indexing::test_scatter_reduce_prod_with_zeros[0]#0', 'indexing::test_scatter_reduce_prod_with_zeros[1]#0', 'indexing::test_second_order[5]#0'],
     'bitwise_and.Tensor div.Tensor eq.Scalar masked_fill.Scalar*2 mul.Tensor',
     'gather ones_like scalar_tensor where.self',
     "scatter_reduce 'prod': torchpy's zero-safe product of the others, not torch's masked_fill/where chain"),
    (['reduction::test_reduction[26]#0', 'reduction::test_reduction[26]#1', 'reduction::test_inplace_scans[]#1', 'reduction::test_second_order[5]#0'],
     'bitwise_and_.Tensor bitwise_not*3 cumprod cumsum eq.Scalar*3 gather logical_and_ masked_fill.Scalar*3 masked_fill_.Scalar max.dim mul.Tensor*2 ne.Scalar relu_ scatter_.value sub.Scalar sum.dim_IntList where.self*2 zeros zeros_like',
     'any',
     'cumprod: torch takes its subclass-safe path under a mode (cumprod of masked copies, max.dim, scatter_); torchpy divides when no input is zero'),
    (['reduction::test_zeros[3]#0', 'reduction::test_zeros[3]#1', 'reduction::test_zeros[4]#0', 'reduction::test_zeros[4]#1'],
     'bitwise_and_.Tensor bitwise_not*3 cumsum*2 div.Tensor eq.Scalar*3 flip*2 gather logical_and_ masked_fill.Scalar*3 masked_fill_.Scalar max.dim mul.Tensor ne.Scalar relu_ scatter_.value sub.Scalar where.self zeros zeros_like',
     'any lift_fresh*2 permute scalar_tensor unsqueeze*2',
     "cumprod with zeros: as above; torchpy's zero path is one cumprod over a stacked copy per position "
     "(its masks made with torchpy.tensor, which a mode sees as lift_fresh)"),
    (['reduction::test_one_output_used[]#0'],
     '',
     'add.Tensor mean.dim mul.Scalar mul.Tensor sub.Tensor unsqueeze zeros',
     "engine: torchpy materializes the unused output's gradient (zeros) and runs the whole formula; torch skips an undefined gradient's term"),
    (['reduction::test_one_output_used[]#1'],
     '',
     'add.Tensor div.Tensor eq.Tensor mul.Tensor sum.dim_IntList view*2 zeros',
     'engine: as above'),
    (['view::test_view[29]#0', 'view::test_as_strided_of_a_view[]#2'],
     '_unsafe_view arange.start as_strided*2 clone index_add_ new_zeros',
     'index_add index_select lift_fresh*2 view*2 zeros',
     "as_strided with an overlapping output: torch counts overlaps with arange/index_add_ through storage; "
     "torchpy scatters by storage position (positions made with torchpy.tensor: lift_fresh)"),
    (['view::test_as_strided_overlapping_input[]#0'],
     '_unsafe_view*2 arange.start as_strided*3 clone*2 div_.Tensor expand index_add_*2 new_zeros ones zeros_like',
     'div.Tensor index_add index_select lift_fresh*3 view*2 zeros',
     'as_strided of an overlapping input: as above'),
    (['view::test_unused_outputs[]#0'],
     'expand*2',
     '',
     "engine: unbind's unused pieces are zeros(sizes) from torchpy's engine; torch's formula makes zeros({}).expand(sizes)"),
    (['view::test_second_order[2]#0'],
     'expand*5',
     '',
     'engine: as above'),
]


def _multiset(text: str) -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    for item in text.split():
        op, _, n = item.partition("*")
        counts[op] += int(n or 1)
    return counts


def _ops(log: list) -> collections.Counter:
    return collections.Counter(op.removeprefix("aten.").removesuffix(".default") for op, _, _ in log)


_KNOWN = {case_id: (_multiset(torch_only), _multiset(torchpy_only), why)
          for ids, torch_only, torchpy_only, why in KNOWN_DIFFERENCES for case_id in ids}


def backward_log(lib: Any, case: formula_cases.Case) -> list:
    args = [_convert(x, lib) for x in case.inputs]
    wrt = _leaves(args)
    out = case.fn(lib, *args)
    outs = [o for o in (out if isinstance(out, (tuple, list)) else [out]) if o.requires_grad]
    grad_outputs = _grad_outputs(outs, lib)
    return dispatch_log(lib, lambda lib: lib.autograd.grad(outs, wrt, grad_outputs, allow_unused=True))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_backward_dispatch(case):
    expected = backward_log(torch, case)
    actual = backward_log(torchpy, case)
    known = _KNOWN.get(case.id)
    if known is None:
        assert actual == expected, f"\ntorchpy: {actual}\ntorch:   {expected}"
    else:
        difference = (_ops(expected) - _ops(actual), _ops(actual) - _ops(expected))
        assert difference == known[:2], f"{known[2]}\ntorchpy: {actual}\ntorch:   {expected}"


@pytest.mark.parametrize("case", EXTRA_CASES, ids=[c.id for c in EXTRA_CASES])
def test_extra_case_gradients(case):
    check_grad(case.fn, *case.inputs)


def test_known_differences_name_real_cases():
    ids = {c.id for c in CASES}
    assert set(_KNOWN) <= ids, sorted(set(_KNOWN) - ids)


def _node_names(case: formula_cases.Case) -> set:
    args = [_convert(x, torchpy) for x in case.inputs]
    out = case.fn(torchpy, *args)
    seen, stack = set(), [o.grad_fn for o in (out if isinstance(out, (tuple, list)) else [out])
                          if o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node.name() not in seen:
            seen.add(node.name())
            stack.extend(f for f, _ in node.next_functions if f is not None)
    return seen


def test_cases_reach_every_formula():
    """Each registered derivative's node appears in some case's forward or backward graph."""
    from torchpy.autograd.derivatives import FORMULAS

    seen = set()
    for case in CASES:
        seen |= _node_names(case)
    registered = {d.node_name for d in FORMULAS.values() if d.backward is not None}
    assert registered <= seen, sorted(registered - seen)
