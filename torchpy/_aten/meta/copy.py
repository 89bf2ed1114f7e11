"""Meta rules of the copies (clone, _to_copy, copy_, copy, fill_, fill, zero_, zero, cat, stack,
flip, repeat): the sizes, strides and dtype a copy gets, and the checks a copy makes, from
metadata alone.

A copy keeps its input's strides when they are dense and non-overlapping, and otherwise its
dimension order (zero strides do not move); an explicit memory format asks for contiguous or
channels-last strides; cat / stack are contiguous unless every input suggests channels-last;
flip keeps the input's layout, repeat is contiguous. Where torch's meta rule is a Python
decomposition that checks or words things its own way (cat, stack, flip, repeat), the Meta
kernel does as it does; the CPU kernels use the C++ kernels' checks. kernels/copy.py's CPU
kernels allocate by these rules; the Meta kernels are the rules plus `meta_tensor`.

Copying out of a meta tensor into a CPU one is PyTorch's NotImplementedError; the dispatcher
sends such mixed calls to the Meta kernel (Meta is the higher backend), which refuses them.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..._tensor import dtype as _dt
from ..._tensor.enums import channels_last, channels_last_3d, contiguous_format, preserve_format, strided
from ..._tensor.promotion import promote_types
from ..._tensor.tensor import Tensor, _wrap_dim, contiguous_strides, contiguous_strides_of, meta_tensor
from .factory import check_shape  # the factories' negative-size error (no data involved)
from .layout import dense_strides_like, is_non_overlapping_and_dense, preserve_strides
from .view import unsqueeze_geometry

Strides = tuple[int, ...]

_CHANNELS_LAST_ORDER = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}  # dims innermost first: C, W, H, (D), N
PRESERVE = (None, preserve_format)
NO_DATA = "Cannot copy out of meta tensor; no data!"


# --- memory formats --------------------------------------------------------------------------------


def channels_last_strides(shape: Sequence[int]) -> Strides:
    """NHWC (4-d) or NDHWC (5-d) strides for an N, C, spatial... shape."""
    result = [0] * len(shape)
    running = 1
    for d in _CHANNELS_LAST_ORDER[len(shape)]:
        result[d] = running
        running *= shape[d]  # a size-0 dim zeroes the outer strides, as PyTorch computes them
    return tuple(result)


def is_channels_last_contiguous(shape: Sequence[int], strides: Sequence[int]) -> bool:
    if len(shape) not in (4, 5):
        return False
    expected = 1
    for d in _CHANNELS_LAST_ORDER[len(shape)]:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def strides_like_channels_last(shape: Sequence[int], strides: Sequence[int]) -> bool:
    """PyTorch's guess that a 4-d/5-d tensor's strides mean channels-last."""
    if len(shape) not in (4, 5) or strides[1] == 0:
        return False
    lowest = 0
    for d in _CHANNELS_LAST_ORDER[len(shape)]:
        if shape[d] == 0 or strides[d] < lowest:
            return False
        if d == 0 and lowest == strides[1]:
            return False
        lowest = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def format_strides(shape: tuple[int, ...], strides: Strides, memory_format: Any) -> Strides:
    """The strides a copy of a (shape, strides) tensor gets under `memory_format` (None: preserve)."""
    if memory_format is None or memory_format is preserve_format:
        if is_non_overlapping_and_dense(shape, strides):
            return strides
        return dense_strides_like(shape, strides)
    if memory_format is contiguous_format:
        return contiguous_strides(shape)
    if memory_format is channels_last or memory_format is channels_last_3d:
        rank = 4 if memory_format is channels_last else 5
        if len(shape) != rank:
            name = "channels_last" if rank == 4 else "channels_last_3d"
            raise RuntimeError(f"required rank {rank} tensor to use {name} format")
        return channels_last_strides(shape)
    raise RuntimeError(f"unsupported memory format {memory_format}")


def copy_strides(shape: tuple[int, ...], strides: Strides, memory_format: Any) -> Strides:
    """clone / _to_copy's result strides."""
    contiguous = contiguous_strides_of(shape)
    if memory_format is contiguous_format or (memory_format in PRESERVE and strides == contiguous):
        return contiguous
    return format_strides(shape, strides, memory_format)


# --- copy_'s checks --------------------------------------------------------------------------------

