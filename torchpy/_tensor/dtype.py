"""torchpy's dtypes: the `dtype` class, its instances, the NumPy mapping and the default dtype.

A dtype prints exactly as in PyTorch (``torch.float32``), not ``torchpy.float32``: user code
compares and logs reprs, and swapping ``torch`` for ``torchpy`` must not change that text.

Each dtype carries a small int, ``_index``, used by the promotion tables (promotion.py) so
that the per-op work is a list lookup.

``complex32`` (``chalf``) exists because PyTorch's promotion produces it (a float16 tensor
times ``1j`` is complex32); NumPy has no such type, so it has no NumPy storage and
``to_numpy_dtype`` rejects it.
"""

from __future__ import annotations

import builtins
from typing import Any

import ml_dtypes
import numpy as np

__all__ = [
    "dtype",
    "all_dtypes",
    "to_numpy_dtype",
    "from_numpy_dtype",
    "from_python_type",
    "get_default_dtype",
    "set_default_dtype",
    "get_default_complex_dtype",
    "scalar_default_dtype",
    "python_number_type",
]


class dtype:
    """A tensor element type; the instances are singletons, compared by identity."""

    __slots__ = (
        "_name",
        "_index",
        "_c10_name",
        "_type_meta_name",
        "_cpp_type_name",
        "_numpy",
        "abbr",
        "itemsize",
        "is_floating_point",
        "is_complex",
        "is_signed",
        "_real",
        "_complex",
    )

    def __new__(cls, *args: Any, **kwargs: Any) -> dtype:
        raise TypeError("cannot create 'torch.dtype' instances")

    def __setattr__(self, name: str, value: Any) -> None:
        if name in dtype.__slots__:
            raise AttributeError(f"attribute '{name}' of 'torch.dtype' objects is not writable")
        raise AttributeError(f"'torch.dtype' object has no attribute '{name}'")

    def __repr__(self) -> str:
        return "torch." + self._name

    __str__ = __repr__

    def __reduce__(self) -> str:
        # A string tells pickle (and copy) to look the object up as a module global,
        # so unpickling and deepcopy return this very singleton.
        return self._name

    def to_real(self) -> dtype:
        """The real counterpart of a complex dtype; any other dtype is returned unchanged."""
        return self._real

    def to_complex(self) -> dtype:
        """The complex dtype whose parts are this dtype (bfloat16 widens to complex64)."""
        if self._complex is None:
            raise RuntimeError(f"Unknown Complex ScalarType for {self._c10_name}")
        return self._complex


def _make(index: int, name: str, c10_name: str, abbr: str, kind: str, np_type: Any,
          type_meta_name: str, cpp_type_name: str) -> dtype:
    d = object.__new__(dtype)
    np_dtype = None if np_type is None else np.dtype(np_type)
    fields = {
        "_name": name,
        "_index": index,
        "_c10_name": c10_name,  # c10::ScalarType's name, which PyTorch's error messages use
        "_type_meta_name": type_meta_name,  # "long int": dtype-mismatch messages
        "_cpp_type_name": cpp_type_name,  # "int64_t": "value cannot be converted to type ..."
        "_numpy": np_dtype,
        "abbr": abbr,
        "itemsize": 4 if np_dtype is None else np_dtype.itemsize,  # only complex32 lacks NumPy
        "is_floating_point": kind == "f",
        "is_complex": kind == "c",
        "is_signed": kind in "ifc",
        "_real": d,
        "_complex": None,
    }
    for field, value in fields.items():
        object.__setattr__(d, field, value)
    return d


# The one table of dtypes, and of the names PyTorch's messages give them. Row order is the
# `_index` order (and the promotion tables' order). Three C++ spellings appear in messages:
# c10::ScalarType's name ("Long"), the TypeMeta (demangled typeid) name ("long int": dtype
# mismatch checks) and the C++ element type ("int64_t": scalar conversion overflow).
#   name          c10 name         abbr    kind  NumPy type       TypeMeta name               C++ type
_TABLE = [
    ("bool",       "Bool",          "b8",   "b",  np.bool_,        "bool",                     "bool"),
    ("uint8",      "Byte",          "u8",   "u",  np.uint8,        "unsigned char",            "uint8_t"),
    ("int8",       "Char",          "i8",   "i",  np.int8,         "signed char",              "int8_t"),
    ("int16",      "Short",         "i16",  "i",  np.int16,        "short int",                "int16_t"),
    ("int32",      "Int",           "i32",  "i",  np.int32,        "int",                      "int"),
    ("int64",      "Long",          "i64",  "i",  np.int64,        "long int",                 "int64_t"),
    ("float16",    "Half",          "f16",  "f",  np.float16,      "c10::Half",                "c10::Half"),
    ("bfloat16",   "BFloat16",      "bf16", "f",  ml_dtypes.bfloat16, "c10::BFloat16",         "c10::BFloat16"),
    ("float32",    "Float",         "f32",  "f",  np.float32,      "float",                    "float"),
    ("float64",    "Double",        "f64",  "f",  np.float64,      "double",                   "double"),
    ("complex32",  "ComplexHalf",   "c32",  "c",  None,            "c10::complex<c10::Half>",  "c10::complex<c10::Half>"),
    ("complex64",  "ComplexFloat",  "c64",  "c",  np.complex64,    "c10::complex<float>",      "c10::complex<float>"),
    ("complex128", "ComplexDouble", "c128", "c",  np.complex128,   "c10::complex<double>",     "c10::complex<double>"),
]  # fmt: skip

