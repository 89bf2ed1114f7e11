"""torchpy.testing against torch.testing: assert_close's verdicts and messages word for word,
assert_allclose, and make_tensor's values under one seed."""

import collections
import math
import warnings

import numpy as np
import pytest
import torch

import torchpy


def _outcome(lib, case):
    try:
        case(lib)
    except Exception as error:  # noqa: BLE001  (the outcome compared is the exception itself)
        return type(error).__name__, str(error)
    return None


def _same(case):
    theirs, ours = _outcome(torch, case), _outcome(torchpy, case)
    assert ours == theirs
    return ours


def _t(lib, values, dtype="float32"):
    return lib.tensor(values, dtype=getattr(lib, dtype))


CASES = {
    "equal": lambda L: L.testing.assert_close(_t(L, [1.0, 2.0]), _t(L, [1.0, 2.0])),
    "within default rtol": lambda L: L.testing.assert_close(_t(L, [1.0]), _t(L, [1.000001])),
    "mismatch report": lambda L: L.testing.assert_close(_t(L, [1.0, 2.0, 3.0]), _t(L, [1.0, 4.0, 3.5])),
    "2-d index": lambda L: L.testing.assert_close(_t(L, [[1.0, 2.0], [3.0, 4.0]]), _t(L, [[1.0, 2.0], [3.0, 0.0]])),
    "scalar tensor": lambda L: L.testing.assert_close(_t(L, 1.5), _t(L, 2.0)),
    "float64": lambda L: L.testing.assert_close(_t(L, [1.0, 1e-8], "float64"), _t(L, [1.0 + 1e-6, 0.0], "float64")),
    "float16": lambda L: L.testing.assert_close(_t(L, [1.0, 100.0], "float16"), _t(L, [1.001, 101.0], "float16")),
    "bfloat16": lambda L: L.testing.assert_close(_t(L, [1.0, 3.0], "bfloat16"), _t(L, [1.01, 3.5], "bfloat16")),
    "complex": lambda L: L.testing.assert_close(_t(L, [1 + 1j, 2j], "complex64"), _t(L, [1 + 1j, 3j], "complex64")),
    "int exact": lambda L: L.testing.assert_close(_t(L, [1, 2, 3], "int64"), _t(L, [1, 5, 0], "int64")),
    "int8": lambda L: L.testing.assert_close(_t(L, [100, -100], "int8"), _t(L, [-100, 100], "int8")),
    "bool": lambda L: L.testing.assert_close(_t(L, [True, False], "bool"), _t(L, [True, True], "bool")),
    "nan unequal": lambda L: L.testing.assert_close(_t(L, [math.nan, 1.0]), _t(L, [math.nan, 1.0])),
    "nan equal_nan": lambda L: L.testing.assert_close(_t(L, [math.nan]), _t(L, [math.nan]), equal_nan=True),
    "inf": lambda L: L.testing.assert_close(_t(L, [math.inf, 1.0]), _t(L, [math.inf, 1.0])),
    "inf vs -inf": lambda L: L.testing.assert_close(_t(L, [math.inf]), _t(L, [-math.inf])),
    "zero expected": lambda L: L.testing.assert_close(_t(L, [1.0, 0.5]), _t(L, [1.0, 0.0])),
    "explicit tolerances": lambda L: L.testing.assert_close(_t(L, [1.0]), _t(L, [1.1]), rtol=0.0, atol=0.05),
    "exact tolerances": lambda L: L.testing.assert_close(_t(L, [1.0, 2.0]), _t(L, [1.0, 2.5]), rtol=0, atol=0),
    "only rtol": lambda L: L.testing.assert_close(_t(L, [1.0]), _t(L, [1.0]), rtol=0.1),
    "shape": lambda L: L.testing.assert_close(_t(L, [1.0, 2.0]), _t(L, [1.0, 2.0, 3.0])),
    "dtype": lambda L: L.testing.assert_close(_t(L, [1.0]), _t(L, [1.0], "float64")),
    "dtype unchecked": lambda L: L.testing.assert_close(_t(L, [1.0]), _t(L, [1.0], "float64"), check_dtype=False),
    "dtype unchecked mismatch": lambda L: L.testing.assert_close(_t(L, [1, 2], "int32"), _t(L, [1.0, 2.5], "float64"),
                                                                 check_dtype=False),
    "stride": lambda L: L.testing.assert_close(_t(L, [[1.0, 2.0], [3.0, 4.0]]).t(),
                                               _t(L, [[1.0, 3.0], [2.0, 4.0]]), check_stride=True),
    "stride unchecked": lambda L: L.testing.assert_close(_t(L, [[1.0, 2.0], [3.0, 4.0]]).t(),
                                                         _t(L, [[1.0, 3.0], [2.0, 4.0]])),
    "device": lambda L: L.testing.assert_close(L.ones(2), L.ones(2, device="meta")),
    "meta only attributes": lambda L: L.testing.assert_close(L.ones(2, device="meta"), L.zeros(2, device="meta")),
    "numbers": lambda L: L.testing.assert_close(1.0, 1.5),
    "numbers close": lambda L: L.testing.assert_close(1.0, 1.0 + 1e-9),
    "ints": lambda L: L.testing.assert_close(3, 4),
    "number types": lambda L: L.testing.assert_close(1, 1.0, check_dtype=True),
    "complex numbers": lambda L: L.testing.assert_close(1 + 2j, 1 + 3j),
    "numpy numbers": lambda L: L.testing.assert_close(np.float32(1.0), np.float32(2.0)),
    "booleans": lambda L: L.testing.assert_close(True, False),
    "none": lambda L: L.testing.assert_close(None, 1.0),
    "none both": lambda L: L.testing.assert_close(None, None),
    "sequence length": lambda L: L.testing.assert_close([1.0, 2.0], [1.0]),
    "nested": lambda L: L.testing.assert_close({"a": [_t(L, [1.0]), 2]}, {"a": [_t(L, [1.5]), 2]}),
    "ordered dict": lambda L: L.testing.assert_close(collections.OrderedDict(x=_t(L, [1.0])), {"x": _t(L, [2.0])}),
    "keys": lambda L: L.testing.assert_close({"a": 1, "b": 2}, {"a": 1, "c": 2}),
    "tuple vs list": lambda L: L.testing.assert_close((1.0, _t(L, [2.0])), [1.0, _t(L, [2.0])]),
    "msg string": lambda L: L.testing.assert_close(_t(L, [1.0]), _t(L, [2.0]), msg="custom"),
    "msg callable": lambda L: L.testing.assert_close([_t(L, [1.0])], [_t(L, [2.0])], msg=lambda m: f"H\n{m}\nF"),
    "numpy arrays": lambda L: L.testing.assert_close(np.array([1.0, 2.0]), np.array([1.0, 3.0])),
    "many mismatches": lambda L: L.testing.assert_close(L.arange(1000.0), L.arange(1000.0) * 1.001),
}


