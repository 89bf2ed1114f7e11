"""The suite's one oracle: run the same code through torch and torchpy and compare.

    check(lambda t, x, y: t.add(x, y, alpha=2), randn(3, 4), randn(4))
    check(lambda t, x: t.exp(x), randn(5), policy=ulp(2))
    check(lambda t, x: t.sum(x), randn(100), policy=scaled())
    check(lambda t: t.zeros(2, 3).view(7), expect_error=RuntimeError)

The lambda gets the library module first (`torch` or `torchpy`), then the inputs converted to
that library's tensors. Inputs are NumPy arrays (copied into each library), Python values
(passed as they are) or `Input`s, which say how to make the tensor: a dtype,
`noncontiguous=True`, `requires_grad`, a device.

The comparison policy (tests/README.md says why):
- `EXACT`: bit for bit. For what torch's result is exact by definition: integer and bool
  results, copies, views, indexing, shapes, strides, dtypes, IEEE correctly rounded ops (add,
  sub, mul, div, sqrt, comparisons) and random draws that need no transcendental function.
- `ulp(n)`: within n units in the last place of torch's value, in the result's own dtype. For
  transcendental functions (exp, log, atan2, tanh, erf, pow, ...) and random draws that pass
  through them (normal, ...): NumPy picks SIMD loops per machine (AVX2, AVX-512) whose last bit
  differs, so the same code gives different last bits on different CPUs.
- `scaled(rtol, atol)`: |ours - torch's| <= atol + rtol * |torch's|, for anything that sums
  (reductions, matmul, backward passes: the order of summation differs) and for results that
  cancel to near zero, where `atol` is scaled to the inputs' magnitude.
- `CLOSE` (the default): `scaled(1e-5, 1e-6)` for floating results; integer and bool results
  are always compared exactly, whatever the policy.
Tensors must also agree in type, dtype, shape and device; other values compare with ==
(floats by the policy, NaN equal to NaN).

A success-path check fails when either library raises. An error-path check names the
exception it expects (`expect_error=`): both must raise that type, with the same first line
of message unless `match_message=False`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import ml_dtypes
import numpy as np
import torch

import torchpy

LIBRARIES = (torch, torchpy)

FLOAT_DTYPES = ("float32", "float64", "float16", "bfloat16")
INT_DTYPES = ("uint8", "int8", "int16", "int32", "int64")
ALL_DTYPES = FLOAT_DTYPES + INT_DTYPES + ("bool", "complex64", "complex128")

# Mantissa bits and smallest normal exponent per floating dtype name (complex: per component).
_FLOAT_FORMATS = {
    "float16": (10, -14), "bfloat16": (7, -126), "float32": (23, -126), "float64": (52, -1022),
    "complex64": (23, -126), "complex128": (52, -1022), "complex32": (10, -14),
}


# --- the policies ------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Policy:
    """How floating values compare. Subclasses say what |ours - theirs| may be."""

    def tolerance(self, expected: np.ndarray, dtype: str) -> np.ndarray | float:
        raise NotImplementedError

    def assert_values(self, actual: np.ndarray, expected: np.ndarray, dtype: str, path: str) -> None:
        actual, expected = np.asarray(actual), np.asarray(expected)
        assert actual.shape == expected.shape, f"{path}: shape {actual.shape} != {expected.shape}"
        # Complex values: the distance and the bound are measured on the complex magnitude.
        as_type = np.complex128 if "c" in (actual.dtype.kind, expected.dtype.kind) else np.float64
        a, e = actual.astype(as_type), expected.astype(as_type)
        with np.errstate(invalid="ignore", over="ignore"):
            both_nan = np.isnan(a) & np.isnan(e)
            within = np.isfinite(e) & (np.abs(a - e) <= self.tolerance(np.abs(e), dtype))
            ok = (a == e) | both_nan | within
        if not np.all(ok):
            bad = np.argwhere(~np.asarray(ok))[:5]
            shown = ", ".join(f"{tuple(int(j) for j in i)}: ours {a[tuple(i)]!r} torch {e[tuple(i)]!r}" for i in bad)
            raise AssertionError(f"{path}: {int(np.size(ok) - np.count_nonzero(ok))} of {np.size(ok)} "
                                 f"values differ beyond {self} ({dtype}): {shown}")


@dataclasses.dataclass(frozen=True)
class Exact(Policy):
    def tolerance(self, expected: np.ndarray, dtype: str) -> float:
        return 0.0

    def assert_values(self, actual: np.ndarray, expected: np.ndarray, dtype: str, path: str) -> None:
        # Bit for bit: -0.0 and 0.0 differ, NaN equals NaN.
        a, e = np.asarray(actual), np.asarray(expected)
        super().assert_values(a, e, dtype, path)
        for part in (np.real, np.imag):
            signs = np.signbit(part(a)) == np.signbit(part(e))
            assert np.all(signs | np.isnan(part(e))), f"{path}: the sign of a zero differs from torch's"

    def __str__(self) -> str:
        return "EXACT"


@dataclasses.dataclass(frozen=True)
class Ulp(Policy):
    """n units in the last place of max(|torch's value|, scale), in the result's dtype."""

    n: int = 2
    scale: float = 0.0   # the magnitude of the terms a result was computed from, for cancellation

    def tolerance(self, expected: np.ndarray, dtype: str) -> np.ndarray:
        return self.n * ulp_of(np.maximum(np.abs(expected), self.scale), dtype)

    def __str__(self) -> str:
        return f"ulp({self.n}" + (f", scale={self.scale}" if self.scale else "") + ")"


@dataclasses.dataclass(frozen=True)
class Scaled(Policy):
    rtol: float = 1e-5
    atol: float = 1e-6

    def tolerance(self, expected: np.ndarray, dtype: str) -> np.ndarray:
        return self.atol + self.rtol * np.abs(expected)

    def __str__(self) -> str:
        return f"scaled(rtol={self.rtol}, atol={self.atol})"


EXACT = Exact()


def ulp(n: int = 2, scale: float = 0.0) -> Ulp:
    return Ulp(n, scale)


def scaled(rtol: float = 1e-5, atol: float = 1e-6) -> Scaled:
    return Scaled(rtol, atol)


CLOSE = scaled()


def ulp_of(x: np.ndarray, dtype: str) -> np.ndarray:
    """The spacing of floating `dtype` at |x| (its smallest subnormal at 0)."""
    mantissa_bits, min_exponent = _FLOAT_FORMATS.get(dtype, _FLOAT_FORMATS["float64"])
    magnitude = np.abs(np.asarray(x, dtype=np.float64))
    _, exponent = np.frexp(magnitude)  # |x| = m * 2**exponent, m in [0.5, 1)
    exponent = np.where(magnitude == 0, min_exponent, np.maximum(exponent - 1, min_exponent))
    return np.ldexp(1.0, exponent - mantissa_bits)


# --- inputs ------------------------------------------------------------------------------------

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


def convert(x: Any, lib: Any) -> Any:
    """An input as `lib`'s argument: Inputs and arrays become its tensors."""
    if isinstance(x, Input):
        return x.make(lib)
    if isinstance(x, np.ndarray):
        return lib.tensor(x)
    return x


def randn(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(np.float32)


def randint(low: int, high: int, *shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + sum(shape)).integers(low, high, shape).astype(np.int64)


# --- comparing results -------------------------------------------------------------------------

def to_numpy(t: Any) -> np.ndarray:
    """Values of a torch or torchpy tensor as a NumPy array, without the ops under test."""
    if isinstance(t, torch.Tensor):
        if t.dtype in (torch.float16, torch.bfloat16):
            t = t.float()
        return t.detach().resolve_conj().numpy(force=True)  # force: torch may hand back a ZeroTensor
    array = np.asarray(t._data)  # torchpy's own array
    if array.dtype in (np.float16, ml_dtypes.bfloat16):
        return array.astype(np.float32)
    return array


def _dtype_name(t: Any) -> str:
    return str(t.dtype).removeprefix("torch.").removeprefix("torchpy.")


def assert_values(actual: Any, expected: Any, policy: Policy = None, dtype: str = "float64",
                  path: str = "result") -> None:
    """Array-likes of values (lists, arrays) under `policy`; exact unless both are floating."""
    a, e = np.asarray(actual), np.asarray(expected)
    if a.dtype.kind in "fc" and e.dtype.kind in "fc":
        (policy or CLOSE).assert_values(a, e, dtype, path)
    else:
        assert a.shape == e.shape, f"{path}: shape {a.shape} != {e.shape}"
        np.testing.assert_array_equal(a, e, err_msg=path)


def assert_same(actual: Any, expected: Any, policy: Policy | None = None, path: str = "result") -> None:
    """torchpy's `actual` against torch's `expected`, recursively, under `policy` (default CLOSE)."""
    policy = policy or CLOSE
    if isinstance(expected, torch.Tensor):
        assert isinstance(actual, torchpy.Tensor), f"{path}: expected a Tensor, got {type(actual).__name__}"
        assert str(actual.dtype) == str(expected.dtype), f"{path}: dtype {actual.dtype} != {expected.dtype}"
        assert tuple(actual.shape) == tuple(expected.shape), f"{path}: shape {tuple(actual.shape)} != {tuple(expected.shape)}"
        assert str(actual.device) == str(expected.device), f"{path}: device {actual.device} != {expected.device}"
        if expected.device.type == "meta":
            return
        assert_values(to_numpy(actual), to_numpy(expected), policy, _dtype_name(expected), path)
        return
    if isinstance(expected, tuple) and hasattr(expected, "_fields"):  # torch.return_types
        assert tuple(getattr(actual, "_fields", ())) == expected._fields or len(actual) == len(expected), path
    if isinstance(expected, dict):
        assert isinstance(actual, dict) and list(actual) == list(expected), f"{path}: keys {actual!r} vs {expected!r}"
        for key in expected:
            assert_same(actual[key], expected[key], policy, f"{path}[{key!r}]")
        return
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected), f"{path}: {actual!r} vs {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, policy, f"{path}[{i}]")
        return
    if isinstance(expected, torch.Size):
        assert tuple(actual) == tuple(expected), path
        return
    if isinstance(expected, torch.dtype):
        assert str(actual) == str(expected), path
        return
    if isinstance(expected, np.ndarray):
        assert isinstance(actual, np.ndarray) and actual.dtype == expected.dtype, f"{path}: {actual!r} vs {expected!r}"
        assert_values(actual, expected, policy, str(expected.dtype), path)
        return
    if isinstance(expected, float):
        assert type(actual) is float, f"{path}: {actual!r} != {expected!r}"
        policy.assert_values(np.float64(actual), np.float64(expected), "float64", path)
        return
    assert type(actual) is type(expected) and actual == expected, f"{path}: {actual!r} != {expected!r}"


def first_line(error: BaseException) -> str:
    return str(error).split("\n")[0]


def check(fn: Callable, *inputs: Any, policy: Policy | None = None,
          expect_error: type[BaseException] | None = None, match_message: bool = True) -> Any:
    """fn(torch, *torch_inputs) and fn(torchpy, *torchpy_inputs) must agree; returns torchpy's.

    With `expect_error`, both must raise it (the same type, and the same first line of
    message unless match_message=False)."""
    if expect_error is not None:
        check_error(fn, *inputs, match_message=match_message, expect=expect_error)
        return None
    expected = fn(torch, *[convert(x, torch) for x in inputs])
    actual = fn(torchpy, *[convert(x, torchpy) for x in inputs])
    assert_same(actual, expected, policy)
    return actual


def check_error(fn: Callable, *inputs: Any, match_message: bool = True,
                expect: type[BaseException] | None = None) -> tuple[BaseException, BaseException]:
    """Both libraries raise the same exception type (`expect` when given) and, by default, the
    same first line of message. Returns (torchpy's error, torch's error)."""
    results = []
    for lib in LIBRARIES:
        try:
            fn(lib, *[convert(x, lib) for x in inputs])
        except Exception as error:  # noqa: BLE001 - we compare whatever is raised
            results.append(error)
        else:
            results.append(None)
    theirs, ours = results
    assert theirs is not None, "torch did not raise"
    assert ours is not None, f"torchpy did not raise; torch raised {type(theirs).__name__}: {theirs}"
    assert type(ours) is type(theirs), f"{type(ours).__name__}: {ours} != {type(theirs).__name__}: {theirs}"
    if expect is not None:
        assert type(theirs) is expect, f"torch raised {type(theirs).__name__}: {theirs}, not {expect.__name__}"
    if match_message:
        assert first_line(ours) == first_line(theirs), f"{ours!r} != {theirs!r}"
    return ours, theirs


def close_for(*dtypes: str) -> Scaled:
    """CLOSE, widened for the 16-bit floats among `dtypes` (their results round coarsely)."""
    if "bfloat16" in dtypes:
        return scaled(rtol=1e-2, atol=1e-2)
    if "float16" in dtypes:
        return scaled(rtol=1e-3, atol=1e-3)
    return CLOSE


def agree(fn: Callable, *inputs: Any, policy: Policy | None = None, match_message: bool = True) -> Any:
    """For sweeps over dtypes where some are refused: the same result as torch's when torch
    succeeds, otherwise the same error. Returns torchpy's result (None after an error)."""
    try:
        fn(torch, *[convert(x, torch) for x in inputs])
    except Exception:  # noqa: BLE001 - torch refuses: torchpy must refuse alike
        check_error(fn, *inputs, match_message=match_message)
        return None
    return check(fn, *inputs, policy=policy)
