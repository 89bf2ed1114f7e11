"""The functions of torchpy's public namespaces, made once from the op table.

`functions` holds what `torchpy.<name>` is (torchpy.add, torchpy.where, torchpy.zeros, ...)
and `linalg` what `torchpy.linalg.<name>` is. The package root and torchpy.linalg copy them;
autograd's formulas, nn and the Python-level functions of this layer call them from here,
so nothing below the package root imports the package root. torchpy._aten fills both when
the op table is built.
"""

from __future__ import annotations

import types

from . import fast_methods
from .build import FUNCTIONS
from .positional import make_positional_function, probe_tensor
from .python_api import make_function

functions = types.SimpleNamespace()  # torchpy.<name>
linalg = types.SimpleNamespace()  # torchpy.linalg.<name>


def public_functions(module: str = "") -> dict[str, object]:
    """name -> callable for the functions the table puts in torchpy.<module> (new callables
    each time: the public namespaces are made once, by torchpy._aten)."""
    probe = probe_tensor()
    # with positional fast paths from the schema where plain-int / plain-tensor calls have them
    made = {name: make_positional_function(op, probe) or make_function(op)
            for (mod, name), op in FUNCTIONS.items() if mod == module}
    if not module:
        made.update(fast_methods.fast_functions(made))  # torch.cat & co.
    return made
