"""Per-thread included / excluded dispatch keys, and the guards that change them.

Every dispatch computes ``(tensor keys | included) - excluded``. The sets are
raw ints on a ``threading.local`` so the hot path reads two attributes. As in
c10, a fresh thread starts with BackendSelect and ADInplaceOrView included and
the Autocast keys excluded.
"""

from __future__ import annotations

import threading
from typing import Iterable

from .keys import (
    BACKEND_MASK,
    DEFAULT_EXCLUDED_BITS,
    DEFAULT_INCLUDED_BITS,
    DispatchKey,
    DispatchKeySet,
)


class _LocalDispatchKeys(threading.local):
    """`included` and `excluded` as raw key sets; `keep` is the mask the hot path applies.

    Excluding a key removes its functionality bit only: backend bits are shared
    by every functionality, so `(ks | included) & keep` is c10's
    `(ks | included) - excluded`.
    """

    # Class attributes are each thread's starting values.
    included: int = DEFAULT_INCLUDED_BITS
    _excluded: int = DEFAULT_EXCLUDED_BITS
    keep: int = ~(DEFAULT_EXCLUDED_BITS & ~BACKEND_MASK)

    @property
    def excluded(self) -> int:
        return self._excluded

    @excluded.setter
    def excluded(self, bits: int) -> None:
        self._excluded = bits
        self.keep = ~(bits & ~BACKEND_MASK)


local = _LocalDispatchKeys()


def _raw(keys: DispatchKey | DispatchKeySet | Iterable[DispatchKey]) -> int:
    if isinstance(keys, DispatchKeySet):
        return keys.raw_repr()
    return DispatchKeySet(keys).raw_repr()


def local_include_set() -> DispatchKeySet:
    return DispatchKeySet.from_raw_repr(local.included)


def local_exclude_set() -> DispatchKeySet:
    return DispatchKeySet.from_raw_repr(local.excluded)


def is_key_included(key: DispatchKey) -> bool:
    bits = _raw(key)
    return local.included & bits == bits


def is_key_excluded(key: DispatchKey) -> bool:
    bits = _raw(key)
    return local.excluded & bits == bits


def set_key_included(key: DispatchKey, value: bool) -> None:
    bits = _raw(key)
    local.included = local.included | bits if value else local.included & ~bits


def set_key_excluded(key: DispatchKey, value: bool) -> None:
    bits = _raw(key)
    local.excluded = local.excluded | bits if value else local.excluded & ~bits


class IncludeDispatchKeyGuard:
    """Include keys for the duration of a ``with`` block; restores only what it added."""

    __slots__ = ("_bits", "_added")

    def __init__(self, keys: DispatchKey | DispatchKeySet | Iterable[DispatchKey]) -> None:
        self._bits = _raw(keys)
        self._added = 0

    def __enter__(self) -> "IncludeDispatchKeyGuard":
        self._added = self._bits & ~local.included
        local.included |= self._added
        return self

    def __exit__(self, *exc: object) -> None:
        local.included &= ~self._added


class ExcludeDispatchKeyGuard:
    """Exclude keys for the duration of a ``with`` block; restores only what it added."""

    __slots__ = ("_bits", "_added")

    def __init__(self, keys: DispatchKey | DispatchKeySet | Iterable[DispatchKey]) -> None:
        self._bits = _raw(keys)
        self._added = 0

    def __enter__(self) -> "ExcludeDispatchKeyGuard":
        self._added = self._bits & ~local.excluded
        local.excluded |= self._added
        return self

    def __exit__(self, *exc: object) -> None:
        local.excluded &= ~self._added


class PreserveDispatchKeyGuard:
    """Restore both sets, whatever the block did to them."""

    __slots__ = ("_saved",)

    def __enter__(self) -> "PreserveDispatchKeyGuard":
        self._saved = (local.included, local.excluded)
        return self

    def __exit__(self, *exc: object) -> None:
        local.included, local.excluded = self._saved
