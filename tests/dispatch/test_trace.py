"""The dispatch trace: one indented line per call and redispatch."""

import io
import os
import subprocess
import sys

import torchpy
from torchpy._dispatch import keys as K
from torchpy._dispatch.keys import DispatchKey, DispatchKeySet
from torchpy._dispatch import ops

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
    # the hook sits on the caches' miss path: with no trace there is none, and calls hit the caches
    with torchpy.dispatch_trace(io.StringIO()):
        assert ops._trace_hook is not None
    assert ops._trace_hook is None
    ns, lib, op = _define_two_level_op()
    op(cpu_tensor())
    assert op._entry.cache
    lib._destroy()


_WARM_AND_COLD = """
import io, torchpy
x = torchpy.tensor([1.0, 2.0])
def traced(program):
    out = io.StringIO()
    with torchpy.dispatch_trace(out):
        program()
    return out.getvalue()
for program in (lambda: x.exp(), lambda: x + x, lambda: torchpy.add(x, 2), lambda: x[0], lambda: x.view(2, 1)):
    cold = traced(program)  # nothing called before in this process: every cache cold
    for _ in range(3):
        program()  # the caches warm
    warm = traced(program)
    assert warm == cold, (cold, warm)
    print(cold)
"""


def test_a_warm_call_traces_as_a_cold_one_with_every_redispatch():
    # a fresh process, so the first trace really meets cold caches
    result = subprocess.run([sys.executable, "-c", _WARM_AND_COLD], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("call aten::exp DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU) "
                               "-> AutogradCPU [backend fallback]"), lines
    assert lines[1].startswith("  redispatch aten::exp DispatchKeySet(CPU) -> CPU [kernel]"), lines
    assert any(line.startswith("  redispatch aten::add.Tensor DispatchKeySet(CPU) -> CPU") for line in lines)
    assert any(line.startswith("  redispatch aten::select.int DispatchKeySet(CPU) -> CPU") for line in lines)
    assert any(line.startswith("  redispatch aten::view DispatchKeySet(CPU) -> CPU") for line in lines)


def test_a_warm_traced_call_in_this_process_shows_its_redispatch():
    x = torchpy.tensor([1.0, 2.0])
    for _ in range(3):
        x.exp()
    out = io.StringIO()
    with torchpy.dispatch_trace(out):
        x.exp()
    lines = out.getvalue().splitlines()
    assert [line.split()[0] for line in lines] == ["call", "redispatch"], lines
    x.exp()  # after the trace the caches fill again
    assert ops.op_for("aten::exp")._entry.call_raw_cache


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
