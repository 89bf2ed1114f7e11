"""Forward-mode AD for autograd.Function: calling the class's `jvp` after `forward`.

As in PyTorch: forward runs with forward AD off; when an input has a tangent, `jvp(ctx,
*input_tangents)` gets one tangent per input (zeros for tensors without one unless
ctx.set_materialize_grads(False), None for non-tensors), sees `ctx.saved_tensors` as what
`ctx.save_for_forward` saved, and returns one tangent per output. An input modified in
place (mark_dirty) must have its tangent modified in place too.
"""

from __future__ import annotations

from typing import Any

from .._aten.public import functions  # torchpy.<name>, made below the package root
from .._tensor.tensor import Tensor
from .forward_grad import get_tangent, set_tangent, suspended


def needs_jvp(args: tuple) -> bool:
    return any(isinstance(a, Tensor) and get_tangent(a) is not None for a in args)


def run_jvp(cls: type, ctx: Any, args: tuple, tangents_in: list, output: Any) -> None:
    """Set the tangents of `output` (forward's wrapped result) from `cls.jvp`."""
    from .function import Function  # function.py imports this module: a cycle inside autograd

    if cls.jvp is Function.jvp:
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode AD.")
    tangents = []
    for a, t in zip(args, tangents_in):
        if t is None and isinstance(a, Tensor) and ctx.materialize_grads:
            t = functions.zeros_like(a)
        tangents.append(t)
    outputs = output if isinstance(output, tuple) else (output,)
    with suspended():
        ctx._in_jvp = True
        try:
            result = cls.jvp(ctx, *tangents)
        finally:
            ctx._in_jvp = False
    if not isinstance(result, tuple):
        result = (result,)
    if len(result) != len(outputs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients (expected "
                           f"{len(outputs)} but got {len(result)})")
    dirty = {id(t) for t in ctx._dirty}
    non_differentiable = {id(t) for t in ctx._non_differentiable}
    for out, tangent in zip(outputs, result):
        if tangent is None or not isinstance(out, Tensor) or id(out) in non_differentiable:
            continue
        if not (out._dtype.is_floating_point or out._dtype.is_complex):
            continue
        if id(out) in dirty:
            given = tangents[next(i for i, a in enumerate(args) if a is out)]
            if tangent is not given:
                raise RuntimeError(
                    "An inplace custom Function is not modifying the forward mode gradients inplace. If the "
                    "forward is modifying an input inplace, then the jvp function must modify the "
                    "corresponding gradient inplace.")
            if get_tangent(out) is None:
                set_tangent(out, tangent)
            continue
        set_tangent(out, tangent)
