"""Copies and conversions against torch 2.13: clone, contiguous, copy_, _to_copy / to and the
dtype shorthands, fill_, zero_, cat, stack — values, dtypes, result strides, errors, warnings
and what a TorchDispatchMode sees."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import torchpy

from tests.oracle import ALL_DTYPES, Input, convert, check, check_error
from .test_view import check_ops_seen, geometry, values

FLOATS = np.array([0.0, -1.5, 2.7, -2.7, 300.0, -129.0, 65504.0, 1e5, 0.1, 1.0])


def warns_like_torch(fn, *inputs, message: str) -> None:
    """torchpy warns `message` (a UserWarning); torch, which warns it once per process, warns
    the same text if it warns at all."""
    for lib in (torch, torchpy):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(lib, *[convert(x, lib) for x in inputs])
        user = [str(w.message).split(" (Triggered internally")[0] for w in caught
                if issubclass(w.category, UserWarning)]
        if lib is torchpy:
            assert user == [message]
        else:
            assert user in ([], [message])


# --- clone, contiguous -------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_clone_every_dtype(dtype):
    check(lambda t, x: x.clone(), values(2, 3, 4, dtype=dtype))
    check(lambda t, x: geometry(t.clone(x)), values(2, 3, 4, dtype=dtype, noncontiguous=True))


@pytest.mark.parametrize("make", [
    lambda x: x,
    lambda x: x.transpose(0, 1),
    lambda x: x.permute(2, 0, 1),
    lambda x: x[:, :, ::2],
    lambda x: x.transpose(0, 2)[::2],
    lambda x: x[:1].expand(3, 3, 4),
    lambda x: x[:, :1].expand(2, 3, 4).transpose(0, 2),
    lambda x: x[:, :1],
    lambda x: x[1],
    lambda x: x[..., None],
    lambda x: x.unsqueeze(1).transpose(1, 3),
])
def test_clone_keeps_the_layout(make):
    check(lambda t, x: geometry(make(x).clone()), values(2, 3, 4))
    check(lambda t, x: make(x).clone(), values(2, 3, 4))
    check(lambda t, x: geometry(make(x).clone()), values(2, 3, 4, device="meta"))
    check(lambda t, x: geometry(make(x).clone(memory_format=t.contiguous_format)), values(2, 3, 4))
    check(lambda t, x: geometry(make(x).to(t.float64)), values(2, 3, 4))


def test_clone_is_a_copy():
    def fn(t, x):
        c = x.clone()
        c[0] = 9
        return x, c, c.untyped_storage().data_ptr() != x.untyped_storage().data_ptr(), c._base is None

    check(fn, values(2, 3))


def test_clone_memory_formats():
    check(lambda t, x: geometry(x.clone(memory_format=t.channels_last)), values(2, 3, 4, 5))
    check(lambda t, x: x.clone(memory_format=t.channels_last), values(2, 3, 4, 5))
    check(lambda t, x: geometry(x.clone(memory_format=t.channels_last_3d)), values(1, 2, 3, 2, 2))
    check(lambda t, x: geometry(x.clone(memory_format=t.preserve_format)), values(2, 3, noncontiguous=True))
    check(lambda t, x: geometry(x.clone(memory_format=t.channels_last).clone()), values(2, 3, 4, 5))
    check_error(lambda t, x: x.clone(memory_format=t.channels_last), values(2, 3))
    check_error(lambda t, x: x.clone(memory_format=t.channels_last_3d), values(2, 3, 4, 5))


def test_contiguous():
    check(lambda t, x: x.contiguous() is x, values(2, 3))
    check(lambda t, x: x.t().contiguous(), values(2, 3, dtype="int32"))
    check(lambda t, x: geometry(x.t().contiguous()), values(2, 3))
    check(lambda t, x: geometry(x[:, ::2].contiguous()), values(2, 4, device="meta"))
    check(lambda t, x: geometry(x.contiguous(memory_format=t.channels_last)), values(2, 3, 4, 5))
    check(lambda t, x: x.contiguous(memory_format=t.channels_last).contiguous(memory_format=t.channels_last)
          .is_contiguous(), values(2, 3, 4, 5))
    check(lambda t, x: geometry(x.contiguous()), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, x: x.contiguous(memory_format=t.preserve_format) is x, values(2, 3))
    check_error(lambda t, x: x.t().contiguous(memory_format=t.preserve_format), values(2, 3))
    check_ops_seen(lambda t, x: (x.contiguous(), x.t().contiguous()), values(2, 3))
    check_ops_seen(lambda t, x: x.contiguous(memory_format=t.channels_last), values(1, 2, 3, 4))


# --- copy_ ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ALL_DTYPES)
@pytest.mark.parametrize("target", ALL_DTYPES)
def test_copy_between_dtypes(source, target):
    data = np.array([0, 1, 2, 5, 7, 100]) if source in ("uint8", "bool") else np.array([0, -1, 2, 5, -7, 100])

    def fn(t, dst, src):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return dst.copy_(src)

    check(fn, Input(np.zeros(6), target), Input(data, source))


@pytest.mark.parametrize("target", ["int8", "uint8", "int16", "int32", "int64", "bool", "float16", "bfloat16"])
def test_float_conversions_match_cpp_casts(target):
    check(lambda t, x: x.to(getattr(t, target)), Input(FLOATS, "float32"))
    check(lambda t, x: x.to(getattr(t, target)), Input(FLOATS, "float64"))
    special = np.array([np.nan, np.inf, -np.inf, 1e20, -1e20, 2 ** 31, -(2 ** 31) - 1, 4294967295.0, 2 ** 40 + 7.0])
    check(lambda t, x: x.to(getattr(t, target)), Input(special, "float32"))
    check(lambda t, x: x.to(getattr(t, target)), Input(special, "float64"))


def test_int_conversions_wrap():
    big = np.array([0, 127, 128, 255, 256, -1, -128, -129, 65535, 2 ** 31, -(2 ** 40) + 3])
    for target in ("int8", "uint8", "int16", "int32", "float16", "bfloat16", "bool"):
        check(lambda t, x: x.to(getattr(t, target)), Input(big, "int64"))


def test_copy_broadcasts_and_keeps_destination():
    def fn(t, dst, src):
        result = dst.copy_(src)
        return result is dst, dst, dst.stride()

    check(fn, Input(np.zeros((2, 3)), "float32"), Input(np.arange(3), "int64"))
    check(fn, Input(np.zeros((2, 3)), "float32", noncontiguous=True), Input(np.arange(6).reshape(2, 3), "float64",
                                                                            noncontiguous=True))
    check(fn, Input(np.zeros((2, 3)), "float32"), Input(5.0, "float64"))
    check(fn, Input(np.zeros((2, 3)), "float32"), Input(np.zeros((2, 1)), "float32"))
    check(fn, Input(np.zeros((2, 3)), "float32", device="meta"), Input(np.ones(3), "float32"))


def test_copy_into_views_writes_the_base():
    def fn(t, x, src):
        x.t()[1:].copy_(src)
        x[0].copy_(t.tensor([7, 8, 9]))
        return x

    check(fn, Input(np.zeros((2, 3)), "float32"), Input(np.ones((2, 2)), "int32"))


def test_copy_errors():
    check_error(lambda t, x, y: x.copy_(y), values(2, 3, 4), values(2, 3))
    check_error(lambda t, x, y: x.copy_(y), values(3), values(2, 3))
    check_error(lambda t, x: x.expand(2, 3).copy_(t.tensor([[1.0, 2, 3], [4, 5, 6]])), values(1, 3))
    check_error(lambda t, x: x[1:].copy_(x[:-1]), values(5))
    check_error(lambda t, x: x.copy_(x.t()), values(2, 2))
    check_error(lambda t, x, m: x.copy_(m), values(2), values(2, device="meta"))
    check(lambda t, x: x.copy_(x), values(5))
    check(lambda t, x: x.copy_(x.view(5)), values(5))


def test_copy_complex_to_real_warns():
    complex_values = Input(np.array([1 + 2j, 3j]), "complex64")
    warns_like_torch(lambda t, x, y: x.copy_(y), Input(np.zeros(2), "float32"), complex_values,
                     message="Casting complex values to real discards the imaginary part")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # _to_copy does not warn
        check(lambda t, y: y.to(t.float64), complex_values)
    check(lambda t, x, y: x.copy_(y), Input(np.zeros(2), "int32"), Input(np.array([1.7 + 2j, -3j]), "complex128"))


def test_copy_dispatch():
    check_ops_seen(lambda t, x, y: x.copy_(y), values(2, 3), values(3))
    check_ops_seen(lambda t, x, y: t.ops.aten.copy.default(x, y), values(2, 3), values(3, dtype="int64"))
    check(lambda t, x, y: t.ops.aten.copy.default(x, y), values(2, 3), values(3, dtype="int64"))


# --- _to_copy, to, type conversions --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_to_every_dtype(dtype):
    check(lambda t, x: x.to(getattr(t, dtype)), values(2, 3, dtype="float32", noncontiguous=True))
    check(lambda t, x: x.to(t.float32), values(2, 3, dtype=dtype))
    check(lambda t, x: x.to(getattr(t, dtype)), values(2, 3, device="meta"))


def test_to_forms():
    x = values(2, 3)
    check(lambda t, x: x.to(t.float32) is x, x)
    check(lambda t, x: x.to("cpu") is x, x)
    check(lambda t, x: x.to(t.device("cpu"), t.float32) is x, x)
    check(lambda t, x: x.to() is x, x)
    check(lambda t, x: x.to(x) is x, x)
    check(lambda t, x: x.to(t.float32, copy=True) is x, x)
    check(lambda t, x: x.to(t.float64), x)
    check(lambda t, x: x.to("cpu", t.int16), x)
    check(lambda t, x: x.to(device="cpu", dtype=t.int16), x)
    check(lambda t, x: x.to(dtype=t.int16), x)
    check(lambda t, x: x.to(t.float64, True, True), x)
    check(lambda t, x, y: x.to(y), x, values(2, dtype="int64"))
    check(lambda t, x: x.to("meta"), x)
    check(lambda t, x: x.to("meta", t.float16), x)
    check(lambda t, x: x.to(t.tensor([1], dtype=t.int8, device="meta")), x)
    check(lambda t, x: geometry(x.t().to("meta")), x)
    check(lambda t, x: x.to(int), x)
    check(lambda t, x: x.to(float), x)
    check(lambda t, x: x.to(bool), x)
    check(lambda t, x: geometry(x[None].to(memory_format=t.channels_last)), values(2, 3, 4))
    check(lambda t, x: x.to(memory_format=t.contiguous_format) is x, x)


def test_to_copy_errors():
    check_error(lambda t, m: m.cpu(), values(2, device="meta"))
    check_error(lambda t, m: m.to("cpu"), values(2, device="meta"))
    check_error(lambda t, x: x.to("cuda"), values(2))


def test_to_dispatch_like_torch():
    x = values(2, 3)
    check_ops_seen(lambda t, x: x.to(t.int32), x)
    check_ops_seen(lambda t, x: x.to(t.float32), x)
    check_ops_seen(lambda t, x: x.to(t.float32, copy=True), x)
    check_ops_seen(lambda t, x: x.to(t.float64, non_blocking=True), x)
    check_ops_seen(lambda t, x: x.to("cpu", t.float64), x)
    check_ops_seen(lambda t, x: x.to("meta"), x)
    check_ops_seen(lambda t, x: x.to("cpu", copy=True), x)
    check_ops_seen(lambda t, x: x[None].to(memory_format=t.channels_last), values(2, 3, 4))
    check_ops_seen(lambda t, x, y: (x.to(y), x.type_as(y), x.type_as(x)), x, values(1, dtype="int64"))
    check_ops_seen(lambda t, x: (x.float(), x.double(), x.int().long(), x.cpu()), x)
    check_ops_seen(lambda t, x: x.double(), values(2, device="meta"))


@pytest.mark.parametrize("name", ["float", "double", "half", "bfloat16", "int", "long", "short", "char", "byte",
                                  "bool", "cfloat", "cdouble"])
def test_dtype_shorthands(name):
    check(lambda t, x: getattr(x, name)(), values(2, 3, dtype="float32"))
    check(lambda t, x: getattr(x, name)(), values(2, 3, dtype="int64", noncontiguous=True))
    check(lambda t, x: geometry(getattr(x.t(), name)()), values(2, 3, dtype="int16"))
    check(lambda t, x: getattr(x, name)(), values(2, 3, device="meta"))
    check(lambda t, x: getattr(x, name)().dtype, values(1, dtype="bool"))


def test_type_and_type_as_and_cpu():
    check(lambda t, x: x.type(), values(2))
    check(lambda t, x: x.type(), values(2, dtype="int8", device="meta"))
    check(lambda t, x: x.type(t.float64), values(2, dtype="int32"))
    check(lambda t, x: x.type("torch.DoubleTensor"), values(2, dtype="int32"))
    check(lambda t, x, y: x.type_as(y), values(2), values(1, dtype="int16"))
    check(lambda t, x: x.type_as(x) is x, values(2))
    check(lambda t, x: x.cpu() is x, values(2))


# --- fill_, zero_ ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_fill_and_zero_every_dtype(dtype):
    check(lambda t, x: x.fill_(1), values(2, 3, dtype=dtype))
    check(lambda t, x: x.fill_(True), values(2, 3, dtype=dtype, noncontiguous=True))
    check(lambda t, x: x.fill_(t.tensor(1)), values(2, 3, dtype=dtype))
    check(lambda t, x: x.zero_(), values(2, 3, dtype=dtype, noncontiguous=True))
    check(lambda t, x: t.fill_(x, 0), values(2, 3, dtype=dtype, device="meta"))
    check(lambda t, x: t.zero_(x), values(2, 3, dtype=dtype, device="meta"))


@pytest.mark.parametrize("dtype,value", [
    ("int32", 2.7), ("int32", -2.7), ("uint8", -1), ("uint8", -128), ("uint8", -255), ("int8", 127), ("int8", -128), ("bool", 2),
    ("bool", 0.0), ("bool", float("nan")), ("float16", 65504.0), ("float32", float("inf")), ("float32", float("nan")),
    ("bfloat16", 1.0e38), ("float64", 1 + 0j), ("complex64", 1 - 2j), ("int64", 2 ** 62), ("int32", True),
    ("float32", 1e30), ("float16", 1e-9),
])
def test_fill_values(dtype, value):
    check(lambda t, x: x.fill_(value), values(3, dtype=dtype))
    check(lambda t, x: t.fill(x, value), values(3, dtype=dtype))


@pytest.mark.parametrize("dtype,value", [
    ("int8", 300), ("int8", -129), ("int8", 127.9), ("uint8", 256), ("uint8", -256), ("uint8", -0.5), ("int16", 70000),
    ("int32", 2 ** 40), ("int32", float("inf")), ("int64", float("nan")), ("float16", 1e6), ("bfloat16", 1e39),
    ("float32", 1e39), ("float32", 1 + 2j), ("complex64", 1e39),
])
def test_fill_overflow_errors(dtype, value):
    check_error(lambda t, x: x.fill_(value), values(3, dtype=dtype))


def test_fill_on_views_and_expanded():
    check(lambda t, x: (x.t()[1].fill_(5), x)[1], values(2, 3))
    check(lambda t, x: (x.expand(2, 3).fill_(4), x)[1], values(1, 3))
    check(lambda t, x, v: x.fill_(v), values(2, 3, dtype="int32"), Input(2.7, "float32"))
    check_error(lambda t, x, v: x.fill_(v), values(2, 3), values(2))
    check_ops_seen(lambda t, x, v: (x.fill_(2), x.fill_(v), x.zero_()), values(2, 3), values())


# --- cat, stack -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_cat_stack_every_dtype(dtype):
    a, b = values(2, 3, dtype=dtype), values(2, 1, dtype=dtype, noncontiguous=True)
    check(lambda t, x, y: t.cat([x, y], 1), a, b)
    check(lambda t, x, y: t.stack([x, x, x], -1), a, b)


def test_cat():
    x, y = values(2, 3, 4), values(2, 3, 4, dtype="int32", noncontiguous=True)
    check(lambda t, x, y: t.cat([x, y]), x, y)
    check(lambda t, x, y: t.cat((x, y), dim=-1), x, y)
    check(lambda t, x: t.cat([x]), x)
    check(lambda t, x: t.cat([x]) is x, x)
    check(lambda t, x, y: t.cat([x.bool(), y.to(t.int8)]), x, y)
    check(lambda t, x, y: geometry(t.cat([x.transpose(0, 2), y.transpose(0, 2)])), x, y)
    check(lambda t, x, y: t.cat([t.tensor([]), x, t.tensor([], dtype=t.float64)], 1), x, y)
    check(lambda t, x: t.cat([t.tensor([]), t.tensor([], dtype=t.int32)]), x)
    check(lambda t, x, y: t.concat([x, y], 2), x, y)
    check(lambda t, x, y: t.concatenate([x, y], 0), x, y)
    check(lambda t, x, y: geometry(t.cat([x, y], 1)), values(2, 3, 4, device="meta"), values(2, 1, 4, device="meta"))
    check(lambda t, x: geometry(t.cat([x, x])), Input(np.zeros((0, 3)), "float32"))
    cl = values(1, 2, 3, 4)
    check(lambda t, x: geometry(t.cat([x.contiguous(memory_format=t.channels_last)] * 2, 1)), cl)
    check(lambda t, x: geometry(t.cat([x.contiguous(memory_format=t.channels_last), x], 1)), cl)


def test_cat_out():
    def fn(t, x, y, out):
        result = t.cat([x, y], 1, out=out)
        return result is out, out

    check(fn, values(2, 3), values(2, 1), Input(np.zeros((2, 4)), "float64"))


def test_cat_errors():
    x = values(2, 3, 4)
    check_error(lambda t, x: t.cat([x, x[0]]), x)
    check_error(lambda t, x: t.cat([x, x[:, :2]], 2), x)
    check_error(lambda t, x: t.cat([x, x[:, :, :2]], 1), x)
    check_error(lambda t, x: t.cat([], 0), x)
    check_error(lambda t, x: t.cat([x, x], 3), x)
    check_error(lambda t, x: t.cat([t.tensor(1.0), t.tensor(2.0)]), x)
    check_error(lambda t, x: t.cat([x, x.to("meta")]), x)
    check_error(lambda t, x: t.cat([x.to("meta"), x]), x)


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("fn", [
    lambda t, e, d: t.cat([e(()), e(())]),
    lambda t, e, d: t.cat([e(()), e(2)]),
    lambda t, e, d: t.cat([e(2), e(())]),
    lambda t, e, d: t.cat([e(0), e(())]),
    lambda t, e, d: t.cat([e(2, 3), e(2, 3, 4)]),
    lambda t, e, d: t.cat([e(2), e(2, 3)]),
    lambda t, e, d: t.cat([e(2, 3), e(3)]),
    lambda t, e, d: t.cat([e(0), e(2, 3), e(0), e(2, 4)]),
    lambda t, e, d: t.cat([e(2, 3), e(3, 3)], 1),
    lambda t, e, d: t.cat([e(2, 3, 4), e(2, 3, 5)], -3),
    lambda t, e, d: t.cat([e(0), e(2, 3)], 2),
    lambda t, e, d: t.stack([e(2, 3), e(3, 2)]),
    lambda t, e, d: t.stack([e(2, 3), e(3, 2)], 2),
    lambda t, e, d: t.stack([e(2, 3), e(2, 4)], -1),
    lambda t, e, d: t.stack([e(()), e(2)]),
    lambda t, e, d: t.stack([e(2), e(2)], 3),
])
def test_cat_stack_errors_per_device(device, fn):
    # torch's meta rules are Python decompositions that check (and word) some things their own way
    check_error(lambda t, x: fn(t, lambda *s: t.ones(*s, device=device), device), values(1))


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_cat_of_skipped_inputs_checks_no_dim(device):
    check(lambda t, x: geometry(t.cat([x, x.to(t.int64)], 3)), values(0, device=device))
    check(lambda t, x: geometry(t.cat([x], -7)), values(0, device=device))


def test_stack():
    x = values(2, 3)
    check(lambda t, x: t.stack([x, x + 1]), x)
    check(lambda t, x: t.stack([x, x], 2), x)
    check(lambda t, x: t.stack((x, x.int()), -3), x)
    check(lambda t, x: geometry(t.stack([x.t(), x.t()])), x)
    check(lambda t, x: geometry(t.stack([x, x], 1)), values(2, 3, device="meta"))
    check(lambda t, x: t.stack([x[0, 0], x[0, 1]]), x)
    check(lambda t, x: t.stack([x], out=t.zeros(1, 2, 3) if hasattr(t, "zeros") else t.tensor(np.zeros((1, 2, 3)),
                                                                                              dtype=t.float32)), x)
    check_error(lambda t, x: t.stack([]), x)
    check_error(lambda t, x: t.stack([x, x[0]]), x)
    check_error(lambda t, x: t.stack([x, x], 3), x)
    check_error(lambda t, x: t.stack([x, x], -4), x)
    check_ops_seen(lambda t, x: (t.stack([x, x], 1), t.cat([x, x.t().t()])), x)


def test_is_contiguous_memory_formats():
    def fn(t, x):
        cl = x.contiguous(memory_format=t.channels_last)
        return [(v.is_contiguous(), v.is_contiguous(memory_format=t.channels_last),
                 v.is_contiguous(memory_format=t.contiguous_format), v.is_contiguous(memory_format=t.preserve_format))
                for v in (x, cl, x[:, :1], x.transpose(1, 3), x[0])]

    check(fn, values(2, 3, 4, 5))
    check(fn, values(2, 1, 1, 1))
    check(lambda t, x: x.is_contiguous(memory_format=t.channels_last), Input(np.zeros((0, 3, 2, 2)), "float32"))
    check(lambda t, x: x.contiguous(memory_format=t.channels_last_3d).is_contiguous(
        memory_format=t.channels_last_3d), values(1, 2, 3, 4, 5))
    check_error(lambda t, x: x.is_contiguous(t.contiguous_format), values(2, 3), match_message=False)


@pytest.mark.parametrize("seed", range(3))
def test_random_copies_of_random_views(seed):
    """to / clone / contiguous / cat / copy_ of random views, random dtypes and memory formats."""
    import random

    from .test_view import _random_view_op

    rng = random.Random(seed)
    dtypes = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool"]
    for _ in range(60):
        shape = tuple(rng.choice([0, 1, 2, 3, 4]) for _ in range(rng.randint(0, 4)))
        data = np.asarray((np.arange(int(np.prod(shape))) * 37 % 251 - 100).reshape(shape) * 1.7)
        op = _random_view_op(rng, shape)
        source, target = rng.choice(dtypes), rng.choice(dtypes)
        memory_format = rng.choice([None, "contiguous_format", "preserve_format", "channels_last"])
        copy = rng.choice(["to", "clone", "contiguous", "cat", "copy_"])
        check(lambda t: _copy_outcome(t, data, op, source, target, memory_format, copy))


def _copy_outcome(lib, data, op, source, target, memory_format, copy):
    kwargs = {} if memory_format is None else {"memory_format": getattr(lib, memory_format)}
    try:
        view = op(lib, lib.from_numpy(data.copy()).to(getattr(lib, source)))
        if copy == "to":
            result = view.to(getattr(lib, target), **kwargs)
        elif copy == "clone":
            result = view.clone(**kwargs)
        elif copy == "contiguous":
            result = view.contiguous(**kwargs)
        elif copy == "cat":
            result = lib.cat([view, view.to(getattr(lib, target))]) if view.dim() else view
        else:
            result = lib.zeros(view.shape, dtype=getattr(lib, target)).copy_(view)
    except (RuntimeError, IndexError) as error:
        return f"{type(error).__name__}: {str(error).splitlines()[0]}"
    return [result, geometry(result)]