_INTERNAL_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation."
)
_PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


def check_no_internal_overlap(t: Tensor) -> None:
    """An output may not write one memory location through two of its elements."""
    for size, stride in zip(t._shape, t.stride()):
        if stride == 0 and size > 1:
            raise RuntimeError(_INTERNAL_OVERLAP)


def check_no_partial_overlap(a: Tensor, b: Tensor) -> None:
    """Two dense tensors over one storage must be the same elements or disjoint."""
    storage = a._storage
    if storage is None or storage is not b._storage or a is b:
        return
    if not a.numel() or not b.numel():
        return
    if not (is_non_overlapping_and_dense(a._shape, a.stride()) and is_non_overlapping_and_dense(b._shape, b.stride())):
        return
    a_begin, b_begin = a.storage_offset(), b.storage_offset()
    a_end, b_end = a_begin + a.numel(), b_begin + b.numel()
    if a_begin == b_begin and a_end == b_end:
        if a.stride() != b.stride():
            raise RuntimeError(_PARTIAL_OVERLAP)
    elif a_begin < b_end and b_begin < a_end:
        raise RuntimeError(_PARTIAL_OVERLAP)


def check_copy_shapes(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    """src (shape b) must broadcast to self's shape a (PyTorch compares dims from the last one)."""
    if a == b:
        return
    ndim = max(len(a), len(b))
    shape = [0] * ndim
    for i in range(ndim - 1, -1, -1):
        size_a = a[i - ndim + len(a)] if i - ndim + len(a) >= 0 else 1
        size_b = b[i - ndim + len(b)] if i - ndim + len(b) >= 0 else 1
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise RuntimeError(
                f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) at non-singleton "
                f"dimension {i}")
        shape[i] = size_b if size_a == 1 else size_a
    if tuple(shape) != a:
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, a))}] doesn't match the broadcast shape "
            f"[{', '.join(map(str, shape))}]"
        )


def check_copy(self: Tensor, src: Tensor) -> None:
    """copy_'s checks, before any data moves."""
    check_copy_shapes(self._shape, src._shape)
    check_no_internal_overlap(self)
    check_no_partial_overlap(self, src)


def check_fill_value(value: Tensor) -> None:
    if value._shape:
        raise RuntimeError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {len(value._shape)} dimensions.")


def _into_meta(self: Tensor) -> None:
    """A mixed call reached the Meta kernel: writing into a tensor that is not meta needs data."""
    if self._device.type != "meta":
        raise NotImplementedError(NO_DATA)


# --- the Meta kernels ------------------------------------------------------------------------------


def copy_of(self: Tensor, d: _dt.dtype, memory_format: Any) -> Tensor:
    """A meta tensor laid out as a copy of `self` (any device) as dtype `d` would be."""
    return meta_tensor(self._shape, d, copy_strides(self._shape, self.stride(), memory_format))


def clone(self: Tensor, *, memory_format: Any = None) -> Tensor:
    return copy_of(self, self._dtype, memory_format)


def _to_copy(self: Tensor, *, dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
             pin_memory: bool | None = None, non_blocking: bool = False, memory_format: Any = None) -> Tensor:
    if layout is not None and layout is not strided:
        raise NotImplementedError(f"_to_copy to layout {layout} is not supported")
    if device is not None and device.type != "meta":
        raise NotImplementedError(NO_DATA)
    return copy_of(self, self._dtype if dtype is None else dtype, memory_format)


