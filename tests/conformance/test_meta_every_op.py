"""Every op with a Meta kernel: its meta result has torch's sizes, strides, dtype and storage
offset, and the metadata of torchpy's own CPU result.

Samples are built from each schema (tests/conformance/meta_samples.py): the first argument list
that torch accepts on meta and on CPU, then the same with every 2-d+ input laid out transposed,
and with every dim counted from the end. Nothing is skipped silently: an op whose sample cannot
be built, or that torch cannot run on meta, is in NOT_COVERABLE with the reason, and that list
may not grow.
"""

from __future__ import annotations

import functools
import warnings

import pytest
import torch

from tests.conformance import meta_samples as ms
from torchpy._aten.build import NATIVE_FUNCTIONS

ENTRIES = {entry.qualified_name: entry for entry in NATIVE_FUNCTIONS if "Meta" in entry.dispatch}

# Ops no sample can cover, and why. The count is pinned below: fix an op rather than list it.
NOT_COVERABLE = {
    "aten::_local_scalar_dense": "reads the value: torch's meta refuses ('Tensor.item() cannot be called on meta tensors')",
    "aten::nonzero": "torch has no meta rule: the output size depends on the values",
    "aten::nonzero.out": "torch has no meta rule: the output size depends on the values",
}
MAX_NOT_COVERABLE = 3

# Known differences between torchpy's meta result and torch's: (op, variant) -> reason.
_OUT_LAYOUT = ("an out= tensor that torch resizes takes the layout of the result torch's kernel computes "
               "(self's, for sort); torchpy's write_out resizes it contiguous")
KNOWN_META: dict[tuple[str, str], str] = {
    ("aten::sort.values", "transposed"): _OUT_LAYOUT,
    ("aten::sort.values_stable", "transposed"): _OUT_LAYOUT,
}
# Known differences between torchpy's meta result and its CPU result where torch's two agree.
KNOWN_CPU: dict[tuple[str, str], str] = {}


@functools.lru_cache(maxsize=None)
def sample(name: str) -> dict | None:
    """The first candidate torch runs on meta and on CPU (else on meta alone); None if none."""
    entry, on_meta = ENTRIES[name], None
    for specs in ms.candidates(entry):
        if not _runs(entry, specs, "meta"):
            continue
        if _runs(entry, specs, "cpu"):
            return specs
        on_meta = on_meta or specs
    return on_meta


def _runs(entry, specs, device) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ms.call(entry, torch, specs, device)
    except Exception:  # noqa: BLE001 - a candidate torch refuses is just not the sample
        return False
    return True


def variants(name: str) -> dict[str, dict]:
    """The sample, and its transposed and dim=-1 forms where they differ from it."""
    specs, entry = sample(name), ENTRIES[name]
    found = {"base": specs}
    if ms.has_transposable(specs):
        found["transposed"] = {k: ms.transposed(v) for k, v in specs.items()}
    dims = ms.with_dims(specs, entry)
    if dims is not None:
        found["dim-1"] = dims
    return found


def _metadata(entry, lib, specs, device):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ms.metadata(ms.call(entry, lib, specs, device))


def _cases(known: dict[tuple[str, str], str]) -> list:
    cases = []
    for name in sorted(ENTRIES):
        if name in NOT_COVERABLE:
            continue
        for variant in ("base", "transposed", "dim-1"):
            reason = known.get((name, variant))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cases.append(pytest.param(name, variant, marks=marks, id=f"{name}-{variant}"))
    return cases


def test_every_meta_op_is_covered_or_listed():
    assert len(ENTRIES) > 400
    assert len(NOT_COVERABLE) <= MAX_NOT_COVERABLE, "fix the op's sample or meta rule rather than list it"
    for name in NOT_COVERABLE:
        assert name in ENTRIES, f"{name} is listed but has no Meta kernel"
        assert sample(name) is None, f"{name} has a sample now: take it off NOT_COVERABLE"
    for name in ENTRIES.keys() - NOT_COVERABLE.keys():
        assert sample(name) is not None, f"no sample of {name} runs on torch's meta: add an override"
    assert set(KNOWN_META) | set(KNOWN_CPU) <= {(n, v) for n in ENTRIES for v in ("base", "transposed", "dim-1")}


@pytest.mark.parametrize("name, variant", _cases(KNOWN_META))
def test_meta_matches_torch(name, variant):
    specs = variants(name).get(variant)
    if specs is None:
        return  # the op has no transposable input or no dim: the base case covers it
    entry = ENTRIES[name]
    try:
        theirs = _metadata(entry, torch, specs, "meta")
    except Exception:  # noqa: BLE001
        return  # torch refuses this form (a transposed input, dim=-1) of an op it runs in base form
    import torchpy

    assert _metadata(entry, torchpy, specs, "meta") == theirs


@pytest.mark.parametrize("name, variant", _cases(KNOWN_CPU))
def test_meta_matches_own_cpu(name, variant):
    """Where torch's meta and CPU results agree, torchpy's agree too (the meta rule describes
    what the CPU kernel allocates)."""
    import torchpy

    specs = variants(name).get(variant)
    if specs is None:
        return
    entry = ENTRIES[name]
    try:
        theirs_meta = _metadata(entry, torch, specs, "meta")
        theirs_cpu = _metadata(entry, torch, specs, "cpu")
    except Exception:  # noqa: BLE001
        return  # torch runs this form on meta only (a data-dependent check on CPU)
    if theirs_meta != theirs_cpu:
        return  # torch's own meta and CPU layouts differ: test_meta_matches_torch covers the meta side
    assert _metadata(entry, torchpy, specs, "meta") == _metadata(entry, torchpy, specs, "cpu")
