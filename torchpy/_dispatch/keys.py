"""Dispatch keys, backend components and the int-backed DispatchKeySet.

The layout mirrors PyTorch 2.13 (c10/core/DispatchKey.h, DispatchKeySet.h):

* A key set is a 64-bit int. The low 16 bits are *backend components*
  (CPU, CUDA, ..., Meta); the bits above are *functionalities* (Dense,
  Python, AutogradFunctionality, ...). A higher bit means a higher priority.
* A few functionalities are *per backend* (Dense, Quantized, Sparse,
  SparseCsr, NestedTensor, AutogradFunctionality): the runtime key is the
  pair (functionality, highest backend bit), e.g. AutogradCPU.
* Alias keys (Autograd, CompositeImplicitAutograd, ...) never appear in a key
  set; registering a kernel at one fills the runtime keys it covers.

Key order lives here and nowhere else. Key values equal PyTorch's enum values,
so a runtime key is also its slot in an operator's computed table.
"""

from __future__ import annotations

import enum
from typing import Iterable, Iterator

NUM_BACKENDS = 16
BACKEND_MASK = (1 << NUM_BACKENDS) - 1


class BackendComponent(enum.IntEnum):
    InvalidBit = 0
    CPUBit = 1
    CUDABit = 2
    HIPBit = 3
    XLABit = 4
    MPSBit = 5
    IPUBit = 6
    XPUBit = 7
    HPUBit = 8
    VEBit = 9
    LazyBit = 10
    MTIABit = 11
    MAIABit = 12
    PrivateUse1Bit = 13
    PrivateUse2Bit = 14
    PrivateUse3Bit = 15
    MetaBit = 16


_BACKEND_NAMES = [b.name[:-3] for b in BackendComponent if b]  # "CPU", ..., "Meta"

# Functionality keys, lowest priority first (value 1 .. 46).
_FUNCTIONALITIES = [
    "Dense", "FPGA", "Vulkan", "Metal", "Quantized", "CustomRNGKeyId", "MkldnnCPU",
    "Sparse", "SparseCsr", "NestedTensor", "BackendSelect", "Fake", "Python",
    "FuncTorchDynamicLayerBackMode", "Functionalize", "Conjugate", "Negative",
    "ZeroTensor", "ADInplaceOrView", "AutogradOther", "AutogradFunctionality",
    "AutogradNestedTensor", "Tracer", "AutocastCPU", "AutocastMTIA", "AutocastMAIA",
    "AutocastXPU", "AutocastIPU", "AutocastHPU", "AutocastXLA", "AutocastMPS",
    "AutocastCUDA", "AutocastPrivateUse1", "FuncTorchBatched", "BatchedNestedTensor",
    "FuncTorchVmapMode", "Batched", "VmapMode", "FuncTorchGradWrapper", "DeferredInit",
    "PythonTLSSnapshot", "FuncTorchDynamicLayerFrontMode", "TESTING_ONLY_GenericWrapper",
    "TESTING_ONLY_GenericMode", "PreDispatch", "PythonDispatcher",
]

# Per-backend functionalities and the prefix their runtime keys carry.
_PER_BACKEND = {
    "Dense": "", "Quantized": "Quantized", "Sparse": "Sparse", "SparseCsr": "SparseCsr",
    "NestedTensor": "NestedTensor", "AutogradFunctionality": "Autograd",
}

_ALIASES = [
    "Autograd", "CompositeImplicitAutograd", "FuncTorchBatchedDecomposition",
    "CompositeImplicitAutogradNestedTensor", "CompositeExplicitAutograd",
    "CompositeExplicitAutogradNonFunctional",
]


def _build_key_members() -> dict[str, int]:
    members = {"Undefined": 0}
    for value, name in enumerate(_FUNCTIONALITIES, start=1):
        members[name] = value
    members["EndOfFunctionalityKeys"] = len(_FUNCTIONALITIES) + 1
    value = members["EndOfFunctionalityKeys"] + 1
    for functionality, prefix in _PER_BACKEND.items():
        members[f"StartOf{functionality}Backends"] = value
        for backend in _BACKEND_NAMES:
            value += 1
            members[prefix + backend] = value
        members[f"EndOf{functionality}Backends"] = value
        value += 1
    for name in _ALIASES:
        members[name] = value
        value += 1
    return members


DispatchKey = enum.IntEnum("DispatchKey", _build_key_members())
DispatchKey.__doc__ = "A dispatch key; the value is PyTorch 2.13's enum value."
DispatchKey.__module__ = __name__
DispatchKey.__str__ = lambda self: f"DispatchKey.{self.name}"  # as PyTorch prints it

