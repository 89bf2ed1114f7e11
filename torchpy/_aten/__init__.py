"""The operator library: the op table, its kernels, and the public API built from them.

Importing this package (torchpy does at import) loads native_functions/*.yaml,
defines every op in the dispatcher under `aten`, registers the kernels the table
names, and attaches the public functions, Tensor methods and operator dunders.
"""

from __future__ import annotations

from .._tensor import converters, members
from . import dunders, kernels  # noqa: F401  (kernels: registers them)
from .build import FUNCTIONS, METHODS, build_python_api, register_native_functions
from .positional import make_positional_method, probe_tensor
from .python_api import make_method

converters.install()
register_native_functions()
build_python_api()

_PROBE = probe_tensor()
for _name, _python_op in METHODS.items():  # Tensor's method table, with the members declared by hand
    # with positional fast paths from the schema where plain-int / plain-tensor calls have them
    members.declare_generated(_name, make_positional_method(_python_op, _PROBE) or make_method(_python_op))
dunders.declare_members(METHODS)

from . import indexing, tensor_methods  # noqa: E402,F401  (x[i], x[i] = v; to(), float(), T, contiguous(), ...)

tensor_methods.declare_members()

from .._tensor.creation import as_tensor, tensor  # noqa: E402
from .._tensor.promotion import can_cast, promote_types  # noqa: E402
from .._tensor.torch_function import mode_checked  # noqa: E402
from . import public  # noqa: E402
from .kernels.einsum import einsum_public  # noqa: E402
from .kernels.indexing import nonzero_public  # noqa: E402
from .public import public_functions  # noqa: E402,F401  (nn.functional and _C make theirs with it)
from .python_reductions import norm  # noqa: E402
from .functional import FUNCTIONS as _python_level  # noqa: E402

_functions = vars(public.functions)
_functions.update(public_functions())
_functions["einsum"] = einsum_public  # varargs and sublists: Python-level in torch
_functions["norm"] = norm  # Python-level in torch too
_functions["nonzero"] = nonzero_public  # as_tuple= is Python-level in torch
_functions.update(_python_level)  # meshgrid, broadcast_tensors, result_type, range, ...: Python-level in torch
# ignored by __torch_function__ in torch, but its modes see them (they pass its argument parser)
for _function in (tensor, as_tensor, can_cast, promote_types):
    _functions[_function.__name__] = mode_checked(_function)
vars(public.linalg).update(public_functions("linalg"))
