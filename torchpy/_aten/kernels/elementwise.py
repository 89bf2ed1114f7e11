"""The adapter that turns array code into elementwise kernels for CPU and Meta.

An elementwise op is written once, over arrays:

    @elementwise("add", operands=2)
    def add(xp, self, other, alpha=1):
        return xp.add(self, other * alpha if alpha != 1 else other)

`xp` is the backend's array module (NumPy on CPU). The adapter does the rest,
the same way for every op, in the order PyTorch's TensorIterator does it:

* the leading `operands` arguments (tensors, wrapped numbers, Python scalars;
  None is skipped) take part in type promotion with the op's
  ELEMENTWISE_TYPE_PROMOTION_KIND, and in broadcasting;
* `check(promoted, *args, **kwargs)` runs on every device (PyTorch's meta-function
  checks), `cpu_check` on CPU only, then the dtype dispatch: a promoted dtype outside
  `dtypes` raises PyTorch's '"<label>" not implemented for ...';
* tensor operands are cast to the computation dtype, so NumPy's own promotion
  never decides a result dtype. A number operand reaches the array code as the
  Python number when the computation dtype is floating or complex (NumPy then
  keeps the array's dtype), else as a 0-dim array of the computation dtype,
  converted with C's wrap-around as PyTorch's wrapped scalars are;
* NumPy's floating-point warnings are silenced (PyTorch warns about none), the
  result is cast to the result dtype and wrapped;
* on Meta no array code runs: the result has the broadcast shape and dtype;
* a broadcasting failure raises PyTorch's RuntimeError.

Unary and binary kernels take a fast path for the common cases (same dtypes, or
a tensor with a number of a lower category); everything else goes through
`result_type`.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable

import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor import promotion
from ..._tensor.dtype import all_dtypes, dtype
from ..._tensor.finfo import finfo
from ..._tensor.promotion import ELEMENTWISE_TYPE_PROMOTION_KIND as Kind
from ..._tensor.fp_warnings import DEFAULT_ERRSTATE as _DEFAULT_ERRSTATE
from ..._tensor.fp_warnings import FILTER_HOLDS as _FILTER_HOLDS
from ..._tensor.fp_warnings import QUIET as _QUIET
from ..._tensor.fp_warnings import errstate as _errstate
from ..._tensor.fp_warnings import quiet  # noqa: F401 - kernels elsewhere import it from here
from ..._tensor.fp_warnings import reset_quiet as _reset_quiet
from ..._tensor.fp_warnings import set_quiet as _set_quiet
from ..._tensor.tensor import Tensor, from_array, meta_tensor
from ..registry import register
from ..meta.layout import elementwise_strides, iteration_order

__all__ = [
    "Kind", "elementwise", "make_kernel", "broadcast_shapes", "promotion_operand",
    "not_implemented", "checked_scalar", "on_meta", "quiet", "INTEGRAL", "INTEGRAL_AND_BOOL",
    "FLOATING", "FLOATING_AND_COMPLEX", "REAL", "ALL_BUT_BOOL", "ALL", "COMPLEX",
    "torch_layout",
]

_ndarray = np.ndarray
_result_type = promotion.result_type

# --- dtype groups (the AT_DISPATCH_* sets kernels are compiled for) ---------------------------
_storable = [d for d in all_dtypes if d._numpy is not None]
ALL = frozenset(_storable)
INTEGRAL = frozenset(d for d in _storable if not (d.is_floating_point or d.is_complex or d is _dt.bool))
INTEGRAL_AND_BOOL = INTEGRAL | {_dt.bool}
FLOATING = frozenset(d for d in _storable if d.is_floating_point)
FLOATING_AND_COMPLEX = frozenset(d for d in _storable if d.is_floating_point or d.is_complex)
REAL = INTEGRAL | FLOATING                       # no bool, no complex
ALL_BUT_BOOL = ALL - {_dt.bool}
COMPLEX = FLOATING_AND_COMPLEX - FLOATING

# bool < integer < floating < complex, by dtype index and by Python number type.
_CATEGORY = [0 if d is _dt.bool else 3 if d.is_complex else 2 if d.is_floating_point else 1
             for d in all_dtypes]
_NUMBER_CATEGORY = {bool: 0, int: 1, float: 2, complex: 3}


# --- errors --------------------------------------------------------------------------------------

def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast of `shapes`, or PyTorch's RuntimeError naming the first mismatch."""
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        offset = ndim - len(shape)
        for i, size in enumerate(shape):
            current = result[offset + i]
            if size == current or size == 1:
                continue
            if current == 1:
                result[offset + i] = size
                continue
            raise RuntimeError(
                f"The size of tensor a ({current}) must match the size of tensor b ({size}) at "
                f"non-singleton dimension {offset + i}"
            )
    return tuple(result)


