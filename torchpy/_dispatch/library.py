"""torchpy.library: define operators and register kernels, torch.library-compatible.

A `Library` is the Python face of TORCH_LIBRARY / TORCH_LIBRARY_IMPL /
TORCH_LIBRARY_FRAGMENT. Every registration it makes returns a handle; the
library keeps them and `_destroy()` (also run when the library is garbage
collected) undoes them newest first, so a test or a notebook can register,
experiment and leave every dispatch table as it was.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Iterable, Sequence

from . import keys as K
from .dispatcher import (
    BOXED,
    BOXED_WITH_KEYSET,
    PLAIN,
    RAW,
    WITH_KEYSET,
    Kernel,
    RegistrationHandle,
    caller_location,
    dispatcher,
)
from .schema import parse_schema

_KINDS = ("IMPL", "DEF", "FRAGMENT")
_RESERVED_NAMESPACES = ("prim",)
_live_def_libraries: dict[str, str] = {}  # namespace -> where its DEF library was created


def fallthrough_kernel() -> None:
    """Register this at a key to make the operator skip that key."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


def _undo_all(handles: list[RegistrationHandle], ns: str, is_def: bool, where: str) -> None:
    while handles:
        handles.pop().remove()
    if is_def and _live_def_libraries.get(ns) == where:
        del _live_def_libraries[ns]


