"""The whole op table against torch's: every op torchpy defines has torch's schema, tags and
kernels at the same keys (so dispatch modes and decompositions see what they see in torch)."""

import pytest
import torch

import torchpy
from torchpy._aten.build import NATIVE_FUNCTIONS

OPS = sorted(entry.qualified_name for entry in NATIVE_FUNCTIONS)
# Which ops decompose (CompositeImplicitAutograd) decides what a dispatch mode sees, so it
# must match exactly. (Torch also registers Python meta kernels beside many
# CompositeExplicitAutograd ones; that is an implementation detail we do not copy.)
# Known differences, out= factories that torch decomposes or registers per backend:
KNOWN_CIA_DIFFERENCES = {"aten::empty.out", "aten::randn.out", "aten::randn.generator_out",
                         "aten::rand.generator_out"}


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


def test_composite_implicit_ops_are_torchs():
    key = "CompositeImplicitAutograd"
    differ = {q for q in OPS
              if torchpy._C._dispatch_has_kernel_for_dispatch_key(q, key)
              != torch._C._dispatch_has_kernel_for_dispatch_key(q, key)}
    assert differ == KNOWN_CIA_DIFFERENCES


def test_tags_are_torchs():
    def names(tags):
        return sorted(str(t).split(".")[-1] for t in tags)

    differ = [q for q in OPS if names(_torchpy_op(q).tags) != names(_torch_op(q).tags)]
    assert differ == []
