"""Advanced indexing, gather / scatter, index_select / index_add, nonzero, masked_select
against torch 2.13."""

import warnings

import numpy as np
import pytest
import torch

import torchpy

from tests.oracle import ALL_DTYPES, Input, check, check_error, convert, randint, randn, scaled

def values(*shape: int, dtype: str = "float32", noncontiguous: bool = False) -> Input:
    """Small distinct values that every dtype can hold (bool: all but the first are True)."""
    data = (np.arange(int(np.prod(shape))) % 100).reshape(shape)
    return Input(data, dtype, noncontiguous=noncontiguous)


def ints(data, dtype: str = "int64", **kwargs) -> Input:
    return Input(np.asarray(data), dtype, **kwargs)


def mask(data, **kwargs) -> Input:
    return Input(np.asarray(data, dtype=bool), "bool", **kwargs)


def meta(*shape: int, dtype: str = "float32") -> Input:
    return Input(np.zeros(shape), dtype, device="meta")


def both_warn(fn, *inputs) -> list[str]:
    """fn must warn (UserWarning) the same first message in torch and torchpy."""
    messages = []
    for lib in (torch, torchpy):
        converted = [convert(x, lib) for x in inputs]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(lib, *converted)
        user = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
        assert user, f"{lib.__name__} did not warn"
        messages.append(user[0])
    assert messages[1] == messages[0].split(" (Triggered internally")[0]
    return messages


def index(t, x, *indices):
    return t.ops.aten.index.Tensor(x, list(indices))


# --- index.Tensor --------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_index_integer_tensor_every_dtype(dtype):
    check(lambda t, x, i: index(t, x, i), values(4, 3, dtype=dtype), ints([2, 0, -1, 2]))
    check(lambda t, x, i: index(t, x, None, i), values(4, 3, dtype=dtype, noncontiguous=True), ints([[1], [0]]))


@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
def test_index_shapes_and_placement(index_dtype):
    x = values(2, 3, 4, 5)
    i, j = ints([0, 1], index_dtype), ints([[1], [2], [0]], index_dtype)
    check(lambda t, x, i: index(t, x, i), x, i)
    check(lambda t, x, i, j: index(t, x, i, j), x, i, j)                    # broadcast to [3, 2]
    check(lambda t, x, i, j: index(t, x, None, i, j), x, i, j)              # adjacent: in place
    check(lambda t, x, i, j: index(t, x, i, None, j), x, i, j)              # separated: first
    check(lambda t, x, i, j: index(t, x, None, i, None, j), x, i, j)
    check(lambda t, x, i: index(t, x, None, None, None, i), x, ints([4, 0, 4], index_dtype))
    check(lambda t, x, i: index(t, x, i), x, ints(1, index_dtype))          # 0-dim index
    check(lambda t, x, i: index(t, x, None, i), x, ints(np.zeros((0, 2), int), index_dtype))


def test_index_noncontiguous_index_tensor():
    check(lambda t, x, i: index(t, x, i, i), values(4, 4), ints([3, 1, 0], noncontiguous=True))


def test_index_bool_masks():
    x = values(3, 4, 2)
    check(lambda t, x, m: index(t, x, m), x, mask(np.arange(24).reshape(3, 4, 2) % 3 == 0))
    check(lambda t, x, m: index(t, x, m), x, mask([[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1]]))
    check(lambda t, x, m: index(t, x, None, m), x, mask([1, 0, 1, 1]))
    check(lambda t, x, m: index(t, x, m), x, mask([0, 0, 0]))
    check(lambda t, x, m: index(t, x, m), values(3, 4, noncontiguous=True), mask(np.eye(3, 4), noncontiguous=True))
    check(lambda t, x, m, i: index(t, x, m, i), x, mask([[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 0]]), ints([1, 0, 1, 1, 0]))
    check(lambda t, x, m, i: index(t, x, i, None, m), x, mask([1, 0]), ints([[2], [0]]))
    check(lambda t, x, m: index(t, x, m), values(0, 3), mask(np.zeros(0)))


def test_index_uint8_mask_is_deprecated_but_works():
    x, m = values(3, 4), ints([1, 0, 1], "uint8")
    check(lambda t, x, m: index(t, x, m), x, m)
    # torch.ops prints C++ warnings to stderr; the Python binding raises them as UserWarnings
    both_warn(lambda t, x, m: t.index_put_(x, (m,), t.tensor([1.0, 2.0, 3.0, 4.0])), x, m)
    # ...and x[uint8_mask] = value takes masked_fill_'s path, which refuses uint8 masks
    check_error(lambda t, x, m: t.index_put_(x, (m,), t.tensor(1.0)), x, m)


def test_index_empty_and_size_zero():
    check(lambda t, x, i: index(t, x, i), values(3, 4), ints(np.zeros(0, int)))
    check(lambda t, x, i: index(t, x, i), values(0, 3), ints(np.zeros(0, int)))
    check(lambda t, x, i: index(t, x, None, i), values(3, 0), ints(np.zeros((2, 0), int)))


def test_index_out():
    check(lambda t, x, i: t.ops.aten.index.Tensor_out(x, [i], out=t.tensor(np.zeros((2, 4), np.float32))), values(3, 4), ints([2, 0]))
    check_error(lambda t, x, i: t.ops.aten.index.Tensor_out(x, [i], out=t.tensor([1])), values(3, 4), ints([2, 0]))


def test_index_result_is_contiguous():
    data = np.zeros((2, 3, 4, 5), np.float32)
    check(lambda t, i: index(t, t.from_numpy(data), None, i).stride(), ints([0, 2]))
    check(lambda t, i, j: index(t, t.from_numpy(data), None, i, j).stride(), ints([0, 1]), ints([1, 2]))
    check(lambda t, i: index(t, t.from_numpy(data), None, None, i).stride(), ints([[1, 2, 0]]))
    check(lambda t, i: index(t, t.from_numpy(data[0, 0].T), None, i).stride(), ints([0, 2]))


def test_index_put_functional_keeps_self_layout():
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    check(lambda t, i, v: t.index_put(t.from_numpy(data.T), (i,), v).stride(), ints([0]), Input(1.0, "float32"))


def test_index_on_meta():
    check(lambda t, x, i: index(t, x, i), meta(3, 4), Input([0, 2], "int64", device="meta"))
    check(lambda t, x, i, j: index(t, x, i, None, j), meta(3, 4, 5), Input([[0], [2]], "int64", device="meta"), ints([1, 2, 3]))
    check(lambda t, x, i: index(t, x, i), meta(3, 4, dtype="int32"), ints([7]))  # no bounds on meta
    check_error(lambda t, x, m: index(t, x, m), meta(3, 4), Input([1, 0, 1], "bool", device="meta"))
    check_error(lambda t, x, i: index(t, x, i), meta(3, 4), Input([1.0], "float32", device="meta"))
    check_error(lambda t, x, i: index(t, x, None, None, i), meta(3, 4), ints([0]))
    check_error(lambda t, x, i, j: index(t, x, i, j), meta(3, 4), ints([0, 1, 2]), ints([0, 1]))


