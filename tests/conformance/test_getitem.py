"""Tensor.__getitem__ / __setitem__ against torch 2.13: results, views (strides, offsets,
shared storage), the aten calls a TorchDispatchMode sees, and torch's errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import torchpy

from tests.oracle import ALL_DTYPES, Input, check, check_error
from .test_view import check_ops_seen, geometry, shares_storage, values

BASIC_INDICES = [
    1, -1, 0, slice(None), slice(1, None), slice(None, None, 2), slice(-1, None), slice(0, 100), slice(5, 1),
    slice(-100, 100), slice(1, 2, 1), None, Ellipsis, (), (1,), (1, 2), (1, 2, 3), (-1, -2, -4), (slice(None), 1),
    (slice(None), slice(None)), (slice(None), slice(0, 3)), (slice(None), slice(0, 100)), (slice(None), slice(-3, None)),
    (slice(None), slice(1, 2)), (slice(None), slice(None, None, 2), 1), (1, None), (None, None), (None, Ellipsis, None),
    (Ellipsis, 1), (Ellipsis, None), (1, Ellipsis), (Ellipsis, Ellipsis), (Ellipsis, 0, Ellipsis), (0, Ellipsis, 0),
    (1, None, slice(None, None, 2), Ellipsis, 2), (slice(None), slice(3, 1)), (np.int64(1), slice(None)), (slice(None), None, 1),
]


@pytest.mark.parametrize("index", BASIC_INDICES, ids=repr)
def test_basic_indexing_is_a_view(index):
    x = values(2, 3, 4)
    check(lambda t, x: x[index], x)
    check(lambda t, x: geometry(x[index]), x)
    check(lambda t, x: geometry(x[index]), values(2, 3, 4, noncontiguous=True))
    check(lambda t, x: shares_storage(x[index], x), x)
    check(lambda t, x: (x[index]._is_view(), x[index] is x), x)
    check(lambda t, x: geometry(x[index]), values(2, 3, 4, device="meta"))
    check_ops_seen(lambda t, x: x[index], x)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_indexing_every_dtype(dtype):
    check(lambda t, x: (x[1], x[:, 1:], x[0, -1], x[..., None]), values(2, 3, dtype=dtype))


@pytest.mark.parametrize("index", [None, Ellipsis, (), (None, Ellipsis), (Ellipsis, None), (None, None)], ids=repr)
def test_zero_dim_indexing(index):
    check(lambda t, x: geometry(x[index]), values())
    check_ops_seen(lambda t, x: x[index], values())


def test_integer_tensor_scalars_index_like_ints():
    check(lambda t, x: geometry(x[t.tensor(1)]), values(2, 3, 4))
    check(lambda t, x, i: geometry(x[0, i]), values(2, 3, 4), Input(1, "int64"))
    check(lambda t, x, i: geometry(x[i, ..., i]), values(2, 3, 4), Input(-1, "int32"))
    check_ops_seen(lambda t, x, i: x[0, i], values(2, 3, 4), Input(1, "int64"))


def test_indexing_errors():
    x = values(2, 3, 4)
    check_error(lambda t, x: x[5], x)
    check_error(lambda t, x: x[-3], x)
    check_error(lambda t, x: x[:, 5], x)
    check_error(lambda t, x: x[0, 0, 4], x)
    check_error(lambda t, x: x[1, 2, 3, 4], x)
    check_error(lambda t, x: x[..., 1, 2, 3, 4], x)
    check_error(lambda t, x: x[1.5], x)
    check_error(lambda t, x: x[0, 1.5], x)
    check_error(lambda t, x: x[::-1], x)
    check_error(lambda t, x: x[:, ::-1], x)
    check_error(lambda t, x: x[::0], x)
    check_error(lambda t, x: x[0], values())
    check_error(lambda t, x: x[:], values())
    check_error(lambda t, x: x[0, 0], values(3))
    check_error(lambda t, x: x[object()], x)


def test_writes_through_indexing_views_reach_the_base():
    def fn(t, x):
        x[1][2].fill_(-1)
        x[:, 1:2][0].zero_()
        x[..., None][0, 0, 0].fill_(9)
        return x

    check(fn, values(2, 3, 4))
    check(fn, values(2, 3, 4, noncontiguous=True))


def test_iteration_unbinds():
    check(lambda t, x: [v for v in x], values(3, 2))
    check(lambda t, x: [geometry(v) for v in x], values(3, 2, noncontiguous=True))
    check_error(lambda t, x: list(x), values())


# --- __setitem__ -----------------------------------------------------------------------------------


SET_INDICES = [
    1, -1, slice(None), slice(1, None), slice(None, None, 2), None, Ellipsis, (), (1, 2), (1, 2, 3), (slice(None), 1),
    (Ellipsis, 0), (None, 1), (slice(None), slice(0, 3)), (slice(None), slice(1, 2), None), True, False,
]


@pytest.mark.parametrize("index", SET_INDICES, ids=repr)
def test_setitem_scalar(index):
    def fn(t, x):
        x[index] = 7.5
        return x

    check(fn, values(2, 3, 4))
    check(fn, values(2, 3, 4, dtype="int32", noncontiguous=True))
    check(fn, values(2, 3, 4, device="meta"))
    check_ops_seen(fn, values(2, 3, 4))


@pytest.mark.parametrize("index,shape", [
    (1, (3, 4)), (1, (4,)), (1, (1, 4)), (1, (1, 1, 3, 4)), (slice(None), (3, 1)), ((slice(None), 1), (2, 4)),
    ((slice(None), 1), (4,)), ((0, 0, 0), ()), ((0, 0, 0), (1,)), (Ellipsis, (2, 3, 4)), (Ellipsis, ()),
    ((Ellipsis, 0), (2, 1)), (None, (3, 4)),
])
def test_setitem_tensor(index, shape):
    def fn(t, x, v):
        x[index] = v
        return x

    check(fn, values(2, 3, 4), Input(np.arange(int(np.prod(shape))).reshape(shape) + 50, "int64"))
    check(fn, values(2, 3, 4, dtype="float16"), Input(np.full(shape, 2.5), "float64"))
    check(fn, values(2, 3, 4, device="meta"), Input(np.zeros(shape), "float32", device="meta"))
    check_ops_seen(fn, values(2, 3, 4), Input(np.ones(shape), "float32"))


def test_setitem_converts_values_like_torch():
    def fn(value):
        def set_(t, x):
            x[0] = value
            return x

        return set_

    check(fn(2.7), values(3, dtype="int8"))
    check(fn(-1), values(3, dtype="uint8"))
    check(fn(True), values(3, dtype="float32"))
    check(fn(np.float64(1.5)), values(3, dtype="float32"))
    check(fn(3), values(3, dtype="bool"))
    check_error(fn(300), values(3, dtype="int8"))
    check_error(fn("a"), values(3))
    check_error(fn([1, 2, 3]), values(3, dtype="int8", device="meta"))
    check_error(fn(None), values(3))


def test_setitem_errors():
    def set_(index, value_shape):
        def fn(t, x):
            x[index] = t.tensor(np.ones(value_shape), dtype=t.float32)

        return fn

    check_error(set_(0, (2,)), values(2, 3))
    check_error(set_(slice(None), (3, 3)), values(2, 3))
    check_error(set_(5, ()), values(2, 3))
    check_error(set_((0, 0, 0), ()), values(2, 3))
    check_error(set_(1.5, ()), values(2, 3))


def test_setitem_into_expanded_tensor():
    def fn(t, x):
        e = x.expand(3, 4)
        e[1] = 5.0
        return x

    check(fn, values(1, 4))


def test_setitem_bumps_version_of_base_and_views():
    def fn(t, x):
        v = x[0]
        before = (x._version, v._version)
        x[1] = 2.0
        v[0] = 3.0
        return before, x._version, v._version, x

    check(fn, values(2, 3))


# --- advanced indexing (index.Tensor / index_put_) when available ------------------------------------


def _have_index_ops() -> bool:
    return hasattr(torchpy.ops.aten, "index") and hasattr(torchpy.ops.aten, "index_put_")


ADVANCED_INDICES = [
    [0, 1], [[0, 1], [1, 0]], (slice(None), [2, 0]), ([0, 1], 1), (1, [0, 2]), (Ellipsis, [0, 3]), True, False,
    (slice(None), True), (None, [1]), ([0, 1], slice(None), [1, 2]), ([1], None, slice(1, None)),
]


@pytest.mark.parametrize("index", ADVANCED_INDICES, ids=repr)
def test_advanced_getitem(index):
    def fn(t, x):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return x[index]

    check(fn, values(2, 3, 4))
    check(fn, values(2, 3, 4, dtype="int16", noncontiguous=True))
    check_ops_seen(fn, values(2, 3, 4))


def test_tensor_and_mask_indices():
    check(lambda t, x, i: x[i], values(2, 3, 4), Input([1, 0, 1], "int64"))
    check(lambda t, x, m: x[m], values(2, 3, 4), Input(np.arange(24).reshape(2, 3, 4) % 3 == 0, "bool"))
    check(lambda t, x, m: x[:, m], values(2, 3, 4), Input([True, False, True], "bool"))
    check(lambda t, x, m: x[m], values(2, 3, 4), Input(True, "bool"))
    check(lambda t, x, m: x[m], values(2, 3, 4), Input(0, "uint8"))
    check_ops_seen(lambda t, x, i: x[i, 1:], values(2, 3, 4), Input([1, 0], "int64"))
    check_ops_seen(lambda t, x, m: x[m], values(2, 3, 4), Input(True, "bool"))
    check_error(lambda t, x: x[[5]], values(2, 3, 4))
    check_error(lambda t, x, i: x[i], values(2, 3, 4), Input([0.0], "float32"))


@pytest.mark.parametrize("index", [[0], ([0, 1], 1), (slice(None), [2, 0]), (Ellipsis, [0, 3])], ids=repr)
def test_advanced_setitem(index):
    def scalar(t, x):
        x[index] = 9.0
        return x

    def tensor(t, x, v):
        x[index] = v
        return x

    check(scalar, values(2, 3, 4))
    check_ops_seen(scalar, values(2, 3, 4))
    check(tensor, values(2, 3, 4), Input(np.ones((1, 1)) * 5, "float32"))
    check_ops_seen(tensor, values(2, 3, 4), Input(np.ones((1, 1)) * 5, "float32"))


def test_mask_setitem():
    check(lambda t, x, m: (x.__setitem__(m, 0.0), x)[1], values(2, 3, 4), Input(np.arange(24).reshape(2, 3, 4) % 2 == 0, "bool"))
    check(lambda t, x, m, v: (x.__setitem__(m, v), x)[1], values(2, 3), Input([True, False], "bool"), Input([1.0, 2.0, 3.0], "float32"))


def test_zero_dim_and_empty_sequence_indices():
    check_error(lambda t, x: x[0], values())
    check_error(lambda t, x: x[2], values())
    check_error(lambda t, x: x[-1], values())
    check_error(lambda t, x: x[(1,)], values())
    check(lambda t, x: x[[]], values(2, 2))
    check(lambda t, x: x[[], 0], values(2, 2))
    check_error(lambda t, x: x[..., ..., ..., :, False], values(1, 1, 2, 1))


def _random_basic_index(rng, shape: tuple) -> tuple:
    def element(size: int):
        kind = rng.random()
        if kind < 0.3:
            return rng.randint(-size - 1, size)
        if kind < 0.7:
            bound = lambda: rng.choice([None, rng.randint(-size - 1, size + 1)])  # noqa: E731
            return slice(bound(), bound(), rng.choice([None, 1, 2, 3]))
        return rng.choice([None, Ellipsis, slice(None)])

    return tuple(element(shape[i] if i < len(shape) else 2) for i in range(rng.randint(1, len(shape) + 1)))


@pytest.mark.parametrize("seed", range(3))
def test_random_basic_indices(seed):
    """Random int/slice/None/Ellipsis indices: the result's values and geometry, or the error,
    and the same index assigned to."""
    import random

    rng = random.Random(seed)
    for _ in range(80):
        shape = tuple(rng.choice([0, 1, 2, 3, 4]) for _ in range(rng.randint(0, 4)))
        data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
        index = _random_basic_index(rng, shape)
        if rng.random() < 0.3:
            index = index[0]
        check(lambda t: _index_outcome(t, data, index))


def _index_outcome(lib, data, index):
    x = lib.from_numpy(data.copy())
    try:
        result = x[index]
        outcome = [result, geometry(result)]
    except (IndexError, RuntimeError, ValueError) as error:
        outcome = [f"{type(error).__name__}: {str(error).splitlines()[0]}"]
    try:
        x[index] = -1.0
        outcome.append(x)
    except (IndexError, RuntimeError, ValueError) as error:
        outcome.append(f"{type(error).__name__}: {str(error).splitlines()[0]}")
    return outcome
