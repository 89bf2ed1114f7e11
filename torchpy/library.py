"""torchpy.library: torch.library's API over torchpy's dispatcher."""

from __future__ import annotations

import sys
from typing import Any, Callable, Sequence

from ._dispatch import library as _lowlevel
from ._dispatch.library import (  # noqa: F401
    Library,
    define,
    fallthrough_kernel,
    impl,
)
from ._dispatch.ops import OpOverload, op_for
from ._library import fake_impl as _fake_impl
from ._library.autograd import Info as _AutogradInfo
from ._library.autograd import make_autograd_impl as _make_autograd_impl
from ._library.custom_ops import CustomOpDef, custom_op, is_functional_schema, maybe_get_opdef
from ._library.infer_schema import infer_schema
from ._features.torch_dispatch_rules import register_torch_dispatch_rule as _register_rule

__all__ = [
    "Library", "define", "fallthrough_kernel", "impl", "register_kernel", "custom_op", "CustomOpDef",
    "infer_schema", "register_fake", "register_autograd", "register_torch_dispatch", "get_ctx",
]

get_ctx = _fake_impl.get_ctx


def _resolve(op: Any, registration_name: str) -> str | CustomOpDef:
    """A CustomOpDef when `op` names a custom op, else the op's qualified name."""
    if not isinstance(op, (str, OpOverload, CustomOpDef)):
        raise ValueError(f"{registration_name}({op}): got unexpected type for op: {type(op)}")
    opdef = maybe_get_opdef(op)
    if opdef is not None:
        return opdef
    return op if isinstance(op, str) else op.name()


def _library_for(qualname: str, lib: Library | None) -> Library:
    return lib if lib is not None else _lowlevel._fragment(qualname.split("::")[0])


def register_kernel(op: Any, device_types: str | Sequence[str] | None, func: Callable | None = None,
                    /, *, lib: Library | None = None) -> Any:
    """Register `func` for `op` on the given device types (None: every device)."""
    resolved = _resolve(op, "register_kernel")
    if isinstance(resolved, CustomOpDef):
        return resolved.register_kernel(device_types, func)
    return _lowlevel.register_kernel(resolved, device_types, func, lib=lib)


def register_fake(op: Any, func: Callable | None = None, /, *, lib: Library | None = None,
                  _stacklevel: int = 1, allow_override: bool = True) -> Any:
    """Register the fake (meta) implementation of `op`; usable as a decorator."""
    resolved = _resolve(op, "register_fake")
    if isinstance(resolved, CustomOpDef):
        return resolved.register_fake if func is None else resolved.register_fake(func)
    frame = sys._getframe(_stacklevel)
    source = f"{frame.f_code.co_filename}:{frame.f_lineno}"

    def register(func: Callable) -> Callable:
        use_lib = _library_for(resolved, lib)
        holder = _fake_impl.holder_for(resolved)
        use_lib._handles.append(holder.register(func, source, use_lib, allow_override=allow_override))
        return func

    return register if func is None else register(func)


def register_autograd(op: Any, backward: Callable, /, *, setup_context: Callable | None = None,
                      lib: Library | None = None) -> None:
    """Give `op` a backward formula: backward(ctx, *grads) -> one grad per input."""
    resolved = _resolve(op, "register_autograd")
    if isinstance(resolved, CustomOpDef):
        resolved.register_autograd(backward, setup_context=setup_context)
        return
    overload = op_for(resolved)
    schema = overload._schema
    if not is_functional_schema(schema):
        raise RuntimeError(
            f"Cannot register autograd formula for non-functional operator {overload} with schema "
            f"{schema}. Please create a functional operator and register an autograd formula for that."
        )
    if any(a.kwarg_only and a.type.base_name == "Tensor" for a in schema.arguments):
        raise NotImplementedError(
            "register_autograd with kwarg-only Tensor args. In the original definition of the op, please "
            f"make your tensors not kwarg-only. Got: {schema}"
        )
    kernel = _make_autograd_impl(overload, _AutogradInfo(backward, setup_context))
    _library_for(resolved, lib)._impl_raw(resolved.split("::")[1], kernel, "Autograd")


def register_torch_dispatch(op: Any, torch_dispatch_class: Any, func: Callable | None = None, /, *,
                            lib: Library | None = None) -> Any:
    """Use `func` instead of `torch_dispatch_class.__torch_dispatch__` when it handles `op`."""
    resolved = _resolve(op, "register_torch_dispatch")
    if isinstance(resolved, CustomOpDef):
        return resolved.register_torch_dispatch(torch_dispatch_class, func)

    def register(func: Callable) -> Callable:
        handle = _register_rule(op_for(resolved), torch_dispatch_class, func)
        _library_for(resolved, lib)._handles.append(handle)
        return func

    return register if func is None else register(func)
