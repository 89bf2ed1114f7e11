"""The operator registry: kernels per key, computed tables, backend fallbacks, errors.

One `OperatorEntry` per operator overload holds the kernels registered for it
(a stack per key: the newest is active, removing it restores the one below),
and a *computed table* with one slot per runtime key, filled with PyTorch's
precedence (see `_compute_slot`). Calls do not read the table directly: each
entry keeps a cache from the incoming raw key set to the resolved kernel (with
fallthrough keys already masked out), cleared whenever a registration changes.

This module knows keys, schemas and kernels; nothing here knows about
tensors, autograd, Python subclasses or NumPy.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from typing import Any, Callable, Iterable

from . import keys as K
from .keys import DispatchKey, DispatchKeySet

# How a kernel is called. PLAIN is the common case and the only one the hot
# path calls inline.
PLAIN = 0              # fn(*args, **kwargs)
WITH_KEYSET = 1        # fn(keyset: DispatchKeySet, *args, **kwargs)
BOXED = 2              # fn(op, *args, **kwargs)            -- a backend fallback
BOXED_WITH_KEYSET = 3  # fn(keyset, op, *args, **kwargs)    -- a backend fallback
RAW = 4                # fn(op, keyset: int, args: tuple, kwargs: dict)  -- torchpy's features


class Kernel:
    """One registration of a function at one key.

    `specialize(op)`, if given, returns the function to run for one operator in place of
    `fn` (same calling convention, same behaviour): a fallback that serves every operator
    can unroll, per operator, work that depends only on its schema. Resolution asks once
    per resolved key set; the function is cached with the rest."""

    __slots__ = ("fn", "calling", "debug", "is_fallthrough", "specialize")

    def __init__(self, fn: Callable | None, calling: int, debug: str, is_fallthrough: bool = False,
                 specialize: Callable[[Any], Callable] | None = None):
        self.fn = fn
        self.calling = calling
        self.debug = debug
        self.is_fallthrough = is_fallthrough
        self.specialize = specialize

    def describe(self) -> str:
        return ("fallthrough " if self.is_fallthrough else "") + self.debug


# The sentinel PyTorch puts at AutogradOther when CompositeImplicitAutograd and
# a kernel for one of the AutogradOther backends are both registered.
def _ambiguous_autogradother(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError(
        "This kernel should never be called. It exists so that a call to an operator "
        "with kernels for one of the AutogradOther backends and a CompositeImplicitAutograd "
        "kernel fails loudly: register an Autograd or AutogradOther kernel for it."
    )


AMBIGUOUS_AUTOGRADOTHER = Kernel(_ambiguous_autogradother, PLAIN, "ambiguous_autogradother")


class RegistrationHandle:
    """Undoes one registration when `remove()` is called (at most once)."""

    __slots__ = ("_undo",)

    def __init__(self, undo: Callable[[], None]):
        self._undo: Callable[[], None] | None = undo

    def remove(self) -> None:
        undo, self._undo = self._undo, None
        if undo is not None:
            undo()


def caller_location(skip_prefixes: tuple[str, ...] = ()) -> str:
    """'registered at file:line' of the first frame outside torchpy's registration code."""
    here = os.path.dirname(os.path.abspath(__file__))
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(here) and not filename.startswith(skip_prefixes):
            return f"registered at {filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "registered at <unknown>"


