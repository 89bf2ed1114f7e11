"""Meta rules of the matrix products (mm, bmm, addmm, baddbmm, mv, addmv, dot, vdot): the
result's shape and dtype and the shape and dtype checks, from metadata alone.

kernels/linalg.py's CPU kernels make the same checks through these rules; the Meta kernels are
these rules plus `meta_tensor`. PyTorch's meta functions for these ops are Python code with their
own words (and a few checks fewer), so a check that both make takes `on_meta` to pick the wording.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..._tensor import dtype as _dt
from ..._tensor.tensor import Tensor, meta_tensor


def shape_text(shape: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


# --- broadcasting self to the product's shape (addmm, baddbmm) ------------------------------------

def expand_error(source: Sequence[int], target: Sequence[int]) -> RuntimeError | None:
    """PyTorch's expand error for broadcasting `source` to `target`, or None if it fits."""
    if len(source) > len(target):
        return RuntimeError(
            f"expand(torch.FloatTensor{{{shape_text(source)}}}, size={shape_text(target)}): the number of sizes "
            f"provided ({len(target)}) must be greater or equal to the number of dimensions in the tensor "
            f"({len(source)})")
    offset = len(target) - len(source)
    for i, size in enumerate(source):
        wanted = target[offset + i]
        if size != wanted and size != 1:
            return RuntimeError(
                f"The expanded size of the tensor ({wanted}) must match the existing size ({size}) at "
                f"non-singleton dimension {offset + i}.  Target sizes: {shape_text(target)}.  Tensor sizes: "
                f"{shape_text(source)}")
    return None


def expand_error_for(self: Tensor, target: Sequence[int]) -> RuntimeError | None:
    error = expand_error(self._shape, target)
    if error is not None and str(error).startswith("expand("):
        name = f"torch.{self._dtype._c10_name}Tensor"
        return RuntimeError(str(error).replace("torch.FloatTensor", name, 1))
    return error


def broadcast_error_meta(self: Tensor, target: Sequence[int]) -> RuntimeError | None:
    """The message of PyTorch's Python meta kernels when self does not broadcast to target."""
    for back in range(1, min(len(self._shape), len(target)) + 1):
        size = self._shape[-back]
        if size != 1 and size != target[-back]:
            return RuntimeError(
                f"Attempting to broadcast a dimension of length {size} at {-back}! Mismatching argument at index 1 "
                f"had torch.Size({list(self._shape)}); but expected shape should be broadcastable to "
                f"{list(target)}")
    return expand_error_for(self, target)


# --- mm, bmm, addmm, baddbmm ------------------------------------------------------------------------

def check_mm(self: Tensor, mat2: Tensor, on_meta: bool) -> tuple[int, int]:
    """mm's shape checks; the result's shape."""
    if len(self._shape) != 2:
        raise RuntimeError("a must be 2D" if on_meta else "self must be a matrix")
    if len(mat2._shape) != 2:
        raise RuntimeError("b must be 2D" if on_meta else "mat2 must be a matrix")
    check_reduction_dim(self, mat2, on_meta)
    return self._shape[0], mat2._shape[1]


def check_reduction_dim(mat1: Tensor, mat2: Tensor, on_meta: bool) -> None:
    (n, m), (k, p) = mat1._shape, mat2._shape
    if m != k:
        if on_meta:
            raise RuntimeError(f"a and b must have same reduction dim, but got [{n}, {m}] X [{k}, {p}].")
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{m} and {k}x{p})")


def check_batches(batch1: Tensor, batch2: Tensor) -> tuple[int, int, int]:
    """bmm / baddbmm's shape checks (worded alike on every device); the result's shape."""
    if len(batch1._shape) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(batch2._shape) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, n, m = batch1._shape
    if batch2._shape[0] != b or batch2._shape[1] != m:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {m}] but got: "
            f"[{batch2._shape[0]}, {batch2._shape[1]}].")
    return b, n, batch2._shape[2]


def check_batch_dtypes(batch1: Tensor, batch2: Tensor, on_meta: bool) -> None:
    if batch1._dtype is not batch2._dtype:
        a, b = (batch1._dtype, batch2._dtype) if on_meta else (batch1._dtype._c10_name, batch2._dtype._c10_name)
        raise RuntimeError(f"expected scalar type {a} but found {b}")


