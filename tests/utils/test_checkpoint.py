"""torchpy.utils.checkpoint against torch.utils.checkpoint: the same gradients as the run without
checkpointing, the same aten calls re-run during backward (a dispatch mode sees them), the same
warnings and errors."""

import warnings

import numpy as np
import pytest
import torch
import torch.utils.checkpoint as torch_checkpoint
from torch.utils._python_dispatch import TorchDispatchMode as TorchMode

import torchpy
import torchpy.utils.checkpoint as torchpy_checkpoint
from torchpy.utils._python_dispatch import TorchDispatchMode as TorchpyMode

LIBS = [(torch, torch_checkpoint, TorchMode), (torchpy, torchpy_checkpoint, TorchpyMode)]


def _logger(base):
    class Log(base):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(str(func))
            return func(*args, **(kwargs or {}))

    return Log()


def _block(t, x, w):
    y = t.sin(x @ w)
    z = t.exp(y) * y
    return z.tanh()


def _inputs(t):
    x = t.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4), requires_grad=True)
    w = t.tensor(np.linspace(-0.5, 0.7, 20, dtype=np.float32).reshape(4, 5), requires_grad=True)
    return x, w


@pytest.mark.parametrize("reentrant", [True, False])
def test_backward_reruns_the_forward_ops_as_torch(reentrant):
    seen = []
    for t, cp, mode in LIBS:
        x, w = _inputs(t)
        out = cp.checkpoint(lambda a, b: _block(t, a, b), x, w, use_reentrant=reentrant)
        log = _logger(mode)
        with log:
            out.sum().backward()
        seen.append(log.ops)
    assert seen[0] == seen[1]
    assert "aten.sin.default" in seen[1]  # the forward did run again


@pytest.mark.parametrize("reentrant", [True, False])
def test_gradients_equal_the_run_without_checkpoint(reentrant):
    x, w = _inputs(torchpy)
    _block(torchpy, x, w).sum().backward()
    plain = (x.grad.numpy().copy(), w.grad.numpy().copy())
    x, w = _inputs(torchpy)
    torchpy_checkpoint.checkpoint(lambda a, b: _block(torchpy, a, b), x, w,
                                  use_reentrant=reentrant).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), plain[0])
    np.testing.assert_array_equal(w.grad.numpy(), plain[1])
    tx, tw = _inputs(torch)
    torch_checkpoint.checkpoint(lambda a, b: _block(torch, a, b), tx, tw, use_reentrant=reentrant).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_non_reentrant_works_with_autograd_grad_and_kwargs():
    results = []
    for t, cp, _ in LIBS:
        x, w = _inputs(t)
        out = cp.checkpoint(lambda a, b, scale=1.0: _block(t, a, b) * scale, x, w, scale=2.0,
                            use_reentrant=False)
        gx, = t.autograd.grad(out.sum(), [x])
        results.append(gx.detach().numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5, atol=1e-6)


def test_reentrant_refuses_autograd_grad_with_torchs_message():
    messages = []
    for t, cp, _ in LIBS:
        x, w = _inputs(t)
        out = cp.checkpoint(lambda a, b: _block(t, a, b), x, w, use_reentrant=True)
        with pytest.raises(RuntimeError) as info:
            t.autograd.grad(out.sum(), [x])
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert torchpy.autograd._is_checkpoint_valid()  # outside a backward pass: valid


def test_preserve_rng_state_replays_the_same_random_numbers():
    for preserve in (True, False):
        results = []
        for t, cp, _ in LIBS:
            t.manual_seed(0)
            x = t.ones(6, requires_grad=True)
            out = cp.checkpoint(lambda a: a * t.rand(6), x, use_reentrant=False, preserve_rng_state=preserve)
            out.sum().backward()
            results.append((out.detach().numpy(), x.grad.numpy()))
        np.testing.assert_array_equal(results[0][0], results[1][0])
        np.testing.assert_array_equal(results[0][1], results[1][1])
        # preserved: the gradient is exactly the forward's random factor
        assert np.array_equal(results[1][0], results[1][1]) == preserve


def test_omitting_use_reentrant_warns_as_torch_and_defaults_to_reentrant():
    texts = []
    for t, cp, _ in LIBS:
        x, w = _inputs(t)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = cp.checkpoint(lambda a, b: _block(t, a, b), x, w)
            cp.checkpoint_sequential([t.nn.ReLU()] * 2, 1, x)
        texts.append([str(c.message) for c in caught])
        assert type(out.grad_fn).__name__ == "CheckpointFunctionBackward"
    assert texts[0] == texts[1] and len(texts[0]) == 2


def test_option_errors_match_torch():
    cases = [
        dict(use_reentrant=True, context_fn=lambda: (None, None)),
        dict(use_reentrant=True, debug=True),
        dict(use_reentrant=True, extra=1),
        dict(use_reentrant=False, determinism_check="bogus"),
    ]
    for kwargs in cases:
        messages = []
        for t, cp, _ in LIBS:
            x, w = _inputs(t)
            with pytest.raises(ValueError) as info:
                cp.checkpoint(lambda a, b, **_: _block(t, a, b), x, w, **kwargs)
            messages.append(str(info.value))
        assert messages[0] == messages[1], kwargs


