"""torchpy.autograd.gradcheck / gradgradcheck: analytical gradients against finite differences.

The checks, their order and their messages are PyTorch's (torch/autograd/gradcheck.py):
inputs are validated, then for every differentiable output the Jacobian from
backward (computed twice: the reentrancy check) is compared with central
differences (or, with fast_mode, one random projection of each), then backward
with zero grad_outputs must give zeros, and backward must accept undefined
(None) output gradients. Jacobians are assembled in NumPy (_jacobians.py).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from .._aten.kernels.random import Generator
from .._aten.public import functions  # torchpy.<name>, made below the package root
from .._tensor.creation import from_numpy
from .._tensor.dtype import complex64, complex128, float32, float64
from .._tensor.tensor import Tensor
from ._jacobians import (
    analytical_jacobian,
    analytical_vjp,
    array,
    as_tuple,
    is_float_or_complex,
    numerical_jacobians,
    numerical_jvp,
    random_unit_vector,
)
from ._gradcheck_forward import forward_jacobians, forward_jvps, undefined_forward_check
from .functional_api import grad
from .graph import Node, autograd_meta, gradient_edge

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Error raised by gradcheck and gradgradcheck."""


FAILED_NONDET_MSG = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""

FAST_FAIL_SLOW_OK_MSG = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()

_UNDEFINED_NOTE = 'Please look at "Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'


def _as_tensor(values: np.ndarray) -> Tensor:
    return from_numpy(np.ascontiguousarray(values))


def _allclose(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> bool:
    # torch.allclose after type promotion: |a - b| <= atol + rtol * |b|, infinities equal, NaN never.
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=False))


def _format(values: np.ndarray | float | complex) -> str:
    return str(_as_tensor(values)) if isinstance(values, np.ndarray) else str(values)


def _mismatch(analytical: np.ndarray | float, numerical: np.ndarray | float, output_idx: int, input_idx: int,
              part: str | None, complex_output: bool, forward: bool = False) -> str:
    prefix = ""
    if complex_output:
        prefix = f"While considering the {'imaginary' if part == 'imag' else 'real'} part of complex outputs only, "
    mode = "computed with forward mode " if forward else ""
    return (
        f"{prefix}Jacobian {mode}mismatch for output {output_idx:d} with respect to input {input_idx:d},\n"
        f"numerical:{_format(numerical)}\nanalytical:{_format(analytical)}\n"
    )


def _differentiable_outputs(func_out: Any) -> tuple[Tensor, ...]:
    return tuple(o for o in as_tuple(func_out) if o.requires_grad)


def _diff_inputs(inputs: tuple) -> list[Tensor]:
    return [x for x in inputs if isinstance(x, Tensor) and x._requires_grad]


# --- input and output validation --------------------------------------------------------------


def _check_inputs(inputs: tuple) -> None:
    any_requires_grad = False
    for idx, inp in enumerate(inputs):
        if not (isinstance(inp, Tensor) and inp._requires_grad):
            continue
        if inp._dtype is not float64 and inp._dtype is not complex128:
            warnings.warn(
                f"Input #{idx} requires gradient and is not a double precision floating point or complex. "
                "This check will likely fail if all the inputs are not of double precision floating point "
                "or complex. ",
                stacklevel=4,
            )
        if not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp._shape)):
            raise RuntimeError(
                f"The {idx}th input has a dimension with stride 0. gradcheck only supports inputs that are "
                "non-overlapping to be able to compute the numerical gradients correctly. You should call "
                ".contiguous on the input before passing it to gradcheck."
            )
        any_requires_grad = True
    if not any_requires_grad:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them have "
            "requires_grad=True."
        )


def _check_attributes(sizes_ok: bool, types_ok: bool, check_grad_dtypes: bool) -> None:
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")


def _reentrant(first: list[np.ndarray], second: list[np.ndarray], nondet_tol: float) -> bool:
    return all(a.size == 0 or np.abs(a - b).max() <= nondet_tol for a, b in zip(first, second))


