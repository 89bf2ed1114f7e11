"""The whole op table against torch's: every op torchpy defines has torch's schema, tags and
kernels at the same keys (so dispatch modes and decompositions see what they see in torch)."""

import pytest
import torch

import torchpy
from torchpy._aten.build import NATIVE_FUNCTIONS

OPS = sorted(entry.qualified_name for entry in NATIVE_FUNCTIONS)
# Which key holds an op's kernel decides what a dispatch mode sees (CompositeImplicitAutograd
# decomposes) and where it runs, so it must match torch's. Torch also registers Python meta
# kernels beside many CompositeExplicitAutograd ones, an implementation detail not copied:
# for Meta we require only that the op runs on meta where torch's does.
# Known differences: out= factories that torch decomposes or registers per backend.
KNOWN_DIFFERENCES = {
    "CPU": {"aten::empty.out", "aten::eye.out", "aten::eye.m_out", "aten::randperm.generator_out"},
    "CompositeImplicitAutograd": {"aten::empty.out", "aten::randn.out", "aten::randn.generator_out",
                                  "aten::rand.generator_out"},
    "CompositeExplicitAutograd": {"aten::eye.out", "aten::eye.m_out", "aten::new_empty_strided",
                                  "aten::rand.generator_out", "aten::randn.generator_out", "aten::randn.out",
                                  "aten::randperm.generator_out"},
}


def _has(lib, qualified, key):
    return lib._C._dispatch_has_kernel_for_dispatch_key(qualified, key)


def _torch_op(qualified):
    name, _, overload = qualified.removeprefix("aten::").partition(".")
    return getattr(getattr(torch.ops.aten, name), overload or "default")


def _torchpy_op(qualified):
    name, _, overload = qualified.removeprefix("aten::").partition(".")
    return getattr(getattr(torchpy.ops.aten, name), overload or "default")


def test_the_table_is_large_and_every_op_exists_in_torch():
    assert len(OPS) > 400
    for qualified in OPS:
        assert str(_torchpy_op(qualified)._schema) == str(_torch_op(qualified)._schema)


@pytest.mark.parametrize("key", sorted(KNOWN_DIFFERENCES))
def test_kernels_sit_at_torchs_keys(key):
    differ = {q for q in OPS if _has(torchpy, q, key) != _has(torch, q, key)}
    assert differ == KNOWN_DIFFERENCES[key]


def test_ops_with_a_meta_kernel_in_torch_run_on_meta_here():
    serving_meta = ("Meta", "CompositeExplicitAutograd", "CompositeImplicitAutograd")
    missing = [q for q in OPS if _has(torch, q, "Meta") and not any(_has(torchpy, q, k) for k in serving_meta)]
    assert missing == []


def test_tags_are_torchs():
    def names(tags):
        return sorted(str(t).split(".")[-1] for t in tags)

    differ = [q for q in OPS if names(_torchpy_op(q).tags) != names(_torch_op(q).tags)]
    assert differ == []
