"""DataPipes, torch.utils.data's older composable datasets: the base classes with their
functional form (`dp.name(...)` for a DataPipe registered with @functional_datapipe), DataChunk,
and the determinism and validation decorators.

torch's typing machinery for DataPipes (`IterDataPipe[int]` subtype checks) is not rebuilt:
argument_validation checks that an argument hinted as a DataPipe is one, and
runtime_validation checks yielded items against the class's `type` only when it has one.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Iterable, Iterator, TypeVar, get_type_hints

from .dataset import Dataset, IterableDataset

__all__ = [
    "DFIterDataPipe", "DataChunk", "IterDataPipe", "MapDataPipe", "argument_validation",
    "functional_datapipe", "guaranteed_datapipes_determinism", "non_deterministic", "runtime_validation",
    "runtime_validation_disabled",
]

T = TypeVar("T")


class DataChunk(list):
    """A list of items that a DataPipe passes along as one unit (a batch)."""

    def __init__(self, items: Iterable[Any]) -> None:
        items = list(items)
        super().__init__(items)
        self.items = items

    def as_str(self, indent: str = "") -> str:
        return indent + "[" + ", ".join(str(i) for i in iter(self)) + "]"

    def __iter__(self) -> Iterator[Any]:
        yield from super().__iter__()

    def raw_iterator(self) -> Iterator[Any]:
        yield from self.items


class _Functional:
    """Registration of DataPipe classes under a method name, per base class."""

    functions: dict[str, Callable]

    @classmethod
    def register_function(cls, function_name: str, function: Callable) -> None:
        cls.functions[function_name] = function

    @classmethod
    def register_datapipe_as_function(cls, function_name: str, cls_to_register: Any,
                                      enable_df_api_tracing: bool = False) -> None:
        if function_name in cls.functions:
            raise Exception(f"Unable to add DataPipe function name {function_name} as it is already taken")  # noqa: TRY002

        def as_method(source_dp: Any, *args: Any, **kwargs: Any) -> Any:
            return cls_to_register(source_dp, *args, **kwargs)

        cls.functions[function_name] = functools.wraps(cls_to_register, assigned=("__doc__",))(as_method)

    def __getattr__(self, attribute_name: str) -> Any:
        functions = type(self).functions
        if attribute_name in functions:
            return functools.partial(functions[attribute_name], self)
        raise AttributeError(f"'{self.__class__.__name__}' object has no attribute '{attribute_name}")

    def __repr__(self) -> str:
        return self.__class__.__qualname__

    def __str__(self) -> str:
        return self.__class__.__qualname__

    def __dir__(self) -> list[str]:
        return list(super().__dir__()) + list(type(self).functions)


class IterDataPipe(_Functional, IterableDataset):
    """An iterable-style DataPipe: subclasses define __iter__; `reset()` runs before each."""

    functions: dict[str, Callable] = {}

    def reset(self) -> None:
        """Called when a new iterator is made; override to clear buffers."""


class DFIterDataPipe(IterDataPipe):
    def _is_dfpipe(self) -> bool:
        return True


class MapDataPipe(_Functional, Dataset):
    """A map-style DataPipe: subclasses define __getitem__ (and __len__)."""

    functions: dict[str, Callable] = {}


class functional_datapipe:
    """Class decorator: `@functional_datapipe("name")` makes `dp.name(*args)` build the class
    with `dp` as its first argument."""

    def __init__(self, name: str, enable_df_api_tracing: bool = False) -> None:
        self.name = name
        self.enable_df_api_tracing = enable_df_api_tracing

    def __call__(self, cls: Any) -> Any:
        target = cls.cls if isinstance(cls, non_deterministic) else cls
        if isinstance(target, type) and issubclass(target, IterDataPipe):
            IterDataPipe.register_datapipe_as_function(self.name, cls, self.enable_df_api_tracing)
        elif isinstance(target, type) and issubclass(target, MapDataPipe):
            MapDataPipe.register_datapipe_as_function(self.name, cls)
        else:
            raise TypeError("`functional_datapipe` can only decorate IterDataPipe")
        return cls


_determinism = False


class guaranteed_datapipes_determinism:
    """Within this context, building a DataPipe marked non_deterministic raises TypeError."""

    def __init__(self) -> None:
        global _determinism
        self.prev = _determinism
        _determinism = True

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        global _determinism
        _determinism = self.prev


class non_deterministic:
    """Marks an IterDataPipe class (or, given a function of the constructor's arguments, some of
    its instances) as non-deterministic."""

    cls: Any = None

    def __init__(self, arg: Any) -> None:
        if isinstance(arg, type):
            if not issubclass(arg, IterDataPipe):
                raise TypeError("Only `IterDataPipe` can be decorated with `non_deterministic`"
                                f", but {arg.__name__} is found")
            self.cls = arg
        elif callable(arg):
            self.deterministic_fn = arg
        else:
            raise TypeError(f"{arg} can not be decorated by non_deterministic")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.cls is not None:
            if _determinism:
                raise TypeError(
                    f"{self.cls.__name__} is non-deterministic, but you set 'guaranteed_datapipes_determinism'. "
                    "You can turn off determinism for this DataPipe if that is acceptable for your application")
            return self.cls(*args, **kwargs)
        if not (isinstance(args[0], type) and issubclass(args[0], IterDataPipe)):
            raise TypeError(f"Only `IterDataPipe` can be decorated, but {args[0].__name__} is found")
        self.cls = args[0]
        return self.deterministic_wrapper_fn

    def deterministic_wrapper_fn(self, *args: Any, **kwargs: Any) -> Any:
        result = self.deterministic_fn(*args, **kwargs)
        if not isinstance(result, bool):
            raise TypeError("deterministic_fn of `non_deterministic` decorator is required "
                            f"to return a boolean value, but {type(result)} is found")
        if _determinism and result:
            raise TypeError(f"{self.cls.__name__} is non-deterministic with the inputs, but you set "
                            "'guaranteed_datapipes_determinism'. You can turn off determinism "
                            "for this DataPipe if that is acceptable for your application")
        return self.cls(*args, **kwargs)


def argument_validation(f: Callable) -> Callable:
    """Check, at each call, that arguments hinted as an IterDataPipe are IterDataPipes."""
    signature = inspect.signature(f)
    hints = get_type_hints(f)

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for name, value in signature.bind(*args, **kwargs).arguments.items():
            hint = hints.get(name)
            if isinstance(hint, type) and issubclass(hint, IterDataPipe) and not isinstance(value, IterDataPipe):
                raise TypeError(f"Expected argument '{name}' as a IterDataPipe, but found {type(value)}")
        return f(*args, **kwargs)
    return wrapper


_runtime_validation_enabled = True


class runtime_validation_disabled:
    """Within this context, runtime_validation checks nothing."""

    def __init__(self) -> None:
        global _runtime_validation_enabled
        self.prev = _runtime_validation_enabled
        _runtime_validation_enabled = False

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        global _runtime_validation_enabled
        _runtime_validation_enabled = self.prev


def runtime_validation(f: Callable) -> Callable:
    """Decorate a DataPipe's __iter__: each item must be an instance of the class's `type`
    (a Python type), when it declares one."""
    if f.__name__ != "__iter__":
        raise TypeError(f"Can not decorate function {f.__name__} with 'runtime_validation'")

    @functools.wraps(f)
    def wrapper(self: Any) -> Iterator[Any]:
        expected = getattr(self, "type", None)
        for item in f(self):
            if _runtime_validation_enabled and isinstance(expected, type) and not isinstance(item, expected):
                raise RuntimeError(f"Expected an instance as subtype of {expected}, but found {item}({type(item)})")
            yield item
    return wrapper