@pytest.mark.parametrize("name", list(CASES))
def test_assert_close_matches_torch(name):
    _same(CASES[name])


def test_mismatch_report_text():
    outcome = _same(CASES["mismatch report"])
    assert outcome == ("AssertionError", (
        "Tensor-likes are not close!\n\n"
        "Mismatched elements: 2 / 3 (66.7%)\n"
        "Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.5 at index (1,) (up to 1.3e-06 allowed)"))


def test_unsupported_inputs():
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
        torchpy.testing.assert_close(torchpy.ones(1), 1.0)
    with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
        torchpy.testing.assert_close("a", "a")


@pytest.mark.parametrize("values", [([1.0, 2.0], [1.0, 2.00001]), ([1.0, math.nan], [1.0, math.nan]),
                                    ([1.0], [1.5])])
def test_assert_allclose(values):
    def case(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.testing.assert_allclose(lib.tensor(values[0]), values[1])
        assert any(issubclass(w.category, FutureWarning) for w in caught)
    _same(case)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "complex64", "complex128",
                                   "int64", "int32", "int16", "int8", "uint8", "bool"])
@pytest.mark.parametrize("options", [{}, {"low": -2, "high": 3}, {"noncontiguous": True},
                                     {"exclude_zero": True, "low": 0, "high": 2}])
def test_make_tensor_draws_torchs_values(dtype, options):
    torch.manual_seed(123)
    torchpy.manual_seed(123)
    theirs = torch.testing.make_tensor(4, 5, dtype=getattr(torch, dtype), device="cpu", **options)
    ours = torchpy.testing.make_tensor((4, 5), dtype=getattr(torchpy, dtype), device="cpu", **options)
    assert str(ours.dtype) == str(theirs.dtype) and ours.stride() == theirs.stride()
    assert ours.tolist() == theirs.tolist()


def test_make_tensor_errors_and_grad():
    assert torchpy.testing.make_tensor(3, dtype=torchpy.float32, device="cpu", requires_grad=True).requires_grad
    for kwargs in ({"low": 5, "high": 1}, {"low": math.nan}, {"requires_grad": True, "dtype_name": "int64"},
                   {"low": 300, "high": 400, "dtype_name": "uint8"}):
        kwargs = dict(kwargs)
        name = kwargs.pop("dtype_name", "float32")
        _same(lambda L: L.testing.make_tensor(3, dtype=getattr(L, name), device="cpu", **kwargs))  # noqa: B023
