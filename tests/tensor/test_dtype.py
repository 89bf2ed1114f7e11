"""torchpy's dtypes, default dtype, finfo and iinfo, compared with real PyTorch."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable, Iterator
from typing import Any

import ml_dtypes
import numpy as np
import pytest
import torch

from torchpy._tensor import dtype as tp
from torchpy._tensor.finfo import finfo, iinfo

ALL = tp.all_dtypes
STORABLE = [d for d in ALL if d is not tp.complex32]


def to_torch(d: tp.dtype) -> torch.dtype:
    return getattr(torch, d._name)


def raised(fn: Callable[[], Any]) -> tuple[type, str] | None:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - any exception is compared with torch's
        return type(e), str(e)
    return None


def same_error(
    ours: Callable[[], Any], theirs: Callable[[], Any], *, python_made: bool = False
) -> None:
    """Same exception type and message. A message that Python itself writes names the class
    ('dtype'), where PyTorch's C types show their full name ('torch.dtype'): python_made
    compares those without the 'torch.' prefix."""
    expected = raised(theirs)
    assert expected is not None, "torch did not raise"
    actual = raised(ours)
    if python_made and actual is not None:
        actual, expected = (
            (actual[0], actual[1].replace("torch.", "")),
            (
                expected[0],
                expected[1].replace("torch.", ""),
            ),
        )
    assert actual == expected


@pytest.fixture
def default_dtype() -> Iterator[Callable[[tp.dtype], None]]:
    """Set the default dtype in torch and torchpy together; both are restored afterwards."""

    def set_both(d: tp.dtype) -> None:
        torch.set_default_dtype(to_torch(d))
        tp.set_default_dtype(d)

    yield set_both
    torch.set_default_dtype(torch.float32)
    tp.set_default_dtype(tp.float32)


# --- the dtype objects --------------------------------------------------------------------
@pytest.mark.parametrize("d", ALL, ids=str)
def test_attributes_match_torch(d: tp.dtype) -> None:
    t = to_torch(d)
    assert repr(d) == repr(t) and str(d) == str(t)
    assert d.is_floating_point == t.is_floating_point
    assert d.is_complex == t.is_complex
    assert d.is_signed == t.is_signed
    assert d.itemsize == t.itemsize
    assert d.abbr == t.abbr
    assert repr(d.to_real()) == repr(t.to_real())
    ours, theirs = raised(d.to_complex), raised(t.to_complex)
    assert ours == theirs
    if theirs is None:
        assert repr(d.to_complex()) == repr(t.to_complex())


def test_every_torch_name_for_our_dtypes_exists() -> None:
    ours = {repr(d) for d in ALL}
    names = [n for n in dir(torch) if isinstance(getattr(torch, n), torch.dtype)]
    for name in names:
        if repr(getattr(torch, name)) in ours:
            assert getattr(tp, name) is getattr(tp, getattr(torch, name).__reduce__())


@pytest.mark.parametrize("d", ALL, ids=str)
def test_singleton_hashable_picklable(d: tp.dtype) -> None:
    assert pickle.loads(pickle.dumps(d)) is d
    assert copy.copy(d) is d and copy.deepcopy(d) is d
    assert {d: 1}[d] == 1
    assert d == d and d != (tp.int8 if d is not tp.int8 else tp.int16)


def test_dtype_cannot_be_created_or_changed() -> None:
    same_error(lambda: tp.dtype(), lambda: torch.dtype())
    same_error(lambda: setattr(tp.float32, "is_signed", 3),
               lambda: setattr(torch.float32, "is_signed", 3))  # fmt: skip
    same_error(lambda: setattr(tp.float32, "foo", 3), lambda: setattr(torch.float32, "foo", 3))
    same_error(
        lambda: tp.float32 < tp.float64,
        lambda: torch.float32 < torch.float64,
        python_made=True,
    )


@pytest.mark.parametrize("d", STORABLE, ids=str)
def test_numpy_round_trip(d: tp.dtype) -> None:
    np_dtype = tp.to_numpy_dtype(d)
    assert tp.from_numpy_dtype(np_dtype) is d
    assert tp.from_numpy_dtype(np_dtype.type) is d
    assert np_dtype.itemsize == d.itemsize
    if d is not tp.bfloat16:  # torch.from_numpy has no bfloat16
        assert repr(torch.from_numpy(np.zeros(1, np_dtype)).dtype) == repr(d)
    else:
        assert np_dtype == np.dtype(ml_dtypes.bfloat16)


def test_numpy_mapping_errors() -> None:
    with pytest.raises(TypeError, match="no NumPy equivalent"):
        tp.to_numpy_dtype(tp.complex32)
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.str_"):
        tp.from_numpy_dtype(np.dtype("U1"))


@pytest.mark.parametrize("py_type", [bool, int, float, complex])
def test_python_types_as_dtypes(py_type: type) -> None:
    assert repr(tp.from_python_type(py_type)) == repr(torch.zeros(1, dtype=py_type).dtype)


def test_from_python_type_rejects_other_types() -> None:
    with pytest.raises(TypeError):
        tp.from_python_type(str)


# --- the default dtype --------------------------------------------------------------------
@pytest.mark.parametrize("d", [tp.float16, tp.bfloat16, tp.float32, tp.float64], ids=str)
def test_default_dtype_and_complex_follow(d: tp.dtype, default_dtype: Any) -> None:
    assert tp.get_default_dtype() is tp.float32
    assert tp.get_default_complex_dtype() is tp.complex64
    default_dtype(d)
    assert repr(tp.get_default_dtype()) == repr(torch.get_default_dtype())
    # PyTorch has no public getter for the complex default; a complex Python number shows it.
    assert repr(tp.get_default_complex_dtype()) == repr(torch.result_type(1, 1j))
    assert repr(tp.scalar_default_dtype(2.5)) == repr(torch.result_type(1, 2.5))


@pytest.mark.parametrize(
    "arg",
    [tp.int32, tp.bool, tp.complex64, tp.complex32, "float", float, None],
    ids=repr,
)
def test_set_default_dtype_errors(arg: Any) -> None:
    theirs = to_torch(arg) if isinstance(arg, tp.dtype) else arg
    same_error(lambda: tp.set_default_dtype(arg), lambda: torch.set_default_dtype(theirs))
    assert tp.get_default_dtype() is tp.float32


def test_scalar_default_dtype() -> None:
    assert tp.scalar_default_dtype(True) is tp.bool
    assert tp.scalar_default_dtype(3) is tp.int64
    assert tp.scalar_default_dtype(np.float64(1.0)) is tp.float32  # a float subclass
    assert tp.scalar_default_dtype(np.int8(1)) is tp.int64
    with pytest.raises(TypeError):
        tp.scalar_default_dtype("1")


# --- finfo / iinfo ------------------------------------------------------------------------
FINFO_FIELDS = ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"]
IINFO_FIELDS = ["bits", "max", "min", "dtype"]


@pytest.mark.parametrize("d", ALL, ids=str)
@pytest.mark.parametrize(
    ("ours_cls", "theirs_cls", "fields"),
    [(finfo, torch.finfo, FINFO_FIELDS), (iinfo, torch.iinfo, IINFO_FIELDS)],
    ids=["finfo", "iinfo"],
)
def test_finfo_iinfo_match_torch(
    d: tp.dtype, ours_cls: type, theirs_cls: type, fields: list[str]
) -> None:
    error = raised(lambda: theirs_cls(to_torch(d)))
    if error is not None:
        assert raised(lambda: ours_cls(d)) == error
        return
    ours, theirs = ours_cls(d), theirs_cls(to_torch(d))
    for field in fields:
        value, expected = getattr(ours, field), getattr(theirs, field)
        assert type(value) is type(expected), field
        assert value == expected, field
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)


def test_finfo_default_follows_default_dtype(default_dtype: Any) -> None:
    assert finfo() == finfo(tp.float32)
    default_dtype(tp.float64)
    assert repr(finfo()) == repr(torch.finfo())
    assert finfo(type=tp.float16).bits == 16


def test_info_argument_errors() -> None:
    same_error(lambda: finfo(None), lambda: torch.finfo(None))
    same_error(lambda: finfo("float32"), lambda: torch.finfo("float32"))
    same_error(lambda: iinfo(), lambda: torch.iinfo())
    same_error(lambda: iinfo(None), lambda: torch.iinfo(None))


def test_info_objects_compare_by_value_and_are_read_only() -> None:
    assert finfo(tp.float32) == finfo(tp.float32) == finfo(tp.complex64)
    assert finfo(tp.float32) != finfo(tp.float64)
    assert iinfo(tp.int8) == iinfo(tp.int8) and iinfo(tp.int8) != iinfo(tp.uint8)
    assert finfo(tp.float32) != 3
    assert isinstance(finfo(tp.float32), finfo)
    same_error(
        lambda: hash(finfo(tp.float32)),
        lambda: hash(torch.finfo(torch.float32)),
        python_made=True,
    )
    same_error(
        lambda: hash(iinfo(tp.int8)), lambda: hash(torch.iinfo(torch.int8)), python_made=True
    )
    same_error(lambda: setattr(finfo(tp.float32), "eps", 3),
               lambda: setattr(torch.finfo(torch.float32), "eps", 3))  # fmt: skip
