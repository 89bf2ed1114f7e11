"""sort, argsort, msort, topk against torch 2.13: values, indices (ties included), errors."""

import numpy as np
import pytest
import torch

import torchpy

from tests.oracle import ALL_DTYPES, FLOAT_DTYPES, Input, check, check_error, randint, randn

REAL_DTYPES = [d for d in ALL_DTYPES if not d.startswith("complex")]
NAN, INF = float("nan"), float("inf")
SPECIALS = [3.0, NAN, 1.0, 3.0, -0.0, 0.0, NAN, 1.0, INF, -INF, 2.0, 1.0]


def ties(*shape: int, high: int = 4, seed: int = 0) -> np.ndarray:
    """Small integers: rows full of equal values."""
    return randint(0, high, *shape, seed=seed)


def meta(*shape: int, dtype: str = "float32") -> Input:
    return Input(np.zeros(shape), dtype, device="meta")


# --- sort ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", REAL_DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_every_dtype_is_stable(dtype, descending):
    x = Input(ties(4, 9), dtype)
    check(lambda t, x: t.sort(x, descending=descending), x)
    check(lambda t, x: x.sort(0, descending), Input(ties(4, 9), dtype, noncontiguous=True))
    check(lambda t, x: x.sort(dim=-2, descending=descending, stable=True), x)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_nan_inf_and_signed_zero(dtype, descending):
    check(lambda t, x: x.sort(descending=descending), Input(SPECIALS, dtype))
    check(lambda t, x: x.sort(stable=None, descending=descending), Input(SPECIALS, dtype))


def test_sort_shapes():
    check(lambda t, x: x.sort(), Input(3.0, "float32"))
    check(lambda t, x: x.sort(0), Input(np.zeros((0, 3)), "float32"))
    check(lambda t, x: x.sort(1), Input(np.zeros((2, 0)), "int64"))
    check(lambda t, x: x.sort(1, True), Input(ties(2, 3, 5, high=3), "int32"))
    check(lambda t, x: x.sort(dim=0), Input(randn(50, 3), "float64", noncontiguous=True))


def test_sort_out_forms():
    check(lambda t, x: t.sort(x, 1, out=(t.tensor([0.0]), t.tensor([0]))), Input(ties(3, 5), "float32"))
    check(lambda t, x: t.sort(x, stable=True, descending=True, out=(t.tensor([0.0]), t.tensor([0]))), Input(ties(3, 5), "float32"))
    check(lambda t, x: t.ops.aten.sort.values(x, values=t.tensor([0]), indices=t.tensor([0])), Input(ties(7), "int64"))
    check_error(lambda t, x: t.sort(x, out=(t.tensor([0.0]), t.tensor([0], dtype=t.int32))), Input(ties(5), "float32"))
    check_error(lambda t, x: t.sort(x, out=(t.tensor([0.0], dtype=t.float64), t.tensor([0]))), Input(ties(5), "float32"))


def test_sort_on_meta_and_errors():
    check(lambda t, x: x.sort(0, True), meta(3, 4))
    check(lambda t, x: x.sort(), meta(3, dtype="complex64"))  # Meta does not look at the dtype
    check_error(lambda t, x: x.sort(), Input([1j, 2], "complex64"))
    check_error(lambda t, x: x.sort(dim=1), Input(3.0, "float32"))
    check_error(lambda t, x: x.sort(dim=2), Input(randn(2, 2), "float32"))


# --- argsort / msort ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", REAL_DTYPES)
def test_argsort_every_dtype(dtype):
    x = Input(ties(5, 6), dtype)
    check(lambda t, x: t.argsort(x), x)
    check(lambda t, x: x.argsort(0, True), x)
    check(lambda t, x: x.argsort(descending=True, stable=True, dim=0), Input(ties(5, 6), dtype, noncontiguous=True))
    check(lambda t, x: t.argsort(x, stable=False), x)


def test_argsort_specials_and_out():
    check(lambda t, x: x.argsort(descending=True), Input(SPECIALS, "float32"))
    check(lambda t, x: t.argsort(x, stable=True, out=t.tensor([5])), Input(ties(9), "float32"))
    check(lambda t, x: t.argsort(x, stable=True, dim=0, out=t.tensor([5], device="meta")), meta(3, 4))
    check_error(lambda t, x: t.argsort(x, stable=True, out=t.tensor([5], dtype=t.int32)), Input(ties(9), "float32"))


def test_msort():
    check(lambda t, x: t.msort(x), Input(ties(6, 3), "int16"))
    check(lambda t, x: x.msort(), Input(SPECIALS, "float64"))


# --- topk -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [d for d in REAL_DTYPES if d != "bool"])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_every_dtype(dtype, largest):
    x = Input(ties(4, 11), dtype)
    check(lambda t, x: x.topk(5, largest=largest), x)
    check(lambda t, x: t.topk(x, 2, 0, largest, False), Input(ties(4, 11), dtype, noncontiguous=True))


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted", [True, False])
@pytest.mark.parametrize("n,k", [(11, 5), (11, 11), (11, 1), (40, 17), (200, 3), (300, 299), (1000, 15)])
def test_topk_order_among_ties_is_torchs(largest, sorted, n, k):
    """Ties (and sorted=False) come out in the order C++'s partial_sort / nth_element leave."""
    for high, seed in ((3, 0), (50, 1), (10**6, 2)):
        x = Input(ties(3, n, high=high, seed=seed), "float32")
        check(lambda t, x: x.topk(k, largest=largest, sorted=sorted), x)


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("sorted", [True, False])
def test_topk_nan_and_specials(largest, sorted):
    for k in (1, 4, 12):
        check(lambda t, x: x.topk(k, largest=largest, sorted=sorted), Input(SPECIALS, "float32"))
    data = ties(2, 130, high=5).astype(np.float32)
    data[:, ::7] = np.nan
    check(lambda t, x: x.topk(2, largest=largest, sorted=sorted), Input(data, "float32"))
    check(lambda t, x: x.topk(2, 0, largest=largest, sorted=sorted), Input(data.T.copy(), "float16"))


