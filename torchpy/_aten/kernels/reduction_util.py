"""What every reduction kernel shares: dims, output shapes, dtype rules, out= policies.

A reduction kernel is a thin Tensor-level adapter: it normalizes `dim` into NumPy
axes and an output shape (`layout`), picks the result dtype by the op's rule, returns
a meta tensor when there is no data, and otherwise hands arrays to NumPy.

out= kernels differ between ops in how they treat `out`'s dtype; the YAML names each one's
policy, and out_policy.py makes the kernel.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Sequence

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.dtype import dtype
from ..._tensor.tensor import Tensor, _wrap_dim, from_array, meta_tensor
from ..meta.reduction import is_floating_or_complex, normalize_dims, reduced_shape, reduction  # noqa: F401 (re-exported)
from ..registry import register
from .variants import check_out_dtype, write_out

# 16-bit floats are accumulated in float32, as PyTorch's CPU kernels do (acc_type).
_ACCUMULATE = {_dt.float16: np.dtype(np.float32), _dt.bfloat16: np.dtype(np.float32)}


def is_integral(d: dtype) -> bool:
    """Integer or bool: the dtypes whose sums and products widen to int64."""
    return not (d.is_floating_point or d.is_complex)


def accumulate_dtype(d: dtype) -> np.dtype:
    """The NumPy dtype to compute in for results of dtype `d`."""
    return _ACCUMULATE.get(d) or d._numpy


def cast(data: np.ndarray, np_dtype: np.dtype) -> np.ndarray:
    """`data` as `np_dtype` (itself if it already is); complex to real warns as PyTorch does."""
    if data.dtype == np_dtype:
        return data
    if data.dtype.kind == "c" and np_dtype.kind != "c":
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=5)
        data = data.real
    return data.astype(np_dtype)


# --- registering kernels that run without NumPy's floating-point warnings ----------------------
# PyTorch computes inf - inf, overflow and x / 0 silently. np.errstate costs ~2 us per use;
# setting NumPy's error-state context variable directly costs ~0.1 us. Fall back to errstate
# on NumPy builds that lay this out differently.
try:
    from numpy._core.umath import _extobj_contextvar, _make_extobj

    _SILENT = _make_extobj(all="ignore")

    def _silenced(fn: Callable) -> Callable:
        def kernel(*args: Any, **kwargs: Any) -> Any:
            token = _extobj_contextvar.set(_SILENT)
            try:
                return fn(*args, **kwargs)
            finally:
                _extobj_contextvar.reset(token)

        return kernel
except ImportError:  # pragma: no cover - depends on the NumPy build

    def _silenced(fn: Callable) -> Callable:
        def kernel(*args: Any, **kwargs: Any) -> Any:
            with np.errstate(all="ignore"):
                return fn(*args, **kwargs)

        return kernel


def register_kernel(name: str, fn: Callable) -> Callable:
    """Register backend kernel `fn` as `name`, running without NumPy's warnings."""
    kernel = _silenced(fn)
    kernel.__name__ = fn.__name__
    kernel.__qualname__ = fn.__qualname__
    kernel.__wrapped__ = getattr(fn, "__wrapped__", fn)  # type: ignore[attr-defined]  (where it is defined)
    if hasattr(fn, "result_dtype"):  # for the out= kernels made of it (out_policy.py)
        kernel.result_dtype = fn.result_dtype  # type: ignore[attr-defined]
    register(name, kernel)
    return fn


# --- dims ------------------------------------------------------------------------------------


def layout(self: Tensor, dim: Any, keepdim: bool, all_if_empty: bool = True) -> tuple[tuple[int, ...] | None, tuple[int, ...]]:
    """(NumPy axes, output shape) for reducing `dim` of `self` (the meta rule's)."""
    return reduction(self._shape, dim, keepdim, all_if_empty)


def reduction_size(shape: tuple[int, ...], axes: tuple[int, ...] | None) -> int:
    """How many elements each output element reduces over."""
    n = 1
    for i, s in enumerate(shape):
        if axes is None or i in axes:
            n *= s
    return n


def check_nonempty_dims(name: str, shape: tuple[int, ...], axes: tuple[int, ...] | None,
                        shown: Sequence[int] | None = None, sep: str = "()") -> None:
    """PyTorch's errors for max/argmax-like reductions (no identity) over an empty dim.

    `shown`: the dims as the caller wrote them, for ops whose message repeats them
    unwrapped (amax); by default the wrapped dims are named."""
    if axes is None:
        if 0 in shape:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return
    for raw in (axes if shown is None else shown):
        if shape and shape[raw] == 0:
            raise IndexError(f"{name}{sep}: Expected reduction dim {raw} to have non-zero size.")


# --- results ---------------------------------------------------------------------------------


def wrap(array: Any, d: dtype) -> Tensor:
    """A CPU tensor of dtype `d` over a NumPy result (NumPy scalars become 0-dim arrays)."""
    np_d = d._numpy
    if type(array) is not np.ndarray:
        array = np.asarray(array)
    if array.dtype != np_d:
        array = array.astype(np_d)
    return from_array(array, d)


def meta(shape: tuple[int, ...], d: dtype) -> Tensor:
    return meta_tensor(shape, d)


# --- out= kernels (one-output ones: the YAML's policy makes them, out_policy.py) -----------------


def write_outs(outs: Sequence[Tensor], results: Sequence[Tensor]) -> tuple[Tensor, ...]:
    """Write several results into their out= tensors, each needing its result's dtype."""
    for out, result in zip(outs, results):
        check_out_dtype(out, result._dtype)
    return tuple(write_out(out, result) for out, result in zip(outs, results))