@pytest.mark.parametrize("case", [
    lambda t, x: index(t, x, t.tensor([5])),                                # out of bounds
    lambda t, x: index(t, x, t.tensor([-4])),
    lambda t, x: index(t, x, None, t.tensor([0, 4])),                       # dimension 0: first index
    lambda t, x: index(t, x, t.tensor([0]), t.tensor([5])),                 # dimension 1
    lambda t, x: index(t, x, t.tensor([0, 9]), t.tensor([5, 0])),           # first element first
    lambda t, x: index(t, x, t.tensor([7]), t.tensor([5])),
    lambda t, x: index(t, x, None, None, t.tensor([0])),                    # too many indices
    lambda t, x: index(t, x, t.tensor([0]), t.tensor([0]), t.tensor([0])),
    lambda t, x: index(t, x, t.tensor([1.0])),                              # float index
    lambda t, x: index(t, x, t.tensor([1], dtype=t.int16)),
    lambda t, x: index(t, x, t.tensor([0, 1]), t.tensor([0, 1, 2])),        # broadcast
    lambda t, x: index(t, x, t.tensor([1, 2]), t.tensor([1.0, 2, 3])),      # dtype before broadcast
    lambda t, x: index(t, x, t.tensor([True, False])),                      # mask shape
    lambda t, x: index(t, x, None, t.tensor([True, False])),
    lambda t, x: index(t, x, t.tensor([[True] * 4] * 3), t.tensor([0])),    # mask past the last dim
    lambda t, x: index(t, x),                                               # no index
])
def test_index_errors(case):
    check_error(case, values(3, 4))


def test_index_errors_on_other_shapes():
    check_error(lambda t, x: index(t, x, t.tensor([0])), values(0, 3))          # size-0 dimension
    check_error(lambda t, x: index(t, x, t.tensor([0, 0])), values())          # 0-dim self
    check_error(lambda t, x: index(t, x, t.tensor([7]), None, t.tensor([9])), values(3, 4, 5))
    check_error(lambda t, x: index(t, x, t.tensor([[True, False]] * 3), t.tensor([5])), values(3, 2, 2))
    check_error(lambda t, x: index(t, x, t.tensor([[True] * 3] * 3)), values(3))


# --- index_put_ / index_put ------------------------------------------------------------------


def put_(t, x, indices, v, accumulate=False):
    t.ops.aten.index_put_.default(x, indices, v, accumulate)
    return x


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_index_put_every_dtype(dtype):
    check(lambda t, x, i, v: put_(t, x, [i], v), values(4, 3, dtype=dtype), ints([3, 0]), values(3, dtype=dtype))
    check(lambda t, x, i, v: put_(t, x, [None, i], v), values(4, 3, dtype=dtype, noncontiguous=True), ints([-1]), values(4, 1, dtype=dtype))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_index_put_accumulate_with_duplicates(dtype):
    check(lambda t, x, i, v: put_(t, x, [i], v, True), values(4, 3, dtype=dtype), ints([1, 3, 1, 1]), values(4, 3, dtype=dtype))
    check(lambda t, x, i, j, v: put_(t, x, [i, j], v, True), values(4, 3, dtype=dtype), ints([1, 1, 0]), ints([2, 2, 2]), values(3, dtype=dtype))


def test_index_put_duplicates_without_accumulate_last_wins():
    check(lambda t, x, i, v: put_(t, x, [i], v), values(3, 4), ints([0, 0, 2, 0]), randn(4, 1))


def test_index_put_masks_and_broadcasting():
    x = values(3, 4)
    m = mask([[0, 1, 1, 0], [0, 0, 0, 0], [1, 1, 0, 1]])
    check(lambda t, x, m, v: put_(t, x, [m], v), x, m, Input(0.0, "float32"))
    check(lambda t, x, m, v: put_(t, x, [m], v), x, m, randn(5))
    check(lambda t, x, m, v: put_(t, x, [m], v, True), x, m, randn(5))
    check(lambda t, x, m, v: put_(t, x, [m], v), x, mask([1, 0, 1]), randn(4))
    check(lambda t, x, m, v: put_(t, x, [None, m], v), x, mask([1, 0, 1, 1]), randn(3, 1))
    check(lambda t, x, i, j, v: put_(t, x, [i, None, j], v), values(2, 3, 4), ints([0, 1]), ints([1, 2]), randn(2, 3))
    check(lambda t, x, i, v: put_(t, x, [i], v), values(3), ints(1), Input(5.0, "float32"))
    check(lambda t, x, i, v: put_(t, x, [i], v), values(3, 4), ints(np.zeros(0, int)), randn(0, 4))


def test_index_put_functional_leaves_self_alone():
    check(lambda t, x, i, v: (t.index_put(x, (i,), v), x), values(3, 4), ints([0, 2]), randn(4))
    check(lambda t, x, i, v: (x.index_put((i,), v, accumulate=True), x), values(3, 4), ints([0, 0]), randn(4))
    check(lambda t, x, i, v: x.index_put_((i,), v, True), values(3, 4), ints([1, 1]), randn(2, 4))
    check(lambda t, x, i, v: t.index_put_(x, [i], v), values(3, 4), ints([1, 1]), randn(2, 4))
    check(lambda t, x, i, v: t.ops.aten._index_put_impl.default(x, [i], v, True), values(3, 4), ints([1, 1]), randn(2, 4))
    check(lambda t, x, i, v: put_(t, x, [i], v), values(3, 4, dtype="float64"), ints([2], "int32"), Input(7.0, "float64"))


def test_index_put_impl_and_out_forms():
    check(lambda t, x, i, v: (t._index_put_impl_(x, (i,), v, True), x)[1], values(3, 4), ints([0, 0]), randn(4))
    check(lambda t, x, i, v: t.ops.aten.index_put.out(x, [i], v, out=t.tensor(np.zeros((3, 4), np.float32))),
          values(3, 4), ints([2]), randn(4))
    check(lambda t, x, i, v: t.ops.aten._index_put_impl.out(x, [i], v, True, out=t.tensor(np.zeros((3, 4), np.float32))),
          values(3, 4), ints([2, 2]), randn(4))
    check_error(lambda t, x, i, v: t.ops.aten.index_put.out(x, [i], v, out=t.tensor([1])), values(3, 4), ints([2]), randn(4))


def test_index_put_writes_through_views():
    check(lambda t, x, i, v: put_(t, x, [i], v, True), values(3, 4, noncontiguous=True), ints([2, 2]), randn(4))
    check(lambda t, x, m, v: put_(t, x, [m], v), values(3, 4, noncontiguous=True), mask([1, 0, 1]), randn(4))


def test_index_put_on_meta():
    check(lambda t, x, i, v: put_(t, x, [i], v), meta(3, 4), Input([0], "int64", device="meta"), meta(4))
    check(lambda t, x, m, v: put_(t, x, [m], v), meta(3, 4), Input([1, 0, 1], "bool", device="meta"), meta())
    check(lambda t, x, i, v: t.ops.aten.index_put.default(x, [i], v, True), meta(3, 4), ints([0]), meta(4, dtype="float64"))


