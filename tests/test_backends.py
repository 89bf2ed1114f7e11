"""The modules a training script touches on its way in, against torch's CPU build: torch.cuda,
torch.backends (cudnn, mps, cpu), torch.accelerator, torch.onnx and the deterministic-algorithms
switches."""

import pytest
import torch

import torchpy

LIBS = [torch, torchpy]


def _outcome(fn, *args, **kwargs):
    """What a call gives: ("ok", value) or (exception type name, message)."""
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as e:  # noqa: BLE001  (the comparison is the point)
        return (type(e).__name__, str(e))


@pytest.mark.parametrize("call", [
    lambda t: t.cuda.is_available(),
    lambda t: t.cuda.device_count(),
    lambda t: t.cuda.is_initialized(),
    lambda t: t.cuda.manual_seed(3),
    lambda t: t.cuda.manual_seed_all(3),
    lambda t: t.cuda.seed(),
    lambda t: t.cuda.seed_all(),
    lambda t: t.cuda.empty_cache(),
    lambda t: t.cuda.memory_allocated(),
    lambda t: t.cuda.is_bf16_supported(),
    lambda t: t.cuda.synchronize(),
    lambda t: t.cuda.current_device(),
    lambda t: t.cuda.initial_seed(),
    lambda t: t.cuda.get_rng_state(),
    lambda t: t.cuda.get_device_name(),
    lambda t: t.cuda._initialized,
])
def test_cuda_module_as_torchs_cpu_build(call):
    assert _outcome(call, torchpy) == _outcome(call, torch)


@pytest.mark.parametrize("call", [
    lambda t: t.zeros(1, device="cuda"),
    lambda t: t.tensor([1.0], device="cuda:0"),
    lambda t: t.ones(2).to("cuda"),
    lambda t: t.randn(2, device=t.device("cuda")),
])
def test_a_cuda_tensor_is_refused_with_torchs_error(call):
    assert _outcome(call, torchpy) == _outcome(call, torch) == ("AssertionError", "Torch not compiled with CUDA enabled")


def test_cuda_seeding_leaves_the_cpu_stream_alone():
    for t in LIBS:
        t.manual_seed(5)
        t.cuda.manual_seed_all(123)
        t.cuda.manual_seed(7)
    torchpy.testing.assert_close(torchpy.rand(4), torchpy.tensor(torch.rand(4).numpy()))


def test_cudnn_flags_read_and_set_as_torch():
    for t in LIBS:
        c = t.backends.cudnn
        assert (c.enabled, c.benchmark, c.deterministic, c.allow_tf32, c.benchmark_limit) == (True, False, False, True, None)
        assert c.is_available() is False and c.version() is None
        c.benchmark, c.deterministic = True, True
        assert (c.benchmark, c.deterministic) == (True, True)
        with c.flags(enabled=False, deterministic=False):
            assert (c.enabled, c.benchmark, c.deterministic, c.benchmark_limit) == (False, False, False, None)
        assert (c.enabled, c.benchmark, c.deterministic) == (True, True, True)
        c.benchmark, c.deterministic = False, False


def test_mps_cpu_and_accelerator_report_torchs_answers():
    for name in ("is_available", "is_built"):
        assert getattr(torchpy.backends.mps, name)() == getattr(torch.backends.mps, name)()
    assert torchpy.backends.cpu.get_cpu_capability() == torch.backends.cpu.get_cpu_capability()
    for call in (lambda t: t.accelerator.is_available(), lambda t: t.accelerator.current_accelerator(),
                 lambda t: t.accelerator.current_accelerator(True), lambda t: t.accelerator.device_count(),
                 lambda t: t.accelerator.current_device_index(), lambda t: t.accelerator.synchronize()):
        assert _outcome(call, torchpy) == _outcome(call, torch)


def test_cpu_capability_follows_aten_cpu_capability(monkeypatch):
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    assert torchpy.backends.cpu.get_cpu_capability() == "DEFAULT"


def test_onnx_is_importable_and_export_refuses_clearly():
    import torchpy.onnx

    with pytest.raises(NotImplementedError, match="torchpy does not export ONNX"):
        torchpy.onnx.export(torchpy.nn.Linear(2, 2), (torchpy.ones(1, 2),), "model.onnx")
    assert torchpy.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export()


@pytest.fixture
def restore_determinism():
    yield
    for t in LIBS:
        t.use_deterministic_algorithms(False)


def _determinism(t):
    return (t.are_deterministic_algorithms_enabled(), t.is_deterministic_algorithms_warn_only_enabled(),
            t.get_deterministic_debug_mode())


@pytest.mark.parametrize("step", [
    lambda t: t.use_deterministic_algorithms(True),
    lambda t: t.use_deterministic_algorithms(True, warn_only=True),
    lambda t: t.use_deterministic_algorithms(False, warn_only=True),
    lambda t: t.set_deterministic_debug_mode("warn"),
    lambda t: t.set_deterministic_debug_mode("error"),
    lambda t: t.set_deterministic_debug_mode(1),
    lambda t: t.set_deterministic_debug_mode(0),
    lambda t: t.set_deterministic_debug_mode("bogus"),
    lambda t: t.set_deterministic_debug_mode(3),
    lambda t: t.set_deterministic_debug_mode(1.5),
    lambda t: t.use_deterministic_algorithms("yes"),
])
def test_deterministic_switches_as_torch(step, restore_determinism):
    for t in LIBS:
        t.use_deterministic_algorithms(True)  # a state to change from
    assert _outcome(step, torchpy) == _outcome(step, torch)
    assert _determinism(torchpy) == _determinism(torch)


@pytest.mark.parametrize("call", [
    lambda t: t.ones(2).cuda(),
    lambda t: t.ones(2).cuda(0),
    lambda t: t.ones(2).cuda("cuda:0"),
    lambda t: t.nn.Linear(2, 2).cuda(),
    lambda t: repr(t.nn.ReLU().cuda()),
])
def test_cuda_methods_refuse_as_torchs_cpu_build(call):
    assert _outcome(call, torchpy) == _outcome(call, torch)