def _not_reentrant(nondet_tol: float) -> GradcheckError:
    return GradcheckError(
        "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
        "gives different values, although analytical gradient matches numerical gradient."
        f"The tolerance for nondeterminism was {nondet_tol}." + FAILED_NONDET_MSG
    )


def _zero_numerical_gradient(func: Callable, inputs: tuple, func_out: tuple, eps: float) -> None:
    # No differentiable output: finite differences must see no change either.
    for per_input in numerical_jacobians(func, inputs, func_out, eps):
        for jac in per_input:
            if np.count_nonzero(jac):
                raise GradcheckError("Numerical gradient for function expected to be zero")


# --- slow mode: whole Jacobians --------------------------------------------------------------


def _slow_check(func: Callable, inputs: tuple, func_out: tuple, outputs: tuple, eps: float, rtol: float,
                atol: float, check_grad_dtypes: bool, nondet_tol: float, part: str | None) -> None:
    if not outputs:
        _zero_numerical_gradient(func, inputs, func_out, eps)
        return
    numerical = numerical_jacobians(func, inputs, func_out, eps, part)
    float_outs = [o for o in func_out if is_float_or_complex(o)]
    # numerical[k][m] -> per differentiable output m, per input k
    per_output = [[numerical[k][m] for k in range(len(numerical))]
                  for m, o in enumerate(float_outs) if o.requires_grad]
    diff_inputs = _diff_inputs(inputs)
    for i, o in enumerate(outputs):
        first, sizes_ok, types_ok = analytical_jacobian(diff_inputs, o, part)
        second, _, _ = analytical_jacobian(diff_inputs, o, part)
        _check_attributes(sizes_ok, types_ok, check_grad_dtypes)
        if not _reentrant(first, second, nondet_tol):
            raise _not_reentrant(nondet_tol)
        for j, (a, n) in enumerate(zip(first, per_output[i])):
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_mismatch(a, n, i, j, part, o.is_complex()))


# --- fast mode: v^T J u from both sides ------------------------------------------------------


def _adjusted_atol(atol: float, u: np.ndarray | tuple, v: np.ndarray) -> float:
    # Comparing v^T A u with v^T B u, the element-wise atol scales by sum(u) * sum(v).
    sum_u = float(u[0].sum()) + float(u[1].sum()) if isinstance(u, tuple) else float(u.sum())
    return atol * sum_u * float(v.sum())


def _fast_check(func: Callable, inputs: tuple, func_out: tuple, outputs: tuple, eps: float, rtol: float,
                atol: float, check_grad_dtypes: bool, nondet_tol: float, part: str | None) -> None:
    generator = Generator()  # its own stream: the user's RNG state is left alone
    indices = [k for k, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad]
    diff_inputs = [inputs[k] for k in indices]
    all_u: list[np.ndarray | tuple] = []
    for x in diff_inputs:
        ur = random_unit_vector(x, generator, real=True)
        all_u.append((ur, random_unit_vector(x, generator, real=True)) if x.is_complex() else ur)
    all_v = [random_unit_vector(o, generator, real=False) for o in outputs]
    if not outputs:
        for k, u in zip(indices, all_u):
            for jvp in numerical_jvp(func, inputs, func_out, k, u, eps, part):
                if jvp.size and np.abs(jvp).max() > nondet_tol:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    diff_out_positions = [m for m, o in enumerate(o for o in func_out if is_float_or_complex(o)) if o.requires_grad]
    numerical = []  # numerical[k][m]: v_m . (J u_k)
    for k, u in zip(indices, all_u):
        jvps = numerical_jvp(func, inputs, func_out, k, u, eps, part)
        numerical.append([np.sum(all_v[m] * jvps[pos]) for m, pos in enumerate(diff_out_positions)])
    for m, (o, v) in enumerate(zip(outputs, all_v)):
        first, sizes_ok, types_ok = analytical_vjp(diff_inputs, o, v, part)
        second, _, _ = analytical_vjp(diff_inputs, o, v, part)
        _check_attributes(sizes_ok, types_ok, check_grad_dtypes)
        if not _reentrant(first, second, nondet_tol):
            raise _not_reentrant(nondet_tol)
        for k, (vj, u) in enumerate(zip(first, all_u)):
            if isinstance(u, tuple):  # C -> R
                analytical = np.dot(vj.real, u[0]) + 1j * np.dot(vj.imag, u[1])
            else:
                analytical = np.dot(vj, u)
            n = numerical[k][m]
            if not _allclose(np.asarray(analytical), np.asarray(n), rtol, _adjusted_atol(atol, u, v)):
                # PyTorch formats these 0-dim tensors with Tensor.__format__, i.e. as Python numbers.
                raise GradcheckError(
                    _mismatch(analytical.item(), n.item(), m, k, part, o.is_complex())
                    + _slow_mode_report(func, inputs, func_out, outputs, k, m, rtol, atol, eps, part)
                )


