"""The pickler of torch.save: torchpy objects written under torch's names.

A tensor is written as torch writes it: `torch._utils._rebuild_tensor_v2(<storage>, offset,
size, stride, requires_grad, OrderedDict())` (or `_rebuild_tensor_v3` with the dtype, for
dtypes without a legacy storage class), its storage as the persistent id
`('storage', torch.<Name>Storage, key, 'cpu', numel)`. Keys number the storages in the order
first met, so tensors sharing a storage name one key and load sharing memory again.

The globals must read `torch.*` whatever torchpy's objects are called, which the C pickler
cannot write (it checks a global by importing it): this pickler derives from pickle's Python
implementation and writes TorchName placeholders as GLOBAL opcodes itself.
"""

from __future__ import annotations

import pickle
from collections import OrderedDict
from typing import Any

import numpy as np

from .._aten.kernels.view import storage_bytes
from .._tensor.device import device
from .._tensor.dtype import dtype
from .._tensor.enums import layout
from .._tensor.tensor import Size, Tensor, UntypedStorage, storage_of
from ..nn.parameter import Parameter
from ._names import torch_name
from ._storage import LEGACY_STORAGE_NAMES


class TorchName:
    """A global written by name only (`module name`), never looked up while pickling."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __call__(self, *args: Any) -> Any:  # pickle wants a reduce's function to be callable
        raise TypeError(f"{self.module}.{self.name} is a name written into a checkpoint")


_REBUILD_V2 = TorchName("torch._utils", "_rebuild_tensor_v2")
_REBUILD_V3 = TorchName("torch._utils", "_rebuild_tensor_v3")
_REBUILD_PARAMETER = TorchName("torch._utils", "_rebuild_parameter")
_REBUILD_PARAMETER_WITH_STATE = TorchName("torch._utils", "_rebuild_parameter_with_state")
_REBUILD_FROM_TYPE = TorchName("torch._tensor", "_rebuild_from_type_v2")
_DEVICE = TorchName("torch", "device")
_SIZE = TorchName("torch", "Size")
_GET_LAYOUT = TorchName("torch.serialization", "_get_layout")
_UNTYPED = TorchName("torch.storage", "UntypedStorage")
_STORAGE_NAMES = {d: TorchName("torch", name) for d, name in LEGACY_STORAGE_NAMES.items()}
_STORAGE, _CPU = "storage", "cpu"


class StorageRef:
    """A storage as the pickle refers to it: its persistent id."""

    __slots__ = ("persistent_id",)

    def __init__(self, persistent_id: tuple) -> None:
        self.persistent_id = persistent_id


class StorageTable:
    """The storages met while pickling, numbered in order: key -> flat bytes to write."""

    def __init__(self, legacy: bool = False) -> None:
        self.legacy = legacy  # the legacy format's ids carry a sixth field, view_metadata (None)
        self.keys: dict[int, str] = {}
        self.dtypes: dict[int, dtype] = {}
        self.records: dict[str, np.ndarray] = {}
        self.itemsizes: dict[str, int] = {}
        self._alive: list[UntypedStorage] = []  # ids stay unique while the table lives

    def ref(self, t: Tensor) -> StorageRef:
        if t._data is None:
            raise RuntimeError(f"torchpy.save cannot save a tensor without data (device {t.device})")
        storage = storage_of(t)
        d = t._dtype
        key = self.keys.get(id(storage))
        if key is None:
            key = self.keys[id(storage)] = str(len(self.keys))
            self.dtypes[id(storage)] = d
            self.records[key] = storage_bytes(t)
            self.itemsizes[key] = d.itemsize
            self._alive.append(storage)
        elif self.dtypes[id(storage)] is not d:
            raise RuntimeError(
                "Cannot save multiple tensors or storages that view the same data as different types")
        nbytes = storage.nbytes()
        storage_type = _STORAGE_NAMES.get(d)
        numel = nbytes if storage_type is None else nbytes // d.itemsize
        persistent_id = (_STORAGE, storage_type or _UNTYPED, key, _CPU, numel)
        return StorageRef(persistent_id + (None,) if self.legacy else persistent_id)


def _tensor_args(t: Tensor, table: StorageTable, requires_grad: bool) -> tuple[TorchName, tuple]:
    args = (table.ref(t), t.storage_offset(), tuple(t.shape), tuple(t.stride()), requires_grad, OrderedDict())
    if t._dtype in _STORAGE_NAMES:
        return _REBUILD_V2, args
    return _REBUILD_V3, args + (t._dtype,)


class _PlainTensor:
    """A parameter's data, pickled as a plain tensor inside `_rebuild_parameter`."""

    __slots__ = ("tensor",)

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor


def _tensor_state(t: Tensor) -> Any:
    return dict(t.__dict__) if t.__dict__ else None


def reduce_tensor(t: Tensor, table: StorageTable) -> tuple:
    if type(t) is Parameter:
        state = _tensor_state(t)
        data = _PlainTensor(t)
        if state is None:
            return _REBUILD_PARAMETER, (data, t.requires_grad, OrderedDict())
        return _REBUILD_PARAMETER_WITH_STATE, (data, t.requires_grad, OrderedDict(), state)
    func, args = _tensor_args(t, table, t.requires_grad)
    state = _tensor_state(t)
    if type(t) is Tensor and state is None:
        return func, args
    return _REBUILD_FROM_TYPE, (func, type(t), args, state or {})


def _pickler_base(pickle_module: Any) -> type:
    # the Python implementation: its save_global is the one that can be taught torch's names
    return getattr(pickle_module, "_Pickler", None) or pickle._Pickler


def make_pickler(pickle_module: Any) -> type:
    """A pickler class over pickle_module's Python pickler that writes torch's format."""
    base = _pickler_base(pickle_module)

    class CheckpointPickler(base):  # type: ignore[misc, valid-type]
        dispatch = dict(base.dispatch)

        def __init__(self, file: Any, protocol: int, table: StorageTable) -> None:
            super().__init__(file, protocol)
            self.table = table

        def persistent_id(self, obj: Any) -> Any:
            return obj.persistent_id if type(obj) is StorageRef else None

        def reducer_override(self, obj: Any) -> Any:
            cls = type(obj)
            if cls is _PlainTensor:
                return _tensor_args(obj.tensor, self.table, False)  # a parameter's .data, as torch
            if isinstance(obj, Tensor):
                return reduce_tensor(obj, self.table)
            if cls is device:
                return _DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index)
            if cls is Size:
                return _SIZE, (tuple(obj),)
            if cls is layout:
                return _GET_LAYOUT, (str(obj),)
            return NotImplemented

        def write_name(self, module: str, name: str, obj: Any) -> None:
            self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode("utf-8"))
            self.memoize(obj)

        def save_torch_name(self, obj: TorchName) -> None:
            self.write_name(obj.module, obj.name, obj)

        def save_dtype(self, obj: dtype) -> None:
            self.write_name("torch", str(obj).split(".", 1)[1], obj)

        def save_global(self, obj: Any, name: Any = None) -> None:
            renamed = torch_name(obj) if name is None else None
            if renamed is None:
                super().save_global(obj, name)
            else:
                self.write_name(renamed[0], renamed[1], obj)

        dispatch[TorchName] = save_torch_name
        dispatch[dtype] = save_dtype
        for _kind, _saver in list(dispatch.items()):  # functions: the base's entry bypasses the override
            if _saver is base.save_global:
                dispatch[_kind] = save_global

    return CheckpointPickler
