"""Tensor's Python protocols (iteration, `in`, reversed(), format(), NumPy's __array__ and
__array_wrap__) against torch: their results, and what a subclass's __torch_function__ sees."""

import warnings

import numpy as np
import pytest
import torch

import torchpy

LIBS = (torch, torchpy)


def _outcome(fn):
    try:
        return fn()
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return type(error).__name__, str(error)


def _logging_subclass(lib, seen):
    class Logged(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    return Logged


PROTOCOLS = {
    "iter": lambda x: [type(item).__name__ for item in x],
    "in": lambda x: (2.0 in x, 5 in x),
    "reversed": lambda x: (type(reversed(x)).__name__, reversed(x).tolist()),
    "format 0-dim": lambda x: format(x[0], ".1f"),
    "format": lambda x: format(x, ""),
    "__array__": lambda x: type(x.__array__()).__name__,
    "len": lambda x: len(x),
}


@pytest.mark.parametrize("name", PROTOCOLS)
def test_subclass_protocols_see_what_torch_sees(name):
    results = []
    for lib in LIBS:
        seen = []
        x = lib.tensor([1.0, 2.0, 3.0]).as_subclass(_logging_subclass(lib, seen))
        outcome = _outcome(lambda: PROTOCOLS[name](x))
        results.append((outcome, seen))
    assert results[1] == results[0]


def test_plain_tensor_protocols_match_torch():
    results = []
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0, 3.0])
        results.append([
            (2.0 in x, 5 in x, lib.tensor(3.0) in x, True in lib.tensor([True])),
            _outcome(lambda: "a" in x), _outcome(lambda: [1.0] in x),
            reversed(x).tolist(), reversed(lib.tensor(1.0)).item(),
            format(lib.tensor(1.5), ".2f"), _outcome(lambda: iter(lib.tensor(1.0))),
            [type(item).__name__ for item in x],
        ])
    assert results[1] == results[0]


def test_numpy_ufuncs_on_tensors_give_tensors():
    results = []
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0, 3.0])
        with warnings.catch_warnings(record=True) as shown:
            warnings.simplefilter("always")
            outcomes = [np.sin(x), np.greater(x, 1), np.add(x, 1), np.sin(lib.tensor(1.0))]
        results.append(([(type(r).__name__, str(r.dtype).split(".")[-1], r.tolist()) for r in outcomes],
                        sorted({w.category.__name__ for w in shown})))
    assert results[1] == results[0]
    assert results[1][0][1][1] == "uint8"  # a bool result becomes uint8, as torch makes it
