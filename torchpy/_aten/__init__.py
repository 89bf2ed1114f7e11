"""The operator library: the op table, its kernels, and the public API built from them.

Importing this package (torchpy does at import) loads native_functions/*.yaml,
defines every op in the dispatcher under `aten`, registers the kernels the table
names, and attaches the public functions, Tensor methods and operator dunders.
"""

from __future__ import annotations

from .._tensor import converters
from .._tensor.tensor import Tensor
from . import dunders, kernels  # noqa: F401  (kernels: registers them)
from .build import FUNCTIONS, METHODS, build_python_api, register_native_functions
from .python_api import make_function, make_method
from .positional import make_positional_function, make_positional_method, probe_tensor

converters.install()
register_native_functions()
build_python_api()

_PROBE = probe_tensor()
for _name, _python_op in METHODS.items():
    if not hasattr(Tensor, _name):  # hand-written members (shape, size, ...) win
        # with positional fast paths from the schema where plain-int calls have them
        setattr(Tensor, _name, make_positional_method(_python_op, _PROBE) or make_method(_python_op))
dunders.install(METHODS)

from . import fast_methods, indexing, tensor_methods  # noqa: E402  (x[i], x[i] = v; to(), float(), T, ...)
from . import fast_pointwise  # noqa: E402  (x.exp(), x.add(y), ...)

indexing.install()
tensor_methods.install()
fast_methods.install()
fast_pointwise.install()


def public_functions(module: str = "") -> dict[str, object]:
    """name -> callable for the functions the table puts in torchpy.<module>."""
    # with positional fast paths from the schema where plain-int / plain-tensor calls have them
    functions = {name: make_positional_function(op, _PROBE) or make_function(op)
                 for (mod, name), op in FUNCTIONS.items() if mod == module}
    if not module:
        functions.update(fast_methods.fast_functions(functions))  # torch.cat & co.
        functions.update(fast_pointwise.fast_functions(functions))  # torch.exp, torch.add & co.
    return functions
