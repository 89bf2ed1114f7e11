"""Tensor's fields are set in one place (tensor.init_fields); from_array keeps an inline copy
for speed, and every constructor must leave no slot unset."""

import numpy as np
import pytest

import torchpy
from torchpy._tensor.subclassing import alias_as
from torchpy._tensor.tensor import (
    CPU, CPU_KEYSET, Tensor, contiguous_strides, from_array, init_fields, meta_tensor, view_of, wrapped_number,
)

FIELDS = [name for name in Tensor.__slots__ if name not in ("__weakref__", "__dict__")]


class _Sub(Tensor):
    pass


CONSTRUCTORS = {
    "from_array": lambda: from_array(np.arange(4.0, dtype=np.float32), torchpy.float32),
    "from_array_empty": lambda: from_array(np.zeros((0, 3), np.float32), torchpy.float32),
    "view_of": lambda: view_of(from_array(np.arange(4.0), torchpy.float64), np.arange(4.0)[1:]),
    "meta_tensor": lambda: meta_tensor((2, 3), torchpy.float32),
    "wrapped_number": lambda: wrapped_number(2.5),
    "alias_as": lambda: alias_as(_Sub, from_array(np.arange(4.0), torchpy.float64)),
    "wrapper_subclass": lambda: Tensor._make_wrapper_subclass(_Sub, (2, 3), dtype=torchpy.float32),
}


@pytest.mark.parametrize("name", sorted(CONSTRUCTORS))
def test_every_constructor_sets_every_field(name):
    t = CONSTRUCTORS[name]()
    for field in FIELDS:
        getattr(t, field)  # AttributeError: a slot left unset


@pytest.mark.parametrize("array", [np.arange(6.0, dtype=np.float32).reshape(2, 3), np.zeros((0, 2), np.int64)])
def test_from_array_sets_what_init_fields_sets(array):
    d = torchpy._tensor.dtype.from_numpy_dtype(array.dtype)
    inline = from_array(array, d)
    stride = None if array.size else contiguous_strides(array.shape)
    reference = init_fields(object.__new__(Tensor), CPU_KEYSET, array, array.shape, stride, 0, d, CPU, None)
    for field in FIELDS:
        assert getattr(inline, field) is getattr(reference, field) or getattr(inline, field) == getattr(reference, field), field
