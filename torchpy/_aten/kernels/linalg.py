"""Matrix products.

Kernels (CPU and Meta): mm, bmm, addmm, addmv, mv, dot, vdot, baddbmm. They check
shapes and dtypes as PyTorch does, in its order and words, then call NumPy on the
tensors' own arrays (no copies; 16-bit floats are multiplied in float32, as PyTorch
accumulates them).

CompositeImplicitAutograd decompositions: matmul, outer/ger, linear (einsum is in
einsum.py). As in
PyTorch, these are not kernels but programs over other aten ops (view, reshape,
expand, transpose, mm, bmm, ...), called through the dispatcher so that a
TorchDispatchMode sees the same sequence of ops it sees under PyTorch.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..._dispatch import tls
from ..._dispatch.keys import DispatchKey, key_bits
from ..._dispatch.ops import ops
from ..._tensor import dtype as _dt
from ..._tensor import tensor as _tensor_module  # grad_mode_enabled: filled in by autograd, a layer above
from ..._tensor.enums import contiguous_format
from ..._tensor.tensor import Tensor, from_array, meta_tensor
from ..fastcall import aten as _overload
from ..fastcall import call
from ..registry import register
from .factory import element, write_factory_result
from .variants import check_out_dtype

aten = ops.aten


def aten_call(name: str, tensor: Tensor, *args: Any) -> Tensor:
    """aten `name`(tensor, *args) with arguments already in normalized form (positional, no
    trailing defaults): dispatched as usual, without the binder."""
    return call(_overload(name), tensor._keyset, tensor, *args)

_PYTHON_BIT = key_bits(DispatchKey.Python)


# --- shared helpers ------------------------------------------------------------------------------

def _shape_text(shape: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _is_meta(a: Tensor, b: Tensor, c: Tensor | None = None) -> bool:
    return a._data is None or b._data is None or (c is not None and c._data is None)


def _not_implemented(op: str, d: _dt.dtype) -> NotImplementedError:
    return NotImplementedError(f'"{op}" not implemented for \'{d._c10_name}\'')


_LOW_PRECISION = frozenset({_dt.float16, _dt.bfloat16})
# Multiplied by ndarray.dot as they are (no float32 detour, no bool error).
_BLAS_DTYPES = frozenset({_dt.float32, _dt.float64, _dt.complex64, _dt.complex128})


def _product(a: np.ndarray, b: np.ndarray, d: _dt.dtype) -> np.ndarray:
    """a @ b in dtype d on the arrays as they are (ndarray.dot for matrices and vectors, the
    quickest entry to BLAS; matmul for batches); 16-bit floats are multiplied in float32."""
    if d in _LOW_PRECISION:
        return _product(a.astype(np.float32), b.astype(np.float32), _dt.float32).astype(_dt.to_numpy_dtype(d))
    if a.ndim <= 2 and b.ndim <= 2:
        return a.dot(b)
    return np.matmul(a, b)


def _scaled_sum(product: np.ndarray, alpha: Any, self_array: np.ndarray | None, beta: Any,
                d: _dt.dtype) -> np.ndarray:
    """beta * self + alpha * product in dtype d (float32 arithmetic for 16-bit floats); self is
    ignored when beta is 0, NaNs included, as PyTorch documents."""
    alpha = element(alpha, d)
    beta = element(beta, d)
    np_dtype = _dt.to_numpy_dtype(d)
    compute = np.dtype(np.float32) if d.itemsize == 2 and d.is_floating_point else np_dtype
    scalar = compute.type
    result = product.astype(compute, copy=False)
    if alpha != 1:
        result = result * scalar(alpha)
    if beta != 0 and self_array is not None:
        addend = self_array.astype(compute, copy=False)
        result = result + (addend if beta == 1 else addend * scalar(beta))
    return np.asarray(result).astype(np_dtype, copy=False)


def _expand_error(source: Sequence[int], target: Sequence[int]) -> RuntimeError | None:
    """PyTorch's expand error for broadcasting `source` to `target`, or None if it fits."""
    if len(source) > len(target):
        return RuntimeError(
            f"expand(torch.FloatTensor{{{_shape_text(source)}}}, size={_shape_text(target)}): the number of sizes "
            f"provided ({len(target)}) must be greater or equal to the number of dimensions in the tensor "
            f"({len(source)})")
    offset = len(target) - len(source)
    for i, size in enumerate(source):
        wanted = target[offset + i]
        if size != wanted and size != 1:
            return RuntimeError(
                f"The expanded size of the tensor ({wanted}) must match the existing size ({size}) at "
                f"non-singleton dimension {offset + i}.  Target sizes: {_shape_text(target)}.  Tensor sizes: "
                f"{_shape_text(source)}")
    return None


