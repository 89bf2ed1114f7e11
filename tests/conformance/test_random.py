"""Random numbers against torch: the same seed gives torch's values, Generator objects, the RNG
state, statistics, meta tensors, errors, and what a TorchDispatchMode sees.

Draws that need no transcendental function (integers, uniform floats, permutations) are torch's
bit for bit. Normal draws pass through log, sin and cos (Box-Muller), whose last bit differs
between NumPy's SIMD loops and torch's vectorized float32 ones: the same stream, to a few ulp."""

import warnings

import numpy as np
import pytest
import torch

import torchpy

from .dispatch_log import assert_same_dispatch
from tests.oracle import EXACT, Input, check, check_error, randn, to_numpy, ulp

FLOATS = ["float32", "float64", "float16", "bfloat16"]


def seeded(fn, seed=0):
    """fn(lib) right after lib.manual_seed(seed)."""
    def run(t, *args):
        t.manual_seed(seed)
        return fn(t, *args)
    return run


def normal_draws(std: float = 1.0):
    """sqrt(-2 log u) * cos(2 pi v) * std: a few ulp of the largest term (a standard normal draw
    rarely passes 8), so a value near zero from cos carries its absolute error."""
    return ulp(4, scale=8.0 * std)


# --- torch's streams ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + ["complex64", "complex128"])
@pytest.mark.parametrize("shape", [(5,), (3, 4), (0,), (), (1000,)])
def test_rand_matches_torch(dtype, shape):
    check(seeded(lambda t: t.rand(shape, dtype=getattr(t, dtype)), seed=3), policy=EXACT)


@pytest.mark.parametrize("dtype", FLOATS + ["complex64", "complex128"])
@pytest.mark.parametrize("n", [1, 5, 15, 16, 17, 40, 1000])
def test_randn_matches_torch(dtype, n):
    check(seeded(lambda t: t.randn(n, dtype=getattr(t, dtype)), seed=5), policy=normal_draws())


def test_randn_odd_calls_share_the_cached_second_sample():
    check(seeded(lambda t: [t.randn(3, dtype=t.float64), t.randn(1), t.randn(2, dtype=t.float16), t.rand(2)]),
          policy=normal_draws())

    def reseeded(t):
        first = t.randn(3, dtype=t.float64)  # caches a sample...
        t.manual_seed(0)                     # ...which seeding drops
        return [first, t.randn(1, dtype=t.float64)]

    check(seeded(reseeded), policy=normal_draws())


@pytest.mark.parametrize("args", [(10, (6,)), (3, 17, (2, 3)), (-5, 5, (7,)), (0, 2**40, (4,)),
                                  (-2**63, 2**63 - 1, (3,)), (2**63 - 1, (3,)), (1, (0,))])
def test_randint_matches_torch(args):
    check(seeded(lambda t: t.randint(*args)), policy=EXACT)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                   "float32", "float64", "bool"])
def test_randint_dtypes(dtype):
    high = 2 if dtype == "bool" else 100
    check(seeded(lambda t: t.randint(0, high, (50,), dtype=getattr(t, dtype))), policy=EXACT)


@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000])
@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "float64", "int16"])
def test_randperm_matches_torch(n, dtype):
    check(seeded(lambda t: t.randperm(n, dtype=getattr(t, dtype))), policy=EXACT)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                   "float32", "float64", "bool"])
def test_random_in_place_forms(dtype):
    check(seeded(lambda t: t.empty(20, dtype=getattr(t, dtype)).random_()), policy=EXACT)
    check(seeded(lambda t: t.empty(20, dtype=getattr(t, dtype)).random_(2)), policy=EXACT)
    if dtype != "bool":
        check(seeded(lambda t: t.empty(20, dtype=getattr(t, dtype)).random_(3, None)), policy=EXACT)
        check(seeded(lambda t: t.empty(20, dtype=getattr(t, dtype)).random_(1, 7)), policy=EXACT)


def test_random_full_int64_range():
    check(seeded(lambda t: t.empty(5, dtype=t.int64).random_(-2**63, None)), policy=EXACT)


@pytest.mark.parametrize("dtype", FLOATS + ["complex64"])
@pytest.mark.parametrize("bounds", [(0.1, 0.7), (-3.3, 1000.3), (2, 5), (1e4, 1e4 + 100), (3, 3)])
def test_uniform_matches_torch(dtype, bounds):
    check(seeded(lambda t: t.empty(3000, dtype=getattr(t, dtype)).uniform_(*bounds)), policy=EXACT)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [7, 64])
def test_normal_matches_torch(dtype, n):
    check(seeded(lambda t: t.empty(n, dtype=getattr(t, dtype)).normal_(2.5, 0.5)), policy=normal_draws(0.5))


