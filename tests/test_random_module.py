"""torchpy.random and Generator state against torch: states cross over and continue the same
stream (torchpy's generator is torch's mt19937 with its 5056-byte state layout)."""

import io

import numpy as np
import pytest
import torch

import torchpy
import torchpy.random as tpr


def _draws(lib, generator=None):
    """Draws of every transformation kind: uniform float / double, integers, normal pairs
    (the cached second value of a small randn) and a permutation."""
    kw = {} if generator is None else {"generator": generator}
    return [lib.rand(5, **kw).tolist(), lib.rand(3, dtype=lib.float64, **kw).tolist(),
            lib.randint(0, 1000, (6,), **kw).tolist(), lib.randn(3, **kw).tolist(),
            lib.randperm(7, **kw).tolist()]


def _close(a, b):
    for x, y in zip(a, b):
        np.testing.assert_allclose(np.asarray(x, dtype=float), np.asarray(y, dtype=float), rtol=1e-6, atol=1e-7)


def _to_torch(state):
    return torch.from_numpy(state.numpy().copy())


def _to_torchpy(state):
    return torchpy.from_numpy(state.numpy().copy())


@pytest.mark.parametrize("warmup", [0, 1, 700])  # fresh; mid-block; past a regenerated block
def test_torch_state_continues_in_torchpy(warmup):
    torch.manual_seed(1234)
    torch.rand(warmup)
    torch.randn(1)  # leaves a cached normal value in the state
    state = torch.get_rng_state()
    expected = _draws(torch)
    tpr.set_rng_state(_to_torchpy(state))
    _close(_draws(torchpy), expected)


@pytest.mark.parametrize("warmup", [0, 5, 1000])
def test_torchpy_state_continues_in_torch(warmup):
    tpr.manual_seed(99)
    torchpy.rand(warmup)
    torchpy.randn(3)
    state = tpr.get_rng_state()
    assert state.dtype == torchpy.uint8 and state.shape == (5056,)
    expected = _draws(torchpy)
    torch.set_rng_state(_to_torch(state))
    _close(_draws(torch), expected)


def test_states_are_byte_identical():
    torch.manual_seed(7)
    tpr.manual_seed(7)
    for lib in (torch, torchpy):
        lib.rand(10)
        lib.randint(0, 5, (3,))
    assert tpr.get_rng_state().tolist() == torch.get_rng_state().tolist()


def test_generator_get_set_state_round_trip():
    g = torchpy.Generator().manual_seed(5)
    torchpy.rand(4, generator=g)
    torchpy.randn(1, generator=g)
    state = g.get_state()
    first = _draws(torchpy, g)
    g.set_state(state)
    assert _draws(torchpy, g) == first
    other = torchpy.Generator()
    other.set_state(state)
    assert _draws(torchpy, other) == first
    reference = torch.Generator()
    reference.set_state(_to_torch(state))
    _close(_draws(torch, reference), first)


def test_state_through_a_checkpoint():
    torch.manual_seed(3)
    buffer = io.BytesIO()
    torch.save({"rng": torch.get_rng_state()}, buffer)
    expected = torch.rand(4).tolist()
    buffer.seek(0)
    tpr.set_rng_state(torchpy.load(buffer)["rng"])
    assert torchpy.rand(4).tolist() == expected


def test_fork_rng():
    tpr.manual_seed(11)
    before = tpr.get_rng_state()
    with tpr.fork_rng():
        torchpy.rand(100)
        tpr.manual_seed(0)
    assert tpr.get_rng_state().tolist() == before.tolist()
    assert tpr.initial_seed() == 11
    with tpr.fork_rng(enabled=False):
        torchpy.rand(1)
    assert tpr.get_rng_state().tolist() != before.tolist()
    with tpr.fork_rng(devices=[]):
        torchpy.rand(1)
    with tpr.fork_rng(device_type="meta"):
        pass


def test_seed_functions():
    g = tpr.manual_seed(2**40 + 3)
    assert g is torchpy.default_generator
    assert tpr.initial_seed() == 2**40 + 3 == torch.manual_seed(2**40 + 3).initial_seed()
    assert tpr.manual_seed(-1).initial_seed() == torch.manual_seed(-1).initial_seed()
    s = tpr.seed()
    assert tpr.initial_seed() == s and 0 <= s < 2**64
    assert tpr.thread_safe_generator() is None and torch.random.thread_safe_generator() is None


def test_bad_state_refused_as_torch():
    with pytest.raises(RuntimeError) as ours:
        tpr.set_rng_state(torchpy.zeros(10, dtype=torchpy.uint8))
    with pytest.raises(RuntimeError) as theirs:
        torch.set_rng_state(torch.zeros(10, dtype=torch.uint8))
    assert str(ours.value) == str(theirs.value)
