"""finfo and iinfo: numerical limits of floating-point and integer dtypes, as in PyTorch.

Values come from NumPy (ml_dtypes for bfloat16), converted to Python floats and ints. A
complex dtype reports the limits of its real part, and `dtype` is the name of that real
dtype as a string ('float32'), as PyTorch reports it.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from torchpy._tensor import dtype as _dt
from torchpy._tensor.dtype import dtype

__all__ = ["finfo", "iinfo"]

_MISSING: Any = object()  # finfo() means the default dtype, but finfo(None) is an error


def _check_dtype(fn: str, value: Any) -> None:
    if value is _MISSING:
        raise TypeError(f'{fn}() missing 1 required positional arguments: "type"')
    if type(value) is not dtype:
        raise TypeError(
            f"{fn}(): argument 'type' (position 1) must be torch.dtype, not {type(value).__name__}"
        )


class _Info:
    """Read-only attributes, compared by value (and so unhashable), like PyTorch's."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]

    def _set(self, **fields: Any) -> None:
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        kind = type(self).__name__
        if name in type(self).__slots__:
            raise AttributeError(f"attribute '{name}' of 'torch.{kind}' objects is not writable")
        raise AttributeError(f"'torch.{kind}' object has no attribute '{name}'")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in type(self).__slots__)


def _finfo_fields(real: dtype) -> dict[str, Any]:
    info = ml_dtypes.finfo(real._numpy) if real is _dt.bfloat16 else np.finfo(real._numpy)
    return {
        "bits": int(info.bits),
        "eps": float(info.eps),
        "max": float(info.max),
        "min": float(info.min),
        "tiny": float(info.smallest_normal),
        "smallest_normal": float(info.smallest_normal),
        # 10**-digits, computed in double (NumPy's own resolution is rounded to the dtype)
        "resolution": 10.0 ** -int(info.precision),
        "dtype": real._name,
    }


class finfo(_Info):
    """Limits of a floating-point (or complex) dtype; `finfo()` describes the default dtype."""

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type: dtype = _MISSING) -> None:
        if type is _MISSING:
            type = _dt.get_default_dtype()
        _check_dtype("finfo", type)
        fields = _FINFO.get(type)
        if fields is None:
            raise TypeError(
                "torch.finfo() requires a floating point input type. "
                "Use torch.iinfo to handle 'torch.finfo'"
            )
        self._set(**fields)

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo(_Info):
    """Limits of an integer dtype."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, type: dtype = _MISSING) -> None:
        _check_dtype("iinfo", type)
        fields = _IINFO.get(type)
        if fields is None:
            if type is _dt.bool:
                raise TypeError("torch.bool is not supported by torch.iinfo")
            raise TypeError(
                "torch.iinfo() requires an integer input type. "
                "Use torch.finfo to handle 'torch.iinfo'"
            )
        self._set(**fields)

    def __repr__(self) -> str:
        # PyTorch prints integer limits in %g form, e.g. max=2.14748e+09.
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"


_FINFO: dict[dtype, dict[str, Any]] = {
    d: _finfo_fields(d.to_real()) for d in _dt.all_dtypes if d.is_floating_point or d.is_complex
}
_IINFO: dict[dtype, dict[str, Any]] = {
    d: {
        "bits": int(np.iinfo(d._numpy).bits),
        "max": int(np.iinfo(d._numpy).max),
        "min": int(np.iinfo(d._numpy).min),
        "dtype": d._name,
    }
    for d in _dt.all_dtypes
    if not (d.is_floating_point or d.is_complex or d is _dt.bool)
}
