"""Matrix products.

CPU kernels: mm, bmm, addmm, addmv, mv, dot, vdot, baddbmm. They check shapes and dtypes
as PyTorch does, in its order and words (the checks are meta/linalg.py's rules), then hand the
tensors' own arrays to the array code (`*_array`, taking the array module `xp`: no copies;
16-bit floats are multiplied in float32, as PyTorch accumulates them). The Meta kernels are
meta/linalg.py's, registered here as `<name>_meta`.

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
from ..meta import linalg as rules
from ..registry import register
from .factory import element, write_factory_result
from .variants import check_out_dtype

aten = ops.aten


def aten_call(name: str, tensor: Tensor, *args: Any) -> Tensor:
    """aten `name`(tensor, *args) with arguments already in normalized form (positional, no
    trailing defaults): dispatched as usual, without the binder."""
    return call(_overload(name), tensor._keyset, tensor, *args)

_PYTHON_BIT = key_bits(DispatchKey.Python)


# --- array code: arrays and their module `xp` in, the result array out ----------------------------

Array = Any  # an array of the module `xp`

_LOW_PRECISION = frozenset({_dt.float16, _dt.bfloat16})
# Multiplied by ndarray.dot as they are (no float32 detour, no bool error).
_BLAS_DTYPES = frozenset({_dt.float32, _dt.float64, _dt.complex64, _dt.complex128})


def product_array(xp: Any, a: Array, b: Array, d: _dt.dtype) -> Array:
    """a @ b in dtype d on the arrays as they are (ndarray.dot for matrices and vectors, the
    quickest entry to BLAS; matmul for batches); 16-bit floats are multiplied in float32."""
    if d in _LOW_PRECISION:
        return product_array(xp, a.astype(xp.float32), b.astype(xp.float32), _dt.float32).astype(
            _dt.to_numpy_dtype(d))
    if a.ndim <= 2 and b.ndim <= 2:
        return a.dot(b)
    return xp.matmul(a, b)


def scaled_sum_array(xp: Any, product: Array, alpha: Any, self_array: Array, beta: Any, d: _dt.dtype) -> Array:
    """beta * self + alpha * product in dtype d (float32 arithmetic for 16-bit floats); self is
    ignored when beta is 0, NaNs included, as PyTorch documents."""
    alpha = element(alpha, d)
    beta = element(beta, d)
    np_dtype = _dt.to_numpy_dtype(d)
    compute = xp.dtype(xp.float32) if d.itemsize == 2 and d.is_floating_point else np_dtype
    scalar = compute.type
    result = product.astype(compute, copy=False)
    if alpha != 1:
        result = result * scalar(alpha)
    if beta != 0:
        addend = self_array.astype(compute, copy=False)
        result = result + (addend if beta == 1 else addend * scalar(beta))
    return xp.ascontiguousarray(xp.asarray(result).astype(np_dtype, copy=False))


def conj_dot_array(xp: Any, a: Array, b: Array, d: _dt.dtype) -> Array:
    """vdot: the first vector conjugated (complex dtypes), then the dot product, as a 0-dim array."""
    first = xp.conj(a) if d.is_complex else a
    return xp.asarray(product_array(xp, first, b, d), dtype=_dt.to_numpy_dtype(d)).reshape(())


# --- CPU kernels: PyTorch's CPU checks and words (meta/linalg.py), then the array code ------------

def _not_implemented(op: str, d: _dt.dtype) -> NotImplementedError:
    return NotImplementedError(f'"{op}" not implemented for \'{d._c10_name}\'')


def _subclass_like(t: Tensor) -> bool:
    """PyTorch's isTensorSubclassLike: a dispatch mode is active, or t has the Python key."""
    return bool((tls.local.included | t._keyset) & _PYTHON_BIT)


def mm(self: Tensor, mat2: Tensor) -> Tensor:
    a, b = self._data, mat2._data
    d = self._dtype
    if a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0] and d is mat2._dtype and d in _BLAS_DTYPES:
        return from_array(a.dot(b), d)  # the common case, every check below passed
    rules.check_mm(self, mat2, on_meta=False)
    if d is not mat2._dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {d._type_meta_name} != {mat2._dtype._type_meta_name}")
    if d is _dt.bool:
        raise _not_implemented("addmm_impl_cpu_", d)
    return from_array(product_array(np, a, b, d), d)


