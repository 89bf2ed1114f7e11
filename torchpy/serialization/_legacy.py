"""torch's legacy (pre-1.6) format, `_use_new_zipfile_serialization=False`: one stream of
pickles and raw bytes.

    pickle(MAGIC_NUMBER) pickle(PROTOCOL_VERSION) pickle(sys_info) pickle(obj)
    pickle([storage keys]) then, per key in that order: int64 element count, the storage's bytes

Storages are named in obj's pickle by the persistent id
`('storage', torch.<Name>Storage, key, location, numel, view_metadata)`; their bytes come after
the object, so the loader makes each storage empty when the pickle names it and fills it at the
end (tensors rebuilt over it see the bytes then).
"""

from __future__ import annotations

import struct
import sys
from typing import IO, Any, Callable

import numpy as np

from .._tensor import dtype as _dt
from .._tensor.device import CPU, META
from .._tensor.tensor import UntypedStorage
from ._pickler import StorageTable, make_pickler
from ._storage import LoadedStorage
from ._weights_only import Refusal
from ._zip import aligned_empty

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
_SYS_INFO = {
    "protocol_version": PROTOCOL_VERSION,
    "little_endian": sys.byteorder == "little",
    "type_sizes": {"short": 2, "int": 4, "long": 4},
}


def save_legacy(obj: Any, stream: IO[bytes], pickle_module: Any, protocol: int) -> None:
    table = StorageTable(legacy=True)
    for header in (MAGIC_NUMBER, PROTOCOL_VERSION, _SYS_INFO):
        pickle_module.dump(header, stream, protocol=protocol)
    make_pickler(pickle_module)(stream, protocol, table).dump(obj)
    keys = sorted(table.records)
    pickle_module.dump(keys, stream, protocol=protocol)
    for key in keys:
        data = table.records[key]
        stream.write(struct.pack("<q", len(data) // table.itemsizes[key]))
        stream.write(memoryview(data))


def load_legacy(stream: IO[bytes], label: str, load_pickle: Callable[[Callable], Any],
                restore: Callable[[UntypedStorage, str], Any], meta: bool) -> Any:
    """`load_pickle(persistent_load)` unpickles the next pickle of the stream (weights-only or not)."""
    def refuse(saved_id: Any) -> Any:
        raise RuntimeError(f"unexpected persistent id in a header of {label}")

    try:
        magic = load_pickle(refuse)
    except Refusal:
        raise  # a weights-only refusal: load() words it as torch does
    except Exception as e:  # noqa: BLE001  (not even a pickle: whatever the bytes made the reader do)
        raise RuntimeError(
            f"{label} is neither a zip archive written by torch.save nor a legacy-format checkpoint "
            f"(_use_new_zipfile_serialization=False): it is corrupted ({type(e).__name__}: {e})") from None
    if magic != MAGIC_NUMBER:
        raise RuntimeError(f"Invalid magic number; corrupt file? ({label})")
    protocol_version = load_pickle(refuse)
    if protocol_version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {protocol_version}")
    sys_info = load_pickle(refuse)
    byteorder = "little" if not isinstance(sys_info, dict) or sys_info.get("little_endian", True) else "big"
    storages: dict[str, LoadedStorage] = {}
    views: dict[str, LoadedStorage] = {}

    def persistent_load(saved_id: Any) -> Any:
        if not isinstance(saved_id, tuple) or len(saved_id) != 6:
            raise RuntimeError(f"Unknown saved id in {label}: {saved_id!r}")
        typename, storage_type, key, location, numel, view_metadata = saved_id
        typename = typename.decode("ascii") if isinstance(typename, bytes) else typename
        if typename != "storage":
            raise RuntimeError(f"Unknown saved id type: {typename}")
        location = location.decode("ascii") if isinstance(location, bytes) else location
        d = _dt.uint8 if storage_type is UntypedStorage else storage_type.dtype
        storage = storages.get(key)
        if storage is None:
            nbytes = numel * d.itemsize
            untyped = UntypedStorage(None, nbytes, META) if meta else restore(
                UntypedStorage(aligned_empty(nbytes), nbytes, CPU), location)
            if isinstance(untyped, LoadedStorage):
                untyped = untyped.untyped
            storage = storages[key] = LoadedStorage(untyped, d)
        if view_metadata is None:
            return storage
        view_key, offset, size = view_metadata
        if view_key not in views:
            start, stop = offset * d.itemsize, (offset + size) * d.itemsize
            buffer = storage.untyped._buffer
            part = UntypedStorage(None if buffer is None else buffer[start:stop], stop - start, storage.device)
            views[view_key] = LoadedStorage(part, d)
        return views[view_key]

    result = load_pickle(persistent_load)
    keys = load_pickle(refuse)
    for key in keys:
        storage = storages[key]
        count_bytes = stream.read(8)
        if len(count_bytes) != 8:
            raise RuntimeError(f"{label} is truncated: the bytes of storage {key} are missing")
        (count,) = struct.unpack("<q", count_bytes)
        nbytes = count * storage.dtype.itemsize
        buffer = storage.untyped._buffer
        if buffer is None:  # meta: the bytes are skipped
            stream.seek(nbytes, 1)
            continue
        got = stream.readinto(memoryview(buffer[:nbytes])) if hasattr(stream, "readinto") else None
        if got is None:
            chunk = stream.read(nbytes)
            got = len(chunk)
            buffer[:got] = np.frombuffer(chunk, np.uint8)
        if got != nbytes:
            raise RuntimeError(f"{label} is truncated: storage {key} holds {got} of its {nbytes} bytes")
        if byteorder != sys.byteorder and storage.dtype.itemsize > 1:
            element = storage.dtype.itemsize // (2 if storage.dtype.is_complex else 1)
            buffer[:nbytes].view(f"u{element}").byteswap(inplace=True)
    return result
