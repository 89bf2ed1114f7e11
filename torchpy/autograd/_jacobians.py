"""Numerical and analytical Jacobians for gradcheck, as NumPy arrays.

Layout (PyTorch's): the Jacobian of one output with respect to one input is a
(input.numel(), output.numel()) matrix; column j of the numerical one is the
central difference of the outputs when input element j moves by +-eps; row i of
the analytical one is the backward pass fed the i-th standard basis vector.
Complex inputs get the conjugate Wirtinger column ds/dx + 1j * ds/dy; complex
outputs are checked one part at a time (`part` "real" or "imag").
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .._aten.public import functions  # torchpy.<name>, made below the package root
from .._tensor.tensor import Tensor
from .functional_api import grad


def as_tuple(x: Any) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def array(t: Tensor) -> np.ndarray:
    """t's values as a NumPy array (a view: writing it writes t, bypassing the version counter,
    as PyTorch's gradcheck writes through `.data`)."""
    return t._data


def is_float_or_complex(t: Any) -> bool:
    return isinstance(t, Tensor) and (t._dtype.is_floating_point or t._dtype.is_complex)


def output_part(values: np.ndarray, part: str | None) -> np.ndarray:
    if part is None or values.dtype.kind != "c":
        return values
    return values.real.copy() if part == "real" else values.imag.copy()


def _check_same_dtype_and_shape(a: Tensor, b: Tensor, eps: float, idx: tuple | None) -> None:
    on_index = f"on index {idx} " if idx is not None else ""
    if a._shape != b._shape:
        raise AssertionError(
            f"Expected `func` to return outputs with the same shape when inputs are perturbed {on_index}by "
            f"{eps}, but got: shapes {a.shape} and {b.shape}."
        )
    if a._dtype is not b._dtype:
        raise AssertionError(
            f"Expected `func` to return outputs with the same dtype when inputs are perturbed {on_index}by "
            f"{eps}, but got: dtypes {a.dtype} and {b.dtype}."
        )


def _run(fn: Callable, inputs: tuple) -> tuple:
    """fn's outputs, with each tensor's values copied at once (an output may be a view of the
    input about to be perturbed again)."""
    return tuple((o, np.array(array(o))) if isinstance(o, Tensor) else (o, None) for o in as_tuple(fn(*inputs)))


def _difference(fn: Callable, inputs: tuple, target: np.ndarray, where: Any, delta: Any, eps: float,
                norm: float, idx: tuple | None, part: str | None) -> list[np.ndarray | None]:
    """(f(x + delta) - f(x - delta)) / (2 * norm) per output, flattened; None for non-tensors."""
    orig = target[where].copy()
    try:
        target[where] = orig - delta
        before = _run(fn, inputs)
        target[where] = orig + delta
        after = _run(fn, inputs)
    finally:  # the input is the caller's tensor: restored even if fn raises
        target[where] = orig
    columns: list[np.ndarray | None] = []
    for (a, a_values), (b, b_values) in zip(before, after):
        if not isinstance(a, Tensor):
            columns.append(None)
            continue
        _check_same_dtype_and_shape(a, b, eps, idx)
        if a_values.dtype == np.bool_:  # PyTorch subtracts every output: bool - bool is its error
            raise RuntimeError(
                "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                "`logical_xor()` operator instead."
            )
        low, high = output_part(a_values, part), output_part(b_values, part)
        columns.append(((high - low) / (2 * norm)).reshape(-1))
    return columns


def numerical_jacobians(fn: Callable, inputs: tuple, outputs: tuple, eps: float,
                        part: str | None = None) -> list[list[np.ndarray]]:
    """jacobians[input k (requiring grad)][output m (float or complex)]."""
    result = []
    float_outputs = [o for o in outputs if is_float_or_complex(o)]
    for inp in inputs:
        if not (isinstance(inp, Tensor) and inp._requires_grad):
            continue
        target = array(inp)
        complex_input = target.dtype.kind == "c"
        jac_dtype = target.dtype if complex_input else None
        jacobians = [np.zeros((inp.numel(), o.numel()), dtype=jac_dtype or _np_dtype(o)) for o in float_outputs]
        for flat, idx in enumerate(np.ndindex(*target.shape)):
            dx = _difference(fn, inputs, target, idx, eps, eps, eps, idx, part)
            if complex_input:
                dy = _difference(fn, inputs, target, idx, eps * 1j, eps, eps, idx, part)
                dx = [None if a is None else a + 1j * b for a, b in zip(dx, dy)]
            columns = [c for c, o in zip(dx, outputs) if is_float_or_complex(o)]
            for jac, column in zip(jacobians, columns):
                jac[flat, :] = column
        result.append(jacobians)
    return result


