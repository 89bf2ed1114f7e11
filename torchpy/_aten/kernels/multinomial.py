"""multinomial and exponential_, drawing from torch's CPU stream as torch's CPU kernels do.

exponential_: one 53-bit uniform u per element (random64, for every dtype), then
-1/lambda * log1p(-u) in double, cast to the tensor's dtype.

multinomial without replacement (or a single sample): the exponential-race trick torch uses,
keys = p / Exp(1) drawn in p's dtype, then the top `num_samples` keys (argmax for one).
With replacement: per row, the cumulative sum in p's dtype (float for half types) divided by
the total, its last entry set to 1; each sample is the first bucket whose cumulative value is
>= a 53-bit uniform, rows one after another.
"""

from __future__ import annotations

import math

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, from_array
from ..meta.multinomial import exponential__meta, multinomial_meta, multinomial_out_meta
from ..registry import register
from .factory import write_factory_result
from .random import Generator, _generator, _uniform_unit, _write

_MAX_CATEGORIES = 2**24  # FLOAT32_MAX_CONSECUTIVE_INT


def _exponential_values(gen: Generator, n: int, lambd: float) -> np.ndarray:
    u = _uniform_unit(gen, n, double=True).tolist()
    # math.log1p is the C library's, as torch's; NumPy's own log1p differs in the last bit at times.
    scale = -1.0 / lambd
    return np.array([scale * math.log1p(-x) for x in u], dtype=np.float64)


def exponential_(self: Tensor, lambd: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    d = self._dtype
    if not d.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {d._c10_name}")
    return _write(self, _exponential_values(_generator(generator), self.numel(), lambd))


def _check(self: Tensor, num_samples: int, replacement: bool) -> None:
    if not 0 < self.dim() <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not self._dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {self._dtype._c10_name}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = self._shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if categories > _MAX_CATEGORIES:
        raise RuntimeError("number of categories cannot exceed 2^24")


def _without_replacement(p: np.ndarray, num_samples: int, gen: Generator) -> np.ndarray:
    if not (np.all(p < np.inf) and np.all(p >= 0)):  # NaN fails both
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(p.sum(axis=-1) == 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    keys = p / _exponential_values(gen, p.size, 1.0).astype(p.dtype).reshape(p.shape)
    order = np.argsort(-keys, axis=-1, kind="stable")  # largest first; ties keep index order
    return order[..., :num_samples]


def _with_replacement(p: np.ndarray, num_samples: int, gen: Generator) -> np.ndarray:
    acc = np.float64 if p.dtype == np.float64 else np.float32
    rows = p.reshape(-1, p.shape[-1]).astype(acc)
    out = np.empty((rows.shape[0], num_samples), np.int64)
    for i, row in enumerate(rows):
        if np.any(row < 0):
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
        if not np.all(np.isfinite(row)):
            raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
        cumulative = np.cumsum(row, dtype=acc)  # sequential, in the accumulation dtype, as torch
        total = cumulative[-1]
        if not total > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        cumulative /= total
        cumulative[-1] = 1
        uniform = _uniform_unit(gen, num_samples, double=True)
        out[i] = np.searchsorted(cumulative.astype(np.float64), uniform, side="left")
    return out.reshape(p.shape[:-1] + (num_samples,))


def multinomial(self: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None) -> Tensor:
    _check(self, num_samples, replacement)
    shape = tuple(self._shape[:-1]) + (num_samples,)
    p = np.asarray(self._data)
    if p.size == 0 or 0 in shape:
        return from_array(np.empty(shape, np.int64), _dt.int64)
    gen = _generator(generator)
    if not replacement or num_samples == 1:
        result = _without_replacement(p, num_samples, gen)
    else:
        result = _with_replacement(p, num_samples, gen)
    return from_array(np.ascontiguousarray(result, dtype=np.int64), _dt.int64)


def multinomial_out(self: Tensor, num_samples: int, replacement: bool = False, *,
                    generator: Generator | None = None, out: Tensor) -> Tensor:
    if out._dtype is not _dt.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {out._dtype._c10_name}")
    return write_factory_result(out, multinomial(self, num_samples, replacement, generator=generator))


for _fn in (exponential_, multinomial, multinomial_out, exponential__meta, multinomial_meta, multinomial_out_meta):
    register(_fn.__name__, _fn)