def baddbmm_target(self: Tensor, batch1: Tensor, batch2: Tensor, on_meta: bool) -> None:
    """baddbmm's first checks: self broadcasts to the product, the three dtypes agree."""
    def size(t: Tensor, dim: int) -> int:
        return t._shape[dim] if dim < len(t._shape) else 1

    error = expand_error_for(self, (size(batch1, 0), size(batch1, 1), size(batch2, 2)))
    if error is not None:
        raise error
    if self._dtype is not batch1._dtype:
        if on_meta:
            raise RuntimeError(f"Input dtypes must be the same, got: input: {self._dtype}, batch1: {batch1._dtype}, "
                               f"batch2: {batch2._dtype}")
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {self._dtype._type_meta_name}, batch1: "
            f"{batch1._dtype._type_meta_name}, batch2: {batch2._dtype._type_meta_name}")


# --- mv, addmv, dot, vdot ---------------------------------------------------------------------------

def check_addmv(self: Tensor, mat: Tensor, vec: Tensor) -> None:
    """The CPU kernel's addmv checks (`self` may be a meta tensor standing for mv's result)."""
    if not (len(mat._shape) == 2 and len(vec._shape) == 1 and len(self._shape) <= 1):
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {len(self._shape)}, {len(mat._shape)}, {len(vec._shape)}")
    rows, cols = mat._shape
    if cols != vec._shape[0] or (self.numel() != rows and self.numel() != 1):
        if not self._shape:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        raise RuntimeError(
            f"size mismatch, got input ({self._shape[0]}), mat ({rows}x{cols}), vec ({vec._shape[0]})")


def check_dot(self: Tensor, other: Tensor, op: str, on_meta: bool) -> None:
    if len(self._shape) != 1 or len(other._shape) != 1:
        raise RuntimeError(f"1D tensors expected, but got {len(self._shape)}D and {len(other._shape)}D tensors")
    if self._dtype is not other._dtype:
        a, b = (self._dtype, other._dtype) if on_meta else (self._dtype._c10_name, other._dtype._c10_name)
        raise RuntimeError(f"{op} : expected both vectors to have same dtype, but found {a} and {b}")
    n, m = self._shape[0], other._shape[0]
    if n != m:
        space = "" if on_meta else " "  # (sic: PyTorch's meta message runs two words together)
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the{space}same number of "
            f"elements, but got {n} and {m} elements respectively")


# --- the Meta kernels ---------------------------------------------------------------------------------

def mm(self: Tensor, mat2: Tensor) -> Tensor:
    return meta_tensor(check_mm(self, mat2, on_meta=True), self._dtype)


def bmm(self: Tensor, mat2: Tensor) -> Tensor:
    shape = check_batches(self, mat2)
    check_batch_dtypes(self, mat2, on_meta=True)
    return meta_tensor(shape, mat2._dtype)


def addmm(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    for name, t in (("a", mat1), ("b", mat2)):
        if len(t._shape) != 2:
            raise RuntimeError(f"{name} must be 2D")
    check_reduction_dim(mat1, mat2, on_meta=True)
    target = (mat1._shape[0], mat2._shape[1])
    error = broadcast_error_meta(self, target)
    if error is not None:
        raise error
    return meta_tensor(target, self._dtype)


def baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    baddbmm_target(self, batch1, batch2, on_meta=True)
    shape = check_batches(batch1, batch2)
    check_batch_dtypes(batch1, batch2, on_meta=True)
    return meta_tensor(shape, batch1._dtype)


def _mv(mat: Tensor, vec: Tensor, dtypes: tuple[_dt.dtype, ...] = ()) -> Tensor:
    if len(mat._shape) != 2 or len(vec._shape) != 1:
        raise RuntimeError(f"matrix @ vector expected, got {len(mat._shape)}, {len(vec._shape)}")
    if mat._shape[1] != vec._shape[0]:
        raise RuntimeError(f"size mismatch, got input ({mat._shape[0]}x{mat._shape[1]}), vec ({vec._shape[0]})")
    if dtypes and not all(d is dtypes[0] for d in dtypes):
        raise RuntimeError("addmv input tensors must have the same dtype, but got " + ", ".join(map(str, dtypes[:-1]))
                           + f", and {dtypes[-1]}")
    return meta_tensor((mat._shape[0],), vec._dtype)


def mv(self: Tensor, vec: Tensor) -> Tensor:
    return _mv(self, vec)


def addmv(self: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    return _mv(mat, vec, (self._dtype, mat._dtype, vec._dtype))


def dot(self: Tensor, tensor: Tensor) -> Tensor:
    check_dot(self, tensor, "dot", on_meta=True)
    return meta_tensor((), self._dtype)


def vdot(self: Tensor, other: Tensor) -> Tensor:
    check_dot(self, other, "dot", on_meta=True)  # (sic: PyTorch's vdot says "dot" too)
    return meta_tensor((), self._dtype)
