"""The Tensor object model against torch: metadata, creation, NumPy interop, Python protocols."""

import pickle

import numpy as np
import pytest
import torch

import torchpy

from tests.oracle import assert_same, check, check_error

DATA = [
    [1.0, 2.5, -3.0],
    [[1, 2, 3], [4, 5, 6]],
    [True, False],
    [[1 + 2j, 3.0]],
    3.5,
    7,
    [],
    [[], []],
    [1, 2.5],
    [True, 2],
    [[1.5, 2], [3, 4]],
]


@pytest.mark.parametrize("data", DATA, ids=repr)
def test_tensor_infers_dtype_and_shape_as_torch(data):
    check(lambda t: t.tensor(data), )


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int8", "int16",
                                   "int32", "int64", "uint8", "bool", "complex64", "complex128"])
def test_tensor_with_dtype(dtype):
    check(lambda t: t.tensor([[0, 1], [2, 3]], dtype=getattr(t, dtype)))


@pytest.mark.parametrize("numpy_dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_,
                                         np.complex64, np.int16, np.float16])
def test_tensor_from_numpy_array_keeps_its_dtype(numpy_dtype):
    array = np.arange(6).reshape(2, 3).astype(numpy_dtype)
    check(lambda t: t.tensor(array))


def test_default_dtype_changes_inference():
    for lib in (torch, torchpy):
        lib.set_default_dtype(lib.float64)
    try:
        check(lambda t: t.tensor([1.0, 2.0]))
        check(lambda t: t.tensor([1j]))
        check(lambda t: t.get_default_dtype())
    finally:
        for lib in (torch, torchpy):
            lib.set_default_dtype(lib.float32)


def test_metadata_matches_torch():
    for fn in [
        lambda t, x: x.shape,
        lambda t, x: x.size(),
        lambda t, x: x.size(-1),
        lambda t, x: x.stride(),
        lambda t, x: x.stride(0),
        lambda t, x: x.dim(),
        lambda t, x: x.ndim,
        lambda t, x: x.numel(),
        lambda t, x: x.element_size(),
        lambda t, x: x.storage_offset(),
        lambda t, x: x.is_contiguous(),
        lambda t, x: x.dtype,
        lambda t, x: str(x.device),
        lambda t, x: x.requires_grad,
        lambda t, x: x.is_leaf,
        lambda t, x: x.grad is None,
        lambda t, x: x.grad_fn is None,
        lambda t, x: x._version,
        lambda t, x: x.untyped_storage().nbytes(),
        lambda t, x: x.is_floating_point(),
        lambda t, x: x.is_complex(),
        lambda t, x: len(x),
    ]:
        check(fn, np.arange(6, dtype=np.float32).reshape(2, 3))


def test_size_is_a_tuple_that_prints_as_torch():
    x = torchpy.tensor([[1, 2, 3]])
    assert isinstance(x.shape, tuple) and x.shape == (1, 3)
    assert repr(x.shape) == repr(torch.tensor([[1, 2, 3]]).shape) == "torch.Size([1, 3])"
    assert x.shape[1:] == (3,) and repr(x.shape[1:]) == "torch.Size([3])"
    assert x.shape.numel() == 3
    assert pickle.loads(pickle.dumps(x.shape)) == x.shape


def test_dim_errors_as_torch():
    check_error(lambda t, x: x.size(2), np.zeros((2, 3), np.float32))
    check_error(lambda t, x: x.stride(-3), np.zeros((2, 3), np.float32))


def test_from_numpy_and_numpy_share_memory():
    array = np.arange(4, dtype=np.float32)
    x = torchpy.from_numpy(array)
    array[0] = 100
    assert x.tolist() == [100.0, 1.0, 2.0, 3.0]
    x.numpy()[1] = -1
    assert array[1] == -1
    assert x.numpy() is not None and np.shares_memory(x.numpy(), array)
    assert np.asarray(x).tolist() == array.tolist()
    assert x.data_ptr() == array.ctypes.data


def test_from_numpy_of_a_strided_view_has_torch_strides_and_offset():
    base = np.arange(24, dtype=np.int64).reshape(4, 6)
    view = base[1:, ::2]
    check(lambda t: (t.from_numpy(view).stride(), t.from_numpy(view).storage_offset(),
                     t.from_numpy(view).is_contiguous()))


