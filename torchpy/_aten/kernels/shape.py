"""Composite shape ops (CompositeImplicitAutograd): reshape, flatten, unflatten, movedim, chunk,
narrow, tensor_split, T / mT / H / mH, view_as, expand_as, ...

Each is the decomposition PyTorch's runs, calling the same aten ops with the same arguments,
so a TorchDispatchMode (and autograd) sees exactly what it sees in PyTorch: x.reshape(6, 4)
is aten.view, a reshape that cannot be a view is aten.clone then aten._unsafe_view,
x.flatten(1, 1) is nothing at all.
"""

from __future__ import annotations

import math
import warnings
from typing import Sequence

from ..._tensor import dtype as _dt
from ..._tensor.enums import contiguous_format
from ..._tensor.tensor import _CONTIGUOUS, Tensor, _wrap_dim
from ..fastcall import aten, call, call_kw
from ..registry import register
from ..meta.layout import is_contiguous
from ..meta.view import infer_size, shape_str, view_strides


def _view(self: Tensor, shape: list[int]) -> Tensor:
    return call(aten("view"), self._keyset, self, shape)


# --- reshape, flatten, unflatten, view_as, reshape_as, expand_as -------------------------------------


@register("reshape")
def reshape(self: Tensor, shape: Sequence[int]) -> Tensor:
    inferred = infer_size(shape, math.prod(self._shape))
    strides = self._stride or self.stride()
    # contiguous input: a view whatever the shape (tested first, as it is the common case; the
    # memo read inline, as a call costs reshape ~3%; a shape not remembered just takes view_strides)
    if strides == _CONTIGUOUS.get(self._shape) or view_strides(self._shape, strides, inferred) is not None:
        return _view(self, list(shape))
    copy = call_kw(aten("clone"), self._keyset, (self,), {"memory_format": contiguous_format})
    return call(aten("_unsafe_view"), copy._keyset, copy, list(inferred))


@register("flatten")
def flatten(self: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    shape = self._shape
    ndim = len(shape)
    start, end = _wrap_dim(start_dim, ndim), _wrap_dim(end_dim, ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if ndim == 0:
        return reshape(self, [1])
    if start == end:
        return self
    return reshape(self, list(shape[:start]) + [math.prod(shape[start:end + 1])] + list(shape[end + 1:]))


@register("unflatten")
def unflatten(self: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    d = _wrap_dim(dim, len(self._shape))
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    size = self._shape[d] if self._shape else 1
    if list(sizes).count(-1) > 1:
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be inferred")
    try:
        inferred = infer_size(sizes, size)
    except RuntimeError:
        raise RuntimeError(
            f"unflatten: Provided sizes {shape_str(sizes)} don't multiply up to the size of dim {dim} "
            f"({size}) in the input tensor"
        ) from None
    return _view(self, list(self._shape[:d]) + list(inferred) + list(self._shape[d + 1:]))


@register("view_as")
def view_as(self: Tensor, other: Tensor) -> Tensor:
    return _view(self, list(other._shape))


@register("reshape_as")
def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return reshape(self, list(other._shape))


@register("expand_as")
def expand_as(self: Tensor, other: Tensor) -> Tensor:
    return call(aten("expand"), self._keyset, self, list(other._shape))


# --- movedim, swapdims, T, mT, H, mH ------------------------------------------------------------------


def _movedim_perm(ndim: int, source: Sequence[int], destination: Sequence[int]) -> list[int]:
    if len(source) != len(destination):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(source)} dims) should contain "
            f"the same number of dims as destination ({list(destination)} dims)"
        )
    src = [_wrap_dim(d, ndim) for d in source]
    dst = [_wrap_dim(d, ndim) for d in destination]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(source)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(destination)})")
    perm = [-1] * ndim
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter([d for d in range(ndim) if d not in src])
    return [p if p >= 0 else next(rest) for p in perm]


def _permute(self: Tensor, dims: list[int]) -> Tensor:
    return call(aten("permute"), self._keyset, self, dims)