def test_context_fn_runs_its_contexts_around_forward_and_recompute():
    logs = []
    for t, cp, mode in LIBS:
        fwd, rec = _logger(mode), _logger(mode)
        x, w = _inputs(t)
        out = cp.checkpoint(lambda a, b: _block(t, a, b), x, w, use_reentrant=False, context_fn=lambda: (fwd, rec))
        out.sum().backward()
        logs.append((fwd.ops, rec.ops))
    assert logs[0] == logs[1]
    assert logs[1][0][:2] == ["aten.mm.default", "aten.sin.default"]


def _nondeterministic(t, counter):
    def fn(a):
        counter.append(1)
        return a[: len(counter)].sin()  # a different shape on the re-run
    return fn


def test_determinism_check_reports_changed_metadata():
    messages = []
    for t, cp, _ in LIBS:
        x = t.ones(4, requires_grad=True)
        out = cp.checkpoint(_nondeterministic(t, []), x, use_reentrant=False)
        with pytest.raises(cp.CheckpointError) as info:
            out.sum().backward()
        messages.append(str(info.value).split("\n.\n")[0])
    assert messages[0] == messages[1]
    assert "saved metadata" in messages[1]
    # determinism_check="none": no check (the shapes then fail in backward itself, or not)
    x = torchpy.ones(4, requires_grad=True)
    out = torchpy_checkpoint.checkpoint(lambda a: (a * 2).sin(), x, use_reentrant=False, determinism_check="none")
    out.sum().backward()


def test_debug_lists_the_operators_of_both_runs():
    x = torchpy.ones(4, requires_grad=True)
    out = torchpy_checkpoint.checkpoint(_nondeterministic(torchpy, []), x, use_reentrant=False, debug=True)
    with pytest.raises(torchpy_checkpoint.CheckpointError) as info:
        out.sum().backward()
    text = str(info.value)
    assert "Operations executed during the original forward" in text and "aten.sin.default" in text


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_sequential_matches_torch(reentrant):
    grads, ops = [], []
    for t, cp, mode in LIBS:
        t.manual_seed(0)
        model = t.nn.Sequential(t.nn.Linear(4, 6), t.nn.ReLU(), t.nn.Linear(6, 6), t.nn.ReLU(),
                                t.nn.Linear(6, 3))
        with t.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(t.tensor(np.sin(np.arange(p.numel(), dtype=np.float32) + i).reshape(tuple(p.shape))))
        x = t.tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4), requires_grad=True)
        out = cp.checkpoint_sequential(model, 2, x, use_reentrant=reentrant)
        log = _logger(mode)
        with log:
            out.sum().backward()
        grads.append([p.grad.numpy() for p in model.parameters()] + [x.grad.numpy()])
        ops.append(log.ops)
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)
    assert ops[0] == ops[1]


def test_saved_tensor_hooks_see_what_torch_passes_them():
    """Pack hooks get inputs before the op runs and outputs with their history; every unpack is
    handed back through an aten detach (the checkpoint's re-run order rests on both)."""
    seen = []
    for t, _, mode in LIBS:
        events = []

        def pack(x):
            events.append(("pack", x.requires_grad, x.grad_fn is not None))
            return x

        def unpack(x):
            events.append(("unpack", x.requires_grad))
            return x

        x = t.tensor([0.5, 1.0, 1.5], requires_grad=True)
        log = _logger(mode)
        with log, t.autograd.graph.saved_tensors_hooks(pack, unpack):
            z = x.sin().exp()
        with log:
            z.sum().backward()
        seen.append((events, log.ops, x.grad.numpy().tolist()))
    assert seen[0][:2] == seen[1][:2]
    np.testing.assert_allclose(seen[1][2], seen[0][2], rtol=1e-6)


def test_retain_graph_reruns_and_double_backward_through_non_reentrant_as_torch():
    results = []
    for t, cp, _ in LIBS:
        x = t.tensor([0.5, 1.0, 2.0], requires_grad=True)
        out = cp.checkpoint(lambda a: (a.sin() * a).exp(), x, use_reentrant=False)
        out.sum().backward(retain_graph=True)
        out.sum().backward()  # a second pass re-runs the forward again
        twice = x.grad.detach().numpy().copy()
        x = t.tensor([0.5, 1.0, 2.0], requires_grad=True)
        out = cp.checkpoint(lambda a: (a.sin() * a).exp(), x, use_reentrant=False)
        g, = t.autograd.grad(out.sum(), x, create_graph=True)
        gg, = t.autograd.grad(g.sum(), x)  # the unpacked tensors carry their history again
        results.append((twice, gg.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-5)


def test_double_backward_through_saved_tensor_hooks_as_torch():
    results = []
    for t, _, _ in LIBS:
        x = t.tensor([0.5, 1.0, 2.0], requires_grad=True)
        with t.autograd.graph.saved_tensors_hooks(lambda v: v.detach(), lambda v: v):
            y = (x.sin() * x).exp()
        g, = t.autograd.grad(y.sum(), x, create_graph=True)
        gg, = t.autograd.grad(g.sum(), x)
        results.append(gg.numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5)
