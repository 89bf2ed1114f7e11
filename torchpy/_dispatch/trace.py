"""A readable trace of every dispatch decision.

    with torchpy.dispatch_trace():
        y = x + 1

prints one indented line per call and redispatch: the operator, the key set
it dispatched on, the key chosen, the table's label for that slot and where
the kernel was registered. `TORCHPY_DISPATCH_TRACE=1` turns it on for the
whole process.

Tracing costs nothing when off: it swaps OpOverload's call methods for traced
ones while active, instead of testing a flag on every call.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Any, Iterator, TextIO

from . import keys as K
from . import tls
from .dispatcher import keyset_repr
from .ops import OpOverload

_plain_call = OpOverload.__call__
_plain_redispatch_raw = OpOverload._redispatch_raw


class _TraceState(threading.local):
    depth = 0


_state = _TraceState()
_streams: list[TextIO] = []  # active traces, innermost last
_lock = threading.Lock()


def _describe(op: OpOverload, ks: int) -> tuple[str, Any]:
    entry = op._entry
    try:
        hit = entry.cache.get(ks) or entry.resolve(ks)
    except NotImplementedError:
        key = K.highest_key(ks)
        return f"-> {K.key_name(key)} [missing]", None
    key = hit[3]
    kernel = entry.table[key]
    where = kernel.debug if kernel is not None else ""
    return f"-> {K.key_name(key)} [{entry.labels[key]}] {where}", hit


def _traced_redispatch_raw(op: OpOverload, ks: int, args: tuple, kwargs: dict, how: str = "redispatch") -> Any:
    decision, _ = _describe(op, ks)
    stream = _streams[-1] if _streams else sys.stderr
    stream.write(f"{'  ' * _state.depth}{how} {op.name()} {keyset_repr(ks)} {decision}\n")
    _state.depth += 1
    try:
        return _plain_redispatch_raw(op, ks, args, kwargs)
    finally:
        _state.depth -= 1


def _traced_call(op: OpOverload, /, *args: Any, **kwargs: Any) -> Any:
    args, kwargs = op._binder.bind(args, kwargs)
    ks = tls.effective_keyset(op._extract_keyset(args, kwargs) | tls.local.salt)
    return _traced_redispatch_raw(op, ks, args, kwargs, how="call")


def _install() -> None:
    OpOverload.__call__ = _traced_call
    OpOverload._redispatch_raw = _traced_redispatch_raw


def _uninstall() -> None:
    OpOverload.__call__ = _plain_call
    OpOverload._redispatch_raw = _plain_redispatch_raw


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