def _transpose(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return call(aten("transpose.int"), self._keyset, self, dim0, dim1)


@register("movedim_intlist")
def movedim_intlist(self: Tensor, source: Sequence[int], destination: Sequence[int]) -> Tensor:
    return _permute(self, _movedim_perm(len(self._shape), source, destination))


@register("movedim_int")
def movedim_int(self: Tensor, source: int, destination: int) -> Tensor:
    return movedim_intlist(self, [source], [destination])


@register("swapdims")
def swapdims(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _transpose(self, dim0, dim1)


@register("numpy_T")
def numpy_T(self: Tensor) -> Tensor:
    ndim = len(self._shape)
    if ndim == 0:
        warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
                      UserWarning, stacklevel=3)
    elif ndim != 2:
        warnings.warn(
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
            "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
            "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
            "tensor.",
            UserWarning,
            stacklevel=3,
        )
    return _permute(self, list(range(ndim - 1, -1, -1)))


def _matrix_ndim(self: Tensor, what: str) -> None:
    ndim = len(self._shape)
    if ndim < 2:
        raise RuntimeError(f"{what} is only supported on matrices or batches of matrices. Got {ndim}-D tensor.")


def _conj_if_complex(result: Tensor) -> Tensor:
    if result._dtype.is_complex:
        return aten("conj")(result)
    return result


@register("mT")
def mT(self: Tensor) -> Tensor:
    _matrix_ndim(self, "tensor.mT")
    return _transpose(self, -2, -1)


@register("mH")
def mH(self: Tensor) -> Tensor:
    _matrix_ndim(self, "tensor.mH")
    return _conj_if_complex(_transpose(self, -2, -1))


@register("adjoint")
def adjoint(self: Tensor) -> Tensor:
    _matrix_ndim(self, "tensor.adjoint()")
    return _conj_if_complex(_transpose(self, -2, -1))


@register("matrix_H")
def matrix_H(self: Tensor) -> Tensor:
    ndim = len(self._shape)
    if ndim != 2:
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {ndim}-D tensor."
            + (" For batches of matrices, consider using tensor.mH" if ndim > 2 else ""))
    return _conj_if_complex(_transpose(self, 0, 1))


# --- narrow ---------------------------------------------------------------------------------------------


def _slice(self: Tensor, dim: int, start: int, end: int) -> Tensor:
    return call(aten("slice.Tensor"), self._keyset, self, dim, start, end)


@register("narrow")
def narrow(self: Tensor, dim: int, start: int, length: int) -> Tensor:
    ndim = len(self._shape)
    if ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = _wrap_dim(dim, ndim)
    size = self._shape[d]
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _slice(self, d, start, start + length)


@register("narrow_tensor")
def narrow_tensor(self: Tensor, dim: int, start: Tensor, length: int) -> Tensor:
    d = start._dtype
    if start._shape or d.is_floating_point or d.is_complex or d is _dt.bool:
        raise RuntimeError("start must be an 0-dim integral Tensor.")
    return narrow(self, dim, int(start.item()), length)


# --- split.sizes, chunk, tensor_split --------------------------------------------------------------------


@register("split_sizes")
def split_sizes(self: Tensor, split_size: Sequence[int], dim: int = 0) -> list[Tensor]:
    return call(aten("split_with_sizes"), self._keyset, self, list(split_size), dim)


def _with_dim(args: tuple, dim: int) -> tuple:
    return args if dim == 0 else args + (dim,)  # dim=0 is the schema default: dropped


@register("chunk")
def chunk(self: Tensor, chunks: int, dim: int = 0) -> list[Tensor]:
    if not self._shape:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = self._shape[_wrap_dim(dim, len(self._shape))]
    split_size = (size + chunks - 1) // chunks
    if split_size == 0 and size == 0:
        sizes = [split_size] * chunks
        sizes[-1] = split_size - (split_size * chunks - size)
        return call(aten("split_with_sizes"), self._keyset, *_with_dim((self, sizes), dim))
    return call(aten("split.Tensor"), self._keyset, *_with_dim((self, split_size), dim))


def _split_at(self: Tensor, d: int, bounds: Sequence[int]) -> list[Tensor]:
    """Slices of dim d between consecutive bounds (the pieces tensor_split returns)."""
    return [_slice(self, d, start, end) for start, end in zip(bounds, bounds[1:])]


def _tensor_split_dim(self: Tensor, dim: int) -> int:
    if not self._shape:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    return _wrap_dim(dim, len(self._shape))


@register("tensor_split_sections")
def tensor_split_sections(self: Tensor, sections: int, dim: int = 0) -> list[Tensor]:
    d = _tensor_split_dim(self, dim)
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    base, extra = divmod(self._shape[d], sections)
    bounds = [0]
    for i in range(sections):
        bounds.append(bounds[-1] + base + (1 if i < extra else 0))
    return _split_at(self, d, bounds)


@register("tensor_split_indices")
def tensor_split_indices(self: Tensor, indices: Sequence[int], dim: int = 0) -> list[Tensor]:
    d = _tensor_split_dim(self, dim)
    return _split_at(self, d, [0] + list(indices) + [self._shape[d]])  # torch ends the last piece at the size