def test_values_go_in_memory_order():
    # A transposed destination is filled in storage order, and the scalar normal path is used
    # for it (it is not contiguous).
    def fill(t, how):
        base = t.from_numpy(np.zeros((4, 6), np.float32))
        view = t.from_numpy(base.numpy().T) if t is torchpy else base.t()
        getattr(view, how)()
        return base

    for how in ("uniform_", "normal_", "random_"):
        check(seeded(lambda t: fill(t, how)), policy=normal_draws() if how == "normal_" else EXACT)


@pytest.mark.parametrize("fn", ["rand_like", "randn_like"])
def test_like_forms(fn):
    x = Input(randn(3, 4, 5), "float64", noncontiguous=True)
    policy = normal_draws() if fn == "randn_like" else EXACT
    check(seeded(lambda t, a: getattr(t, fn)(a)), x, policy=policy)
    check(seeded(lambda t, a: getattr(t, fn)(a, dtype=t.float16)), x, policy=policy)
    check(seeded(lambda t, a: getattr(t, fn)(a).stride()), Input(np.zeros((4, 5), np.float32).T))


def test_randint_like():
    x = Input(randn(3, 4), "float32", noncontiguous=True)
    check(seeded(lambda t, a: t.randint_like(a, 5)), x, policy=EXACT)
    check(seeded(lambda t, a: t.randint_like(a, -3, 5, dtype=t.int16)), x, policy=EXACT)
    check(seeded(lambda t, a: t.randint_like(a, 10)), Input([[1, 2], [3, 4]], "int32"), policy=EXACT)


def test_out_forms():
    check(seeded(lambda t: t.rand(2, 3, out=t.empty(0, dtype=t.float64))), policy=EXACT)
    check(seeded(lambda t: t.randn(20, out=t.empty(20, dtype=t.float64))), policy=normal_draws())
    check(seeded(lambda t: t.randint(5, (2, 3), out=t.empty(0, dtype=t.float32))), policy=EXACT)
    check(seeded(lambda t: t.randint(-2, 5, (4,), out=t.empty(4, dtype=t.int8))), policy=EXACT)
    check(seeded(lambda t: t.randperm(6, out=t.empty(0, dtype=t.int32))), policy=EXACT)


# --- generators and the RNG state ----------------------------------------------------------

def test_generator_objects():
    check(lambda t: t.Generator().initial_seed())
    check(lambda t: t.Generator().manual_seed(-1).initial_seed())
    check(lambda t: t.Generator().manual_seed(2**64 - 1).initial_seed())
    check(lambda t: str(t.Generator("cpu").device))
    g = torchpy.Generator()
    assert g.manual_seed(3) is g
    check(lambda t: t.rand(4, generator=t.Generator().manual_seed(11)), policy=EXACT)
    check(lambda t: t.randperm(8, generator=t.Generator().manual_seed(11)), policy=EXACT)
    check(lambda t: t.randint(3, 9, (5,), generator=t.Generator().manual_seed(11)), policy=EXACT)
    check(lambda t: t.randn(17, generator=t.Generator().manual_seed(11), dtype=t.float64), policy=normal_draws())
    check(lambda t: t.empty(5).uniform_(generator=t.Generator().manual_seed(2)), policy=EXACT)


def test_a_generator_leaves_the_default_stream_alone():
    for lib in (torch, torchpy):
        lib.manual_seed(0)
        expected = to_numpy(lib.rand(4))
        lib.manual_seed(0)
        lib.rand(100, generator=lib.Generator().manual_seed(5))
        assert np.array_equal(to_numpy(lib.rand(4)), expected)


def test_reproducible_and_seed_dependent():
    torchpy.manual_seed(42)
    a = to_numpy(torchpy.randn(100))
    torchpy.manual_seed(42)
    b = to_numpy(torchpy.randn(100))
    torchpy.manual_seed(43)
    c = to_numpy(torchpy.randn(100))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert not np.array_equal(to_numpy(torchpy.rand(10)), to_numpy(torchpy.rand(10)))  # the stream moves on


def test_seed_and_initial_seed():
    s = torchpy.seed()
    assert isinstance(s, int) and 0 <= s < 2**53 and torchpy.initial_seed() == s
    g = torchpy.Generator()
    assert g.seed() == g.initial_seed()
    assert torchpy.manual_seed(7) is torchpy.default_generator
    check(lambda t: (t.manual_seed(1.9), t.initial_seed())[1])
    check(lambda t: (t.manual_seed("12"), t.initial_seed())[1])


