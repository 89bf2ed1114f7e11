"""Derivatives of advanced indexing, gather / scatter and masked selection.

Reading at indices (index, gather, index_select) sends the gradient back by
adding it at the same indices; writing at indices (index_put, scatter) hands
the written positions' gradient to the source and zero to what was overwritten.
"""

from __future__ import annotations

import numpy as np

from ..._aten.public import functions  # torchpy.<name>, made below the package root
from ..._dispatch.ops import ops
from ..._tensor.enums import preserve_format

from . import formula
from ._common import new_zeros, scale, scatter_back, zeros, zeros_like

aten = ops.aten


@formula(inputs=("self",), save=("self.shape", "indices"))
def index_backward(grad, self_shape, indices):
    return aten.index_put.default(new_zeros(grad, self_shape, with_options=True), indices, grad, True)


# index_put_ (x[i] = v) uses index_put's formula, _index_put_impl_ _index_put_impl's.
@formula(inputs=("self", "values"), save=("indices", "values.shape", "accumulate"))
def index_put_backward(grad, indices, values_shape, accumulate, needs):
    grad_self = None
    if needs[0]:
        grad_self = grad if accumulate else aten.index_put.default(grad, indices, zeros(values_shape, grad), False)
    return grad_self, (aten.index.Tensor(grad, indices) if needs[1] else None)


@formula(inputs=("self",), save=("self.shape", "dim", "index"))
def gather_backward(grad, self_shape, dim, index):
    return new_zeros(grad, self_shape).scatter_add(dim, index, grad)


@formula(inputs=("self",), save=("self.shape", "dim", "index"))
def index_select_backward(grad, self_shape, dim, index):
    if len(self_shape) == 0:
        return grad.reshape(())
    index = index.reshape(-1) if index.dim() == 0 else index
    return new_zeros(grad, self_shape, with_options=True).index_add(dim, index, grad)


@formula(inputs=("self", "source"),
         save=("dim", "index", "source.shape", "alpha"))
def index_add_backward(grad, dim, index, source_shape, alpha):
    if len(source_shape) == 0:
        grad_source = grad.reshape(-1).index_select(0, index.reshape(-1)).reshape(())
    else:
        grad_source = grad.index_select(dim, index).expand(list(source_shape))
    return grad, grad_source if alpha == 1 else scale(grad_source, alpha)


@formula(inputs=("self",), save=("self", "mask"))
def masked_select_backward(grad, self, mask):
    # The selection runs over self and mask broadcast together; un-broadcasting is central.
    shape = np.broadcast_shapes(tuple(self.shape), tuple(mask.shape))
    spread = zeros_like(self.expand(list(shape)), memory_format=preserve_format)
    return spread.masked_scatter(mask, grad)


# --- scatter ---------------------------------------------------------------------------------


@formula(inputs=("self", "src"), save=("dim", "index"))
def scatter_backward(grad, dim, index):
    return grad.scatter(dim, index, 0.0), grad.gather(dim, index)


@formula(inputs=("self",), save=("dim", "index"))
def scatter_value_backward(grad, dim, index):
    return grad.scatter(dim, index, 0.0)


@formula(inputs=("self", "src"), save=("dim", "index"))
def scatter_add_backward(grad, dim, index):
    return grad, grad.gather(dim, index)


@formula(inputs=("self", "src"),
         save=("self", "dim", "index", "src", "reduce", "include_self", "result"))
def scatter_reduce_backward(grad, self, dim, index, src, reduce, include_self, result):
    rule = _SCATTER_REDUCE_RULES.get(reduce)
    if rule is None:
        raise RuntimeError(f"scatter_reduce(): expected reduce to be one of sum, prod, mean, amax, amin, got {reduce}")
    grad_self, grad_src = rule(grad, self, dim, index, src, include_self, result)
    if not include_self:
        # self's values at the scattered positions never reached the result.
        grad_self = grad_self.scatter(dim, index, 0.0)
    return grad_self, grad_src


def _scatter_sum(grad, self, dim, index, src, include_self, result):
    return grad, grad.gather(dim, index)


def _scatter_mean(grad, self, dim, index, src, include_self, result):
    start = aten.ones_like.default(self) if include_self else zeros_like(self)
    count = start.scatter_add(dim, index, aten.ones_like.default(src))
    count.masked_fill_(count == 0, 1)
    grad_self = grad / count
    return grad_self, grad.gather(dim, index) / count.gather(dim, index)


