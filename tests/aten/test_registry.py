"""Dispatch keys live only in the YAML: kernel modules register names, entries map keys to names."""

from __future__ import annotations

import ast
import glob
import os

import numpy as np
import pytest

import torchpy
from torchpy._dispatch.keys import DispatchKey
from torchpy._aten import registry
from tests.oracle import Input, check, check_error

KERNELS_DIR = os.path.join(os.path.dirname(torchpy.__file__), "_aten", "kernels")


def test_kernel_modules_state_no_dispatch_keys():
    # A key name written in a kernel module would be a second statement of what the YAML says.
    keys = {key.name for key in DispatchKey} | {"Autograd", "CompositeImplicitAutograd", "CompositeExplicitAutograd",
                                                 "CompositeExplicitAutogradNonFunctional"}
    found = []
    for path in sorted(glob.glob(os.path.join(KERNELS_DIR, "*.py"))):
        with open(path) as f:
            tree = ast.parse(f.read())
        found += [f"{os.path.basename(path)}:{node.lineno} {node.value!r}" for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and node.value in keys]
    assert found == []


def test_a_kernel_name_registers_once():
    with pytest.raises(RuntimeError, match="kernel 'add' registered twice"):
        registry.register("add", lambda *args: None)


def test_a_missing_inplace_or_out_kernel_is_derived_from_the_functional_one():
    assert registry.lookup("no_such_kernel") is None
    assert registry.lookup("relu_") is not None and registry.lookup("relu_out") is not None


# pow is the op whose CPU and Meta kernels differ, so its entry names two kernels:
# CPU refuses bool ** bool, Meta (torch's Python decomposition) gives int64.
def test_pow_bool_on_cpu_is_refused_as_torch_refuses_it():
    check_error(lambda t, x: t.pow(x, x), Input(np.array([True, False]), dtype="bool"))


def test_pow_bool_on_meta_gives_int64_as_torchs_meta_kernel_does():
    result = check(lambda t, x: t.pow(x, x), Input(np.array([True, False]), dtype="bool", device="meta"))
    assert result.dtype == torchpy.int64
