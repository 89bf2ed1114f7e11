"""torchpy.autograd.gradcheck / gradgradcheck against torch's: the same scenario runs through both
libraries and must give the same result, or the same exception type and message, and the same
warnings. Custom autograd.Functions with deliberately wrong backwards provoke each failure."""

from __future__ import annotations

import sys
import warnings
from typing import Any, Callable

import numpy as np
import pytest
import torch

import torchpy

X = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
Y = np.array([0.3, 0.7, 1.1])


def leaf(t: Any, values: Any, dtype: str = "float64", requires_grad: bool = True) -> Any:
    return t.tensor(np.asarray(values), dtype=getattr(t, dtype), requires_grad=requires_grad)


def outcome(t: Any, scenario: Callable) -> tuple:
    """(result or exception type name, message, warning messages) of scenario(t)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: Any = ("returned", scenario(t))
        except Exception as e:  # noqa: BLE001  (the type is compared)
            result = (type(e).__name__, str(e))
    return result, [str(w.message) for w in caught]


def same_as_torch(scenario: Callable) -> tuple:
    expected = outcome(torch, scenario)
    actual = outcome(torchpy, scenario)
    assert actual == expected
    return expected


# --- custom Functions with known (and known wrong) backwards -----------------------------------


def square(t: Any, scale: float = 2.0) -> Any:
    """x * x whose backward multiplies by `scale` * x (2 is right)."""

    class Square(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * scale * x

    return Square.apply


def jittery(t: Any) -> Any:
    """Right gradient plus noise of 1e-12: backward is not reentrant."""
    calls = [0]

    class Jittery(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, g):
            calls[0] += 1
            return g * (3 + 1e-12 * calls[0])

    return Jittery.apply


def ignores_grad_output(t: Any) -> Any:
    class SumIgnoringGrad(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sum()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return t.ones_like(x)

    return SumIgnoringGrad.apply


def two_outputs(t: Any) -> Any:
    """(2x, 3x) with materialize_grads off: backward adds what it gets."""

    class TwoOutputs(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            if g1 is None:
                return None if g2 is None else g2 * 3
            return g1 * 2 if g2 is None else g1 * 2 + g2 * 3

    return TwoOutputs.apply


def undefined_grad(t: Any, undefined: str) -> Any:
    """3x with materialize_grads off; `undefined` says what backward does with an undefined grad."""

    class Triple(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(x)
            return x * 3

        @staticmethod
        def backward(ctx, g):
            if g is None:
                if undefined == "raise":
                    raise RuntimeError("undefined grad")
                return t.ones_like(ctx.saved_tensors[0])
            return g * 3

    return Triple.apply


# --- passing checks ------------------------------------------------------------------------------


@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("scenario", [
    lambda t, f: t.autograd.gradcheck(lambda a, b: a * b, (leaf(t, X), leaf(t, Y)), fast_mode=f),
    lambda t, f: t.autograd.gradcheck(lambda a: a.exp(), leaf(t, X), fast_mode=f),  # one tensor, no tuple
    lambda t, f: t.autograd.gradcheck(lambda a, b: (a * b, a.sin(), b.sum()), [leaf(t, X), leaf(t, Y)], fast_mode=f),
    # a non-tensor argument and a tensor that does not require grad
    lambda t, f: t.autograd.gradcheck(lambda a, n, c: (a * c).sum(n), (leaf(t, X), 1, leaf(t, Y, requires_grad=False)),
                                      fast_mode=f),
    # an integer output beside the float one; a float output that does not require grad
    lambda t, f: t.autograd.gradcheck(lambda a: a.max(1), (leaf(t, X),), fast_mode=f),
    lambda t, f: t.autograd.gradcheck(lambda a: (a * 2, a.detach()), (leaf(t, X),), fast_mode=f),
    lambda t, f: t.autograd.gradcheck(square(t), (leaf(t, Y),), fast_mode=f, check_grad_dtypes=True, masked=True),
    lambda t, f: t.autograd.gradcheck(two_outputs(t), (leaf(t, Y),), fast_mode=f),
    lambda t, f: t.autograd.gradcheck(square(t, 2.0002), (leaf(t, Y),), fast_mode=f),  # within rtol
    lambda t, f: t.autograd.gradcheck(jittery(t), (leaf(t, Y),), nondet_tol=1e-9, fast_mode=f),
    lambda t, f: t.autograd.gradcheck(lambda a: a.floor(), (leaf(t, X + 0.25),), fast_mode=f),  # zero gradient
    lambda t, f: t.autograd.gradcheck(lambda a: a.argmax(1), (leaf(t, X),), fast_mode=f),  # no differentiable output
])
def test_passes(scenario, fast_mode):
    result, _ = same_as_torch(lambda t: scenario(t, fast_mode))
    assert result == ("returned", True)


@pytest.mark.parametrize("scenario", [
    lambda t: t.autograd.gradgradcheck(lambda a, b: (a * b).sin(), (leaf(t, X), leaf(t, Y))),
    lambda t: t.autograd.gradgradcheck(lambda a, b: ((a * b).sin(), a.exp()), (leaf(t, X), leaf(t, Y)),
                                       gen_non_contig_grad_outputs=True),
    lambda t: t.autograd.gradgradcheck(lambda a: a.pow(3), (leaf(t, Y),), (leaf(t, [0.5, -1.0, 2.0]),)),
    lambda t: t.autograd.gradgradcheck(lambda a: a.pow(3), (leaf(t, Y),), fast_mode=True),
    lambda t: t.autograd.gradgradcheck(square(t), (leaf(t, Y),)),
    # grad_outputs that do not require grad are constants of the first-derivative function
    lambda t: t.autograd.gradgradcheck(lambda a: a.tanh(), (leaf(t, Y),), (leaf(t, Y, requires_grad=False),)),
])
def test_gradgradcheck_passes(scenario):
    result, _ = same_as_torch(scenario)
    assert result == ("returned", True)


# --- failures: the same exception and message ------------------------------------------------------


@pytest.mark.parametrize("scenario", [
    # wrong Jacobian, slow and fast mode (fast mode's random projections come from torch's generator)
    lambda t: t.autograd.gradcheck(square(t, 1.0), (leaf(t, Y),)),
    lambda t: t.autograd.gradcheck(square(t, 1.0), (leaf(t, Y),), fast_mode=True),
    lambda t: t.autograd.gradcheck(lambda a, b: (a * b, square(t, 2.5)(b)), (leaf(t, X), leaf(t, Y))),
    # a gradient off by 1e-4 relative: inside the default rtol, outside a tight one
    lambda t: t.autograd.gradcheck(square(t, 2.0002), (leaf(t, Y),), rtol=1e-6, atol=0.0),
    lambda t: t.autograd.gradcheck(square(t, 2.0002), (leaf(t, Y),), rtol=1e-6, atol=0.0, fast_mode=True),
    lambda t: t.autograd.gradcheck(lambda a: a.pow(3), (leaf(t, Y),), eps=1e-1),  # a coarse difference
    # an output that cannot be differenced (bool - bool), when no output is differentiable
    lambda t: t.autograd.gradcheck(lambda a: a > 0, (leaf(t, Y),)),
    lambda t: t.autograd.gradcheck(jittery(t), (leaf(t, Y),)),
    lambda t: t.autograd.gradcheck(jittery(t), (leaf(t, Y),), fast_mode=True),
    lambda t: t.autograd.gradcheck(ignores_grad_output(t), (leaf(t, Y),)),
    lambda t: t.autograd.gradcheck(undefined_grad(t, "raise"), (leaf(t, Y),)),
    lambda t: t.autograd.gradcheck(undefined_grad(t, "ones"), (leaf(t, Y),)),
    lambda t: t.autograd.gradcheck(undefined_grad(t, "ones"), (leaf(t, Y),), fast_mode=True),
    # with raise_exception=False a failed check returns False
    lambda t: t.autograd.gradcheck(square(t, 1.0), (leaf(t, Y),), raise_exception=False),
    lambda t: t.autograd.gradcheck(ignores_grad_output(t), (leaf(t, Y),), raise_exception=False),
    # bad arguments
    lambda t: t.autograd.gradcheck(lambda a: a * 2, (leaf(t, Y, requires_grad=False),)),
    lambda t: t.autograd.gradcheck(lambda a: a * 2, (leaf(t, Y).expand(2, 3),)),
    lambda t: t.autograd.gradcheck(lambda a: a * 2, (leaf(t, Y),), check_backward_ad=False),
    lambda t: t.autograd.gradcheck(lambda a: a * 2, (leaf(t, Y),), check_batched_forward_grad=True),
    lambda t: t.autograd.gradgradcheck(lambda a: a * 2, (leaf(t, Y),), check_rev_over_rev=False),
    lambda t: t.autograd.gradgradcheck(lambda a: a * 2, (leaf(t, Y),), check_rev_over_rev=False,
                                       check_undefined_grad=False, check_batched_grad=True, check_fwd_over_rev=True),
    # an output whose shape changes when the input moves
    lambda t: t.autograd.gradcheck(lambda a: a[a > 0.7], (leaf(t, [0.3, 0.7, 1.1]),)),
])
def test_failures(scenario):
    result, _ = same_as_torch(scenario)
    assert result[0] != "returned" or result[1] is False


def test_mismatch_message_format():
    # The documented layout, on top of equality with torch's text.
    result, _ = same_as_torch(lambda t: t.autograd.gradcheck(square(t, 1.0), (leaf(t, [0.5]),)))
    assert result == ("GradcheckError", "Jacobian mismatch for output 0 with respect to input 0,\n"
                      "numerical:tensor([[1.0000]], dtype=torch.float64)\n"
                      "analytical:tensor([[0.5000]], dtype=torch.float64)\n")


def detached_square(t: Any) -> Any:
    """x * x with a right first derivative whose backward is not differentiable in x."""

    class DetachedSquare(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x.detach()

    return DetachedSquare.apply


def test_gradgradcheck_wrong_second_derivative():
    def scenario(t):
        assert t.autograd.gradcheck(detached_square(t), (leaf(t, Y),))
        return t.autograd.gradgradcheck(detached_square(t), (leaf(t, Y),), (leaf(t, [0.5, -1.0, 2.0]),))

    result, _ = same_as_torch(scenario)
    assert result[0] == "GradcheckError"
    assert result[1].startswith("Jacobian mismatch for output 0 with respect to input 0")


@pytest.mark.parametrize("noncontiguous", [False, True])
def test_gradgradcheck_random_grad_outputs_follow_the_seed(noncontiguous):
    # Default grad_outputs are drawn as torch.testing.make_tensor draws them (uniform [-1, 1); a
    # non-contiguous one is every second element of a wider tensor): the mismatch message prints
    # the numerical d(first derivative)/dx = 2 * grad_output, so it shows the draws.
    def scenario(t):
        t.manual_seed(3)
        return t.autograd.gradgradcheck(detached_square(t), (leaf(t, X),), gen_non_contig_grad_outputs=noncontiguous)

    result, _ = same_as_torch(scenario)
    assert result[0] == "GradcheckError"


def test_gradgradcheck_complex_grad_outputs_follow_the_seed():
    def scenario(t):
        t.manual_seed(4)
        return t.autograd.gradgradcheck(lambda a: a * 2.5, (leaf(t, [1 + 2j, -0.5 + 0.25j], "complex128"),),
                                        gen_non_contig_grad_outputs=True)

    result, _ = same_as_torch(scenario)
    assert result == ("returned", True)


def test_low_precision_input_warns():
    result, messages = same_as_torch(lambda t: t.autograd.gradcheck(lambda a, b: a * b, (leaf(t, Y, "float32"),
                                                                                          leaf(t, Y))))
    assert messages and messages[0].startswith("Input #0 requires gradient and is not a double precision")


def test_undefined_grad_warning():
    _, messages = same_as_torch(lambda t: t.autograd.gradcheck(undefined_grad(t, "raise"), (leaf(t, Y),)))
    assert messages and messages[0].startswith("Backwards compatibility: New undefined gradient support checking")
    result, _ = same_as_torch(lambda t: t.autograd.gradcheck(undefined_grad(t, "raise"), (leaf(t, Y),),
                                                             check_undefined_grad=False))
    assert result == ("returned", True)


@pytest.mark.parametrize("scenario", [
    lambda t: t.autograd.gradcheck(lambda a: a + a, (leaf(t, [1 + 2j, -0.5 + 0.25j], "complex128"),)),
    lambda t: t.autograd.gradcheck(lambda a: -a * 2.5, (leaf(t, [1 + 2j, -0.5 + 0.25j], "complex128"),),
                                   fast_mode=True),
    lambda t: t.autograd.gradcheck(lambda a, b: a - b, (leaf(t, [1 + 2j, -0.5 + 0.25j], "complex128"),
                                                         leaf(t, [0.3, 0.7]))),
])
def test_complex_passes(scenario):
    result, _ = same_as_torch(scenario)
    assert result == ("returned", True)


def test_complex_mismatch_names_the_part():
    def scenario(t):
        class WrongComplex(t.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 3

        return t.autograd.gradcheck(WrongComplex.apply, (leaf(t, [1 + 2j, -0.5 + 0.25j], "complex128"),))

    result, _ = same_as_torch(scenario)
    assert result[0] == "GradcheckError"
    assert result[1].startswith("While considering the imaginary part of complex outputs only, Jacobian mismatch")


def test_input_restored_when_func_raises():
    # torch leaves the perturbed value behind here; torchpy restores it (no state left behind).
    calls = []

    def fails_on_second_call(a):
        calls.append(1)
        if len(calls) == 2:
            raise ValueError("func failed")
        return a * 2

    x = leaf(torchpy, Y)
    with pytest.raises(ValueError, match="func failed"):
        torchpy.autograd.gradcheck(fails_on_second_call, (x,))
    assert x.tolist() == Y.tolist()


def test_inputs_are_left_as_they_were():
    for t in (torch, torchpy):
        x = leaf(t, X)
        before = x.detach().clone()
        t.autograd.gradcheck(lambda a: a.exp(), (x,))
        assert x.grad is None and x._version == 0 and bool((x.detach() == before).all())


# --- module layout and what torchpy cannot check yet --------------------------------------------


def test_module_layout():
    from torchpy.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck

    module = sys.modules["torchpy.autograd.gradcheck"]
    assert torchpy.autograd.gradcheck is gradcheck is module.gradcheck  # the name is the function, as in torch
    assert torchpy.autograd.gradgradcheck is gradgradcheck
    assert issubclass(GradcheckError, RuntimeError)
    assert callable(torch.autograd.gradcheck) and issubclass(sys.modules["torch.autograd.gradcheck"].GradcheckError,
                                                            RuntimeError)


def test_batched_grad_needs_vmap():
    assert not hasattr(torchpy, "vmap"), "vmap exists now: compare check_batched_grad=True with torch instead"
    assert torch.autograd.gradcheck(lambda a: a * 2, (leaf(torch, Y),), check_batched_grad=True)
    with pytest.raises(NotImplementedError, match="vmap"):
        torchpy.autograd.gradcheck(lambda a: a * 2, (leaf(torchpy, Y),), check_batched_grad=True)
    with pytest.raises(NotImplementedError, match="vmap"):
        torchpy.autograd.gradgradcheck(lambda a: a * 2, (leaf(torchpy, Y),), check_batched_grad=True)


def wrong_jvp(t: Any) -> Any:
    """x * x with a right backward and a forward-mode jvp that is off by a factor 2."""

    class Square(t.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * g * x

        @staticmethod
        def jvp(ctx, tangent):
            (x,) = ctx.saved_tensors
            return tangent * x

    return Square.apply


FORWARD_AD = [
    lambda t: t.autograd.gradcheck(lambda a, b: (a * b).sin(), (leaf(t, X), leaf(t, Y)), check_forward_ad=True),
    lambda t: t.autograd.gradcheck(lambda a, b: (a * b).sin(), (leaf(t, X), leaf(t, Y)), check_forward_ad=True,
                                   fast_mode=True),
    lambda t: t.autograd.gradcheck(lambda a: a.exp(), (leaf(t, X),), check_forward_ad=True, check_backward_ad=False),
    lambda t: t.autograd.gradcheck(wrong_jvp(t), (leaf(t, Y),), check_forward_ad=True),
    lambda t: t.autograd.gradcheck(wrong_jvp(t), (leaf(t, Y),), check_forward_ad=True, fast_mode=True),
    lambda t: t.autograd.gradgradcheck(lambda a: a.pow(3).sin(), (leaf(t, Y),), check_fwd_over_rev=True),
]


@pytest.mark.parametrize("scenario", FORWARD_AD)
def test_forward_ad_check(scenario):
    try:
        from torchpy.autograd import forward_ad  # noqa: F401
    except ImportError:  # not built yet: the check is refused, naming what it needs
        with pytest.raises(NotImplementedError, match=r"torchpy\.autograd\.forward_ad"):
            scenario(torchpy)
        assert outcome(torch, scenario)[0][0] in ("returned", "GradcheckError")
        return
    # results only: torch's first forward-AD use also warns about torch.jit.script from its imports
    assert outcome(torchpy, scenario)[0] == outcome(torch, scenario)[0]
