"""DataLoader with worker processes against torch's: order, per-worker seeds, worker_init_fn,
persistent workers, iterable datasets, errors raised in the main process, and no processes
left behind after the end, a `break`, an error or a worker's death."""

import gc
import multiprocessing
import os
import random
import time

import numpy as np
import pytest

from tests.utils_data.helpers import LIBS, same, same_error


def _no_children_left():
    gc.collect()
    deadline = time.monotonic() + 5
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []


@pytest.fixture(autouse=True)
def _check_children():
    yield
    _no_children_left()


def _seeded_dataset(lib, data, n=12):
    class Draws(data.Dataset):
        """Each sample: its index, and what the worker's generators give (seeded per worker)."""
        def __getitem__(self, i):
            info = data.get_worker_info()
            return {"i": i, "torch": lib.rand(1), "random": random.random(), "numpy": float(np.random.rand()),
                    "worker": info.id, "seed": info.seed, "workers": info.num_workers}

        def __len__(self):
            return n
    return Draws()


def test_order_and_worker_seeds_under_a_seed():
    def run(lib, data):
        lib.manual_seed(7)
        ids = []
        loader = data.DataLoader(_seeded_dataset(lib, data), batch_size=2, shuffle=True, num_workers=2,
                                 worker_init_fn=ids.append, prefetch_factor=3)
        first = list(loader)
        g = lib.Generator().manual_seed(3)
        second = list(data.DataLoader(_seeded_dataset(lib, data, 5), batch_size=None, num_workers=2, generator=g))
        return [first, second, lib.rand(1)]
    same(run)


def test_same_batches_as_without_workers_and_drop_last():
    def run(lib, data):
        ds = data.TensorDataset(lib.arange(22.0).reshape(11, 2), lib.arange(11))
        lib.manual_seed(2)
        with_workers = list(data.DataLoader(ds, batch_size=3, shuffle=True, drop_last=True, num_workers=2))
        lib.manual_seed(2)
        without = list(data.DataLoader(ds, batch_size=3, shuffle=True, drop_last=True))
        assert [b[1].tolist() for b in with_workers] == [b[1].tolist() for b in without]
        return with_workers
    same(run)


def test_persistent_workers_keep_their_processes_across_epochs():
    def run(lib, data):
        class Pid(data.Dataset):
            def __getitem__(self, i):
                return i, os.getpid()

            def __len__(self):
                return 6
        lib.manual_seed(4)
        loader = data.DataLoader(Pid(), batch_size=2, shuffle=True, num_workers=2, persistent_workers=True)
        epochs = [list(loader) for _ in range(3)]
        pids = [{int(p) for _, ps in epoch for p in ps} for epoch in epochs]
        assert pids[0] == pids[1] == pids[2] and len(pids[0]) == 2
        order = [[b[0].tolist() for b in epoch] for epoch in epochs]
        del loader
        return order
    same(run)


def test_iterable_dataset_sharded_by_worker_info():
    def run(lib, data):
        class Shards(data.IterableDataset):
            def __iter__(self):
                info = data.get_worker_info()
                return iter(range(info.id, 9, info.num_workers))
        return list(data.DataLoader(Shards(), batch_size=2, num_workers=2))
    same(run)


def _drain(loader):
    """list(loader), shutting the workers down even on an error (torch's iterator, kept alive by
    the error's traceback cycle, would otherwise linger until the garbage collector runs)."""
    it = iter(loader)
    try:
        return list(it)
    finally:
        it._shutdown_workers()


def _failing(data, exc):
    class Failing(data.Dataset):
        def __getitem__(self, i):
            if i == 3:
                raise exc("bad sample 3")
            return i

        def __len__(self):
            return 8
    return Failing()


@pytest.mark.parametrize("exc", [ValueError, KeyError])
def test_error_in_a_worker_is_raised_in_the_main_process_with_its_traceback(exc):
    def run(lib, data):
        _drain(data.DataLoader(_failing(data, exc), batch_size=2, num_workers=2))
    message = same_error(run, first_line_only=True)
    assert message.startswith(f"Caught {exc.__name__} in DataLoader worker process 1.")
    for lib, data in LIBS[1:]:
        with pytest.raises(exc) as info:
            run(lib, data)
        assert "Original Traceback (most recent call last):" in str(info.value)
        assert 'raise exc("bad sample 3")' in str(info.value)


def test_error_in_worker_init_fn():
    def init(worker_id):
        raise RuntimeError(f"init failed in {worker_id}")

    def run(lib, data):
        _drain(data.DataLoader(list(range(4)), batch_size=1, num_workers=2, worker_init_fn=init))
    assert same_error(run, first_line_only=True) == "Caught RuntimeError in DataLoader worker process 0."


def test_break_leaves_no_workers():
    for lib, data in LIBS:
        loader = data.DataLoader(list(range(100)), batch_size=2, num_workers=2)
        for i, _ in enumerate(loader):
            if i == 1:
                break
        _no_children_left()


def test_worker_that_dies_is_reported():
    for lib, data in LIBS:
        class Dies(data.Dataset):
            def __getitem__(self, i):
                os._exit(3)

            def __len__(self):
                return 4
        with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
            _drain(data.DataLoader(Dies(), num_workers=1))
        _no_children_left()


def test_timeout():
    for lib, data in LIBS:
        class Slow(data.Dataset):
            def __getitem__(self, i):
                time.sleep(0.6)
                return i

            def __len__(self):
                return 2
        with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.2 seconds$"):
            _drain(data.DataLoader(Slow(), num_workers=1, timeout=0.2))


def test_workers_go_as_soon_as_the_error_is_dropped():
    """No reference cycle keeps torchpy's iterator alive after a worker's error is handled."""
    import torchpy.utils.data as data
    try:
        list(data.DataLoader(_failing(data, ValueError), batch_size=2, num_workers=2))
    except ValueError:
        pass
    assert multiprocessing.active_children() == []


def test_error_in_the_loop_body_leaves_no_workers():
    for lib, data in LIBS:
        def train():
            for _ in data.DataLoader(list(range(100)), batch_size=2, num_workers=2):
                raise ArithmeticError("in the training step")
        with pytest.raises(ArithmeticError):
            train()
        _no_children_left()



def test_out_of_order_loading_yields_every_batch_once():
    """in_order=False: batches as workers finish them (torch's order is not deterministic then)."""
    def run(lib, data):
        class Uneven(data.Dataset):
            def __getitem__(self, i):
                if i < 2:
                    time.sleep(0.2)  # the first batch is slow, so later ones overtake it
                return i

            def __len__(self):
                return 12
        lib.manual_seed(0)
        batches = list(data.DataLoader(Uneven(), batch_size=2, shuffle=True, num_workers=2, in_order=False))
        return sorted(tuple(sorted(b.tolist())) for b in batches)
    same(run)
