"""torchpy.ops.<ns>.<name>.<overload>: the callable face of registered operators.

`OpOverload.__call__` is the dispatcher's hot path: bind the arguments to the
schema (skipped when a positional call needs no normalization), union the
tensors' key sets with the thread's included keys, remove the excluded ones,
look the key set up in the operator's resolution cache and call the kernel.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from . import keys as K
from . import tls
from .binding import Binder
from .dispatcher import (
    BOXED,
    BOXED_WITH_KEYSET,
    PLAIN,
    RAW,
    WITH_KEYSET,
    OperatorEntry,
    dispatcher,
)
from .keys import DispatchKey, DispatchKeySet

_local = tls.local


def _tensor_arg_plan(schema: Any) -> tuple[int, tuple[tuple[int, str, bool], ...]]:
    """(fast positional count, tensor-argument positions) for a schema.

    The fast count is the number of leading required plain-Tensor arguments
    when every later argument has a default: a positional call with exactly
    that many tensors is already in normalized form. Otherwise it is -1.
    """
    plan = tuple(
        (i, arg.name, arg.type.is_list)
        for i, arg in enumerate(schema.arguments)
        if arg.type.base_name == "Tensor"
    )
    n_fast = 0
    for arg in schema.arguments:
        if arg.kwarg_only or str(arg.type) != "Tensor" or arg.has_default:
            break
        n_fast += 1
    if n_fast == 0 or not all(arg.has_default for arg in schema.arguments[n_fast:]):
        n_fast = -1
    return n_fast, plan


# Tracing (trace.py) is a hook on the caches' miss path. Setting it empties every resolution
# cache, and while it is set nothing is cached, so every call and redispatch misses and
# reaches it; a cache hit anywhere therefore means no trace is active, and the hot path
# (ops.py's and the inline copies of its cached step above the dispatcher) tests no flag.
_trace_hook: Callable[["OpOverload", int, tuple, dict, str], Any] | None = None


def set_trace_hook(hook: Callable[["OpOverload", int, tuple, dict, str], Any] | None) -> None:
    """Install `hook(op, keyset, args, kwargs, "call" | "redispatch")` (None: remove it), which
    then resolves and runs every call itself (see `run_uncached`)."""
    global _trace_hook
    _trace_hook = hook
    for entry in list(dispatcher.entries.values()):
        entry.clear_caches()


def run_uncached(op: "OpOverload", ks: int, args: tuple, kwargs: dict) -> Any:
    """Resolve raw key set `ks` for `op` without caching the result, and run the kernel."""
    return _invoke(op, op._entry.lookup(ks), args, kwargs)


def _invoke(op: "OpOverload", hit: tuple, args: tuple, kwargs: dict) -> Any:
    """Call a kernel whose calling convention is not PLAIN."""
    fn, calling, ks = hit[0], hit[1], hit[2]
    if calling == RAW:
        return fn(op, ks, args, kwargs)
    if calling == WITH_KEYSET:
        return fn(DispatchKeySet.from_raw_repr(ks), *args, **kwargs)
    if calling == BOXED:
        return fn(op, *args, **kwargs)
    if calling == BOXED_WITH_KEYSET:
        return fn(DispatchKeySet.from_raw_repr(ks), op, *args, **kwargs)
    if calling == PLAIN:
        return fn(*args, **kwargs)
    raise AssertionError(f"unknown calling convention {calling}")


class OpOverload:
    """One operator overload, e.g. torchpy.ops.aten.add.Tensor."""

    def __init__(self, packet: "OpOverloadPacket", entry: OperatorEntry):
        self._entry = entry
        # The entry's resolution caches (the same dicts for the entry's lifetime;
        # see OperatorEntry.__init__).
        self._call_cache = entry.call_cache
        self._call_raw_cache = entry.call_raw_cache
        self._plain_cache = entry.plain_cache
        self._cache = entry.cache
        # Frameless probes of those caches (bound dict.get) for the few hot sites above the
        # dispatcher where call()'s frame would cost as much as the rest of their work (binary
        # dunders, x[i], autograd's pass-through). None means "take the full path" (call() /
        # redispatch_raw): not resolved yet, another calling convention, or a trace active (it
        # keeps the caches empty), so a caller is right whatever the dispatcher is doing.
        #   probe_call("tensor keys | salt") -> the PLAIN kernel call() would run
        #   probe_call_raw("tensor keys | salt") -> (RAW kernel, key set to hand it) call() would run
        #   probe_redispatch(key set) -> the PLAIN kernel redispatch_raw would run
        #   probe_redispatch_raw(key set) -> (RAW kernel, key set to hand it) redispatch_raw would run
        self.probe_call = entry.call_cache.get
        self.probe_call_raw = entry.call_raw_cache.get
        self.probe_redispatch = entry.plain_cache.get
        self.probe_redispatch_raw = entry.raw_cache.get
        self._schema = entry.schema
        # For the layers above (the generated bindings, feature kernels): the schema's binder,
        # how many positional tensor-led arguments __call__ dispatches without binding, and
        # call_normalized / redispatch_raw below, which take arguments bound already.
        self.binder = Binder(entry.schema)
        self.n_fast, self._tensor_args = _tensor_arg_plan(entry.schema)
        self._overloadpacket = packet
        self._overloadname = entry.overload_name or "default"
        self._opname = packet._name
        self.namespace = packet._ns
        self.__name__ = f"{packet._name}.{self._overloadname}"
        self.__qualname__ = self.__name__
        self.__module__ = f"torchpy.ops.{packet._ns}"
        entry.op = self

    # --- the call path -------------------------------------------------------------

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        n = self.n_fast
        if kwargs or len(args) != n:
            return self._call_bound(args, kwargs)
        try:  # unrolled for the common arities: a loop costs more than the rest of this block
            if n == 1:
                ks = args[0]._keyset
            elif n == 2:
                ks = args[0]._keyset | args[1]._keyset
            else:
                ks = 0
                for a in args:
                    ks |= a._keyset
        except AttributeError:  # a non-tensor where a Tensor goes: let the binder convert or complain
            return self._call_bound(args, kwargs)
        salted = ks | _local.salt
        fn = self._call_cache.get(salted)
        if fn is not None:
            return fn(*args)
        hit = self._call_raw_cache.get(salted)
        if hit is not None:  # a feature kernel (e.g. autograd's fallback)
            return hit[0](self, hit[1], args, kwargs)
        return self._call_miss(salted, args, kwargs)

    def _call_miss(self, salted: int, args: tuple, kwargs: dict) -> Any:
        """Resolve a call the hot-path caches have not seen, cache it, and run it."""
        ks = tls.effective_keyset(salted)
        if _trace_hook is not None:
            return _trace_hook(self, ks, args, kwargs, "call")
        hit = self._cache.get(ks)
        if hit is None:
            hit = self._entry.resolve(ks)
        if hit[1] == PLAIN:
            self._call_cache[salted] = hit[0]
        elif hit[1] == RAW:
            self._call_raw_cache[salted] = (hit[0], hit[2])
        return _invoke(self, hit, args, kwargs)

    def _call_bound(self, args: tuple, kwargs: dict) -> Any:
        args, kwargs = self.binder.bind(args, kwargs)
        return self.call_normalized(args, kwargs)

    def call_normalized(self, args: tuple, kwargs: dict) -> Any:
        """Dispatch arguments already bound and normalized against this op's schema."""
        ks = tls.effective_keyset(self._extract_keyset(args, kwargs) | _local.salt)
        fn = self._plain_cache.get(ks)
        if fn is not None:
            return fn(*args, **kwargs)
        hit = self._cache.get(ks)
        if hit is None:
            return self._resolve_and_run(ks, args, kwargs, "call")
        if hit[1] == RAW:
            return hit[0](self, hit[2], args, kwargs)
        return _invoke(self, hit, args, kwargs)

    def _extract_keyset(self, args: tuple, kwargs: dict) -> int:
        ks = 0
        n = len(args)
        for position, name, is_list in self._tensor_args:
            value = args[position] if position < n else kwargs.get(name)
            if value is None:
                continue
            if is_list:
                for item in value:
                    if item is not None:
                        ks |= item._keyset
            else:
                ks |= getattr(value, "_keyset", 0)
        return ks

    def redispatch_raw(self, ks: int, args: tuple, kwargs: dict) -> Any:
        """Dispatch normalized (args, kwargs) on raw key set `ks` as given (no TLS applied)."""
        fn = self._plain_cache.get(ks)
        if fn is not None:
            return fn(*args, **kwargs)
        hit = self._cache.get(ks)
        if hit is None:
            return self._resolve_and_run(ks, args, kwargs, "redispatch")
        if hit[1] == RAW:  # feature kernels (autograd, Python key): the common non-plain case
            return hit[0](self, hit[2], args, kwargs)
        return _invoke(self, hit, args, kwargs)

    def _resolve_and_run(self, ks: int, args: tuple, kwargs: dict, how: str) -> Any:
        """The caches' miss path, and the one place a trace sees: resolve `ks`, cache, run."""
        if _trace_hook is not None:
            return _trace_hook(self, ks, args, kwargs, how)
        return _invoke(self, self._entry.resolve(ks), args, kwargs)

    def redispatch(self, keyset: DispatchKeySet, /, *args: Any, **kwargs: Any) -> Any:
        """Call the kernel for `keyset` (typically a kernel's key set with its own key removed)."""
        return self.redispatch_raw(keyset.raw_repr(), args, kwargs)

    def decompose(self, *args: Any, **kwargs: Any) -> Any:
        """Run the CompositeImplicitAutograd kernel, or return NotImplemented if there is none."""
        fn = self.decomposition()
        if fn is None:
            return NotImplemented
        return fn(*args, **kwargs)

    def decomposition(self) -> Callable | None:
        """The active CompositeImplicitAutograd kernel's function, or None."""
        kernel = self._entry._active(DispatchKey.CompositeImplicitAutograd)
        return None if kernel is None else kernel.fn

    # --- identity and description ----------------------------------------------------

    def name(self) -> str:
        return self._entry.qualified_name

    @property
    def overloadpacket(self) -> "OpOverloadPacket":
        return self._overloadpacket

    @property
    def op(self) -> "OpOverload":
        return self

    @property
    def tags(self) -> list:
        return list(self._entry.tags)

    def has_kernel_for_dispatch_key(self, key: DispatchKey | str) -> bool:
        key = K.parse_key(key)
        return self._entry.table[key] is not None if K.is_runtime_key(key) else key in self._entry.kernels

    def __repr__(self) -> str:
        return f"<OpOverload(op='{self.namespace}.{self._opname}', overload='{self._overloadname}')>"

    def __str__(self) -> str:
        return f"{self.namespace}.{self._opname}.{self._overloadname}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpOverload) and other.name() == self.name()

    def __hash__(self) -> int:
        return hash(self.name())