def not_implemented(label: str, d: dtype) -> NotImplementedError:
    """PyTorch's error for a dtype a kernel is not compiled for."""
    return NotImplementedError(f'"{label}" not implemented for \'{d._c10_name}\'')


def _limits(d: dtype) -> tuple[float, float, bool, bool]:
    """(lowest, max, floating, unsigned) of a real dtype."""
    if d.is_floating_point:
        info = finfo(d)
        return float(info.min), float(info.max), True, False
    info = np.iinfo(d._numpy)
    return int(info.min), int(info.max), False, info.min == 0


_LIMITS = {d: _limits(d) for d in _storable if d is not _dt.bool and not d.is_complex}


def _overflows(value: Any, d: dtype) -> bool:
    """Whether PyTorch's checked conversion of Python number `value` to `d` overflows."""
    if d is _dt.bool:
        return False
    if isinstance(value, complex):
        if not d.is_complex and value.imag != 0:
            return True
        return _overflows(value.real, d) or (d.is_complex and _overflows(value.imag, d))
    lowest, highest, floating, unsigned = _LIMITS[d.to_real()]
    if isinstance(value, float) and (math.isinf(value) or math.isnan(value)):
        return not floating  # infinities and NaN fit a floating type, no integer
    if unsigned and not isinstance(value, float):
        # Unsigned types accept negative integers down to -max (they wrap, as in C).
        return value > highest or -value > highest
    return not lowest <= value <= highest


def checked_scalar(value: Any, d: dtype) -> Any:
    """`value` converted to `d`'s kind of Python number, with PyTorch's overflow check
    ("value cannot be converted to type int8_t without overflow")."""
    if _overflows(value, d):
        raise RuntimeError(f"value cannot be converted to type {d._cpp_type_name} without overflow")
    if d is _dt.bool:
        return bool(value)
    if d.is_complex:
        return complex(value)
    if isinstance(value, complex):
        value = value.real
    return float(value) if d.is_floating_point else int(value)


# --- output layout -------------------------------------------------------------------------------
# NumPy lays a result out like its inputs when they agree and in C order when they do not;
# PyTorch's TensorIterator follows the first input whose strides decide. The two differ only
# for several inputs of conflicting layouts, which is where `torch_layout` steps in.

def meta_strides(shape: tuple[int, ...], tensors: Iterable[Tensor]) -> tuple[int, ...]:
    """The strides of a pointwise result over `tensors` on meta: the rule NumPy plus
    `torch_layout` follow on CPU."""
    return elementwise_strides(shape, [(t._shape, t.stride(), t._dtype.itemsize) for t in tensors])


def torch_layout(out: np.ndarray, operands: Iterable[Any]) -> np.ndarray:
    """`out` laid out as PyTorch lays out an elementwise result over `operands` (arrays; other
    values are ignored). A copy only where NumPy chose differently."""
    arrays = [a for a in operands if type(a) is _ndarray and a.ndim]
    if out.ndim < 2 or len(arrays) < 2:
        return out
    for a in arrays:
        if not a.flags.c_contiguous:
            break
    else:
        return out  # all C-contiguous: NumPy's result is too, as PyTorch's
    slowest_first = iteration_order(out.shape, [(a.shape, a.strides) for a in arrays])[::-1]
    target = np.empty([out.shape[d] for d in slowest_first], out.dtype).transpose(np.argsort(slowest_first))
    if target.strides == out.strides:
        return out
    target[...] = out
    return target


# --- operands ------------------------------------------------------------------------------------

def on_meta(values: Iterable[Any]) -> bool:
    """Whether any of `values` is a meta tensor."""
    return any(isinstance(x, Tensor) and x._data is None for x in values)


