"""torchpy.library.custom_op: a Python function turned into a dispatcher operator.

What a custom op registers, as torch 2.13 does (each in its own FRAGMENT library,
so redefining the op, or a failed definition, removes all of it):

* the schema (inferred from type hints, or `schema=`), tagged pt2_compliant_tag;
* Meta: the fake impl (`register_fake`); a mutating op that returns nothing has a
  trivial one, any other op without one raises;
* Autograd: a generated autograd.Function (see autograd.py) calling the backward
  given to `register_autograd`, or raising at backward time when there is none;
* ADInplaceOrView (ops that mutate): bump the mutated tensors' versions, then run
  the op (the kernel's own in-place ops count too, as in torch);
* the user's function at CompositeExplicitAutograd (device_types=None) or at the
  device types' backend keys, checking that no output aliases an input or another
  output; BackendSelect picks the backend from a `device` argument when the op
  takes no tensors.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import weakref
from typing import Any, Callable, Iterable, Iterator, Sequence

from .._dispatch import keys as K
from .._dispatch.keys import DispatchKey
from .._dispatch.library import Library, dispatch_key_for_device
from .._dispatch.ops import op_for
from .._dispatch.schema import parse_schema
from .._features.torch_dispatch_rules import register_torch_dispatch_rule
from .._tensor.tensor import Tensor
from . import fake_impl
from .autograd import make_autograd_impl
from .infer_schema import _normalize_tags, infer_schema

log = logging.getLogger(__name__)

_AFTER_AD_INPLACE_OR_VIEW = K.full_after(DispatchKey.ADInplaceOrView)

OPDEFS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # "ns::name" -> CustomOpDef
_OPDEF_LIBS: dict[str, Library] = {}  # "ns::name" -> the library holding its registrations


def custom_op(
    name: str,
    fn: Callable | None = None,
    /,
    *,
    mutates_args: str | Iterable[str],
    device_types: str | Sequence[str] | None = None,
    schema: str | None = None,
    tags: Any = None,
) -> Any:
    """Wrap `fn` into the operator `name` ("ns::name"); usable as a decorator."""

    def inner(fn: Callable) -> CustomOpDef:
        normalized = _normalize_tags(tags)
        if schema is None:
            schema_str = infer_schema(fn, mutates_args=mutates_args, tags=normalized)
        else:
            schema_str = schema
        namespace, opname = name.split("::")
        result = CustomOpDef(namespace, opname, schema_str, fn, normalized)
        try:
            if schema is not None:
                _check_mutates_args(result, mutates_args, schema)
            result.register_kernel(device_types)(fn)
        except BaseException:
            result._undefine()  # a failed definition leaves no operator behind
            raise
        return result

    return inner if fn is None else inner(fn)


def _check_mutates_args(opdef: "CustomOpDef", mutates_args: Any, schema: str) -> None:
    expected = {a.name for a in opdef._opoverload._schema.arguments
                if a.alias_info is not None and a.alias_info.is_write}
    if expected != set(mutates_args):
        raise ValueError(
            f"Attempted to create a custom op with `mutates_args={mutates_args}` and `schema={schema}. "
            f"The schema suggests that the op mutates {expected}which is different from what was "
            "provided to us in `mutates_args`. Please make these consistent."
        )


def _library_allowing_overwrite(namespace: str, name: str) -> Library:
    """A fresh library for the op; an earlier custom op of that name is removed first."""
    qualname = f"{namespace}::{name}"
    previous = _OPDEF_LIBS.pop(qualname, None)
    if previous is not None:
        previous._destroy()
    lib = Library(namespace, "FRAGMENT")
    _OPDEF_LIBS[qualname] = lib
    return lib


# --- schema facts -------------------------------------------------------------------------------

def _is_tensor_like(arg: Any) -> bool:
    return arg.type.base_name == "Tensor"


def _is_view_op(schema: Any) -> bool:
    return any(r.alias_info is not None and not r.alias_info.is_write for r in schema.returns)


def _is_mutable(schema: Any) -> bool:
    return any(a.alias_info is not None and a.alias_info.is_write for a in schema.arguments)


def is_functional_schema(schema: Any, *, allow_valid_view: bool = False) -> bool:
    """No argument written, at least one return, and (if allowed) at most a one-tensor view."""
    if _is_mutable(schema):
        return False
    if _is_view_op(schema):
        n_in = sum(1 for a in schema.arguments if str(a.type) == "Tensor")
        n_out = sum(1 for r in schema.returns if str(r.type) == "Tensor")
        return allow_valid_view and n_in == 1 and n_out == 1
    return bool(schema.returns)


def _device_arg_index(schema: Any) -> int | None:
    for index, arg in enumerate(schema.arguments):
        if str(arg.type) == "Device" and arg.name == "device":
            return index
    return None


def _storages(values: Iterable[Any]) -> Iterator[Any]:
    """The storage of every tensor among `values`, looking one level into lists and tuples."""
    for value in values:
        if isinstance(value, Tensor):
            yield value.untyped_storage()
        elif isinstance(value, (list, tuple)):
            for item in value:
                if isinstance(item, Tensor):
                    yield item.untyped_storage()


def _output_aliases(args: tuple, kwargs: dict, result: Any) -> bool:
    seen = {id(s) for s in _storages((*args, *kwargs.values()))}
    for storage in _storages(result if isinstance(result, tuple) else (result,)):
        if id(storage) in seen:
            return True
        seen.add(id(storage))
    return False


# --- the op -----------------------------------------------------------------------------------

class CustomOpDef:
    """What custom_op returns: callable as the op, with methods registering more behaviour."""

    def __init__(self, namespace: str, name: str, schema: str, fn: Callable, tags: Any = None) -> None:
        self._namespace = namespace
        self._name = name
        self._schema = schema
        self._tags = _normalize_tags(tags)
        self._init_fn = fn
        self._backend_fns: dict[str | None, Callable] = {}
        self._abstract_fn: Callable | None = None
        self._setup_context_fn: Callable | None = None
        self._backward_fn: Callable | None = None
        self._torch_dispatch_fns: dict[type, Callable] = {}
        self._disabled_kernel: set = set()
        self._has_backend_select = False
        previous = OPDEFS.get(self._qualname)
        self._lib = _library_allowing_overwrite(namespace, name)
        try:
            self._register_to_dispatcher(self._tags)
        except BaseException:
            self._undefine()
            raise
        if previous is not None:  # the old object now calls the new op, as torch's does
            previous._opoverload = self._opoverload
        OPDEFS[self._qualname] = self

    @property
    def _qualname(self) -> str:
        return f"{self._namespace}::{self._name}"

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._opoverload(*args, **kwargs)

    def _undefine(self) -> None:
        if _OPDEF_LIBS.get(self._qualname) is self._lib:
            del _OPDEF_LIBS[self._qualname]
        self._lib._destroy()

    # --- registration at definition ------------------------------------------------------------

    def _register_to_dispatcher(self, tags: Sequence[str]) -> None:
        schema_str = self._name + self._schema
        parsed = parse_schema(schema_str)  # unqualified, so parse errors point where torch's do
        if any(a.kwarg_only and _is_tensor_like(a) for a in parsed.arguments):
            raise NotImplementedError(
                "custom_op with kwarg-only Tensor args. Please make your tensors not kwarg-only. "
                f"Got: {schema_str}"
            )
        self._lib.define(schema_str, tags=("pt2_compliant_tag", *(t for t in tags if t != "pt2_compliant_tag")))
        self._opoverload = op_for(self._qualname)
        self._register_fake_kernel()
        self._lib._impl_raw(self._name, make_autograd_impl(self._opoverload, self), "Autograd")
        if _is_mutable(self._opoverload._schema):
            self._register_version_bump()

    def _register_fake_kernel(self) -> None:
        schema = self._opoverload._schema
        trivial = _is_mutable(schema) and not schema.returns

        def fake(*args: Any, **kwargs: Any) -> Any:
            if self._abstract_fn is not None:
                return self._abstract_fn(*args, **kwargs)
            if trivial:  # mutates and returns nothing: nothing to compute on meta
                return None
            raise RuntimeError(
                f"There was no fake impl registered for {self}. This is necessary for "
                "torch.compile/export/fx tracing to work. Please use "
                f"`{self._init_fn.__name__}.register_fake` to add an fake impl."
            )

        handle = fake_impl.holder_for(self._qualname).register(fake, _source(self._init_fn), self._lib)
        self._lib._handles.append(handle)

    def _register_version_bump(self) -> None:
        schema = self._opoverload._schema
        mutated = [(i, a.name, a.kwarg_only) for i, a in enumerate(schema.arguments)
                   if a.alias_info is not None and a.alias_info.is_write]

        def ad_inplace_or_view(op: Any, ks: int, args: tuple, kwargs: dict) -> Any:
            # Bump first and leave the TLS as it is: in-place ops inside the kernel bump again.
            for index, name, kwarg_only in mutated:
                value = kwargs.get(name) if kwarg_only else (args[index] if index < len(args) else None)
                for t in value if isinstance(value, (list, tuple)) else (value,):
                    if isinstance(t, Tensor):
                        t._bump_version()
            return op.redispatch_raw(ks & _AFTER_AD_INPLACE_OR_VIEW, args, kwargs)

        # Replaces the generic in-place kernel torchpy gives every mutating op.
        self._lib._impl_raw(self._name, ad_inplace_or_view, "ADInplaceOrView", warn_override=False)

    # --- public registration methods -----------------------------------------------------------

    def register_kernel(self, device_types: str | Sequence[str] | None, fn: Callable | None = None, /) -> Callable:
        """Register `fn` as the implementation for `device_types` ("cpu", "cuda", ...; None: all)."""

        def inner(fn: Callable) -> Callable:
            types = [device_types] if device_types is None or isinstance(device_types, str) else list(device_types)
            for device_type in types:
                if device_type not in self._backend_fns:
                    key = "CompositeExplicitAutograd" if device_type is None else dispatch_key_for_device(device_type)
                    self._lib.impl(self._name, self._backend_impl(device_type), key)
                self._backend_fns[device_type] = self._enabled_or_default(device_type, fn)
            return fn

        schema = self._opoverload._schema
        if device_types is not None and not any(_is_tensor_like(a) for a in schema.arguments):
            index = _device_arg_index(schema)
            if index is None:
                raise ValueError(
                    "Functions without tensor inputs are required to have a `device: torch.device` argument"
                )
            self._register_backend_select(index)
        return inner if fn is None else inner(fn)

    def _enabled_or_default(self, device_type: str | None, fn: Callable) -> Callable:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if device_type in self._disabled_kernel:
                return self._init_fn(*args, **kwargs)
            return fn(*args, **kwargs)

        return wrapped

    def _backend_impl(self, device_type: str | None) -> Callable:
        def backend_impl(*args: Any, **kwargs: Any) -> Any:
            result = self._backend_fns[device_type](*args, **kwargs)
            if not _is_view_op(self._opoverload._schema) and _output_aliases(args, kwargs, result):
                raise RuntimeError(
                    f"{self._name} (with implementation in {inspect.getmodule(backend_impl)}): The output "
                    "of this custom operator (1) must not also be an input to this custom operator and "
                    "(2) may not alias any inputs to this custom operator or other returns. The most "
                    "common way to trigger this error is if we have y = custom_op(x) and y and x are the "
                    "same Tensor. Please instead return a clone of the offending output tensor(s) (e.g. "
                    "return x.clone()) or refactor the custom operator to not return y."
                )
            return result

        return backend_impl

    def _register_backend_select(self, device_arg_index: int) -> None:
        if self._has_backend_select:
            return
        self._has_backend_select = True

        def backend_select(*args: Any, **kwargs: Any) -> Any:
            device_type = args[device_arg_index].type
            if device_type not in self._backend_fns:
                raise RuntimeError(
                    f"{self._name} does not have a kernel registered for {device_type}. "
                    "Please use register_kernel to do so."
                )
            key = K.parse_key(dispatch_key_for_device(device_type))
            return self._opoverload.redispatch_raw(K.key_bits(key), args, kwargs)

        self._lib.impl(self._name, backend_select, "BackendSelect")

    def register_fake(self, fn: Callable, /) -> Callable:
        """Register the fake (meta) implementation: output metadata from input metadata."""
        self._abstract_fn = fn
        return fn

    def register_autograd(self, backward: Callable, /, *, setup_context: Callable | None = None) -> None:
        """backward(ctx, *grads) -> one grad per input; setup_context(ctx, inputs, output) saves."""
        schema = self._opoverload._schema
        if not is_functional_schema(schema, allow_valid_view=True):
            raise RuntimeError(
                f"Cannot register autograd formula for non-functional operator {self} with schema "
                f"{schema}. Please create a functional operator and register an autograd formula for that."
            )
        self._backward_fn = backward
        self._setup_context_fn = setup_context

    def register_torch_dispatch(self, torch_dispatch_class: Any, fn: Callable | None = None, /) -> Callable:
        """Use `fn` instead of `torch_dispatch_class.__torch_dispatch__` for this op."""
        def register(fn: Callable) -> Callable:
            if torch_dispatch_class not in self._torch_dispatch_fns:
                def rule(*args: Any, **kwargs: Any) -> Any:
                    return self._torch_dispatch_fns[torch_dispatch_class](*args, **kwargs)

                self._lib._handles.append(register_torch_dispatch_rule(self._opoverload, torch_dispatch_class, rule))
            self._torch_dispatch_fns[torch_dispatch_class] = fn
            return fn

        return register if fn is None else register(fn)

    @contextlib.contextmanager
    def set_kernel_enabled(self, device_type: str, enabled: bool = True) -> Iterator[None]:
        """Temporarily disable (or re-enable) the kernel registered for `device_type`."""
        action = "enable" if enabled else "disable"
        originally_disabled = device_type in self._disabled_kernel
        if device_type not in self._backend_fns:
            log.warning("Attempted to %s kernel for %s but no kernel was registered for this device type.",
                        action, device_type)
        if not enabled:
            if originally_disabled:
                log.warning("Attempted to disable kernel for %s but it was already disabled.", device_type)
            self._disabled_kernel.add(device_type)
        else:
            if not originally_disabled:
                log.warning("Attempted to enable kernel for  %s but it was already enabled.", device_type)
            self._disabled_kernel.discard(device_type)
        try:
            yield
        finally:
            if originally_disabled:
                self._disabled_kernel.add(device_type)
            else:
                self._disabled_kernel.discard(device_type)


def _source(fn: Callable) -> str:
    try:
        return f"{inspect.getsourcefile(fn)}:{inspect.getsourcelines(fn)[1]}"
    except (OSError, TypeError):
        return "<unknown>"


def maybe_get_opdef(op: Any) -> CustomOpDef | None:
    """The CustomOpDef behind a CustomOpDef, OpOverload or "ns::name", if it is a custom op."""
    if isinstance(op, CustomOpDef):
        return op
    if not isinstance(op, str):
        op = op.name()
    return OPDEFS.get(op)