def test_from_numpy_errors_as_torch():
    check_error(lambda t: t.from_numpy([1, 2]))
    check_error(lambda t: t.from_numpy(np.arange(4)[::-1]))


def test_numpy_errors_as_torch():
    check_error(lambda t: t.tensor([1.0], requires_grad=True).numpy())
    check_error(lambda t: t.tensor([1.0], dtype=t.bfloat16).numpy())


@pytest.mark.parametrize("values,dtype", [([2.5], "float32"), ([3], "int64"), ([True], "bool"),
                                          ([1 + 2j], "complex64"), (7.25, "float64")])
def test_item_and_conversions(values, dtype):
    check(lambda t: t.tensor(values, dtype=getattr(t, dtype)).item())
    check(lambda t: t.tensor(values, dtype=getattr(t, dtype)).tolist())
    check(lambda t: bool(t.tensor(values, dtype=getattr(t, dtype))))
    if dtype != "complex64":
        check(lambda t: float(t.tensor(values, dtype=getattr(t, dtype))))
        check(lambda t: int(t.tensor(values, dtype=getattr(t, dtype))))


def test_tolist_nested():
    check(lambda t: t.tensor([[1, 2], [3, 4]]).tolist())
    check(lambda t: t.tensor([[1.5], [2.5]], dtype=t.float16).tolist())


def test_python_protocol_errors_as_torch():
    check_error(lambda t: t.tensor([1, 2]).item())
    check_error(lambda t: bool(t.tensor([1, 2])))
    check_error(lambda t: len(t.tensor(3)))
    check_error(lambda t: iter(t.tensor(3)))
    check_error(lambda t: [1, 2, 3][t.tensor(1.0)])
    check_error(lambda t: t.tensor([1], dtype=t.int64).requires_grad_())
    check_error(lambda t: t.tensor("abc"))


def test_index_and_hash():
    x = torchpy.tensor(2)
    assert [10, 20, 30][x] == 30
    assert hash(x) == id(x) or hash(x) == object.__hash__(x)
    assert len({torchpy.tensor(1), torchpy.tensor(1)}) == 2


def test_format_of_zero_dim_tensor_like_torch():
    assert f"{torchpy.tensor(2.5):.2f}" == f"{torch.tensor(2.5):.2f}"


@pytest.mark.parametrize("data,kwargs", [
    ([1.0, 2.0], {}),
    ([[1, 2], [3, 4]], {}),
    ([1.0, 2.0], {"requires_grad": True}),
    ([1.0, 2.0], {"dtype": "float64"}),
    ([1, 2], {"dtype": "int32"}),
    ([[1e-8, 1.0, 1e10]], {}),
    ([1.0, 2.0], {"device": "meta"}),
    ([[1, 2]], {"device": "meta", "dtype": "int64"}),
])
def test_repr_matches_torch(data, kwargs):
    def make(lib):
        args = dict(kwargs)
        if "dtype" in args:
            args["dtype"] = getattr(lib, args["dtype"])
        return lib.tensor(data, **args)

    assert repr(make(torchpy)) == repr(make(torch))
    assert str(make(torchpy)) == str(make(torch))


def test_meta_tensors_have_metadata_and_no_data():
    check(lambda t: t.tensor([[1.0, 2.0, 3.0]], device="meta"))
    check(lambda t: t.tensor([[1.0, 2.0, 3.0]], device="meta").stride())
    check(lambda t: t.tensor([[1.0, 2.0, 3.0]], device="meta").is_meta)
    check_error(lambda t: t.tensor([1.0], device="meta").item(), match_message=False)


def test_dispatch_keys_of_tensors_match_torch():
    for device in ("cpu", "meta"):
        theirs = torch._C._dispatch_keys(torch.tensor([1.0], device=device))
        ours = torchpy._C._dispatch_keys(torchpy.tensor([1.0], device=device))
        assert repr(ours) == repr(theirs)


def test_devices_as_torch():
    for spec in ["cpu", "meta", "cpu:0"]:
        assert repr(torchpy.device(spec)) == repr(torch.device(spec))
        assert str(torchpy.device(spec)) == str(torch.device(spec))
    assert torchpy.device("cpu") == "cpu"
    check_error(lambda t: t.device("tpu"))


