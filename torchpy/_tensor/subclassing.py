"""Making instances of Tensor subclasses: _make_subclass, _make_wrapper_subclass, as_subclass.

A subclass whose class defines `__torch_dispatch__` gets the Python and
PythonTLSSnapshot keys in its key set, so its ops reach the Python key.
"""

from __future__ import annotations

from typing import Any

from .._dispatch import keys as K
from .._dispatch import tls
from .._dispatch.ops import op_for
from . import dtype as _dt
from .device import CPU, canonical_device, keyset_for
from .function_modes import call_mode, mode_on, track
from .members import MODES, NONE, declare, tensor_member
from .tensor import (
    _LAYOUTS, Size, Tensor, contiguous_layout_of, contiguous_strides_of, init_fields, storage_of,
)

_function_modes = False  # whether any thread has a TorchFunctionMode (function_modes keeps it)
track(globals())
_PYTHON_BITS = K.PYTHON_BITS


def _disabled_torch_dispatch_impl(func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    """Tensor.__torch_dispatch__: run `func` with the Python keys off (the plain computation),
    which is what `super().__torch_dispatch__(...)` in a subclass gets."""
    saved = tls.snapshot()
    tls.set_keys(tls.local.included & K.ALL_BUT_PYTHON_BITS, tls.local.excluded | _PYTHON_BITS)
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
    return base_keyset & K.ALL_BUT_PYTHON_BITS


_class_keysets: dict[tuple[type, int], int] = {}  # (class, source key set) -> the instance's key set


def _class_keyset(cls: type, base_keyset: int) -> int:
    keyset = _class_keysets.get((cls, base_keyset))
    if keyset is None:
        if len(_class_keysets) > 4096:  # classes made in a loop: keep the memo bounded
            _class_keysets.clear()
        keyset = _class_keysets[(cls, base_keyset)] = _keyset_for_class(cls, base_keyset)
    return keyset


def _check_subclass(cls: Any) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not "
                        "possible. Make sure your class inherits from Tensor.")


def alias_as(cls: type, source: Tensor) -> Tensor:
    """A `cls` instance over the same memory and metadata as `source`, sharing its storage and
    version counter, with no autograd state and no attributes of its own yet. `cls` must be a
    Tensor class: the public entry points (as_subclass, _make_subclass) check it."""
    counter = source._version_counter
    if counter is None:
        counter = source._version_counter = [0]
    return init_fields(
        object.__new__(cls), _class_keyset(cls, source._keyset), source._data, source._shape, source._stride,
        source._offset, source._dtype, source._device,
        source._storage if source._data is None else storage_of(source), source._base, counter)


def _run_without_dispatch_modes(fn: Any, *args: Any) -> Any:
    """fn(*args) with the TorchDispatchMode stack set aside (torch's StashTorchDispatchStackGuard);
    the Python key's module installs the real one."""
    return fn(*args)


def _make_subclass(cls: type, data: Tensor, require_grad: bool = False, **_: Any) -> Tensor:
    """torch.Tensor._make_subclass: a `cls` tensor sharing `data`'s storage, as a new leaf."""
    _check_subclass(cls)
    out = alias_as(cls, data)
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
    if type(size) is Size:  # elem.shape, most often: ints already; its tuple and strides remembered
        shape, contiguous = _LAYOUTS.get(size) or contiguous_layout_of(size)
    else:
        shape = tuple(map(int, size))
        contiguous = None
    if device is CPU:
        dev = CPU
        keyset = _cpu_wrapper_keysets.get(cls) or _wrapper_keyset(cls, CPU)
    else:
        dev = canonical_device(device)
        keyset = _wrapper_keyset(cls, dev)
    out = init_fields(
        object.__new__(cls), keyset, None, shape,
        tuple(strides) if strides is not None else contiguous or contiguous_strides_of(shape),
        storage_offset or 0, dtype if dtype is not None else _dt.get_default_dtype(), dev, None)
    if requires_grad:
        out.requires_grad_(True)
    return out


def as_subclass(self: Tensor, cls: type) -> Tensor:
    """The same data as a `cls` instance: an alias (a view of self) that stays on self's
    autograd graph. As in torch, the alias is made with the dispatch modes set aside, so a
    mode does not see it."""
    _check_subclass(cls)
    if self._requires_grad or self._autograd_meta is not None or self._data is None or \
            self._keyset & _PYTHON_BITS:
        # the alias op: it records AliasBackward0, carries a tangent, or asks a subclass
        aliased = _run_without_dispatch_modes(op_for("aten::alias").__call__, self)
        out = alias_as(cls, aliased)
        out._requires_grad = aliased._requires_grad
        out._grad_fn = aliased._grad_fn
        out._autograd_meta = aliased._autograd_meta
        return out
    out = alias_as(cls, self)  # what the alias op computes for a plain CPU tensor, without the op
    out._base = self._base if self._base is not None else self
    return out


@tensor_member("as_subclass", checks=MODES)
def as_subclass_method(self: Tensor, cls: type) -> Tensor:
    """Tensor.as_subclass: as_subclass, seen by a TorchFunctionMode (torchpy's own conversions
    call the function, which no mode sees)."""
    if _function_modes and mode_on():
        return call_mode(Tensor.as_subclass, self, cls)
    return as_subclass(self, cls)


as_subclass_method.__name__ = as_subclass_method.__qualname__ = "as_subclass"
declare("__torch_dispatch__", staticmethod(_disabled_torch_dispatch_impl), checks=NONE)
declare("_make_subclass", staticmethod(_make_subclass), checks=NONE)
declare("_make_wrapper_subclass", staticmethod(_make_wrapper_subclass), checks=NONE)