def test_manual_seed_errors():
    check_error(lambda t: t.Generator().manual_seed(1.5))
    check_error(lambda t: t.Generator().manual_seed(True))
    check_error(lambda t: t.Generator().manual_seed(2**64))
    check_error(lambda t: t.Generator().manual_seed(-2**63 - 1))
    check_error(lambda t: t.Generator(device="meta"))
    check_error(lambda t: t.rand(2, generator=5))


def test_rng_state_has_torch_layout():
    check(seeded(lambda t: t.get_rng_state(), seed=5))
    check(seeded(lambda t: (t.randn(1, dtype=t.float64), t.rand(3), t.get_rng_state())[2], seed=5))
    check(seeded(lambda t: (t.rand(624), t.get_rng_state())[1], seed=5))
    check(lambda t: t.Generator().manual_seed(9).get_state())


def test_rng_state_round_trips_between_libraries():
    torch.manual_seed(8)
    torch.randn(3, dtype=torch.float64)  # leaves a cached normal sample in the state
    state = torch.get_rng_state()
    torchpy.set_rng_state(torchpy.tensor(state.numpy()))
    assert np.array_equal(to_numpy(torchpy.randn(5, dtype=torchpy.float64)),
                          to_numpy(torch.randn(5, dtype=torch.float64)))
    saved = torchpy.get_rng_state()
    first = to_numpy(torchpy.rand(7))
    torchpy.set_rng_state(saved)
    assert np.array_equal(to_numpy(torchpy.rand(7)), first)


def test_rng_state_errors():
    check_error(lambda t: t.Generator().set_state(t.zeros(10, dtype=t.uint8)))
    check_error(lambda t: t.Generator().set_state(t.zeros(5056)))
    check_error(lambda t: t.Generator().set_state([1, 2]))


# --- statistics ---------------------------------------------------------------------------------

def test_distributions_have_the_right_statistics():
    torchpy.manual_seed(1)
    u = to_numpy(torchpy.rand(200_000, dtype=torchpy.float64))
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.005 and abs(u.var() - 1 / 12) < 0.002
    n = to_numpy(torchpy.randn(200_000))
    assert abs(n.mean()) < 0.01 and abs(n.std() - 1) < 0.01
    z = to_numpy(torchpy.randn(100_000, dtype=torchpy.complex64))
    assert abs(np.mean(np.abs(z) ** 2) - 1) < 0.02
    m = to_numpy(torchpy.empty(100_000, dtype=torchpy.float64).normal_(3, 2))
    assert abs(m.mean() - 3) < 0.03 and abs(m.std() - 2) < 0.03
    i = to_numpy(torchpy.randint(-3, 4, (70_000,)))
    assert set(np.unique(i)) == set(range(-3, 4)) and np.all(np.abs(np.bincount(i + 3) / 10_000 - 1) < 0.05)
    p = to_numpy(torchpy.randperm(1000))
    assert np.array_equal(np.sort(p), np.arange(1000))


# --- meta, errors, dispatch -------------------------------------------------------------------

def test_meta_draws_nothing():
    check(seeded(lambda t: [t.rand(2, 3, device="meta"), t.randn(4, device="meta"), t.randint(5, (2,), device="meta"),
                            t.randperm(5, device="meta"), t.rand(2, dtype=t.int64, device="meta"), t.rand(3)]),
          policy=EXACT)
    check(lambda t: t.randn_like(t.empty(2, 3, device="meta")).shape)


@pytest.mark.parametrize("fn", [
    lambda t: t.randint(5, 2, (3,)),
    lambda t: t.randint(5, 2, (3,), device="meta"),
    lambda t: t.randint(0, 300, (3,), dtype=t.uint8),
    lambda t: t.randint(-1, 300, (3,), dtype=t.uint8),
    lambda t: t.randint(0, 5, (3,), dtype=t.bool),
    lambda t: t.randint(5, (-1,)),
    lambda t: t.randperm(-1),
    lambda t: t.randperm(300, dtype=t.int8),
    lambda t: t.randperm(3, dtype=t.bool),
    lambda t: t.rand(2, dtype=t.int64),
    lambda t: t.randn(2, dtype=t.int32),
    lambda t: t.rand_like(t.zeros(2, dtype=t.int32)),
    lambda t: t.empty(3).uniform_(5, 2),
    lambda t: t.empty(2).uniform_(-3e38, 3e38),
    lambda t: t.empty(2, dtype=t.bool).uniform_(),
    lambda t: t.empty(3).normal_(0, -1.5),
    lambda t: t.empty(3, device="meta").normal_(0, -1),
    lambda t: t.empty(3, dtype=t.int64).normal_(),
    lambda t: t.empty(3, dtype=t.int64).random_(5, 2),
    lambda t: t.empty(2, dtype=t.float16).random_(0, 2**63 - 1),
    lambda t: t.empty(2, dtype=t.complex64).random_(0, 2),
    lambda t: t.empty(2, dtype=t.complex64).random_(),
    lambda t: t.empty(2, dtype=t.int16).random_(0, 2**20),
])
def test_errors(fn):
    check_error(fn)