# --- facts about each key, as flat tables indexed by key value ------------------

_FUNCTIONALITY_SHIFT = NUM_BACKENDS - 1  # functionality value f lives at bit 15 + f
FULL_KEYSET_BITS = (1 << (NUM_BACKENDS + len(_FUNCTIONALITIES))) - 1
NUM_RUNTIME_SLOTS = DispatchKey.EndOfAutogradFunctionalityBackends + 1

_PER_BACKEND_VALUES = {DispatchKey[f].value for f in _PER_BACKEND}
# For a per-backend functionality: the value just before its first runtime key.
_BACKEND_START = {DispatchKey[f].value: DispatchKey[f"StartOf{f}Backends"].value for f in _PER_BACKEND}

# key value -> (functionality value, backend bit or 0)
_KEY_PARTS: dict[int, tuple[int, int]] = {}
for _f in range(len(_FUNCTIONALITIES) + 1):
    _KEY_PARTS[_f] = (_f, 0)
for _f, _start in _BACKEND_START.items():
    _KEY_PARTS[_start] = (_f, 0)  # StartOf...Backends stands for the bare functionality
    for _b in range(1, NUM_BACKENDS + 1):
        _KEY_PARTS[_start + _b] = (_f, _b)

# Runtime keys: those with a slot in an operator's table (Undefined included).
RUNTIME_KEYS: tuple[int, ...] = tuple(
    v for v, (f, b) in sorted(_KEY_PARTS.items()) if (f in _PER_BACKEND_VALUES) == (b != 0)
)


_RUNTIME_SET = frozenset(RUNTIME_KEYS)


def is_runtime_key(key: int) -> bool:
    return key in _RUNTIME_SET


def is_alias_key(key: int) -> bool:
    return key >= DispatchKey.Autograd


def is_per_backend_functionality(key: int) -> bool:
    return key in _PER_BACKEND_VALUES


def functionality_of(key: int) -> int:
    """The functionality key of a runtime key (AutogradCPU -> AutogradFunctionality)."""
    return _KEY_PARTS[key][0]


def backend_of(key: int) -> int:
    """The backend component of a per-backend runtime key (AutogradCPU -> CPUBit), else 0."""
    return _KEY_PARTS[key][1]


def key_bits(key: int) -> int:
    """The raw key-set bits of a non-alias key (its functionality bit and backend bit)."""
    f, b = _KEY_PARTS[key]
    bits = (1 << (_FUNCTIONALITY_SHIFT + f)) if f else 0
    if b:
        bits |= 1 << (b - 1)
    return bits


def runtime_key_for(functionality: int, backend: int) -> int:
    """Combine a functionality and a backend bit into a runtime key."""
    if functionality in _BACKEND_START:
        return _BACKEND_START[functionality] + backend if backend else functionality
    return functionality


def highest_key(ks: int) -> int:
    """The highest-priority runtime key in a raw key set (0 = Undefined).

    Two bit_length() calls: the highest functionality, then, if that
    functionality is per backend, the highest backend bit.
    """
    f = (ks >> NUM_BACKENDS).bit_length()
    start = _BACKEND_START.get(f)
    if start is None:
        return f
    b = (ks & BACKEND_MASK).bit_length()
    return start + b if b else f


def full_after(key: int) -> int:
    """Raw bits of every key strictly below `key` (plus all backend bits): the redispatch mask.

    As in c10, PythonDispatcher is always kept: it is above everything and only
    present when a thread includes it.
    """
    f = functionality_of(key)
    return ((1 << (_FUNCTIONALITY_SHIFT + f)) - 1) | BACKEND_MASK | key_bits(DispatchKey.PythonDispatcher)


def full_up_to(key: int) -> int:
    """Raw bits of `key`'s functionality and every functionality below it."""
    f = functionality_of(key)
    return ((1 << (_FUNCTIONALITY_SHIFT + f + 1)) - 1) | BACKEND_MASK


def iter_runtime_keys(ks: int) -> Iterator[int]:
    """Runtime keys in a raw key set, lowest priority first (PyTorch's iteration order)."""
    backends = [b for b in range(1, NUM_BACKENDS + 1) if ks >> (b - 1) & 1]
    functionalities = ks >> NUM_BACKENDS
    f = 0
    while functionalities:
        if functionalities & 1:
            start = _BACKEND_START.get(f + 1)
            if start is None:
                yield f + 1
            else:
                for b in backends:
                    yield start + b
        functionalities >>= 1
        f += 1


def key_name(key: int) -> str:
    return DispatchKey(key).name


