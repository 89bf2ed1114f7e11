"""Datasets: the map-style and iterable-style bases and the ready-made ones torch ships
(TensorDataset, StackDataset, ConcatDataset, ChainDataset, Subset) and random_split."""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from typing import Any, Generic, Iterable, Iterator, Sequence, TypeVar

from ..._aten.kernels.random import Generator, default_generator
from ..._aten.public import functions as _F
from ..._tensor.tensor import Tensor

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset",
    "Subset", "random_split",
]

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")


class Dataset(Generic[T_co]):
    """A map-style dataset: `__getitem__(index)` and, usually, `__len__`.

    No default `__len__` (as torch): len() of a dataset that has none raises TypeError.
    No `__getitems__` either: the loader only batches through it when a subclass defines one.
    """

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: "Dataset[T_co]") -> "ConcatDataset[T_co]":
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """An iterable-style dataset: `__iter__` yields the samples (a stream, no indices)."""

    def __add__(self, other: Dataset[T_co]) -> "ChainDataset":  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple]):
    """Samples are the tensors' rows: `dataset[i] == tuple(t[i] for t in tensors)`."""

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Zips datasets of one length: positional ones give tuples, keyword ones give dicts."""

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or"
                "``dict``- (via ``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets: tuple | dict = args if args else kwargs

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list) -> list:
        named = isinstance(self.datasets, dict)
        columns = [_fetch_many(d, indices) for d in (self.datasets.values() if named else self.datasets)]
        if named:
            keys = list(self.datasets)
            return [dict(zip(keys, row)) for row in zip(*columns)]
        return [tuple(row) for row in zip(*columns)] if columns else [() for _ in indices]

    def __len__(self) -> int:
        return self._length


def _fetch_many(dataset: Any, indices: list) -> list:
    """One dataset's samples at `indices`, through its __getitems__ when it has one."""
    many = getattr(dataset, "__getitems__", None)
    if not callable(many):
        return [dataset[i] for i in indices]
    items = many(indices)
    if len(items) != len(indices):
        raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, got {len(items)}")
    return items


class ConcatDataset(Dataset[T_co]):
    """Map-style datasets end to end; `cumulative_sizes[i]` is where dataset i ends."""

    @staticmethod
    def cumsum(sequence: Iterable[Any]) -> list[int]:
        return list(itertools.accumulate(len(d) for d in sequence))

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        super().__init__()
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> T_co:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]

    @property
    def cummulative_sizes(self) -> list[int]:
        warnings.warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`", FutureWarning,
                      stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """Iterable datasets one after another, chained lazily."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        super().__init__()
        self.datasets = datasets

    def _checked(self) -> Iterator[IterableDataset]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield d

    def __iter__(self) -> Iterator[Any]:
        for d in self._checked():
            yield from d

    def __len__(self) -> int:
        return sum(len(d) for d in self._checked())  # type: ignore[arg-type]


class Subset(Dataset[T_co]):
    """The samples of `dataset` at `indices`, renumbered from 0."""

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices
        cls = type(self)
        # The loader batches through __getitems__, which would skip an overridden __getitem__.
        if cls.__getitem__ is not Subset.__getitem__ and cls.__getitems__ is Subset.__getitems__:
            raise NotImplementedError(
                f"{cls.__name__} overrides __getitem__ but not __getitems__. "
                "When subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. "
                "A simple implementation:\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx: Any) -> T_co:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list[T_co]:
        inner = [self.indices[i] for i in indices]
        many = getattr(self.dataset, "__getitems__", None)
        if callable(many):
            return many(inner)
        return [self.dataset[i] for i in inner]

    def __len__(self) -> int:
        return len(self.indices)


def _lengths_from_fractions(n: int, fractions: Sequence[float]) -> list[int]:
    """floor(n * f) each, then the remainder handed out one by one from the first split."""
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                          stacklevel=3)
    return lengths


def random_split(dataset: Dataset[T], lengths: Sequence[int | float],
                 generator: Generator | None = default_generator) -> list[Subset[T]]:
    """Split `dataset` at random into Subsets of the given lengths (or fractions summing to 1),
    by one randperm from `generator`, as torch does."""
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        lengths = _lengths_from_fractions(len(dataset), lengths)  # type: ignore[arg-type]
    if sum(lengths) != len(dataset):  # type: ignore[arg-type]
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = _F.randperm(sum(lengths), generator=generator).tolist()
    ends = itertools.accumulate(lengths)
    return [Subset(dataset, indices[end - length:end]) for end, length in zip(ends, lengths)]