@pytest.mark.parametrize("case", [
    lambda t, x: put_(t, x, [t.tensor([0])], t.tensor(1.0, dtype=t.float64)),           # dtype
    lambda t, x: put_(t, x, [t.tensor([0])], t.tensor(1)),
    lambda t, x: put_(t, x, [t.tensor([0, 2])], t.tensor([1.0, 2.0, 3.0])),              # shape
    lambda t, x: put_(t, x, [t.tensor([0, 2])], t.tensor([[[1.0, 2.0, 3.0, 4.0]]])),     # no extra dims
    lambda t, x: put_(t, x, [t.tensor([5])], t.tensor(1.0)),                             # bounds
    lambda t, x: put_(t, x, [t.tensor([5])], t.tensor(1.0), True),
    lambda t, x: put_(t, x, [None, t.tensor([4])], t.tensor(1.0)),
    lambda t, x: put_(t, x, [t.tensor([0])] * 3, t.tensor(1.0, dtype=t.float64)),        # count first
    lambda t, x: put_(t, x, [t.tensor([1.0])], t.tensor(1.0, dtype=t.float64)),          # index dtype
    lambda t, x: put_(t, x, [t.tensor([0])], t.tensor([1.0] * 7, dtype=t.float64)),      # shape, dtype
    lambda t, x: put_(t, x, [t.tensor([7])], t.tensor([1.0], dtype=t.float64)),          # dtype, bounds
    lambda t, x: put_(t, x, [t.tensor([7])], t.tensor([1.0] * 7)),                       # shape, bounds
    lambda t, x: put_(t, x, [t.tensor([1, 2]), t.tensor([1, 2, 3])], t.tensor(1.0)),
    lambda t, x: put_(t, x, [t.tensor([[False] * 4] * 3)], t.tensor([1.0] * 5)),
])
def test_index_put_errors(case):
    check_error(case, values(3, 4))


def test_index_put_overlap_error():
    check_error(lambda t, x: put_(t, x, [t.tensor([1])], x), values(3, 4))


def test_index_put_on_expanded_self_warns():
    def expanded(t):
        if t is torch:
            return torch.zeros(1).expand(3)
        return torchpy.from_numpy(np.lib.stride_tricks.as_strided(np.zeros(1, np.float32), (3,), (0,)))

    both_warn(lambda t: t.index_put_(expanded(t), (t.tensor([0]),), t.tensor(1.0)))


# --- gather ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_gather_every_dtype(dtype):
    check(lambda t, x, i: t.gather(x, 1, i), values(3, 4, dtype=dtype, noncontiguous=True), ints([[0, 3], [1, 1], [2, 0]]))
    check(lambda t, x, i: x.gather(-2, i), values(3, 4, dtype=dtype), ints([[2, 0, 1, 1]]))


def test_gather_shapes():
    check(lambda t, x, i: x.gather(1, i), values(3, 4), ints(np.zeros((2, 6), int), "int32"))  # larger along dim
    check(lambda t, x, i: x.gather(0, i), values(3, 4, 2), randint(0, 3, 2, 3, 1))
    check(lambda t, x, i: x.gather(0, i), values(), ints(0))
    check(lambda t, x, i: x.gather(0, i), values(), ints([0, 0]))
    check(lambda t, x, i: x.gather(0, i), values(2), ints(1))
    check(lambda t, x, i: x.gather(1, i), values(3, 4), ints(np.zeros((3, 0), int)))
    check(lambda t, x, i: x.gather(1, i), values(3, 4), ints(np.zeros((5, 0), int)))       # empty: no size check
    check(lambda t, x, i: x.gather(1, i, sparse_grad=False), values(3, 4), ints([[1]], noncontiguous=True))


def test_gather_out_and_meta():
    check(lambda t, x, i: t.gather(x, 1, i, out=t.tensor(np.zeros((3, 1), np.float32))), values(3, 4), ints([[0], [1], [3]]))
    check_error(lambda t, x, i: t.gather(x, 1, i, out=t.tensor(np.zeros((3, 1)))), values(3, 4), ints([[0], [1], [3]]))
    check_error(lambda t, x, i: t.gather(x, 1, i, out=t.tensor([[1], [2], [3]])), values(3, 4), ints([[0], [1], [3]]))
    check(lambda t, x, i: x.gather(1, i), meta(3, 4), Input(np.zeros((3, 2)), "int64", device="meta"))
    check_error(lambda t, x, i: x.gather(1, i), meta(3, 4), Input(np.zeros((4, 1)), "int64", device="meta"))
    check_error(lambda t, x, i: x.gather(1, i), meta(3, 4), Input(np.zeros((3, 1)), "int16", device="meta"))


@pytest.mark.parametrize("case", [
    lambda t, x: x.gather(1, t.tensor([[0], [5], [0]])),
    lambda t, x: x.gather(1, t.tensor([[0], [-1], [0]])),
    lambda t, x: x.gather(0, t.tensor([[0, 9, 0, 0], [7, 0, 0, 0]])),
    lambda t, x: x.gather(1, t.tensor([[0]] * 4)),                        # index larger than self
    lambda t, x: x.gather(1, t.tensor([0, 0, 0])),                        # ndim
    lambda t, x: x.gather(1, t.tensor([[0]], dtype=t.int16)),             # dtype
    lambda t, x: x.gather(1, t.tensor([[0.0]])),
    lambda t, x: x.gather(1, t.tensor([0, 0], dtype=t.int16)),            # dtype before ndim
    lambda t, x: x.gather(2, t.tensor([[0]])),
])
def test_gather_errors(case):
    check_error(case, values(3, 4))