def _expand_error_for(self: Tensor, target: Sequence[int]) -> RuntimeError | None:
    error = _expand_error(self._shape, target)
    if error is not None and str(error).startswith("expand("):
        name = f"torch.{self._dtype._c10_name}Tensor"
        return RuntimeError(str(error).replace("torch.FloatTensor", name, 1))
    return error


def _subclass_like(t: Tensor) -> bool:
    """PyTorch's isTensorSubclassLike: a dispatch mode is active, or t has the Python key."""
    return bool((tls.local.included | t._keyset) & _PYTHON_BIT)


# --- mm, bmm, addmm, baddbmm ------------------------------------------------------------------

def _check_mm(self: Tensor, mat2: Tensor) -> None:
    meta = _is_meta(self, mat2)  # PyTorch's meta kernel is Python code with its own words
    if len(self._shape) != 2:
        raise RuntimeError("a must be 2D" if meta else "self must be a matrix")
    if len(mat2._shape) != 2:
        raise RuntimeError("b must be 2D" if meta else "mat2 must be a matrix")
    _check_reduction_dim(self, mat2, meta)


def _check_reduction_dim(mat1: Tensor, mat2: Tensor, meta: bool) -> None:
    (n, m), (k, p) = mat1._shape, mat2._shape
    if m != k:
        if meta:
            raise RuntimeError(f"a and b must have same reduction dim, but got [{n}, {m}] X [{k}, {p}].")
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{m} and {k}x{p})")


def mm(self: Tensor, mat2: Tensor) -> Tensor:
    a, b = self._data, mat2._data
    d = self._dtype
    if (a is not None and b is not None and a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0]
            and d is mat2._dtype and d in _BLAS_DTYPES):
        return from_array(a.dot(b), d)  # the common case, every check below passed
    _check_mm(self, mat2)
    d = self._dtype
    shape = (self._shape[0], mat2._shape[1])
    if _is_meta(self, mat2):
        return meta_tensor(shape, d)
    if d is not mat2._dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {d._type_meta_name} != {mat2._dtype._type_meta_name}")
    if d is _dt.bool:
        raise _not_implemented("addmm_impl_cpu_", d)
    return from_array(_product(self._data, mat2._data, d), d)


def _check_batches(batch1: Tensor, batch2: Tensor) -> tuple[int, int, int]:
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


def _check_batch_dtypes(batch1: Tensor, batch2: Tensor, op: str) -> None:
    meta = _is_meta(batch1, batch2)
    if batch1._dtype is not batch2._dtype:
        a, b = (batch1._dtype, batch2._dtype) if meta else (batch1._dtype._c10_name, batch2._dtype._c10_name)
        raise RuntimeError(f"expected scalar type {a} but found {b}")
    if batch1._dtype is _dt.bool and not meta:
        raise _not_implemented(op, batch1._dtype)


def bmm(self: Tensor, mat2: Tensor) -> Tensor:
    shape = _check_batches(self, mat2)
    _check_batch_dtypes(self, mat2, "bmm")
    if _is_meta(self, mat2):
        return meta_tensor(shape, mat2._dtype)
    return from_array(_product(self._data, mat2._data, self._dtype), self._dtype)


