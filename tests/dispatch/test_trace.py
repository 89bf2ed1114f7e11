"""The dispatch trace: one indented line per call and redispatch."""

import io
import os
import subprocess
import sys

import torchpy
from torchpy._dispatch import keys as K
from torchpy._dispatch.keys import DispatchKey, DispatchKeySet
from torchpy._dispatch.ops import OpOverload

from .helpers import cpu_tensor, fresh_namespace


def _define_two_level_op():
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    op = getattr(torchpy.ops, ns).f.default

    def autograd_kernel(keyset, x):
        after = DispatchKeySet.from_raw_repr(K.full_after(DispatchKey.AutogradCPU))
        return op.redispatch(keyset & after, x)

    lib.impl("f", lambda x: "cpu", "CPU")
    lib.impl("f", autograd_kernel, "AutogradCPU", with_keyset=True)
    return ns, lib, op


def test_trace_prints_call_and_redispatch_with_keys_labels_and_locations():
    ns, lib, op = _define_two_level_op()
    out = io.StringIO()
    with torchpy.dispatch_trace(out):
        assert op(cpu_tensor()) == "cpu"
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(
        f"call {ns}::f DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU) "
        f"-> AutogradCPU [kernel] registered at {__file__}:"
    )
    assert lines[1].startswith(f"  redispatch {ns}::f DispatchKeySet(CPU) -> CPU [kernel] registered at {__file__}")
    lib._destroy()


def test_trace_reports_a_missing_kernel_before_the_error():
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    out = io.StringIO()
    with torchpy.dispatch_trace(out):
        try:
            getattr(torchpy.ops, ns).f(cpu_tensor())
        except NotImplementedError:
            pass
    assert out.getvalue().strip().endswith("-> CPU [missing]")
    lib._destroy()


def test_trace_is_off_outside_the_block_and_costs_no_flag():
    plain = OpOverload.__call__
    with torchpy.dispatch_trace(io.StringIO()):
        assert OpOverload.__call__ is not plain
    assert OpOverload.__call__ is plain


def test_environment_variable_turns_tracing_on():
    code = (
        "import torchpy\n"
        "lib = torchpy.library.Library('envtrace', 'DEF')\n"
        "lib.define('f(Tensor x) -> Tensor')\n"
        "lib.impl('f', lambda x: x, 'CPU')\n"
        "class T: _keyset = torchpy._C.DispatchKeySet(torchpy._C.DispatchKey.CPU).raw_repr()\n"
        "torchpy.ops.envtrace.f(T())\n"
    )
    env = dict(os.environ, TORCHPY_DISPATCH_TRACE="1")
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert "call envtrace::f DispatchKeySet(CPU, BackendSelect, ADInplaceOrView) -> CPU [kernel]" in result.stderr


def test_inline_cached_steps_still_show_every_call_under_a_trace():
    # binary dunders and a default-__torch_function__ subclass's dunders skip OpOverload.__call__
    # when no trace is active; under one, each top-level call appears
    Sub = type("Sub", (torchpy.Tensor,), {})
    x = torchpy.tensor([1.0, 2.0])
    s = x.as_subclass(Sub)
    for program in (lambda: x + x, lambda: s + s, lambda: torchpy.add(s, s), lambda: s * x):
        program()  # the caches filled: the inline steps would find their entries
        out = io.StringIO()
        with torchpy.dispatch_trace(out):
            program()
        calls = [line for line in out.getvalue().splitlines() if line.startswith("call ")]
        assert len(calls) == 1 and calls[0].split()[1] in ("aten::add.Tensor", "aten::mul.Tensor"), calls
