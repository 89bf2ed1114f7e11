"""Factories against torch: empty, empty_strided, zeros, ones, full, arange, linspace, eye,
the *_like forms and new_* methods; dtype inference, strides, meta, out=, errors, and what a
TorchDispatchMode sees."""

import warnings

import numpy as np
import pytest
import torch

import torchpy

from .dispatch_log import assert_same_dispatch
from tests.oracle import ALL_DTYPES, Input, check, check_error, randn, scaled

DTYPES = [d for d in ALL_DTYPES]


def layout(t):
    """What an uninitialized tensor can be compared by."""
    return (t.shape, t.dtype, t.stride(), str(t.device))


# --- empty, zeros, ones, full ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_zeros_ones_full_across_dtypes(dtype):
    check(lambda t: t.zeros(2, 3, dtype=getattr(t, dtype)))
    check(lambda t: t.ones((2, 3), dtype=getattr(t, dtype)))
    check(lambda t: t.full([4], 1, dtype=getattr(t, dtype)))
    check(lambda t: layout(t.empty(2, 3, dtype=getattr(t, dtype))))


@pytest.mark.parametrize("size", [(), (0,), (3,), (2, 0, 4), (1, 1), [2, 3]])
def test_sizes_in_every_form(size):
    check(lambda t: t.zeros(size))
    check(lambda t: t.ones(*size) if size else t.ones(size))
    check(lambda t: layout(t.empty(size)))
    check(lambda t: t.full(size, 7.5))


def test_default_dtype_is_followed():
    previous = torchpy.get_default_dtype()
    try:
        for lib in (torch, torchpy):
            lib.set_default_dtype(lib.float64)
        check(lambda t: (t.zeros(2), t.ones(2), t.full((2,), 1.5), t.arange(0.5, 2), t.linspace(0, 1, 3),
                         t.eye(2), t.full((1,), 1j)))
    finally:
        torch.set_default_dtype(torch.float32)
        torchpy.set_default_dtype(previous)


@pytest.mark.parametrize("value", [1.5, 2, True, 1j, -3, float("inf"), float("nan")])
def test_full_infers_dtype_from_the_fill_value(value):
    check(lambda t: t.full((2, 2), value))


@pytest.mark.parametrize("value,dtype", [
    (1.5, "int32"), (2.5, "bool"), (-1, "uint8"), (-255, "uint8"), (65504.0, "float16"), (-1e30, "bfloat16"),
    (True, "int32"), (3, "complex64"), (1e300, "float64"), (2**40, "int64"),
])
def test_full_converts_the_fill_value(value, dtype):
    check(lambda t: t.full((3,), value, dtype=getattr(t, dtype)))


@pytest.mark.parametrize("value,dtype", [
    (300, "uint8"), (-256, "uint8"), (-129, "int8"), (1e300, "int32"), (float("nan"), "int32"),
    (1e40, "float32"), (1j, "float32"), (1 + 1j, "int32"), (1e300, "complex64"), (2**63, None),
    (1e5, "float16"), (1e300, "bfloat16"),
])
def test_full_overflow_errors(value, dtype):
    check_error(lambda t: t.full((2,), value, dtype=getattr(t, dtype) if dtype else None))


def test_one_element_16_bit_fill_skips_the_overflow_check():
    check(lambda t: t.full((1,), 1e5, dtype=t.float16))
    check(lambda t: t.full((1, 1), 1e300, dtype=t.bfloat16))
    check_error(lambda t: t.full((1,), 1e300, dtype=t.float32))


def test_negative_sizes():
    check_error(lambda t: t.zeros(-1, 2))
    check_error(lambda t: t.ones(-1))
    check_error(lambda t: t.empty((2, -1)))
    check_error(lambda t: t.full((-1,), 1))
    check_error(lambda t: t.empty_strided((2, -3), (1, 2)))
    check_error(lambda t: t.zeros(3).new_zeros(-1))
    check_error(lambda t: t.zeros(-1, device="meta"))


