"""Meta rules of the random ops (uniform_, normal_, random_, rand, randn, randint, randperm,
normal): the checks PyTorch makes on dtypes, bounds and sizes before drawing, the result's shape
and dtype, from metadata alone.

kernels/random.py's CPU kernels make these checks, then draw; the Meta kernels are these rules
plus `meta_tensor` and draw nothing: as in PyTorch, a meta random op leaves every generator's
state as it was. The in-place fills on the meta device check no dtype (PyTorch's meta kernels
do not), and normal_'s meta check prints std as Python does.
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import ml_dtypes
import numpy as np

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, meta_tensor
from ..kernels.elementwise import broadcast_shapes
from .factory import check_shape, element  # the factories' size and element checks (no data)


def number_text(x: float) -> str:
    return f"{x:g}"


def _bounds_of(d: _dt.dtype) -> tuple[float, float]:
    if d is _dt.bool:
        return 0, 1
    np_dtype = _dt.to_numpy_dtype(d)
    if d.is_floating_point:
        info = ml_dtypes.finfo(np_dtype)
        return float(info.min), float(info.max)
    info = np.iinfo(np_dtype)
    return int(info.min), int(info.max)


_BOUNDS = {d: _bounds_of(d) for d in (_dt.bool, _dt.uint8, _dt.int8, _dt.int16, _dt.int32, _dt.int64,
                                      _dt.float16, _dt.bfloat16, _dt.float32, _dt.float64)}


def dtype_bounds(d: _dt.dtype) -> tuple[float, float]:
    return _BOUNDS[d]


def digits(d: _dt.dtype) -> int:
    """Mantissa bits (with the implicit one): the integers a float holds exactly."""
    return {_dt.float16: 11, _dt.bfloat16: 8, _dt.float32: 24, _dt.float64: 53}[d]


# --- checks -------------------------------------------------------------------------------------

def check_floating(d: _dt.dtype, op: str) -> None:
    if not (d.is_floating_point or d.is_complex):
        raise NotImplementedError(f'"{op}" not implemented for \'{d._c10_name}\'')


def check_uniform_bounds(d: _dt.dtype, low: float, high: float) -> None:
    check_floating(d, "check_uniform_bounds")
    if low > high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={number_text(low)} > "
            f"to={number_text(high)}")
    real = d.to_real() if d.is_complex else d
    if high - low > _BOUNDS[real][1]:
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{real._c10_name}>::max(), but found "
            f"to={number_text(high)} and from={number_text(low)} which result in to-from to exceed the limit")


def check_std(std: float, on_meta: bool = False) -> None:
    if std < 0:  # PyTorch's meta check is Python code and prints the float as Python does
        shown = float(std) if on_meta else number_text(std)
        raise RuntimeError(f"normal expects std >= 0.0, but found std {shown}")


def check_random_kernel(d: _dt.dtype) -> None:
    """random_() with no bounds (on every device)."""
    if d.is_complex:
        raise NotImplementedError(f'"random_kernel_cpu" not implemented for \'{d._c10_name}\'')


def random_span(d: _dt.dtype, low: int, high: int | None) -> tuple[int, int]:
    """(low, span) for random_(from, to) with PyTorch's checks; to=None means the dtype's top."""
    if d.is_complex:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    lowest, highest = dtype_bounds(d)
    name = d._type_meta_name  # PyTorch's random_ bounds messages print the C++ type
    if high is None:
        top = 2 ** digits(d) if d.is_floating_point else int(highest)
        if not lowest <= low <= highest:
            raise RuntimeError(f"from is out of bounds for {name}")
        return low, top - low + 1
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if not lowest <= low <= highest:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not lowest <= high - 1 <= highest:
        raise RuntimeError(f"to - 1 is out of bounds for {name}")
    if d.is_floating_point:
        limit = 2 ** digits(d)
        for what, value in (("from", low), ("to - 1", high - 1)):
            if not -limit <= value <= limit:
                warnings.warn(
                    f"{what} is out of bounds [-(2^{digits(d)}), 2^{digits(d)}]. Due to precision limitations "
                    f"{name} can support discrete uniform distribution only within this range. This warning will "
                    "become an error in version 1.7 release, please fix the code in advance", UserWarning,
                    stacklevel=3)
    return low, high - low


def factory(size: Sequence[int], dtype: _dt.dtype | None) -> tuple[tuple[int, ...], _dt.dtype]:
    """rand / randn / normal(float, float, size): the checked shape and the dtype (default: the
    default dtype)."""
    return check_shape(size), dtype if dtype is not None else _dt.get_default_dtype()


def randint_plan(low: int, high: int, size: Sequence[int], dtype: _dt.dtype | None
                 ) -> tuple[tuple[int, ...], _dt.dtype, int, int]:
    """randint's (shape, dtype, low, span), checked."""
    shape = check_shape(size)
    d = dtype if dtype is not None else _dt.int64
    low, span = random_span(d, low, high)
    return shape, d, low, span