def _slow_mode_report(func: Callable, inputs: tuple, func_out: tuple, outputs: tuple, input_idx: int,
                      output_idx: int, rtol: float, atol: float, eps: float, part: str | None,
                      forward: bool = False) -> str:
    numerical = numerical_jacobians(func, inputs, func_out, eps, part)[input_idx][output_idx]
    if forward:
        analytical = forward_jacobians(func, inputs, func_out, False, GradcheckError)[input_idx][output_idx]
    else:
        analytical = analytical_jacobian(_diff_inputs(inputs), outputs[output_idx], part)[0][input_idx]
    max_diff = np.abs(numerical - analytical).max().item()
    report = (
        "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
        "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
        "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
        f"Numerical:\n {_as_tensor(numerical)}\n"
        f"Analytical:\n{_as_tensor(analytical)}\n\n"
        f"The max per-element difference (slow mode) is: {max_diff}.\n"
    )
    if _allclose(analytical, numerical, rtol, atol):
        report += FAST_FAIL_SLOW_OK_MSG
    return report


# --- the checks after the Jacobians ----------------------------------------------------------


def _zeros_like(t: Tensor) -> Tensor:
    return functions.zeros(tuple(t._shape), dtype=t._dtype)


def _test_backward_mul_by_grad_output(outputs: tuple, inputs: tuple, masked: bool) -> None:
    diff_inputs = _diff_inputs(inputs)
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")
    grads = grad(outputs, diff_inputs, [_zeros_like(o) for o in outputs], allow_unused=True)
    for gi, di in zip(grads, diff_inputs):
        if gi is None:
            continue
        values = np.asarray(array(gi))
        zero = np.allclose(values, 0) if masked else not np.count_nonzero(values)
        if not zero:
            raise GradcheckError("backward not multiplied by grad_output")
        if gi._dtype is not di._dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.device != di.device:
            raise GradcheckError("grad is incorrect device")
        if gi._shape != di._shape:
            raise GradcheckError("grad is incorrect size")


class _UndefinedGradBackward(Node):
    """The node of an output whose gradient is undefined: passes None on, whatever it receives."""

    _name = "UndefinedGradBackward"

    def apply(self, grad_outputs: list) -> list:
        return [None]


def _undefined_grad(t: Tensor) -> Tensor:
    """An alias of t whose gradient reaches t's node as undefined (torch._C._functions.UndefinedGrad)."""
    out = t.detach()
    out._grad_fn = _UndefinedGradBackward((gradient_edge(t),))
    out._requires_grad = True
    autograd_meta(out).output_nr = 0
    return out


def _warn_bc_breaking() -> None:
    warnings.warn(
        "Backwards compatibility: New undefined gradient support checking feature is enabled by default, "
        "but it may break existing callers of this function. If this is true for you, you can call this "
        'function with "check_undefined_grad=False" to disable the feature',
        stacklevel=5,
    )