def test_topk_shapes_and_out():
    check(lambda t, x: x.topk(1), Input(3.0, "float32"))
    check(lambda t, x: x.topk(0), Input(3.0, "float32"))
    check(lambda t, x: x.topk(0), Input(randn(3, 4), "float32"))
    check(lambda t, x: x.topk(2, dim=1), Input(ties(2, 3, 4), "int64"))
    check(lambda t, x: x.topk(2, dim=0), Input(np.zeros((3, 0)), "float32"))
    check(lambda t, x: t.topk(x, 3, out=(t.tensor([0.0]), t.tensor([0]))), Input(ties(3, 7), "float32"))
    check(lambda t, x: x.topk(2, 0), meta(3, 4, dtype="bool"))
    check_error(lambda t, x: t.topk(x, 3, out=(t.tensor([0.0]), t.tensor([0], dtype=t.int32))), Input(ties(3, 7), "float32"))


@pytest.mark.parametrize("case", [
    lambda t, x: x.topk(5),                 # k > size
    lambda t, x: x.topk(-1),
    lambda t, x: x.topk(1, dim=2),
])
def test_topk_errors(case):
    check_error(case, Input(randn(2, 4), "float32"))


def test_topk_dtype_errors():
    check_error(lambda t, x: x.topk(1), Input([True, False], "bool"))
    check_error(lambda t, x: x.topk(1), Input([1j, 2], "complex64"))
    check_error(lambda t, x: x.topk(3), Input([True, False], "bool"))
    check_error(lambda t, x: x.topk(5), meta(3, 4))



# --- what a TorchDispatchMode sees ------------------------------------------------------------------


def seen_ops(lib, fn, *inputs):
    """(op, non-tensor args, kwargs) for every op a TorchDispatchMode sees while fn runs."""
    python_dispatch = __import__(lib.__name__ + ".utils._python_dispatch", fromlist=["TorchDispatchMode"])
    tensor_types = (torch.Tensor, torchpy.Tensor)
    seen = []

    def plain(v):
        if isinstance(v, tensor_types):
            return "T"
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        return v if v is None or isinstance(v, (int, float, bool, str)) else str(v)


    class Recorder(python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append((str(func), [plain(a) for a in args], {k: plain(v) for k, v in (kwargs or {}).items()}))
            return func(*args, **(kwargs or {}))

    args = [x.make(lib) for x in inputs]
    with Recorder():
        fn(lib, *args)
    return seen


@pytest.mark.parametrize("fn", [
    lambda t, x, o: x.argsort(),                                    # argsort decomposes into sort
    lambda t, x, o: t.argsort(x, 0, True),
    lambda t, x, o: t.argsort(x, stable=True, dim=0),
    lambda t, x, o: t.argsort(x, stable=True, out=o),               # ... and empty + sort.values_stable
    lambda t, x, o: t.msort(x),
    lambda t, x, o: x.sort(1, True),
    lambda t, x, o: x.sort(stable=False),
    lambda t, x, o: x.topk(2, largest=False),
])
def test_dispatch_mode_sees_torchs_ops(fn):
    inputs = (Input(ties(3, 4), "float32"), Input([0], "int64"))
    assert seen_ops(torchpy, fn, *inputs) == seen_ops(torch, fn, *inputs)


def test_sort_outputs_keep_a_transposed_input_layout():
    data = ties(4, 3).astype(np.float32)
    check(lambda t: [r.stride() for r in t.from_numpy(data.T.copy().T).sort(0)])
    check(lambda t: [r.stride() for r in t.from_numpy(data.T).sort(1, descending=True)])
    check(lambda t: [r.stride() for r in t.from_numpy(data).sort(0)])


def test_version_counters_bump_once_per_write():
    def versions(t, x):
        values, indices, order = t.tensor([0.0]), t.tensor([0]), t.tensor([0])
        t.sort(x, out=(values, indices))
        t.argsort(x, stable=True, out=order)
        t.topk(x, 2, out=(values, indices))
        return [values._version, indices._version, order._version]

    check(versions, Input(ties(3, 4), "float32"))


def test_fast_method_forms_agree_with_torch():
    x = Input(ties(4, 6), "float32")
    check(lambda t, x: x.sort(0, True), x)
    check(lambda t, x: x.sort(-1, False), x)
    check(lambda t, x: x.argsort(1, True), x)
    check(lambda t, x: x.topk(2, 0, False, True), x)
    check(lambda t, x: x.topk(3, -1, True), x)
    check(lambda t, x: x.topk(k=2), x)
    check_error(lambda t, x: x.topk(), x, match_message=False)  # the binding's TypeError text is python_api's
    check_error(lambda t, x: x.sort(1.0), x, match_message=False)
