"""Random numbers: torch.Generator, the default generator, and the sampling kernels.

The generator is a 32-bit Mersenne Twister seeded as PyTorch seeds its CPU
generator (NumPy's MT19937 with the legacy integer seeding is the same engine),
and the transformations below are PyTorch's CPU ones, so a seed gives torch's
numbers: uniform from the low bits of one 32-bit draw (two for double),
randint as `draw % range + low`, randperm as PyTorch's swap loop, and normal
by Box-Muller, 16 values at a time for contiguous tensors of 16 or more
elements and one pair at a time (keeping the second value for the next call)
otherwise.

Values are written in memory order, as PyTorch's serial kernels write them.
"""

from __future__ import annotations

import math
import os
import struct
from typing import Any, Sequence

import numpy as np

from ..._dispatch.binding import NO_MATCH, register_type_converter
from ..._tensor import dtype as _dt
from ..._tensor.device import CPU, canonical_device
from ..._tensor.tensor import Tensor, from_array
from ..fastcall import aten, call, call_kw
from ..meta import random as rules
from ..meta.layout import stride_order
from ..registry import register
from .elementwise import broadcast_shapes
from .factory import like_strides, new_tensor, register_backend_select

DEFAULT_SEED = 67280421310721  # PyTorch's default_rng_seed_val
_STATE_SIZE = 5056             # sizeof(CPUGeneratorImplState)
_MT_N = 624
_U64 = np.uint64
_SHIFT32 = _U64(32)


class Generator:
    """torch.Generator (CPU): a seeded stream of random numbers, the same stream as PyTorch's."""

    def __init__(self, device: Any = "cpu") -> None:
        d = canonical_device(device)
        if d.type != "cpu":
            raise RuntimeError(f"{d.type.upper()} device type not an accelerator.")
        self.device = CPU
        self._bits = np.random.MT19937()
        self._set_seed(DEFAULT_SEED)

    # --- seeding ------------------------------------------------------------------------

    def _set_seed(self, seed: int) -> None:
        self._seed = seed
        self._bits._legacy_seeding(seed & 0xFFFFFFFF)  # PyTorch's mt19937 keeps the low 32 bits
        self._fresh = True                             # seeded, nothing drawn yet
        self._next_double_normal: float | None = None
        self._next_float_normal: float | None = None

    def manual_seed(self, seed: Any) -> "Generator":
        """Seed the generator; returns it. Negative seeds wrap to 64 bits."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        if not -(2**63) <= seed < 2**64:
            raise ValueError("Overflow when unpacking long long")
        self._set_seed(seed % 2**64)
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy (53 bits, as PyTorch) and return the seed."""
        seed = int.from_bytes(os.urandom(8), "little") & (2**53 - 1)
        self._set_seed(seed)
        return seed

    def initial_seed(self) -> int:
        return self._seed

    # --- state as PyTorch lays it out (a ByteTensor of 5056 bytes) -----------------------

    def get_state(self) -> Tensor:
        state = self._bits.state["state"]
        position = int(state["pos"])
        if position >= _MT_N:  # the next draw regenerates the block
            left, next_index = 1, 0 if self._fresh else _MT_N
        else:
            left, next_index = _MT_N + 1 - position, position
        buffer = bytearray(_STATE_SIZE)
        struct.pack_into("<QiiQ", buffer, 0, self._seed, left, 1, next_index)
        buffer[24:24 + 8 * _MT_N] = state["key"].astype("<u8").tobytes()
        has_double = self._next_double_normal is not None
        struct.pack_into("<dddi", buffer, 24 + 8 * _MT_N, 0.0, self._next_double_normal or 0.0, 0.0, has_double)
        has_float = self._next_float_normal is not None
        struct.pack_into("<f?", buffer, 5048, self._next_float_normal or 0.0, has_float)
        return from_array(np.frombuffer(bytes(buffer), np.uint8).copy(), _dt.uint8)

    def set_state(self, new_state: Any) -> "Generator":
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not _dt.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if new_state.numel() != _STATE_SIZE:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found the input RNG state size "
                f"to be {new_state.numel()}")
        raw = np.ascontiguousarray(new_state._data).tobytes()
        seed, left, _, next_index = struct.unpack_from("<QiiQ", raw, 0)
        key = np.frombuffer(raw, "<u8", _MT_N, 24).astype(np.uint32)
        _, normal_y, _, has_double = struct.unpack_from("<dddi", raw, 24 + 8 * _MT_N)
        float_sample, has_float = struct.unpack_from("<f?", raw, 5048)
        self._seed = seed
        position = _MT_N if left <= 1 else next_index
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": position}}
        self._fresh = left <= 1 and next_index == 0
        self._next_double_normal = normal_y if has_double else None
        self._next_float_normal = float_sample if has_float else None
        return self

    # --- raw draws --------------------------------------------------------------------

    def random32(self, n: int) -> np.ndarray:
        """n draws of 32 bits (as uint64), PyTorch's random()."""
        self._fresh = False
        return self._bits.random_raw(n)

    def random64(self, n: int) -> np.ndarray:
        """n draws of 64 bits, each from two 32-bit draws, high half first (random64())."""
        raw = self.random32(2 * n)
        high = raw[0::2] << _SHIFT32
        high |= raw[1::2]
        return high

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {hex(id(self))}>"


