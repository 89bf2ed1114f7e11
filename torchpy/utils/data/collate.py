"""default_collate (a list of samples -> one batch) and default_convert (one sample's NumPy
parts -> tensors), with torch's rules: tensors are stacked, Python floats become float64 and
ints int64 tensors, NumPy arrays and scalars become tensors, strings stay lists, and
containers (dicts, named tuples, sequences) are collated field by field."""

from __future__ import annotations

import collections.abc
import copy
import re
from typing import Any, Callable

import numpy as np

from ..._aten.public import functions as _F
from ..._tensor import dtype as _dt
from ..._tensor.enums import strided
from ..._tensor.tensor import Tensor

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

# NumPy dtype kinds torch leaves alone: byte and unicode strings, objects.
_STRING_OR_OBJECT = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}")

CollateMap = dict


def _rebuild_mapping(like: Any, items: dict) -> Any:
    """`items` in the mapping type of `like` (a copy for mutable ones), or a dict if that fails."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)
            clone.update(items)
            return clone
        return type(like)(items)
    except TypeError:
        return items


def _rebuild_sequence(like: Any, items: list) -> Any:
    """`items` in the sequence type of `like` (a copy for mutable ones), or a list if that fails."""
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(like)(items)
    except TypeError:
        return items


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def default_convert(data: Any) -> Any:
    """NumPy arrays and scalars to tensors, recursively through containers (tuples become
    lists, as in torch); string and object arrays and everything else unchanged."""
    kind = type(data)
    if isinstance(data, Tensor):
        return data
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_"):
        if kind.__name__ == "ndarray" and _STRING_OR_OBJECT.search(data.dtype.str):
            return data
        return _F.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if _is_namedtuple(data):
        return kind(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def collate(batch: Any, *, collate_fn_map: CollateMap | None = None) -> Any:
    """Collate `batch` (a sequence of samples) by the first sample's type: a function from
    `collate_fn_map` (exact type first, then isinstance in the map's order), else
    containers field by field."""
    elem = batch[0]
    kind = type(elem)
    if collate_fn_map is not None:
        if kind in collate_fn_map:
            return collate_fn_map[kind](batch, collate_fn_map=collate_fn_map)
        for types, fn in collate_fn_map.items():
            if isinstance(elem, types):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(
            elem, {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem})
    if _is_namedtuple(elem):
        return kind(*(collate(field, collate_fn_map=collate_fn_map) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [collate(field, collate_fn_map=collate_fn_map) for field in zip(*batch)]
        return fields if isinstance(elem, tuple) else _rebuild_sequence(elem, fields)
    raise TypeError(default_collate_err_msg_format.format(kind))


def collate_tensor_fn(batch: Any, *, collate_fn_map: CollateMap | None = None) -> Tensor:
    if batch[0].layout is not strided:
        raise RuntimeError(
            "Batches of sparse tensors are not currently supported by the default collate_fn; "
            "please provide a custom collate_fn to handle them appropriately.")
    return _F.stack(batch, 0)


def collate_numpy_array_fn(batch: Any, *, collate_fn_map: CollateMap | None = None) -> Any:
    dtype = batch[0].dtype
    if _STRING_OR_OBJECT.search(dtype.str):
        raise TypeError(default_collate_err_msg_format.format(dtype))
    return collate([_F.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: Any, *, collate_fn_map: CollateMap | None = None) -> Tensor:
    return _F.as_tensor(batch)


def collate_float_fn(batch: Any, *, collate_fn_map: CollateMap | None = None) -> Tensor:
    return _F.tensor(batch, dtype=_dt.float64)


def collate_int_fn(batch: Any, *, collate_fn_map: CollateMap | None = None) -> Tensor:
    return _F.tensor(batch)


def collate_str_fn(batch: Any, *, collate_fn_map: CollateMap | None = None) -> Any:
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch: Any) -> Any:
    """torch's default_collate: stack a list of samples into a batch (see the module's doc)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