def promotion_operand(x: Any) -> Any:
    """What promotion looks at: the number for wrapped numbers and scalars, else the tensor."""
    if isinstance(x, Tensor):
        return x if x._wrapped is None else x._wrapped
    return x


def _number_operand(value: Any, plan: Plan, opmath: bool = False) -> Any:
    """A Python number as the array code gets it (see the module docstring). `opmath`: the
    number keeps its precision even where the promoted dtype is float16 / bfloat16."""
    through = None if opmath else plan[4]
    if through is not None:  # rounded to float16 / bfloat16 first, as PyTorch's wrapped scalar is
        return np.array(value).astype(through).astype(plan[0])
    if plan[3]:
        return value
    return np.array(value).astype(plan[0])  # C-style wrap, as PyTorch casts wrapped scalars


def _array_operand(x: Any, plan: Plan, opmath: bool = False) -> Any:
    if isinstance(x, Tensor):
        if x._wrapped is not None:
            return _number_operand(x._wrapped, plan, opmath)
        data = x._data
        computation = plan[0]
        return data if data.dtype is computation else data.astype(computation)
    if x is None:
        return None
    return _number_operand(x, plan, opmath)


# --- computation plans ------------------------------------------------------------------------------
# plan[promoted._index] = (NumPy computation dtype, result dtype, NumPy result dtype, computation is
# floating or complex, NumPy dtype numbers are rounded through or None, computation dtype is the
# promoted one), or None where the answer depends on the default dtype (int -> float ops).
Plan = tuple[np.dtype, dtype, np.dtype, bool, Any, bool]


def _plan_entry(promoted: dtype, computation: dtype, result: dtype) -> Plan | None:
    if computation._numpy is None or result._numpy is None or promoted._numpy is None:
        return None
    comp = computation._numpy
    # A number operand takes the promoted dtype before the wider computation dtype
    through = promoted._numpy if promoted.is_floating_point and promoted is not computation else None
    return comp, result, result._numpy, comp.kind in "fc", through, comp is promoted._numpy


def _plans(kind: Kind) -> list[Plan | None]:
    plans: list[Plan | None] = []
    for d in all_dtypes:
        depends_on_default = kind is Kind.INT_TO_FLOAT and not (d.is_floating_point or d.is_complex)
        plans.append(None if depends_on_default else _plan_entry(d, *promotion.computation_dtypes(d, kind)))
    return plans


_default_plans: dict[tuple[dtype, Kind], Plan] = {}


def _plan_for(plans: list[Plan | None], promoted: dtype, kind: Kind) -> Plan:
    plan = plans[promoted._index]
    if plan is not None:
        return plan
    key = (_dt._default_dtype, kind)
    plan = _default_plans.get(key)
    if plan is None:
        plan = _plan_entry(promoted, *promotion.computation_dtypes(promoted, kind))
        if plan is None:
            raise TypeError(f"{promoted} has no NumPy equivalent; torchpy cannot compute with it")
        _default_plans[key] = plan
    return plan


# --- the kernels ------------------------------------------------------------------------------------

def _result_cast(out: np.ndarray, np_result: np.dtype) -> np.ndarray:
    """`out` in the result dtype; a float32 value beyond float16's range becomes inf silently,
    as in PyTorch (NumPy's cast would warn)."""
    token = _set_quiet(_QUIET)
    try:
        return out.astype(np_result)
    finally:
        _reset_quiet(token)


def _finish(out: Any, plan: Plan) -> Tensor:
    if type(out) is not _ndarray:
        out = np.asarray(out)
    np_result = plan[2]
    if out.dtype is not np_result:
        out = _result_cast(out, np_result)
    return from_array(out, plan[1])


def _shape_error(operands: Iterable[Any], error: ValueError) -> None:
    broadcast_shapes(*(x._shape for x in operands if isinstance(x, Tensor)))  # PyTorch's message
    raise error


def _unsupported(label: str, promoted: dtype, operands: Iterable[Any]) -> NotImplementedError:
    # PyTorch broadcasts the operands before its dtype dispatch: a shape error comes first
    broadcast_shapes(*(x._shape for x in operands if isinstance(x, Tensor)))
    return not_implemented(label, promoted)


