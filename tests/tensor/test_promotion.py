"""Type promotion compared with real PyTorch: tables, result_type, computation dtypes."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import torch
import torch._prims_common as prims_common
from hypothesis import given, settings
from hypothesis import strategies as st

from torchpy._tensor import dtype as tp
from torchpy._tensor.promotion import (
    ELEMENTWISE_TYPE_PROMOTION_KIND as Kind,
)
from torchpy._tensor.promotion import (
    can_cast,
    computation_dtypes,
    elementwise_dtypes,
    opmath_dtype,
    promote_types,
    result_type,
)

ALL = tp.all_dtypes
FLOATING = [d for d in ALL if d.is_floating_point]
SCALARS = [True, 2, 2.5, 1j]
# torch warns that complex32 is experimental whenever one is created
pytestmark = pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")


def to_torch(d: tp.dtype) -> torch.dtype:
    return getattr(torch, d._name)


def torch_operand(op: Any, device: str = "cpu") -> Any:
    """The torch counterpart of an operand descriptor: a Python number or (dtype, ndim)."""
    if not isinstance(op, tuple):
        return op
    d, ndim = op
    return torch.ones((2,) * ndim, dtype=to_torch(d), device=device)


def same(ours: tp.dtype, theirs: torch.dtype) -> bool:
    return repr(ours) == repr(theirs)


@pytest.fixture(params=FLOATING, ids=str)
def each_default_dtype(request: pytest.FixtureRequest) -> Iterator[tp.dtype]:
    torch.set_default_dtype(to_torch(request.param))
    tp.set_default_dtype(request.param)
    yield request.param
    torch.set_default_dtype(torch.float32)
    tp.set_default_dtype(tp.float32)


# --- promote_types / can_cast -------------------------------------------------------------
def test_promote_types_table() -> None:
    for a, b in itertools.product(ALL, ALL):
        assert same(promote_types(a, b), torch.promote_types(to_torch(a), to_torch(b))), (a, b)


def test_can_cast_table() -> None:
    for a, b in itertools.product(ALL, ALL):
        assert can_cast(a, b) == torch.can_cast(to_torch(a), to_torch(b)), (a, b)


def test_argument_errors_match_torch() -> None:
    for ours, theirs in [
        (
            lambda: promote_types(tp.float32, "float"),
            lambda: torch.promote_types(torch.float32, "float"),
        ),
        (lambda: promote_types("x", tp.int32), lambda: torch.promote_types("x", torch.int32)),
        (lambda: can_cast(tp.int32, 1), lambda: torch.can_cast(torch.int32, 1)),
        (lambda: can_cast("x", tp.int32), lambda: torch.can_cast("x", torch.int32)),
    ]:
        with pytest.raises(TypeError) as expected:
            theirs()
        with pytest.raises(TypeError) as actual:
            ours()
        assert str(actual.value) == str(expected.value)


# --- result_type --------------------------------------------------------------------------
OPERANDS = [(d, ndim) for d in ALL for ndim in (0, 1)] + SCALARS


def test_result_type_every_pair(each_default_dtype: tp.dtype) -> None:
    """Every pair of scalars, 0-dim and dimensioned tensors of every dtype, under each default."""
    for a, b in itertools.product(OPERANDS, OPERANDS):
        expected = torch.result_type(torch_operand(a), torch_operand(b))
        assert same(result_type(a, b), expected), (a, b)


def test_single_operand(each_default_dtype: tp.dtype) -> None:
    for op in OPERANDS:
        # torch's result_type is binary; an operand with itself gives the same answer
        expected = torch.result_type(torch_operand(op), torch_operand(op))
        assert same(result_type(op), expected), op


def operands() -> st.SearchStrategy[Any]:
    tensors = st.tuples(st.sampled_from(ALL), st.sampled_from([0, 1]))
    numbers = st.one_of(
        st.booleans(), st.integers(-5, 5), st.floats(-2, 2), st.complex_numbers(max_magnitude=2)
    )
    return st.one_of(tensors, numbers)


@settings(max_examples=600, deadline=None)
@given(st.lists(operands(), min_size=1, max_size=5), st.sampled_from(FLOATING))
def test_result_type_many_operands(ops: list[Any], default: tp.dtype) -> None:
    """Against torch's Python reference (torch._prims_common), for any mix of operands."""
    torch.set_default_dtype(to_torch(default))
    tp.set_default_dtype(default)
    try:
        _, expected = prims_common.elementwise_dtypes(
            *map(torch_operand, ops),
            type_promotion_kind=prims_common.ELEMENTWISE_TYPE_PROMOTION_KIND.NO_OPMATH,
        )
        assert same(result_type(*ops), expected)
    finally:
        torch.set_default_dtype(torch.float32)
        tp.set_default_dtype(tp.float32)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(ALL), st.sampled_from([0, 1])), min_size=3, max_size=3))
