"""DataPipes' base classes and decorators against torch's."""

import pytest

from tests.utils_data.helpers import LIBS, same, same_error


def _pipes(data, suffix):
    """An IterDataPipe source and a functional 'double' DataPipe registered under a fresh name."""
    class Source(data.IterDataPipe):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

    @data.functional_datapipe(f"tp_double_{suffix}")
    class Double(data.IterDataPipe):
        def __init__(self, source, factor=2):
            self.source, self.factor = source, factor

        def __iter__(self):
            return (x * self.factor for x in self.source)
    return Source, Double


def test_functional_form_and_loader():
    def run(lib, data):
        Source, _ = _pipes(data, f"a_{lib.__name__}")
        dp = getattr(Source(4), f"tp_double_a_{lib.__name__}")(factor=3)
        return [list(dp), list(Source(3))]
    same(run)


def test_functional_name_taken():
    def run(lib, data):
        _pipes(data, f"b_{lib.__name__}")
        _pipes(data, f"b_{lib.__name__}")
    for lib, data in LIBS:
        with pytest.raises(Exception, match="is already taken"):
            run(lib, data)


def test_data_chunk():
    def run(lib, data):
        chunk = data.DataChunk([1, 2, 3])
        return [chunk.as_str("  "), list(chunk), list(chunk.raw_iterator()), isinstance(chunk, list)]
    same(run)


def test_non_deterministic_under_guaranteed_determinism():
    def run(lib, data):
        @data.non_deterministic
        class Shuffled(data.IterDataPipe):
            def __iter__(self):
                return iter([])
        ok = type(Shuffled()).__name__
        with data.guaranteed_datapipes_determinism():
            Shuffled()
        return ok
    same_error(run)


def test_non_deterministic_refuses_other_classes():
    same_error(lambda lib, data: data.non_deterministic(int))


def test_runtime_validation_only_on_iter():
    def run(lib, data):
        @data.runtime_validation
        def not_iter(self):
            pass
    same_error(run)


def test_argument_validation():
    def run(lib, data):
        class P(data.IterDataPipe):
            def __iter__(self):
                yield from [1, 2]

        @data.argument_validation
        def takes_pipe(dp: data.IterDataPipe):
            return "ok"
        return takes_pipe(3)
    same_error(run)


def test_runtime_validation_checks_items_unless_disabled():
    import torchpy.utils.data as data

    class Ints(data.IterDataPipe):
        type = int

        @data.runtime_validation
        def __iter__(self):
            yield from [1, "two"]
    with data.runtime_validation_disabled():
        assert list(Ints()) == [1, "two"]
    with pytest.raises(RuntimeError, match="Expected an instance as subtype of"):
        list(Ints())
