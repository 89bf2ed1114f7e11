"""Calling an op whose arguments are already in normalized form, skipping the binder.

Hand-written bindings (Tensor.view, x[i], ...) and composite kernels know their arguments
are positional and normalized (ints, lists of ints, defaults dropped), so they can go
straight to the op's resolution cache, as OpOverload.__call__ does for plain positional
calls:

    call(aten("transpose.int"), x._keyset, x, 0, 1)

`ks` is the OR of the tensor arguments' key sets. The dispatch is the normal one (TLS,
modes, autograd, fallbacks all apply); only argument binding is skipped. A
torchpy.dispatch_trace empties the caches, so the trace sees these calls too.
"""

from __future__ import annotations

from typing import Any

from .._dispatch import tls
from .._dispatch.ops import OpOverload, op_for

_local = tls.local
_OPS: dict[str, OpOverload] = {}


def aten(name: str) -> OpOverload:
    """torchpy.ops.aten.<name> for 'op.overload' (or 'op' for the default overload), cached."""
    op = _OPS.get(name)
    if op is None:
        op = _OPS[name] = op_for("aten::" + name)
    return op


def call(op: OpOverload, ks: int, *args: Any) -> Any:
    """op(*args) for normalized positional arguments whose tensors' key sets OR to `ks`."""
    salted = ks | _local.salt
    fn = op._call_cache.get(salted)
    if fn is not None:
        return fn(*args)
    hit = op._call_raw_cache.get(salted)
    if hit is not None:
        return hit[0](op, hit[1], args, {})
    return op._call_miss(salted, args, {})


def call_kw(op: OpOverload, ks: int, args: tuple, kwargs: dict) -> Any:
    """call() for normalized arguments that include keyword-only ones."""
    salted = ks | _local.salt
    fn = op._call_cache.get(salted)
    if fn is not None:
        return fn(*args, **kwargs)
    hit = op._call_raw_cache.get(salted)
    if hit is not None:
        return hit[0](op, hit[1], args, kwargs)
    return op._call_miss(salted, args, kwargs)