def test_requires_grad():
    check(lambda t: t.zeros(2, requires_grad=True).requires_grad)
    check(lambda t: t.ones(2, 3, dtype=t.float64, requires_grad=True).requires_grad)


# --- memory formats and strides ------------------------------------------------------------

@pytest.mark.parametrize("shape,fmt", [
    ((2, 3, 4, 5), "channels_last"), ((2, 0, 4, 5), "channels_last"), ((2, 1, 1, 5), "channels_last"),
    ((2, 3, 4, 5, 6), "channels_last_3d"), ((2, 3), "contiguous_format"),
])
def test_empty_memory_format(shape, fmt):
    check(lambda t: layout(t.empty(shape, memory_format=getattr(t, fmt))))
    check(lambda t: layout(t.empty(shape, memory_format=getattr(t, fmt), device="meta")))


def test_empty_memory_format_errors():
    check_error(lambda t: t.empty(2, 3, memory_format=t.preserve_format))
    check_error(lambda t: t.empty(2, 3, memory_format=t.channels_last))
    check_error(lambda t: t.empty(2, 3, 4, 5, memory_format=t.channels_last_3d))


@pytest.mark.parametrize("size,stride", [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((2, 2), (0, 1)),
                                         ((0, 3), (3, 1)), ((3,), (2,)), ((), ())])
def test_empty_strided(size, stride):
    check(lambda t: layout(t.empty_strided(size, stride)))
    check(lambda t: layout(t.empty_strided(size, stride, dtype=t.int16, device="meta")))
    check(lambda t: t.empty_strided(size, stride).untyped_storage().nbytes())


def test_empty_strided_errors():
    check_error(lambda t: t.empty_strided((2, 3), (1,)))


def _views():
    base = np.arange(120, dtype=np.float32)
    return [
        base[:20].reshape(4, 5).T,                   # transposed: dense, strides kept
        base.reshape(2, 3, 4, 5).transpose(0, 2, 3, 1),  # channels-last-like permutation
        base.reshape(2, 3, 4, 5)[:, :, ::2],         # gaps: dense strides inferred
        base[:20].reshape(4, 5).T[::2],
        np.broadcast_to(base[:4].reshape(4, 1), (4, 3)),  # stride 0
        np.broadcast_to(base[:4].reshape(1, 4), (3, 4)),
        base[:12].reshape(4, 1, 3).transpose(2, 1, 0),
        base[:6].reshape(2, 3)[:, :0],
    ]