class OperatorEntry:
    """Everything the dispatcher knows about one operator overload."""

    def __init__(self, name: str, overload_name: str):
        self.name = name                      # "aten::add"
        self.overload_name = overload_name    # "Tensor" ("" for the default overload)
        self.schema: Any = None               # a FunctionSchema once defined
        self.schema_debug = ""
        self.tags: tuple = ()
        self.kernels: dict[int, list[Kernel]] = {}
        self.table: list[Kernel | None] = [None] * K.NUM_RUNTIME_SLOTS
        self.labels: list[str] = ["missing"] * K.NUM_RUNTIME_SLOTS
        # Resolution caches, all cleared on every change. Keyed by the key set to
        # dispatch on: `cache` -> (fn, calling, masked key set, runtime key), and
        # `plain_cache` -> fn for PLAIN kernels (what redispatch reads), `raw_cache` ->
        # (fn, masked key set) for RAW ones. Keyed by
        # "tensor keys | TLS salt" (see tls.py), for OpOverload.__call__:
        # `call_cache` -> fn for PLAIN kernels, `call_raw_cache` -> (fn, masked key
        # set) for RAW ones.
        self.cache: dict[int, tuple] = {}
        self.plain_cache: dict[int, Callable] = {}
        self.raw_cache: dict[int, tuple] = {}
        self.call_cache: dict[int, Callable] = {}
        self.call_raw_cache: dict[int, tuple] = {}
        self.op: Any = None                   # the OpOverload, set by ops.py

    @property
    def qualified_name(self) -> str:
        return f"{self.name}.{self.overload_name}" if self.overload_name else self.name

    # --- the computed table ------------------------------------------------------

    def _active(self, key: int) -> Kernel | None:
        stack = self.kernels.get(key)
        return stack[-1] if stack else None

    def _has_direct_kernel_in(self, runtime_keys: frozenset[int]) -> bool:
        return any(k in runtime_keys and stack for k, stack in self.kernels.items())

    def _compute_slot(self, key: int, fallbacks: list[Kernel | None]) -> tuple[Kernel | None, str]:
        """PyTorch's precedence for one runtime key (OperatorEntry::computeDispatchTableEntry)."""
        direct = self._active(key)
        if direct is not None:
            return direct, "kernel"
        undefined = key == DispatchKey.Undefined
        for alias in (DispatchKey.CompositeExplicitAutogradNonFunctional,
                      DispatchKey.CompositeExplicitAutograd):
            kernel = self._active(alias)
            if kernel is not None and (undefined or K.is_included_in_alias(key, alias)):
                return kernel, "default backend kernel"
        nested = self._active(DispatchKey.CompositeImplicitAutogradNestedTensor)
        if nested is not None and K.is_included_in_alias(key, DispatchKey.CompositeImplicitAutogradNestedTensor):
            return nested, "nested kernel"
        math = self._active(DispatchKey.CompositeImplicitAutograd)
        if math is not None and (undefined or K.is_included_in_alias(key, DispatchKey.CompositeImplicitAutograd)):
            if key == DispatchKey.AutogradOther and self._has_direct_kernel_in(K.AUTOGRADOTHER_BACKENDS):
                return AMBIGUOUS_AUTOGRADOTHER, "ambiguous autogradother"
            # On AutogradX the decomposition is used only when backend X has no
            # kernel of its own and nothing is registered at CompositeExplicitAutograd.
            has_backend_kernel = (
                self._has_direct_kernel_in(K.backend_keys_for_autograd(key))
                or self._active(DispatchKey.CompositeExplicitAutograd) is not None
            )
            if not has_backend_kernel:
                return math, "math kernel"
        for alias, label in ((DispatchKey.Autograd, "autograd kernel"),
                             (DispatchKey.FuncTorchBatchedDecomposition, "batched kernel")):
            kernel = self._active(alias)
            if kernel is not None and K.is_included_in_alias(key, alias):
                return kernel, label
        fallback = fallbacks[key]
        if fallback is not None:
            return fallback, "backend fallback"
        return None, "missing"

    def recompute(self, fallbacks: list[Kernel | None], keys: Iterable[int] = K.RUNTIME_KEYS) -> None:
        """Recompute the table at runtime keys `keys` (all of them by default) and drop the caches."""
        for key in keys:
            self.table[key], self.labels[key] = self._compute_slot(key, fallbacks)
        self.clear_caches()

    def clear_caches(self) -> None:
        # cleared in place: the dicts are the same for the entry's lifetime
        for cache in (self.cache, self.plain_cache, self.raw_cache, self.call_cache, self.call_raw_cache):
            cache.clear()

    # --- resolving a call ----------------------------------------------------------

    def lookup(self, ks: int) -> tuple:
        """(fn, calling, masked ks, runtime key) for raw key set `ks`, not cached."""
        masked = K.without(ks, self._fallthrough_bits(K.highest_backend(ks)))
        key = K.highest_key(masked)
        kernel = self.table[key]
        if kernel is None or kernel.is_fallthrough:
            raise NotImplementedError(self.missing_kernel_message(key))
        fn = kernel.fn if kernel.specialize is None or self.op is None else kernel.specialize(self.op)
        return (fn, kernel.calling, masked, key)

    def resolve(self, ks: int) -> tuple:
        """lookup(ks), cached for the calls that follow."""
        hit = self.lookup(ks)
        self.cache[ks] = hit
        if hit[1] == PLAIN:
            self.plain_cache[ks] = hit[0]
        elif hit[1] == RAW:
            self.raw_cache[ks] = (hit[0], hit[2])
        return hit

    def _fallthrough_bits(self, backend: int) -> int:
        """Functionality bits whose slot (for this backend) is a fallthrough: the op skips them."""
        bits = 0
        for f in range(1, DispatchKey.EndOfFunctionalityKeys):
            slot = K.runtime_key_for(f, backend)
            kernel = self.table[slot] if K.is_runtime_key(slot) else None
            if kernel is not None and kernel.is_fallthrough:
                bits |= K.key_bits(f)
        return bits

    # --- describing ----------------------------------------------------------------------

    def _dump_order(self) -> list[int]:
        return [DispatchKey.Undefined] + list(K.iter_runtime_keys(K.FULL_KEYSET_BITS))

    def available_keys(self) -> list[str]:
        return [K.key_name(k) for k in self._dump_order()[1:] if self.table[k] is not None]

    def dump_table(self) -> str:
        lines = []
        for key in self._dump_order():
            kernel = self.table[key]
            if kernel is not None:
                lines.append(f"{K.key_name(key)}: {kernel.describe()} [{self.labels[key]}]")
        return "".join(line + "\n" for line in lines)

    def dump_registrations(self) -> str:
        schema = str(self.schema) if self.schema is not None else "(none)"
        lines = [f"name: {self.qualified_name}", f"schema: {schema}"]
        if self.schema_debug:
            lines.append(f"debug: {self.schema_debug}")
        for key, stack in sorted(self.kernels.items()):
            for kernel in reversed(stack):
                alias = "[alias]" if K.is_alias_key(key) else ""
                lines.append(f"{K.key_name(key)}{alias}: {kernel.describe()}")
        return "".join(line + "\n" for line in lines)

    def missing_kernel_message(self, key: int) -> str:
        name = self.qualified_name if self.overload_name else self.name
        available = ", ".join(self.available_keys())
        if key == DispatchKey.Undefined:
            return (
                "There were no tensor arguments to this function (e.g., you passed an empty list "
                f"of Tensors), but no fallback function is registered for schema {name}.  This "
                "usually means that this function requires a non-empty list of Tensors, or that "
                "you (the operator writer) forgot to register a fallback function.  Available "
                f"functions are [{available}].\n\n{self.dump_table()}"
            )
        return (
            f"Could not run '{name}' with arguments from the '{K.key_name(key)}' backend. This "
            "could be because the operator doesn't exist for this backend, or was omitted during "
            "the selective/custom build process (if using custom build). If you are a Facebook "
            "employee using PyTorch on mobile, please visit https://fburl.com/ptmfixes for "
            f"possible resolutions. '{name}' is only available for these backends: "
            f"[{available}].\n\n{self.dump_table()}"
        )