class Library:
    """A set of registrations in one namespace: ``Library(ns, "DEF" | "IMPL" | "FRAGMENT")``."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in _KINDS:
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in _RESERVED_NAMESPACES and kind in ("DEF", "FRAGMENT"):
            raise ValueError(
                f"{ns} is a reserved namespace. Please try creating a library with another name."
            )
        if dispatch_key:
            K.parse_key(dispatch_key)  # fail early on a bad key, as PyTorch does
        self._where = caller_location()
        if kind == "DEF":
            if ns in _live_def_libraries:
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please "
                    "put all of your definitions in a single TORCH_LIBRARY block.  If you were trying "
                    "to specify implementations, consider using TORCH_LIBRARY_IMPL (which can be "
                    "duplicated).  If you really intended to define operators for a single namespace "
                    "in a distributed way, you can use TORCH_LIBRARY_FRAGMENT to explicitly indicate "
                    f"this.  Previous registration of TORCH_LIBRARY was {_live_def_libraries[ns]}; "
                    f"latest registration was {self._where}"
                )
            _live_def_libraries[ns] = self._where
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self._handles: list[RegistrationHandle] = []
        self._destroyed = False
        self._finalizer = weakref.finalize(
            self, _undo_all, self._handles, ns, kind == "DEF", self._where
        )

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    @property
    def _block_name(self) -> str:
        return {"DEF": "TORCH_LIBRARY", "IMPL": "TORCH_LIBRARY_IMPL", "FRAGMENT": "TORCH_LIBRARY_FRAGMENT"}[self.kind]

    def _block(self) -> str:
        where = self._where.removeprefix("registered at ")
        return f"(Error occurred while processing {self._block_name} block at {where})"

    def _check_alive(self) -> None:
        if self._destroyed:
            raise AssertionError("Library object has been destroyed")

    # --- define ------------------------------------------------------------------

    def define(self, schema: str, alias_analysis: str = "", *, tags: Iterable[Any] = ()) -> str:
        """Define an operator from a schema string; returns its name (without namespace)."""
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        self._check_alive()
        name = schema.split("(")[0].strip()
        if self.kind == "IMPL":
            raise RuntimeError(
                f'def("{name}"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL block.  '
                "All def()s should be placed in the (unique) TORCH_LIBRARY block for their "
                f"namespace.  {self._block()}"
            )
        if "::" in name:
            ns = name.split("::")[0]
            if ns != self.ns:
                raise RuntimeError(
                    f"Explicitly provided namespace ({ns}) in schema string does not match namespace "
                    f"of enclosing {self._block_name} block ({self.ns}).  Move this definition to the "
                    "(unique) TORCH_LIBRARY block corresponding to this namespace (and consider "
                    f"deleting the namespace from your schema string.)  {self._block()}"
                )
        else:
            schema = f"{self.ns}::{schema.strip()}"
        parsed = parse_schema(schema)
        if isinstance(tags, Iterable) and not isinstance(tags, (str, bytes)):
            tags = tuple(tags)
        else:
            tags = (tags,)
        self._handles.append(dispatcher.define(parsed, caller_location(), tags))
        return name.split("::")[-1].split(".")[0]

    # --- impl --------------------------------------------------------------------

    def _resolve_op_name(self, op_name: Any, what: str) -> str:
        if hasattr(op_name, "name") and callable(op_name.name):  # an OpOverload
            return op_name.name()
        if not isinstance(op_name, str):
            raise TypeError(f"{what}: expected the operator as a string or OpOverload, got {type(op_name)}")
        if "::" in op_name:
            ns = op_name.split("::")[0]
            if ns != self.ns:
                raise RuntimeError(
                    f'{what}("{op_name}", ...): Explicitly provided namespace ({ns}) in operator name '
                    f"does not match namespace of enclosing {self._block_name} block "
                    f"({self.ns}).  Move this definition to the TORCH_LIBRARY block corresponding "
                    "to this namespace (and consider deleting the namespace from your schema "
                    f"string.)  {self._block()}"
                )
            return op_name
        return f"{self.ns}::{op_name}"

    def impl(
        self,
        op_name: Any,
        fn: Callable,
        dispatch_key: str = "",
        *,
        with_keyset: bool = False,
        allow_override: bool = True,
    ) -> None:
        """Register `fn` for operator `op_name` at `dispatch_key` (default: the library's key,
        else CompositeImplicitAutograd)."""
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        self._check_alive()
        if dispatch_key == "":
            dispatch_key = self.dispatch_key
        qualified = self._resolve_op_name(op_name, "impl")
        if self.kind == "IMPL" and self.dispatch_key and dispatch_key != self.dispatch_key:
            raise RuntimeError(
                f'impl("{qualified.split("::")[-1]}", ...): Explicitly provided dispatch key '
                f"({dispatch_key}) is inconsistent with the dispatch key of the enclosing "
                f"TORCH_LIBRARY_IMPL block ({self.dispatch_key}).  Please declare a separate "
                "TORCH_LIBRARY_IMPL block for this dispatch key and move your impl() there.  "
                f"{self._block()}"
            )
        key = K.parse_key(dispatch_key or "CompositeImplicitAutograd")
        entry = dispatcher.find(qualified)
        if not allow_override and entry is not None and key in entry.kernels:
            raise RuntimeError(
                "This is not allowed since there's already a kernel registered from python "
                f"overriding {qualified.split('::')[-1]}'s behavior for {key.name} dispatch key "
                f"and {self.ns} namespace."
            )
        if key == K.DispatchKey.Meta and entry is not None and K.DispatchKey.CompositeImplicitAutograd in entry.kernels:
            raise RuntimeError(
                f"We should not register a meta kernel directly to the operator '{qualified.split('::')[-1]}',"
                " because it has a CompositeImplicitAutograd kernel in core. Instead we should let the "
                "operator decompose, and ensure that we have meta kernels for the base ops that it "
                "decomposes into."
            )
        if fn is fallthrough_kernel:
            kernel = Kernel(None, PLAIN, caller_location(), is_fallthrough=True)
        else:
            kernel = Kernel(fn, WITH_KEYSET if with_keyset else PLAIN, caller_location())
        self._handles.append(dispatcher.register_kernel(qualified, key, kernel))

    def _impl_raw(self, op_name: str, fn: Callable, dispatch_key: str, *, warn_override: bool = True) -> None:
        """Register `fn(op, keyset: int, args, kwargs)` (torchpy's RAW convention, no key-set
        object per call) for torchpy's own Python-level features such as custom ops."""
        self._check_alive()
        qualified = self._resolve_op_name(op_name, "impl")
        kernel = Kernel(fn, RAW, caller_location())
        handle = dispatcher.register_kernel(qualified, K.parse_key(dispatch_key), kernel,
                                            warn_override=warn_override)
        self._handles.append(handle)

    def fallback(self, fn: Callable, dispatch_key: str = "", *, with_keyset: bool = False) -> None:
        """Register `fn` as the backend fallback for `dispatch_key` (library namespace "_" only).

        A fallback is boxed: it is called as fn(op, *args, **kwargs), or
        fn(keyset, op, *args, **kwargs) with `with_keyset=True`.
        """
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        self._check_alive()
        if self.ns != "_":
            raise RuntimeError(
                "Fallback can only be registered using library fragment on the global namespace "
                f'"_" but it is {self.ns}'
            )
        if dispatch_key == "":
            dispatch_key = self.dispatch_key
        key = K.parse_key(dispatch_key)
        if fn is fallthrough_kernel:
            kernel = Kernel(None, PLAIN, caller_location(), is_fallthrough=True)
        else:
            kernel = Kernel(fn, BOXED_WITH_KEYSET if with_keyset else BOXED, caller_location())
        self._handles.append(dispatcher.register_fallback(key, kernel))

    def _destroy(self) -> None:
        """Undo every registration this library made."""
        self._destroyed = True
        self._finalizer()