@pytest.mark.parametrize("index", range(8))
@pytest.mark.parametrize("fn", ["empty_like", "zeros_like", "ones_like", "full_like"])
def test_like_preserves_the_layout(fn, index):
    view = _views()[index]

    def run(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch warns that a broadcast array is read-only
            source = t.from_numpy(view)
        args = (source, 2) if fn == "full_like" else (source,)
        return layout(getattr(t, fn)(*args))

    check(run)


def test_like_values_dtypes_devices_and_formats():
    x = Input(randn(2, 3, 4, 5), "float64", noncontiguous=True)
    check(lambda t, a: t.zeros_like(a), x)
    check(lambda t, a: t.ones_like(a, dtype=t.int32), x)
    check(lambda t, a: t.full_like(a, 2.7), Input([[1, 2], [3, 4]], "int32"))
    check(lambda t, a: t.full_like(a, 2.7, dtype=t.float16), Input([[1, 2], [3, 4]], "int32"))
    check(lambda t, a: layout(t.empty_like(a, memory_format=t.contiguous_format)), x)
    check(lambda t, a: layout(t.zeros_like(a, memory_format=t.channels_last)), x)
    check(lambda t, a: layout(t.zeros_like(a, device="meta", dtype=t.bfloat16)), x)
    check(lambda t, a: layout(t.empty_like(a)), Input(randn(3), device="meta"))
    check_error(lambda t, a: t.zeros_like(a, memory_format=t.channels_last), Input(randn(2, 3)))
    check_error(lambda t, a: t.full_like(a, 300), Input([1, 2], "uint8"))


def test_new_methods():
    x = Input(randn(3, 4), "float64", noncontiguous=True)
    check(lambda t, a: a.new_zeros(2, 3), x)
    check(lambda t, a: a.new_ones((2,), dtype=t.int16), x)
    check(lambda t, a: a.new_full((2, 2), 1), x)
    check(lambda t, a: a.new_full((4,), 2.5), Input([1, 2], "int32"))
    check(lambda t, a: layout(a.new_empty(5)), x)
    check(lambda t, a: layout(a.new_empty_strided((2, 2), (1, 2))), x)
    check(lambda t, a: layout(a.new_empty_strided((2, 2), (1, 2), dtype=t.int8)), x)
    check(lambda t, a: layout(a.new_zeros(2, 2)), Input(randn(3), device="meta"))
    check(lambda t, a: layout(a.new_ones(0)), Input(randn(3), "bfloat16"))


def test_new_tensor():
    x = Input(randn(2, 3), "float64")
    check(lambda t, a: a.new_tensor([1, 2, 3]), x)
    check(lambda t, a: a.new_tensor([[1.5], [2.5]], dtype=t.int32), x)
    check(lambda t, a: a.new_tensor(3.0, requires_grad=True).requires_grad, x)


# --- arange ----------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    (5,), (0, 5), (0, 10, 3), (10, 0, -3), (10, 0, -3.5), (0.0, 1.0, 0.1), (0.5, 5), (1, 2.5, 0.5),
    (-1.5, 5, 1.5), (2**53, 2**53 + 6), (0, 2**40, 2**38), (True,), (0,), (3, 3), (0, 1, 0.3),
    (1e-3,), (-5, 5, 0.7),
])
def test_arange_inferred_dtype(args):
    check(lambda t: t.arange(*args))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                   "float32", "float64"])
@pytest.mark.parametrize("args", [(5,), (0, 5, 0.5), (0.5, 5.5, 1.5), (-1.5, 5, 1.5), (1, 2, 0.1), (0, 5, 0.9)])
def test_arange_with_dtype(args, dtype):
    def run(t):
        return t.arange(*args, dtype=getattr(t, dtype))

    try:
        run(torch)
    except Exception:  # noqa: BLE001 - e.g. int64 with a step that truncates to 0: the error must match
        check_error(run)
    else:
        check(run)


@pytest.mark.parametrize("args,kwargs", [
    ((0, 5, 0), {}), ((5, 0, 1), {}), ((0, float("inf")), {}), ((0, 5, 0.5), {"dtype": "int64"}),
    ((5,), {"dtype": "bool"}), ((5,), {"dtype": "complex64"}), ((-5,), {"dtype": "uint8"}),
    ((0, float("nan")), {}),
])
def test_arange_errors(args, kwargs):
    def run(t):
        extra = {k: getattr(t, v) for k, v in kwargs.items()}
        return t.arange(*args, **extra)

    check_error(run)