def _np_dtype(t: Tensor) -> np.dtype:
    return np.asarray(array(t)).dtype


def analytical_jacobian(inputs: Sequence[Tensor], output: Tensor, part: str | None = None
                        ) -> tuple[list[np.ndarray], bool, bool]:
    """Jacobians of `output` w.r.t. each input, one backward per output element, and whether every
    gradient had its input's size and dtype."""
    jacobians = [np.zeros((x.numel(), output.numel()), dtype=_np_dtype(x)) for x in inputs]
    sizes_ok = types_ok = True
    unit = 1j if part == "imag" else 1.0  # d imag(o) / do is 1j in PyTorch's convention
    for j in range(output.numel()):
        grad_output = functions.zeros(output.numel(), dtype=output.dtype)
        array(grad_output)[j] = unit
        grads = grad(output, list(inputs), grad_output.view(output.shape), retain_graph=True, allow_unused=True)
        for jac, x, g in zip(jacobians, inputs, grads):
            if g is None:
                continue
            if g._shape != x._shape:
                sizes_ok = False
            elif g._dtype is not x._dtype:
                types_ok = False
            values = np.asarray(array(g)).reshape(-1)
            if values.size != jac.shape[0]:
                raise AssertionError(
                    f"Expected out_jacobian column to have {values.size} elements, but got {jac.shape[0]}"
                )
            jac[:, j] = values
    return jacobians, sizes_ok, types_ok


# --- fast mode: one random projection per input and output --------------------------------------


def random_unit_vector(t: Tensor, generator: Any, real: bool) -> np.ndarray:
    """torch.rand(numel) in float32 from `generator`, in t's (real) dtype, normalised."""
    values = np.asarray(array(functions.rand(t.numel(), generator=generator))).astype(_np_dtype(t))
    if real and values.dtype.kind == "c":
        values = values.real.copy()
    return values / np.linalg.norm(values)


def numerical_jvp(fn: Callable, inputs: tuple, outputs: tuple, index: int, u: np.ndarray | tuple,
                  eps: float, part: str | None = None) -> list[np.ndarray]:
    """J u for input `index` by central differences along u (outputs that are float or complex)."""
    target = array(inputs[index])
    shape = target.shape
    every = (...,)
    if isinstance(u, tuple):  # complex input: u = (real direction, imaginary direction)
        ur, ui = (v.reshape(shape) for v in u)
        dx = _difference(fn, inputs, target, every, ur * eps, eps, eps, None, part)
        dy = _difference(fn, inputs, target, every, ui * eps * 1j, eps, eps, None, part)
        columns = [None if a is None else a + 1j * b for a, b in zip(dx, dy)]
    else:
        columns = _difference(fn, inputs, target, every, u.reshape(shape) * eps, eps, eps, None, part)
    return [c for c, o in zip(columns, outputs) if is_float_or_complex(o)]


def analytical_vjp(inputs: Sequence[Tensor], output: Tensor, v: np.ndarray, part: str | None = None
                   ) -> tuple[list[np.ndarray | None], bool, bool]:
    """v^T J for each input (flattened), and whether the gradients had the inputs' sizes/dtypes."""
    values = v * (1j if part == "imag" else 1.0)
    grad_output = functions.tensor(values.reshape(output.shape), dtype=output.dtype)
    grads = grad(output, list(inputs), grad_output, retain_graph=True, allow_unused=True)
    sizes_ok = types_ok = True
    result: list[np.ndarray | None] = []
    for x, g in zip(inputs, grads):
        if g is None:
            result.append(np.zeros(x.numel(), dtype=_np_dtype(x)))
            continue
        if g._shape != x._shape:
            sizes_ok = False
        elif g._dtype is not x._dtype:
            types_ok = False
        result.append(np.array(array(g)).reshape(-1))
    return result, sizes_ok, types_ok
