"""Run one lambda through torch and torchpy and compare (tinygrad's helper_test_op, for torch).

    check(lambda t, x, y: t.add(x, y, alpha=2), randn(3, 4), randn(4))

The lambda gets the library module first (`torch` or `torchpy`), then the inputs
converted to that library's tensors. Inputs are NumPy arrays (copied into each
library), Python values (passed as they are) or `Input`s, which say how to make
the tensor: a dtype, `noncontiguous=True` (a transposed or strided view of the
same values), `requires_grad`, a device. Results are compared recursively:
tensors by dtype, shape and values (NaN equal to NaN; exact for integers and
bool), numbers by value, tuples element by element (named tuples by field
names too).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np
import torch

import torchpy

LIBRARIES = (torch, torchpy)

FLOAT_DTYPES = ("float32", "float64", "float16", "bfloat16")
INT_DTYPES = ("uint8", "int8", "int16", "int32", "int64")
ALL_DTYPES = FLOAT_DTYPES + INT_DTYPES + ("bool", "complex64", "complex128")


@dataclasses.dataclass
class Input:
    """How to build one tensor argument from `values`."""

    values: Any
    dtype: str | None = None          # a dtype name, e.g. "float32"; default: from values
    noncontiguous: bool = False       # give the tensor non-contiguous strides, same values
    requires_grad: bool = False
    device: str = "cpu"

    def make(self, lib: Any) -> Any:
        array = np.asarray(self.values)
        dtype = getattr(lib, self.dtype) if self.dtype else None
        if self.noncontiguous and array.ndim >= 1:
            # The same values, every other element of a buffer twice as long. Built from NumPy
            # strides (not from view ops), so inputs do not depend on the ops under test.
            t = lib.tensor(array, dtype=dtype, device=self.device)
            doubled = np.repeat(np.asarray(_plain_values(t))[..., None], 2, axis=-1)
            if lib is torch:
                t = lib.tensor(doubled, dtype=t.dtype)[..., 0]
            else:
                t = lib.from_numpy(doubled.astype(t._data.dtype)[..., 0])
        else:
            t = lib.tensor(array, dtype=dtype, device=self.device)
        if self.requires_grad:
            t.requires_grad_(True)
        return t


def _plain_values(t: Any) -> Any:
    if isinstance(t, torch.Tensor):
        return t.float().numpy() if t.dtype == torch.bfloat16 else t.numpy()
    return t._data


def _convert(x: Any, lib: Any) -> Any:
    if isinstance(x, Input):
        return x.make(lib)
    if isinstance(x, np.ndarray):
        return lib.tensor(x)
    return x


def to_numpy(t: Any) -> np.ndarray:
    """Values of a torch or torchpy tensor as a NumPy array (16-bit floats widened to float32)."""
    if isinstance(t, torch.Tensor):
        if t.dtype in (torch.float16, torch.bfloat16):
            t = t.float()
        return t.detach().resolve_conj().numpy(force=True)  # force: torch may hand back a ZeroTensor
    array = np.asarray(t._data)  # torchpy's own array: no dependence on the ops under test
    return array.astype(np.float32) if array.dtype.itemsize == 2 and array.dtype.kind not in "iu" else array


def assert_same(actual: Any, expected: Any, atol: float = 1e-6, rtol: float = 1e-5, path: str = "result") -> None:
    """torchpy's `actual` against torch's `expected`."""
    if isinstance(expected, torch.Tensor):
        assert isinstance(actual, torchpy.Tensor), f"{path}: expected a Tensor, got {type(actual).__name__}"
        assert str(actual.dtype) == str(expected.dtype), f"{path}: dtype {actual.dtype} != {expected.dtype}"
        assert tuple(actual.shape) == tuple(expected.shape), f"{path}: shape {tuple(actual.shape)} != {tuple(expected.shape)}"
        assert str(actual.device) == str(expected.device), f"{path}: device {actual.device} != {expected.device}"
        if expected.device.type == "meta":
            return
        a, e = to_numpy(actual), to_numpy(expected)
        if expected.dtype.is_floating_point or expected.dtype.is_complex:
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=path)
        else:
            np.testing.assert_array_equal(a, e, err_msg=path)
        return
    if isinstance(expected, tuple) and hasattr(expected, "_fields"):  # torch.return_types
        assert tuple(getattr(actual, "_fields", ())) == expected._fields or len(actual) == len(expected), path
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected), f"{path}: {actual!r} vs {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, atol, rtol, f"{path}[{i}]")
        return
    if isinstance(expected, torch.Size):
        assert tuple(actual) == tuple(expected), path
        return
    if isinstance(expected, float) and np.isnan(expected):
        assert isinstance(actual, float) and np.isnan(actual), path
        return
    if isinstance(expected, torch.dtype):
        assert str(actual) == str(expected), path
        return
    assert type(actual) is type(expected) and actual == expected, f"{path}: {actual!r} != {expected!r}"


def check(fn: Callable, *inputs: Any, atol: float = 1e-6, rtol: float = 1e-5) -> Any:
    """fn(torch, *torch_inputs) and fn(torchpy, *torchpy_inputs) must agree."""
    expected = fn(torch, *[_convert(x, torch) for x in inputs])
    actual = fn(torchpy, *[_convert(x, torchpy) for x in inputs])
    assert_same(actual, expected, atol, rtol)
    return actual


def check_error(fn: Callable, *inputs: Any, match_message: bool = True) -> None:
    """Both libraries raise the same exception type (and, by default, message)."""
    results = []
    for lib in LIBRARIES:
        try:
            fn(lib, *[_convert(x, lib) for x in inputs])
        except Exception as error:  # noqa: BLE001 - we compare whatever is raised
            results.append(error)
        else:
            results.append(None)
    theirs, ours = results
    assert theirs is not None, "torch did not raise"
    assert ours is not None, f"torchpy did not raise; torch raised {type(theirs).__name__}: {theirs}"
    assert type(ours) is type(theirs), f"{type(ours).__name__}: {ours} != {type(theirs).__name__}: {theirs}"
    if match_message:
        assert str(ours).split("\n")[0] == str(theirs).split("\n")[0], f"{ours!r} != {theirs!r}"


def randn(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(np.float32)


def randint(low: int, high: int, *shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + sum(shape)).integers(low, high, shape).astype(np.int64)
