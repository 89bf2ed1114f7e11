"""The zip container of torch.save's format: writing it as torch's writer (miniz) lays it out,
and reading records out of it.

Every record is stored uncompressed, its data starting at a multiple of the storage alignment
(64): the local header carries an extra field "FB" of padding, as torch's writer pads. That is
what lets a loader map the archive and view storages in place (mmap=True).
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from typing import IO, Any

import numpy as np

ALIGNMENT = 64
_LOCAL = struct.Struct("<4sHHHHHIIIHH")
_CENTRAL = struct.Struct("<4sHHHHHHIIIHHHHHII")
_END = struct.Struct("<4sHHHHIIH")
_END64 = struct.Struct("<4sQHHIIQQQQ")
_LOCATOR64 = struct.Struct("<4sIQI")
_U32_MAX = 0xFFFFFFFF
_DOS_DATE = (1980 - 1980) << 9 | 1 << 5 | 1  # 1980-01-01: the archive is reproducible byte for byte

CORRUPT_HINT = (
    "This is an internal miniz error. If you are seeing this error, there is a high likelihood that "
    "your checkpoint file is corrupted. This can happen if the checkpoint was not saved properly, "
    "was transferred incorrectly, or the file was modified after saving."
)


class ZipWriter:
    """Writes records `<archive>/<name>` to a binary stream, aligned, then the central directory."""

    def __init__(self, stream: IO[bytes], archive: str) -> None:
        self._stream = stream
        self._prefix = archive + "/"
        self._position = 0
        self._entries: list[tuple[bytes, int, int, int]] = []  # name, crc, size, header offset

    def write_record(self, name: str, data: Any) -> None:
        view = memoryview(data).cast("B") if not isinstance(data, bytes) else data
        size = len(view)
        crc = zlib.crc32(view)
        encoded = (self._prefix + name).encode()
        offset = self._position
        zip64 = size >= _U32_MAX or offset >= _U32_MAX
        extra64 = struct.pack("<HHQQ", 1, 16, size, size) if zip64 else b""
        unpadded = offset + _LOCAL.size + len(encoded) + len(extra64) + 4
        padding = -unpadded % ALIGNMENT
        extra = extra64 + b"FB" + struct.pack("<H", padding) + b"Z" * padding
        shown = _U32_MAX if zip64 else size
        header = _LOCAL.pack(b"PK\x03\x04", 45 if zip64 else 20, 0, 0, 0, _DOS_DATE, crc, shown, shown,
                             len(encoded), len(extra))
        self._write(header + encoded + extra)
        self._write(view)
        self._entries.append((encoded, crc, size, offset))

    def _write(self, chunk: Any) -> None:
        self._stream.write(chunk)
        self._position += len(chunk)

    def finish(self) -> None:
        start = self._position
        for encoded, crc, size, offset in self._entries:
            zip64 = size >= _U32_MAX or offset >= _U32_MAX
            extra = struct.pack("<HHQQQ", 1, 24, size, size, offset) if zip64 else b""
            shown = _U32_MAX if zip64 else size
            self._write(_CENTRAL.pack(b"PK\x01\x02", 45 if zip64 else 20, 45 if zip64 else 20, 0, 0, 0,
                                      _DOS_DATE, crc, shown, shown, len(encoded), len(extra), 0, 0, 0,
                                      0, _U32_MAX if zip64 else offset) + encoded + extra)
        length, count = self._position - start, len(self._entries)
        if start >= _U32_MAX or count >= 0xFFFF:
            end64 = self._position
            self._write(_END64.pack(b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, length, start))
            self._write(_LOCATOR64.pack(b"PK\x06\x07", 0, end64, 1))
            self._write(_END.pack(b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, _U32_MAX, _U32_MAX, 0))
        else:
            self._write(_END.pack(b"PK\x05\x06", 0, 0, count, count, length, start, 0))


_HUGE_PAGE = 2 << 20


def aligned_empty(size: int) -> np.ndarray:
    """An uninitialized byte array; a large one starts on a 2 MiB boundary, so that the kernel
    backs it with transparent huge pages where it can (faulting 4 KiB pages in one at a time
    costs more than reading the bytes). The slack before the start is never touched."""
    if size < _HUGE_PAGE:
        return np.empty(size, np.uint8)
    raw = np.empty(size + _HUGE_PAGE, np.uint8)
    start = -raw.ctypes.data % _HUGE_PAGE
    return raw[start:start + size]


class ZipReader:
    """The records of a torch.save archive: names without the archive's folder, raw bytes, and
    where each record's data lies in the stream (for reading into place or mapping)."""

    def __init__(self, stream: IO[bytes], label: str) -> None:
        self._stream = stream
        self._label = label
        try:
            self._zip = zipfile.ZipFile(stream)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as e:
            raise self.error(f"failed reading zip archive: failed finding central directory ({e})") from None
        infos = self._zip.infolist()
        if not infos or "/" not in infos[0].filename:
            raise self.error("failed reading zip archive: file in archive is not in a subdirectory")
        self.archive = infos[0].filename.split("/", 1)[0]
        self._infos = {i.filename.split("/", 1)[1]: i for i in infos if "/" in i.filename}

    def error(self, what: str) -> RuntimeError:
        return RuntimeError(f"PytorchStreamReader {what}. {CORRUPT_HINT} (file: {self._label})")

    def has_record(self, name: str) -> bool:
        return name in self._infos

    def names(self) -> list[str]:
        return list(self._infos)

    def read(self, name: str) -> bytes:
        info = self._info(name)
        try:
            return self._zip.read(info)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, zlib.error) as e:
            raise self.error(f"failed reading file {name}: invalid header or archive is corrupted ({e})") from None

    def data_offset(self, name: str) -> tuple[int, int]:
        """(where the record's bytes start in the stream, how many there are)."""
        info = self._info(name)
        if info.compress_type != zipfile.ZIP_STORED:
            raise self.error(f"failed reading file {name}: the record is compressed")
        self._stream.seek(info.header_offset)
        header = self._stream.read(_LOCAL.size)
        if len(header) != _LOCAL.size or header[:4] != b"PK\x03\x04":
            raise self.error(f"failed reading file {name}: invalid header or archive is corrupted")
        fields = _LOCAL.unpack(header)
        return info.header_offset + _LOCAL.size + fields[9] + fields[10], info.file_size

    def read_into(self, name: str) -> np.ndarray:
        """The record's bytes in a fresh, writable, aligned uint8 array."""
        start, size = self.data_offset(name)
        out = aligned_empty(size)
        self._stream.seek(start)
        reader = getattr(self._stream, "readinto", None)
        if reader is not None:
            got = reader(memoryview(out)) if size else 0
        else:  # a file-like object with read() only
            chunk = self._stream.read(size)
            got = len(chunk)
            out[:got] = np.frombuffer(chunk, np.uint8)
        if got != size:
            raise self.error(f"failed reading file {name}: the archive is truncated")
        return out

    def _info(self, name: str) -> zipfile.ZipInfo:
        info = self._infos.get(name)
        if info is None:
            raise self.error(f"failed finding record {name} in the archive")
        return info