def copy_(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    if self is src:
        return self
    check_copy(self, src)
    _into_meta(self)
    return self


def copy(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    _into_meta(self)
    return copy_(clone(self), src, non_blocking)


def fill_(self: Tensor, value: Any) -> Tensor:
    return self  # torch's meta fill_ checks no value: nothing is converted


def fill__tensor(self: Tensor, value: Tensor) -> Tensor:
    check_fill_value(value)
    _into_meta(self)
    return self


def zero_(self: Tensor) -> Tensor:
    return self


def fill(self: Tensor, value: Any) -> Tensor:
    return clone(self)


def fill_tensor(self: Tensor, value: Tensor) -> Tensor:
    check_fill_value(value)
    _into_meta(self)
    return clone(self)


def zero(self: Tensor) -> Tensor:
    return clone(self)


# --- cat, stack ------------------------------------------------------------------------------------


def check_same_device(tensors: Sequence[Tensor]) -> None:
    """Every input on the first one's device (a mixed CPU / meta list reaches the Meta kernel)."""
    device = tensors[0]._device
    for t in tensors:
        if t._device is not device and t._device != device:
            raise RuntimeError(f"Tensor on device {t._device} is not on the expected device {device}!")


def cat_inputs(tensors: Sequence[Tensor], dim: int) -> tuple[list[Tensor], int]:
    """The tensors that take part (1-d empty ones are skipped, as PyTorch's legacy rule says)
    and the wrapped dim, after PyTorch's checks."""
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    device = tensors[0]._device
    parts = []
    for i, t in enumerate(tensors):
        if not t._shape:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        if t._device is not device and t._device != device:
            raise RuntimeError(f"Tensor on device {t._device} is not on the expected device {device}!")
        if t._shape != (0,):
            parts.append(t)
    if not parts:  # nothing takes part: torch checks no dim
        return parts, 0
    reference = parts[0]._shape
    ndim = len(reference)
    d = _wrap_dim(dim, ndim)
    for i, t in enumerate(tensors):
        shape = t._shape
        if shape == reference or shape == (0,):
            continue
        if len(shape) != ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ndim} and {len(shape)}")
        for k in range(ndim):
            if k != d and shape[k] != reference[k]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{reference[k]} but got size {shape[k]} for tensor number {i} in the list."
                )
    return parts, d


def promoted_dtype(tensors: Sequence[Tensor]) -> _dt.dtype:
    result = tensors[0]._dtype
    for t in tensors:
        if t._dtype is not result:
            result = promote_types(result, t._dtype)
    return result


def cat_memory_format(geometries: Sequence[tuple[tuple, tuple]]) -> Any:
    """Channels-last when every input's strides suggest it, else contiguous (only 4-d/5-d can be)."""
    if len(geometries[0][0]) not in (4, 5):
        return contiguous_format
    if all(strides_like_channels_last(shape, strides) for shape, strides in geometries):
        return channels_last if len(geometries[0][0]) == 4 else channels_last_3d
    return contiguous_format


def joined_strides(shape: tuple[int, ...], memory_format: Any) -> Strides:
    """cat / stack's result strides under the format cat_memory_format chose."""
    return contiguous_strides(shape) if memory_format is contiguous_format else channels_last_strides(shape)


def cat_rule(tensors: Sequence[Tensor], dim: int) -> tuple[list[Tensor], int, tuple[int, ...], Any, _dt.dtype]:
    """cat's parts, wrapped dim, result shape, memory format and dtype."""
    parts, d = cat_inputs(tensors, dim)
    if not parts:
        return parts, 0, (0,), contiguous_format, promoted_dtype(tensors)
    shape = list(parts[0]._shape)
    shape[d] = sum([t._shape[d] for t in parts])
    memory_format = cat_memory_format([(t._shape, t.stride()) for t in parts])
    return parts, d, tuple(shape), memory_format, promoted_dtype(tensors)


def stack_rule(tensors: Sequence[Tensor], dim: int) -> tuple[int, tuple[int, ...], tuple[int, ...], Any, _dt.dtype]:
    """stack's wrapped dim, each input's unsqueezed shape, the result shape, memory format, dtype:
    cat of the inputs each unsqueezed at dim."""
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0]._shape
    for i, t in enumerate(tensors):
        if t._shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got [{', '.join(map(str, shape))}] at "
                f"entry 0 and [{', '.join(map(str, t._shape))}] at entry {i}"
            )
    d = _wrap_dim(dim, len(shape) + 1)
    check_same_device(tensors)
    new_shape = shape[:d] + (len(tensors),) + shape[d:]
    memory_format = contiguous_format
    if len(new_shape) in (4, 5):  # the unsqueezed inputs' strides decide the layout
        memory_format = cat_memory_format([unsqueeze_geometry(shape, t.stride(), d) for t in tensors])
    return d, shape[:d] + (1,) + shape[d:], new_shape, memory_format, promoted_dtype(tensors)


