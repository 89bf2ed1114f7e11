"""Hand-written bindings for the hot methods the generated positional fast paths
(positional.py) do not cover: contiguous(), fill_, unflatten, as_strided.

They make the same aten call as the generated binding, for the common argument forms only
(plain ints, a tuple or list of ints, no keywords), skipping overload resolution and
argument binding; any other form goes to the generated method, which handles everything.
A TorchFunctionMode still sees every call: while one is active they defer to it as
generated bindings do (subclasses are routed by Tensor.__init_subclass__).

PyTorch's own bindings return `self` without dispatching for contiguous() on a contiguous
tensor and for to()/float()/... that change nothing; so do these.
"""

from __future__ import annotations

from typing import Any, Callable

from .._tensor.enums import contiguous_format
from .._tensor.function_modes import mode_on, track
from .._tensor.members import MODES, declare_wrapper
from .._tensor.tensor import Size, Tensor
from .fastcall import aten, call, call_kw

_function_modes = False  # whether any thread has a TorchFunctionMode (function_modes keeps it)
track(globals())

_GENERATED: dict[str, Callable] = {}  # the generated methods these stand in front of


def _ints(values: tuple) -> list[int] | None:
    """values as a list if they are plain ints (x.view(2, 3)) or one tuple/list of them."""
    if len(values) == 1 and type(values[0]) in (tuple, list, Size):
        values = values[0]
    for v in values:
        if type(v) is not int:
            return None
    return list(values)


def contiguous(self: Tensor, *args: Any, **kwargs: Any) -> Any:
    if not args and not kwargs and not (_function_modes and mode_on()):
        data = self._data  # NumPy's C-contiguity, like PyTorch's, ignores size-1 dims
        if data.flags.c_contiguous if data is not None else self.is_contiguous():
            return self  # as PyTorch's Tensor::contiguous, without dispatching
        return call_kw(aten("clone"), self._keyset, (self,), {"memory_format": contiguous_format})
    return _GENERATED["contiguous"](self, *args, **kwargs)


def fill_(self: Tensor, *args: Any, **kwargs: Any) -> Any:
    if not kwargs and len(args) == 1 and not (_function_modes and mode_on()):
        value = args[0]
        if type(value) in (int, float, bool, complex):
            return call(aten("fill_.Scalar"), self._keyset, self, value)
    return _GENERATED["fill_"](self, *args, **kwargs)


def unflatten(self: Tensor, *args: Any, **kwargs: Any) -> Any:
    """x.unflatten(1, (2, 3))."""
    if not kwargs and len(args) == 2 and type(args[0]) is int and not (_function_modes and mode_on()):
        sizes = _ints((args[1],))
        if sizes is not None:
            return call(aten("unflatten.int"), self._keyset, self, args[0], sizes)
    return _GENERATED["unflatten"](self, *args, **kwargs)


def as_strided(self: Tensor, *args: Any, **kwargs: Any) -> Any:
    """x.as_strided((2, 2), (1, 2)) / x.as_strided(size, stride, offset)."""
    if not kwargs and 2 <= len(args) <= 3 and not (_function_modes and mode_on()):
        size, stride = _ints((args[0],)), _ints((args[1],))
        if size is not None and stride is not None:
            if len(args) == 2 or args[2] is None:
                return call(aten("as_strided"), self._keyset, self, size, stride)
            if type(args[2]) is int:
                return call(aten("as_strided"), self._keyset, self, size, stride, args[2])
    return _GENERATED["as_strided"](self, *args, **kwargs)


def declare_members() -> None:
    """Declare these in front of the generated methods of the same names (which they defer to
    for other forms and under a mode)."""
    fast = {
        "unflatten": unflatten,
        "as_strided": as_strided,
        "contiguous": contiguous,
        "fill_": fill_,
    }
    for name, method in fast.items():
        method.__name__ = method.__qualname__ = name
        declare_wrapper(name, _in_front(name, method), checks=MODES)


def _in_front(name: str, method: Callable) -> Callable[[Callable], Callable]:
    def make(generated: Callable) -> Callable:
        _GENERATED[name] = generated
        method.__doc__ = getattr(generated, "__doc__", None)
        return method

    return make
