"""torch.testing.assert_close (and the deprecated assert_allclose): compare two values, which
may be nested sequences and mappings of tensors, numbers, booleans and None, with torch's
default tolerances per dtype and its mismatch report, word for word.

Values are compared elementwise in NumPy in the tensors' own dtype (bfloat16 through ml_dtypes),
with isclose's rule: |actual - expected| <= atol + rtol * |expected|, equal values (infinities
included) always close, NaNs close only under equal_nan.
"""

from __future__ import annotations

import cmath
import collections.abc
import warnings
from typing import Any, Callable

import numpy as np

from .._tensor import dtype as _dt
from .._tensor.creation import as_tensor
from .._tensor.promotion import promote_types
from .._tensor.tensor import Size, Tensor

# {dtype: (rtol, atol)}: torch's defaults; every other dtype compares exactly
DTYPE_PRECISIONS: dict[Any, tuple[float, float]] = {
    _dt.float16: (0.001, 1e-5),
    _dt.bfloat16: (0.016, 1e-5),
    _dt.float32: (1.3e-6, 1e-5),
    _dt.float64: (1e-7, 1e-7),
    _dt.complex32: (0.001, 1e-5),
    _dt.complex64: (1.3e-6, 1e-5),
    _dt.complex128: (1e-7, 1e-7),
}
_NUMBER_DTYPES = {int: _dt.int64, float: _dt.float64, complex: _dt.complex128}


