"""Making instances of Tensor subclasses: _make_subclass, _make_wrapper_subclass, as_subclass.

A subclass whose class defines `__torch_dispatch__` gets the Python and
PythonTLSSnapshot keys in its key set, so its ops reach the Python key.
"""

from __future__ import annotations

from typing import Any

from .._dispatch import keys as K
from .._dispatch import tls
from .._dispatch.keys import DispatchKey
from . import dtype as _dt
from .device import CPU, canonical_device, keyset_for
from .tensor import Size, Tensor, contiguous_strides_of

_PYTHON_BITS = K.key_bits(DispatchKey.Python) | K.key_bits(DispatchKey.PythonTLSSnapshot)
_SLOTS = tuple(s for s in Tensor.__slots__ if s != "__weakref__")


def _disabled_torch_dispatch_impl(func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    """Tensor.__torch_dispatch__: run `func` with the Python keys off (the plain computation),
    which is what `super().__torch_dispatch__(...)` in a subclass gets."""
    saved = tls.snapshot()
    tls.set_keys(tls.local.included & ~_PYTHON_BITS, tls.local.excluded | _PYTHON_BITS)
    try:
        return func(*args, **(kwargs or {}))
    finally:
        tls.restore(saved)


def _dispatches_in_python(cls: type) -> bool:
    handler = getattr(cls, "__torch_dispatch__", None)
    return handler is not None and getattr(handler, "__func__", handler) is not _disabled_torch_dispatch_impl


def _keyset_for_class(cls: type, base_keyset: int) -> int:
    if _dispatches_in_python(cls):
        return base_keyset | _PYTHON_BITS
    return base_keyset & ~_PYTHON_BITS


def alias_as(cls: type, source: Tensor) -> Tensor:
    """A `cls` instance over the same memory and metadata as `source` (no autograd state)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"cls must be a subclass of torch.Tensor, but got {cls}")
    out = object.__new__(cls)
    for name in _SLOTS:
        setattr(out, name, getattr(source, name))
    source.untyped_storage() if source._data is not None else None
    out._storage = source._storage
    out._requires_grad = False
    out._grad = None
    out._grad_fn = None
    out._autograd_meta = None
    out._wrapped = None
    out._keyset = _keyset_for_class(cls, source._keyset)
    return out


def _make_subclass(cls: type, data: Tensor, require_grad: bool = False, **_: Any) -> Tensor:
    """torch.Tensor._make_subclass: a `cls` tensor sharing `data`'s storage, as a new leaf."""
    out = alias_as(cls, data)
    if data._version_counter is None:
        data._version_counter = [0]
    out._version_counter = data._version_counter
    if require_grad:
        out.requires_grad_(True)
    return out


_wrapper_keysets: dict[tuple[type, Any], int] = {}  # (class, device) -> key set
_cpu_wrapper_keysets: dict[type, int] = {}  # the same for CPU, keyed by class alone (hashing a device costs)


def _wrapper_keyset(cls: type, dev: Any) -> int:
    keyset = _wrapper_keysets.get((cls, dev))
    if keyset is None:
        keyset = _wrapper_keysets[(cls, dev)] = _keyset_for_class(cls, keyset_for(dev))
        if dev is CPU:
            _cpu_wrapper_keysets[cls] = keyset
    return keyset


def _make_wrapper_subclass(
    cls: type,
    size: Any,
    strides: Any = None,
    storage_offset: int | None = None,
    memory_format: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
    dispatch_sizes_strides_policy: Any = None,
    dispatch_device: bool = False,
    dispatch_layout: bool = False,
    _extra_dispatch_keys: Any = None,
    storage_size: Any = None,
) -> Tensor:
    """torch.Tensor._make_wrapper_subclass: metadata only, no storage of its own (an empty one
    is made when asked for)."""
    # Runs for every op result of a wrapper subclass: the common arguments take short paths.
    shape = tuple(size) if type(size) is Size else tuple(map(int, size))  # a Size holds ints already
    if device is CPU:
        dev = CPU
        keyset = _cpu_wrapper_keysets.get(cls) or _wrapper_keyset(cls, CPU)
    else:
        dev = canonical_device(device)
        keyset = _wrapper_keyset(cls, dev)
    out = object.__new__(cls)
    out._keyset = keyset
    out._data = None
    out._shape = shape
    if strides is not None:
        out._stride = tuple(strides)
    else:
        out._stride = contiguous_strides_of(shape)
    out._offset = storage_offset or 0
    out._dtype = dtype if dtype is not None else _dt.get_default_dtype()
    out._device = dev
    out._storage = None
    out._base = None
    out._version_counter = None
    out._requires_grad = False
    out._grad = None
    out._grad_fn = None
    out._autograd_meta = None
    out._wrapped = None
    if requires_grad:
        out.requires_grad_(True)
    return out


def as_subclass(self: Tensor, cls: type) -> Tensor:
    """The same data as a `cls` instance that stays attached to self's autograd graph."""
    from .._dispatch.ops import op_for

    aliased = op_for("aten::alias").__call__(self) if self._requires_grad else self
    out = alias_as(cls, aliased)
    out._requires_grad = aliased._requires_grad
    out._grad_fn = aliased._grad_fn
    out._autograd_meta = aliased._autograd_meta
    out._version_counter = aliased._version_counter
    return out


def install() -> None:
    Tensor.__torch_dispatch__ = staticmethod(_disabled_torch_dispatch_impl)
    Tensor._make_subclass = staticmethod(_make_subclass)
    Tensor._make_wrapper_subclass = staticmethod(_make_wrapper_subclass)
    Tensor.as_subclass = as_subclass


install()  # Tensor gains these members as soon as the subclass machinery is loaded
