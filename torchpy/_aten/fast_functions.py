"""Hand-written bindings for the hottest factories.

torchpy.zeros(2, 3), torchpy.rand(4, dtype=...), torchpy.arange(10): for the common argument
forms (plain ints or one tuple/list of them) these
make the very aten call the generated binding makes, with the same normalized arguments
(so a TorchDispatchMode sees device=cpu, pin_memory=False as under torch), skipping
overload resolution and argument binding. Any other form, a TorchFunctionMode, or a
Tensor subclass takes the generated binding's path (with these functions as the ones
__torch_function__ handlers see).
"""

from __future__ import annotations

from typing import Any, Callable

from .._tensor.creation import tensor
from .._tensor.device import CPU
from .._tensor.dtype import dtype as _dtype
from .._tensor.function_modes import call_mode, mode_on, track
from .._tensor.members import MODES, declare
from .._tensor.tensor import Size, Tensor
from .._tensor.torch_function import dispatch_from_binding, needs_override
from .fastcall import aten, call, call_kw

_function_modes = False  # whether any thread has a TorchFunctionMode (function_modes keeps it)
track(globals())

_SIZE_TYPES = (tuple, list, Size)


def _size(args: tuple) -> list[int] | None:
    """The size of zeros(2, 3) / zeros((2, 3)) / zeros([2, 3]) as a list, if plain ints."""
    if len(args) == 1 and type(args[0]) in _SIZE_TYPES:
        args = args[0]
    elif not args:
        return None
    for value in args:
        if type(value) is not int:
            return None
    return list(args)


def _size_factory(op_name: str, generated: Callable) -> Callable:
    """zeros/ones/empty/rand/randn(size, dtype=None)."""
    op = aten(op_name)
    python_op = generated._python_op

    def function(*args: Any, **kwargs: Any) -> Any:
        if not (_function_modes and mode_on()) and (not kwargs or (len(kwargs) == 1 and type(kwargs.get("dtype")) is _dtype)):
            size = _size(args)
            if size is not None:
                options = {"dtype": kwargs["dtype"]} if kwargs else {}
                options["device"] = CPU
                options["pin_memory"] = False
                return call_kw(op, 0, (size,), options)
        if needs_override(args, kwargs):
            return dispatch_from_binding(function, args, kwargs)
        return python_op(args, kwargs)

    return function


def _arange(generated: Callable) -> Callable:
    """arange(end) / arange(start, end) / arange(start, end, step) with plain ints."""
    overloads = (aten("arange"), aten("arange.start"), aten("arange.start_step"))
    python_op = generated._python_op

    def function(*args: Any, **kwargs: Any) -> Any:
        if not kwargs and 0 < len(args) <= 3 and not (_function_modes and mode_on()) and all(type(a) is int for a in args):
            op = overloads[len(args) - 1]
            if len(args) == 3 and args[2] == 1:  # arange.start_step, its step equal to the default dropped
                args = args[:2]
            return call_kw(op, 0, args, {"device": CPU, "pin_memory": False})
        if needs_override(args, kwargs):
            return dispatch_from_binding(function, args, kwargs)
        return python_op(args, kwargs)

    return function


def new_tensor_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Tensor.new_tensor, seen by a TorchFunctionMode."""
    if _function_modes and mode_on():
        return call_mode(Tensor.new_tensor, self, *args, **kwargs)
    return new_tensor(self, *args, **kwargs)


new_tensor_method.__name__ = new_tensor_method.__qualname__ = "new_tensor"


def new_tensor(self: Tensor, data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
               layout: Any = None, pin_memory: bool = False) -> Tensor:
    """x.new_tensor(data): a copy of data with x's dtype and device unless given (Python-level in torch too)."""
    return tensor(data, dtype=dtype or self._dtype, device=device or self._device, requires_grad=requires_grad)


declare("new_tensor", new_tensor_method, checks=MODES)

_FACTORIES = {"zeros": "zeros", "ones": "ones", "empty": "empty.memory_format", "rand": "rand", "randn": "randn"}


def install(namespace: dict[str, Any]) -> None:
    """Put these in front of the generated functions in `namespace` (torchpy's globals)."""
    for name, op_name in _FACTORIES.items():
        namespace[name] = _wrap(name, _size_factory(op_name, namespace[name]), namespace[name])
    namespace["arange"] = _wrap("arange", _arange(namespace["arange"]), namespace["arange"])


def _wrap(name: str, fast: Callable, generated: Callable) -> Callable:
    fast.__name__ = name
    fast.__qualname__ = getattr(generated, "__qualname__", name)
    fast.__doc__ = getattr(generated, "__doc__", None)
    fast._python_op = generated._python_op  # type: ignore[attr-defined]
    return fast