# --- scatter / scatter_add / scatter_reduce -----------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_scatter_src_and_value_every_dtype(dtype):
    x, i = values(3, 4, dtype=dtype), ints([[0, 3], [1, 1], [2, 0]])
    check(lambda t, x, i, s: t.scatter(x, 1, i, s), x, i, values(3, 3, dtype=dtype, noncontiguous=True))
    check(lambda t, x, i: x.scatter(1, i, 1), x, i)
    check(lambda t, x, i, s: (x.scatter_(0, i, s), x)[1], x, ints([[2, 0, 1, 1]]), values(1, 4, dtype=dtype))
    check(lambda t, x, i: x.scatter_(-1, i, True), values(3, 4, dtype=dtype, noncontiguous=True), i)


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d != "bool"])
def test_scatter_reduce_argument(dtype):
    x, i = values(3, 4, dtype=dtype), ints([[0, 0, 3], [1, 1, 1]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda t, x, i, s: x.scatter(1, i, s, reduce="add"), x, i, values(2, 3, dtype=dtype))
        check(lambda t, x, i, s: x.scatter(1, i, s, reduce="multiply"), x, i, values(2, 3, dtype=dtype))
        check(lambda t, x, i, s: (x.scatter_(1, i, s, reduce="add"), x)[1], x, i, values(2, 3, dtype=dtype))
    check(lambda t, x, i: x.scatter(1, i, 2, reduce="add"), x, i)
    check(lambda t, x, i: x.scatter_(1, i, 2, reduce="multiply"), x, i)


def test_scatter_with_tensor_src_and_reduce_warns():
    # torch warns once per process (TORCH_WARN_ONCE), so compare with the text it gives
    x = torchpy.tensor([[1.0, 2.0]])
    with pytest.warns(UserWarning) as caught:
        x.scatter(1, torchpy.tensor([[0]]), torchpy.tensor([[5.0]]), reduce="add")
    assert str(caught[0].message) == (
        "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a "
        "future PyTorch release. Use torch.scatter_reduce instead for more reduction options.")


def test_scatter_shapes_and_scalars():
    check(lambda t, x, i, s: x.scatter(0, i, s), values(), ints(0), Input(5.0, "float32"))
    check(lambda t, x, i: x.scatter(0, i, 5.0), values(), ints([0]))
    check(lambda t, x, i: x.scatter(1, i, 5.0), values(3, 4), ints(np.zeros((5, 0), int)))   # empty: no checks
    check(lambda t, x, i: x.scatter(1, i, 2.7), values(3, 4, dtype="int64"), ints([[0], [1], [2]]))
    check(lambda t, x, i: x.scatter(1, i, 2.7, reduce="add"), values(3, 4, dtype="int64"), ints([[0, 0]]))
    check(lambda t, x, i: x.scatter(0, i, 0.5), values(3, dtype="bool"), ints([0]))
    check(lambda t, x, i: x.scatter(1, i, 1.5), values(3, 4, dtype="float16"), ints([[0], [3], [3]], "int32"))


def test_scatter_out_and_meta():
    out = lambda t: t.tensor(np.zeros((3, 4), np.float32))
    check(lambda t, x, i, s: t.scatter(x, 1, i, s, out=out(t)), values(3, 4), ints([[1]]), randn(1, 1))
    check(lambda t, x, i: t.scatter(x, 1, i, 3.0, out=out(t)), values(3, 4), ints([[1]]))
    check(lambda t, x, i: t.scatter(x, 1, i, 3.0, reduce="add", out=out(t)), values(3, 4), ints([[1]]))
    check(lambda t, x, i, s: t.scatter_add(x, 1, i, s, out=out(t)), values(3, 4), ints([[1, 1]]), randn(1, 2))
    check_error(lambda t, x, i, s: t.scatter_add(x, 1, i, s, out=t.tensor([1.0], dtype=t.float64)), values(3, 4), ints([[1, 1]]), randn(1, 2))
    check(lambda t, x, i: x.scatter(1, i, 1.0), meta(3, 4), Input(np.zeros((3, 2)), "int64", device="meta"))
    check(lambda t, x, i, s: x.scatter_add_(1, i, s), meta(3, 4), Input(np.zeros((3, 2)), "int64", device="meta"), meta(3, 2))
    check_error(lambda t, x, i, s: x.scatter(1, i, s), meta(3, 4), Input(np.zeros((3, 2)), "int64", device="meta"), meta(3, 2, dtype="float64"))


@pytest.mark.parametrize("case", [
    lambda t, x: x.scatter(1, t.tensor([[0], [5]]), 1.0),                         # bounds
    lambda t, x: x.scatter(1, t.tensor([[0], [-1]]), t.tensor([[1.0], [1.0]])),
    lambda t, x: x.scatter(1, t.tensor([[0]], dtype=t.int16), 1.0),               # index dtype
    lambda t, x: x.scatter(1, t.tensor([[0]]), t.tensor([[1.0]], dtype=t.float64)),  # src dtype
    lambda t, x: x.scatter(1, t.tensor([[0]] * 3, dtype=t.int16), t.tensor([[1.0]], dtype=t.float64)),
    lambda t, x: x.scatter(1, t.tensor([[0, 0]] * 3), t.tensor([[1.0]] * 3)),      # larger than src
    lambda t, x: x.scatter(1, t.tensor([[0, 0]] * 4), t.tensor([[1.0] * 5] * 5)),  # larger than self
    lambda t, x: x.scatter(1, t.tensor([0, 0, 0]), t.tensor([1.0] * 3)),            # ndim vs self
    lambda t, x: x.scatter(1, t.tensor([[0]] * 3), t.tensor([1.0] * 3)),            # src ndim lower
    lambda t, x: x.scatter(1, t.tensor([[0]] * 3), t.tensor([[[1.0]]] * 3)),        # src ndim higher
    lambda t, x: x.scatter(1, t.tensor([[0, 0]]), 2.0, reduce="sum"),
    lambda t, x: x.scatter(1, t.tensor([[0, 0]]), t.tensor([[1.0, 2.0]]), reduce="mean"),
    lambda t, x: x.scatter(0, t.tensor([[1]]), 1j),                                 # scalar overflow
    lambda t, x: x.scatter_add(1, t.tensor([[0]]), t.tensor([[1]])),
    lambda t, x: x.scatter_add(1, t.tensor([[9]]), t.tensor([[1.0]])),
])
def test_scatter_errors(case):
    check_error(case, values(3, 4))


def test_scatter_errors_on_other_shapes():
    check_error(lambda t, x: x.scatter(0, t.tensor([1]), 300), values(3, dtype="int8"))
    check_error(lambda t, x: x.scatter(1, t.tensor([[0]]), 1.0), values(0, 4))


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d not in ("bool", "complex64", "complex128")])
def test_scatter_add_duplicates(dtype):
    i = ints([[0, 0, 1, 1], [0, 2, 0, 0], [2, 2, 2, 2]])
    check(lambda t, x, i, s: x.scatter_add(0, i, s), values(3, 4, dtype=dtype), i, values(3, 4, dtype=dtype, noncontiguous=True))
    check(lambda t, x, i, s: (x.scatter_add_(1, i, s), x)[1], values(3, 4, dtype=dtype, noncontiguous=True), i, values(4, 5, dtype=dtype))


def test_scatter_add_bool_and_complex():
    check(lambda t, x, i, s: x.scatter_add(0, i, s), values(3, dtype="bool"), ints([0, 0]), values(2, dtype="bool"))
    check(lambda t, x, i, s: x.scatter_add(0, i, s), values(3, dtype="complex64"), ints([2, 2, 0]), values(3, dtype="complex64"))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "float16"])
def test_scatter_reduce_two(reduce, include_self, dtype):
    x = Input(randint(-5, 6, 3, 4), dtype)
    src = Input(randint(-9, 10, 3, 4, seed=1), dtype)
    i = ints([[0, 0, 1, 1], [0, 2, 0, 0], [2, 2, 2, 1]])
    check(lambda t, x, i, s: x.scatter_reduce(0, i, s, reduce, include_self=include_self), x, i, src, policy=scaled(rtol=1e-3))
    j = ints([[0, 0, 3], [1, 1, 1], [2, 0, 2]])
    check(lambda t, x, j, s: (x.scatter_reduce_(1, j, s, reduce, include_self=include_self), x)[1], x, j, src, policy=scaled(rtol=1e-3))


def test_scatter_reduce_two_nan_and_errors():
    check(lambda t, x, i, s: x.scatter_reduce(0, i, s, "amax"), randn(3), ints([0, 0, 1]), Input([np.nan, 4.0, 7.0], "float32"))
    check(lambda t, x, i, s: x.scatter_reduce(0, i, s, "amin", include_self=False), randn(3), ints([0, 0, 1]), Input([np.nan, 4.0, 7.0], "float32"))
    check(lambda t, x, i, s: x.scatter_reduce(0, i, s, "mean"), Input([-1, 2, 3]), ints([0, 0, 1]), Input([-4, -5, 7]))
    check(lambda t, x, i, s: t.scatter_reduce(x, 0, i, s, "sum", out=t.tensor([0.0, 0, 0])), randn(3), ints([0, 0, 1]), randn(3))
    check_error(lambda t, x, i, s: x.scatter_reduce(0, i, s, "mean"), values(3, dtype="bool"), ints([0, 0, 1]), values(3, dtype="bool"))
    check_error(lambda t, x, i, s: x.scatter_reduce(0, i, s, "add"), randn(3), ints([0, 0, 1]), randn(3))
    check_error(lambda t, x, i, s: x.scatter_reduce(0, i, s, "foo"), meta(3), Input([0, 0, 1], "int64", device="meta"), meta(3))
    check(lambda t, x, i, s: x.scatter_reduce(0, i, s, "max"), randn(3), ints([0, 0, 1]), randn(3))
    check(lambda t, x, i, s: x.scatter_reduce(0, i, s, "min", include_self=False), randn(3), ints([0, 0, 1]), randn(3))