def test_result_type_three_tensors_against_an_op(ops: list[Any]) -> None:
    """Against a real three-input op (addcmul on meta tensors, so no kernel rejects a dtype)."""
    a, b, c = (torch_operand(op, device="meta") for op in ops)
    assert same(result_type(*ops), torch.addcmul(a, b, c).dtype)


def test_operand_forms() -> None:
    class FakeTensor:
        dtype = tp.int32
        ndim = 2

    assert result_type(FakeTensor(), (tp.int64, 0)) is tp.int32
    assert result_type(FakeTensor(), 2.5) is tp.float32
    with pytest.raises(TypeError, match="expected a torch.dtype"):
        result_type((torch.float32, 1))
    with pytest.raises(TypeError, match="got str"):
        result_type((tp.int32, 1), "a")
    with pytest.raises(TypeError):
        result_type()


@pytest.mark.parametrize(
    ("ops", "expected", "torch_expr"),
    [
        (
            [(tp.bool, 1), (tp.bool, 1)],
            tp.bool,
            lambda: torch.ones(2, dtype=torch.bool) + torch.ones(2, dtype=torch.bool),
        ),
        (
            [(tp.uint8, 1), (tp.int8, 1)],
            tp.int16,
            lambda: torch.ones(2, dtype=torch.uint8) + torch.ones(2, dtype=torch.int8),
        ),
        ([(tp.int64, 1), 2.5], tp.float32, lambda: torch.ones(2, dtype=torch.int64) + 2.5),
        (
            [(tp.float16, 1), (tp.float64, 0)],
            tp.float16,
            lambda: torch.ones(2, dtype=torch.float16) + torch.tensor(1.0, dtype=torch.float64),
        ),
        (
            [(tp.int32, 1), (tp.int64, 0)],
            tp.int32,
            lambda: torch.ones(2, dtype=torch.int32) + torch.tensor(1),
        ),
        ([(tp.float32, 1), 1j], tp.complex64, lambda: torch.ones(2) + 1j),
        # an integer tensor meets a 0-dim float64: the float64 wins, not the default dtype
        (
            [(tp.uint8, 1), (tp.float64, 0)],
            tp.float64,
            lambda: torch.ones(2, dtype=torch.uint8) + torch.tensor(1.0, dtype=torch.float64),
        ),
        # float16 widened to complex gives complex32, which NumPy cannot hold
        ([(tp.float16, 1), 1j], tp.complex32, lambda: torch.ones(2, dtype=torch.float16) * 1j),
        ([(tp.bfloat16, 1), 1j], tp.complex64, lambda: torch.ones(2, dtype=torch.bfloat16) * 1j),
        ([(tp.int8, 1), 300], tp.int8, lambda: torch.ones(2, dtype=torch.int8) + 300),
        ([(tp.bool, 1), 2], tp.int64, lambda: torch.ones(2, dtype=torch.bool) + 2),
    ],
)
def test_documented_examples(
    ops: list[Any], expected: tp.dtype, torch_expr: Callable[[], torch.Tensor]
) -> None:
    assert result_type(*ops) is expected
    assert same(expected, torch_expr().dtype)


