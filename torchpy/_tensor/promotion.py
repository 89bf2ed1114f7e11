"""PyTorch's type promotion: promote_types, can_cast, result_type and the ops' computation dtypes.

Promotion runs on every op, so everything is precomputed at import into tables indexed by
`dtype._index`; a call is a few list lookups. The rules that fill the tables are written
once, below, in the terms PyTorch's documentation uses.

result_type works on operand descriptors, not Tensors: an operand is a Python number, a
`(dtype, ndim)` pair, or any object with `.dtype` and `.ndim` (a Tensor). Dimensioned
tensors take precedence over 0-dim tensors, which take precedence over Python numbers, but
only within a category (bool < integer < floating < complex): a lower-priority operand of a
higher category still raises the result's category.
"""

from __future__ import annotations

import enum
from typing import Any

from torchpy._tensor import dtype as _dt
from torchpy._tensor.dtype import all_dtypes, dtype

__all__ = [
    "promote_types",
    "can_cast",
    "result_type",
    "ELEMENTWISE_TYPE_PROMOTION_KIND",
    "elementwise_dtypes",
    "computation_dtypes",
    "opmath_dtype",
]

# Category ranks: bool < integer < floating < complex.
_BOOL, _INT, _FLOAT, _COMPLEX = range(4)


def _category(d: dtype) -> int:
    if d.is_complex:
        return _COMPLEX
    if d.is_floating_point:
        return _FLOAT
    return _BOOL if d is _dt.bool else _INT


def _promote_rule(a: dtype, b: dtype) -> dtype:
    """The smallest dtype of the highest category that holds both a and b."""
    if a is b or b is _dt.bool:
        return a
    if a is _dt.bool:
        return b
    ca, cb = _category(a), _category(b)
    if _COMPLEX in (ca, cb):
        # Promote the real parts (an integer's "real part" is itself), then make complex.
        return _promote_rule(a.to_real(), b.to_real()).to_complex()
    if ca != cb:
        return a if ca > cb else b  # integer with floating: the floating one
    if ca == _FLOAT and a.itemsize == b.itemsize:
        return _dt.float32  # float16 with bfloat16: neither holds the other
    if a.is_signed == b.is_signed:
        return a if a.itemsize >= b.itemsize else b
    signed, unsigned = (a, b) if a.is_signed else (b, a)
    # uint8 with a signed type: the signed type if wider, else int16.
    return signed if signed.itemsize > unsigned.itemsize else _dt.int16


