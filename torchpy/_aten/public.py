"""The functions of torchpy's public namespaces, made once from the op table.

`functions` holds what `torchpy.<name>` is (torchpy.add, torchpy.where, torchpy.zeros, ...)
and `linalg` what `torchpy.linalg.<name>` is. The package root and torchpy.linalg copy them;
autograd's formulas, nn and the Python-level functions of this layer call them from here,
so nothing below the package root imports the package root. torchpy._aten fills both when
the op table is built.
"""

from __future__ import annotations

import types
from typing import Any, Callable

from .._tensor.function_modes import mode_on, track
from .._tensor.tensor import Tensor
from .._tensor.torch_function import handle_torch_function, needs_override
from .build import FUNCTIONS
from .positional import make_positional_function, probe_tensor
from .positional_functions import make_value_first_function
from .python_api import make_function

_function_modes = False  # whether any thread has a TorchFunctionMode (function_modes keeps it)
track(globals())

functions = types.SimpleNamespace()  # torchpy.<name>
linalg = types.SimpleNamespace()  # torchpy.linalg.<name>


def public_functions(module: str = "") -> dict[str, object]:
    """name -> callable for the functions the table puts in torchpy.<module> (new callables
    each time: the public namespaces are made once, by torchpy._aten)."""
    probe = probe_tensor()
    # with positional fast paths from the schema where plain-int / plain-tensor calls have them
    # (a Tensor first: positional.py; else factories, torch.cat & co.: positional_functions.py)
    made = {name: make_positional_function(op, probe) or make_value_first_function(op, probe) or make_function(op)
            for (mod, name), op in FUNCTIONS.items() if mod == module}
    if not module:
        for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
            made[name] = _atleast(made[name])
    return made


def _atleast(generated: Callable) -> Callable:
    """torch.atleast_1d(a) / atleast_1d(a, b) / atleast_1d([a, b]): varargs, Python-level in torch
    (torch/functional.py), so its overrides see the tensors as the arguments."""

    def function(*tensors: Any) -> Any:
        if len(tensors) == 1 and type(tensors[0]) is Tensor and not (_function_modes and mode_on()):
            return generated(tensors[0])  # the usual call, no override possible
        if needs_override(tensors, {}):
            return handle_torch_function(function, tensors, *tensors)
        return generated(tensors[0] if len(tensors) == 1 else tensors)

    function.__name__ = function.__qualname__ = generated.__name__
    function.__doc__ = generated.__doc__
    return function
