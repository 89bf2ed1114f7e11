"""Samplers: what order a map-style dataset's indices come in, drawn from torch's random
streams exactly as torch's samplers draw them (so a seed gives torch's order)."""

from __future__ import annotations

import itertools
from typing import Any, Generic, Iterable, Iterator, Sequence, Sized, TypeVar

from ..._aten.kernels.random import Generator
from ..._aten.public import functions as _F
from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor

__all__ = [
    "BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
    "WeightedRandomSampler",
]

T_co = TypeVar("T_co", covariant=True)
_CHUNK = 32  # RandomSampler with replacement draws its indices 32 at a time, as torch


class Sampler(Generic[T_co]):
    """Base class: `__iter__` yields indices (or lists of them); `__len__` is optional."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


def _seeded_generator() -> Generator:
    """A fresh generator seeded from the default one, as torch's RandomSampler makes it."""
    seed = int(_F.empty((), dtype=_dt.int64).random_().item())
    generator = Generator()
    generator.manual_seed(seed)
    return generator


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A shuffled order (whole permutations, then a cut one) or, with `replacement`,
    `num_samples` uniform draws."""

    def __init__(self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
                 generator: Generator | None = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = _seeded_generator() if self.generator is None else self.generator
        total = self.num_samples
        if self.replacement:
            for size in [_CHUNK] * (total // _CHUNK) + [total % _CHUNK]:
                yield from _F.randint(high=n, size=(size,), dtype=_dt.int64, generator=generator).tolist()
        else:
            for _ in range(total // n):
                yield from _F.randperm(n, generator=generator).tolist()
            yield from _F.randperm(n, generator=generator).tolist()[:total % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order (one randperm)."""

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in _F.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """`num_samples` indices drawn with probabilities proportional to `weights` (torch.multinomial)."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Generator | None = None) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights_tensor = _F.as_tensor(weights, dtype=_dt.float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             f"weights have shape {tuple(weights_tensor.shape)}")
        self.weights: Tensor = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        drawn = _F.multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list]):
    """Groups another sampler's indices into lists of `batch_size` (the last one shorter
    unless `drop_last`)."""

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        while batch := list(itertools.islice(indices, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


class _InfiniteConstantSampler(Sampler):
    """The loader's sampler for an iterable dataset: None forever (the dataset has no indices)."""

    def __iter__(self) -> Iterator[Any]:
        return itertools.repeat(None)