def _combine_rule(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """Merge a higher-priority group's dtype with a lower one's; None is an empty group.

    The higher group keeps its dtype unless the lower group's category is above it: then a
    floating higher group becomes complex of its own width, and an integer (or bool) higher
    group takes the promoted type. A bool higher group always promotes.
    """
    if higher is None:
        return lower
    if lower is None:
        return higher
    ch, cl = _category(higher), _category(lower)
    if cl == _COMPLEX and ch == _FLOAT:
        return higher.to_complex()
    if ch == _BOOL or cl > ch:
        return _promote_rule(higher, lower)
    return higher


# --- tables ------------------------------------------------------------------------------
_N = len(all_dtypes)
_NONE = _N  # the index of "no operand in this group"
_DTYPES_OR_NONE: list[dtype | None] = [*all_dtypes, None]


def _index_table(rule: Any) -> list[list[int]]:
    """rule over dtypes-or-None as a table of indices, None being _NONE."""
    return [
        [_NONE if r is None else r._index for r in (rule(a, b) for b in _DTYPES_OR_NONE)]
        for a in _DTYPES_OR_NONE
    ]


def _promote_or_none(a: dtype | None, b: dtype | None) -> dtype | None:
    if a is None or b is None:
        return b if a is None else a
    return _promote_rule(a, b)


_PROMOTE: list[list[dtype]] = [[_promote_rule(a, b) for b in all_dtypes] for a in all_dtypes]
_PROMOTE_IDX = _index_table(_promote_or_none)
_COMBINE_IDX = _index_table(_combine_rule)
_CAN_CAST: list[list[bool]] = [
    [_category(a) <= _category(b) for b in all_dtypes] for a in all_dtypes
]


def _check_dtype(fn: str, arg: str, pos: int, value: Any) -> None:
    if type(value) is not dtype:
        raise TypeError(
            f"{fn}(): argument '{arg}' (position {pos}) must be torch.dtype, "
            f"not {type(value).__name__}"
        )


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """The smallest dtype of the highest category that both dtypes can be converted to."""
    try:
        return _PROMOTE[type1._index][type2._index]
    except AttributeError:
        _check_dtype("promote_types", "type1", 1, type1)
        _check_dtype("promote_types", "type2", 2, type2)
        raise


def can_cast(from_: dtype, to: dtype) -> bool:
    """Whether PyTorch's casting rules allow `from_` to `to`: never to a lower category."""
    try:
        return _CAN_CAST[from_._index][to._index]
    except AttributeError:
        _check_dtype("can_cast", "from_", 1, from_)
        _check_dtype("can_cast", "to", 2, to)
        raise


def result_type(*operands: Any) -> dtype:
    """The dtype of an elementwise op's result over these operands.

    Each operand is a Python number (bool, int, float, complex), a `(dtype, ndim)` pair, or an
    object with `.dtype` and `.ndim`.
    """
    scalar_defaults = _dt._scalar_defaults
    promote = _PROMOTE_IDX
    dim = zero = wrapped = _NONE
    try:
        for x in operands:
            d = scalar_defaults.get(type(x))
            if d is not None:
                wrapped = promote[wrapped][d._index]
                continue
            if type(x) is tuple:
                d, ndim = x
            else:
                d, ndim = x.dtype, x.ndim
            if ndim:
                dim = promote[dim][d._index]
            else:
                zero = promote[zero][d._index]
    except AttributeError:
        # Not a Python number or a tensor of ours: normalize and retry (slow, rare) or raise.
        return result_type(*map(_normalize_operand, operands))
    if dim == zero == wrapped == _NONE:
        raise TypeError("result_type() needs at least one operand")
    return all_dtypes[_COMBINE_IDX[dim][_COMBINE_IDX[zero][wrapped]]]


def _normalize_operand(x: Any) -> Any:
    """An operand the fast path accepts, or TypeError. A number of another type (numpy.float64,
    numpy.int8, ...) becomes a Python number of its kind, which is all promotion looks at."""
    if type(x) is not tuple:
        try:
            return _dt.python_number_type(x)()
        except TypeError:
            pass
        if not hasattr(x, "ndim"):
            raise TypeError(
                "result_type(): expected a Tensor, a (dtype, ndim) pair or a Python number, "
                f"got {type(x).__name__}"
            )
    d = x[0] if type(x) is tuple else getattr(x, "dtype", None)
    if type(d) is not dtype:
        raise TypeError(f"result_type(): expected a torch.dtype, got {type(d).__name__}")
    return x


# --- computation dtypes ------------------------------------------------------------------
class ELEMENTWISE_TYPE_PROMOTION_KIND(enum.IntEnum):
    """How an elementwise op turns the promoted dtype into its result and computation dtypes
    (the same names and meanings as torch._prims_common). Examples:
    DEFAULT add; NO_OPMATH where, cat; INT_TO_FLOAT sin, true division; COMPLEX_TO_FLOAT abs;
    BOOL_TO_LONG pow, square; ALWAYS_BOOL eq."""

    DEFAULT = 0
    NO_OPMATH = 1
    INT_TO_FLOAT = 2
    ALWAYS_BOOL = 3
    COMPLEX_TO_FLOAT = 4
    BOOL_TO_LONG = 5


# Low-precision floats are computed in a wider type ("op math") and rounded once at the end.
_OPMATH: list[dtype] = list(all_dtypes)
for _low, _wide in [(_dt.float16, _dt.float32), (_dt.bfloat16, _dt.float32),
                    (_dt.complex32, _dt.complex64)]:  # fmt: skip
    _OPMATH[_low._index] = _wide


def opmath_dtype(d: dtype) -> dtype:
    """The dtype that math on `d` is carried out in: float16/bfloat16 -> float32,
    complex32 -> complex64, any other dtype itself."""
    return _OPMATH[d._index]


def _kind_rule(
    kind: ELEMENTWISE_TYPE_PROMOTION_KIND, promoted: dtype
) -> tuple[dtype, dtype] | None:
    """(computation, result) for `kind`; None where the answer is the default dtype's."""
    K = ELEMENTWISE_TYPE_PROMOTION_KIND
    opmath = _OPMATH[promoted._index]
    if kind is K.NO_OPMATH:
        return promoted, promoted
    if kind is K.INT_TO_FLOAT and not (promoted.is_floating_point or promoted.is_complex):
        return None  # the default dtype, read per call since it can change
    if kind is K.ALWAYS_BOOL:
        return opmath, _dt.bool
    if kind is K.COMPLEX_TO_FLOAT:
        return opmath, promoted.to_real()
    if kind is K.BOOL_TO_LONG and promoted is _dt.bool:
        return _dt.int64, _dt.int64
    return opmath, promoted


# _KIND_TABLES[kind][promoted._index]: the IntEnum kind indexes the list directly.
_KIND_TABLES: list[list[tuple[dtype, dtype] | None]] = [
    [_kind_rule(kind, d) for d in all_dtypes] for kind in ELEMENTWISE_TYPE_PROMOTION_KIND
]


def computation_dtypes(
    promoted: dtype, kind: ELEMENTWISE_TYPE_PROMOTION_KIND
) -> tuple[dtype, dtype]:
    """(computation dtype, result dtype) of an op of `kind` whose operands promote to `promoted`."""
    pair = _KIND_TABLES[kind][promoted._index]
    if pair is None:
        default = _dt._default_dtype
        return _OPMATH[default._index], default
    return pair


def elementwise_dtypes(
    *operands: Any, type_promotion_kind: ELEMENTWISE_TYPE_PROMOTION_KIND
) -> tuple[dtype, dtype]:
    """(computation dtype, result dtype) of an elementwise op over `operands` (as result_type)."""
    return computation_dtypes(result_type(*operands), type_promotion_kind)