# --- index_select / index_add ------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_index_select_every_dtype(dtype):
    check(lambda t, x, i: x.index_select(1, i), values(3, 4, dtype=dtype, noncontiguous=True), ints([3, 0, 3]))
    check(lambda t, x, i: t.index_select(x, -2, i), values(3, 4, dtype=dtype), ints([2, 2], "int32"))


def test_index_select_shapes():
    check(lambda t, x, i: x.index_select(1, i), values(3, 4), ints(3))
    check(lambda t, x, i: x.index_select(0, i), values(), ints([0]))
    check(lambda t, x, i: x.index_select(0, i), values(0, 3), ints(np.zeros(0, int)))
    check(lambda t, x, i: x.index_select(2, i), values(2, 3, 4), ints([1, 0, 1, 3], noncontiguous=True))
    check(lambda t, x, i: t.index_select(x, 0, i, out=t.tensor(np.zeros((2, 4), np.float32))), values(3, 4), ints([1, 0]))
    check(lambda t, x, i: x.index_select(0, i), meta(3, 4), Input(np.zeros(5), "int64", device="meta"))


@pytest.mark.parametrize("case", [
    lambda t, x: x.index_select(1, t.tensor([4])),
    lambda t, x: x.index_select(1, t.tensor([-1])),
    lambda t, x: x.index_select(0, t.tensor([3])),
    lambda t, x: x.index_select(0, t.tensor([-1], dtype=t.int32)),
    lambda t, x: x.index_select(1, t.tensor([1], dtype=t.int16)),
    lambda t, x: x.index_select(1, t.tensor([1.0])),
    lambda t, x: x.index_select(1, t.tensor([[1]])),
    lambda t, x: t.index_select(x, 0, t.tensor([1]), out=t.tensor([1])),
])
def test_index_select_errors(case):
    check_error(case, values(3, 4))


def test_index_select_errors_on_other_shapes():
    check_error(lambda t, x: x.index_select(0, t.tensor([0, 0])), values())
    check_error(lambda t, x: x.index_select(0, t.tensor([1])), values())
    check_error(lambda t, x: x.index_select(0, t.tensor([0])), values(0, 3))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_index_add_every_dtype(dtype):
    check(lambda t, x, i, s: x.index_add(0, i, s), values(3, 4, dtype=dtype), ints([0, 2, 0]), values(3, 4, dtype=dtype, noncontiguous=True))
    check(lambda t, x, i, s: (x.index_add_(-1, i, s, alpha=2), x)[1], values(3, 4, dtype=dtype, noncontiguous=True), ints([3, 3], "int32"), values(3, 2, dtype=dtype))


def test_index_add_alpha_and_shapes():
    check(lambda t, x, i, s: x.index_add(0, i, s, alpha=2.5), values(3, dtype="int64"), ints([0, 0]), values(2, dtype="int64"))
    check(lambda t, x, i, s: x.index_add(0, i, s, alpha=-1.5), randn(3, 2), ints([2, 2, 0]), randn(3, 2))
    check(lambda t, x, i, s: x.index_add(0, i, s), values(), ints(0), Input(5.0, "float32"))
    check(lambda t, x, i, s: x.index_add(1, i, s), values(2, 3, 4), ints(np.zeros(0, int)), randn(2, 0, 4))
    check(lambda t, x, i, s: t.index_add(x, 1, i, s, alpha=3, out=t.tensor(np.zeros((2, 2), np.float32))), randn(2, 2), ints([1]), randn(2, 1))
    check(lambda t, x, i, s: x.index_add(0, i, s), meta(3, 4), Input([0, 1], "int64", device="meta"), meta(2, 4))


@pytest.mark.parametrize("case", [
    lambda t, x: x.index_add(0, t.tensor([0, 0]), t.tensor([[1.0] * 4] * 2, dtype=t.float64)),
    lambda t, x: x.index_add(0, t.tensor([0, 0]), t.tensor([[1.0] * 3] * 2)),
    lambda t, x: x.index_add(0, t.tensor([0, 0]), t.tensor([[1.0] * 4] * 3)),
    lambda t, x: x.index_add(0, t.tensor([0, 3]), t.tensor([[1.0] * 4] * 2)),
    lambda t, x: x.index_add(0, t.tensor([0, -1]), t.tensor([[1.0] * 4] * 2)),
    lambda t, x: x.index_add(0, t.tensor([0, 1], dtype=t.int16), t.tensor([[1.0] * 4] * 2)),
    lambda t, x: x.index_add(0, t.tensor([[0, 1]]), t.tensor([[1.0] * 4] * 2)),
    lambda t, x: x.index_add(0, t.tensor([0, 1]), t.tensor([[[1.0]] * 4] * 2)),
    lambda t, x: x.index_add(0, t.tensor([[0] * 2] * 2, dtype=t.int16), t.tensor([[1.0] * 4] * 2, dtype=t.float64)),
    lambda t, x: x.index_add(0, t.tensor([0] * 3), t.tensor([[1.0] * 4] * 2, dtype=t.float64)),
    lambda t, x: x.index_add(0, t.tensor([0, 0]), t.tensor(1.0)),
])
def test_index_add_errors(case):
    check_error(case, values(3, 4))


# --- nonzero / masked_select ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_nonzero_every_dtype(dtype):
    data = np.array([[0, 1, 0], [2, 0, 3]])
    check(lambda t, x: t.nonzero(x), Input(data, dtype))
    check(lambda t, x: x.nonzero(), Input(data, dtype, noncontiguous=True))
    check(lambda t, x: t.nonzero(x, as_tuple=True), Input(data, dtype))
    check(lambda t, x: x.nonzero(as_tuple=True), Input(data, dtype, noncontiguous=True))


def test_nonzero_shapes_and_values():
    check(lambda t, x: t.nonzero(x), Input([np.nan, 0.0, -0.0, np.inf], "float32"))
    check(lambda t, x: t.nonzero(x).stride(), Input([[0, 1, 0], [2, 0, 3]]))
    check(lambda t, x: t.nonzero(x), Input(3.0, "float32"))
    check(lambda t, x: t.nonzero(x), Input(0.0, "float32"))
    check(lambda t, x: t.nonzero(x, as_tuple=True), Input(3.0, "float32"))
    check(lambda t, x: t.nonzero(x, as_tuple=True), Input(0.0, "float32"))
    check(lambda t, x: t.nonzero(x), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, x: t.nonzero(x, as_tuple=True), Input(np.zeros((2, 0, 3)), "float32"))
    check(lambda t, x: t.nonzero(input=x, as_tuple=False), Input(np.eye(3, 4), "int32"))
    check(lambda t, x: t.nonzero(x, out=t.tensor([1, 2])), Input(np.eye(3), "int32"))


def test_nonzero_errors():
    check_error(lambda t, x: t.nonzero(x, out=t.tensor([1], dtype=t.int32)), Input(np.eye(3), "int32"))
    check_error(lambda t, x: t.nonzero(x, out=t.tensor([1]), as_tuple=True), Input(np.eye(3), "int32"))
    check_error(lambda t, x: t.nonzero(x), meta(3, 4))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_masked_select_every_dtype(dtype):
    m = mask([[1, 0, 1], [0, 0, 1]])
    check(lambda t, x, m: t.masked_select(x, m), values(2, 3, dtype=dtype), m)
    check(lambda t, x, m: x.masked_select(m), values(2, 3, dtype=dtype, noncontiguous=True), mask([1, 0, 1], noncontiguous=True))