def parse_key(name: str | int | DispatchKey) -> DispatchKey:
    """A DispatchKey from its name ("CPU", "" for CompositeImplicitAutograd is the caller's job)."""
    if isinstance(name, DispatchKey):
        return name
    if isinstance(name, int):
        return DispatchKey(name)
    try:
        return DispatchKey[name]
    except KeyError:
        raise ValueError(f"could not parse dispatch key: {name}") from None


# --- alias keys: which runtime keys each one covers --------------------------------


def _per_backend(functionality: str, exclude: Iterable[str] = ()) -> set[int]:
    prefix = _PER_BACKEND[functionality]
    return {DispatchKey[prefix + b].value for b in _BACKEND_NAMES if b not in set(exclude)}


def _named(*names: str) -> set[int]:
    return {DispatchKey[n].value for n in names}


# Backends that share the AutogradOther slot instead of owning an autograd key.
AUTOGRADOTHER_BACKENDS = frozenset(
    _named("FPGA", "Vulkan", "Metal", "CustomRNGKeyId", "MkldnnCPU")
    | _per_backend("Quantized") | _per_backend("Sparse") | _per_backend("SparseCsr")
)
_AUTOGRAD_KEYS = frozenset(
    _named("AutogradOther", "AutogradNestedTensor") | _per_backend("AutogradFunctionality")
)
_BACKEND_KEYS = frozenset(_per_backend("Dense") | AUTOGRADOTHER_BACKENDS)
_NON_FUNCTIONAL_EXCLUDED = ("XLA", "Lazy")

ALIAS_COVERAGE: dict[int, frozenset[int]] = {
    DispatchKey.Autograd: _AUTOGRAD_KEYS,
    DispatchKey.CompositeExplicitAutograd: _BACKEND_KEYS,
    DispatchKey.CompositeImplicitAutograd: _BACKEND_KEYS | _AUTOGRAD_KEYS
    | _per_backend("NestedTensor"),
    DispatchKey.CompositeImplicitAutogradNestedTensor: frozenset(
        _per_backend("NestedTensor") | _named("AutogradNestedTensor")
    ),
    DispatchKey.CompositeExplicitAutogradNonFunctional: frozenset(
        _named("FPGA", "Vulkan", "Metal", "CustomRNGKeyId", "MkldnnCPU")
        | _per_backend("Dense", _NON_FUNCTIONAL_EXCLUDED)
        | _per_backend("Quantized", _NON_FUNCTIONAL_EXCLUDED)
        | _per_backend("SparseCsr", _NON_FUNCTIONAL_EXCLUDED)
    ),
    DispatchKey.FuncTorchBatchedDecomposition: frozenset(_named("FuncTorchBatched")),
}


def runtime_keys_covered(key: int) -> frozenset[int]:
    """The runtime keys a registration at `key` fills (itself, for a runtime key)."""
    if key in ALIAS_COVERAGE:
        return ALIAS_COVERAGE[key]
    return frozenset((key,))


def is_included_in_alias(key: int, alias: int) -> bool:
    return key in ALIAS_COVERAGE[alias]


def backend_keys_for_autograd(key: int) -> frozenset[int]:
    """The backend keys whose own kernel stops CompositeImplicitAutograd at autograd `key`."""
    if key == DispatchKey.AutogradOther:
        return AUTOGRADOTHER_BACKENDS
    if key == DispatchKey.AutogradNestedTensor:
        return frozenset(_per_backend("NestedTensor"))
    f, b = _KEY_PARTS.get(key, (0, 0))
    if f == DispatchKey.AutogradFunctionality and b and b not in _NO_AUTOGRAD_BACKEND_LINK:
        return frozenset((runtime_key_for(DispatchKey.Dense, b),))
    return frozenset()


# PyTorch 2.13's getBackendKeySetFromAutograd has no case for these backends,
# so their own kernels do not stop CompositeImplicitAutograd at AutogradHIP etc.
_NO_AUTOGRAD_BACKEND_LINK = frozenset(
    (BackendComponent.HIPBit, BackendComponent.VEBit, BackendComponent.MTIABit)
)


AUTOGRAD_BITS = 0
for _k in _AUTOGRAD_KEYS:
    AUTOGRAD_BITS |= key_bits(_k)
AUTOCAST_BITS = 0
for _name in _FUNCTIONALITIES:
    if _name.startswith("Autocast"):
        AUTOCAST_BITS |= key_bits(DispatchKey[_name])

# PyTorch's per-thread defaults: BackendSelect and ADInplaceOrView are always
# included; autocast stays excluded until autocast is turned on.
DEFAULT_INCLUDED_BITS = key_bits(DispatchKey.BackendSelect) | key_bits(DispatchKey.ADInplaceOrView)
DEFAULT_EXCLUDED_BITS = AUTOCAST_BITS