def _meta_cat_parts(tensors: Sequence[Tensor], dim: int) -> tuple[list[Tensor], int]:
    """cat's parts and wrapped dim as torch's meta rule (a Python decomposition) checks them,
    with its messages: ranks against the first input that is not 1-d, 1-d inputs of another
    rank must be empty, then sizes against the first part (numbered among the parts)."""
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    check_same_device(tensors)
    example = None
    for i, t in enumerate(tensors):
        n = len(t._shape)
        if example is None:
            if n != 1:
                example = t
        elif n != 1 and n != len(example._shape):
            raise RuntimeError(f"Number of dimensions of tensors must match.  Expected {len(example._shape)}-D "
                               f"tensors, but got {n}-D for tensor number {i} in the list")
    ndim = len((example if example is not None else tensors[0])._shape)
    parts = []
    for i, t in enumerate(tensors):
        if len(t._shape) != ndim:
            if t._shape[0] != 0:
                raise RuntimeError(f"Number of dimensions of tensors must match.  Expected {ndim}-D tensors, "
                                   f"but got 1-D for tensor number {i} in the list")
        elif t._shape != (0,):
            parts.append(t)
    if not parts:
        return parts, 0
    d = _wrap_dim(dim, ndim)
    if ndim == 0:  # torch's meta rule fails writing the size of a dim 0-d inputs lack
        raise IndexError("list assignment index out of range")
    reference = parts[0]._shape
    for i, t in enumerate(parts):
        for k, (expected, size) in enumerate(zip(reference, t._shape)):
            if k != d and size != expected:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected {expected} in "
                                   f"dimension {k} but got {size} for tensor number {i} in the list")
    return parts, d


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    parts, d = _meta_cat_parts(tensors, dim)
    dtype = promoted_dtype(tensors)
    if not parts:
        return meta_tensor((0,), dtype, (1,))
    shape = list(parts[0]._shape)
    shape[d] = sum([t._shape[d] for t in parts])
    memory_format = cat_memory_format([(t._shape, t.stride()) for t in parts])
    return meta_tensor(tuple(shape), dtype, joined_strides(tuple(shape), memory_format))


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    # torch's meta rule: equal sizes checked when dim falls before the last, else cat's checks
    # on the unsqueezed inputs
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    shape = tensors[0]._shape
    d = _wrap_dim(dim, len(shape) + 1)
    if d < len(shape):
        for t in tensors:
            if t._shape != shape:
                raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                                   f"torch.Size([{', '.join(map(str, shape))}]) at entry 0 ")
    else:
        _meta_cat_parts([meta_tensor(t._shape + (1,), t._dtype) for t in tensors], d)
    _, _, result_shape, memory_format, dtype = stack_rule(tensors, dim)
    return meta_tensor(result_shape, dtype, joined_strides(result_shape, memory_format))


# --- flip, repeat ----------------------------------------------------------------------------------


def flip_dims(shape: tuple[int, ...], dims: Sequence[int]) -> tuple[int, ...]:
    """The wrapped dims, each once (torch's CPU check: wrapped and tested one at a time)."""
    seen: list[int] = []
    for dim in dims:
        d = _wrap_dim(dim, len(shape))
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.append(d)
    return tuple(seen)


def flip(self: Tensor, dims: Sequence[int]) -> Tensor:
    # torch's meta rule wraps every dim first and words the duplicate its own way
    wrapped = [_wrap_dim(dim, len(self._shape)) for dim in dims]
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError("duplicate value in the list of dims")
    return meta_tensor(self._shape, self._dtype, preserve_strides(self._shape, self.stride()))


def repeat_shapes(shape: tuple[int, ...], repeats: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The input's shape padded with leading 1s to len(repeats), and the result's shape."""
    if len(repeats) < len(shape):
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    padded = (1,) * (len(repeats) - len(shape)) + shape
    return padded, check_shape([size * times for size, times in zip(padded, repeats)])


def repeat(self: Tensor, repeats: Sequence[int]) -> Tensor:
    repeats = tuple(repeats)
    if len(repeats) >= len(self._shape):  # else repeat_shapes' error comes first, as in torch's meta
        for i, times in enumerate(repeats):
            if times < 0:  # torch's meta rule names the repeat (the CPU kernel the size it makes)
                raise RuntimeError(f"Repeats cannot be negative, found {times} at index {i}")
    _, shape = repeat_shapes(self._shape, repeats)
    return meta_tensor(shape, self._dtype, contiguous_strides_of(shape))