def test_masked_select_broadcasting_and_out():
    check(lambda t, x, m: t.masked_select(x, m), values(3), mask([[1, 0, 1], [0, 0, 1]]))
    check(lambda t, x, m: t.masked_select(x, m), values(), mask(True))
    check(lambda t, x, m: t.masked_select(x, m), values(0, 3), mask([1, 1, 0]))
    check(lambda t, x, m: t.masked_select(x, m, out=t.tensor([1.0])), values(2, 3), mask([1, 0, 1]))


@pytest.mark.parametrize("case", [
    lambda t, x: t.masked_select(x, t.tensor([1, 0, 1], dtype=t.uint8)),
    lambda t, x: t.masked_select(x, t.tensor([1.0, 0.0, 1.0])),
    lambda t, x: t.masked_select(x, t.tensor([True, False])),
    lambda t, x: t.masked_select(x, t.tensor([True, False, True]), out=t.tensor([1.0], dtype=t.float64)),
])
def test_masked_select_errors(case):
    check_error(case, values(2, 3))



# --- what a TorchDispatchMode sees ------------------------------------------------------------------


@pytest.mark.parametrize("fn", [
    lambda t, x, i, j, m, v: x.index_put_((i,), v),                 # not _index_put_impl_
    lambda t, x, i, j, m, v: t.index_put(x, [i], v, True),
    lambda t, x, i, j, m, v: t.ops.aten.index.Tensor(x, [None, i]),
    lambda t, x, i, j, m, v: x.gather(0, j),
    lambda t, x, i, j, m, v: x.scatter(0, j, 5.0, reduce="add"),
    lambda t, x, i, j, m, v: x.scatter_(0, j, v),
    lambda t, x, i, j, m, v: x.scatter_reduce(1, j, v, "amax", include_self=False),
    lambda t, x, i, j, m, v: x.index_add(0, i, v, alpha=2),
    lambda t, x, i, j, m, v: t.nonzero(x),
    lambda t, x, i, j, m, v: t.nonzero(x, as_tuple=True),          # nonzero, then unbind
    lambda t, x, i, j, m, v: v.sum().nonzero(as_tuple=True),        # 0-dim: unsqueeze first
    lambda t, x, i, j, m, v: t.masked_select(x, m),
])
def test_dispatch_mode_sees_torchs_ops(fn):
    from .test_sorting import seen_ops

    inputs = (values(3, 4), ints([0, 2, 2]), ints(np.eye(3, 4, dtype=int) * 2), mask(np.eye(3, 4)), values(3, 4))
    assert seen_ops(torchpy, fn, *inputs) == seen_ops(torch, fn, *inputs)


def test_version_counters_bump_once_per_write():
    def versions(t, x, i, j):
        t.index_put_(x, (i,), t.tensor(1.0))
        after_put = x._version
        fresh = t.index_put(x, (i,), t.tensor(1.0), True)
        x.scatter_(1, j, 2.0)
        x.index_add_(0, i, t.index_select(x, 0, i) * 1)
        out = t.tensor([0.0])
        t.gather(x, 1, j, out=out)
        return [after_put, x._version, fresh._version, out._version]

    check(versions, values(3, 4), ints([0, 2]), ints([[0], [1], [3]]))


# --- through Tensor.__getitem__ / __setitem__ ------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "bfloat16"])
def test_getitem_with_tensor_indices(dtype):
    x = values(3, 4, 5, dtype=dtype)
    i, j = ints([2, 0, 2]), ints([[1], [3]])
    check(lambda t, x, i: x[i], x, i)
    check(lambda t, x, i: x[:, i], x, i)
    check(lambda t, x, i, j: x[i, :, j], x, i, j)
    check(lambda t, x, i, j: x[1:, j, i], x, i, j)
    check(lambda t, x, i: x[..., i], x, ints([4, -5]))
    check(lambda t, x, m: x[m], x, mask(np.arange(60).reshape(3, 4, 5) % 7 == 0))
    check(lambda t, x, m: x[:, m], x, mask([1, 0, 0, 1]))
    check(lambda t, x: x[[0, 2], [1, 3]], x)
    check(lambda t, x, i: x[i, None, 0], x, i)


@pytest.mark.parametrize("dtype", ["float32", "int32", "bool", "float16"])
def test_setitem_with_tensor_indices(dtype):
    def assign(index, value):
        def fn(t, x, *tensors):
            key = index(t, *tensors)
            x[key] = value(t, x) if callable(value) else value
            return x
        return fn

    x = values(3, 4, dtype=dtype)
    check(assign(lambda t, i: i, 1), x, ints([2, 0, 2]))
    check(assign(lambda t, m: m, 0), x, mask([[1, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 1]]))
    check(assign(lambda t, i: (i, slice(1, None)), 1), x, ints([0, 0]))
    check(assign(lambda t, i: (slice(None), i), lambda t, x: t.tensor(np.array([[1], [2], [3]]), dtype=x.dtype)), x, ints([3, 1]))
    check(assign(lambda t, m: m, lambda t, x: t.tensor(np.array([1, 2, 3, 4]), dtype=x.dtype)), x, mask([0, 1, 0]))
    check(assign(lambda t, i: i, 1), values(3, 4, dtype=dtype, noncontiguous=True), ints([1]))


def test_setitem_uint8_mask_takes_masked_fill_path():
    check_error(lambda t, x, m: x.__setitem__(m, 1.0), values(3, 4), ints([1, 0, 1], "uint8"))


def test_setitem_accumulates_nothing_and_getitem_errors():
    check(lambda t, x, i: (x.__setitem__(i, x[i] + 1), x)[1], values(3, 4), ints([0, 0, 2]))
    check_error(lambda t, x: x[t.tensor([3])], values(3, 4))
    check_error(lambda t, x: x[:, t.tensor([0, 4])], values(3, 4))
    check_error(lambda t, x: x[t.tensor([True, False])], values(3, 4))
    check_error(lambda t, x: x[t.tensor([1.0])], values(3, 4))


# --- random index lists ----------------------------------------------------------------------------


def _random_index_case(rng: np.random.Generator):
    """A random tensor and a random aten index list (None / integer tensors / bool masks)
    that stays within the tensor's dims; out-of-range values now and then."""
    shape = tuple(int(s) for s in rng.integers(0, 4, int(rng.integers(1, 5))))
    arrays, entries, pos = [], [], 0
    while pos < len(shape) and (not entries or rng.random() < 0.6):
        kind = rng.choice(["none", "int", "mask"], p=[0.3, 0.5, 0.2])
        if kind == "none":
            entries.append(None)
            pos += 1
            continue
        if kind == "int":
            size = shape[pos]
            index_shape = tuple(int(s) for s in rng.integers(1, 3, int(rng.integers(0, 3))))
            arrays.append(rng.integers(-size - (rng.random() < 0.1), size + (rng.random() < 0.1), index_shape)
                          if size else np.zeros(index_shape, np.int64))
            pos += 1
        else:
            mask_dims = min(int(rng.integers(1, 3)), len(shape) - pos)
            arrays.append(rng.random(shape[pos:pos + mask_dims]) > 0.5)
            pos += mask_dims
        entries.append(len(arrays) - 1)
    return rng.standard_normal(shape).astype(np.float32), entries, arrays


