"""How Python values become schema-typed arguments: the Tensor layer's converters for the binder.

The dispatch layer's binder knows ints, floats and objects carrying `_keyset`;
this module teaches it torchpy's own types (see binding.register_type_converter):
a Python number where a Tensor goes becomes a wrapped-number tensor, and
ScalarType / Device / Layout / MemoryFormat arguments become dtype, device,
layout and memory_format objects (schema defaults such as `long` arrive as c10
enum numbers).
"""

from __future__ import annotations

from typing import Any

from .._dispatch.binding import NO_MATCH, register_type_converter
from . import dtype as _dt
from .device import canonical_device, device
from .enums import LAYOUT_BY_C10, MEMORY_FORMAT_BY_C10, layout, memory_format
from .tensor import wrapped_number

# c10::ScalarType numbering, which schema defaults use (`ScalarType dtype=long` is 4).
_DTYPE_BY_C10 = {
    0: _dt.uint8, 1: _dt.int8, 2: _dt.int16, 3: _dt.int32, 4: _dt.int64, 5: _dt.float16,
    6: _dt.float32, 7: _dt.float64, 8: _dt.complex32, 9: _dt.complex64, 10: _dt.complex128,
    11: _dt.bool, 15: _dt.bfloat16,
}


def _tensor(value: Any) -> Any:
    if isinstance(value, (bool, int, float, complex)):
        return wrapped_number(value)
    return NO_MATCH


def _scalar_type(value: Any) -> Any:
    if type(value) is _dt.dtype:
        return value
    if type(value) is int:
        return _DTYPE_BY_C10.get(value, NO_MATCH)
    if value in (float, int, bool, complex):
        return _dt.from_python_type(value)
    return NO_MATCH


def _device(value: Any) -> Any:
    if isinstance(value, (device, str)):
        return canonical_device(value)
    return NO_MATCH


def _layout(value: Any) -> Any:
    if isinstance(value, layout):
        return value
    return LAYOUT_BY_C10.get(value, NO_MATCH) if type(value) is int else NO_MATCH


def _memory_format(value: Any) -> Any:
    if isinstance(value, memory_format):
        return value
    return MEMORY_FORMAT_BY_C10.get(value, NO_MATCH) if type(value) is int else NO_MATCH


def install() -> None:
    register_type_converter("Tensor", _tensor)
    register_type_converter("ScalarType", _scalar_type)
    register_type_converter("Device", _device)
    register_type_converter("Layout", _layout)
    register_type_converter("MemoryFormat", _memory_format)