def _broadcast_error_meta(self: Tensor, target: Sequence[int]) -> RuntimeError | None:
    """The message of PyTorch's Python meta kernels when self does not broadcast to target."""
    for back in range(1, min(len(self._shape), len(target)) + 1):
        size = self._shape[-back]
        if size != 1 and size != target[-back]:
            return RuntimeError(
                f"Attempting to broadcast a dimension of length {size} at {-back}! Mismatching argument at index 1 "
                f"had torch.Size({list(self._shape)}); but expected shape should be broadcastable to "
                f"{list(target)}")
    return _expand_error_for(self, target)


def addmm(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if _is_meta(self, mat1, mat2):
        return _addmm_meta(self, mat1, mat2)
    if self._dtype is not mat2._dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {self._dtype._c10_name} and "
                           f"{mat2._dtype._c10_name}")
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {mat1._dtype._c10_name} and "
                           f"{mat2._dtype._c10_name}")
    for name, t in (("mat1", mat1), ("mat2", mat2)):
        if len(t._shape) != 2:
            raise RuntimeError(f"{name} must be a matrix, got {len(t._shape)}-D tensor")
    (n, m), (k, p) = mat1._shape, mat2._shape
    if m != k:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{m} and {k}x{p})")
    error = _expand_error_for(self, (n, p))
    if error is not None:
        raise error
    d = mat1._dtype
    if d is _dt.bool:
        raise _not_implemented("addmm_impl_cpu_", d)
    product = _product(mat1._data, mat2._data, d)
    return from_array(np.ascontiguousarray(_scaled_sum(product, alpha, self._data, beta, d)), d)


def _addmm_meta(self: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    for name, t in (("a", mat1), ("b", mat2)):
        if len(t._shape) != 2:
            raise RuntimeError(f"{name} must be 2D")
    _check_reduction_dim(mat1, mat2, True)
    target = (mat1._shape[0], mat2._shape[1])
    error = _broadcast_error_meta(self, target)
    if error is not None:
        raise error
    return meta_tensor(target, self._dtype)


def baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    def size(t: Tensor, dim: int) -> int:
        return t._shape[dim] if dim < len(t._shape) else 1

    target = (size(batch1, 0), size(batch1, 1), size(batch2, 2))
    error = _expand_error_for(self, target)
    if error is not None:
        raise error
    if self._dtype is not batch1._dtype:
        if _is_meta(self, batch1, batch2):
            raise RuntimeError(f"Input dtypes must be the same, got: input: {self._dtype}, batch1: {batch1._dtype}, "
                               f"batch2: {batch2._dtype}")
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {self._dtype._type_meta_name}, batch1: "
            f"{batch1._dtype._type_meta_name}, batch2: {batch2._dtype._type_meta_name}")
    shape = _check_batches(batch1, batch2)
    _check_batch_dtypes(batch1, batch2, "baddbmm")
    d = batch1._dtype
    if _is_meta(self, batch1, batch2):
        return meta_tensor(shape, d)
    product = _product(batch1._data, batch2._data, d)
    return from_array(np.ascontiguousarray(_scaled_sum(product, alpha, self._data, beta, d)), d)


# --- mv, addmv, dot, vdot -----------------------------------------------------------------------

def _check_addmv(self: Tensor, mat: Tensor, vec: Tensor) -> None:
    if not (len(mat._shape) == 2 and len(vec._shape) == 1 and len(self._shape) <= 1):
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {len(self._shape)}, {len(mat._shape)}, {len(vec._shape)}")
    rows, cols = mat._shape
    if cols != vec._shape[0] or (self.numel() != rows and self.numel() != 1):
        if not self._shape:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        raise RuntimeError(
            f"size mismatch, got input ({self._shape[0]}), mat ({rows}x{cols}), vec ({vec._shape[0]})")


def _mv_meta(mat: Tensor, vec: Tensor, dtypes: tuple[_dt.dtype, ...] = ()) -> Tensor:
    if len(mat._shape) != 2 or len(vec._shape) != 1:
        raise RuntimeError(f"matrix @ vector expected, got {len(mat._shape)}, {len(vec._shape)}")
    if mat._shape[1] != vec._shape[0]:
        raise RuntimeError(f"size mismatch, got input ({mat._shape[0]}x{mat._shape[1]}), vec ({vec._shape[0]})")
    if dtypes and not all(d is dtypes[0] for d in dtypes):
        raise RuntimeError("addmv input tensors must have the same dtype, but got " + ", ".join(map(str, dtypes[:-1]))
                           + f", and {dtypes[-1]}")
    return meta_tensor((mat._shape[0],), vec._dtype)