@pytest.mark.parametrize("seed", range(4))
def test_random_index_and_index_put(seed):
    rng = np.random.default_rng(seed)
    for _ in range(60):
        x, entries, arrays = _random_index_case(rng)
        if all(e is None for e in entries):
            continue  # torch fails an internal assert there
        inputs = [x] + [Input(a, "bool" if a.dtype == bool else "int64") for a in arrays]

        def key(tensors):
            return [None if e is None else tensors[e] for e in entries]

        try:
            expected = index(torch, *[convert(v, torch) for v in inputs[:1]], *key([convert(v, torch) for v in inputs[1:]]))
        except IndexError:
            check_error(lambda t, x, *ts: index(t, x, *key(ts)), *inputs)
            continue
        check(lambda t, x, *ts: index(t, x, *key(ts)), *inputs)
        values_ = rng.standard_normal(tuple(expected.shape)).astype(np.float32)
        check(lambda t, x, v, *ts: t.ops.aten.index_put.default(x, key(ts), v, True), x, values_, *inputs[1:], policy=scaled(atol=1e-5))
        check(lambda t, x, v, *ts: t.ops.aten.index_put.default(x, key(ts), v), x, values_[-1:] if values_.ndim else values_, *inputs[1:])


# --- masked_scatter, index_fill, index_copy, take, put, take_along_dim ------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_masked_scatter_every_dtype(dtype):
    m = mask([[1, 0, 1, 0], [0, 0, 0, 1], [1, 1, 1, 1]])
    check(lambda t, x, m, s: x.masked_scatter(m, s), values(3, 4, dtype=dtype), m, values(3, 4, dtype=dtype))
    check(lambda t, x, m, s: t.masked_scatter(x, m, s), values(4, dtype=dtype), m, values(2, 5, dtype=dtype))  # broadcast self
    check(lambda t, x, m, s: x.masked_scatter_(m, s), values(3, 4, dtype=dtype, noncontiguous=True), mask([1, 0, 0, 1]), values(9, dtype=dtype))


def test_masked_scatter_shapes_meta_and_out():
    check(lambda t, x, m, s: x.masked_scatter(m, s), values(), mask(True), values(1))
    check(lambda t, x, m, s: x.masked_scatter(m, s), values(0, 4), mask(np.zeros((0, 4))), values(0))
    check(lambda t, x, m, s: t.ops.aten.masked_scatter.out(x, m, s, out=t.tensor([0.0])), values(3, 4), mask([1, 0, 0, 1]), values(6))
    check_error(lambda t, x, m, s: t.masked_scatter(x, m, s, out=s), values(3, 4), mask([1, 0, 0, 1]), values(6),
                match_message=False)  # generated out= forms have no Python binding
    check(lambda t, x, m, s: x.masked_scatter(m, s), meta(3, 4), Input([1, 0, 0, 1], "bool", device="meta"), meta(1))
    check(lambda t, x, m, s: x.masked_scatter_(m, s), meta(4), Input(np.ones((3, 4)), "bool", device="meta"), meta(12))
    check_error(lambda t, x, m, s: x.masked_scatter(m, s), meta(3, 4), meta(3, 4), meta(12))
    check_error(lambda t, x, m, s: x.masked_scatter(m, s), meta(3, 4), Input([1, 0, 0, 1], "bool", device="meta"), meta(1, dtype="float64"))


@pytest.mark.parametrize("case", [
    lambda t, x, m: x.masked_scatter(m, t.tensor([1.0, 2.0])),                             # source too small
    lambda t, x, m: x.masked_scatter(m, t.tensor([1] * 12)),                               # dtype
    lambda t, x, m: x.masked_scatter(m.float() if t is torch else t.tensor(m._data.astype(np.float32)), t.tensor([1.0] * 12)),
    lambda t, x, m: x.masked_scatter(t.tensor([True, False]), t.tensor([1.0] * 12)),       # broadcast
    lambda t, x, m: t.tensor([1.0] * 4).masked_scatter_(m, t.tensor([1.0] * 12)),          # mask larger than self
])
def test_masked_scatter_errors(case):
    check_error(case, values(3, 4), mask(np.ones((3, 4))))


def test_masked_scatter_uint8_mask_warns_then_fails():
    both_warn(lambda t, x, m: _swallow(lambda: x.masked_scatter_(m, t.tensor([1.0] * 12))), values(3, 4), ints(np.ones((3, 4)), "uint8"))
    check_error(lambda t, x, m: x.masked_scatter_(m, t.tensor([1.0] * 12)), values(3, 4), ints(np.ones((3, 4)), "uint8"))


def _swallow(fn):
    try:
        fn()
    except RuntimeError:
        pass


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_index_fill_every_dtype(dtype):
    check(lambda t, x, i: x.index_fill(1, i, 1), values(3, 4, dtype=dtype), ints([0, 2, -1, 0]))
    check(lambda t, x, i, v: x.index_fill_(0, i, v), values(3, 4, dtype=dtype, noncontiguous=True), ints(1), Input(True, dtype))
    check(lambda t, x, i: t.index_fill(x, -1, i, 0), values(2, 3, 4, dtype=dtype), ints([3]))


def test_index_fill_shapes_out_and_meta():
    check(lambda t, x, i: x.index_fill(0, i, 5.0), values(), ints([0]))
    check(lambda t, x, i: x.index_fill(0, i, 2.5), values(3, dtype="int64"), ints(np.zeros(0, int)))
    check(lambda t, x, i, v: x.index_fill(0, i, v), values(3), ints([1]), Input(7, "int64"))           # cast
    check(lambda t, x, i: t.ops.aten.index_fill.int_Scalar_out(x, 0, i, 5.0, out=t.tensor([0.0])), values(3, 2), ints([1]))
    check(lambda t, x, i: x.index_fill(0, i, 5.0), meta(3, 2), Input([1], "int32", device="meta"))


@pytest.mark.parametrize("case", [
    lambda t, x: x.index_fill(1, t.tensor([4]), -1.0),
    lambda t, x: x.index_fill(1, t.tensor([-5]), -1.0),
    lambda t, x: x.index_fill(1, t.tensor([1], dtype=t.int32), -1.0),
    lambda t, x: x.index_fill(1, t.tensor([1.0]), -1.0),
    lambda t, x: x.index_fill(1, t.tensor([[1]]), -1.0),
    lambda t, x: x.index_fill(1, t.tensor([1]), t.tensor([7.0])),
    lambda t, x: x.index_fill(1, t.tensor([1]), 1j),
    lambda t, x: x.index_fill(2, t.tensor([1]), 1.0),
    lambda t, x: x.to(t.int32).index_fill(1, t.tensor([1]), 2 ** 40),
    lambda t, x: x.to(t.float16).index_fill(1, t.tensor([1]), 1e10),
    lambda t, x: x.to(t.bfloat16).scatter(1, t.tensor([[1]]), 1e300),
])
def test_index_fill_errors(case):
    check_error(case, values(3, 4))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_index_copy_every_dtype(dtype):
    check(lambda t, x, i, s: x.index_copy(0, i, s), values(3, 4, dtype=dtype), ints([2, 0]), values(2, 4, dtype=dtype))
    check(lambda t, x, i, s: x.index_copy_(1, i, s), values(3, 4, dtype=dtype, noncontiguous=True), ints([3, 3]), values(3, 2, dtype=dtype))


def test_index_copy_shapes_out_and_meta():
    check(lambda t, x, i, s: x.index_copy(0, i, s), values(), ints([0]), Input(5.0, "float32"))
    check(lambda t, x, i, s: x.index_copy(0, i, s), values(3), ints([1]), Input(5.0, "float32"))
    check(lambda t, x, i, s: x.index_copy(0, i, s), values(3, 2), ints(1), values(1, 2))
    check(lambda t, x, i, s: t.index_copy(x, 1, i, s, out=t.tensor([0.0])), values(3, 2), ints([0]), values(3, 1))
    check(lambda t, x, i, s: x.index_copy(0, i, s), meta(3, 4), Input([1], "int64", device="meta"), meta(1, 4))
    check_error(lambda t, x, i, s: x.index_copy(0, i, s), meta(3, 4), Input([1, 2], "int64", device="meta"), meta(1, 4))