def test_float_random_warns_beyond_exact_integers():
    for lib in (torch, torchpy):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.empty(3).random_(2**25)
        assert len(caught) == 1 and "to - 1 is out of bounds [-(2^24), 2^24]" in str(caught[0].message)


def test_dispatch_mode_sees_random_ops_as_torch_does():
    assert_same_dispatch(lambda t: (t.rand(2), t.randn(2, 3, dtype=t.float64), t.randint(10, (3,)),
                                    t.randint(2, 10, (3,)), t.randperm(4), t.rand(2, generator=t.Generator()),
                                    t.randn(2, device="meta")))
    assert_same_dispatch(lambda t, a: (t.rand_like(a), t.randn_like(a), t.randint_like(a, 5),
                                       t.randint_like(a, 2, 5), a.uniform_(), a.normal_(1, 2), a.random_(3),
                                       a.random_(1, 3), a.random_()), randn(2, 3))


# --- torch.normal ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_normal_functional(dtype):
    def run(t):
        d = getattr(t, dtype)
        m = t.arange(20, dtype=d)
        s = t.full((20,), 2.0, dtype=d)
        return [t.normal(m, s), t.normal(m, 0.5), t.normal(1.0, s), t.normal(m[:5]), t.normal(3.0, 2.0, (3, 2), dtype=d),
                t.normal(t.zeros(3, dtype=d), t.ones(2, 1, dtype=t.float32)),
                t.normal(0.0, 1.0, (4,), generator=t.Generator().manual_seed(1))]

    check(seeded(run), policy=normal_draws(2.0))


def test_normal_functional_meta_errors_and_dispatch():
    check(lambda t: [t.normal(t.empty(3, device="meta"), 2.0), t.normal(0.0, 1.0, (2,), device="meta"),
                     t.normal(t.empty(3, device="meta"), t.empty(2, 1, device="meta"))])
    check_error(lambda t: t.normal(t.zeros(3, dtype=t.int64), 1.0))
    check_error(lambda t: t.normal(t.zeros(3), -1.0))
    check_error(lambda t: t.normal(t.zeros(3), t.tensor([1.0, -1.0, 1.0])))
    check_error(lambda t: t.normal(t.zeros(3), t.ones(4)))
    assert_same_dispatch(lambda t, m, s: (t.normal(0.0, 1.0, (2,)), t.normal(m, 2.0), t.normal(1.0, s), t.normal(m, s),
                                          t.normal(m)), randn(3), np.ones((2, 1), np.float32))


def test_normal_of_zero_dim_tensors_keeps_zero_dims_as_torch():
    shapes = []
    for lib in (torch, torchpy):
        s = lib.tensor(2.0)
        shapes.append([tuple(r.shape) for r in (lib.normal(s, s), lib.normal(s, 1.0), lib.normal(1.0, s))]
                      + [lib.normal(lib.ones(2, 3).t(), 1.0).is_contiguous()])
    assert shapes[0] == shapes[1]


def test_meta_random_ops_leave_every_generator_alone():
    # A meta random op draws nothing: neither the default generator nor a given one advances.
    def run(t):
        t.manual_seed(3)
        g = t.Generator().manual_seed(5)
        state, g_state = t.get_rng_state(), g.get_state()
        m = t.empty(2, 3, device="meta")
        m.uniform_(), m.normal_(), m.random_(), m.random_(0, 5), m.random_(7), m.uniform_(generator=g)
        t.rand_like(m), t.randn_like(m), t.randint_like(m, 5), t.randint_like(m, 1, 5, generator=g)
        t.rand_like(t.empty(2), device="meta"), t.randn_like(t.empty(2), device="meta", generator=g)
        t.normal(m, 1.0), t.normal(1.0, m), t.normal(m, m), t.normal(0.0, 1.0, (2,), device="meta")
        t.rand(3, device="meta", generator=g), t.randn(3, device="meta"), t.randperm(4, device="meta")
        t.randint(0, 5, (2,), device="meta"), t.rand(2, out=t.empty(0, device="meta"))
        t.randn(2, generator=g, out=t.empty(0, device="meta"))
        return [bool((state == t.get_rng_state()).all()), bool((g_state == g.get_state()).all()), t.rand(2),
                t.rand(2, generator=g)]

    check(run, policy=EXACT)
