"""Per-thread included / excluded dispatch keys, and the guards that change them.

Every dispatch computes ``(tensor keys | included) - excluded``. As in c10, a
fresh thread starts with BackendSelect and ADInplaceOrView included and the
Autocast keys excluded.

Each distinct (included, excluded) pair is a *TLS state* with a small index,
interned for the life of the process. A thread's `salt` is its state's index
shifted above every key bit, so ``tensor keys | salt`` names "these tensor keys
under this thread's state" in one int: operators cache their resolved kernel
under that int, and the hot path needs one attribute read and one `|`.

The salt is all a thread stores of its key sets: its included and excluded sets are
read from the state it names, so a kernel that switches state around a call
(autograd, the Python key) writes one value and restores one. Layers above keep
their own per-thread values on the same object (`thread_state`: the torch function
and dispatch mode stacks), so hot code reads several with one thread-local lookup.
"""

from __future__ import annotations

import threading
from typing import Callable, Iterable

from .keys import (
    DEFAULT_EXCLUDED_BITS,
    DEFAULT_INCLUDED_BITS,
    FULL_KEYSET_BITS,
    SALT_SHIFT,
    DispatchKey,
    DispatchKeySet,
    dispatch_keep_mask,
    without,
)


# state index -> (included, keep mask), for dispatch; state index -> (included, excluded);
# (included, excluded) -> state index
_states: list[tuple[int, int]] = []
_state_sets: list[tuple[int, int]] = []
_state_index: dict[tuple[int, int], int] = {}
_states_lock = threading.Lock()


def _salt_for(included: int, excluded: int) -> int:
    index = _state_index.get((included, excluded))
    if index is None:
        with _states_lock:
            index = _state_index.get((included, excluded))
            if index is None:
                index = len(_states)
                _states.append((included, dispatch_keep_mask(excluded)))
                _state_sets.append((included, excluded))
                _state_index[(included, excluded)] = index  # last: readers find complete entries
    return index << SALT_SHIFT


_DEFAULT_SALT = _salt_for(DEFAULT_INCLUDED_BITS, DEFAULT_EXCLUDED_BITS)  # 0


def effective_keyset(salted: int) -> int:
    """``tensor keys | salt`` -> the key set to dispatch on under that TLS state."""
    included, keep = _states[salted >> SALT_SHIFT]
    return ((salted & FULL_KEYSET_BITS) | included) & keep


def state_sets(salt: int) -> tuple[int, int]:
    """The (included, excluded) raw key sets of the TLS state `salt` names."""
    return _state_sets[salt >> SALT_SHIFT]


# Per-thread values that layers above keep on this same object (thread_state): name -> the
# factory of a thread's starting value.
_per_thread: dict[str, Callable[[], object]] = {}


class _LocalDispatchKeys(threading.local):
    """This thread's TLS state, as its salt; its included and excluded keys (raw key sets)
    are read from and written to the state table. Layers above keep their per-thread values
    here too (thread_state), so that one thread-local lookup reaches all of them."""

    salt: int = _DEFAULT_SALT  # a class attribute: each thread's starting value

    def __init__(self) -> None:
        # Everything in the thread's own dict, so hot code may work there: `local.__dict__` is
        # one thread-local lookup, after which reads and writes are plain dict operations (an
        # attribute read or write on a threading.local is a lookup each time).
        self.salt = _DEFAULT_SALT
        for name, make in _per_thread.items():
            setattr(self, name, make())

    @property
    def included(self) -> int:
        return _state_sets[self.salt >> SALT_SHIFT][0]

    @included.setter
    def included(self, bits: int) -> None:
        self.salt = _salt_for(bits, _state_sets[self.salt >> SALT_SHIFT][1])

    @property
    def excluded(self) -> int:
        return _state_sets[self.salt >> SALT_SHIFT][1]

    @excluded.setter
    def excluded(self, bits: int) -> None:
        self.salt = _salt_for(_state_sets[self.salt >> SALT_SHIFT][0], bits)


local = _LocalDispatchKeys()


def thread_state(**factories: Callable[[], object]) -> _LocalDispatchKeys:
    """Keep per-thread values `name=factory` on this module's TLS object (each thread starts
    with factory()) and return that object. For state read next to the salt on hot paths
    (torch function modes): `local.__dict__` then holds both. Call it at import, before other
    threads use the TLS (no __getattr__ fallback: it would slow every attribute read)."""
    for name, make in factories.items():
        if name in _per_thread or hasattr(_LocalDispatchKeys, name):
            raise RuntimeError(f"per-thread state {name!r} is already defined")
        _per_thread[name] = make
        setattr(local, name, make())  # this thread's (the importing one's)
    return local


# Save / set / restore for kernels that change both sets around a call.
def snapshot() -> int:
    return local.salt


def set_keys(included: int, excluded: int) -> None:
    local.salt = _salt_for(included, excluded)


def restore(saved: int) -> None:
    local.salt = saved


def transition(include: int = 0, uninclude: int = 0, exclude: int = 0) -> Callable[[], int]:
    """A function giving the salt of this thread's state with `include` added to its included
    set, `uninclude` taken out of it and `exclude` added to its excluded set, for code that
    switches state on every op (autograd, ADInplaceOrView) or every mode entry: a salt names
    its (included, excluded) pair, so the answer is cached per salt."""
    salts: dict[int, int] = {}

    def next_salt(current: int | None = None) -> int:
        """The target of the salt `current` (default: this thread's)."""
        if current is None:
            current = local.salt
        salt = salts.get(current)
        if salt is None:
            included, excluded = _state_sets[current >> SALT_SHIFT]
            salt = salts[current] = _salt_for(without(included | include, uninclude), excluded | exclude)
        return salt

    next_salt.salts = salts  # type: ignore[attr-defined]  (current -> target, for inline lookups)
    return next_salt


def excluding(bits: int) -> Callable[[], int]:
    """transition(exclude=bits)."""
    return transition(exclude=bits)


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
    local.included = local.included | bits if value else without(local.included, bits)


def set_key_excluded(key: DispatchKey, value: bool) -> None:
    bits = _raw(key)
    local.excluded = local.excluded | bits if value else without(local.excluded, bits)


class _KeyGuard:
    """Add keys to one of the thread's sets for a ``with`` block; on exit remove only
    the keys it added (keys already there stay, as c10's guards do)."""

    __slots__ = ("_bits", "_added")
    _which = ""  # "included" or "excluded"

    def __init__(self, keys: DispatchKey | DispatchKeySet | Iterable[DispatchKey]) -> None:
        self._bits = _raw(keys)
        self._added = 0

    def __enter__(self) -> "_KeyGuard":
        current = getattr(local, self._which)
        self._added = without(self._bits, current)
        setattr(local, self._which, current | self._added)
        return self

    def __exit__(self, *exc: object) -> None:
        setattr(local, self._which, without(getattr(local, self._which), self._added))


class IncludeDispatchKeyGuard(_KeyGuard):
    """Include keys for the duration of a ``with`` block."""

    __slots__ = ()
    _which = "included"


class ExcludeDispatchKeyGuard(_KeyGuard):
    """Exclude keys for the duration of a ``with`` block."""

    __slots__ = ()
    _which = "excluded"


class PreserveDispatchKeyGuard:
    """Restore both sets, whatever the block did to them."""

    __slots__ = ("_saved",)

    def __enter__(self) -> "PreserveDispatchKeyGuard":
        self._saved = (local.included, local.excluded)
        return self

    def __exit__(self, *exc: object) -> None:
        local.included, local.excluded = self._saved
