"""The operator library: the op table, its kernels, and the public API built from them.

Importing this package (torchpy does at import) loads native_functions/*.yaml,
defines every op in the dispatcher under `aten`, registers the kernels the table
names, and attaches the public functions, Tensor methods and operator dunders.
"""

from __future__ import annotations

from .._tensor import converters, members
from . import dunders, kernels  # noqa: F401  (kernels: registers them)
from .build import FUNCTIONS, METHODS, build_python_api, register_native_functions
from .python_api import make_function, make_method

converters.install()
register_native_functions()
build_python_api()

for _name, _python_op in METHODS.items():  # Tensor's method table, with the members declared by hand
    members.declare_generated(_name, make_method(_python_op))
dunders.declare_members(METHODS)

from . import fast_methods, indexing, tensor_methods  # noqa: E402,F401  (x[i], x[i] = v; to(), float(), T, ...)
from . import fast_pointwise  # noqa: E402  (x.exp(), x.add(y), ...)

tensor_methods.declare_members()
fast_methods.declare_members()
fast_pointwise.declare_members()


def public_functions(module: str = "") -> dict[str, object]:
    """name -> callable for the functions the table puts in torchpy.<module>."""
    functions = {name: make_function(op) for (mod, name), op in FUNCTIONS.items() if mod == module}
    if not module:
        functions.update(fast_methods.fast_functions(functions))  # torch.cat & co.
        functions.update(fast_pointwise.fast_functions(functions))  # torch.exp, torch.add & co.
    return functions