# --- computation dtypes -------------------------------------------------------------------
@settings(max_examples=400, deadline=None)
@given(
    st.lists(operands(), min_size=1, max_size=3),
    st.sampled_from(list(Kind)),
    st.sampled_from(FLOATING),
)
def test_elementwise_dtypes_match_torch_reference(
    ops: list[Any], kind: Kind, default: tp.dtype
) -> None:
    torch.set_default_dtype(to_torch(default))
    tp.set_default_dtype(default)
    try:
        expected = prims_common.elementwise_dtypes(
            *map(torch_operand, ops),
            type_promotion_kind=getattr(prims_common.ELEMENTWISE_TYPE_PROMOTION_KIND, kind.name),
        )
        actual = elementwise_dtypes(*ops, type_promotion_kind=kind)
        assert [repr(d) for d in actual] == [repr(d) for d in expected]
    finally:
        torch.set_default_dtype(torch.float32)
        tp.set_default_dtype(tp.float32)


# One real op per kind, applied to meta tensors so that only its dtype logic runs.
KIND_OPS = [
    (Kind.DEFAULT, lambda a, b: torch.add(a, b)),
    (Kind.INT_TO_FLOAT, lambda a, b: torch.true_divide(a, b)),
    (Kind.INT_TO_FLOAT, lambda a, b: torch.atan2(a, b)),
    (Kind.ALWAYS_BOOL, lambda a, b: torch.eq(a, b)),
    (
        Kind.NO_OPMATH,
        lambda a, b: torch.where(torch.ones((), dtype=torch.bool, device="meta"), a, b),
    ),
]


@pytest.mark.parametrize(("kind", "op"), KIND_OPS, ids=lambda x: getattr(x, "name", ""))
def test_result_dtype_of_real_binary_ops(kind: Kind, op: Callable[..., torch.Tensor]) -> None:
    for a, b in itertools.product(OPERANDS[: -len(SCALARS)], OPERANDS):
        try:
            expected = op(torch_operand(a, "meta"), torch_operand(b, "meta")).dtype
        except (RuntimeError, NotImplementedError, TypeError):
            continue  # the op rejects these dtypes (or a Python number) outright
        assert same(elementwise_dtypes(a, b, type_promotion_kind=kind)[1], expected), (a, b)


@pytest.mark.parametrize("d", ALL, ids=str)
def test_result_dtype_of_real_unary_ops(d: tp.dtype) -> None:
    x = torch_operand((d, 1), "meta")
    for kind, op in [
        (Kind.INT_TO_FLOAT, torch.sin),
        (Kind.INT_TO_FLOAT, torch.exp),
        (Kind.COMPLEX_TO_FLOAT, torch.abs),
        (Kind.BOOL_TO_LONG, torch.square),
    ]:
        try:
            expected = op(x).dtype
        except (RuntimeError, NotImplementedError):
            continue
        assert same(elementwise_dtypes((d, 1), type_promotion_kind=kind)[1], expected), op


def test_opmath() -> None:
    assert opmath_dtype(tp.float16) is tp.float32
    assert opmath_dtype(tp.bfloat16) is tp.float32
    assert opmath_dtype(tp.complex32) is tp.complex64
    assert opmath_dtype(tp.int8) is tp.int8
    assert computation_dtypes(tp.int32, Kind.INT_TO_FLOAT) == (tp.float32, tp.float32)
    assert computation_dtypes(tp.complex32, Kind.COMPLEX_TO_FLOAT) == (tp.complex64, tp.float16)


def test_numpy_numbers_are_python_numbers_of_their_kind() -> None:
    assert result_type((tp.int8, 1), np.float64(1.0)) is tp.float32
    assert result_type((tp.int8, 1), np.int64(1)) is tp.int8
    assert result_type((tp.bool, 1), np.int64(1)) is tp.int64
    assert result_type(np.float32(1.0), (tp.float16, 0)) is tp.float16