all_dtypes: tuple[dtype, ...] = tuple(_make(i, *row) for i, row in enumerate(_TABLE))
(
    bool, uint8, int8, int16, int32, int64,
    float16, bfloat16, float32, float64,
    complex32, complex64, complex128,
) = all_dtypes  # fmt: skip

# PyTorch's alternative names for the same objects.
half = float16
float = float32
double = float64
short = int16
int = int32
long = int64
chalf = complex32
cfloat = complex64
cdouble = complex128

_BY_NAME: dict[str, dtype] = {d._name: d for d in all_dtypes}

# Real and complex counterparts. bfloat16 has no complex type of its own; PyTorch uses complex64.
for _real_name, _complex_name in [
    ("float16", "complex32"),
    ("bfloat16", "complex64"),
    ("float32", "complex64"),
    ("float64", "complex128"),
]:
    object.__setattr__(_BY_NAME[_real_name], "_complex", _BY_NAME[_complex_name])
for _real_name, _complex_name in [
    ("float16", "complex32"),
    ("float32", "complex64"),
    ("float64", "complex128"),
]:
    _c = _BY_NAME[_complex_name]
    object.__setattr__(_c, "_real", _BY_NAME[_real_name])
    object.__setattr__(_c, "_complex", _c)

_FROM_NUMPY: dict[np.dtype, dtype] = {d._numpy: d for d in all_dtypes if d._numpy is not None}


def to_numpy_dtype(d: dtype) -> np.dtype:
    """The NumPy dtype that stores `d`'s elements."""
    np_dtype = d._numpy
    if np_dtype is None:
        raise TypeError(f"{d} has no NumPy equivalent; torchpy cannot store it")
    return np_dtype


def from_numpy_dtype(np_dtype: Any) -> dtype:
    """The dtype for a NumPy dtype (or anything `np.dtype()` accepts)."""
    try:
        return _FROM_NUMPY[np_dtype]
    except (KeyError, TypeError):
        pass
    d = _FROM_NUMPY.get(np.dtype(np_dtype))
    if d is None:
        supported = ", ".join(str(d._numpy) for d in _FROM_NUMPY.values())
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype).type.__name__}. "
            f"The only supported types are: {supported}."
        )
    return d


# What `dtype=float` and friends mean in PyTorch's argument parser. (This module's own `bool`,
# `int` and `float` are dtypes, hence `builtins`.)
_FROM_PYTHON_TYPE: dict[type, dtype] = {
    builtins.bool: bool,
    builtins.int: int64,
    builtins.float: float64,
    builtins.complex: complex128,
}


def from_python_type(t: type) -> dtype:
    """The dtype PyTorch means by a Python type used as a dtype: float -> float64, int -> int64."""
    try:
        return _FROM_PYTHON_TYPE[t]
    except (KeyError, TypeError):
        raise TypeError(f"{t!r} is not a Python type that names a dtype") from None


# --- the default dtype -------------------------------------------------------------------
# Process-wide, not per thread, as in PyTorch. `_scalar_defaults` is the dtype a Python number
# of each type takes when wrapped (promotion reads it on every op, so it is kept current here
# rather than derived per call).
_default_dtype: dtype = float32
_default_complex_dtype: dtype = complex64
_scalar_defaults: dict[type, dtype] = {
    builtins.bool: bool,
    builtins.int: int64,
    builtins.float: float32,
    builtins.complex: complex64,
}


def get_default_dtype() -> dtype:
    """The dtype of floating-point tensors created without one (initially float32)."""
    return _default_dtype


def get_default_complex_dtype() -> dtype:
    """The complex dtype that follows the default dtype (float64 -> complex128, float16 ->
    complex32, otherwise complex64; bfloat16 has no complex type and uses complex64)."""
    return _default_complex_dtype


def set_default_dtype(d: dtype, /) -> None:
    """Set the default floating-point dtype; the default complex dtype follows it."""
    global _default_dtype, _default_complex_dtype
    if type(d) is not dtype:
        raise TypeError(
            "invalid dtype object: only floating-point types are supported as the default type"
        )
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_dtype = d
    _default_complex_dtype = d.to_complex()
    _scalar_defaults[builtins.float] = d
    _scalar_defaults[builtins.complex] = _default_complex_dtype


def python_number_type(x: Any) -> type:
    """bool, int, float or complex: the kind of Python number `x` is (or a NumPy scalar is)."""
    if type(x) in _scalar_defaults:
        return type(x)
    # Subclasses (numpy.float64 is a float) and NumPy scalars; bool before int.
    for py_type, np_type in _NUMBER_TYPES:
        if isinstance(x, (py_type, np_type)):
            return py_type
    raise TypeError(f"expected a Python number, got {type(x).__name__}")


def scalar_default_dtype(x: Any) -> dtype:
    """The dtype a Python number takes as a tensor: bool, int64, or the default (complex) dtype."""
    d = _scalar_defaults.get(type(x))
    return d if d is not None else _scalar_defaults[python_number_type(x)]


_NUMBER_TYPES: list[tuple[type, type]] = [
    (builtins.bool, np.bool_),
    (builtins.int, np.integer),
    (builtins.float, np.floating),
    (builtins.complex, np.complexfloating),
]
