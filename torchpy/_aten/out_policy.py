"""out= and in-place kernels made from functional ones, by the policy their YAML entry names.

PyTorch shares one computation between `add`, `add_` and `add.out`; here the functional
kernel computes and a policy writes its result into `out` / `self`. A YAML entry of an out=
or in-place overload names its kernel `<functional>_out` / `<functional>_` (a Meta kernel:
`<functional>_out_meta` / `<functional>__meta`); where no kernel module registers that name,
build.py makes it here from the functional kernel and the entry's `policy:` (default
"castable"). What the policies differ in is what PyTorch's kernels differ in: which dtypes
`out` may have, whether that is checked before or after computing, and how the error reads.

The functional kernel may carry `result_dtype(*args, **kwargs)` (elementwise kernels do):
then a failing computation first redoes the dtype check, whose error PyTorch raises first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .._tensor import dtype as _dt
from .._tensor.tensor import Tensor

if TYPE_CHECKING:
    from .loader import NativeFunction

# out= policies
OUT_POLICIES = {
    "castable": "TensorIterator's rule: any dtype the result casts to safely (the default)",
    "same": "TensorIterator ops of one dtype throughout: out's dtype must be the result's ('Found dtype ...')",
    "exact": "structured kernels: out's dtype must be the result's ('Expected out tensor to have dtype ...')",
    "generated": "out= wrappers PyTorch generates: compute first, then 'exact'",
    "from_out": "an unset dtype= is out's dtype; a set one must equal out's (sum, cumsum, ...)",
    "like_self": "out's dtype must be self's, checked first; the entry's out_error: words the error",
    "factory": "factories: built in out's dtype and device, out resized without a warning",
}
# in-place policies
INPLACE_POLICIES = {
    "castable": "TensorIterator's rule: the result must cast to self's dtype and have self's shape (the default)",
    "from_self": "scans (cumsum_): computed in self's dtype; a dtype= must equal it",
    "structured": "structured kernels (addmm_): the result must have self's shape ('Bad in-place call')",
}
DEFAULT_POLICY = "castable"


def functional_kernel_name(kernel_name: str) -> str | None:
    """The functional kernel an out= / in-place kernel name is made from (add_out -> add,
    add_ -> add, clamp_out_meta -> clamp_meta, clamp__meta -> clamp_meta), or None."""
    meta = kernel_name.endswith("_meta") and kernel_name != "_meta"
    base = kernel_name[:-5] if meta else kernel_name
    if base.endswith("_out"):
        base = base[:-4]
    elif base.endswith("_"):
        base = base[:-1]
    else:
        return None
    return (base + "_meta" if meta else base) if base else None


def build(entry: NativeFunction, functional: Callable) -> Callable:
    """The out= or in-place kernel of `entry`, from `functional` by the entry's policy."""
    policy = entry.policy or DEFAULT_POLICY
    if entry.schema.kind.name == "inplace":
        return make_inplace(functional, policy)
    outs = [a.name for a in entry.schema.arguments if a.kwarg_only and a.is_write]
    if len(outs) != 1:
        raise ValueError(f"{entry.location}: {entry.qualified_name} has {len(outs)} out= arguments; "
                         "a policy makes kernels with one (register a kernel of its own)")
    return make_out(functional, policy, outs[0], entry.out_error)


def make_out(functional: Callable, policy: str, out_name: str = "out", out_error: str | None = None) -> Callable:
    """The out= kernel that computes with `functional` and writes into the argument `out_name`."""
    # deferred: kernels/ imports build.py, which imports the loader, which imports this module
    from .kernels import variants as v

    kernel = _OUT_BUILDERS[policy](v, functional, out_name, out_error)
    kernel.out_name = out_name  # type: ignore[attr-defined]  (entries sharing the kernel must agree)
    return _named(kernel, functional, "_out", policy)


def make_inplace(functional: Callable, policy: str = DEFAULT_POLICY) -> Callable:
    """The in-place kernel that computes with `functional` and writes into self."""
    from .kernels import variants as v  # deferred: as in make_out

    return _named(_INPLACE_BUILDERS[policy](v, functional), functional, "_", policy)


def _named(kernel: Callable, functional: Callable, suffix: str, policy: str) -> Callable:
    kernel.__name__ = kernel.__qualname__ = functional.__name__ + suffix
    kernel.__wrapped__ = functional  # type: ignore[attr-defined]  ("registered at" names the functional)
    kernel.policy = policy  # type: ignore[attr-defined]  (tests check every variant kernel has one)
    return kernel


# --- out= ------------------------------------------------------------------------------------------

def _dtype_checked(rule: str, after_only: bool = False) -> Callable:
    def make(v: Any, functional: Callable, name: str, message: str | None) -> Callable:
        result_dtype = None if after_only else getattr(functional, "result_dtype", None)
        check, write = v.check_out_dtype, v.write_out

        def out_kernel(*args: Any, **kwargs: Any) -> Any:
            out = kwargs.pop(name)
            try:
                result = functional(*args, **kwargs)
            except Exception:
                if result_dtype is not None:  # PyTorch checks out's dtype before computing
                    check(out, result_dtype(*args, **kwargs), rule)
                raise
            check(out, result._dtype, rule)
            return write(out, result)

        return out_kernel

    return make


