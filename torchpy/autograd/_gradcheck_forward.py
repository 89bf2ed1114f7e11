"""gradcheck(check_forward_ad=True): Jacobians from forward-mode AD (torchpy.autograd.forward_ad).

As in PyTorch, every input that requires grad becomes a dual tensor with a zero tangent; setting
one tangent element to 1 (or the whole tangent to a random direction u, in fast mode) and running
func gives a row of the Jacobian (or J u) in the outputs' tangents.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .._aten.public import functions  # torchpy.<name>, made below the package root
from .._tensor.tensor import Tensor
from . import forward_ad
from ._jacobians import array, as_tuple, is_float_or_complex


def _dual_inputs(forward_ad: Any, inputs: tuple) -> tuple[list, list[Tensor]]:
    dual_inputs, tangents = [], []
    for inp in inputs:
        if isinstance(inp, Tensor) and inp._requires_grad:
            inp = forward_ad.make_dual(inp.detach(), functions.zeros_like(inp))
            # read back: the tangent a dual view holds may not be the tensor given to make_dual
            tangents.append(forward_ad.unpack_dual(inp)[1])
        dual_inputs.append(inp)
    return dual_inputs, tangents


def _output_tangents(forward_ad: Any, fn: Callable, dual_inputs: list, check_grad_dtypes: bool,
                     error: type) -> list[np.ndarray | None]:
    result = []
    for out in as_tuple(fn(*dual_inputs)):
        if not is_float_or_complex(out):
            continue
        primal, tangent = forward_ad.unpack_dual(out)
        if check_grad_dtypes and tangent is not None and primal.is_complex() != tangent.is_complex():
            raise error("Forward AD gradient has dtype mismatch.")
        result.append(None if tangent is None else np.array(array(tangent)).reshape(-1))
    return result


def forward_jacobians(fn: Callable, inputs: tuple, outputs: tuple, check_grad_dtypes: bool, error: type
                      ) -> list[list[np.ndarray]]:
    """jacobians[input k][float output m], (input numel, output numel), one forward pass per element."""
    float_outputs = [o for o in outputs if is_float_or_complex(o)]
    with forward_ad.dual_level():
        dual_inputs, tangents = _dual_inputs(forward_ad, inputs)
        result = []
        for tangent in tangents:
            values = array(tangent)
            jacobians = [np.zeros((tangent.numel(), o.numel()), dtype=array(o).dtype) for o in float_outputs]
            for row, idx in enumerate(np.ndindex(*values.shape)):
                values[idx] = 1
                for jac, out_tangent in zip(jacobians, _output_tangents(forward_ad, fn, dual_inputs,
                                                                         check_grad_dtypes, error)):
                    if out_tangent is not None:
                        jac[row, :] = out_tangent
                values[idx] = 0
            result.append(jacobians)
    return result


def forward_jvps(fn: Callable, inputs: tuple, outputs: tuple, all_u: list[np.ndarray], check_grad_dtypes: bool,
                 error: type) -> list[list[np.ndarray]]:
    """jvps[input k][float output m]: J u_k from one forward pass per input."""
    float_outputs = [o for o in outputs if is_float_or_complex(o)]
    with forward_ad.dual_level():
        dual_inputs, tangents = _dual_inputs(forward_ad, inputs)
        result = []
        for tangent, u in zip(tangents, all_u):
            values = array(tangent)
            values[...] = u.reshape(values.shape)
            out_tangents = _output_tangents(forward_ad, fn, dual_inputs, check_grad_dtypes, error)
            result.append([np.zeros(o.numel(), dtype=array(o).dtype) if t is None else t
                           for o, t in zip(float_outputs, out_tangents)])
            values[...] = 0
    return result


def undefined_forward_check(fn: Callable, inputs: tuple, all_u: list[np.ndarray], error: type) -> None:
    """A zero tangent and no tangent at all must give the same output tangents."""
    with forward_ad.dual_level():
        dual_inputs, tangents = _dual_inputs(forward_ad, inputs)
        for tangent, u in zip(tangents, all_u):
            array(tangent)[...] = u.reshape(array(tangent).shape)
        for idx, inp in enumerate(inputs):
            if not (isinstance(inp, Tensor) and inp._requires_grad):
                continue
            kept = dual_inputs[idx]
            dual_inputs[idx] = forward_ad.make_dual(inp.detach(), _zeros_like(inp))
            with_zero = _output_tangents(forward_ad, fn, dual_inputs, False, error)
            dual_inputs[idx] = inp.detach()
            without = _output_tangents(forward_ad, fn, dual_inputs, False, error)
            dual_inputs[idx] = kept
            for index_o, (res1, res2) in enumerate(zip(with_zero, without)):
                if res1 is not None and res2 is not None and not np.allclose(res1, res2):
                    raise error("Mismatch in tangent values for output with index: ", index_o,
                                " when input: ", inp, " has an undefined tangent value. ",
                                " Got: ", res1, " but expected: ", res2)


def _zeros_like(t: Tensor) -> Tensor:
    return functions.zeros_like(t)
