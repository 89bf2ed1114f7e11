"""torch.serialization: torch.save / torch.load in torch's zip format, readable by real torch
and reading what real torch writes.

An archive `<name>/` holds `data.pkl` (the pickled object; tensors refer to storages by
persistent id), `data/<key>` (each storage's raw bytes, 64-byte aligned), `byteorder`,
`version`, `.format_version`, `.storage_alignment` and `.data/serialization_id`, as torch 2.13
writes them. Loading is weights-only by default (_weights_only.py); map_location moves
storages, mmap=True maps the archive and views storages in place.
"""

from __future__ import annotations

import io
import os
import pickle
import pickletools
import sys
import warnings
from typing import IO, Any, Callable

import numpy as np

from .._tensor import dtype as _dt
from .._tensor.device import CPU, META, device
from .._tensor.tensor import UntypedStorage
from ._legacy import load_legacy, save_legacy
from ._names import TORCH_GLOBALS, find_torchpy_global
from ._pickler import StorageTable, make_pickler
from ._storage import LoadedStorage
from ._weights_only import (
    UnpicklingError, WeightsOnlyUnpickler, add_safe_globals, clear_safe_globals, get_safe_globals,
    safe_globals, user_allowed_globals,
)
from ._zip import ALIGNMENT, ZipReader, ZipWriter

__all__ = [
    "save", "load", "add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals",
    "default_restore_location", "register_package", "get_unsafe_globals_in_checkpoint",
]

DEFAULT_PROTOCOL = 2

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, "
    "but it can result in arbitrary code execution. Do it only if you got the file from a "
    "trusted source."
)
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
    "weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)


# --- where storages live: torch's package registry -------------------------------------------

def _cpu_tag(storage: Any) -> str | None:
    return "cpu" if storage.device.type == "cpu" else None


def _cpu_deserialize(storage: Any, location: str) -> Any:
    return storage if location == "cpu" else None


def _meta_tag(storage: Any) -> str | None:
    return "meta" if storage.device.type == "meta" else None


def _meta_deserialize(storage: Any, location: str) -> Any:
    return UntypedStorage(None, storage.nbytes(), META) if location == "meta" else None


def _cuda_deserialize(storage: Any, location: str) -> Any:
    if location.startswith("cuda"):
        raise RuntimeError(
            "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
            "If you are running on a CPU-only machine, please use torch.load with "
            "map_location=torch.device('cpu') to map your storages to the CPU.")
    return None


_package_registry: list[tuple[int, Callable, Callable]] = []


def register_package(priority: int, tagger: Callable[[Any], str | None],
                     deserializer: Callable[[Any, str], Any]) -> None:
    """Register how storages of a device are tagged on save and restored on load (lower
    priorities are tried first)."""
    _package_registry.append((priority, tagger, deserializer))
    _package_registry.sort(key=lambda entry: entry[0])


register_package(10, _cpu_tag, _cpu_deserialize)
register_package(20, lambda storage: None, _cuda_deserialize)
register_package(22, _meta_tag, _meta_deserialize)


def default_restore_location(storage: Any, location: str) -> Any:
    """`storage` restored to `location` by the first registered deserializer that takes it."""
    for _, _, deserializer in _package_registry:
        result = deserializer(storage, location)
        if result is not None:
            return result
    raise RuntimeError(
        f"don't know how to restore data location of torch.storage.UntypedStorage (tagged with {location})")


def _restore(storage: UntypedStorage, location: str, map_location: Any) -> Any:
    if map_location is None:
        return default_restore_location(storage, location)
    if isinstance(map_location, (str, bytes)):
        return default_restore_location(storage, str(device(map_location.decode() if isinstance(
            map_location, bytes) else map_location)))
    if isinstance(map_location, device):
        return default_restore_location(storage, str(map_location))
    if isinstance(map_location, dict):
        return default_restore_location(storage, map_location.get(location, location))
    result = map_location(storage, location)
    return default_restore_location(storage, location) if result is None else result


def _is_meta_location(map_location: Any) -> bool:
    if isinstance(map_location, (str, device)):
        return device(map_location).type == "meta"
    return False


# --- save -------------------------------------------------------------------------------------

def _archive_name(f: Any) -> str:
    if isinstance(f, (str, os.PathLike)):
        return os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
    return "archive"


