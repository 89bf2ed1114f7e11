"""Samplers against torch.utils.data: orders under a seed, lengths, errors."""

import pytest

from tests.utils_data.helpers import same, same_error

N = 10


def test_sequential_sampler():
    same(lambda lib, data: [list(data.SequentialSampler(range(N))), len(data.SequentialSampler(range(5)))])


@pytest.mark.parametrize("replacement,num_samples", [(False, None), (False, 25), (False, 3),
                                                     (True, None), (True, 70), (True, 5)])
def test_random_sampler_under_a_seed(replacement, num_samples):
    def run(lib, data):
        lib.manual_seed(3)
        s = data.RandomSampler(range(N), replacement=replacement, num_samples=num_samples)
        first, second = list(s), list(s)
        g = lib.Generator().manual_seed(9)
        s_g = data.RandomSampler(range(N), replacement=replacement, num_samples=num_samples, generator=g)
        # the loader's stream moves as torch's: the next draw agrees too
        return [first, second, list(s_g), list(s_g), len(s), lib.randint(0, 1000, (3,))]
    same(run)


@pytest.mark.parametrize("kwargs", [dict(replacement=1), dict(num_samples=0), dict(num_samples=2.0)])
def test_random_sampler_errors(kwargs):
    same_error(lambda lib, data: data.RandomSampler(range(N), **kwargs))


def test_subset_random_sampler():
    def run(lib, data):
        lib.manual_seed(1)
        s = data.SubsetRandomSampler([5, 7, 9, 11])
        g = lib.Generator().manual_seed(2)
        return [list(s), list(s), list(data.SubsetRandomSampler(range(20, 30), generator=g)), len(s)]
    same(run)


@pytest.mark.parametrize("replacement", [True, False])
def test_weighted_random_sampler(replacement):
    def run(lib, data):
        lib.manual_seed(4)
        weights = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
        s = data.WeightedRandomSampler(weights, 5, replacement=replacement)
        g = lib.Generator().manual_seed(8)
        s_g = data.WeightedRandomSampler(lib.tensor(weights), 6, replacement=replacement, generator=g)
        return [list(s), list(s), list(s_g), len(s), s.weights]
    same(run)


@pytest.mark.parametrize("args", [([1.0, 2.0], 0), ([1.0, 2.0], True), ([1.0, 2.0], 2, 1), ([[1.0], [2.0]], 2)])
def test_weighted_random_sampler_errors(args):
    same_error(lambda lib, data: data.WeightedRandomSampler(*args))


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("batch_size", [1, 3, 5, 11])
def test_batch_sampler(batch_size, drop_last):
    def run(lib, data):
        s = data.BatchSampler(data.SequentialSampler(range(N)), batch_size, drop_last)
        return [list(s), len(s), list(data.BatchSampler(range(4), 3, drop_last))]
    same(run)


@pytest.mark.parametrize("args", [(0, False), (True, False), (2.0, False), (2, 1)])
def test_batch_sampler_errors(args):
    same_error(lambda lib, data: data.BatchSampler(range(N), *args))


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("n,replicas", [(10, 3), (9, 3), (2, 5)])
def test_distributed_sampler(n, replicas, drop_last, shuffle):
    def run(lib, data):
        out = []
        for rank in range(replicas):
            s = data.DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=shuffle,
                                        seed=7, drop_last=drop_last)
            first = list(s)
            s.set_epoch(1)
            out.append([first, list(s), len(s), s.total_size])
        return out
    same(run)


@pytest.mark.parametrize("rank", [-1, 3])
def test_distributed_sampler_bad_rank(rank):
    same_error(lambda lib, data: data.DistributedSampler(range(6), num_replicas=3, rank=rank))


@pytest.mark.parametrize("kwargs", [dict(), dict(num_replicas=2), dict(rank=0)])
def test_distributed_sampler_without_a_process_group(kwargs):
    same_error(lambda lib, data: data.DistributedSampler(range(6), **kwargs))


def test_base_sampler_iter_raises():
    same_error(lambda lib, data: iter(data.Sampler()))
