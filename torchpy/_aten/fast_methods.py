"""Hand-written bindings for the hot functions the generated positional fast paths
(positional.py) do not cover: torch.cat / stack / concat / concatenate, and atleast_*.

They make the same aten call as the generated binding, for the common argument forms only
(a list or tuple of plain tensors, an int dim), skipping overload resolution and argument
binding; any other form goes to the generated function, which handles everything. A
TorchFunctionMode still sees every call: while one is active they defer to it as
generated bindings do.
"""

from __future__ import annotations

from typing import Any, Callable

from .._tensor.function_modes import mode_on, track
from .._tensor.tensor import Tensor
from .fastcall import aten, call

_function_modes = False  # whether any thread has a TorchFunctionMode (function_modes keeps it)
track(globals())


def _joining_function(name: str, op_name: str) -> Callable:
    """torch.cat([a, b], 1) / torch.stack((a, b)): a list or tuple of plain tensors and an int dim."""
    op = aten(op_name)

    def function(*args: Any, **kwargs: Any) -> Any:
        if len(args) + len(kwargs) <= 2 and not (_function_modes and mode_on()):
            tensors = args[0] if args else kwargs.get("tensors")
            dim = args[1] if len(args) > 1 else kwargs.get("dim", 0)
            if (len(kwargs) == 0 or set(kwargs) <= {"dim", "tensors"}) and type(tensors) in (list, tuple) \
                    and type(dim) is int:
                ks = 0
                for t in tensors:
                    if type(t) is not Tensor:
                        break
                    ks |= t._keyset
                else:
                    if dim == 0:
                        return call(op, ks, list(tensors))
                    return call(op, ks, list(tensors), dim)
        return _GENERATED_FUNCTIONS[name](*args, **kwargs)

    return function


_GENERATED_FUNCTIONS: dict[str, Callable] = {}


def fast_functions(generated: dict[str, Callable]) -> dict[str, Callable]:
    """Fast torch.<name> functions to stand in front of the generated ones in `generated`."""
    fast = {}
    for name, op_name in (("cat", "cat"), ("concat", "concat"), ("concatenate", "concatenate"), ("stack", "stack")):
        if name in generated:
            _GENERATED_FUNCTIONS[name] = generated[name]
            function = _joining_function(name, op_name)
            function.__name__ = name
            function.__qualname__ = generated[name].__qualname__
            function._python_op = getattr(generated[name], "_python_op", None)  # type: ignore[attr-defined]
            fast[name] = function
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        if name in generated:
            fast[name] = _atleast(generated[name])
    return fast


def _atleast(generated: Callable) -> Callable:
    """torch.atleast_1d(a) / atleast_1d(a, b) / atleast_1d([a, b]), as torch/functional.py takes them."""

    def function(*tensors: Any) -> Any:
        return generated(tensors[0] if len(tensors) == 1 else tensors)

    function.__name__ = function.__qualname__ = generated.__name__
    return function
