"""NumPy's floating-point warnings never reach the user, as torch gives none, whatever the
warnings filters and NumPy's error state say; and the kernels skip setting the error state
exactly when the warnings filter makes that safe (torchpy/_tensor/fp_warnings.py)."""

import math
import warnings

import numpy as np
import pytest
import torch

import torchpy
from torchpy._aten.kernels import elementwise
from torchpy._tensor import fp_warnings


def _programs(lib):
    big = lib.tensor([3e38, -1.0, 0.0, 1.0])
    other = lib.tensor([3e38, 0.0, 0.0, -1.0])
    return [
        big + big, big - (-big), big * other, big / other, other / big, big * 1e38, big - big * 2,
        lib.exp(big), lib.log(other), lib.sqrt(-big), lib.tensor([1e20], dtype=lib.float16),
        lib.tensor([1e300], dtype=lib.float32),
    ]


def _values(results):
    # float32 exp / log round differently in NumPy and torch: compare to 6 significant digits
    return [[None if math.isnan(v) else v if math.isinf(v) or v == 0 else float(f"{v:.6g}") for v in r.tolist()]
            for r in results]


@pytest.mark.parametrize("setting", ["as imported", "always", "error", "errstate raise", "errstate print",
                                     "errstate call"])
def test_overflow_and_invalid_values_are_silent_and_computed_as_torch(setting, capsys):
    expected = _values(_programs(torch))
    calls = []
    with warnings.catch_warnings(record=True) as shown:
        if setting in ("always", "error"):
            warnings.simplefilter(setting)
        if setting.startswith("errstate"):  # (np.errstate restores NumPy's state on leaving)
            with np.errstate(all=setting.split()[1], call=lambda kind, flag: calls.append(kind)):
                ours = _values(_programs(torchpy))
        else:
            ours = _values(_programs(torchpy))
    assert ours == expected
    assert [str(w.message) for w in shown] == [] and calls == [] and capsys.readouterr().out == ""


def test_the_filter_verdict_follows_every_change_of_the_filters():
    assert warnings.filters[-1] is fp_warnings._OURS  # in place, although pytest imported torchpy
    # inside one of its catch_warnings blocks
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ignoring in front of ours is harmless
        warnings.simplefilter("always", DeprecationWarning)  # so is another category
        warnings.filterwarnings("always", category=RuntimeWarning, module="somebody_else")  # or module
        assert fp_warnings.FILTER_HOLDS[0] and fp_warnings.silent()
        warnings.simplefilter("always", RuntimeWarning)  # this one would show ours
        assert not fp_warnings.FILTER_HOLDS[0]
        warnings.filterwarnings("ignore", category=RuntimeWarning)  # now ignored again first
        assert fp_warnings.FILTER_HOLDS[0]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert not fp_warnings.FILTER_HOLDS[0]
        assert fp_warnings.FILTER_HOLDS[0]  # leaving catch_warnings restores the list, and the verdict
        warnings.resetwarnings()  # ours is put back, alone
        assert warnings.filters == [fp_warnings._OURS] and fp_warnings.FILTER_HOLDS[0]
        warnings.filters.remove(fp_warnings._OURS)
        warnings.simplefilter("ignore", DeprecationWarning)  # a change puts it back, last
        assert warnings.filters[-1] is fp_warnings._OURS and fp_warnings.FILTER_HOLDS[0]
    with np.errstate(over="ignore"):  # not NumPy's default state: the filter alone is not relied on
        assert not fp_warnings.silent()


def test_kernels_set_the_error_state_only_when_the_filter_does_not_hold(monkeypatch):
    sets = []
    real_set = elementwise._set_quiet

    def counting_set(state):
        sets.append(state)
        return real_set(state)

    monkeypatch.setattr(elementwise, "_set_quiet", counting_set)
    a, b = torchpy.tensor([1.0, 2.0]), torchpy.tensor([3.0, 4.0])

    def count(fn):
        sets.clear()
        fn()
        return len(sets)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert fp_warnings.FILTER_HOLDS[0]
        assert [count(lambda: a + b), count(lambda: a * 2.0), count(lambda: torchpy.exp(a))] == [0, 0, 0]
        with np.errstate(all="ignore"):
            assert count(lambda: a + b) == 1
        warnings.simplefilter("error")
        assert [count(lambda: a + b), count(lambda: a * 2.0), count(lambda: torchpy.exp(a))] == [1, 1, 1]