# --- free functions -----------------------------------------------------------------

_keep_alive: list[Library] = []  # libraries made by the free functions live for the process


def _fragment(ns: str) -> Library:
    lib = Library(ns, "FRAGMENT")
    _keep_alive.append(lib)
    return lib


def define(qualname: str, schema: str, *, lib: Library | None = None, tags: Iterable[Any] = ()) -> None:
    """``define("mylib::foo", "(Tensor x) -> Tensor")``."""
    if "::" not in qualname:
        raise ValueError(f"define(qualname, ...): expected qualname to be ns::name, got {qualname}")
    ns, name = qualname.split("::", 1)
    lib = lib if lib is not None else _fragment(ns)
    lib.define(name + schema, tags=tags)


_DEVICE_TYPE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "ipu": "IPU", "xpu": "XPU", "hip": "HIP", "ve": "VE",
                     "fpga": "FPGA", "maia": "MAIA", "xla": "XLA", "lazy": "Lazy", "vulkan": "Vulkan",
                     "mps": "MPS", "meta": "Meta", "hpu": "HPU", "mtia": "MTIA",
                     "privateuseone": "PrivateUse1"}
_DEVICE_TYPES_TEXT = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, "
                      "lazy, vulkan, mps, meta, hpu, mtia, privateuseone")


def dispatch_key_for_device(device_type: str) -> str:
    """The backend key name of a device type ("cpu" -> "CPU"), as torch._C._dispatch_key_for_device."""
    key = _DEVICE_TYPE_KEYS.get(device_type)
    if key is None:
        raise RuntimeError(f"Expected one of {_DEVICE_TYPES_TEXT} device type at start of device string: "
                           f"{device_type}")
    return key


def _keys_for_types(types: str | Sequence[str] | None) -> list[str]:
    if types is None:
        return ["CompositeExplicitAutograd"]
    if isinstance(types, str):
        types = [types]
    return [_DEVICE_TYPE_KEYS.get(t, t) for t in types]


def impl(qualname: str, types: str | Sequence[str], func: Callable | None = None, *,
         lib: Library | None = None) -> Any:
    """Register `func` for device types ("cpu", "cuda") or dispatch keys; usable as a decorator."""
    def register(fn: Callable) -> Callable:
        ns = qualname.split("::", 1)[0]
        target = lib if lib is not None else _fragment(ns)
        for key in _keys_for_types(types):
            target.impl(qualname, fn, key)
        return fn

    return register if func is None else register(func)


def register_kernel(op: Any, device_types: str | Sequence[str] | None, func: Callable | None = None,
                    /, *, lib: Library | None = None) -> Any:
    """Register a kernel for `op` on the given device types (None: every device)."""
    qualname = op.name() if hasattr(op, "name") and callable(op.name) else op
    return impl(qualname, device_types, func, lib=lib)