def addmv(self: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if _is_meta(self, mat, vec):
        return _mv_meta(mat, vec, (self._dtype, mat._dtype, vec._dtype))
    _check_addmv(self, mat, vec)
    if not (self._dtype is mat._dtype is vec._dtype):
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {self._dtype._c10_name}, "
            f"{mat._dtype._c10_name}, and {vec._dtype._c10_name}")
    d = mat._dtype
    if d is _dt.bool:
        raise _not_implemented("addmv_impl_cpu", d)
    product = _product(mat._data, vec._data, d)
    return from_array(np.ascontiguousarray(_scaled_sum(product, alpha, self._data, beta, d)), d)


def mv(self: Tensor, vec: Tensor) -> Tensor:
    # PyTorch computes mv as addmv into a result made like vec, with beta 0.
    if _is_meta(self, vec):
        return _mv_meta(self, vec)
    rows = self._shape[0] if self._shape else 1
    _check_addmv(meta_tensor((rows,), vec._dtype), self, vec)
    if not (self._dtype is vec._dtype):
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {vec._dtype._c10_name}, "
            f"{self._dtype._c10_name}, and {vec._dtype._c10_name}")
    if self._dtype is _dt.bool:
        raise _not_implemented("addmv_impl_cpu", self._dtype)
    return from_array(_product(self._data, vec._data, self._dtype), self._dtype)


def _check_dot(self: Tensor, other: Tensor, op: str) -> None:
    if len(self._shape) != 1 or len(other._shape) != 1:
        raise RuntimeError(f"1D tensors expected, but got {len(self._shape)}D and {len(other._shape)}D tensors")
    if self._dtype is not other._dtype:
        meta = _is_meta(self, other)
        a, b = (self._dtype, other._dtype) if meta else (self._dtype._c10_name, other._dtype._c10_name)
        raise RuntimeError(f"{op} : expected both vectors to have same dtype, but found {a} and {b}")
    n, m = self._shape[0], other._shape[0]
    if n != m:
        space = "" if _is_meta(self, other) else " "  # (sic: PyTorch's meta message runs two words together)
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the{space}same number of "
            f"elements, but got {n} and {m} elements respectively")


def _dot_result(value: Any, d: _dt.dtype) -> Tensor:
    return from_array(np.asarray(value, dtype=_dt.to_numpy_dtype(d)).reshape(()), d)


def dot(self: Tensor, tensor: Tensor) -> Tensor:
    _check_dot(self, tensor, "dot")
    d = self._dtype
    if _is_meta(self, tensor):
        return meta_tensor((), d)
    if d is _dt.bool:
        raise _not_implemented("dot", d)
    return _dot_result(_product(self._data, tensor._data, d), d)


def vdot(self: Tensor, other: Tensor) -> Tensor:
    _check_dot(self, other, "dot")
    d = self._dtype
    if _is_meta(self, other):
        return meta_tensor((), d)
    if d is _dt.bool:
        raise _not_implemented("dot", d)
    first = np.conj(self._data) if d.is_complex else self._data
    return _dot_result(_product(first, other._data, d), d)


# --- matmul (CompositeImplicitAutograd) ------------------------------------------------------

def _batch_broadcast(a: Sequence[int], b: Sequence[int]) -> list[int]:
    """Broadcast batch shapes, with PyTorch's infer_size error."""
    ndim = max(len(a), len(b))
    result = []
    for i in range(ndim):
        da = a[i - ndim + len(a)] if i - ndim + len(a) >= 0 else 1
        db = b[i - ndim + len(b)] if i - ndim + len(b) >= 0 else 1
        if da != db and da != 1 and db != 1:
            raise RuntimeError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton "
                f"dimension {i}")
        result.append(db if da == 1 else da)
    return result