@pytest.mark.parametrize("case", [
    lambda t, x: x.index_copy(1, t.tensor([0]), t.zeros(2, 1, 5)),                       # slice shapes
    lambda t, x: x.index_copy(2, t.tensor([0]), t.zeros(2, 2, 1)),
    lambda t, x: x.index_copy(1, t.tensor([0]), t.zeros(2, 1)),                          # dimensionality
    lambda t, x: x.index_copy(1, t.tensor([[0]], dtype=t.int32), t.zeros(2, 3, dtype=t.int64)),
    lambda t, x: x.index_copy(1, t.tensor([0], dtype=t.int32), t.zeros(2, 1, 4, dtype=t.int64)),
    lambda t, x: x.index_copy(1, t.tensor([0, 1]), t.zeros(2, 1, 4, dtype=t.int64)),
    lambda t, x: x.index_copy(1, t.tensor([0, 1]), t.zeros(2, 1, 5)),
    lambda t, x: x.index_copy(1, t.tensor([0, 1]), t.zeros(2, 1, 4)),                    # numel
    lambda t, x: x.index_copy(1, t.tensor([3]), t.zeros(2, 1, 4)),                       # bounds
    lambda t, x: x.index_copy(1, t.tensor([-1]), t.zeros(2, 1, 4)),
    lambda t, x: x.index_copy(1, t.tensor([0, 1]), t.tensor(1.0)),
])
def test_index_copy_errors(case):
    check_error(case, values(2, 3, 4))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_take_and_put_every_dtype(dtype):
    check(lambda t, x, i: x.take(i), values(3, 4, dtype=dtype, noncontiguous=True), ints([[0, 11], [-1, -12]]))
    check(lambda t, x, i, s: x.put_(i, s), values(3, 4, dtype=dtype, noncontiguous=True), ints([0, 11, -2]), values(3, dtype=dtype))
    check(lambda t, x, i, s: t.put(x, i, s, accumulate=True), values(3, 4, dtype=dtype), ints([[0, 5], [5, 0]]), values(2, 2, dtype=dtype))


def test_take_put_shapes_out_and_meta():
    check(lambda t, x, i: t.take(x, i), values(), ints([0, -1]))
    check(lambda t, x, i: t.take(x, i), values(0), ints(np.zeros(0, int)))
    check(lambda t, x, i: t.take(x, i, out=t.tensor([0.0])), values(3), ints([2, 1]))
    check(lambda t, x, i, s: t.ops.aten.put.out(x, i, s, out=t.tensor([0.0])), values(3), ints([2, 1]), values(2))
    check(lambda t, x, i: x.take(i), meta(3, 4), Input(np.zeros((2, 2)), "int64", device="meta"))
    check(lambda t, x, i, s: x.put_(i, s), meta(3, 4), Input([0, 1], "int64", device="meta"), meta(1))
    check_error(lambda t, x, i: x.take(i), meta(3, 4), Input([0], "int32", device="meta"))


@pytest.mark.parametrize("case", [
    lambda t, x: x.take(t.tensor([12])),
    lambda t, x: x.take(t.tensor([-13])),
    lambda t, x: x.take(t.tensor([1], dtype=t.int32)),
    lambda t, x: t.tensor([]).take(t.tensor([0])),
    lambda t, x: x.put_(t.tensor([12]), t.tensor([1.0])),
    lambda t, x: x.put_(t.tensor([1, 2]), t.tensor([1.0])),
    lambda t, x: x.put_(t.tensor([1]), t.tensor([1])),
    lambda t, x: x.put_(t.tensor([1], dtype=t.int32), t.tensor([1])),
    lambda t, x: t.tensor([]).put_(t.tensor([0]), t.tensor([1.0])),
])
def test_take_put_errors(case):
    check_error(case, values(3, 4))


def test_take_along_dim():
    x = values(3, 4)
    check(lambda t, x, i: t.take_along_dim(x, i, 1), x, ints([[0], [1], [3]]))
    check(lambda t, x, i: x.take_along_dim(i, -1), x, ints([[0, -1]]))                  # broadcast, wrap
    check(lambda t, x, i: t.take_along_dim(x, i), x, ints([0, 5, 11]))
    check(lambda t, x, i: t.take_along_dim(x, i, 0, out=t.tensor([0.0])), x, ints([[2, 0, 1, 1]]))
    check(lambda t, x, i: t.take_along_dim(x, i, 1), meta(3, 4), Input(np.zeros((3, 1)), "int64", device="meta"))
    check_error(lambda t, x, i: t.take_along_dim(x, i, 1), x, Input([[0.0]], "float32"))
    check_error(lambda t, x, i: t.take_along_dim(x, i, 1), x, ints([0]))
    check_error(lambda t, x, i: t.take_along_dim(x, i, 1), x, ints(np.zeros((2, 1), int)))


@pytest.mark.parametrize("fn", [
    lambda t, x, i, m, s: t.take_along_dim(x, i, 1),                  # expand, expand, remainder, gather
    lambda t, x, i, m, s: t.take_along_dim(x, i),                     # view, view, gather
    lambda t, x, i, m, s: t.take_along_dim(x, i, 1, out=s),           # ... gather.out
    lambda t, x, i, m, s: t.put(x, i, s[:3]),
    lambda t, x, i, m, s: x.index_fill(1, i[0], 2.0),
    lambda t, x, i, m, s: x.masked_scatter(m, s),
    lambda t, x, i, m, s: x.take(i),
])
def test_dispatch_mode_sees_torchs_ops_for_the_rest(fn):
    from .test_sorting import seen_ops

    inputs = (values(3, 4), ints([[0], [1], [3]]), mask([1, 0, 0, 1]), values(12))
    assert seen_ops(torchpy, fn, *inputs) == seen_ops(torch, fn, *inputs)


def test_nonzero_goes_through_torch_function_modes():
    def seen(lib):
        overrides = __import__(lib.__name__ + ".overrides", fromlist=["TorchFunctionMode"])
        calls = []

        class Recorder(overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                calls.append((func.__name__, len(args), sorted((kwargs or {}).items())))
                return func(*args, **(kwargs or {}))

        x = lib.tensor([[0.0, 1.0], [2.0, 0.0]])
        with Recorder():
            lib.nonzero(x)
            lib.nonzero(x, as_tuple=True)
            x.nonzero(as_tuple=False)
        return calls

    assert seen(torchpy) == seen(torch)


def test_fast_method_forms_agree_with_torch():
    check(lambda t, x, i: x.gather(1, i), values(3, 4), ints([[0, 3], [1, 1], [2, 0]]))
    check(lambda t, x, i: x.gather(dim=1, index=i), values(3, 4), ints([[0, 3], [1, 1], [2, 0]]))
    check(lambda t, x, i: x.index_select(1, i), values(3, 4), ints([3, 0]))
    check(lambda t, x, i: x.index_select(index=i, dim=0), values(3, 4), ints([2]))
    check_error(lambda t, x, i: x.gather(1.0, i), values(3, 4), ints([[0]]), match_message=False)  # binding text: python_api