def save(obj: object, f: Any, pickle_module: Any = pickle, pickle_protocol: int = DEFAULT_PROTOCOL,
         _use_new_zipfile_serialization: bool = True, _disable_byteorder_record: bool = False) -> None:
    """Save `obj` to a path or a binary file-like object in torch's zip format."""
    if not _use_new_zipfile_serialization:
        if isinstance(f, (str, os.PathLike)):
            with open(f, "wb") as stream:
                save_legacy(obj, stream, pickle_module, pickle_protocol)
        else:
            save_legacy(obj, f, pickle_module, pickle_protocol)
        return
    table = StorageTable()
    buffer = io.BytesIO()
    make_pickler(pickle_module)(buffer, pickle_protocol, table).dump(obj)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as stream:
            _write_archive(stream, _archive_name(f), buffer.getvalue(), table, _disable_byteorder_record)
    else:
        _write_archive(f, "archive", buffer.getvalue(), table, _disable_byteorder_record)
        if hasattr(f, "flush"):
            f.flush()


def _write_archive(stream: IO[bytes], archive: str, pickled: bytes, table: StorageTable,
                   no_byteorder: bool) -> None:
    writer = ZipWriter(stream, archive)
    writer.write_record("data.pkl", pickled)
    writer.write_record(".format_version", b"1")
    writer.write_record(".storage_alignment", str(ALIGNMENT).encode())
    if not no_byteorder:
        writer.write_record("byteorder", sys.byteorder.encode())
    for key, data in table.records.items():
        writer.write_record(f"data/{key}", data)
    writer.write_record("version", b"3\n")
    serial = str(int.from_bytes(os.urandom(17), "little")).rjust(40, "0")[:40]
    writer.write_record(".data/serialization_id", serial.encode())
    writer.finish()


# --- load -------------------------------------------------------------------------------------

def _truthy_env(name: str) -> bool:
    return os.getenv(name, "0").lower() in ("1", "y", "yes", "true")


def _weights_only_message(message: str) -> str:
    """torch's wrapping of a weights-only refusal: what to do about it, then the refusal."""
    if "was not an allowed global by default." in message:
        return (
            "Weights only load failed. This file can still be loaded, to do so you have two options, "
            "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
            f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check "
            "the recommended steps in the following error message.\n\tWeightsUnpickler error: "
            + message + _DOCS_MESSAGE)
    wrapped = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if "is blocked" not in message:
        wrapped += ("Please file an issue with the following so that we can make "
                    "`weights_only=True` compatible with your use case: WeightsUnpickler error: ")
    return wrapped + "\n\n" + message + _DOCS_MESSAGE


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **pickle_load_args: Any) -> Any:
    """Load an object torch.save (torch's or torchpy's) wrote to a path or file-like object."""
    weights_only_not_set = weights_only is None
    if weights_only_not_set:
        weights_only = pickle_module is None
    forced, forbidden = _truthy_env("TORCH_FORCE_WEIGHTS_ONLY_LOAD"), _truthy_env("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD")
    if forced and forbidden:
        raise RuntimeError(
            "Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
            "should be set, but both were set.")
    if forced:
        weights_only = True
    elif forbidden and weights_only_not_set:
        weights_only = False
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    elif pickle_module is None:
        pickle_module = pickle
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.")
    pickle_load_args.setdefault("encoding", "utf-8")

    is_path = isinstance(f, (str, os.PathLike))
    label = repr(os.fspath(f)) if is_path else repr(f)
    stream = open(f, "rb") if is_path else f
    try:
        if not is_path and not (hasattr(stream, "seek") and hasattr(stream, "tell")):
            raise ValueError("torch.load requires a seekable file-like object")
        start = stream.tell()
        magic = stream.read(4)
        stream.seek(start)
        if magic != b"PK\x03\x04":
            if mmap:
                name = f"{os.fspath(f)}, " if is_path else ""
                raise RuntimeError(
                    "mmap can only be used with files saved with "
                    f"`torch.save({name}_use_new_zipfile_serialization=True), "
                    "please torch.save your checkpoint with this option in order to use mmap.")
            try:
                return _load_legacy(stream, label, map_location, pickle_module if not weights_only else None,
                                    pickle_load_args)
            except UnpicklingError as e:
                if weights_only:
                    raise UnpicklingError(_weights_only_message(str(e))) from None
                raise
        reader = ZipReader(stream, label)
        mapped = None
        if mmap:
            if not is_path:
                raise ValueError("f must be a file path in order to use the mmap argument")
            mapped = np.memmap(os.fspath(f), np.uint8, mode="c").view(np.ndarray)
        try:
            return _load(reader, map_location, pickle_module if not weights_only else None, mapped,
                         pickle_load_args)
        except UnpicklingError as e:
            if weights_only:
                raise UnpicklingError(_weights_only_message(str(e))) from None
            raise
    finally:
        if is_path:
            stream.close()