def _should_fold(tensor1: Tensor, tensor2: Tensor, has_out: bool) -> bool:
    """Whether matmul can fold the larger operand's batch into mm/mv rows without a copy
    (or must, to keep the smaller operand's gradient small). As in PyTorch, a larger tensor2
    is looked at as tensor2.mT, a transpose the dispatcher sees."""
    first_larger = tensor1.dim() >= tensor2.dim()
    larger = tensor1 if first_larger else aten_call("transpose.int", tensor2, -2, -1)
    smaller = tensor2 if first_larger else tensor1
    if not (larger.dim() >= 3 and smaller.dim() <= 2):
        return False
    if smaller.requires_grad and not has_out:
        return True
    if tensor1.dim() == 2:
        return False
    shape = larger._shape
    if 0 in shape:
        return True
    strides = larger.stride()
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def matmul(self: Tensor, other: Tensor) -> Tensor:
    if len(self._shape) == 2 and len(other._shape) == 2:  # matrix @ matrix, the common case
        return aten.mm.default(self, other)
    return _matmul(self, other, has_out=False)


def _matmul(tensor1: Tensor, tensor2: Tensor, has_out: bool) -> Tensor:
    dim1, dim2 = len(tensor1._shape), len(tensor2._shape)
    if dim1 == 0 or dim2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {dim1}D and {dim2}D")
    if dim1 == 1 and dim2 == 1:
        return aten.dot.default(tensor1, tensor2)
    if dim1 == 2 and dim2 == 1:
        return aten.mv.default(tensor1, tensor2)
    if dim1 == 1 and dim2 == 2:
        return aten.squeeze_.dim(aten.mm.default(aten_call("unsqueeze", tensor1, 0), tensor2), 0)
    if dim1 == 2 and dim2 == 2:
        return aten.mm.default(tensor1, tensor2)
    if _should_fold(tensor1, tensor2, has_out):
        return _matmul_folded(tensor1, tensor2)
    return _matmul_batched(tensor1, tensor2)


def _matmul_folded(tensor1: Tensor, tensor2: Tensor) -> Tensor:
    """N-D @ 1-D/2-D (or the transpose of 1-D/2-D @ N-D) as one mm or mv over folded rows."""
    transpose = tensor2.dim() > tensor1.dim()
    if transpose:
        t1 = aten_call("transpose.int", tensor2, -2, -1)
        t2 = aten.t.default(tensor1) if tensor1.dim() == 2 else tensor1
    else:
        t1, t2 = tensor1, tensor2
    sizes1 = t1._shape
    output_shape = list(sizes1[:-1])
    folded_rows = math.prod(output_shape)
    t2_is_matrix = t2.dim() == 2
    if t2_is_matrix:
        output_shape.append(t2._shape[1])
    t1_folded = aten_call("reshape", t1, [folded_rows, sizes1[-1]])
    if not t2_is_matrix:
        return aten_call("_unsafe_view", aten.mv.default(t1_folded, t2), output_shape)
    output = aten_call("_unsafe_view", aten.mm.default(t1_folded, t2), output_shape)
    if not transpose:
        return output
    output = aten_call("transpose.int", output, -2, -1)
    if output.is_contiguous():
        return output
    return aten.clone.default(output, memory_format=contiguous_format)