def _test_undefined_backward_mode(func: Callable, outputs: tuple, inputs: tuple) -> None:
    diff_inputs = _diff_inputs(inputs)
    if not diff_inputs:
        raise GradcheckError("no Tensors requiring grad found in input")

    def check(to_check: list) -> None:
        try:
            grads = grad(to_check, diff_inputs, [_zeros_like(o) for o in to_check], allow_unused=True)
        except RuntimeError as e:
            _warn_bc_breaking()
            raise GradcheckError(
                f"Expected backward function to handle undefined output grads. {_UNDEFINED_NOTE}"
            ) from e
        for gi in grads:
            if gi is not None and np.count_nonzero(np.asarray(array(gi))):
                _warn_bc_breaking()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads are undefined "
                    f"or zero. {_UNDEFINED_NOTE}"
                )

    all_undefined = [_undefined_grad(o) for o in _differentiable_outputs(func(*inputs))]
    to_check = [all_undefined]
    if len(all_undefined) > 1:  # and each output's gradient undefined on its own
        for undefined in range(len(outputs)):
            fresh = _differentiable_outputs(func(*inputs))
            to_check.append([_undefined_grad(o) if i == undefined else o for i, o in enumerate(fresh)])
    for outs in to_check:
        check(outs)


# --- public API -------------------------------------------------------------------------------


def _forward_check(func: Callable, inputs: tuple, func_out: tuple, outputs: tuple, eps: float, rtol: float,
                   atol: float, check_grad_dtypes: bool, fast_mode: bool) -> None:
    """Forward-mode Jacobians (or J u in fast mode) against finite differences."""
    float_outs = [o for o in func_out if is_float_or_complex(o)]
    if fast_mode:
        generator = Generator()
        indices = [k for k, x in enumerate(inputs) if isinstance(x, Tensor) and x._requires_grad]
        all_u = [random_unit_vector(inputs[k], generator, real=True) for k in indices]
        analytical = forward_jvps(func, inputs, func_out, all_u, check_grad_dtypes, GradcheckError)
        for k, (index, u) in enumerate(zip(indices, all_u)):
            numerical = numerical_jvp(func, inputs, func_out, index, u, eps)
            for m, (a, n) in enumerate(zip(analytical[k], numerical)):
                if not _allclose(a, n, rtol, _adjusted_atol(atol, u, np.ones(1))):
                    raise GradcheckError(
                        _mismatch(a, n, m, k, None, False, forward=True)
                        + _slow_mode_report(func, inputs, func_out, outputs, k, m, rtol, atol, eps, None,
                                            forward=True)
                    )
        return
    numerical = numerical_jacobians(func, inputs, func_out, eps)
    analytical = forward_jacobians(func, inputs, func_out, check_grad_dtypes, GradcheckError)
    positions = [m for m, o in enumerate(float_outs) if o.requires_grad]
    for i, m in enumerate(positions):
        for j in range(len(numerical)):
            a, n = analytical[j][m], numerical[j][m]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_mismatch(a, n, i, j, None, False, forward=True))


def _vmap_unavailable(what: str) -> NotImplementedError:
    return NotImplementedError(
        f"gradcheck({what}=True) needs vmap (torch.vmap / torch.func.vmap), which torchpy does not "
        "implement yet; pass {what}=False".replace("{what}", what)
    )