def test_arange_meta_and_out():
    check(lambda t: layout(t.arange(0, 5, 0.5, device="meta")))
    check_error(lambda t: t.arange(0, 5, 0, device="meta"))
    check(lambda t: t.arange(6, out=t.empty(0, dtype=t.float64)))
    check(lambda t: t.arange(1, 4, out=t.empty(3, dtype=t.int32)))
    check(lambda t: t.arange(1, 4, 0.5, out=t.empty(6)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check(lambda t: t.arange(5, out=t.empty(2)))
    assert len(caught) == 2 and all("does not match the computed number of elements" in str(w.message) for w in caught)


# --- linspace, eye -----------------------------------------------------------------------------

@pytest.mark.parametrize("args", [(0, 1, 5), (0, 1, 8), (2, 10, 5), (-3, 3, 7), (0, 1, 1), (0, 1, 0),
                                  (1, 0, 4), (0, 1, 100), (0.1, 0.7, 33)])
@pytest.mark.parametrize("dtype", [None, "float64", "float16", "bfloat16", "int64", "uint8", "int32",
                                   "complex64"])
def test_linspace(args, dtype):
    check(lambda t: t.linspace(*args, dtype=getattr(t, dtype) if dtype else None), policy=scaled(atol=1e-5))


def test_linspace_complex_meta_out_and_errors():
    check(lambda t: t.linspace(0, 1j, 5))
    check(lambda t: t.linspace(1 + 1j, -2j, 4, dtype=t.complex128))
    check(lambda t: layout(t.linspace(0, 1, 5, device="meta")))
    check(lambda t: t.linspace(0, 1, 3, out=t.empty(0, dtype=t.float64)))
    check_error(lambda t: t.linspace(0, 1, -1))
    check_error(lambda t: t.linspace(0, 10, 5, dtype=t.bool))


@pytest.mark.parametrize("args", [(3,), (2, 3), (3, 2), (0,), (0, 2), (1, 1)])
@pytest.mark.parametrize("dtype", [None, "int64", "bool", "complex64", "bfloat16"])
def test_eye(args, dtype):
    check(lambda t: t.eye(*args, dtype=getattr(t, dtype) if dtype else None))


def test_eye_meta_out_and_errors():
    check(lambda t: layout(t.eye(3, device="meta")))
    check(lambda t: t.eye(2, out=t.empty(0, dtype=t.int64)))
    check(lambda t: t.eye(2, 3, out=t.empty(5, dtype=t.int64)))
    check_error(lambda t: t.eye(-1))
    check_error(lambda t: t.eye(2, -1))


# --- out= and meta ---------------------------------------------------------------------------

def test_out_forms_resize_and_keep_the_out_dtype():
    check(lambda t: layout(t.empty(2, 3, out=t.empty(6, dtype=t.int32))))
    check(lambda t: t.zeros(2, 3, out=t.empty(6, dtype=t.int32)))
    check(lambda t: t.ones(2, 3, out=t.empty(0, dtype=t.float64)))
    check(lambda t: t.full((2,), 1.5, out=t.empty(2, dtype=t.int32)))
    out = torchpy.empty(3)
    assert torchpy.zeros(3, out=out) is out


def test_meta_factories():
    check(lambda t: [layout(t.zeros(2, 3, device="meta")), layout(t.ones(0, device="meta")),
                     layout(t.full((2,), 1, device="meta")), layout(t.empty(4, device=t.device("meta")))])


def test_cuda_is_unavailable():
    check_error(lambda t: t.zeros(2, device="cuda"))


# --- dispatch ----------------------------------------------------------------------------------

def test_dispatch_mode_sees_factories_as_torch_does():
    assert_same_dispatch(lambda t: (t.zeros(2, 3), t.ones(2, dtype=t.float64, device="meta"),
                                    t.full((2,), 1.5), t.empty(3), t.empty_strided((2, 3), (1, 2)),
                                    t.arange(5), t.arange(0, 5), t.arange(0, 5, 1), t.arange(0.0, 1.0, 0.25),
                                    t.linspace(0, 1, 5), t.eye(3), t.eye(2, 3)))
    assert_same_dispatch(lambda t, a: (t.zeros_like(a), t.ones_like(a, device="cpu"), t.full_like(a, 2),
                                       t.empty_like(a), a.new_zeros(2), a.new_ones((2,)), a.new_full((2,), 3),
                                       a.new_empty(2, dtype=t.int32), a.new_empty_strided((2,), (1,))),
                         randn(2, 3))


def test_backend_select_routes_by_device():
    assert torchpy.ops.aten.zeros.default([2]).device.type == "cpu"
    assert torchpy.ops.aten.zeros.default([2], device=torchpy.device("meta")).device.type == "meta"
    assert torchpy.ops.aten.zeros.default.has_kernel_for_dispatch_key("BackendSelect")
    assert torch.ops.aten.zeros.default.has_kernel_for_dispatch_key("BackendSelect")