def _matmul_batched(tensor1: Tensor, tensor2: Tensor) -> Tensor:
    """Broadcast the batch dims, flatten them into one, bmm, and view the result back."""
    dim1, dim2 = tensor1.dim(), tensor2.dim()
    shape1, shape2 = tensor1._shape, tensor2._shape
    n = shape1[-2] if dim1 > 1 else 1
    m1 = shape1[-1]
    batch1 = shape1[:max(dim1 - 2, 0)]
    m2 = shape2[-2] if dim2 > 1 else shape2[0]
    p = shape2[-1] if dim2 > 1 else 1
    batch2 = shape2[:max(dim2 - 2, 0)]

    # Broadcasting a batch of 1 would make the gradient of the other operand large:
    # go through the folding path instead (PyTorch does so for grad-requiring or subclass inputs).
    if dim1 == 3 and dim2 == 3 and batch1[0] != batch2[0]:
        if batch1[0] == 1 and (tensor1.requires_grad or _subclass_like(tensor1)):
            return _matmul(aten_call("squeeze.dim", tensor1, 0), tensor2, has_out=False)
        if batch2[0] == 1 and (tensor2.requires_grad or _subclass_like(tensor2)):
            return _matmul(tensor1, aten_call("squeeze.dim", tensor2, 0), has_out=False)

    output_shape = _batch_broadcast(batch1, batch2)
    batch = math.prod(output_shape)
    expanded1 = aten_call("expand", tensor1, output_shape + [n, m1])
    expanded1 = aten_call("reshape", expanded1, [batch, n, m1])
    vector_rhs = dim2 == 1
    expanded2 = aten_call("expand", tensor2, output_shape + ([m2] if vector_rhs else [m2, p]))
    if vector_rhs:
        expanded2 = aten_call("unsqueeze", aten_call("reshape", expanded2, [batch, m2]), 2)
    else:
        expanded2 = aten_call("reshape", expanded2, [batch, m2, p])
    if dim1 > 1:
        output_shape.append(n)
    if dim2 > 1:
        output_shape.append(p)
    product = aten.bmm.default(expanded1, expanded2)
    if vector_rhs:
        product = aten_call("squeeze.dim", product, -1)
    return aten_call("_unsafe_view", product, output_shape)


def matmul_out(self: Tensor, other: Tensor, *, out: Tensor) -> Tensor:
    """matmul into `out`: the product, then resized into out (torchpy computes it out of place)."""
    if _tensor_module.grad_mode_enabled() and (self.requires_grad or other.requires_grad or out.requires_grad):
        raise RuntimeError(
            "matmul(): functions with out=... arguments don't support automatic differentiation, but one of "
            "the arguments requires grad.")
    result = _matmul(self, other, has_out=True)
    check_out_dtype(out, result._dtype)
    return write_factory_result(out, result)


# --- outer, linear (CompositeImplicitAutograd) ------------------------------------------------

def outer(self: Tensor, vec2: Tensor) -> Tensor:
    for name, t in (("self", self), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    return aten.mul.Tensor(aten_call("reshape", self, [self._shape[0], 1]), vec2)


def outer_out(self: Tensor, vec2: Tensor, *, out: Tensor) -> Tensor:
    return write_factory_result(out, outer(self, vec2))


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    input_dim, weight_dim = input.dim(), weight.dim()
    if input_dim == 0 or weight_dim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are {input_dim}D and {weight_dim}D")
    if input_dim == 2 and bias is not None:
        return aten.addmm.default(bias, input, aten.t.default(weight))
    if bias is not None and _bias_likely_fusable(bias) and input.is_contiguous():
        return _flatten_nd_linear(input, weight, bias)
    output = aten.matmul.default(input, aten.t.default(weight))
    if bias is None:
        return output
    if _subclass_like(bias):
        return aten.add.Tensor(output, bias)
    return aten.add_.Tensor(output, bias)


def _bias_likely_fusable(bias: Tensor) -> bool:
    return (bias.dim() == 1 or aten.squeeze.default(bias).dim() == 1) and bias.is_contiguous()


def _flatten_nd_linear(input: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    """Any-rank contiguous input as one addmm over its rows."""
    sizes = list(input._shape)
    flattened = aten_call("view", input, [math.prod(sizes[:-1]), sizes[-1]])
    result = aten.addmm.default(bias, flattened, aten.t.default(weight))
    sizes[-1] = result._shape[1]
    return aten_call("view", result, sizes)


def linear_out(input: Tensor, weight: Tensor, bias: Tensor | None = None, *, out: Tensor) -> Tensor:
    return write_factory_result(out, linear(input, weight, bias))


# --- registration ------------------------------------------------------------------------------


for _fn in (mm, bmm, addmm, addmv, baddbmm, dot, vdot):
    register(_fn.__name__, _fn)
register("mv", mv)
for _fn in (matmul, matmul_out, outer, outer_out, linear):
    register(_fn.__name__, _fn)
register("linear_out", linear_out)