def randperm_plan(n: int, dtype: _dt.dtype | None) -> tuple[tuple[int, ...], _dt.dtype]:
    d = dtype if dtype is not None else _dt.int64
    shape = check_shape([n])
    if d is _dt.bool or d.is_complex:
        raise NotImplementedError(f'"randperm" not implemented for \'{d._c10_name}\'')
    if n > 0 and not d.is_floating_point:
        element(n - 1, d)  # the largest value must fit (uint8 holds at most 256 positions)
    return shape, d


# --- the Meta kernels: checks and metadata, no draws ------------------------------------------------

def uniform_(self: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Any = None) -> Tensor:
    return self  # nothing to draw (and, as in PyTorch, no dtype or bounds check)


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    check_std(std, on_meta=True)
    return self


def random_(self: Tensor, *, generator: Any = None) -> Tensor:
    check_random_kernel(self._dtype)
    return self


def random_from(self: Tensor, from_: int, to: int | None, *, generator: Any = None) -> Tensor:
    random_span(self._dtype, from_, to)
    return self


def random_to(self: Tensor, to: int, *, generator: Any = None) -> Tensor:
    return random_from(self, 0, to)


def rand(size: Sequence[int], *, generator: Any = None, dtype: _dt.dtype | None = None, layout: Any = None,
         device: Any = None, pin_memory: bool | None = None) -> Tensor:
    return meta_tensor(*factory(size, dtype))  # (no dtype check: PyTorch's meta rand makes none)


randn = rand


def randint_low(low: int, high: int, size: Sequence[int], *, generator: Any = None,
                dtype: _dt.dtype | None = _dt.int64, layout: Any = None, device: Any = None,
                pin_memory: bool | None = None) -> Tensor:
    shape, d, _, _ = randint_plan(low, high, size, dtype)
    return meta_tensor(shape, d)


def randint(high: int, size: Sequence[int], *, generator: Any = None, dtype: _dt.dtype | None = _dt.int64,
            layout: Any = None, device: Any = None, pin_memory: bool | None = None) -> Tensor:
    return randint_low(0, high, size, dtype=dtype)


def randperm(n: int, *, generator: Any = None, dtype: _dt.dtype | None = _dt.int64, layout: Any = None,
             device: Any = None, pin_memory: bool | None = None) -> Tensor:
    return meta_tensor(*randperm_plan(n, dtype))


def normal_tensor_float(mean: Tensor, std: float = 1.0, *, generator: Any = None) -> Tensor:
    check_std(std)  # (PyTorch's normal(Tensor, float) checks std in its C++ words on every device)
    return meta_tensor(mean._shape, mean._dtype)


def normal_float_tensor(mean: float, std: Tensor, *, generator: Any = None) -> Tensor:
    return meta_tensor(std._shape, std._dtype)  # std's values are not known: no check


def normal_tensor_tensor(mean: Tensor, std: Tensor, *, generator: Any = None) -> Tensor:
    return meta_tensor(broadcast_shapes(mean._shape, std._shape), mean._dtype)


def normal_float_float(mean: float, std: float, size: Sequence[int], *, generator: Any = None,
                       dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
                       pin_memory: bool | None = None) -> Tensor:
    shape, d = factory(size, dtype)
    check_std(std, on_meta=True)  # PyTorch fills an empty meta tensor with normal_
    return meta_tensor(shape, d)