_override_warned = False


class Dispatcher:
    """The registry of operators and backend fallbacks. There is one, `dispatcher`."""

    def __init__(self) -> None:
        self.entries: dict[str, OperatorEntry] = {}   # "ns::name.overload" -> entry
        self.fallbacks: list[Kernel | None] = [None] * K.NUM_RUNTIME_SLOTS
        self.lock = threading.RLock()
        # Called with each newly defined entry; a listener may return a RegistrationHandle
        # (e.g. a feature registering a kernel for ops of some kind), undone with the definition.
        self.on_define: list[Callable[[OperatorEntry], RegistrationHandle | None]] = []
        self.on_undefine: list[Callable[[str], None]] = []  # e.g. torchpy.ops drops cached attributes

    # --- lookup ------------------------------------------------------------------------

    @staticmethod
    def split_name(qualified: str) -> tuple[str, str]:
        """'aten::add.Tensor' -> ('aten::add', 'Tensor')."""
        ns, sep, rest = qualified.partition("::")
        if not sep:
            raise ValueError(f"operator name must be namespaced (ns::name): {qualified!r}")
        name, _, overload = rest.partition(".")
        return f"{ns}::{name}", overload

    def find(self, qualified: str) -> OperatorEntry | None:
        return self.entries.get(qualified)

    def find_schema_or_throw(self, qualified: str) -> OperatorEntry:
        entry = self.entries.get(qualified)
        if entry is None or entry.schema is None:
            raise RuntimeError(f"Could not find schema for {qualified}")
        return entry

    def _entry(self, qualified: str) -> OperatorEntry:
        entry = self.entries.get(qualified)
        if entry is None:
            entry = OperatorEntry(*self.split_name(qualified))
            entry.recompute(self.fallbacks)
            self.entries[qualified] = entry
        return entry

    # --- registration ------------------------------------------------------------------

    def define(self, schema: Any, debug: str, tags: tuple = ()) -> RegistrationHandle:
        """Register an operator's schema. `schema` is a parsed FunctionSchema."""
        qualified = schema.name + (f".{schema.overload_name}" if schema.overload_name else "")
        with self.lock:
            existing = self.entries.get(qualified)
            if existing is not None and existing.schema is not None:
                raise RuntimeError(
                    f"Tried to register an operator ({schema}) with the same name and overload "
                    "name multiple times. Each overload's schema should only be registered with a "
                    f"single call to def(). Duplicate registration: {debug}. Original "
                    f"registration: {existing.schema_debug}"
                )
            entry = self._entry(qualified)
            entry.schema, entry.schema_debug, entry.tags = schema, debug, tuple(tags)
        follow_ups = [h for h in (listener(entry) for listener in self.on_define) if h is not None]

        def undo() -> None:
            for handle in follow_ups:
                handle.remove()
            with self.lock:
                entry.schema, entry.schema_debug, entry.tags = None, "", ()
                self._forget_if_empty(qualified, entry)
            for listener in self.on_undefine:
                listener(qualified)

        return RegistrationHandle(undo)

    def register_kernel(self, qualified: str, key: DispatchKey, kernel: Kernel, *,
                        warn_override: bool = True) -> RegistrationHandle:
        """Push `kernel` onto the op's stack at `key` (a runtime or alias key).

        `warn_override=False` is for deliberate overrides by torchpy itself (a custom op's
        ADInplaceOrView kernel over the generic one), which must not use up the warning."""
        global _override_warned
        key = DispatchKey(key)
        with self.lock:
            entry = self._entry(qualified)
            stack = entry.kernels.setdefault(key, [])
            if stack and warn_override and not _override_warned:
                _override_warned = True
                schema = str(entry.schema) if entry.schema is not None else qualified
                warnings.warn(
                    "Warning only once for all operators,  other operators may also be overridden.\n"
                    "  Overriding a previously registered kernel for the same operator and the same "
                    f"dispatch key\n  operator: {schema}\n    {entry.schema_debug or 'no debug info'}\n"
                    f"  dispatch key: {key.name}\n  previous kernel: {stack[-1].debug}\n"
                    f"       new kernel: {kernel.debug}",
                    UserWarning,
                    stacklevel=3,
                )
            stack.append(kernel)
            entry.recompute(self.fallbacks)

        def undo() -> None:
            with self.lock:
                stack.remove(kernel)
                if not stack:
                    del entry.kernels[key]
                entry.recompute(self.fallbacks)
                self._forget_if_empty(qualified, entry)

        return RegistrationHandle(undo)

    def register_fallback(self, key: DispatchKey, kernel: Kernel) -> RegistrationHandle:
        """A kernel used for every operator that has nothing else at runtime key `key`."""
        key = DispatchKey(key)
        slots = sorted(K.runtime_keys_covered(key))
        with self.lock:
            for slot in slots:
                if self.fallbacks[slot] is not None:
                    raise RuntimeError(
                        f"Tried to register multiple backend fallbacks for the same dispatch key "
                        f"{K.key_name(slot)}; previous registration {self.fallbacks[slot].debug}, "
                        f"new registration {kernel.debug}"
                    )
            for slot in slots:
                self.fallbacks[slot] = kernel
            self._recompute_slots(slots)

        def undo() -> None:
            with self.lock:
                for slot in slots:
                    if self.fallbacks[slot] is kernel:
                        self.fallbacks[slot] = None
                self._recompute_slots(slots)

        return RegistrationHandle(undo)

    def _recompute_slots(self, slots: list[int]) -> None:
        # A fallback is read only by its own slot's computation: the other slots cannot change
        # (recomputing every slot of every op made importing torchpy take seconds)
        for entry in self.entries.values():
            entry.recompute(self.fallbacks, slots)

    def _forget_if_empty(self, qualified: str, entry: OperatorEntry) -> None:
        # An entry with neither schema nor kernels is forgotten, so a failed or
        # undone registration leaves the registry as it was. Its OpOverload (if
        # any) keeps pointing at it; re-defining creates a fresh entry.
        if entry.schema is None and not entry.kernels and self.entries.get(qualified) is entry:
            del self.entries[qualified]

    # --- introspection -----------------------------------------------------------------

    def has_backend_fallback(self, key: DispatchKey) -> bool:
        return self.fallbacks[key] is not None

    def all_op_names(self) -> list[str]:
        return sorted(self.entries)


dispatcher = Dispatcher()


def keyset_repr(raw: int) -> str:
    return repr(DispatchKeySet.from_raw_repr(raw))
