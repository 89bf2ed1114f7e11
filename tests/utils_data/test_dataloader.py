"""DataLoader in the main process (num_workers=0) against torch's: batch order under a seed,
samplers, collate_fn, iterable datasets, lengths, argument errors."""

import re
import warnings

import pytest

from tests.utils_data.helpers import same, same_error


def _dataset(lib, data, n=10):
    return data.TensorDataset(lib.arange(n * 2.0).reshape(n, 2), lib.arange(n))


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("batch_size", [1, 3, 4])
def test_batches_under_a_seed(batch_size, drop_last, shuffle):
    def run(lib, data):
        lib.manual_seed(0)
        loader = data.DataLoader(_dataset(lib, data), batch_size=batch_size, shuffle=shuffle, drop_last=drop_last)
        epochs = [list(loader), list(loader)]
        return [epochs, len(loader), lib.rand(2)]  # the default stream moved as torch's did
    same(run)


def test_generator_drives_shuffle_and_base_seed():
    def run(lib, data):
        lib.manual_seed(1)
        g = lib.Generator().manual_seed(42)
        loader = data.DataLoader(_dataset(lib, data), batch_size=4, shuffle=True, generator=g)
        return [[b[1] for b in loader], [b[1] for b in loader], g.get_state()[:64], lib.rand(1)]
    same(run)


def test_batch_size_none_converts_samples():
    def run(lib, data):
        loader = data.DataLoader([{"a": 1, "b": (2.0, "s")}, {"a": 3, "b": (4.0, "t")}], batch_size=None)
        return [list(loader), len(loader)]
    same(run)


def test_plain_list_dataset_and_custom_collate_fn():
    def run(lib, data):
        loader = data.DataLoader(list(range(7)), batch_size=3, collate_fn=lambda b: [x * 2 for x in b])
        return list(loader)
    same(run)


def test_sampler_and_batch_sampler():
    def run(lib, data):
        lib.manual_seed(5)
        ds = _dataset(lib, data)
        by_sampler = data.DataLoader(ds, batch_size=3, sampler=data.SubsetRandomSampler([1, 3, 5, 7, 9]))
        weighted = data.DataLoader(ds, batch_size=2, sampler=data.WeightedRandomSampler([1.0] * 10, 6))
        by_batches = data.DataLoader(ds, batch_sampler=[[0, 9], [4], [2, 2, 2]])
        return [list(by_sampler), list(weighted), list(by_batches), len(by_batches)]
    same(run)


def _stream(data, n):
    class Stream(data.IterableDataset):
        def __iter__(self):
            return iter(range(n))

        def __len__(self):
            return n
    return Stream()


@pytest.mark.parametrize("batch_size,drop_last", [(None, False), (1, False), (3, False), (3, True)])
def test_iterable_dataset(batch_size, drop_last):
    def run(lib, data):
        loader = data.DataLoader(_stream(data, 7), batch_size=batch_size, drop_last=drop_last)
        return [list(loader), len(loader)]
    same(run)


def test_iterable_dataset_longer_than_its_len_warns():
    def run(lib, data):
        class Liar(data.IterableDataset):
            def __iter__(self):
                return iter(range(3))

            def __len__(self):
                return 2
        loader = data.DataLoader(Liar(), batch_size=None)
        n = len(loader)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            items = list(loader)
        return [n, items, [re.sub(r"<.*object at 0x[0-9a-f]+>", "<dataset>", str(x.message)) for x in w]]
    same(run)


def test_pin_memory_is_a_noop_that_warns():
    def run(lib, data):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            batches = list(data.DataLoader(_dataset(lib, data, 4), batch_size=2, pin_memory=True))
        return [batches, [str(x.message) for x in w]]
    same(run)


ERRORS = {
    "num_workers": dict(num_workers=-1),
    "timeout": dict(timeout=-1),
    "prefetch_without_workers": dict(prefetch_factor=2),
    "negative_prefetch": dict(num_workers=1, prefetch_factor=-1),
    "persistent_without_workers": dict(persistent_workers=True),
    "sampler_and_shuffle": dict(shuffle=True, sampler=[0, 1]),
    "batch_sampler_and_batch_size": dict(batch_sampler=[[0]], batch_size=2),
    "batch_sampler_and_drop_last": dict(batch_sampler=[[0]], drop_last=True),
    "none_batch_and_drop_last": dict(batch_size=None, drop_last=True),
    "bad_context": dict(num_workers=1, multiprocessing_context="nonsense"),
    "context_without_workers": dict(multiprocessing_context="fork"),
    "context_type": dict(num_workers=1, multiprocessing_context=3),
    "batch_size_zero": dict(batch_size=0),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_argument_errors(name):
    same_error(lambda lib, data: data.DataLoader(_dataset(lib, data), **ERRORS[name]))


@pytest.mark.parametrize("kwargs", [dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])])
def test_iterable_dataset_refuses_samplers(kwargs):
    same_error(lambda lib, data: data.DataLoader(_stream(data, 3), **kwargs))


@pytest.mark.parametrize("attr", ["batch_size", "sampler", "dataset", "drop_last"])
def test_attributes_frozen_after_init(attr):
    def run(lib, data):
        loader = data.DataLoader(_dataset(lib, data))
        setattr(loader, attr, None)
    same_error(run)


def test_get_worker_info_in_the_main_process():
    same(lambda lib, data: data.get_worker_info())


def test_error_in_dataset_propagates_unwrapped_without_workers():
    def run(lib, data):
        class Bad(data.Dataset):
            def __getitem__(self, i):
                raise KeyError(i)

            def __len__(self):
                return 3
        list(data.DataLoader(Bad()))
    same_error(run)


def test_tensor_dataset_batches_equal_the_per_sample_path():
    """A plain TensorDataset is gathered a batch at a time; a subclass goes sample by sample:
    both give torch's batches (values, dtypes, shapes), negative indices included."""
    def run(lib, data):
        class PerSample(data.TensorDataset):
            pass
        tensors = (lib.arange(24.0).reshape(6, 2, 2), lib.tensor([1, 0, 1, 1, 0, 0], dtype=lib.uint8))
        order = [[5, 0, -1], [2], [3, 3, -6]]
        fast = list(data.DataLoader(data.TensorDataset(*tensors), batch_sampler=order))
        slow = list(data.DataLoader(PerSample(*tensors), batch_sampler=order))
        contiguous = [t.is_contiguous() for batch in fast for t in batch]
        return [fast, slow, contiguous]
    same(run)


def test_tensor_dataset_batches_under_autograd_and_errors():
    def run(lib, data):
        x = lib.arange(6.0).reshape(3, 2).requires_grad_()
        batch = next(iter(data.DataLoader(data.TensorDataset(x), batch_size=2)))
        return [batch[0].grad_fn.name(), batch]
    same(run)
    same_error(lambda lib, data: list(data.DataLoader(data.TensorDataset(lib.arange(3)), batch_sampler=[[0, 7]])))


def test_tensor_dataset_batches_seen_by_a_dispatch_mode():
    def run(lib, data):
        from importlib import import_module
        dispatch = import_module(lib.__name__ + ".utils._python_dispatch")
        seen = []

        class Log(dispatch.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                seen.append(str(func))
                return func(*args, **(kwargs or {}))
        loader = data.DataLoader(data.TensorDataset(lib.arange(4)), batch_size=2)
        with Log():
            batches = list(loader)
        # the fetch's own ops (torch's mode also sees item() and the profiler's record_function)
        return [batches, sorted({op for op in seen if op.split('.')[1] in ('select', 'stack', 'index')})]
    same(run)
