"""torchpy's tensor printing against real torch's repr(), character for character."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torchpy._tensor import printing
from torchpy._tensor.printing import format_tensor, get_printoptions, printoptions, set_printoptions

NUMPY_DTYPES = {
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
    "float32": np.float32,
    "float64": np.float64,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
    "bool": np.bool_,
    "complex64": np.complex64,
    "complex128": np.complex128,
}
FLOAT_NAMES = ["float16", "bfloat16", "float32", "float64"]
COMPLEX_NAMES = ["complex64", "complex128"]
INT_NAMES = ["int8", "int16", "int32", "int64", "uint8"]
ALL_NAMES = list(NUMPY_DTYPES)


@pytest.fixture(autouse=True)
def _restore_options():
    yield
    torch.set_printoptions(profile="default")
    set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)


def set_both(**options) -> None:
    torch.set_printoptions(**options)
    set_printoptions(**options)


def to_torch(arr: np.ndarray, dtype_name: str) -> torch.Tensor:
    if dtype_name == "bfloat16":
        # torch.from_numpy does not know ml_dtypes; the float32 round trip is exact.
        return torch.from_numpy(arr.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(np.array(arr, copy=True))


def check(
    arr: np.ndarray, dtype_name: str, *, requires_grad: bool = False, with_grad_fn: bool = False
) -> str:
    """Assert torchpy prints `arr` exactly as torch prints the same tensor."""
    with np.errstate(over="ignore"):  # large values overflow to inf in float16, as in torch
        arr = np.asarray(arr, dtype=NUMPY_DTYPES[dtype_name])
    t = to_torch(arr, dtype_name)
    grad_fn_name = None
    if requires_grad or with_grad_fn:
        t.requires_grad_()
    if with_grad_fn:
        t = t.clone()
        grad_fn_name = type(t.grad_fn).__name__
    expected = repr(t)
    assert str(t) == expected
    got = format_tensor(
        arr,
        dtype_name=dtype_name,
        default_dtype_name=str(torch.get_default_dtype()).removeprefix("torch."),
        requires_grad=requires_grad,
        grad_fn_name=grad_fn_name,
    )
    assert got == expected, f"\n--- torch ---\n{expected}\n--- torchpy ---\n{got}"
    return got


# ---------------------------------------------------------------------------
# Hand-picked values
# ---------------------------------------------------------------------------

FLOAT_CASES = [
    1.5,
    0.0,
    -0.0,
    [1.0, 2.0],
    [1.0, -2.0, 300.0],
    [0.1, 0.25, -3.125],
    [1e-8, 1.0],
    [1.0, 1e10],
    [1e20, -1e20],
    [1.0, 999.0],
    [1.0, 1001.0],
    [1e-4, 2e-4],
    [0.5e-4],
    [1e8],
    [1.1e8],
    [float("nan"), 1.5, float("inf")],
    [float("nan"), 1.0, float("-inf")],
    [float("nan"), float("inf"), float("-inf")],
    [float("nan")],
    [0.0, 0.0, -0.0],
    [-0.0, 1.5],
    [-0.0, 2.0],
    [0.0, 1e-8],
    [123456.0, 0.5],
    [0.00015, 0.12345, 1.0],
    [2.5e-5, 1.5],
    [0.12345678, 1.23456789],
    [65504.0, -65504.0],
    [3.0, float("nan")],
    [[1.0, 2.0], [3.0, 4.0]],
    [[1.5, -2.25], [3.0, 1e-3]],
    [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]],
    [[[[1.5]]]],
]


@pytest.mark.parametrize("dtype_name", FLOAT_NAMES)
@pytest.mark.parametrize("values", FLOAT_CASES, ids=repr)
def test_float_values(values, dtype_name):
    check(np.array(values), dtype_name)


@pytest.mark.parametrize("dtype_name", COMPLEX_NAMES)
@pytest.mark.parametrize(
    "values",
    [
        1 + 2j,
        -1.5 - 0.25j,
        complex(0.0, -0.0),
        complex(-0.0, 0.0),
        [1 + 2j, 3 - 4j],
        [1.5 + 2j, 3 - 4.25j],
        [1e-8 + 1j, 1 + 1e10j],
        [complex(float("nan"), 1), complex(1, float("inf"))],
        [complex(1, float("-inf")), complex(float("inf"), float("nan"))],
        [0j, 0j],
        [[1 + 1j, 2 - 2j], [-3.5 + 0j, 1e-5j]],
        [1e5 + 123456.789j, -2e-3 - 7j],
    ],
    ids=repr,
)
def test_complex_values(values, dtype_name):
    check(np.array(values), dtype_name)


@pytest.mark.parametrize("dtype_name", INT_NAMES)
@pytest.mark.parametrize(
    "values",
    [5, 0, [1, 2, 3], [-1, 100, 7], [[1, -20], [3, 4]], [[[0, 1]], [[2, 3]]]],
    ids=repr,
)
def test_int_values(values, dtype_name):
    arr = np.array(values)
    if dtype_name == "uint8":
        arr = np.abs(arr)
    check(arr, dtype_name)


def test_large_ints():
    check(np.array([2**63 - 1, -(2**63), 0]), "int64")
    check(np.array([[-128, 127], [0, 1]]), "int8")
    check(np.array([255, 0]), "uint8")


@pytest.mark.parametrize(
    "values", [True, False, [True, False], [[True], [False]], [False, False]], ids=repr
)
def test_bool(values):
    check(np.array(values), "bool")


# ---------------------------------------------------------------------------
# Shapes, empties, meta, suffixes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype_name", ALL_NAMES)
@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3), (0, 0, 1), (3, 0, 2)])
def test_empty(shape, dtype_name):
    check(np.zeros(shape), dtype_name)


@pytest.mark.parametrize("dtype_name", ALL_NAMES)
@pytest.mark.parametrize("shape", [(), (0,), (1,), (2, 3), (0, 3), (2, 1, 4)])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_meta(shape, dtype_name, requires_grad):
    torch_dtype = getattr(torch, dtype_name)
    grad = requires_grad and dtype_name in FLOAT_NAMES + COMPLEX_NAMES
    t = torch.empty(shape, dtype=torch_dtype, device="meta", requires_grad=grad)
    got = format_tensor(None, shape=shape, dtype_name=dtype_name, device="meta", requires_grad=grad)
    assert got == repr(t) == str(t)


def test_meta_needs_shape():
    with pytest.raises(ValueError):
        format_tensor(None, dtype_name="float32")


@pytest.mark.parametrize("dtype_name", FLOAT_NAMES + COMPLEX_NAMES)
def test_requires_grad_and_grad_fn(dtype_name):
    arr = np.array([[1.5, 2.0], [3.0, -4.0]])
    check(arr, dtype_name, requires_grad=True)
    check(arr, dtype_name, with_grad_fn=True)
    check(np.array(2.5), dtype_name, with_grad_fn=True)


def test_grad_fn_wins_over_requires_grad():
    got = format_tensor(
        np.array([2.0, 4.0], np.float32),
        dtype_name="float32",
        requires_grad=True,
        grad_fn_name="MulBackward0",
    )
    t = torch.tensor([1.0, 2.0], requires_grad=True) * 2
    assert got == repr(t) == "tensor([2., 4.], grad_fn=<MulBackward0>)"


def test_other_device_and_prefix():
    got = format_tensor(np.array([1, 2]), dtype_name="int32", device="cuda:0", requires_grad=False)
    assert got == "tensor([1, 2], device='cuda:0', dtype=torch.int32)"
    got = format_tensor(np.array([1.0], np.float32), dtype_name="float32", device="cpu:0")
    assert got == "tensor([1.])"
    numpy_ints = (np.int64(0), np.int64(2))
    got = format_tensor(np.zeros((0, 2), np.float32), shape=numpy_ints, dtype_name="float32")
    assert got == "tensor([], size=(0, 2))"
    got = format_tensor(np.array([1.0, 2.0], np.float32), dtype_name="float32", prefix="MyTensor(")
    assert got == "MyTensor([1., 2.])"
    got = format_tensor(np.array([1.0]), dtype_name="float64", tensor_contents="<custom>")
    assert got == "tensor(<custom>, dtype=torch.float64)"


@pytest.mark.parametrize("dtype_name", ["float64", "float32", "complex128", "complex64", "int64"])
def test_default_dtype_float64(dtype_name):
    torch.set_default_dtype(torch.float64)
    check(np.array([1.5, 2.0]), dtype_name)
    check(np.zeros((0, 2)), dtype_name)


def test_suffix_wraps_to_new_line():
    # The row fills the line, so the dtype goes on the next line at the prefix's indent.
    check(np.arange(17) * 1000, "int32")
    check(np.arange(18.0).reshape(2, 9) * 1e-5, "float64", with_grad_fn=True)
    check(np.arange(9) + 0.5j, "complex128", requires_grad=True)


def test_non_contiguous_input():
    arr = np.arange(24.0).reshape(4, 6)[::2, ::-3].T
    check(arr, "float64")


# ---------------------------------------------------------------------------
# Summarization and wrapping
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype_name", ALL_NAMES)
@pytest.mark.parametrize(
    "shape", [(1001,), (2000,), (40, 40), (2, 3, 200), (10, 10, 11), (3, 1000), (1001, 1)]
)
def test_summarized(shape, dtype_name):
    rng = np.random.default_rng(sum(shape))
    if dtype_name in FLOAT_NAMES:
        arr = rng.standard_normal(shape)
    elif dtype_name in COMPLEX_NAMES:
        arr = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    else:
        arr = rng.integers(0, 100, shape)
    check(arr, dtype_name)


def test_summarized_formatter_sees_only_shown_values():
    # The huge middle value is elided, so it must not switch to scientific style.
    arr = np.ones(2001)
    arr[1000] = 1e30
    check(arr, "float64")


@pytest.mark.parametrize("dtype_name", ["float32", "int64", "complex64", "bool"])
@pytest.mark.parametrize("length", [1, 12, 30, 100, 500])
def test_long_rows_wrap(length, dtype_name):
    arr = np.linspace(-50, 50, length)
    if dtype_name == "complex64":
        arr = arr + 1j * arr[::-1]
    if dtype_name == "bool":
        arr = arr > 0
    check(arr, dtype_name)
    check(arr.reshape(1, 1, length), dtype_name)


# ---------------------------------------------------------------------------
# Print options
# ---------------------------------------------------------------------------

OPTION_SETS = [
    {"precision": 2},
    {"precision": 0},
    {"precision": 8},
    {"sci_mode": True},
    {"sci_mode": False},
    {"precision": 2, "sci_mode": True},
    {"threshold": 5},
    {"threshold": 5, "edgeitems": 1},
    {"threshold": 5, "edgeitems": 0},
    {"edgeitems": 0},
    {"threshold": 0},
    {"linewidth": 40},
    {"linewidth": 5},
    {"linewidth": 200},
    {"profile": "full"},
    {"profile": "short"},
    {"profile": "short", "precision": 6},
    {"profile": "default"},
]

OPTION_ARRAYS = [
    (np.array(1.23456789), "float32"),
    (np.array([1.23456789, 1e-8, 1e10]), "float64"),
    (np.array([0.125, -2.5, 1e-3]), "float32"),
    (np.array([1.0, 2.0, 3.0]), "bfloat16"),
    (np.array([0.0, 0.0]), "float16"),
    (np.arange(12.0).reshape(3, 4) / 7, "float64"),
    (np.arange(24).reshape(2, 3, 4), "int16"),
    (np.arange(2000.0) / 3, "float32"),
    (np.arange(1200).reshape(30, 40), "int64"),
    (np.arange(10) * (1.5 - 2j), "complex128"),
    (np.arange(30) % 3 == 0, "bool"),
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=repr)
@pytest.mark.parametrize("case", range(len(OPTION_ARRAYS)))
def test_print_options(options, case):
    set_both(**options)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    arr, dtype_name = OPTION_ARRAYS[case]
    check(arr, dtype_name)


def test_set_printoptions_resets_sci_mode_and_ignores_unknown_profile():
    set_printoptions(sci_mode=True)
    set_printoptions(precision=3)
    assert get_printoptions()["sci_mode"] is None
    set_printoptions(profile="no-such-profile")
    expected = {
        "precision": 3, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None
    }
    assert get_printoptions() == expected
    set_printoptions(profile="full")
    assert get_printoptions()["threshold"] == math.inf


def test_printoptions_context_restores():
    before = get_printoptions()
    with printoptions(precision=1, sci_mode=True):
        got = format_tensor(np.array([1.25], np.float32), dtype_name="float32")
        assert got == "tensor([1.2e+00])"
    assert get_printoptions() == before
    assert printing._OPTS.precision == 4


# ---------------------------------------------------------------------------
# Random arrays
# ---------------------------------------------------------------------------

SPECIALS = [0.0, -0.0, float("nan"), float("inf"), float("-inf")]


@st.composite
def random_arrays(draw):
    dtype_name = draw(st.sampled_from(ALL_NAMES))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=4)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    size = math.prod(shape)
    if dtype_name in INT_NAMES:
        info = np.iinfo(NUMPY_DTYPES[dtype_name])
        high = draw(st.sampled_from([10, 1000, int(info.max)]))
        low = max(int(info.min), -high)
        arr = rng.integers(low, high, size=shape, endpoint=True)
    elif dtype_name == "bool":
        arr = rng.integers(0, 2, size=shape).astype(bool)
    else:
        arr = _random_floats(draw, rng, shape, size)
        if dtype_name in COMPLEX_NAMES:
            # Built part by part: arr + 1j * imag would turn infinities into nan.
            real, arr = arr, np.empty(shape, np.complex128)
            arr.real, arr.imag = real, _random_floats(draw, rng, shape, size)
    return np.asarray(arr), dtype_name


def _random_floats(draw, rng, shape, size):
    scale = 10.0 ** draw(st.integers(-10, 10))
    arr = rng.standard_normal(size) * scale
    if draw(st.booleans()):
        arr = np.round(arr)  # whole numbers exercise the '1.' style
    if size and draw(st.booleans()):
        picks = rng.integers(0, size, size=max(1, size // 4))
        arr[picks] = rng.choice(SPECIALS, size=len(picks))
    return arr.reshape(shape)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_arrays())
def test_random_arrays(case):
    arr, dtype_name = case
    check(arr, dtype_name)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    random_arrays(),
    st.fixed_dictionaries(
        {},
        optional={
            "precision": st.integers(0, 10),
            "threshold": st.integers(0, 60),
            "edgeitems": st.integers(0, 4),
            "linewidth": st.integers(1, 150),
            "sci_mode": st.sampled_from([None, True, False]),
        },
    ),
)
def test_random_arrays_with_options(case, options):
    set_both(**options)
    try:
        arr, dtype_name = case
        check(arr, dtype_name)
    finally:
        set_both(profile="default")