def make_kernel(
    impl: Callable,
    operands: int = 2,
    kind: Kind = Kind.DEFAULT,
    dtypes: frozenset[dtype] | None = None,
    label: str = "",
    check: Callable | None = None,
    cpu_check: Callable | None = None,
    check_kwargs_only: bool = False,
    warns: bool = True,
    opmath_scalar: bool = False,
    ufunc: Callable | None = None,
    cpu_check_dtypes: frozenset[dtype] | None = None,
) -> Callable:
    """A Tensor-level kernel running array code `impl(xp, *arrays, *rest, **kwargs)`.

    Checks, in PyTorch's order: `check(promoted, *args, **kwargs)` on every device (the
    meta function's checks), `cpu_check` on CPU only, then the dtype dispatch (`dtypes`,
    '"<label>" not implemented for ...').

    `check_kwargs_only`: `check` has nothing to say unless keyword arguments are given
    (add's alpha). `warns=False`: the array code cannot raise floating-point warnings
    (comparisons, selections), so it runs without silencing them. `opmath_scalar`: a
    number as second operand keeps its precision with float16 / bfloat16 tensors (PyTorch's
    add, sub, mul and div read it unrounded; other ops round it to the tensor's dtype).
    `ufunc`: what the array code computes when called without extra arguments (np.add for
    add), called directly on the fast paths. `cpu_check_dtypes`: the promoted dtypes
    `cpu_check` has something to say about (default: all)."""
    plans = _plans(kind)
    unsupported = [dtypes is not None and d not in dtypes for d in all_dtypes]
    # dtypes the fast paths handle alone: supported, and no CPU check to run
    simple = [not unsupported[d._index] and (cpu_check is None or (cpu_check_dtypes is not None and d not in
                                                                     cpu_check_dtypes)) for d in all_dtypes]
    check_always = check is not None and not check_kwargs_only
    label = label or f"{impl.__name__}_cpu"

    def compute(promoted: dtype, args: tuple, kwargs: dict) -> Tensor:
        """Everything after promotion, for any arity: checks, meta, casting, the array code."""
        if check is not None:
            check(promoted, *args, **kwargs)
        return run(promoted, args, kwargs)

    def run(promoted: dtype, args: tuple, kwargs: dict) -> Tensor:
        plan = _plan_for(plans, promoted, kind)
        ops = args[:operands]
        tensors = [x for x in ops if isinstance(x, Tensor)]
        if any(t._data is None for t in tensors):
            shape = broadcast_shapes(*(t._shape for t in tensors))
            return meta_tensor(shape, plan[1], meta_strides(shape, tensors))
        if cpu_check is not None:
            cpu_check(promoted, *args, **kwargs)
        if unsupported[promoted._index]:
            raise _unsupported(label, promoted, ops)
        arrays = [_array_operand(x, plan, opmath_scalar and i == 1) for i, x in enumerate(ops)]
        token = _set_quiet(_QUIET)
        try:
            out = impl(np, *arrays, *args[operands:], **kwargs)
        except ValueError as error:
            _shape_error(ops, error)
        finally:
            _reset_quiet(token)
        if type(out) is _ndarray and out.ndim > 1:
            out = torch_layout(out, arrays)
        return _finish(out, plan)

    def general(*args: Any, **kwargs: Any) -> Tensor:
        promoted = _result_type(*[promotion_operand(x) for x in args[:operands] if x is not None])
        return compute(promoted, args, kwargs)

    def result_dtype(*args: Any, **kwargs: Any) -> dtype:
        """The result's dtype, after the checks that come before an out= tensor's (PyTorch's
        meta function), but not the dtype dispatch."""
        promoted = _result_type(*[promotion_operand(x) for x in args[:operands] if x is not None])
        if check is not None:
            check(promoted, *args, **kwargs)
        if cpu_check is not None and not on_meta(args[:operands]):
            cpu_check(promoted, *args, **kwargs)
        return _plan_for(plans, promoted, kind)[1]

    def unary(a: Any, *rest: Any, **kwargs: Any) -> Tensor:
        try:
            promoted = a._dtype
            x = a._data
        except AttributeError:
            return general(a, *rest, **kwargs)
        if check is not None and (kwargs or check_always):
            check(promoted, a, *rest, **kwargs)
        if x is None or a._wrapped is not None or not simple[promoted._index]:
            return run(promoted, (a, *rest), kwargs)
        plan = plans[promoted._index] or _plan_for(plans, promoted, kind)
        if not plan[5]:
            x = x.astype(plan[0])
        direct = ufunc is not None and not rest and not kwargs
        if warns and plan[3] and not (direct and _FILTER_HOLDS[0] and _errstate() is _DEFAULT_ERRSTATE):
            token = _set_quiet(_QUIET)
            try:
                out = ufunc(x) if direct else impl(np, x, *rest, **kwargs)
            finally:
                _reset_quiet(token)
        elif direct:
            out = ufunc(x)
        else:
            out = impl(np, x, *rest, **kwargs)
        if type(out) is not _ndarray:
            out = np.asarray(out)
        if out.dtype is not plan[2]:
            out = _result_cast(out, plan[2])
        return from_array(out, plan[1])

    # Per dtype: the plan when a tensor of that dtype and a second operand need nothing but
    # ufunc(x, y) (no check, no cast), the most common call; None elsewhere. The second operand
    # is a tensor of the same dtype, or, where `numbers_too`, a wrapped number of no higher
    # category, which the ufunc takes as the Python number (as the general path passes it).
    lanes = [plan if plan is not None and plan[5] and simple[i] and ufunc is not None and not check_always
             else None for i, plan in enumerate(plans)]
    numbers_too = [plan is not None and plan[3] and (opmath_scalar or plan[4] is None) for plan in lanes]
    # the lanes whose ufunc may raise floating-point warnings (float computation): run silenced
    quiet = [plan is not None and warns and plan[3] for plan in lanes]

    def binary(a: Any, b: Any, *rest: Any, **kwargs: Any) -> Tensor:
        if ((type(a) is Tensor or isinstance(a, Tensor)) and (type(b) is Tensor or isinstance(b, Tensor))
                and not rest and not kwargs):
            d = a._dtype
            plan = lanes[d._index]
            x = a._data
            if b._wrapped is None:
                y = b._data
                fits = b._dtype is d and y is not None
            else:
                y = b._wrapped
                fits = numbers_too[d._index] and _CATEGORY[b._dtype._index] <= _CATEGORY[d._index]
            if plan is not None and fits and a._wrapped is None and x is not None:
                # fp_warnings.silent(), inline: NumPy's warnings ignored already, or the error state to set
                if quiet[d._index] and not (_FILTER_HOLDS[0] and _errstate() is _DEFAULT_ERRSTATE):
                    token = _set_quiet(_QUIET)
                    try:
                        out = ufunc(x, y)
                    except ValueError as error:
                        _shape_error((a, b), error)
                    finally:
                        _reset_quiet(token)
                else:
                    try:
                        out = ufunc(x, y)
                    except ValueError as error:
                        _shape_error((a, b), error)
                if type(out) is not _ndarray:
                    return _finish(out, plan)
                if out.ndim > 1 and b._wrapped is None and not (x.flags.c_contiguous and y.flags.c_contiguous):
                    out = torch_layout(out, (x, y))
                if out.dtype is not plan[2]:
                    out = _result_cast(out, plan[2])
                return from_array(out, plan[1])
        try:
            da = a._dtype
            x = a._data
        except AttributeError:
            return general(a, b, *rest, **kwargs)
        if type(b) is Tensor or isinstance(b, Tensor):
            db = b._dtype
            if da is db:
                promoted = da
            elif b._wrapped is not None and a._wrapped is None and _CATEGORY[db._index] <= _CATEGORY[da._index]:
                promoted = da  # a number of a lower category never changes a tensor's dtype
            else:
                return general(a, b, *rest, **kwargs)
            y = b._data
            y_number = b._wrapped
        else:
            category = _NUMBER_CATEGORY.get(type(b))
            if category is None or category > _CATEGORY[da._index]:
                return general(a, b, *rest, **kwargs)
            promoted = da
            y = y_number = b
        if check is not None and (kwargs or check_always):
            check(promoted, a, b, *rest, **kwargs)
        if x is None or y is None or a._wrapped is not None or not simple[promoted._index]:
            return run(promoted, (a, b, *rest), kwargs)
        plan = plans[promoted._index] or _plan_for(plans, promoted, kind)
        comp = plan[0]
        if da is not promoted or not plan[5]:  # a's array is in the promoted dtype, maybe not comp
            x = x.astype(comp)
        if y_number is not None:
            y = y_number if plan[3] and (opmath_scalar or plan[4] is None) else _number_operand(y_number, plan)
        elif y.dtype is not comp:
            y = y.astype(comp)
        try:
            direct = ufunc is not None and not rest and not kwargs
            if warns and plan[3] and not (direct and _FILTER_HOLDS[0] and _errstate() is _DEFAULT_ERRSTATE):
                token = _set_quiet(_QUIET)
                try:
                    out = ufunc(x, y) if direct else impl(np, x, y, *rest, **kwargs)
                finally:
                    _reset_quiet(token)
            elif direct:
                out = ufunc(x, y)
            else:
                out = impl(np, x, y, *rest, **kwargs)
        except ValueError as error:
            _shape_error((a, b), error)
        if type(out) is not _ndarray:
            out = np.asarray(out)
        elif out.ndim > 1 and y_number is None and not (x.flags.c_contiguous and y.flags.c_contiguous):
            out = torch_layout(out, (x, y))
        if out.dtype is not plan[2]:
            out = _result_cast(out, plan[2])
        return from_array(out, plan[1])

    def binary_inplace(a: Any, b: Any) -> Tensor | None:
        """a.op_(b) straight into a's array, when a's dtype is the computation and result dtype
        and b needs no conversion; None where the general in-place path must run."""
        if type(a) is not Tensor or a._wrapped is not None:
            return None
        da = a._dtype
        x = a._data
        plan = plans[da._index]
        if x is None or plan is None or not plan[5] or plan[1] is not da or not simple[da._index]:
            return None
        if type(b) is Tensor:
            if b._dtype is da and b._wrapped is None:
                y = b._data
            elif b._wrapped is not None and _CATEGORY[b._dtype._index] <= _CATEGORY[da._index]:
                y = b._wrapped if plan[3] and (opmath_scalar or plan[4] is None) else _number_operand(b._wrapped, plan)
            else:
                return None
            if y is None:
                return None
        else:
            category = _NUMBER_CATEGORY.get(type(b))
            if category is None or category > _CATEGORY[da._index]:
                return None
            y = b if plan[3] and (opmath_scalar or plan[4] is None) else _number_operand(b, plan)
        if check_always:
            check(da, a, b)
        token = None if _FILTER_HOLDS[0] and _errstate() is _DEFAULT_ERRSTATE else _set_quiet(_QUIET)
        try:
            ufunc(x, y, out=x)
        except ValueError:  # b does not broadcast to a's shape: the general path words the error
            return None
        finally:
            if token is not None:
                _reset_quiet(token)
        return a

    kernel = {1: unary, 2: binary}.get(operands, general)
    if operands == 2 and ufunc is not None:
        kernel.inplace_fast = binary_inplace  # type: ignore[attr-defined]
    kernel.__name__ = impl.__name__
    kernel.__qualname__ = impl.__qualname__
    kernel.__wrapped__ = impl  # type: ignore[attr-defined]
    kernel.result_dtype = result_dtype  # type: ignore[attr-defined]
    kernel.compute = compute  # type: ignore[attr-defined]  (for kernels that promote themselves)
    return kernel


def elementwise(
    name: str,
    operands: int = 2,
    kind: Kind = Kind.DEFAULT,
    registers: bool = True,
    dtypes: frozenset[dtype] | None = None,
    label: str = "",
    check: Callable | None = None,
    cpu_check: Callable | None = None,
    check_kwargs_only: bool = False,
    warns: bool = True,
    opmath_scalar: bool = False,
    ufunc: Callable | None = None,
    cpu_check_dtypes: frozenset[dtype] | None = None,
) -> Callable[[Callable], Callable]:
    """Register array code `impl(xp, *args, **kwargs)` as elementwise kernel `name`
    (`registers=False`: only make the kernel). Which dispatch keys use it is the YAML's to say;
    its in-place and out= kernels are made from it by the YAML's policy (out_policy.py).

    The decorated name is bound to the Tensor-level kernel (its array code stays
    reachable as `kernel.__wrapped__`)."""

    def wrap(impl: Callable) -> Callable:
        kernel = make_kernel(impl, operands, kind, dtypes, label, check, cpu_check, check_kwargs_only, warns,
                             opmath_scalar, ufunc, cpu_check_dtypes)
        if registers:
            register(name, kernel)
        return kernel

    return wrap