def _check_batch_dtypes(batch1: Tensor, batch2: Tensor, op: str) -> None:
    rules.check_batch_dtypes(batch1, batch2, on_meta=False)
    if batch1._dtype is _dt.bool:
        raise _not_implemented(op, batch1._dtype)


def bmm(self: Tensor, mat2: Tensor) -> Tensor:
    rules.check_batches(self, mat2)
    _check_batch_dtypes(self, mat2, "bmm")
    return from_array(product_array(np, self._data, mat2._data, self._dtype), self._dtype)


def addmm(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    if self._dtype is not mat2._dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {self._dtype._c10_name} and "
                           f"{mat2._dtype._c10_name}")
    if mat1._dtype is not mat2._dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {mat1._dtype._c10_name} and "
                           f"{mat2._dtype._c10_name}")
    for name, t in (("mat1", mat1), ("mat2", mat2)):
        if len(t._shape) != 2:
            raise RuntimeError(f"{name} must be a matrix, got {len(t._shape)}-D tensor")
    rules.check_reduction_dim(mat1, mat2, on_meta=False)
    error = rules.expand_error_for(self, (mat1._shape[0], mat2._shape[1]))
    if error is not None:
        raise error
    d = mat1._dtype
    if d is _dt.bool:
        raise _not_implemented("addmm_impl_cpu_", d)
    product = product_array(np, mat1._data, mat2._data, d)
    return from_array(scaled_sum_array(np, product, alpha, self._data, beta, d), d)


def baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    rules.baddbmm_target(self, batch1, batch2, on_meta=False)
    rules.check_batches(batch1, batch2)
    _check_batch_dtypes(batch1, batch2, "baddbmm")
    d = batch1._dtype
    product = product_array(np, batch1._data, batch2._data, d)
    return from_array(scaled_sum_array(np, product, alpha, self._data, beta, d), d)


def addmv(self: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    rules.check_addmv(self, mat, vec)
    if not (self._dtype is mat._dtype is vec._dtype):
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {self._dtype._c10_name}, "
            f"{mat._dtype._c10_name}, and {vec._dtype._c10_name}")
    d = mat._dtype
    if d is _dt.bool:
        raise _not_implemented("addmv_impl_cpu", d)
    product = product_array(np, mat._data, vec._data, d)
    return from_array(scaled_sum_array(np, product, alpha, self._data, beta, d), d)


def mv(self: Tensor, vec: Tensor) -> Tensor:
    # PyTorch computes mv as addmv into a result made like vec, with beta 0.
    rows = self._shape[0] if self._shape else 1
    rules.check_addmv(meta_tensor((rows,), vec._dtype), self, vec)
    if not (self._dtype is vec._dtype):
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {vec._dtype._c10_name}, "
            f"{self._dtype._c10_name}, and {vec._dtype._c10_name}")
    if self._dtype is _dt.bool:
        raise _not_implemented("addmv_impl_cpu", self._dtype)
    return from_array(product_array(np, self._data, vec._data, self._dtype), self._dtype)


def _dot_kernel(op: str, values: Any) -> Any:
    def kernel(self: Tensor, other: Tensor) -> Tensor:
        rules.check_dot(self, other, "dot", on_meta=False)
        d = self._dtype
        if d is _dt.bool:
            raise _not_implemented("dot", d)
        return from_array(values(np, self._data, other._data, d), d)

    kernel.__name__ = kernel.__qualname__ = op
    return kernel


def _dot_array(xp: Any, a: Array, b: Array, d: _dt.dtype) -> Array:
    return xp.asarray(product_array(xp, a, b, d), dtype=_dt.to_numpy_dtype(d)).reshape(())


dot, vdot = _dot_kernel("dot", _dot_array), _dot_kernel("vdot", conj_dot_array)


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
for _fn in (rules.mm, rules.bmm, rules.addmm, rules.addmv, rules.baddbmm, rules.dot, rules.vdot, rules.mv):
    register(_fn.__name__ + "_meta", _fn)
# the out= and in-place forms (CPU and Meta): made from these by the YAML's policy
for _fn in (matmul, matmul_out, outer, outer_out, linear):
    register(_fn.__name__, _fn)
register("linear_out", linear_out)
