"""multinomial and exponential_'s meta rules and Meta kernels: sizes and dtype only, with torch's
meta functions' own (fewer) checks; nothing is drawn and no generator moves."""

from __future__ import annotations

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, meta_tensor
from ..kernels.random import Generator
from ..kernels.variants import resize_


def exponential__meta(self: Tensor, lambd: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={float(lambd)}")
    return self


def multinomial_meta(self: Tensor, num_samples: int, replacement: bool = False, *,
                     generator: Generator | None = None) -> Tensor:
    if not 0 < self.dim() <= 2:
        raise RuntimeError(f"The probability distributions dimensions must be 1 or 2, but got {self.dim()}")
    return meta_tensor(tuple(self._shape[:-1]) + (num_samples,), _dt.int64)


def multinomial_out_meta(self: Tensor, num_samples: int, replacement: bool = False, *,
                         generator: Generator | None = None, out: Tensor) -> Tensor:
    shape = multinomial_meta(self, num_samples, replacement)._shape
    if out._shape != shape:
        resize_(out, shape)
    return out
