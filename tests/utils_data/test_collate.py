"""default_collate and default_convert against torch's: results, dtypes, container types, errors."""

import collections

import numpy as np
import pytest

from tests.utils_data.helpers import same, same_error

Point = collections.namedtuple("Point", ["x", "y"])


def _tensors(lib):
    return [lib.tensor([1.5, 2.0]), lib.tensor([3.0, -1.0])]


BATCHES = {
    "float_tensors": lambda lib: _tensors(lib),
    "int_tensors": lambda lib: [lib.arange(3), lib.arange(3, 6)],
    "scalar_tensors": lambda lib: [lib.tensor(1, dtype=lib.int8), lib.tensor(2, dtype=lib.int8)],
    "bool_tensors": lambda lib: [lib.tensor([True]), lib.tensor([False])],
    "ints": lambda lib: [1, 2, 3],
    "floats": lambda lib: [1.5, 2.0, 1e-3],
    "bools": lambda lib: [True, False],
    "strings": lambda lib: ["a", "bc"],
    "bytes": lambda lib: [b"a", b"b"],
    "numpy_arrays": lambda lib: [np.arange(3, dtype=np.float32), np.ones(3, dtype=np.float32)],
    "numpy_int_arrays": lambda lib: [np.arange(4, dtype=np.int16).reshape(2, 2)] * 2,
    "numpy_scalars": lambda lib: [np.float64(1.5), np.float64(2.5)],
    "numpy_int_scalars": lambda lib: [np.int32(1), np.int32(7)],
    "numpy_bools": lambda lib: [np.bool_(True), np.bool_(False)],
    "dicts": lambda lib: [{"a": 1, "b": lib.tensor([1.0])}, {"a": 2, "b": lib.tensor([2.0])}],
    "ordered_dicts": lambda lib: [collections.OrderedDict(z=1.0, a="s"), collections.OrderedDict(z=2.0, a="t")],
    "namedtuples": lambda lib: [Point(1, lib.tensor(1.0)), Point(2, lib.tensor(2.0))],
    "tuples": lambda lib: [(1, 2.0, "x"), (3, 4.0, "y")],
    "lists": lambda lib: [[1, 2], [3, 4]],
    "nested": lambda lib: [{"p": Point([1, 2], (lib.ones(2), 0.5)), "s": "a"},
                           {"p": Point([3, 4], (lib.zeros(2), 1.5)), "s": "b"}],
    "samples_of_tensor_dataset": lambda lib: [(lib.ones(2), lib.tensor(0)), (lib.zeros(2), lib.tensor(1))],
}


@pytest.mark.parametrize("name", sorted(BATCHES))
def test_default_collate(name):
    same(lambda lib, data: data.default_collate(BATCHES[name](lib)))


@pytest.mark.parametrize("name", sorted(BATCHES))
def test_default_convert(name):
    same(lambda lib, data: data.default_convert(BATCHES[name](lib)))


def test_default_convert_single_values():
    def run(lib, data):
        return [data.default_convert(np.arange(3)), data.default_convert(np.float32(2.5)),
                data.default_convert(np.array(["a", "b"])), data.default_convert(np.str_("s")),
                data.default_convert((np.int64(1), "x")), data.default_convert(5), data.default_convert("s")]
    same(run)


@pytest.mark.parametrize("batch", [
    lambda: [object(), object()],
    lambda: [np.array(["a"]), np.array(["b"])],
    lambda: [np.array([object()]), np.array([object()])],
    lambda: [[1, 2], [3]],
    lambda: [None, None],
])
def test_default_collate_errors(batch):
    same_error(lambda lib, data: data.default_collate(batch()))


def test_default_collate_stack_shape_mismatch():
    same_error(lambda lib, data: data.default_collate([lib.zeros(2), lib.zeros(3)]), first_line_only=True)


def test_collate_with_a_custom_map_through_utils_path():
    """torch documents extending default_collate through _utils.collate.collate and its map."""
    class Box:
        def __init__(self, v):
            self.v = v

    def run(lib, data):
        from importlib import import_module
        utils = import_module(data.__name__ + "._utils.collate")

        def collate_box(batch, *, collate_fn_map=None):
            return sum(b.v for b in batch)
        mapping = {**utils.default_collate_fn_map, Box: collate_box}
        return utils.collate([{"b": Box(1), "t": lib.ones(1)}, {"b": Box(2), "t": lib.zeros(1)}],
                             collate_fn_map=mapping)
    same(run)