default_generator = Generator()


def manual_seed(seed: Any) -> Generator:
    """Seed the default generator (the argument goes through int() first, as in torch)."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    default_generator.set_state(new_state)


def _generator_argument(value: Any) -> Any:
    return value if isinstance(value, Generator) else NO_MATCH


register_type_converter("Generator", _generator_argument)


# --- transformations of the raw draws --------------------------------------------------------

_MASK24, _MASK53 = _U64((1 << 24) - 1), _U64((1 << 53) - 1)
_SCALE24, _SCALE53 = np.float32(2.0**-24), np.float64(2.0**-53)


def _uniform_unit(gen: Generator, n: int, double: bool) -> np.ndarray:
    """[0, 1) from 53 bits of random64() (double) or 24 bits of random() (everything else)."""
    raw = gen.random64(n) if double else gen.random32(n)
    raw &= _MASK53 if double else _MASK24
    unit = raw.astype(np.float64 if double else np.float32)
    unit *= _SCALE53 if double else _SCALE24
    return unit


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = 134217729.0 * a  # 2**27 + 1: Dekker's split into two 26-bit halves
    high = t - (t - a)
    return high, a - high


def _fma64(a: np.ndarray, b: float, c: float) -> np.ndarray:
    """a * b + c with one rounding (PyTorch's compiled kernel fuses it), by error-free
    transformations: the product's and the sum's rounding errors are added back."""
    product = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(np.float64(b))
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    total = product + c
    virtual = total - product
    sum_error = (product - (total - virtual)) + (c - virtual)
    return total + (sum_error + product_error)


def uniform_values(gen: Generator, n: int, d: _dt.dtype, low: float, high: float) -> np.ndarray:
    """n uniform values in [low, high) as PyTorch's CPU uniform_ makes them, in dtype `d`:
    unit * (high - low) + low, fused, in float32 (double for float64); a value that rounds
    up to `high` becomes `low`."""
    np_dtype = _dt.to_numpy_dtype(d)
    if low == 0 and high == 1 and d.itemsize >= 4:  # unit * 1 + 0 is exact and stays below 1
        return _uniform_unit(gen, n, d is _dt.float64)
    if d is _dt.float64:
        values = _fma64(_uniform_unit(gen, n, True), high - low, low)
    else:
        low32, high32 = np.float32(low), np.float32(high)
        unit = _uniform_unit(gen, n, False).astype(np.float64)  # exact products: one rounding below
        values = (unit * np.float64(high32 - low32) + np.float64(low32)).astype(np.float32)
        values = values.astype(np_dtype, copy=False)
    top = np_dtype.type(high)
    values[values == top] = np_dtype.type(low)
    return values


def _box_muller_blocks(data: np.ndarray, mean: float, std: float, vectorized: bool) -> None:
    """In place over blocks of 16 uniforms: the first 8 give radii, the last 8 angles.
    PyTorch's vectorized float32 kernel takes 2*pi as a float, its scalar one as a double."""
    blocks = data.reshape(-1, 16)
    scalar = data.dtype.type
    radius = np.subtract(1, blocks[:, :8])  # (0, 1] for the log
    np.log(radius, out=radius)
    radius *= scalar(-2)
    np.sqrt(radius, out=radius)
    if vectorized:
        theta = np.float32(2.0 * math.pi) * blocks[:, 8:]
    else:
        theta = (2.0 * math.pi * blocks[:, 8:].astype(np.float64)).astype(data.dtype)
    first, second = blocks[:, :8], blocks[:, 8:]
    np.multiply(radius, np.cos(theta), out=first)
    np.multiply(radius, np.sin(theta), out=second)
    if std != 1:
        blocks *= scalar(std)
    if mean != 0:
        blocks += scalar(mean)


def _normal_fill(gen: Generator, n: int, d: _dt.dtype, mean: float, std: float) -> np.ndarray:
    """PyTorch's normal_fill: uniforms transformed by Box-Muller in blocks of 16 (float32
    arithmetic except for float64); a ragged end is covered by 16 fresh uniforms transformed
    over the last 16 slots. float32 and float64 draw all n uniforms first, 16-bit types only
    the whole blocks' uniforms."""
    double = d is _dt.float64
    whole = n - n % 16
    unit = _uniform_unit(gen, whole if d.itemsize == 2 else n, double)
    if len(unit) < n:
        unit = np.concatenate([unit, np.empty(n - whole, unit.dtype)])
    vectorized = d is _dt.float32
    _box_muller_blocks(unit[:whole], mean, std, vectorized)
    if n % 16:
        tail = _uniform_unit(gen, 16, double)
        _box_muller_blocks(tail, mean, std, vectorized)
        unit[n - 16:] = tail
    return unit.astype(_dt.to_numpy_dtype(d), copy=False)


def _normal_scalar_small(gen: Generator, n: int, mean: float, std: float) -> list[float]:
    """_normal_scalar for a few values, in Python floats (same libm, less overhead)."""
    values = []
    if n and gen._next_double_normal is not None:
        values.append(gen._next_double_normal)
        gen._next_double_normal = None
    pairs = (n - len(values) + 1) // 2
    if pairs:
        mask = (1 << 53) - 1
        raw = gen.random32(4 * pairs).tolist()
        for k in range(0, 4 * pairs, 4):
            u1 = ((raw[k] << 32 | raw[k + 1]) & mask) * 2.0**-53
            u2 = ((raw[k + 2] << 32 | raw[k + 3]) & mask) * 2.0**-53
            radius = math.sqrt(-2.0 * math.log1p(-u2))
            theta = 2.0 * math.pi * u1
            values.append(radius * math.cos(theta))
            values.append(radius * math.sin(theta))
        if len(values) > n:
            gen._next_double_normal = values.pop()
    return [v * std + mean for v in values]


def _normal_scalar(gen: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """n standard normals (then * std + mean) from PyTorch's normal_distribution<double>:
    each pair of draws gives r*cos and r*sin; the sin half waits in the generator."""
    if n <= 16:
        return np.array(_normal_scalar_small(gen, n, mean, std), np.float64)
    values = np.empty(n, np.float64)
    start = 0
    if n and gen._next_double_normal is not None:
        values[0] = gen._next_double_normal
        gen._next_double_normal = None
        start = 1
    pairs = (n - start + 1) // 2
    if pairs:
        draws = _uniform_unit(gen, 2 * pairs, True)
        u1, u2 = draws[0::2], draws[1::2]
        radius = np.sqrt(-2.0 * np.log1p(-u2))
        theta = 2.0 * math.pi * u1
        both = np.empty(2 * pairs)
        both[0::2] = radius * np.cos(theta)
        both[1::2] = radius * np.sin(theta)
        values[start:] = both[: n - start]
        if (n - start) % 2:
            gen._next_double_normal = float(both[-1])
    return values * std + mean


def normal_values(gen: Generator, n: int, d: _dt.dtype, mean: float, std: float, contiguous: bool) -> np.ndarray:
    """n normal values in dtype `d`, by the algorithm PyTorch picks for this tensor."""
    if contiguous and n >= 16:
        return _normal_fill(gen, n, d, mean, std)
    return _normal_scalar(gen, n, mean, std).astype(_dt.to_numpy_dtype(d))


def integer_values(gen: Generator, n: int, d: _dt.dtype, low: int, span: int) -> np.ndarray:
    """low + draw % span, as PyTorch's random_(from, to): 64-bit draws for spans of 2**28 or
    more (32-bit ones would be visibly biased), 32-bit below; a span of 2**64 (int64's whole
    range) takes the 64-bit draws as they are."""
    if span == 2**64:
        return gen.random64(n).view(np.int64)
    raw = gen.random64(n) if span >= 2**28 else gen.random32(n)
    values = (raw % _U64(span) + _U64(low % 2**64)).view(np.int64)  # wraps as C++ unsigned arithmetic does
    return values.astype(_dt.to_numpy_dtype(d))


def permutation(gen: Generator, n: int) -> np.ndarray:
    """PyTorch's randperm for n < 2**32 / 20: swap position i with i + draw % (n - i)."""
    result = list(range(n))
    if n > 1:
        offsets = (gen.random32(n - 1) % np.arange(n, 1, -1, dtype=_U64)).tolist()
        for i, offset in enumerate(offsets):
            j = i + offset
            result[i], result[j] = result[j], result[i]
    return np.array(result, dtype=np.int64)


# --- array code: writing values into an array -------------------------------------------------------

Array = Any  # an array of the module `xp`


def write_in_memory_order(xp: Any, data: Array, order: Sequence[int] | None, values: Array) -> None:
    """Store `values` (one per element, in memory order) into `data`; `order` lists its axes
    outermost first in memory (None: C-contiguous)."""
    view = data if order is None else data.transpose(order)
    xp.copyto(view, values.reshape(view.shape), casting="unsafe")


def as_complex(xp: Any, values: Array, d: _dt.dtype) -> Array:
    """Pairs of reals (view_as_real's order) as complex values."""
    pairs = values.reshape(-1, 2)
    return (pairs[:, 0] + 1j * pairs[:, 1]).astype(_dt.to_numpy_dtype(d))


def scaled_and_shifted(xp: Any, values: Array, d: _dt.dtype, std: Any, mean: Any) -> Array:
    """PyTorch's normal(Tensor...): standard normals in d, then mul_(std) and add_(mean), each
    step rounded to d (16-bit floats computed in float32)."""
    np_dtype = _dt.to_numpy_dtype(d)
    compute = xp.float32 if d.itemsize == 2 else np_dtype
    if std is not None:
        values = (values.astype(compute) * xp.asarray(std, dtype=compute)).astype(np_dtype)
    values = (values.astype(compute) + xp.asarray(mean, dtype=compute)).astype(np_dtype)
    return xp.asarray(values, order="C")  # (not ascontiguousarray: it makes 0-dim 1-dim)


# --- CPU kernels: the checks (meta/random.py), the draws, the array code ----------------------------

def _generator(generator: Generator | None) -> Generator:
    return default_generator if generator is None else generator


def _write(self: Tensor, values: np.ndarray) -> Tensor:
    data = self._data
    order = None if data.flags.c_contiguous else stride_order(self._shape, self.stride())[::-1]
    write_in_memory_order(np, data, order, values)
    return self


def uniform_(self: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    rules.check_uniform_bounds(self._dtype, from_, to)
    n = self.numel()
    d = self._dtype
    if d.is_complex:
        return _write(self, as_complex(np, uniform_values(_generator(generator), 2 * n, d.to_real(), from_, to), d))
    return _write(self, uniform_values(_generator(generator), n, d, from_, to))


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    rules.check_std(std)
    rules.check_floating(self._dtype, "normal_kernel_cpu")
    n = self.numel()
    d = self._dtype
    contiguous = self.is_contiguous()
    if d.is_complex:  # normal_ on view_as_real, each part with variance std**2 / 2
        values = normal_values(_generator(generator), 2 * n, d.to_real(), mean, std / math.sqrt(2), contiguous)
        return _write(self, as_complex(np, values, d))
    return _write(self, normal_values(_generator(generator), n, d, mean, std, contiguous))


def _random_default_values(gen: Generator, n: int, d: _dt.dtype) -> np.ndarray:
    """random_() with no bounds: [0, 2**digits] for floats, [0, max] for integers, bits for bool."""
    if d is _dt.bool:
        return (gen.random32(n) & _U64(1)).astype(np.bool_)
    if d.is_floating_point:
        raw = gen.random64(n) if d is _dt.float64 else gen.random32(n)
        return (raw % _U64(2 ** rules.digits(d) + 1)).astype(_dt.to_numpy_dtype(d))
    top = int(rules.dtype_bounds(d)[1]) + 1
    raw = gen.random64(n) if d is _dt.int64 else gen.random32(n)
    return (raw % _U64(top)).astype(_dt.to_numpy_dtype(d))


def random_(self: Tensor, *, generator: Generator | None = None) -> Tensor:
    rules.check_random_kernel(self._dtype)
    return _write(self, _random_default_values(_generator(generator), self.numel(), self._dtype))


def random_from(self: Tensor, from_: int, to: int | None, *, generator: Generator | None = None) -> Tensor:
    low, span = rules.random_span(self._dtype, from_, to)
    return _write(self, integer_values(_generator(generator), self.numel(), self._dtype, low, span))


def random_to(self: Tensor, to: int, *, generator: Generator | None = None) -> Tensor:
    return random_from(self, 0, to, generator=generator)


# --- the random factories ---------------------------------------------------------------------

def rand(size: Sequence[int], *, generator: Generator | None = None, dtype: _dt.dtype | None = None,
         layout: Any = None, device: Any = None, pin_memory: bool | None = None) -> Tensor:
    shape, d = rules.factory(size, dtype)
    rules.check_floating(d, "check_uniform_bounds")
    n = math.prod(shape)
    if d.is_complex:
        values = as_complex(np, uniform_values(_generator(generator), 2 * n, d.to_real(), 0.0, 1.0), d)
    else:
        values = uniform_values(_generator(generator), n, d, 0.0, 1.0)
    return from_array(values.reshape(shape), d)


def randn(size: Sequence[int], *, generator: Generator | None = None, dtype: _dt.dtype | None = None,
          layout: Any = None, device: Any = None, pin_memory: bool | None = None) -> Tensor:
    shape, d = rules.factory(size, dtype)
    rules.check_floating(d, "normal_kernel_cpu")
    n = math.prod(shape)
    if d.is_complex:
        values = as_complex(np, normal_values(_generator(generator), 2 * n, d.to_real(), 0.0, 1.0 / math.sqrt(2),
                                              True), d)
    else:
        values = normal_values(_generator(generator), n, d, 0.0, 1.0, True)
    return from_array(values.reshape(shape), d)


# --- torch.normal -------------------------------------------------------------------------------

def _standard_then_scaled(shape: tuple[int, ...], d: _dt.dtype, std: Any, mean: Any,
                          generator: Generator | None) -> Tensor:
    rules.check_floating(d, "normal_kernel_cpu")
    values = normal_values(_generator(generator), math.prod(shape), d, 0.0, 1.0, True).reshape(shape)
    return from_array(scaled_and_shifted(np, values, d, std, mean), d)


def _check_std_tensor(std: Tensor) -> None:
    if bool((std._data < 0).any()):
        raise RuntimeError("normal expects all elements of std >= 0.0")


def normal_tensor_float(mean: Tensor, std: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    rules.check_std(std)
    d = mean._dtype
    rules.check_floating(d, "normal_kernel_cpu")
    values = normal_values(_generator(generator), mean.numel(), d, 0.0, std, True).reshape(mean._shape)
    return from_array(scaled_and_shifted(np, values, d, None, mean._data), d)


def normal_float_tensor(mean: float, std: Tensor, *, generator: Generator | None = None) -> Tensor:
    _check_std_tensor(std)
    return _standard_then_scaled(std._shape, std._dtype, std._data, mean, generator)


def normal_tensor_tensor(mean: Tensor, std: Tensor, *, generator: Generator | None = None) -> Tensor:
    _check_std_tensor(std)
    shape = broadcast_shapes(mean._shape, std._shape)
    return _standard_then_scaled(shape, mean._dtype, std._data, mean._data, generator)


def normal_float_float(mean: float, std: float, size: Sequence[int], *, generator: Generator | None = None,
                       dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
                       pin_memory: bool | None = None) -> Tensor:
    shape, d = rules.factory(size, dtype)
    return normal_(new_tensor(shape, d, None), mean, std, generator=generator)


def randint_low(low: int, high: int, size: Sequence[int], *, generator: Generator | None = None,
                dtype: _dt.dtype | None = _dt.int64, layout: Any = None, device: Any = None,
                pin_memory: bool | None = None) -> Tensor:
    shape, d, low, span = rules.randint_plan(low, high, size, dtype)
    values = integer_values(_generator(generator), math.prod(shape), d, low, span)
    return from_array(values.reshape(shape), d)


def randint(high: int, size: Sequence[int], *, generator: Generator | None = None,
            dtype: _dt.dtype | None = _dt.int64, layout: Any = None, device: Any = None,
            pin_memory: bool | None = None) -> Tensor:
    return randint_low(0, high, size, generator=generator, dtype=dtype, device=device)


def randperm(n: int, *, generator: Generator | None = None, dtype: _dt.dtype | None = _dt.int64,
             layout: Any = None, device: Any = None, pin_memory: bool | None = None) -> Tensor:
    shape, d = rules.randperm_plan(n, dtype)
    return from_array(permutation(_generator(generator), n).astype(_dt.to_numpy_dtype(d), copy=False), d)


# --- the *_like forms (CompositeExplicitAutograd): an empty tensor like self, then the fill -------------
# The fill is dispatched, as PyTorch's composite calls it: its device (self's, or device=) picks the
# CPU kernel or the Meta one, which draws nothing.

def _like(self: Tensor, dtype: _dt.dtype | None, device: Any, memory_format: Any) -> Tensor:
    return new_tensor(self._shape, dtype or self._dtype, device or self._device, like_strides(self, memory_format))


def _fill(name: str, t: Tensor, args: tuple, generator: Generator | None) -> Tensor:
    if generator is None:
        return call(aten(name), t._keyset, t, *args)
    return call_kw(aten(name), t._keyset, (t, *args), {"generator": generator})


def rand_like(self: Tensor, *, generator: Generator | None = None, dtype: _dt.dtype | None = None,
              layout: Any = None, device: Any = None, pin_memory: bool | None = None,
              memory_format: Any = None) -> Tensor:
    return _fill("uniform_", _like(self, dtype, device, memory_format), (), generator)


def randn_like(self: Tensor, *, generator: Generator | None = None, dtype: _dt.dtype | None = None,
               layout: Any = None, device: Any = None, pin_memory: bool | None = None,
               memory_format: Any = None) -> Tensor:
    return _fill("normal_", _like(self, dtype, device, memory_format), (), generator)


def randint_like_low(self: Tensor, low: int, high: int, *, generator: Generator | None = None,
                     dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
                     pin_memory: bool | None = None, memory_format: Any = None) -> Tensor:
    return _fill("random_.from", _like(self, dtype, device, memory_format), (low, high), generator)


def randint_like(self: Tensor, high: Any, *, generator: Generator | None = None, dtype: _dt.dtype | None = None,
                 layout: Any = None, device: Any = None, pin_memory: bool | None = None,
                 memory_format: Any = None) -> Tensor:
    if isinstance(high, Tensor):  # the Tensor overloads: a one-element tensor holds the bound
        high = int(high.item())
    return randint_like_low(self, 0, high, generator=generator, dtype=dtype, device=device,
                            memory_format=memory_format)


for _fn in (uniform_, normal_, random_, random_from, random_to):
    register(_fn.__name__, _fn)
for _fn in (rand, randn, randint, randint_low, randperm, rand_like, randn_like, randint_like, randint_like_low):
    register(_fn.__name__, _fn)
for _fn in (normal_tensor_float, normal_float_tensor, normal_tensor_tensor):
    register(_fn.__name__, _fn)
register("normal_float_float", normal_float_float)
for _fn in (rules.uniform_, rules.normal_, rules.random_, rules.random_from, rules.random_to, rules.rand,
            rules.randint, rules.randint_low, rules.randperm, rules.normal_tensor_float, rules.normal_float_tensor,
            rules.normal_tensor_tensor, rules.normal_float_float):
    register(_fn.__name__ + "_meta", _fn)
register("randn_meta", rules.randn)
# the out= forms (CPU and Meta): made from these by the YAML's policy

register_backend_select(
    "normal.float_float", "rand", "rand.generator", "randn", "randn.generator", "randint", "randint.generator",
    "randint.low", "randint.low_generator", "randperm", "randperm.generator",
)
