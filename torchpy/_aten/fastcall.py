"""aten("op.overload"): the OpOverload for an aten name, looked up once.

The call entry for arguments already in normalized form is the dispatcher's own,
`_dispatch.ops.call(op, ks, *args)` / `call_kw(op, ks, args, kwargs)`, re-exported here for
the op library's hand-written bindings and composite kernels:

    call(aten("transpose.int"), x._keyset, x, 0, 1)
"""

from __future__ import annotations


from .._dispatch.ops import OpOverload, call, call_kw, op_for  # noqa: F401  (call, call_kw: re-exported)

_OPS: dict[str, OpOverload] = {}


def aten(name: str) -> OpOverload:
    """torchpy.ops.aten.<name> for 'op.overload' (or 'op' for the default overload), cached."""
    op = _OPS.get(name)
    if op is None:
        op = _OPS[name] = op_for("aten::" + name)
    return op
