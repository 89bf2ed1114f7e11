"""View and shape ops against torch 2.13: values, dtypes, sizes, strides, storage offsets,
storage sharing, writes through views, meta tensors, errors and what a TorchDispatchMode sees."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
import torch

import torchpy
import torchpy.overrides  # noqa: F401
import torchpy.utils._python_dispatch  # noqa: F401  (torchpy.utils for the recorder)

from tests.oracle import ALL_DTYPES, Input, convert, check, check_error

# --- helpers -------------------------------------------------------------------------------------


def values(*shape: int, dtype: str = "float32", noncontiguous: bool = False, device: str = "cpu") -> Input:
    """Distinct small values every dtype holds (bool: all True but the first)."""
    data = (np.arange(int(np.prod(shape))) % 100).reshape(shape)
    return Input(data, dtype, noncontiguous=noncontiguous, device=device)


def geometry(t: Any) -> Any:
    """What a view is made of: sizes, strides, storage offset (recursively for lists)."""
    if isinstance(t, (list, tuple)):
        return [geometry(v) for v in t]
    return (tuple(t.shape), t.stride(), t.storage_offset(), str(t.dtype))


def shares_storage(result: Any, base: Any) -> bool:
    pieces = result if isinstance(result, (list, tuple)) else [result]
    ptr = base.untyped_storage().data_ptr()
    return all(p.untyped_storage().data_ptr() == ptr for p in pieces)


def check_view(fn: Callable, *shape: int, dtype: str = "float32", meta: bool = True) -> None:
    """fn(lib, x) is a view of x: same values, geometry and storage as torch's, on contiguous and
    non-contiguous inputs (and meta ones: geometry only); a write through it reaches x."""
    for noncontiguous in (False, True):
        x = values(*shape, dtype=dtype, noncontiguous=noncontiguous)
        check(fn, x)
        check(lambda t, a: geometry(fn(t, a)), x)
        check(lambda t, a: shares_storage(fn(t, a), a), x)
        check(lambda t, a: _write_through(fn(t, a), a), x)
    if meta:
        m = values(*shape, dtype=dtype, device="meta")
        check(fn, m)
        check(lambda t, a: geometry(fn(t, a)), m)
        check(lambda t, a: (fn(t, a) if not isinstance(fn(t, a), (list, tuple)) else fn(t, a)[0]).untyped_storage().nbytes(), m)


def _write_through(view: Any, base: Any) -> Any:
    piece = view[0] if isinstance(view, (list, tuple)) else view
    if piece.numel():
        piece.fill_(7)
    return base


def ops_seen(lib: Any, fn: Callable, *inputs: Any) -> list:
    """(op name, args, kwargs) as a TorchDispatchMode sees them while fn runs; tensors as shapes."""
    args = [convert(x, lib) for x in inputs]
    log = []

    def describe(v: Any) -> Any:
        if isinstance(v, (torch.Tensor, torchpy.Tensor)):
            return ("T", tuple(v.shape))
        if isinstance(v, (list, tuple)):
            return [describe(i) for i in v]
        return str(v) if type(v).__name__ in ("dtype", "device", "memory_format", "layout") else v

    class Recorder(lib.utils._python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            log.append((str(func), describe(list(args)), {k: describe(v) for k, v in (kwargs or {}).items()}))
            return func(*args, **(kwargs or {}))

    with Recorder():
        fn(lib, *args)
    return log


def check_ops_seen(fn: Callable, *inputs: Any) -> None:
    expected = ops_seen(torch, fn, *inputs)
    actual = ops_seen(torchpy, fn, *inputs)
    assert actual == expected, f"\ntorchpy: {actual}\ntorch:   {expected}"


# --- view, reshape, view.dtype ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_view_every_dtype(dtype):
    check_view(lambda t, x: x.view(6, 4), 2, 3, 4, dtype=dtype)
    check_view(lambda t, x: x.view(-1), 2, 3, 4, dtype=dtype)


@pytest.mark.parametrize("shape", [(4, 6), (2, 12), (24,), (1, 24, 1), (2, 3, 2, 2), (-1, 2), (3, -1, 1)])
def test_view_shapes(shape):
    check(lambda t, x: geometry(x.view(*shape)), values(2, 3, 4))
    check(lambda t, x: geometry(x.view(shape)), values(2, 3, 4, device="meta"))


def test_view_of_noncontiguous_when_possible():
    # splitting or merging dims that stay contiguous with each other is a view
    check(lambda t, x: geometry(x.transpose(0, 1).view(3, 2, 2, 2)), values(2, 3, 4))
    check(lambda t, x: geometry(x[:, 1:2].view(2, 4)), values(2, 3, 4))
    check(lambda t, x: geometry(x[:, 1:2].view(2, 1, 1, 4)), values(2, 3, 4))
    check(lambda t, x: geometry(x[:, :, ::2].view(6, 2)), values(2, 3, 4))
    check(lambda t, x: x.transpose(0, 1).view(3, 2, 2, 2), values(2, 3, 4))
    check(lambda t, x: geometry(x.t().view(3, 2)), values(2, 3, device="meta"))


def test_view_zero_dim_and_empty():
    check(lambda t, x: geometry(x.view(1, 1)), values())
    check(lambda t, x: geometry(x.view(-1)), values())
    check(lambda t, x: geometry(x.view(())), values(1, 1))
    check(lambda t, x: geometry(x.view(3, 0)), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, x: geometry(x.t().view(3, 0)), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, x: geometry(x.t().view(3, 1, 0)), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, x: geometry(x.view(0, 3)), Input(np.zeros((3, 0)), "float32", device="meta"))


def test_view_errors():
    check_error(lambda t, x: x.transpose(0, 1).view(-1), values(2, 3, 4))
    check_error(lambda t, x: x.view(5), values(2, 3, 4))
    check_error(lambda t, x: x.view(-1, -1), values(2, 3, 4))
    check_error(lambda t, x: x.view(-2, 12), values(2, 3, 4))
    check_error(lambda t, x: x.view(0, -1), values(2, 3, 4))
    check_error(lambda t, x: x.view(2, -1, 5), values(2, 3, 4))
    check_error(lambda t, x: x.view(-1, 0), Input(np.zeros((0, 3)), "float32"))
    check_error(lambda t, x: x.t().view(6), values(2, 3, device="meta"))


def test_view_aliasing_and_version():
    def fn(t, x):
        v = x.view(6, 4)
        v[0, 0] = 100.0
        x[1, 2, 3] = -5.0
        return x, v, v._version, x._version, v._base is x, v._is_view()

    check(fn, values(2, 3, 4))


@pytest.mark.parametrize("target", ["int32", "int16", "int8", "float64", "complex64", "uint8", "bool", "bfloat16"])
def test_view_dtype(target):
    def fn(t, x):
        return x.view(getattr(t, target))

    source = values(2, 3, 4, dtype="float32")
    if target in ("bool",):
        source = Input(np.ones((2, 4)), "uint8")
    check(lambda t, x: geometry(fn(t, x)), source)
    check(lambda t, x: shares_storage(fn(t, x), x), source)
    if target != "float64":
        check(fn, source)
    check(lambda t, x: geometry(fn(t, x)), values(2, 3, 4, device="meta") if target != "bool" else Input(np.ones((2, 4)), "uint8", device="meta"))


def test_view_dtype_geometry_and_errors():
    check(lambda t, x: geometry(x[:, :, 2:].view(t.float64)), values(2, 3, 4))
    check(lambda t, x: geometry(x.transpose(0, 1).view(t.int16)), values(2, 3, 4))
    check_error(lambda t, x: x.view(t.int8), values())
    check_error(lambda t, x: x[:, :, 1:].view(t.float64), values(2, 3, 4))
    check_error(lambda t, x: x[:, :, 1:3].view(t.float64), values(2, 3, 4))
    check_error(lambda t, x: x.transpose(1, 2).view(t.float64), values(2, 3, 4))
    check_error(lambda t, x: x.transpose(1, 2).view(t.int16), values(2, 3, 4))


def test_reshape_is_a_view_when_it_can_be():
    check_view(lambda t, x: x.reshape(6, 4), 2, 3, 4)
    check_view(lambda t, x: x.reshape(-1, 2), 2, 3, 4, dtype="int64")
    check(lambda t, x: geometry(x.transpose(0, 1).reshape(-1)), values(2, 3, 4))
    check(lambda t, x: shares_storage(x.transpose(0, 1).reshape(-1), x), values(2, 3, 4))
    check(lambda t, x: x.transpose(0, 1).reshape(4, 6), values(2, 3, 4, dtype="int32"))
    check(lambda t, x: t.reshape(x, (3, 8)), values(2, 3, 4, dtype="float16", noncontiguous=True))
    check(lambda t, x: geometry(x.transpose(0, 1).reshape(-1)), values(2, 3, 4, device="meta"))
    check(lambda t, x: x.reshape(()), values(1))
    check(lambda t, x, y: geometry(x.reshape_as(y)), values(2, 3, 4), values(4, 6))
    check(lambda t, x, y: geometry(x.view_as(y)), values(2, 3, 4), values(4, 6))
    check_error(lambda t, x: x.reshape(-1, -1), values(2, 3, 4))
    check_error(lambda t, x: x.reshape(5, 5), values(2, 3, 4))


def test_reshape_and_flatten_dispatch_like_torch():
    check_ops_seen(lambda t, x: x.reshape(6, 4), values(2, 3, 4))
    check_ops_seen(lambda t, x: x.reshape(-1, 4), values(2, 3, 4))
    check_ops_seen(lambda t, x: x.transpose(0, 1).reshape(-1, 4), values(2, 3, 4))
    check_ops_seen(lambda t, x: x.flatten(), values(2, 3, 4))
    check_ops_seen(lambda t, x: x.flatten(1), values(2, 3, 4, noncontiguous=True))
    check_ops_seen(lambda t, x: x.flatten(1, 1), values(2, 3, 4))
    check_ops_seen(lambda t, x: x.unflatten(2, (2, -1)), values(2, 3, 4))
    check_ops_seen(lambda t, x: x.view_as(x), values(2, 3, 4))
    check_ops_seen(lambda t, x, y: x.expand_as(y), values(1, 4), values(3, 4))


# --- transpose, permute, t, movedim, T, mT -----------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_transpose_permute_every_dtype(dtype):
    check_view(lambda t, x: x.transpose(0, 2), 2, 3, 4, dtype=dtype)
    check_view(lambda t, x: x.permute(2, 0, 1), 2, 3, 4, dtype=dtype)


def test_transpose_permute_t():
    check_view(lambda t, x: x.transpose(-1, -3), 2, 3, 4)
    check_view(lambda t, x: t.transpose(x, 1, 1), 2, 3, 4)
    check_view(lambda t, x: x.permute([-1, 0, 1]), 2, 3, 4)
    check_view(lambda t, x: t.permute(x, (1, 0, 2)), 2, 3, 4)
    check_view(lambda t, x: x.t(), 2, 3)
    check_view(lambda t, x: t.t(x), 5)
    check(lambda t, x: geometry(x.t()), values())
    check(lambda t, x: geometry(x.transpose(0, -1)), values())
    check(lambda t, x: geometry(x.permute(())), values())
    check(lambda t, x: geometry(x.transpose(0, 1)), Input(np.zeros((0, 3)), "int64"))
    check(lambda t, x: x.t().t(), values(2, 3, noncontiguous=True))


def test_transpose_permute_t_errors():
    check_error(lambda t, x: x.transpose(0, 3), values(2, 3, 4))
    check_error(lambda t, x: x.transpose(-4, 0), values(2, 3, 4))
    check_error(lambda t, x: x.permute(0, 1), values(2, 3, 4))
    check_error(lambda t, x: x.permute(0, 0, 1), values(2, 3, 4))
    check_error(lambda t, x: x.permute(0, 1, 5), values(2, 3, 4))
    check_error(lambda t, x: x.t(), values(2, 3, 4))
    check_error(lambda t, x: x.t(), values(2, 3, 4, device="meta"))


def test_movedim_swapaxes():
    check_view(lambda t, x: x.movedim(0, 2), 2, 3, 4)
    check_view(lambda t, x: x.movedim(-1, 0), 2, 3, 4)
    check_view(lambda t, x: t.movedim(x, (0, 1), (2, 0)), 2, 3, 4)
    check_view(lambda t, x: x.moveaxis(1, 0), 2, 3, 4)
    check_view(lambda t, x: x.swapaxes(0, 2), 2, 3, 4)
    check_view(lambda t, x: t.swapdims(x, 1, 2), 2, 3, 4)
    check(lambda t, x: x.movedim(0, 0) is x, values(2, 3))
    check_ops_seen(lambda t, x: x.movedim(1, 1), values(2, 3))
    check_error(lambda t, x: x.movedim(0, 5), values(2, 3, 4))
    check_error(lambda t, x: x.movedim((0, 0), (1, 2)), values(2, 3, 4))
    check_error(lambda t, x: x.movedim((0, 1), (2, 2)), values(2, 3, 4))
    check_error(lambda t, x: x.movedim((0, 1), (0,)), values(2, 3, 4))
    check_ops_seen(lambda t, x: x.movedim((0, 1), (2, 0)), values(2, 3, 4))
    check_ops_seen(lambda t, x: x.swapaxes(0, 1), values(2, 3, 4))


def test_T_mT_H_mH():
    check_view(lambda t, x: x.T, 2, 3)
    check_view(lambda t, x: x.mT, 2, 3, 4)
    check_view(lambda t, x: x.mH, 2, 3, 4)
    check_view(lambda t, x: x.H, 3, 4)
    check_view(lambda t, x: x.adjoint(), 2, 3, 4)
    check(lambda t, x: geometry(x.T), values(5))
    check(lambda t, x: geometry(x.T), values())
    check_error(lambda t, x: x.mT, values(4))
    check_error(lambda t, x: x.mH, values(4))
    check_error(lambda t, x: x.H, values(2, 3, 4))
    check_ops_seen(lambda t, x: x.T, values(2, 3))
    check_ops_seen(lambda t, x: x.mT, values(2, 3, 4))


def test_T_on_3d_warns_and_reverses():
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        result = torchpy.ones(2, 3, 4).T if hasattr(torchpy, "ones") else torchpy.tensor(np.ones((2, 3, 4))).T
    assert tuple(result.shape) == (4, 3, 2) and result.stride() == (1, 4, 12)


# --- expand ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_expand_every_dtype(dtype):
    check_view(lambda t, x: x.expand(3, 2, 4), 2, 1, dtype=dtype)


def test_expand():
    check_view(lambda t, x: x.expand(2, 3, 4), 2, 3, 4)
    check_view(lambda t, x: x.expand(5, -1, 3, -1), 2, 1, 4)
    check_view(lambda t, x: x.expand(1, 1, 2, 3, 4), 2, 3, 4)
    check_view(lambda t, x: x.expand(3, 1, 2, 3, 4), 2, 3, 4)
    check_view(lambda t, x: x[:, :1].expand(1, 2, 3, 4), 2, 3, 4)
    check_view(lambda t, x: x[:, :1].expand(1, 2, 1, 4), 2, 3, 4)
    check_view(lambda t, x, : x.expand(0, 4), 1, 4)
    check(lambda t, x: geometry(x.expand(3)), values())
    check(lambda t, x: geometry(x.expand(1)), values())
    check(lambda t, x: geometry(x.expand(2, 1)), values())
    check(lambda t, x: geometry(x.expand(())), values())
    check(lambda t, x, y: geometry(x.expand_as(y)), values(3, 1), values(2, 3, 5))


def test_expand_errors():
    check_error(lambda t, x: x.expand(2, 5, 4), values(2, 3, 4))
    check_error(lambda t, x: x.expand(-1, 2, 3, 4), values(2, 3, 4))
    check_error(lambda t, x: x.expand(2, -2, 4), values(2, 3, 4))
    check_error(lambda t, x: x.expand(3, 4), values(2, 3, 4))
    check_error(lambda t, x: x.expand(3, 4), values(2, 3, 4, dtype="int64", device="meta"))


def test_writes_through_expanded_view_reach_the_one_element():
    def fn(t, x):
        v = x.expand(3, 4)
        v[1, 2] = 9.0
        return x, v

    check(fn, values(1, 4))


# --- squeeze, unsqueeze ---------------------------------------------------------------------------------


def test_squeeze():
    check_view(lambda t, x: x.squeeze(), 1, 3, 1, 2)
    check_view(lambda t, x: x.squeeze(0), 1, 3, 1, 2)
    check_view(lambda t, x: x.squeeze(1), 1, 3, 1, 2)
    check_view(lambda t, x: x.squeeze(-2), 1, 3, 1, 2)
    check_view(lambda t, x: t.squeeze(x, (0, 2)), 1, 3, 1, 2)
    check_view(lambda t, x: x.squeeze((1, -1)), 1, 3, 1, 2)
    check_view(lambda t, x: x.squeeze(()), 1, 3, 1, 2)
    check(lambda t, x: geometry(x.squeeze()), values())
    check(lambda t, x: geometry(x.squeeze(0)), values())
    check(lambda t, x: geometry(x.squeeze(-1)), values())
    check(lambda t, x: geometry(x[:, :1].squeeze()), values(2, 3, 4))
    check(lambda t, x: geometry(x.squeeze()), Input(np.zeros((1, 0, 1)), "float32"))
    check_error(lambda t, x: x.squeeze(5), values(2, 3, 4))
    check_error(lambda t, x: x.squeeze(1), values())
    check_error(lambda t, x: x.squeeze((0, 0)), values(1, 3))
    check_error(lambda t, x: x.squeeze((0, 5)), values(1, 3))
    check_ops_seen(lambda t, x: (x.squeeze(), x.squeeze(0), x.squeeze((0, 1))), values(1, 3, 1))


def test_unsqueeze():
    for dim in (0, 1, 2, 3, -1, -4):
        check_view(lambda t, x: x.unsqueeze(dim), 2, 3, 4)
    check(lambda t, x: geometry(x.unsqueeze(1)), values(2, 3, 4, noncontiguous=True))
    check(lambda t, x: geometry(x[:, :1].unsqueeze(1)), values(2, 3, 4))
    check(lambda t, x: geometry(x[:, :1].unsqueeze(2)), values(2, 3, 4))
    check(lambda t, x: geometry(x.unsqueeze(1)), Input(np.zeros((2, 0, 3)), "float32"))
    check(lambda t, x: geometry(x.unsqueeze(2)), Input(np.zeros((2, 0, 3)), "float32"))
    check(lambda t, x: geometry(x.unsqueeze(0)), values())
    check(lambda t, x: geometry(x.unsqueeze(-1)), values())
    check_error(lambda t, x: x.unsqueeze(4), values(2, 3, 4))
    check_error(lambda t, x: x.unsqueeze(-5), values(2, 3, 4))
    check_error(lambda t, x: x.unsqueeze(1), values())


def test_inplace_views():
    def fn(t, x):
        y = x.clone()
        y.t_()
        a = (tuple(y.shape), y.stride(), y._version)
        y.unsqueeze_(1)
        b = (tuple(y.shape), y.stride())
        y.squeeze_()
        c = (tuple(y.shape), y.stride())
        y.transpose_(0, 1)
        y.unsqueeze_(0).squeeze_(0)
        y.unsqueeze_(-1).squeeze_((2,))
        return y, a, b, c, y.stride(), y._version

    check(fn, values(2, 3))
    check(fn, values(2, 3, device="meta"))
    check_error(lambda t, x: x.t_(), values(2, 3, 4))


# --- select, slice, narrow -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_select_every_dtype(dtype):
    check_view(lambda t, x: x.select(1, 2), 2, 3, 4, dtype=dtype)


def test_select():
    for dim, index in [(0, 0), (0, -1), (1, 1), (-1, 3), (2, -4)]:
        check_view(lambda t, x: t.select(x, dim, index), 2, 3, 4)
    check(lambda t, x: geometry(x.select(0, 0)), values(3))
    check_error(lambda t, x: x.select(0, 5), values(2, 3, 4))
    check_error(lambda t, x: x.select(0, -3), values(2, 3, 4))
    check_error(lambda t, x: x.select(3, 0), values(2, 3, 4))
    check_error(lambda t, x: x.select(0, 0), values())
    check_error(lambda t, x: x.select(1, 0), Input(np.zeros((2, 0)), "float32"))


def test_slice_op():
    def sl(*args):
        return lambda t, x: t.ops.aten.slice.Tensor(x, *args)

    for args in [(0, 1), (1, 0, 2), (2, 1, 100, 2), (0, -1), (0, -100, -50), (0, 50, 100), (0, 1, 0),
                 (-1, None, None, 3), (1, 2, -1), (2,)]:
        check_view(sl(*args), 2, 3, 4)
    check(lambda t, x: geometry(t.ops.aten.slice.Tensor(x, 1, 1, 3, 2)), values(2, 3, 4, noncontiguous=True))
    check_error(sl(0, 0, 5, 0), values(2, 3, 4))
    check_error(sl(0, 0, 5, -1), values(2, 3, 4))
    check_error(sl(3, 0, 5), values(2, 3, 4))
    check_error(sl(0, 0, 5), values())


def test_narrow():
    check_view(lambda t, x: x.narrow(0, 1, 1), 2, 3, 4)
    check_view(lambda t, x: x.narrow(-1, 1, 2), 2, 3, 4)
    check_view(lambda t, x: t.narrow(x, 1, -2, 2), 2, 3, 4)
    check_view(lambda t, x: x.narrow(0, 2, 0), 2, 3, 4)
    check(lambda t, x: geometry(x.narrow(0, t.tensor(1), 1)), values(2, 3, 4))
    check_error(lambda t, x: x.narrow(0, 1, 5), values(2, 3, 4))
    check_error(lambda t, x: x.narrow(0, 3, 0), values(2, 3, 4))
    check_error(lambda t, x: x.narrow(0, -3, 1), values(2, 3, 4))
    check_error(lambda t, x: x.narrow(0, 0, -1), values(2, 3, 4))
    check_error(lambda t, x: x.narrow(5, 0, 1), values(2, 3, 4))
    check_error(lambda t, x: x.narrow(0, 0, 1), values())
    check_error(lambda t, x: x.narrow(0, t.tensor([1]), 1), values(2, 3, 4))
    check_error(lambda t, x: x.narrow(0, t.tensor(1.0), 1), values(2, 3, 4))
    check_ops_seen(lambda t, x: x.narrow(2, 1, 2), values(2, 3, 4))


# --- diagonal, as_strided ----------------------------------------------------------------------------------


def test_diagonal():
    for args in [(), (1,), (-1,), (0, 0, 2), (1, 2, 0), (-2, -1, -2), (5,), (-5,), (2, 1, 2)]:
        check_view(lambda t, x: x.diagonal(*args), 2, 3, 4)
    check_view(lambda t, x: t.diagonal(x, offset=1, dim1=1, dim2=0), 3, 3)
    check(lambda t, x: geometry(x.diagonal()), Input(np.zeros((0, 3)), "float32"))
    check_error(lambda t, x: x.diagonal(0, 1, 1), values(2, 3, 4))
    check_error(lambda t, x: x.diagonal(0, 1, 5), values(2, 3, 4))
    check_error(lambda t, x: x.diagonal(), values(3))


def test_as_strided():
    check_view(lambda t, x: x.as_strided((2, 2), (1, 2)), 2, 3, 4)
    check_view(lambda t, x: x.as_strided((3, 4), (0, 1), 5), 2, 3, 4)
    check_view(lambda t, x: t.as_strided(x, (2, 3), (4, 1), 1), 2, 3, 4)
    check_view(lambda t, x: x[1].as_strided((2,), (3,)), 2, 3, 4)
    check(lambda t, x: geometry(x.as_strided((), ())), values(2, 3))
    check(lambda t, x: geometry(x.as_strided((0, 5), (1, 1), 6)), values(2, 3))
    check_error(lambda t, x: x.as_strided((100,), (1,)), values(2, 3, 4))
    check(lambda t, x: geometry(x.as_strided((100,), (1,))), values(2, 3, 4, device="meta"))
    check_error(lambda t, x: x.as_strided((2,), (-1,)), values(2, 3, 4))
    check_error(lambda t, x: x.as_strided((-2,), (1,)), values(2, 3, 4))
    check_error(lambda t, x: x.as_strided((2,), (1,), -1), values(2, 3, 4))
    check_error(lambda t, x: x.as_strided((2, 2), (1,)), values(2, 3, 4))


# --- unbind, split, chunk, tensor_split ------------------------------------------------------------------------


def test_unbind():
    check_view(lambda t, x: x.unbind(), 2, 3, 4)
    check_view(lambda t, x: t.unbind(x, -1), 2, 3, 4)
    check(lambda t, x: list(x), values(3, 2, noncontiguous=True))
    check(lambda t, x: [geometry(v) for v in x], values(3, 2, noncontiguous=True))
    check(lambda t, x: geometry(x.unbind(1)), Input(np.zeros((2, 0)), "float32"))
    check_error(lambda t, x: x.unbind(), values())
    check_error(lambda t, x: x.unbind(5), values(2, 3))
    check_ops_seen(lambda t, x: (x.unbind(1), list(x)), values(2, 3))


def test_split_and_chunk():
    check_view(lambda t, x: x.split(2, 2), 2, 3, 4)
    check_view(lambda t, x: x.split(3, -1), 2, 3, 4)
    check_view(lambda t, x: t.split(x, 5), 2, 3, 4)
    check_view(lambda t, x: x.split([1, 3], 2), 2, 3, 4)
    check_view(lambda t, x: t.split_with_sizes(x, [0, 2, 1], 1), 2, 3, 4)
    check_view(lambda t, x: x.chunk(2, 2), 2, 3, 4)
    check_view(lambda t, x: t.chunk(x, 3, 1), 2, 3, 4)
    check_view(lambda t, x: x.chunk(5, 1), 2, 3, 4)
    check_view(lambda t, x: x.chunk(4, 0), 7)
    check(lambda t, x: geometry(x.chunk(2)), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, x: geometry(x.split(2)), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, x: geometry(x.split(0)), Input(np.zeros((0, 3)), "float32"))
    check_error(lambda t, x: x.split(0), values(2, 3))
    check_error(lambda t, x: x.split(-1), values(2, 3))
    check_error(lambda t, x: x.split([1, 1], 1), values(2, 3))
    check_error(lambda t, x: x.split([1, -1, 3], 1), values(2, 3))
    check_error(lambda t, x: x.chunk(0), values(2, 3))
    check_error(lambda t, x: x.chunk(-1), values(2, 3))
    check_error(lambda t, x: x.split(1, 3), values(2, 3))
    check_ops_seen(lambda t, x: (x.chunk(2, 2), x.chunk(3, 1), x.split([1, 3], 2), x.split(2)), values(2, 3, 4))
    check_ops_seen(lambda t, x: x.chunk(2), Input(np.zeros((0, 3)), "float32"))


def test_tensor_split():
    for args in [(2,), (3, 1), (5, -1), ([1, 3],), ([0, 2, 10], 2), ([],)]:
        check_view(lambda t, x: x.tensor_split(*args), 2, 3, 4)
    check(lambda t, x: geometry(x.tensor_split(t.tensor(3), 2)), values(2, 3, 4))
    check(lambda t, x: geometry(x.tensor_split(t.tensor([1, 2]), 1)), values(2, 3, 4))
    check_error(lambda t, x: x.tensor_split(0), values(2, 3))
    check_error(lambda t, x: x.tensor_split(-1), values(2, 3))
    check_ops_seen(lambda t, x: x.tensor_split(2, 1), values(2, 3, 4))


# --- flatten, unflatten --------------------------------------------------------------------------------------


def test_flatten():
    check_view(lambda t, x: x.flatten(), 2, 3, 4)
    check_view(lambda t, x: t.flatten(x, 1), 2, 3, 4)
    check_view(lambda t, x: x.flatten(0, -2), 2, 3, 4)
    check(lambda t, x: x.flatten(1, 1) is x, values(2, 3, 4))
    check(lambda t, x: geometry(x.flatten()), values())
    check(lambda t, x: geometry(x.flatten(0, 0)), values())
    check(lambda t, x: x.transpose(0, 2).flatten(), values(2, 3, 4, dtype="int16"))
    check(lambda t, x: geometry(x.transpose(0, 2).flatten()), values(2, 3, 4, device="meta"))
    check_error(lambda t, x: x.flatten(2, 1), values(2, 3, 4))
    check_error(lambda t, x: x.flatten(5), values(2, 3, 4))


def test_unflatten():
    check_view(lambda t, x: x.unflatten(2, (2, 2)), 2, 3, 4)
    check_view(lambda t, x: t.unflatten(x, -1, (-1, 2)), 2, 3, 4)
    check_view(lambda t, x: x.unflatten(0, (1, 2, 1)), 2, 3, 4)
    check_error(lambda t, x: x.unflatten(1, (2, 2)), values(2, 3, 4))
    check_error(lambda t, x: x.unflatten(1, ()), values(2, 3, 4))
    check_error(lambda t, x: x.unflatten(1, (-1, -1)), values(2, 3, 4))
    check_error(lambda t, x: x.unflatten(1, (0, -1)), values(2, 3, 4))
    check_error(lambda t, x: x.unflatten(5, (3,)), values(2, 3, 4))


# --- alias, detach ---------------------------------------------------------------------------------------------


def test_alias_and_detach():
    check_view(lambda t, x: t.ops.aten.alias.default(x), 2, 3)
    check_view(lambda t, x: x.detach(), 2, 3)
    check_view(lambda t, x: t.detach(x), 4)

    def detached(t, x):
        d = x.detach()
        d[0] = 5.0
        return x, d._is_view(), d._base is None, d._version == x._version

    check(detached, Input(np.ones((2, 3)), "float32"))
    check(lambda t, x: (t.ops.aten.alias.default(x)._is_view(), t.ops.aten.alias.default(x)._base is x), values(2))


def test_view_of_a_view_has_the_first_base():
    def fn(t, x):
        v = x.t()[1:].unsqueeze(0)
        return v._base is x, v.t()._base is x if v.dim() == 2 else v.squeeze(0)._base is x

    check(fn, values(2, 3))
    check(fn, values(2, 3, device="meta"))


def test_torch_function_mode_sees_the_methods():
    def names(lib, fn, *inputs):
        args = [convert(x, lib) for x in inputs]
        seen = []

        class Recorder(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return func(*args, **(kwargs or {}))

        with Recorder():
            fn(lib, *args)
        return seen

    def fn(t, x):
        x.view(3, 2), x.t(), x[0], x.to(t.float64), x.float(), x.T, x.mT, x.contiguous(), x.transpose(0, 1)
        x.cpu(), x.type(), x.squeeze(), x.reshape(-1), x.unsqueeze(0), x.permute(1, 0), x.expand(2, 2, 3)
        x.flatten(), x.select(0, 1), x.narrow(0, 0, 1), x.detach(), x.clone(), x.double(), x.chunk(2)
        x[0] = 1.0

    inputs = [values(2, 3)]
    assert names(torchpy, fn, *inputs) == names(torch, fn, *inputs)


def test_tensor_list_results_are_tuples():
    check(lambda t, x: [type(r).__name__ for r in (x.split(1), x.split([1, 1]), x.chunk(2), x.unbind(), t.unbind(x, 1),
                                                    x.tensor_split(2), t.split(x, 1), x.unsafe_split(1))], values(2, 3))


# --- unfold, unsafe splits, ravel, atleast_*d, hstack & co. ---------------------------------------------


def test_unfold():
    for args in [(2, 2, 1), (1, 2, 2), (-1, 4, 1), (2, 0, 1), (0, 1, 3), (2, 3, 2)]:
        check_view(lambda t, x: x.unfold(*args), 2, 3, 4)
    check(lambda t, x: geometry(x.unfold(0, 1, 1)), values())
    check(lambda t, x: geometry(x.unfold(0, 0, 1)), values())
    check_error(lambda t, x: x.unfold(2, 5, 1), values(2, 3, 4))
    check_error(lambda t, x: x.unfold(2, 2, 0), values(2, 3, 4))
    check_error(lambda t, x: x.unfold(2, -1, 1), values(2, 3, 4))
    check_error(lambda t, x: x.unfold(3, 2, 1), values(2, 3, 4))
    check_error(lambda t, x: x.unfold(0, 2, 1), values())
    check_ops_seen(lambda t, x: x.unfold(2, 2, 1), values(2, 3, 4))


def test_unsafe_split_and_chunk():
    check(lambda t, x: geometry(x.unsafe_split(2, 1)), values(2, 3, 4))
    check(lambda t, x: geometry(t.unsafe_split_with_sizes(x, [1, 3], 2)), values(2, 3, 4))
    check(lambda t, x: geometry(x.unsafe_chunk(2, -1)), values(2, 3, 4, device="meta"))
    check(lambda t, x: [(p._is_view(), p._base is None) for p in x.unsafe_chunk(2)], values(4, 3))
    check(lambda t, x: shares_storage(x.unsafe_split(1), x), values(2, 3))
    check_ops_seen(lambda t, x: (x.unsafe_chunk(2, 1), x.unsafe_chunk(2)), values(2, 3, 4))


def test_ravel():
    check_view(lambda t, x: x.ravel(), 2, 3, 4)
    check(lambda t, x: (geometry(x.ravel()), shares_storage(x.ravel(), x)), values(2, 3, 4, noncontiguous=True))
    check(lambda t, x: geometry(t.ravel(x)), values())
    check_ops_seen(lambda t, x: (x.ravel(), x.t().ravel()), values(2, 3))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4), (1, 2, 1, 2)])
def test_atleast(shape):
    x = values(*shape)
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        check(lambda t, x: geometry(getattr(t, name)(x)), x)
        check(lambda t, x: getattr(t, name)(x) is x, x)
        check(lambda t, x: geometry(getattr(t, name)(x, x[..., None])), x)
        check(lambda t, x: geometry(getattr(t, name)([x, x])), x)
        check(lambda t, x: type(getattr(t, name)((x,))).__name__, x)
        check_ops_seen(lambda t, x: getattr(t, name)(x), x)


@pytest.mark.parametrize("shapes", [[(3,), (2,)], [(), ()], [(2, 3), (2, 1)], [(2, 3, 4), (2, 1, 4)], [(3,), ()]])
def test_hstack(shapes):
    inputs = [values(*s) for s in shapes]
    check(lambda t, *xs: t.hstack(xs), *inputs)
    check_ops_seen(lambda t, *xs: t.hstack(list(xs)), *inputs)


@pytest.mark.parametrize("name", ["vstack", "row_stack", "dstack", "column_stack"])
@pytest.mark.parametrize("shapes", [[(3,), (3,)], [(), ()], [(2, 3), (2, 3)], [(1, 3, 2), (1, 3, 2)]])
def test_stacking(name, shapes):
    inputs = [values(*s, dtype="int32") for s in shapes]
    if name == "column_stack" and len(shapes[0]) > 2:
        inputs = [values(*s, dtype="int32") for s in [(3, 2), (3, 1)]]
    check(lambda t, *xs: getattr(t, name)(xs), *inputs)
    check(lambda t, *xs: geometry(getattr(t, name)(list(xs))), *inputs)
    check_ops_seen(lambda t, *xs: getattr(t, name)(list(xs)), *inputs)


def test_stacking_errors():
    for name in ("hstack", "vstack", "dstack", "column_stack"):
        check_error(lambda t, x: getattr(t, name)([]), values(2))
    check_error(lambda t, x, y: t.vstack([x, y]), values(3), values(2))


# --- random chains of view ops -----------------------------------------------------------------------


def _random_view_op(rng: Any, shape: tuple) -> Callable:
    """One view/shape op that applies to a tensor of `shape`, arguments drawn from rng."""
    n = len(shape)
    choices: list[Callable] = [lambda t, x: x.unsqueeze(0), lambda t, x: x[...], lambda t, x: x.squeeze()]
    if n >= 1:
        d = rng.randrange(n)
        size = shape[d]
        start, end, step = rng.randint(-size - 1, size + 1), rng.randint(-size - 1, size + 2), rng.randint(1, 3)
        choices += [
            lambda t, x: x[(slice(None),) * d + (slice(start, end, step),)],
            lambda t, x: x.unsqueeze(d), lambda t, x: x.squeeze(d), lambda t, x: x.flatten(),
            lambda t, x: x.reshape(-1), lambda t, x: x.split(max(1, size // 2), d)[0],
            lambda t, x: x.chunk(2, d)[-1], lambda t, x: x.contiguous(), lambda t, x: x.clone(),
            lambda t, x: x[None, ..., None], lambda t, x: x.movedim(0, -1),
        ]
        if size:
            index = rng.randrange(-size, size)
            choices += [lambda t, x: x.select(d, index), lambda t, x: x[(slice(None),) * d + (index,)]]
        if size >= 2:
            choices.append(lambda t, x: x.unfold(d, 2, 1))
        target = [3 if s == 1 and rng.random() < 0.5 else s for s in shape]
        choices.append(lambda t, x: x.expand(2, *target))
    if n >= 2:
        a, b, offset = rng.randrange(n), rng.randrange(n), rng.randint(-2, 2)
        order = list(range(n))
        rng.shuffle(order)
        choices += [lambda t, x: x.transpose(a, b), lambda t, x: x.permute(*order), lambda t, x: x.mT,
                    lambda t, x: x.diagonal(offset, a, b) if a != b else x]
        if 0 not in shape:
            choices.append(lambda t, x: x.reshape(shape[0], -1))
    return rng.choice(choices)


@pytest.mark.parametrize("seed", range(4))
def test_random_view_chains(seed):
    """Chains of view ops on random shapes: same values, geometry, view-ness and writes through."""
    import random

    rng = random.Random(seed)
    for _ in range(60):
        shape = tuple(rng.choice([0, 1, 2, 3, 4]) for _ in range(rng.randint(0, 4)))
        data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
        chain = [_random_view_op(rng, shape)]
        for _ in range(rng.randint(0, 3)):
            expected = _apply(torch, chain, data)
            if isinstance(expected, Exception):
                break
            chain.append(_random_view_op(rng, tuple(expected.shape)))
        check(lambda t: _apply(t, chain, data, describe=True))
        check(lambda t: _apply(t, chain, data, device="meta", describe=True))


def _apply(lib: Any, chain: list, data: Any, device: str = "cpu", describe: bool = False) -> Any:
    """Run the chain on `data`; with describe, return what the check compares (or the error's text)."""
    x = lib.from_numpy(data.copy()) if device == "cpu" else lib.empty(data.shape, device=device)
    base = x
    try:
        for op in chain:
            x = op(lib, x)
    except (RuntimeError, IndexError) as error:
        return f"{type(error).__name__}: {str(error).splitlines()[0]}" if describe else error
    if not describe:
        return x
    summary = [geometry(x), x._is_view()]
    if x.device.type == "cpu" and x.numel() and 0 not in x.stride():
        x.fill_(-1)  # a write through a view reaches the base
        summary.append(base.clone())
    return [x, *summary] if x.device.type == "cpu" else summary