def test_dtype_objects_are_exported_like_torch():
    for name in ["float32", "float", "double", "half", "long", "int", "bool", "bfloat16", "cfloat"]:
        assert repr(getattr(torchpy, name)) == repr(getattr(torch, name))
    assert torchpy.promote_types(torchpy.int32, torchpy.float16) is torchpy.float16
    assert torchpy.finfo(torchpy.float32).eps == torch.finfo(torch.float32).eps
    assert torchpy.iinfo(torchpy.int8).max == 127
    assert torchpy.can_cast(torchpy.float32, torchpy.int32) == torch.can_cast(torch.float32, torch.int32)


# Empty tensors: NumPy gives every empty array zero strides; torch's depend on how the tensor
# was made (contiguous for kernel results, factories and lists; the array's own for arrays).
EMPTY_STRIDES = [
    "lib.relu(lib.zeros(0, 3))", "lib.zeros(0, 3).exp()", "lib.zeros(2, 0) + 1", "lib.zeros(1, 0, 1) + lib.zeros(1, 0, 1)",
    "lib.clamp(lib.zeros(0, 3), min=0.5)", "lib.zeros(2, 0, 4).sum(1)", "lib.zeros(2, 0, 4).mean(0)",
    "lib.zeros(0, 3) @ lib.zeros(3, 5)", "lib.zeros(0, 3).clone()", "lib.cat([lib.zeros(0, 3), lib.zeros(0, 3)])",
    "lib.tensor([[], []])", "lib.tensor(np.zeros((0, 3)))", "lib.tensor(np.zeros((1, 0, 1))).squeeze()",
    "lib.from_numpy(np.zeros((0, 3)))", "lib.as_tensor(np.zeros((2, 0)))", "lib.zeros(0, 3).t().exp()",
    "lib.zeros(0, 3).view(3, 0)", "lib.zeros(0, 3)[:, 1:]",
]


@pytest.mark.parametrize("expression", EMPTY_STRIDES)
def test_strides_of_empty_tensors_match_torch(expression):
    # (Left out: torch gives `zeros(1, 0, 1) * 2` strides (0, 1, 0), a TensorIterator quirk for a
    # number against size-1 dims of an empty tensor.)
    results = [eval(expression, {"lib": lib, "np": np}).stride() for lib in (torch, torchpy)]
    assert results[1] == results[0]


def test_tensors_take_attributes_and_copies_keep_them_as_torch():
    import copy

    seen = []
    for lib in (torch, torchpy):
        t = lib.ones(2)
        fresh = vars(lib.ones(1))
        t.tag = "a"
        p = lib.nn.Parameter(lib.ones(2))
        p.tag = "p"
        seen.append((
            fresh, vars(t),
            vars(copy.copy(t)), vars(copy.deepcopy(t)), vars(pickle.loads(pickle.dumps(t))),
            hasattr(t.detach(), "tag"), hasattr(t[0:1], "tag"), hasattr(t + 1, "tag"),
            vars(copy.deepcopy(p)), vars(pickle.loads(pickle.dumps(p))),
        ))
    assert seen[0] == seen[1]


def test_size_takes_no_attributes_and_shapes_stay_equal_as_torch():
    seen = []
    for lib in (torch, torchpy):
        x = lib.ones(2, 3)
        with pytest.raises(AttributeError):
            x.shape.tag = 1
        y = lib.zeros(2, 3)
        seen.append((x.shape == y.size(), type(x.shape).__name__, tuple(x.shape[1:]), x.size() == (2, 3),
                     repr(lib.ones(()).shape), hash(x.shape) == hash((2, 3))))
    assert seen[0] == seen[1]


def test_binary_fast_lane_builds_the_tensor_from_array_builds():
    """The binary kernels' fast lane gives the tensor from_array gives: the same fields, the same values."""
    from torchpy._tensor.tensor import from_array

    a, b = torchpy.tensor([1.0, 2.0]), torchpy.tensor([3.0, 4.0])
    fast = a + b
    slow = from_array(fast._data, fast._dtype)
    slots = [s for s in torchpy.Tensor.__slots__ if s not in ("__weakref__", "__dict__")]
    assert {s: getattr(fast, s) for s in slots} == {s: getattr(slow, s) for s in slots}
    empty = torchpy.tensor([]) + torchpy.tensor([])
    assert empty.stride() == torchpy.tensor([]).stride() == (1,)