def gradcheck(
    func: Callable[..., Any],
    inputs: Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Check the gradients of `func` at `inputs` (the tensors that require grad) against finite
    differences; True if they agree, else GradcheckError (or False with raise_exception=False)."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    # Refused before any work: what torchpy cannot check yet is an error, never a silent pass.
    for flag, name in ((check_batched_grad, "check_batched_grad"),
                       (check_batched_forward_grad, "check_batched_forward_grad")):
        if flag:
            raise _vmap_unavailable(name)
    try:
        return _gradcheck(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad,
                          check_grad_dtypes, fast_mode, bool(masked), check_forward_ad, check_backward_ad)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _gradcheck(func: Callable, inputs: Any, eps: float, atol: float, rtol: float, nondet_tol: float,
               check_undefined_grad: bool, check_grad_dtypes: bool, fast_mode: bool, masked: bool,
               check_forward_ad: bool, check_backward_ad: bool) -> bool:
    tupled = as_tuple(inputs)
    _check_inputs(tupled)
    func_out = as_tuple(func(*tupled))
    outputs = _differentiable_outputs(func_out)
    # Fast mode's projections are real; complex functions take the slow path.
    complex_case = any(isinstance(x, Tensor) and x.is_complex() for x in (*tupled, *func_out))
    if check_backward_ad:
        check = _fast_check if fast_mode and not complex_case else _slow_check
        if any(o.is_complex() for o in func_out if isinstance(o, Tensor)):
            # Complex outputs: the imaginary parts, then the real parts, each as a real function.
            check(func, tupled, func_out, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol, "imag")
            check(func, tupled, func_out, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol, "real")
        else:
            check(func, tupled, func_out, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol, None)
    if check_forward_ad:
        if any(isinstance(x, Tensor) and x._requires_grad and x.is_complex() for x in tupled):
            raise NotImplementedError("gradcheck(check_forward_ad=True) with complex inputs is not implemented "
                                      "in torchpy yet")
        _forward_check(func, tupled, func_out, outputs, eps, rtol, atol, check_grad_dtypes,
                       fast_mode and not complex_case)
        if check_undefined_grad:
            generator = Generator()
            all_u = [random_unit_vector(x, generator, real=True) for x in _diff_inputs(tupled)]
            undefined_forward_check(func, tupled, all_u, GradcheckError)
    if not check_backward_ad:
        return True
    _test_backward_mul_by_grad_output(outputs, tupled, masked)
    if check_undefined_grad:
        _test_undefined_backward_mode(func, outputs, tupled)
    return True


def _make_grad_output(t: Tensor, noncontiguous: bool) -> Tensor:
    """torch.testing.make_tensor(low=-1, high=1)'s draw: uniform_ over the tensor (over its real
    view if complex); non-contiguous ones are every second element of a twice-as-wide last dim."""
    dtype = t._dtype if is_float_or_complex(t) else float64
    shape = tuple(t._shape)
    noncontiguous = noncontiguous and t.numel() > 1
    if noncontiguous:
        shape = shape[:-1] + (2 * shape[-1],)
    if dtype.is_complex:
        real = functions.empty(shape + (2,), dtype=float32 if dtype is complex64 else float64).uniform_(-1, 1)
        pairs = array(real)
        result = functions.empty(shape, dtype=dtype)
        array(result)[...] = pairs[..., 0] + 1j * pairs[..., 1]
    else:
        result = functions.empty(shape, dtype=dtype).uniform_(-1, 1)
    if noncontiguous:
        result = result[..., 1::2]  # offset by one, as torch's, to catch offset mistakes
    return result.requires_grad_()


def gradgradcheck(
    func: Callable[..., Any],
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """gradcheck of the function (inputs, grad_outputs) -> gradients of func's outputs w.r.t. its
    inputs (with create_graph=True): second derivatives against finite differences of the first."""
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    tupled_inputs = as_tuple(inputs)
    if grad_outputs is None:
        outs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(_make_grad_output(o, gen_non_contig_grad_outputs) for o in outs)
    else:
        tupled_grad_outputs = as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_input_positions = {i for i, x in enumerate(tupled_inputs) if isinstance(x, Tensor) and x.requires_grad}
    diff_grad_output_positions = {i for i, x in enumerate(tupled_grad_outputs) if x.requires_grad}

    def first_derivatives(*args: Any) -> tuple:
        input_args = tuple(x.requires_grad_() if i in diff_input_positions else x
                           for i, x in enumerate(args[:-num_outputs]))
        outputs = _differentiable_outputs(func(*input_args))
        grad_outs = tuple(x.requires_grad_() if i in diff_grad_output_positions else x
                          for i, x in enumerate(args[-num_outputs:]))
        diff_input_args = tuple(x for i, x in enumerate(input_args) if i in diff_input_positions)
        grads = grad(outputs, diff_input_args, grad_outs, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        first_derivatives, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol, rtol=rtol,
        raise_exception=raise_exception, nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad,
        check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad, fast_mode=fast_mode,
        check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev, masked=masked,
    )