def _from_out(v: Any, functional: Callable, name: str, message: str | None) -> Callable:
    check, write = v.check_out_dtype, v.write_out

    def out_kernel(*args: Any, **kwargs: Any) -> Any:
        out = kwargs.pop(name)
        wanted = kwargs.get("dtype")
        if wanted is None:
            kwargs["dtype"] = out._dtype
        else:
            check(out, wanted)
        return write(out, functional(*args, **kwargs))

    return out_kernel


def _like_self(v: Any, functional: Callable, name: str, message: str | None) -> Callable:
    write = v.write_out

    def out_kernel(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = kwargs.pop(name)
        if out._dtype is not self._dtype:
            raise RuntimeError(message.format(self=self._dtype._c10_name, out=out._dtype._c10_name))  # type: ignore[union-attr]
        return write(out, functional(self, *args, **kwargs))

    return out_kernel


def _factory(v: Any, functional: Callable, name: str, message: str | None) -> Callable:
    write = v.write_out

    def out_kernel(*args: Any, **kwargs: Any) -> Any:
        out = kwargs.pop(name)
        return write(out, functional(*args, dtype=out._dtype, device=out._device, **kwargs), warn_resize=False)

    return out_kernel


_OUT_BUILDERS: dict[str, Callable] = {
    "castable": _dtype_checked("castable"),
    "same": _dtype_checked("same"),
    "exact": _dtype_checked("exact"),
    "generated": _dtype_checked("exact", after_only=True),
    "from_out": _from_out,
    "like_self": _like_self,
    "factory": _factory,
}


# --- in-place --------------------------------------------------------------------------------------

def _shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _inplace_castable(v: Any, functional: Callable) -> Callable:
    # elementwise kernels carry result_dtype (None or a rule): on their errors PyTorch's order is
    # the op's own checks, the broadcast shape, the dtype, its dtype dispatch
    from .kernels.elementwise import broadcast_shapes  # deferred: as in build()

    iterator = hasattr(functional, "result_dtype")
    result_dtype = getattr(functional, "result_dtype", None)
    fast = getattr(functional, "inplace_fast", None)
    write, check = v.write_inplace, v.check_out_dtype

    def inplace(self: Any, *args: Any, **kwargs: Any) -> Any:
        if fast is not None and len(args) == 1 and not kwargs and fast(self, args[0]) is not None:
            return self
        try:
            result = functional(self, *args, **kwargs)
        except Exception:
            if iterator:
                wanted = result_dtype(self, *args, **kwargs) if result_dtype is not None else None
                shape = broadcast_shapes(*(x._shape for x in (self, *args) if isinstance(x, Tensor)))
                if shape != self._shape:
                    raise RuntimeError(f"output with shape {_shape_text(self._shape)} doesn't match the "
                                       f"broadcast shape {_shape_text(shape)}") from None
                if wanted is not None:
                    check(self, wanted, "castable")
            raise
        return write(self, result)

    return inplace


def _inplace_from_self(v: Any, functional: Callable) -> Callable:
    write = v.write_inplace
    name = functional.__name__

    def inplace(self: Any, *args: Any, dtype: Any = None) -> Any:
        if dtype is not None and dtype is not self._dtype:
            if self._data is None:
                raise RuntimeError("dtype argument and out dtype must match in reduction")
            raise RuntimeError(
                f"Bad in-place call: input tensor dtype {self._dtype._type_meta_name} and output "
                f"tensor dtype {dtype._type_meta_name} should match")
        if self._dtype is _dt.bool and self._data is not None:  # the out= kernel it calls has no Bool case
            raise NotImplementedError(f'"{name}_out_cpu" not implemented for \'Bool\'')
        return write(self, functional(self, *args, dtype=self._dtype))

    return inplace


def _inplace_structured(v: Any, functional: Callable) -> Callable:
    write = v.write_inplace

    def inplace(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = functional(self, *args, **kwargs)
        if result._shape != self._shape:
            if self._data is None:
                raise RuntimeError(f"output with shape {_shape_text(self._shape)} doesn't match the broadcast "
                                   f"shape {_shape_text(result._shape)}")
            raise RuntimeError(f"Bad in-place call: input tensor size {_shape_text(self._shape)} and output "
                               f"tensor size {_shape_text(result._shape)} should match")
        return write(self, result)

    return inplace


_INPLACE_BUILDERS: dict[str, Callable] = {
    "castable": _inplace_castable,
    "from_self": _inplace_from_self,
    "structured": _inplace_structured,
}
assert set(_OUT_BUILDERS) == set(OUT_POLICIES) and set(_INPLACE_BUILDERS) == set(INPLACE_POLICIES)
