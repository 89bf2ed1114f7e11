"""Writing a result into an out= tensor or an in-place self, with PyTorch's checks on dtype
and shape: what the kernels out_policy.py makes, and the few out= kernels modules write
themselves (several outputs, op-specific rules), share.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..._tensor import promotion
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor, contiguous_strides


def check_out_dtype(out: Tensor, expected: dtype, rule: str = "exact") -> None:
    """Raise torch's error when `out` (an out= tensor, or in-place self) cannot take a result
    of dtype `expected`. The one home of these checks; torch words each rule its own way:

    "exact"     structured kernels and generated out= wrappers: out's dtype must be the
                result's ("Expected out tensor to have dtype long int, but got float instead");
    "same"      TensorIterator ops that keep one dtype throughout ("Found dtype Double but
                expected Float");
    "castable"  TensorIterator's default: any dtype the result casts to safely ("result type
                Float can't be cast to the desired output type Long").
    """
    got = out._dtype
    if rule == "exact":
        if got is not expected:
            raise RuntimeError(
                f"Expected out tensor to have dtype {expected._type_meta_name}, but got "
                f"{got._type_meta_name} instead")
    elif rule == "same":
        if got is not expected:
            raise RuntimeError(f"Found dtype {got._c10_name} but expected {expected._c10_name}")
    elif rule != "castable":
        raise ValueError(f"unknown out dtype rule {rule!r}")
    if not promotion.can_cast(expected, got):  # "exact" and "same" passed: a no-op for them
        if out._data is None:  # PyTorch's meta kernels word it their own way
            raise RuntimeError(
                f"Attempting to cast from {expected} to out tensor with dtype {got}, "
                "but this can't be cast because it is not safe!")
        raise RuntimeError(
            f"result type {expected._c10_name} can't be cast to the desired output type {got._c10_name}")


def write_inplace(self: Tensor, result: Tensor) -> Tensor:
    """Copy `result` into `self` for an in-place op (shapes must already agree)."""
    if result._shape != self._shape:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, self._shape))}] doesn't match the broadcast "
            f"shape [{', '.join(map(str, result._shape))}]"
        )
    check_out_dtype(self, result._dtype, "castable")
    if self._data is not None:
        np.copyto(self._data, result._data, casting="unsafe")
    return self


def write_out(out: Tensor, result: Tensor, warn_resize: bool = True) -> Tensor:
    """Copy `result` into `out` (resized if its shape differs), as out= kernels do; resizing
    an `out` with elements warns (`warn_resize=False`: silently, as factories' out= do)."""
    check_out_dtype(out, result._dtype, "castable")
    if out._shape != result._shape:
        if warn_resize and out.numel() != 0:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"[{', '.join(map(str, out._shape))}], which does not match the required output "
                f"shape [{', '.join(map(str, result._shape))}]. This behavior is deprecated, and in "
                "a future PyTorch release outputs will not be resized unless they have zero "
                "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to "
                "zero elements with t.resize_(0).",
                UserWarning,
                stacklevel=2,
            )
        resize_(out, result._shape)
    if out._data is not None:
        np.copyto(out._data, result._data, casting="unsafe")
    return out


def resize_(t: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Give `t` a new contiguous shape (fresh memory when the element count changes)."""
    shape = tuple(shape)
    if t._data is not None:
        t._data = np.zeros(shape, dtype=t._data.dtype) if t._data.size != _numel(shape) else (
            np.ascontiguousarray(t._data).reshape(shape))
        t._storage = None
        t._offset = 0
        t._stride = None
    else:
        t._stride = contiguous_strides(shape)
    t._shape = shape
    return t


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n
