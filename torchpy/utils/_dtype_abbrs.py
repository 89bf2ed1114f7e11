"""torch.utils._dtype_abbrs: the short dtype names of logs and traces (f32, i64, b8, ...)."""

from __future__ import annotations

from .._tensor import dtype as _dt

# The names torch's traces print; only dtypes torchpy has appear here.
_ABBREVIATIONS = {
    "uint8": "u8", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "float16": "f16", "float32": "f32", "float64": "f64",
    "complex32": "c32", "complex64": "c64", "complex128": "c128",
    "bool": "b8", "bfloat16": "bf16",
}

dtype_abbrs: dict = {getattr(_dt, name): abbr for name, abbr in _ABBREVIATIONS.items() if hasattr(_dt, name)}