# The keys a Python subclass or TorchDispatchMode adds, and everything else (for hot paths that
# drop them with one `&`).
PYTHON_BITS = key_bits(DispatchKey.Python) | key_bits(DispatchKey.PythonTLSSnapshot)
ALL_BUT_PYTHON_BITS = FULL_KEYSET_BITS & ~PYTHON_BITS

# A TLS state's salt (tls.py) is its index shifted to here, above every key bit, so that
# `tensor keys | salt` is one int and `& FULL_KEYSET_BITS` gives the keys back.
SALT_SHIFT = 64
assert FULL_KEYSET_BITS >> SALT_SHIFT == 0


# --- key-set algebra for the layers above: they call these rather than shift or complement bits ---


def without(ks: int, bits: int) -> int:
    """Raw key set `ks` minus the keys in `bits`."""
    return ks & ~bits


def highest_backend(ks: int) -> int:
    """The highest backend component in raw key set `ks` (a BackendComponent value; 0 if none)."""
    return (ks & BACKEND_MASK).bit_length()


def functionalities_above(key: int) -> int:
    """Raw bits of every functionality above `key`'s, without backend bits: what a layer at
    `key` excludes so that its own calls dispatch below it."""
    return FULL_KEYSET_BITS & ~full_up_to(key)


def dispatch_keep_mask(excluded: int) -> int:
    """The bits a dispatch keeps when `excluded` is the thread's excluded set. Excluding a key
    removes its functionality bit only: backend bits are shared by every functionality (c10's
    operator-). Positive, because `&` with a negative int is slower in CPython."""
    return FULL_KEYSET_BITS & ~(excluded & ~BACKEND_MASK)


# --- the public, immutable key set ---------------------------------------------------


class DispatchKeySet:
    """An immutable set of dispatch keys over a raw int, as c10::DispatchKeySet.

    The dispatcher's hot path works on the raw int; this class is the readable
    face of it for users, kernels that take a key set, and tests.
    """

    __slots__ = ("_raw",)

    def __init__(self, keys: int | DispatchKey | Iterable[DispatchKey] | None = None) -> None:
        raw = 0
        if keys is None:
            pass
        elif isinstance(keys, DispatchKey):
            raw = 0 if is_alias_key(keys) else key_bits(keys)
        elif isinstance(keys, DispatchKeySet):
            raw = keys._raw
        else:
            for k in keys:
                raw |= DispatchKeySet(parse_key(k))._raw
        object.__setattr__(self, "_raw", raw)

    @classmethod
    def from_raw_repr(cls, raw: int) -> "DispatchKeySet":
        ks = cls.__new__(cls)
        object.__setattr__(ks, "_raw", raw)
        return ks

    def raw_repr(self) -> int:
        return self._raw

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("DispatchKeySet is immutable")

    def __or__(self, other: "DispatchKeySet") -> "DispatchKeySet":
        return DispatchKeySet.from_raw_repr(self._raw | other._raw)

    def __and__(self, other: "DispatchKeySet") -> "DispatchKeySet":
        return DispatchKeySet.from_raw_repr(self._raw & other._raw)

    def __sub__(self, other: "DispatchKeySet") -> "DispatchKeySet":
        # Removing a per-backend runtime key removes its functionality only: the
        # backend bit stays, as in c10 (backend bits are shared by functionalities).
        return DispatchKeySet.from_raw_repr(self._raw & ~(other._raw & ~BACKEND_MASK))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DispatchKeySet) and other._raw == self._raw

    def __hash__(self) -> int:
        return hash(self._raw)

    def __bool__(self) -> bool:
        return bool(self._raw)

    def __iter__(self) -> Iterator[DispatchKey]:
        return (DispatchKey(k) for k in iter_runtime_keys(self._raw))

    def __contains__(self, key: DispatchKey) -> bool:
        return self.has(key)

    def has(self, key: DispatchKey) -> bool:
        bits = key_bits(key)
        return bits != 0 and self._raw & bits == bits

    def add(self, key: DispatchKey) -> "DispatchKeySet":
        return self | DispatchKeySet(key)

    def remove(self, key: DispatchKey) -> "DispatchKeySet":
        return self - DispatchKeySet(key)

    def highest_priority_type_id(self) -> DispatchKey:
        return DispatchKey(highest_key(self._raw))

    highestPriorityTypeId = highest_priority_type_id  # PyTorch's spelling

    def __repr__(self) -> str:
        return "DispatchKeySet(" + ", ".join(k.name for k in self) + ")"

    __str__ = __repr__