def _scatter_prod(grad, self, dim, index, src, include_self, result):
    # d result[p] / d self[p] = the product of the src values scattered to p.
    grad_self = grad * functions.ones_like(self).scatter_reduce(dim, index, src, "prod")
    # d result[p] / d src[j] = the product of everything else at p: result / src[j] when
    # src[j] != 0; the product of the rest when src[j] is the group's only zero; else 0.
    zero = src == 0
    zeros_in_group = functions.zeros_like(self).scatter_add(dim, index, zero.to(src.dtype)).gather(dim, index)
    nonzero_src = src.masked_fill(zero, 1)
    rest = self.scatter_reduce(dim, index, nonzero_src, "prod", include_self=include_self).gather(dim, index)
    at_zero = functions.where(zeros_in_group == 1, rest, 0.0)
    others = functions.where(zero, at_zero, result.gather(dim, index) / nonzero_src)
    return grad_self, grad.gather(dim, index) * others


def _scatter_extreme(grad, self, dim, index, src, include_self, result):
    # The elements equal to the result share its gradient evenly. As in torch, self's ties
    # are counted even with include_self=False (its share is then dropped).
    value = result.gather(dim, index)
    self_hit = (self == result).to(grad.dtype)
    src_hit = (src == value).to(grad.dtype)
    count = self_hit.scatter_add(dim, index, src_hit)
    share = grad / count
    grad_self = (self == result) * share
    share_of_src = share.gather(dim, index)
    return grad_self, (src == value) * share_of_src


_SCATTER_REDUCE_RULES = {
    "sum": _scatter_sum, "mean": _scatter_mean, "prod": _scatter_prod,
    "amax": _scatter_extreme, "amin": _scatter_extreme,
}


# --- masked_scatter, index_fill, index_copy, take, put ---------------------------------------
# In-place forms (masked_scatter_, index_fill_, index_copy_, put_) share the functional formula
# and node name, as in torch.


@formula(inputs=("self", "source"),
         save=("mask", "source.shape"))
def masked_scatter_backward(grad, mask, source_shape, needs):
    grad_self = grad.masked_fill(mask, 0) if needs[0] else None
    grad_source = None
    if needs[1]:
        grad_source = aten.masked_scatter_backward.default(grad, mask, list(source_shape))
    return grad_self, grad_source


@formula(inputs=("grad_output",),
         save=("grad_output.shape", "mask"))
def masked_scatter_backward_backward(grad, grad_output_shape, mask):
    return zeros(grad_output_shape, grad).masked_scatter(mask, grad)


@formula(inputs=("self",), save=("dim", "index"))
def index_fill_scalar_backward(grad, dim, index):
    return grad.index_fill(dim, index, 0)


@formula(inputs=("self", "value"),
         save=("dim", "index"))
def index_fill_tensor_backward(grad, dim, index, needs):
    grad_self = grad.index_fill(dim, index, 0) if needs[0] else None
    grad_value = None
    if needs[1]:
        # value landed once at each filled position (repeated indices fill the same one).
        distinct = aten._unique.default(index, False)[0]
        grad_value = grad.index_select(dim, distinct).sum()
    return grad_self, grad_value


@formula(inputs=("self", "source"),
         save=("dim", "index", "source.shape"))
def index_copy_backward(grad, dim, index, source_shape, needs):
    grad_self = grad.index_fill(dim, index, 0) if needs[0] else None
    grad_source = None
    if needs[1]:
        if len(source_shape) == 0:
            grad_source = grad.index_select(dim, index.squeeze(0))
        else:
            grad_source = grad.index_select(dim, index).expand(list(source_shape))
    return grad_self, grad_source


@formula(inputs=("self",), save=("self", "index"))
def take_backward(grad, self, index):
    return zeros_like(self).put(index, grad, True)


@formula(inputs=("self", "source"),
         save=("index", "source.shape", "accumulate"))
def put_backward(grad, index, source_shape, accumulate, needs):
    grad_self = None
    if needs[0]:
        grad_self = grad if accumulate else grad.put(index, zeros(source_shape, grad), False)
    grad_source = grad.take(index).reshape(tuple(source_shape)) if needs[1] else None
    return grad_self, grad_source