def call(op: OpOverload, ks: int, /, *args: Any) -> Any:
    """op(*args) for arguments already in normalized positional form whose tensors' key sets
    OR to `ks`: the one way code above the dispatcher calls an op once it has bound the
    arguments itself (bindings, dunders, kernels built from other ops). The dispatch is the
    full one (TLS, modes, autograd, fallbacks, a trace); only argument binding is skipped."""
    salted = ks | _local.salt
    fn = op._call_cache.get(salted)
    if fn is not None:
        return fn(*args)
    hit = op._call_raw_cache.get(salted)
    if hit is not None:
        return hit[0](op, hit[1], args, {})
    return op._call_miss(salted, args, {})


def call_kw(op: OpOverload, ks: int, args: tuple, kwargs: dict) -> Any:
    """call() for normalized arguments that include keyword-only ones."""
    salted = ks | _local.salt
    fn = op._call_cache.get(salted)
    if fn is not None:
        return fn(*args, **kwargs)
    hit = op._call_raw_cache.get(salted)
    if hit is not None:
        return hit[0](op, hit[1], args, kwargs)
    return op._call_miss(salted, args, kwargs)


class OpOverloadPacket:
    """All overloads of one operator name, e.g. torchpy.ops.aten.add."""

    def __init__(self, ns: str, name: str):
        self._ns = ns
        self._name = name
        self._qualified_op_name = f"{ns}::{name}"
        self.__name__ = name
        self.__qualname__ = name
        self.__module__ = f"torchpy.ops.{ns}"

    def _entries(self) -> list[OperatorEntry]:
        prefix = self._qualified_op_name
        return [
            e for e in dispatcher.entries.values()
            if e.name == prefix and e.schema is not None
        ]

    def overloads(self) -> list[str]:
        return [e.overload_name or "default" for e in self._entries()]

    @property
    def _schemas(self) -> dict[str, Any]:
        return {e.overload_name: e.schema for e in self._entries()}

    def __getattr__(self, overload: str) -> OpOverload:
        if overload.startswith("__"):
            raise AttributeError(overload)
        key = "" if overload == "default" else overload
        qualified = self._qualified_op_name + (f".{key}" if key else "")
        entry = dispatcher.find(qualified)
        if entry is None or entry.schema is None:
            raise AttributeError(
                f"The underlying op of '{self._ns}.{self._name}' has no overload name '{overload}'"
            )
        op = entry.op if entry.op is not None and entry.op._schema is entry.schema else OpOverload(self, entry)
        setattr(self, overload, op)  # later lookups skip __getattr__
        return op

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        """Call the first overload (in definition order) whose schema accepts the arguments."""
        errors = []
        for entry in self._entries():
            op = getattr(self, entry.overload_name or "default")
            try:
                op.binder.bind(args, kwargs)
            except (TypeError, RuntimeError) as error:
                errors.append(f"{entry.schema}: {error}")
                continue
            return op(*args, **kwargs)
        raise RuntimeError(
            f"Overloaded torchpy operator invoked from Python failed to match any schema:\n"
            + "\n\n".join(errors)
        )

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self._ns}.{self._name}')>"

    def __str__(self) -> str:
        return f"{self._ns}.{self._name}"

    def __iter__(self) -> Iterator[str]:
        return iter(self._schemas)


