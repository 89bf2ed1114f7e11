"""The adapter that turns array code into elementwise kernels for CPU and Meta.

An elementwise op is written once, over arrays:

    @elementwise("add", operands=2)
    def add(xp, self, other, alpha=1):
        return xp.add(self, other * alpha if alpha != 1 else other)

`xp` is the backend's array module (NumPy on CPU). The adapter does the rest,
the same way for every op:

* the leading `operands` arguments take part in type promotion (torch's rules,
  with the op's ELEMENTWISE_TYPE_PROMOTION_KIND) and broadcasting; a wrapped
  Python number is passed to the array code as the number itself;
* tensor operands are cast to the computation dtype before the array code runs
  (so NumPy's own promotion never decides a result dtype), and the result is cast
  to the result dtype;
* on Meta, no array code runs: the result has the broadcast shape and result dtype;
* a broadcasting failure raises PyTorch's RuntimeError.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor import promotion
from ..._tensor.promotion import ELEMENTWISE_TYPE_PROMOTION_KIND as Kind
from ..._tensor.tensor import Tensor, from_array, meta_tensor
from ..registry import register

_to_numpy = _dt.to_numpy_dtype


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast of `shapes`, or PyTorch's RuntimeError naming the first mismatch."""
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        offset = ndim - len(shape)
        for i, size in enumerate(shape):
            current = result[offset + i]
            if size == current or size == 1:
                continue
            if current == 1:
                result[offset + i] = size
                continue
            raise RuntimeError(
                f"The size of tensor a ({current}) must match the size of tensor b ({size}) at "
                f"non-singleton dimension {offset + i}"
            )
    return tuple(result)


def promotion_operand(x: Any) -> Any:
    """What promotion looks at: the number for wrapped numbers and scalars, else the tensor."""
    if isinstance(x, Tensor):
        return x if x._wrapped is None else x._wrapped
    return x


def _array_operand(x: Any, computation: np.dtype) -> Any:
    if isinstance(x, Tensor):
        if x._wrapped is not None:
            return x._wrapped
        data = x._data
        return data if data.dtype == computation else data.astype(computation)
    return x


def elementwise(
    name: str,
    operands: int = 2,
    kind: Kind = Kind.DEFAULT,
    keys: tuple[str, ...] = ("CPU", "Meta"),
) -> Callable[[Callable], Callable]:
    """Register array code `impl(xp, *args, **kwargs)` as elementwise kernel `name`."""

    def wrap(impl: Callable) -> Callable:
        def kernel(*args: Any, **kwargs: Any) -> Tensor:
            tensors = [a for a in args[:operands] if isinstance(a, Tensor)]
            computation, result = promotion.elementwise_dtypes(
                *map(promotion_operand, args[:operands]), type_promotion_kind=kind
            )
            if any(t._data is None for t in tensors):  # meta
                shape = broadcast_shapes(*(t._shape for t in tensors))
                return meta_tensor(shape, result)
            np_computation = _to_numpy(computation)
            arrays = [_array_operand(a, np_computation) for a in args[:operands]]
            try:
                out = impl(np, *arrays, *args[operands:], **kwargs)
            except ValueError:
                broadcast_shapes(*(t._shape for t in tensors))  # raises PyTorch's message
                raise
            out = np.asarray(out)
            np_result = _to_numpy(result)
            if out.dtype != np_result:
                out = out.astype(np_result)
            return from_array(out, result)

        kernel.__name__ = impl.__name__
        kernel.__qualname__ = impl.__qualname__
        kernel.__wrapped__ = impl  # type: ignore[attr-defined]
        register(name, keys, kernel)
        return impl

    return wrap
