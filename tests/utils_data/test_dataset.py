"""Datasets and random_split against torch.utils.data."""

import warnings

import pytest

from tests.utils_data.helpers import same, same_error


class Squares:
    """A map-style dataset defined by the user (no base class needed)."""
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        return i * i

    def __len__(self):
        return self.n


def test_tensor_dataset_rows_and_length():
    def run(lib, data):
        ds = data.TensorDataset(lib.arange(12.).reshape(6, 2), lib.arange(6))
        return [len(ds), ds[0], ds[5], ds[-1], ds[1:3]]
    same(run)


def test_tensor_dataset_size_mismatch():
    same_error(lambda lib, data: data.TensorDataset(lib.zeros(3), lib.zeros(4)))


def test_stack_dataset_tuple_dict_and_getitems():
    def run(lib, data):
        a, b = data.TensorDataset(lib.arange(4)), Squares(4)
        t = data.StackDataset(a, b)
        d = data.StackDataset(x=a, y=b)
        sub = data.Subset(a, [3, 1, 0, 2])
        return [len(t), t[2], d[3], t.__getitems__([0, 3]), d.__getitems__([1]),
                data.StackDataset(sub, b).__getitems__([0, 1])]
    same(run)


@pytest.mark.parametrize("case", ["both", "none", "size"])
def test_stack_dataset_errors(case):
    def run(lib, data):
        if case == "both":
            return data.StackDataset(Squares(2), y=Squares(2))
        if case == "none":
            return data.StackDataset()
        return data.StackDataset(Squares(2), Squares(3))
    same_error(run)


def test_concat_dataset_indexing_and_add():
    def run(lib, data):
        a = data.TensorDataset(lib.arange(3))
        b = data.TensorDataset(lib.arange(10, 14))
        c = data.ConcatDataset([a, b, a])
        both = a + b
        return [len(c), c.cumulative_sizes, [c[i] for i in range(len(c))], c[-1], c[-10],
                type(both).__name__, both[4]]
    same(run)


def test_concat_dataset_errors():
    same_error(lambda lib, data: data.ConcatDataset([]))
    same_error(lambda lib, data: data.ConcatDataset([data.TensorDataset(lib.arange(2))])[-3])

    class Stream(object):
        pass

    def iterable(lib, data):
        class S(data.IterableDataset):
            def __iter__(self):
                return iter([1])
        return data.ConcatDataset([S()])
    same_error(iterable)


def test_concat_dataset_deprecated_name_warns():
    def run(lib, data):
        c = data.ConcatDataset([Squares(2), Squares(3)])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            sizes = c.cummulative_sizes
        return [sizes, [(x.category.__name__, str(x.message)) for x in w]]
    same(run)


def _stream(data, values):
    class Stream(data.IterableDataset):
        def __init__(self, values):
            self.values = values

        def __iter__(self):
            return iter(self.values)

        def __len__(self):
            return len(self.values)
    return Stream(values)


def test_chain_dataset_and_iterable_add():
    def run(lib, data):
        a, b = _stream(data, [1, 2]), _stream(data, [3])
        chain = data.ChainDataset([a, b])
        added = a + b
        return [list(chain), len(chain), type(added).__name__, list(added)]
    same(run)


def test_chain_dataset_refuses_map_style():
    same_error(lambda lib, data: list(data.ChainDataset([Squares(2)])))
    same_error(lambda lib, data: len(data.ChainDataset([Squares(2)])))


def test_subset_getitem_getitems_and_list_index():
    def run(lib, data):
        base = data.TensorDataset(lib.arange(10) * 10)
        s = data.Subset(base, [9, 0, 4])
        return [len(s), s[0], s[2], s.__getitems__([2, 1]), data.Subset(Squares(9), [8, 2]).__getitems__([0, 1])]
    same(run)


def test_subset_subclass_must_override_getitems():
    def run(lib, data):
        class Mine(data.Subset):
            def __getitem__(self, i):
                return 0
        return Mine(Squares(3), [0])
    same_error(run)


def test_base_dataset_getitem_raises_and_no_len():
    same_error(lambda lib, data: data.Dataset()[0])
    same_error(lambda lib, data: len(data.Dataset()))


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.7], [0.5, 0.25, 0.25], [1 / 3] * 3, [4, 3, 3]])
def test_random_split_under_a_seed(lengths):
    def run(lib, data):
        lib.manual_seed(11)
        parts = data.random_split(Squares(10), lengths)
        g = lib.Generator().manual_seed(5)
        parts_g = data.random_split(Squares(10), lengths, generator=g)
        return [[p.indices for p in parts], [p.indices for p in parts_g], lib.rand(2)]
    same(run)


def test_random_split_fractions_warn_for_empty_split():
    def run(lib, data):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            parts = data.random_split(Squares(2), [0.1, 0.9], generator=lib.Generator().manual_seed(0))
        return [[len(p) for p in parts], [str(x.message) for x in w]]
    same(run)


@pytest.mark.parametrize("lengths", [[3, 3], [1.2, -0.2], [0.6, 0.6]])
def test_random_split_errors(lengths):
    same_error(lambda lib, data: data.random_split(Squares(10), lengths))