class _OpNamespace:
    """torchpy.ops.<ns>: packets created on first access."""

    def __init__(self, ns: str):
        self.name = ns
        self.__name__ = f"torchpy.ops.{ns}"

    def __getattr__(self, op_name: str) -> OpOverloadPacket:
        qualified = f"{self.name}::{op_name}"
        if not any(e.name == qualified and e.schema is not None for e in dispatcher.entries.values()):
            if op_name.startswith("__"):  # Python's protocol lookups (aten::__lshift__ & co. are ops)
                raise AttributeError(op_name)
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        packet = OpOverloadPacket(self.name, op_name)
        setattr(self, op_name, packet)
        return packet

    def __iter__(self) -> Iterator[str]:
        prefix = f"{self.name}::"
        return iter(sorted({e.name[len(prefix):] for e in dispatcher.entries.values()
                            if e.name.startswith(prefix) and e.schema is not None}))


class _Ops:
    """torchpy.ops: namespaces created on first access."""

    __name__ = "torchpy.ops"

    def __getattr__(self, ns: str) -> _OpNamespace:
        if ns.startswith("__"):
            raise AttributeError(ns)
        namespace = _OpNamespace(ns)
        setattr(self, ns, namespace)
        return namespace


ops = _Ops()


def _forget_cached(qualified: str) -> None:
    """Drop torchpy.ops attributes for an operator whose schema went away."""
    name, overload = dispatcher.split_name(qualified)
    ns, _, op_name = name.partition("::")
    namespace = ops.__dict__.get(ns)
    packet = namespace.__dict__.get(op_name) if namespace is not None else None
    if packet is None:
        return
    packet.__dict__.pop(overload or "default", None)
    if not packet._entries():
        namespace.__dict__.pop(op_name, None)


dispatcher.on_undefine.append(_forget_cached)


def op_for(qualified: str) -> OpOverload:
    """The OpOverload for 'ns::name.overload' (or 'ns::name' for the default overload)."""
    name, overload = dispatcher.split_name(qualified)
    ns, _, op_name = name.partition("::")
    return getattr(getattr(getattr(ops, ns), op_name), overload or "default")
