"""torch.layout and torch.memory_format: small singleton objects printed as torch prints them."""

from __future__ import annotations


class _Named:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self) -> str:
        return self._name


class layout(_Named):
    __slots__ = ()


class memory_format(_Named):
    __slots__ = ()


strided = layout("strided")
sparse_coo = layout("sparse_coo")

contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")

# The c10 enum values schemas use for defaults (Layout::Strided = 0, MemoryFormat::Contiguous = 0, ...).
LAYOUT_BY_C10 = {0: strided, 1: sparse_coo}
MEMORY_FORMAT_BY_C10 = {0: contiguous_format, 1: preserve_format, 2: channels_last, 3: channels_last_3d}