@register("tensor_split_tensor")
def tensor_split_tensor(self: Tensor, tensor_indices_or_sections: Tensor, dim: int = 0) -> list[Tensor]:
    split = tensor_indices_or_sections
    if split._device.type != "cpu":
        raise RuntimeError(
            f"tensor_split expected tensor_indices_or_sections to be on cpu, but it's on {split._device}")
    if split._dtype is not _dt.int64:
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
            f"{split._dtype._c10_name}")
    if len(split._shape) > 1:
        raise RuntimeError(
            "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional "
            f"tensor, but got a tensor with {len(split._shape)} dims")
    if not split._shape:
        return tensor_split_sections(self, int(split.item()), dim)
    return tensor_split_indices(self, [int(i) for i in split.tolist()], dim)


@register("unsafe_chunk")
def unsafe_chunk(self: Tensor, chunks: int, dim: int = 0) -> list[Tensor]:
    if not self._shape:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = self._shape[_wrap_dim(dim, len(self._shape))]
    split_size = (size + chunks - 1) // chunks
    if split_size == 0 and size == 0:
        sizes = [split_size] * chunks
        sizes[-1] = split_size - (split_size * chunks - size)
        return call(aten("unsafe_split_with_sizes"), self._keyset, *_with_dim((self, sizes), dim))
    return call(aten("unsafe_split.Tensor"), self._keyset, *_with_dim((self, split_size), dim))


# --- ravel, atleast_1d/2d/3d, hstack, vstack, dstack, column_stack ----------------------------------


@register("ravel")
def ravel(self: Tensor) -> Tensor:
    shape = self._shape
    if not (0 in shape or is_contiguous(shape, self._stride or self.stride())):
        self = call_kw(aten("clone"), self._keyset, (self,), {"memory_format": contiguous_format})
    return _view(self, [-1])


@register("atleast_1d")
def atleast_1d(self: Tensor) -> Tensor:
    return reshape(self, [1]) if not self._shape else self


@register("atleast_2d")
def atleast_2d(self: Tensor) -> Tensor:
    ndim = len(self._shape)
    if ndim == 0:
        return reshape(self, [1, 1])
    if ndim == 1:
        return call(aten("unsqueeze"), self._keyset, self, 0)
    return self


@register("atleast_3d")
def atleast_3d(self: Tensor) -> Tensor:
    ndim = len(self._shape)
    if ndim == 0:
        return reshape(self, [1, 1, 1])
    if ndim == 1:
        self = call(aten("unsqueeze"), self._keyset, self, 0)
    if ndim <= 2:
        return call(aten("unsqueeze"), self._keyset, self, -1)
    return self


@register("atleast_1d_sequence")
def atleast_1d_sequence(tensors: Sequence[Tensor]) -> list[Tensor]:
    return [atleast_1d(t) for t in tensors]


@register("atleast_2d_sequence")
def atleast_2d_sequence(tensors: Sequence[Tensor]) -> list[Tensor]:
    return [atleast_2d(t) for t in tensors]


@register("atleast_3d_sequence")
def atleast_3d_sequence(tensors: Sequence[Tensor]) -> list[Tensor]:
    return [atleast_3d(t) for t in tensors]


def _cat(tensors: list[Tensor], dim: int) -> Tensor:
    ks = 0
    for t in tensors:
        ks |= t._keyset
    if dim == 0:
        return call(aten("cat"), ks, tensors)
    return call(aten("cat"), ks, tensors, dim)


def _check_non_empty(tensors: Sequence[Tensor], name: str) -> None:
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


@register("hstack")
def hstack(tensors: Sequence[Tensor]) -> Tensor:
    _check_non_empty(tensors, "hstack")
    pieces = [atleast_1d(t) for t in tensors]
    return _cat(pieces, 0 if len(pieces[0]._shape) == 1 else 1)


@register("vstack")
def vstack(tensors: Sequence[Tensor]) -> Tensor:
    _check_non_empty(tensors, "vstack")
    return _cat([atleast_2d(t) for t in tensors], 0)


@register("dstack")
def dstack(tensors: Sequence[Tensor]) -> Tensor:
    _check_non_empty(tensors, "dstack")
    return _cat([atleast_3d(t) for t in tensors], 2)


@register("column_stack")
def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    _check_non_empty(tensors, "column_stack")
    columns = [_view(t, [math.prod(t._shape), 1]) if len(t._shape) <= 1 else t for t in tensors]
    return _cat(columns, 1)

