"""Fetchers: turn what the sampler yields (an index, a list of indices, or None for iterable
datasets) into one collated batch."""

from __future__ import annotations

import enum
from typing import Any, Callable

from ..._aten.public import functions as _F
from ..._features.python_key import mode_stack
from ..._tensor import dtype as _dt
from ..._tensor import function_modes
from ..._tensor.tensor import Tensor
from .collate import default_collate
from .dataset import TensorDataset


class DatasetKind(enum.IntEnum):
    Map = 0
    Iterable = 1


class MapDatasetFetcher:
    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Callable, drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        many = getattr(dataset, "__getitems__", None)
        self._getitems = many if callable(many) else None
        self._rows = _gatherable(dataset) if auto_collation and collate_fn is default_collate else None

    def fetch(self, index: Any) -> Any:
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        if self._rows is not None:
            batch = _gather_rows(self._rows, index)
            if batch is not None:
                return batch
        if self._getitems is not None:
            return self.collate_fn(self._getitems(index))
        dataset = self.dataset
        return self.collate_fn([dataset[i] for i in index])


def _gatherable(dataset: Any) -> tuple[Tensor, ...] | None:
    """The tensors of a plain TensorDataset (not a subclass, which may index its own way)."""
    if type(dataset) is not TensorDataset or not dataset.tensors:
        return None
    tensors = tuple(dataset.tensors)
    return tensors if all(type(t) is Tensor for t in tensors) else None


def _gather_rows(tensors: tuple[Tensor, ...], index: Any) -> list[Tensor] | None:
    """default_collate([dataset[i] for i in index]) for a TensorDataset in one gather per
    tensor: the same values, dtypes, shapes and layout as stacking the selected rows. None
    where the per-sample path must run instead: when a mode would see the ops (it must see
    torch's select and stack), when autograd would record them (the grad_fn differs), for
    indices other than ints, and on any error (so the error is the per-sample path's)."""
    if not index or mode_stack.dispatch_modes or function_modes.mode_on():
        return None
    if any(type(i) is not int for i in index) or any(t.requires_grad for t in tensors):
        return None
    try:
        rows = _F.tensor(index, dtype=_dt.int64)
        return [t[rows] for t in tensors]
    except Exception:  # noqa: BLE001 - the per-sample path raises torch's error for it
        return None


class IterableDatasetFetcher:
    def __init__(self, dataset: Any, auto_collation: bool, collate_fn: Callable, drop_last: bool) -> None:
        self.dataset_iter = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, index: Any) -> Any:
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def create_fetcher(kind: DatasetKind, dataset: Any, auto_collation: bool, collate_fn: Callable,
                   drop_last: bool) -> MapDatasetFetcher | IterableDatasetFetcher:
    cls = MapDatasetFetcher if kind == DatasetKind.Map else IterableDatasetFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
