"""What a checkpoint's persistent ids name: storage types, and the storages loaded for them.

torch names a storage in the pickle by its legacy typed-storage class (`torch.FloatStorage`)
for the dtypes that have one, and by `torch.storage.UntypedStorage` (the dtype then travels as
an argument of `_rebuild_tensor_v3`) for the rest. The one table below maps both ways.
"""

from __future__ import annotations

from typing import Any

from .._tensor import dtype as _dt
from .._tensor.dtype import dtype
from .._tensor.tensor import UntypedStorage

# dtype -> the name of its legacy storage class in torch (`torch.<Name>`)
LEGACY_STORAGE_NAMES: dict[dtype, str] = {
    _dt.float64: "DoubleStorage",
    _dt.float32: "FloatStorage",
    _dt.float16: "HalfStorage",
    _dt.bfloat16: "BFloat16Storage",
    _dt.int64: "LongStorage",
    _dt.int32: "IntStorage",
    _dt.int16: "ShortStorage",
    _dt.int8: "CharStorage",
    _dt.uint8: "ByteStorage",
    _dt.bool: "BoolStorage",
    _dt.complex128: "ComplexDoubleStorage",
    _dt.complex64: "ComplexFloatStorage",
}


class StorageType:
    """What the unpickler returns for `torch.<Name>Storage`: the storage's dtype, nothing to call."""

    __slots__ = ("dtype", "name")

    def __init__(self, name: str, d: dtype) -> None:
        self.name = name
        self.dtype = d

    def __repr__(self) -> str:
        return f"StorageType(dtype={self.dtype})"


STORAGE_TYPES: dict[str, StorageType] = {
    name: StorageType(name, d) for d, name in LEGACY_STORAGE_NAMES.items()
}


class LoadedStorage:
    """A storage read from a checkpoint with the dtype it was saved as (torch's TypedStorage):
    tensors rebuilt over one of these share its memory."""

    __slots__ = ("untyped", "dtype")

    def __init__(self, untyped: UntypedStorage, d: dtype) -> None:
        self.untyped = untyped
        self.dtype = d

    @property
    def device(self) -> Any:
        return self.untyped.device

    def nbytes(self) -> int:
        return self.untyped.nbytes()
