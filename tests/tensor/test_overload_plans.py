"""PythonOp remembers which overload a call shape picked (torchpy/_aten/python_api.py). A later
call that differs only in a keyword's value type must not reuse that plan: torch's parser
refuses a bool where an int goes, whatever was called before."""

import numpy as np
import pytest
import torch

import torchpy

# Each sequence: calls on x, made in order; the first warms the plan the later ones must not reuse.
SEQUENCES = {
    "softmax dim": ["x.softmax(dim=-1)", "x.softmax(dim=True)"],
    "sum dim": ["x.sum(dim=0)", "x.sum(dim=True)"],
    "sum dim list": ["x.sum(dim=[0])", "x.sum(dim=[True])"],
    "sum positional": ["x.sum(0)", "x.sum(True)"],
    "sum keepdim": ["x.sum(0, keepdim=True)", "x.sum(0, keepdim=1)"],
    "transpose": ["x.transpose(dim0=0, dim1=1)", "x.transpose(dim0=0, dim1=True)"],
    "add alpha": ["x.add(x, alpha=2)", "x.add(x, alpha='2')", "x.add(x, alpha=2.5)"],
}


def _outcomes(lib, calls):
    x = lib.ones(2, 3)
    seen = []
    for call in calls:
        try:
            seen.append(tuple(eval(call, {"x": x}).shape))
        except Exception as error:  # noqa: BLE001 - the exception type is what is compared
            seen.append(type(error).__name__)
    return seen


@pytest.mark.parametrize("name", SEQUENCES)
def test_a_cached_plan_is_not_reused_for_other_value_types(name):
    calls = SEQUENCES[name]
    assert _outcomes(torchpy, calls) == _outcomes(torch, calls)


# A bool parameter takes a Python bool only (None where it is optional); factories' requires_grad too.
BOOL_CALLS = [
    "x.sum(0, keepdim=np.bool_(True))", "x.sum(0, keepdim=1)", "x.sum(0, 1)", "x.sum(0, True)",
    "x.sum(0, keepdim=None)", "x.sort(0, 1)", "x.sort(0, True)", "x.sort(stable=None, dim=0)",
    "x.std(0, unbiased=0)", "x.std(0, unbiased=False)", "lib.ones(2, requires_grad=1)",
    "lib.ones(2, requires_grad=None)", "x.new_ones(2, requires_grad=1)", "lib.zeros_like(x, requires_grad=True)",
]


def _outcome(lib, call, describe):
    """describe(result) of `call` on x = lib.ones(2, 3), or the TypeError it raised (its type,
    and whether it names requires_grad)."""
    x = lib.ones(2, 3)
    try:
        return describe(eval(call, {"x": x, "lib": lib, "np": np}))
    except TypeError as error:
        return "TypeError", "requires_grad" in str(error)


def _same_outcome(call, describe):
    assert _outcome(torchpy, call, describe) == _outcome(torch, call, describe)


@pytest.mark.parametrize("call", BOOL_CALLS)
def test_bool_parameters_take_bools_only(call):
    _same_outcome(call, lambda result: tuple(result[0].shape) if isinstance(result, tuple)
                  else (tuple(result.shape), result.requires_grad))


# sum / mean take a generated positional fast path for one int dim; other forms must
# still reach overload resolution and fail as torch's do.
REDUCTION_FORMS = [
    "x.sum(0, dim=0)", "x.sum(keepdim=True)", "x.sum(0, keepdim=True, dtype=lib.float64)", "x.mean(axis=0)",
    "x.sum(0, True)", "x.mean(0, 1)", "x.sum(dim=0, keepdims=True)", "x.mean(dim=1.0)", "x.sum(0, True, True)",
]


@pytest.mark.parametrize("call", REDUCTION_FORMS)
def test_reduction_method_forms(call):
    _same_outcome(call, lambda result: (tuple(result.shape), str(result.dtype)))