def _load(reader: ZipReader, map_location: Any, pickle_module: Any, mapped: np.ndarray | None,
          pickle_load_args: dict) -> Any:
    byteorder = reader.read("byteorder").decode() if reader.has_record("byteorder") else "little"
    if byteorder not in ("little", "big"):
        raise ValueError("Unknown endianness type: " + byteorder)
    loaded: dict[str, LoadedStorage] = {}
    meta = _is_meta_location(map_location)

    def persistent_load(saved_id: Any) -> LoadedStorage:
        if not isinstance(saved_id, tuple) or len(saved_id) != 5:
            raise RuntimeError(f"unexpected persistent id in the checkpoint: {saved_id!r}")
        typename, storage_type, key, location, numel = saved_id
        typename = typename.decode("ascii") if isinstance(typename, bytes) else typename
        if typename != "storage":
            raise AssertionError(
                f"Unknown typename for persistent_load, expected 'storage' but got '{typename}'")
        key = key.decode("ascii") if isinstance(key, bytes) else key
        location = location.decode("ascii") if isinstance(location, bytes) else location
        cached = loaded.get(key)
        if cached is not None:
            return cached
        d = _dt.uint8 if storage_type is UntypedStorage else storage_type.dtype
        nbytes = numel * d.itemsize
        if meta:
            storage = UntypedStorage(None, nbytes, META)
        else:
            storage = UntypedStorage(_read_storage(reader, key, nbytes, mapped, byteorder, d), nbytes, CPU)
            storage = _restore(storage, location, map_location)
        if isinstance(storage, LoadedStorage):
            storage = storage.untyped
        result = loaded[key] = LoadedStorage(storage, d)
        return result

    data = io.BytesIO(reader.read("data.pkl"))
    if pickle_module is None:
        return WeightsOnlyUnpickler(data, persistent_load, pickle_load_args.get("encoding", "utf-8")).load()

    unpickler = _checkpoint_unpickler(pickle_module)(data, **pickle_load_args)
    unpickler.persistent_load = persistent_load
    return unpickler.load()


def _load_legacy(stream: IO[bytes], label: str, map_location: Any, pickle_module: Any,
                 pickle_load_args: dict) -> Any:
    def load_pickle(persistent_load: Callable) -> Any:
        if pickle_module is None:
            return WeightsOnlyUnpickler(stream, persistent_load, pickle_load_args.get("encoding", "utf-8")).load()
        unpickler = _checkpoint_unpickler(pickle_module)(stream, **pickle_load_args)
        unpickler.persistent_load = persistent_load
        return unpickler.load()

    return load_legacy(stream, label, load_pickle, lambda s, loc: _restore(s, loc, map_location),
                       _is_meta_location(map_location))


def _checkpoint_unpickler(pickle_module: Any) -> type:
    class CheckpointUnpickler(pickle_module.Unpickler):  # type: ignore[name-defined, misc]
        def find_class(self, module: str, name: str) -> Any:
            found = find_torchpy_global(module, name)
            return found if found is not None else super().find_class(module, name)
    return CheckpointUnpickler


def _read_storage(reader: ZipReader, key: str, nbytes: int, mapped: np.ndarray | None, byteorder: str,
                  d: Any) -> np.ndarray:
    name = f"data/{key}"
    if mapped is not None:
        start, size = reader.data_offset(name)
        if start + size > len(mapped):
            raise reader.error(f"failed reading file {name}: the archive is truncated")
        buffer = mapped[start:start + size]
    else:
        buffer = reader.read_into(name)
        size = len(buffer)
    if size != nbytes:
        raise reader.error(f"failed reading file {name}: expected {nbytes} bytes but the record holds {size}")
    if byteorder != sys.byteorder and d.itemsize > 1:
        if mapped is not None:
            buffer = buffer.copy()
        element = d.itemsize // 2 if d.is_complex else d.itemsize
        buffer.view(np.dtype(f"u{element}") if element > 1 else np.uint8).byteswap(inplace=True)
    return buffer


def get_unsafe_globals_in_checkpoint(f: Any) -> list[str]:
    """The globals a checkpoint names that weights_only loading would refuse."""
    stream = open(f, "rb") if isinstance(f, (str, os.PathLike)) else f
    try:
        reader = ZipReader(stream, repr(f))
        found = set()
        for opcode, arg, _ in pickletools.genops(reader.read("data.pkl")):
            if opcode.name == "GLOBAL":
                found.add(arg.replace(" ", "."))
    finally:
        if stream is not f:
            stream.close()
    safe = set(TORCH_GLOBALS) | set(user_allowed_globals())
    return list(found - safe)