class Failure(Exception):
    """A mismatch found while comparing: the exception type to raise, its message, and where in
    the nested inputs it was found."""

    def __init__(self, kind: type[Exception], msg: str, id: tuple = ()) -> None:
        super().__init__(msg)
        self.kind, self.msg, self.id = kind, msg, id

    def to_error(self, msg: str | Callable[[str], str] | None = None) -> Exception:
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.msg
        if self.id:
            text += f"\n\nThe failure occurred for item {''.join(str([item]) for item in self.id)}"
        return self.kind(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    """This kind of pair does not take these inputs; the next kind is tried."""


def default_tolerances(*inputs: Any, dtype_precisions: dict | None = None) -> tuple[float, float]:
    """The loosest (rtol, atol) of the inputs' dtypes."""
    precisions = dtype_precisions or DTYPE_PRECISIONS
    dtypes = []
    for value in inputs:
        if isinstance(value, Tensor):
            dtypes.append(value.dtype)
        elif isinstance(value, _dt.dtype):
            dtypes.append(value)
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(value)} instead.")
    rtols, atols = zip(*[precisions.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def get_tolerances(*inputs: Any, rtol: float | None, atol: float | None, id: tuple = ()) -> tuple[float, float]:
    if (rtol is None) ^ (atol is None):
        raise Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                                  f"but got no {'rtol' if rtol is None else 'atol'}.", id)
    if rtol is not None:
        return rtol, atol  # type: ignore[return-value]
    return default_tolerances(*inputs)


# --- messages ---------------------------------------------------------------------------------

def _mismatch_msg(identifier: Any, default: str, extra: str | None, abs_diff: Any, abs_idx: Any, atol: float,
                  rel_diff: Any, rel_idx: Any, rtol: float) -> str:
    equality = rtol == 0 and atol == 0

    def line(kind: str, diff: Any, idx: Any, tol: float) -> str:
        text = f"{kind.title()} difference: {diff}" if idx is None else f"Greatest {kind} difference: {diff} at index {idx}"
        return text + ("" if equality else f" (up to {tol} allowed)") + "\n"

    if identifier is None:
        identifier = default
    elif callable(identifier):
        identifier = identifier(default)
    text = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        text += f"{extra.strip()}\n"
    text += line("absolute", abs_diff, abs_idx, atol) + line("relative", rel_diff, rel_idx, rtol)
    return text.strip()


def scalar_mismatch_msg(actual: Any, expected: Any, *, rtol: float, atol: float, identifier: Any = None) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(identifier, "Scalars", f"Expected {expected} but got {actual}.",
                         abs_diff, None, atol, rel_diff, None, rtol)


def tensor_mismatch_msg(actual: np.ndarray, expected: np.ndarray, matches: np.ndarray, *, rtol: float,
                        atol: float, identifier: Any = None) -> str:
    total = matches.size
    mismatched = total - int(np.count_nonzero(matches))
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    a, e, m = actual.reshape(-1), expected.reshape(-1), matches.reshape(-1)
    if a.dtype.kind in "biu":  # integers and bools: differences in int64, ratios in float32 (true division)
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[m] = 0
        abs_idx = int(np.argmax(abs_diff)) if not np.isnan(abs_diff).any() else int(np.argmax(np.isnan(abs_diff)))
        denominator = np.abs(e)
        if abs_diff.dtype.kind == "i":
            rel_diff = abs_diff.astype(np.float32) / denominator.astype(np.float32)
        else:
            rel_diff = abs_diff / denominator
        rel_diff[m] = 0
        rel_idx = int(np.argmax(rel_diff)) if not np.isnan(rel_diff).any() else int(np.argmax(np.isnan(rel_diff)))
    shape = matches.shape
    return _mismatch_msg(identifier, "Tensor-likes", extra, abs_diff[abs_idx].item(),
                         tuple(int(i) for i in np.unravel_index(abs_idx, shape)) if shape else (), atol,
                         rel_diff[rel_idx].item(),
                         tuple(int(i) for i in np.unravel_index(rel_idx, shape)) if shape else (), rtol)


# --- pairs ------------------------------------------------------------------------------------

def isclose_array(actual: np.ndarray, expected: np.ndarray, rtol: float, atol: float, equal_nan: bool) -> np.ndarray:
    """torch.isclose on arrays of one dtype."""
    with np.errstate(all="ignore"):
        close = actual == expected
        if equal_nan and actual.dtype.kind not in "biu":
            close |= np.isnan(actual) & np.isnan(expected)
        if rtol == 0 and atol == 0:
            return close
        if actual.dtype.kind in "biu":
            actual, expected = actual.astype(np.float32), expected.astype(np.float32)
        allowed = atol + np.abs(rtol * expected)
        error = np.abs(actual - expected)
        close |= np.isfinite(error) & (error <= allowed)
    return close


def _none_pair(actual: Any, expected: Any, id: tuple, **_: Any) -> Callable[[], None]:
    if not (actual is None or expected is None):
        raise _Unsupported

    def compare() -> None:
        if not (actual is None and expected is None):
            raise Failure(AssertionError, f"None mismatch: {actual} is not {expected}", id)
    return compare


def _bool_pair(actual: Any, expected: Any, id: tuple, **_: Any) -> Callable[[], None]:
    if not all(isinstance(v, (bool, np.bool_)) for v in (actual, expected)):
        raise _Unsupported
    a, e = bool(actual), bool(expected)

    def compare() -> None:
        if a is not e:
            raise Failure(AssertionError, f"Booleans mismatch: {a} is not {e}", id)
    return compare


def _number_pair(actual: Any, expected: Any, id: tuple, rtol: Any = None, atol: Any = None,
                 equal_nan: bool = False, check_dtype: bool = False, **_: Any) -> Callable[[], None]:
    if not all(isinstance(v, (int, float, complex, np.number)) for v in (actual, expected)):
        raise _Unsupported
    a, e = (v.item() if isinstance(v, np.number) else v for v in (actual, expected))
    rtol, atol = get_tolerances(*[_NUMBER_DTYPES[type(v)] for v in (a, e)], rtol=rtol, atol=atol, id=id)

    def compare() -> None:
        if check_dtype and type(a) is not type(e):
            raise Failure(AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.", id)
        if a == e or (equal_nan and cmath.isnan(a) and cmath.isnan(e)):
            return
        diff = abs(a - e)
        if cmath.isfinite(diff) and diff <= atol + rtol * abs(e):
            return
        raise Failure(AssertionError, scalar_mismatch_msg(a, e, rtol=rtol, atol=atol), id)
    return compare


def _tensor_pair(actual: Any, expected: Any, id: tuple, allow_subclasses: bool = True, rtol: Any = None,
                 atol: Any = None, equal_nan: bool = False, check_device: bool = True, check_dtype: bool = True,
                 check_layout: bool = True, check_stride: bool = False, **_: Any) -> Callable[[], None]:
    if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
        raise _Unsupported
    if not allow_subclasses and type(actual) is not type(expected):
        raise _Unsupported
    try:
        a, e = (v if isinstance(v, Tensor) else as_tensor(v) for v in (actual, expected))
    except Exception:
        raise _Unsupported from None
    rtol, atol = get_tolerances(a, e, rtol=rtol, atol=atol, id=id)

    def mismatch(name: str, x: Any, y: Any) -> Failure:
        return Failure(AssertionError, f"The values for attribute '{name}' do not match: {x} != {y}.", id)

    def compare() -> None:
        if a.shape != e.shape:
            raise mismatch("shape", a.shape, e.shape)
        if a.layout != e.layout:
            if check_layout:
                raise mismatch("layout", a.layout, e.layout)
        elif check_stride and a.stride() != e.stride():
            raise mismatch("stride()", a.stride(), e.stride())
        if check_device and a.device != e.device:
            raise mismatch("device", a.device, e.device)
        if check_dtype and a.dtype != e.dtype:
            raise mismatch("dtype", a.dtype, e.dtype)
        if a.device.type == "meta" or e.device.type == "meta":
            return
        x, y = a.detach(), e.detach()
        if x.dtype != y.dtype:
            common = promote_types(x.dtype, y.dtype)
            x, y = x.to(common), y.to(common)
        xs, ys = x._data, y._data  # the arrays themselves: numpy() refuses bfloat16, as torch's
        matches = isclose_array(xs, ys, rtol, atol, equal_nan)
        if matches.all():
            return
        if x.shape == Size([]):
            raise Failure(AssertionError, scalar_mismatch_msg(x.item(), y.item(), rtol=rtol, atol=atol), id)
        raise Failure(AssertionError, tensor_mismatch_msg(xs, ys, matches, rtol=rtol, atol=atol), id)
    return compare


_PAIRS = (_none_pair, _bool_pair, _number_pair, _tensor_pair)


def _pairs(actual: Any, expected: Any, id: tuple, options: dict) -> list[Callable[[], None]]:
    """One comparison per leaf of the nested inputs; structural mismatches raise at once."""
    sequence, mapping = collections.abc.Sequence, collections.abc.Mapping
    if isinstance(actual, sequence) and not isinstance(actual, str) and \
            isinstance(expected, sequence) and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise Failure(AssertionError,
                          f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", id)
        return [p for i in range(len(actual)) for p in _pairs(actual[i], expected[i], (*id, i), options)]
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise Failure(AssertionError, (
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}"), id)
        keys: Any = actual_keys
        try:
            keys = sorted(keys)
        except Exception:  # unorderable keys: any order (as torch)
            pass
        return [p for k in keys for p in _pairs(actual[k], expected[k], (*id, k), options)]
    for make in _PAIRS:
        try:
            return [make(actual, expected, id, **options)]
        except _Unsupported:
            continue
    raise Failure(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} "
                             f"and {type(expected)}.", id)


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Assert that actual and expected are close (see torch.testing.assert_close)."""
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    try:
        comparisons = _pairs(actual, expected, (), options)
    except Failure as failure:
        raise failure.to_error() from None
    for compare in comparisons:
        try:
            compare()
        except Failure as failure:
            raise failure.to_error(msg) from None


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None, atol: float | None = None,
                    equal_nan: bool = True, msg: str = "") -> None:
    """Deprecated since torch 1.12: assert_close with the old defaults (looser tolerances, NaNs
    equal, dtypes not checked)."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future release. "
        "Please use `torch.testing.assert_close()` instead. "
        "You can find detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = as_tensor(actual)
    if not isinstance(expected, Tensor):
        expected = as_tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual, expected, dtype_precisions={
            _dt.float16: (1e-3, 1e-3), _dt.float32: (1e-4, 1e-5), _dt.float64: (1e-5, 1e-8)})
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)

