"""torch._C-compatible entry points to the dispatcher (torchpy._C).

PyTorch exposes its C++ dispatcher to Python through torch._C; code that
introspects dispatch (tests, debugging helpers, subclass libraries) calls
these names, so torchpy offers the same ones over its Python dispatcher.
"""

from __future__ import annotations

from typing import Any

from ._dispatch import keys as _keys
from ._dispatch import tls as _tls
from ._dispatch.dispatcher import dispatcher as _dispatcher
from ._dispatch.keys import BackendComponent, DispatchKey, DispatchKeySet
from ._dispatch.library import dispatch_key_for_device
from ._dispatch.schema import FunctionSchema, parse_schema
from ._aten import public_functions
from ._tensor.subclassing import _disabled_torch_dispatch_impl  # noqa: F401
from ._tensor.torch_function import (  # noqa: F401
    DisableTorchFunction, DisableTorchFunctionSubclass, _disabled_torch_function_impl, _is_torch_function_enabled,
    _is_torch_function_mode_enabled,
)
from .autograd.engine import current_graph_task_id
from .utils._python_dispatch import _DisableTorchDispatch  # noqa: F401

__all__ = [
    "BackendComponent", "DispatchKey", "DispatchKeySet", "FunctionSchema", "parse_schema",
]


def _entry(name: str) -> Any:
    entry = _dispatcher.find(name)
    if entry is None:
        raise RuntimeError(f"Could not find operator {name}")
    return entry


def _dispatch_dump_table(name: str) -> str:
    """Every runtime key's kernel for operator 'ns::op.overload', with PyTorch's labels."""
    return _entry(name).dump_table()


def _dispatch_dump(name: str) -> str:
    """The registrations (schema and kernels per key, newest first) of an operator."""
    return _entry(name).dump_registrations()


def _dispatch_find_schema_or_throw(name: str, overload_name: str = "") -> Any:
    return _dispatcher.find_schema_or_throw(f"{name}.{overload_name}" if overload_name else name).schema


def _dispatch_get_all_op_names() -> list[str]:
    return [n for n, e in _dispatcher.entries.items() if e.schema is not None]


def _dispatch_has_kernel_for_dispatch_key(name: str, key: DispatchKey | str) -> bool:
    """True if a kernel was registered at exactly `key` (a runtime or alias key)."""
    entry = _dispatcher.find(name)
    return entry is not None and _keys.parse_key(key) in entry.kernels


def _dispatch_has_computed_kernel_for_dispatch_key(name: str, key: DispatchKey | str) -> bool:
    entry = _dispatcher.find(name)
    return entry is not None and entry.table[_keys.parse_key(key)] is not None


def _dispatch_has_backend_fallback(key: DispatchKey) -> bool:
    return _dispatcher.has_backend_fallback(key)


def _dispatch_keys(tensor: Any) -> DispatchKeySet:
    return DispatchKeySet.from_raw_repr(tensor._keyset)


def _dispatch_key_name(key: DispatchKey) -> str:
    return _keys.key_name(key)


def _dispatch_key_parse(name: str) -> DispatchKey:
    return _keys.parse_key(name)


def _dispatch_is_alias_key(key: DispatchKey) -> bool:
    return _keys.is_alias_key(key)


def _dispatch_is_included_in_alias(key: DispatchKey, alias: DispatchKey) -> bool:
    return _keys.is_included_in_alias(key, alias)


def _dispatch_keyset_full() -> DispatchKeySet:
    return DispatchKeySet.from_raw_repr(_keys.FULL_KEYSET_BITS)


def _dispatch_keyset_full_after(key: DispatchKey) -> DispatchKeySet:
    return DispatchKeySet.from_raw_repr(_keys.full_after(key))


def _dispatch_tls_local_include_set() -> DispatchKeySet:
    return _tls.local_include_set()


def _dispatch_tls_local_exclude_set() -> DispatchKeySet:
    return _tls.local_exclude_set()


def _dispatch_tls_is_dispatch_key_included(key: DispatchKey) -> bool:
    return _tls.is_key_included(key)


def _dispatch_tls_is_dispatch_key_excluded(key: DispatchKey) -> bool:
    return _tls.is_key_excluded(key)


def _dispatch_tls_set_dispatch_key_included(key: DispatchKey, value: bool) -> None:
    _tls.set_key_included(key, value)


def _dispatch_tls_set_dispatch_key_excluded(key: DispatchKey, value: bool) -> None:
    _tls.set_key_excluded(key, value)


_IncludeDispatchKeyGuard = _tls.IncludeDispatchKeyGuard
_ExcludeDispatchKeyGuard = _tls.ExcludeDispatchKeyGuard
ExcludeDispatchKeyGuard = _tls.ExcludeDispatchKeyGuard
_PreserveDispatchKeyGuard = _tls.PreserveDispatchKeyGuard

# Key sets kernels mask with before redispatching (as torch._C exposes them).
_after_autograd_keyset = DispatchKeySet.from_raw_repr(_keys.full_after(DispatchKey.AutogradOther))
_after_ADInplaceOrView_keyset = DispatchKeySet.from_raw_repr(_keys.full_after(DispatchKey.ADInplaceOrView))


def _dispatch_key_for_device(device_type: str) -> str:
    """"cpu" -> "CPU": the backend key a device type's kernels go to."""
    return dispatch_key_for_device(device_type)


_current_graph_task_id = current_graph_task_id


def __getattr__(name: str):
    if name == "_nn":
        return _nn_module()  # made on first use
    raise AttributeError(f"module 'torchpy._C' has no attribute '{name}'")


def _nn_module() -> Any:
    """torch._C._nn: the op table's python_module: nn functions (made once, on first use)."""
    import sys
    import types

    module = sys.modules.get("torchpy._C._nn")
    if module is None:
        module = types.ModuleType("torchpy._C._nn")
        module.__dict__.update(public_functions("nn"))
        sys.modules["torchpy._C._nn"] = module
    return module


class _VariableFunctionsClass:
    """torch._C._VariableFunctions: the namespace torch copies its operator functions from
    (torch.add is _VariableFunctionsClass.add). Filled once the op library is built."""


_VariableFunctions = _VariableFunctionsClass()


def _fill_variable_functions(namespace: dict) -> None:
    for name, obj in namespace.items():
        if getattr(obj, "_python_op", None) is not None and not getattr(obj, "_is_method", False):
            setattr(_VariableFunctions, name, obj)
