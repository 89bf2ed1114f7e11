"""A readable trace of every dispatch decision.

    with torchpy.dispatch_trace():
        y = x + 1

prints one indented line per call and redispatch: the operator, the key set
it dispatched on, the key chosen, the table's label for that slot and where
the kernel was registered. `TORCHPY_DISPATCH_TRACE=1` turns it on for the
whole process.

Tracing costs nothing when off: it is a hook on the dispatcher's cache-miss path
(`ops.set_trace_hook`). Installing it empties the resolution caches, and nothing is cached
while it is installed, so every call and redispatch reaches it, whether the caches were
warm or cold before; with no trace the hot path tests no flag.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Any, Iterator, TextIO

from . import keys as K
from . import ops
from .dispatcher import keyset_repr
from .ops import OpOverload


class _TraceState(threading.local):
    depth = 0


_state = _TraceState()
_streams: list[TextIO] = []  # active traces, innermost last
_lock = threading.Lock()


def _describe(op: OpOverload, ks: int) -> str:
    entry = op._entry
    try:
        key = entry.lookup(ks)[3]
    except NotImplementedError:
        return f"-> {K.key_name(K.highest_key(ks))} [missing]"
    kernel = entry.table[key]
    where = kernel.debug if kernel is not None else ""
    return f"-> {K.key_name(key)} [{entry.labels[key]}] {where}"


def _trace(op: OpOverload, ks: int, args: tuple, kwargs: dict, how: str) -> Any:
    """The hook: one line for this call or redispatch, then the kernel, one level deeper."""
    stream = _streams[-1] if _streams else sys.stderr
    stream.write(f"{'  ' * _state.depth}{how} {op.name()} {keyset_repr(ks)} {_describe(op, ks)}\n")
    _state.depth += 1
    try:
        return ops.run_uncached(op, ks, args, kwargs)
    finally:
        _state.depth -= 1


def _install() -> None:
    ops.set_trace_hook(_trace)


def _uninstall() -> None:
    ops.set_trace_hook(None)


@contextlib.contextmanager
def dispatch_trace(file: TextIO | None = None) -> Iterator[None]:
    """Print every dispatch decision made inside the block (to `file`, default stderr)."""
    with _lock:
        _streams.append(file if file is not None else sys.stderr)
        _install()
    try:
        yield
    finally:
        with _lock:
            _streams.pop()
            if not _streams and not _env_enabled:
                _uninstall()


_env_enabled = os.environ.get("TORCHPY_DISPATCH_TRACE", "") not in ("", "0")
if _env_enabled:
    _install()
