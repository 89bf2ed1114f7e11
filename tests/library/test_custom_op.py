"""torchpy.library.custom_op against torch.library.custom_op.

Every test defines the same op through both libraries (`t` is torch or torchpy, in a
namespace of its own: torch keeps registrations for the whole process) and compares
schemas, results, gradients, what a TorchDispatchMode sees, version counters and errors.
"""

import re
import warnings
from typing import Optional

import numpy as np
import pytest
import torch

import torchpy
import torchpy.utils._pytree

from .helpers import assert_same, both_raise, fresh_ns, logging_mode, normalize, run_both, table_labels_of


def _numpy_sin(t, ns, **options):
    @t.library.custom_op(f"{ns}::numpy_sin", mutates_args=(), **options)
    def numpy_sin(x: t.Tensor) -> t.Tensor:
        return t.from_numpy(np.sin(x.numpy()))

    return numpy_sin


def _sin_backward(numpy_sin):
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()

    numpy_sin.register_autograd(backward, setup_context=setup_context)


# --- definition -------------------------------------------------------------------------------

def test_decorator_and_direct_forms_define_the_same_op():
    def program(t, ns):
        def body(x: t.Tensor, n: int, scale: float = 2.0) -> t.Tensor:
            return x * n * scale

        decorated = t.library.custom_op(f"{ns}::dec", mutates_args=())(body)
        direct = t.library.custom_op(f"{ns}::direct", body, mutates_args=())
        x = t.tensor([1.0, 2.0])
        packet = getattr(t.ops, ns).dec
        return (str(decorated._opoverload._schema), str(direct._opoverload._schema), repr(direct)
                .replace(ns, "NS"), type(decorated).__name__, hasattr(decorated, "__name__"),
                decorated(x, 3), direct(x, 3, scale=0.5), packet(x, 2), packet.default(x, 1, 4.0),
                [getattr(tag, "name", tag) for tag in packet.default.tags])

    ours, theirs = run_both(program, "forms")
    assert_same(ours, theirs)


def test_explicit_schema():
    def program(t, ns):
        @t.library.custom_op(f"{ns}::f", mutates_args=(), schema="(Tensor x, int n) -> (Tensor, Tensor)")
        def f(x, n):
            return x + n, x - n

        return str(f._opoverload._schema), f(t.tensor([1.0, 2.0]), 3)

    ours, theirs = run_both(program, "schema")
    assert_same(ours, theirs)


def test_dispatch_table_keys_and_labels():
    """Where each registration lands: CompositeExplicitAutograd (or the device key), Meta,
    Autograd, and ADInplaceOrView for a mutating op."""
    def program(t, ns):
        @t.library.custom_op(f"{ns}::pure", mutates_args=())
        def pure(x: t.Tensor) -> t.Tensor:
            return x.clone()

        @t.library.custom_op(f"{ns}::cpu_only", mutates_args=(), device_types="cpu")
        def cpu_only(x: t.Tensor) -> t.Tensor:
            return x.clone()

        @t.library.custom_op(f"{ns}::mutating", mutates_args={"x"})
        def mutating(x: t.Tensor) -> None:
            x.add_(1)

        keys = ("CPU", "Meta", "AutogradCPU", "AutogradMeta", "ADInplaceOrView", "BackendSelect")
        tables = []
        for name in ("pure", "cpu_only", "mutating"):
            labels = table_labels_of(t, f"{ns}::{name}")
            tables.append({k: labels.get(k) for k in keys})
        return tables

    ours, theirs = run_both(program, "table")
    assert ours == theirs


def test_redefinition_replaces_the_op():
    # (Calling the first CustomOpDef afterwards can crash torch: not compared.)
    def program(t, ns):
        @t.library.custom_op(f"{ns}::f", mutates_args=())
        def first(x: t.Tensor) -> t.Tensor:
            return x + 1

        first.register_autograd(lambda ctx, g: g * 100)

        @t.library.custom_op(f"{ns}::f", mutates_args=())
        def second(x: t.Tensor, n: int = 10) -> t.Tensor:
            return x + n

        x = t.tensor([1.0], requires_grad=True)
        y = getattr(t.ops, ns).f(x, 2)
        with pytest.raises(RuntimeError, match="no autograd formula was registered"):
            y.sum().backward()  # the first op's backward went with it
        return str(second._opoverload._schema), second(x), y

    ours, theirs = run_both(program, "redefine")
    assert_same(ours, theirs)


# --- calling ----------------------------------------------------------------------------------

def test_arguments_reach_the_kernel_as_in_torch():
    def program(t, ns):
        seen = []

        @t.library.custom_op(f"{ns}::f", mutates_args=())
        def f(x: t.Tensor, ys: list[t.Tensor], opt: Optional[t.Tensor], n: int, sizes: list[int],
              flag: bool = True, name: str = "a", *, alpha: float = 1.5) -> tuple[t.Tensor, t.Tensor]:
            seen.append((len(ys), opt is None, n, list(sizes), flag, name, alpha))
            return x * alpha + sum(ys), (x + n if flag else x - n)

        x = t.tensor([1.0, 2.0])
        results = [
            f(x, [x, x], None, 2, [1, 2]),
            f(x, [x], x, 3, (4,), False, "b", alpha=-1.0),
            getattr(t.ops, ns).f.default(x, ys=[x], opt=None, n=1, sizes=[], name="c"),
        ]
        return results, seen

    ours, theirs = run_both(program, "arguments")
    assert_same(ours, theirs)


def test_int_list_and_none_returns():
    def program(t, ns):
        @t.library.custom_op(f"{ns}::stats", mutates_args=())
        def stats(x: t.Tensor) -> tuple[t.Tensor, int, float, bool]:
            return x.sum(), x.numel(), float(x.max()), bool(x.min() > 0)

        @t.library.custom_op(f"{ns}::parts", mutates_args=())
        def parts(x: t.Tensor, n: int) -> list[t.Tensor]:
            return [x * i for i in range(n)]

        @t.library.custom_op(f"{ns}::nothing", mutates_args=())
        def nothing(x: t.Tensor) -> None:
            return None

        x = t.tensor([1.0, 2.0, 3.0])
        return stats(x), parts(x, 3), nothing(x)

    ours, theirs = run_both(program, "returns")
    assert_same(ours, theirs)


def test_device_specific_kernel_and_default():
    def program(t, ns):
        @t.library.custom_op(f"{ns}::f", mutates_args=())
        def f(x: t.Tensor) -> t.Tensor:
            return x + 1

        x = t.tensor([1.0])
        before = f(x)

        @f.register_kernel("cpu")
        def _(x):
            return x + 100

        after = f(x)
        with f.set_kernel_enabled("cpu", enabled=False):
            disabled = f(x)
        return before, after, disabled, f(x)

    ours, theirs = run_both(program, "kernel")
    assert_same(ours, theirs)


def test_free_register_kernel_on_a_custom_op():
    def program(t, ns):
        _numpy_sin(t, ns, device_types="cpu")
        t.library.register_kernel(f"{ns}::numpy_sin", "cpu", lambda x: x * 0 + 7)
        return getattr(t.ops, ns).numpy_sin(t.tensor([1.0, 2.0]))

    ours, theirs = run_both(program, "free_kernel")
    assert_same(ours, theirs)


def test_factory_op_selects_the_backend_from_its_device_argument():
    def program(t, ns):
        @t.library.custom_op(f"{ns}::make", mutates_args=(), device_types="cpu")
        def make(n: int, device: t.device) -> t.Tensor:
            return t.arange(n, dtype=t.float32)

        return make(3, t.device("cpu")), make(2, "cpu"), str(make._opoverload._schema)

    ours, theirs = run_both(program, "factory")
    assert_same(ours, theirs)
    both_raise(lambda t, ns: _factory_without_meta_kernel(t, ns), "factory_meta")


def _factory_without_meta_kernel(t, ns):
    @t.library.custom_op(f"{ns}::make", mutates_args=(), device_types="cpu")
    def make(n: int, device: t.device) -> t.Tensor:
        return t.arange(n)

    make(2, t.device("meta"))


# --- mutation and version counters -----------------------------------------------------------

def test_mutated_arguments_are_written_and_versions_bumped_as_in_torch():
    def program(t, ns):
        versions = []

        @t.library.custom_op(f"{ns}::accumulate", mutates_args={"out", "others"})
        def accumulate(out: t.Tensor, x: t.Tensor, others: list[t.Tensor]) -> None:
            versions.append(("enter", out._version, x._version, [o._version for o in others]))
            out.add_(x)  # an in-place op in the kernel counts too
            for o in others:
                o.mul_(2)
            versions.append(("exit", out._version, [o._version for o in others]))

        out, x = t.zeros(3), t.ones(3)
        others = [t.ones(2), t.ones(1)]
        view = out[1:]
        accumulate(out, x, others)
        accumulate(out, x, others)
        return out, others, versions, out._version, view._version, x._version, \
            str(accumulate._opoverload._schema)

    ours, theirs = run_both(program, "mutation")
    assert_same(ours, theirs)


def test_unknown_mutates_args_marks_every_tensor():
    def program(t, ns):
        @t.library.custom_op(f"{ns}::f", mutates_args="unknown")
        def f(x: t.Tensor, y: list[t.Tensor], z: Optional[t.Tensor] = None, n: int = 1) -> t.Tensor:
            return x + n

        x = t.ones(2)
        result = f(x, [x])
        return str(f._opoverload._schema), result, x._version

    ours, theirs = run_both(program, "unknown")
    assert_same(ours, theirs)


def test_inplace_mutation_through_numpy_is_visible():
    def program(t, ns):
        @t.library.custom_op(f"{ns}::numpy_sin_", mutates_args={"x"}, device_types="cpu")
        def numpy_sin_(x: t.Tensor) -> None:
            array = x.numpy()
            np.sin(array, out=array)

        x = t.tensor([0.5, 1.0, 2.0])
        numpy_sin_(x)
        return x, x._version

    ours, theirs = run_both(program, "numpy_inplace")
    assert_same(ours, theirs)


# --- TorchDispatchMode and subclasses -----------------------------------------------------------

@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("with_autograd", [False, True])
def test_mode_sees_the_op_as_torch(requires_grad, with_autograd):
    def program(t, ns):
        numpy_sin = _numpy_sin(t, ns)
        if with_autograd:
            _sin_backward(numpy_sin)

        @t.library.custom_op(f"{ns}::bump", mutates_args={"x"})
        def bump(x: t.Tensor, y: t.Tensor) -> None:
            x.add_(y)

        log = []
        x = t.tensor([0.5, 1.0], requires_grad=requires_grad)
        buffer = t.zeros(2)
        seed = t.ones(())  # made outside the mode: only the custom ops and backward are logged
        with logging_mode(t, log):
            y = numpy_sin(x)
            bump(buffer, y.detach())
            if requires_grad and with_autograd:
                y.sum().backward(seed)
        return [(name.replace(ns, "NS"), args, kwargs) for name, args, kwargs in log], buffer

    ours, theirs = run_both(program, "mode")
    assert ours[0] == theirs[0]
    assert_same(ours[1], theirs[1])


def _wrapper_subclass(t, log):
    tree_map = (torch.utils._pytree if t is torch else torchpy.utils._pytree).tree_map

    class Wrapper(t.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = t.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, device=elem.device,
                                                requires_grad=elem.requires_grad)
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            log.append(str(func))
            unwrap = lambda x: x.elem if isinstance(x, Wrapper) else x  # noqa: E731
            out = func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))
            return tree_map(lambda x: Wrapper(x) if isinstance(x, t.Tensor) else x, out)

    return Wrapper


def test_torch_dispatch_subclass_sees_the_op():
    def program(t, ns):
        log = []
        wrapper = _wrapper_subclass(t, log)

        @t.library.custom_op(f"{ns}::combine", mutates_args=())
        def combine(x: t.Tensor, ys: list[t.Tensor], n: int) -> t.Tensor:
            return x * n + ys[0]

        a = wrapper(t.tensor([1.0, 2.0]))
        out = combine(a, [a, a], 3)
        return type(out).__name__, out.elem, [entry.replace(ns, "NS") for entry in log]

    ours, theirs = run_both(program, "subclass")
    assert_same(ours, theirs)


def test_register_torch_dispatch_rules_for_a_mode_and_a_subclass():
    def program(t, ns):
        numpy_sin = _numpy_sin(t, ns)
        log = []
        wrapper = _wrapper_subclass(t, log)
        calls = []
        dispatch = torch.utils._python_dispatch if t is torch else torchpy.utils._python_dispatch

        class Mode(dispatch.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                calls.append(("mode", str(func).replace(ns, "NS")))
                return func(*args, **(kwargs or {}))

        @numpy_sin.register_torch_dispatch(Mode)
        def _(mode, func, types, args, kwargs):
            calls.append(("rule", type(mode).__name__, str(func).replace(ns, "NS")))
            return args[0] * 0 + 5

        @t.library.register_torch_dispatch(f"{ns}::numpy_sin", wrapper)
        def _(cls, func, types, args, kwargs):
            calls.append(("subclass rule", cls.__name__))
            return wrapper(args[0].elem * 0 - 1)

        x = t.tensor([1.0, 2.0])
        with Mode():
            moded = numpy_sin(x)
            other = x + 1
        wrapped = numpy_sin(wrapper(x))
        return moded, other, wrapped.elem, calls, log

    ours, theirs = run_both(program, "dispatch_rule")
    assert_same(ours, theirs)


# --- meta tensors and fake impls ------------------------------------------------------------------

def test_fake_impl_serves_meta_tensors():
    def program(t, ns):
        @t.library.custom_op(f"{ns}::linear", mutates_args=())
        def linear(x: t.Tensor, weight: t.Tensor, bias: t.Tensor) -> t.Tensor:
            return (x @ weight.t()) + bias

        @linear.register_fake
        def _(x, weight, bias):
            return x.new_empty(x.size(0), weight.size(0))

        @t.library.custom_op(f"{ns}::bump", mutates_args={"x"})
        def bump(x: t.Tensor) -> None:
            x.add_(1)

        meta = lambda *shape: t.empty(*shape, device="meta")  # noqa: E731
        out = linear(meta(4, 3), meta(5, 3), meta(5))
        x = t.ones(2)
        values = linear(x.view(1, 2), t.ones(3, 2), t.zeros(3))
        return tuple(out.shape), str(out.device), out.dtype == t.float32, bump(meta(3)), values

    ours, theirs = run_both(program, "fake")
    assert_same(ours, theirs)


def test_free_register_fake_and_get_ctx_error_on_meta():
    def program(t, ns):
        _numpy_sin(t, ns)

        @t.library.register_fake(f"{ns}::numpy_sin")
        def _(x):
            t.library.get_ctx()
            return t.empty_like(x)

        getattr(t.ops, ns).numpy_sin(t.empty(2, device="meta"))

    message, _ = both_raise(program, "get_ctx")
    assert "You're trying to run this operator with meta Tensors" in message


def test_missing_fake_impl_error():
    both_raise(lambda t, ns: _numpy_sin(t, ns)(t.empty(2, device="meta")), "no_fake")


def test_register_fake_on_a_library_defined_op():
    def program(t, ns):
        lib = t.library.Library(ns, "FRAGMENT")
        lib.define("scale(Tensor x, int n) -> Tensor")
        lib.impl("scale", lambda x, n: x * n, "CPU")
        t.library.register_fake(f"{ns}::scale", lambda x, n: t.empty_like(x), lib=lib)
        op = getattr(t.ops, ns).scale.default
        results = op(t.tensor([1.0, 2.0]), 3), tuple(op(t.empty(4, device="meta"), 2).shape)
        lib._destroy()
        return results

    ours, theirs = run_both(program, "fake_library")
    assert_same(ours, theirs)


# --- autograd -----------------------------------------------------------------------------------

def test_register_autograd_gradients_equal_torch():
    def program(t, ns):
        numpy_sin = _numpy_sin(t, ns)
        _sin_backward(numpy_sin)
        x = t.tensor([0.1, 0.5, 2.0], requires_grad=True)
        y = numpy_sin(x)
        (grad,) = t.autograd.grad(y, x, t.ones_like(y))
        z = numpy_sin(x * 2).sum() * 3
        z.backward()
        with t.no_grad():
            untracked = numpy_sin(x)
        return y, grad, x.grad, type(y.grad_fn).__name__.replace(ns, "NS"), untracked.requires_grad, \
            untracked.grad_fn is None

    ours, theirs = run_both(program, "autograd")
    assert_same(ours, theirs)


def test_autograd_with_kwarg_only_defaults_and_non_tensor_inputs():
    def program(t, ns):
        @t.library.custom_op(f"{ns}::scaled", mutates_args=())
        def scaled(x: t.Tensor, y: t.Tensor, n: int = 2, *, val: float = 1.5) -> t.Tensor:
            return x * y * n * val

        seen = []

        def setup_context(ctx, inputs, keyword_only_inputs, output):
            x, y, n = inputs
            seen.append((n, dict(keyword_only_inputs), tuple(output.shape)))
            ctx.save_for_backward(x, y)
            ctx.factor = n * keyword_only_inputs["val"]

        def backward(ctx, grad):
            x, y = ctx.saved_tensors
            seen.append(tuple(ctx.needs_input_grad))
            gx = grad * y * ctx.factor if ctx.needs_input_grad[0] else None
            gy = grad * x * ctx.factor if ctx.needs_input_grad[1] else None
            return gx, gy, None

        t.library.register_autograd(f"{ns}::scaled", backward, setup_context=setup_context)
        x = t.tensor([1.0, 2.0], requires_grad=True)
        y = t.tensor([3.0, 4.0])
        scaled(x, y).sum().backward()
        scaled(x, y, 3, val=-1.0).sum().backward()
        return x.grad, y.grad, seen

    ours, theirs = run_both(program, "kwarg_autograd")
    assert_same(ours, theirs)


def test_autograd_with_tensor_lists_and_several_outputs():
    def program(t, ns):
        @t.library.custom_op(f"{ns}::mix", mutates_args=())
        def mix(xs: list[t.Tensor], w: t.Tensor) -> tuple[t.Tensor, t.Tensor]:
            return xs[0] * w + xs[1], xs[1] * 2

        def setup_context(ctx, inputs, output):
            xs, w = inputs
            ctx.save_for_backward(xs[0], w)

        def backward(ctx, g0, g1):
            x0, w = ctx.saved_tensors
            needs = ctx.needs_input_grad
            return [g0 * w, g0 + g1 * 2], (g0 * x0 if needs[1] else None)

        mix.register_autograd(backward, setup_context=setup_context)

        @t.library.custom_op(f"{ns}::split", mutates_args=())
        def split(x: t.Tensor) -> list[t.Tensor]:
            return [x * 2, x * 3]

        split.register_autograd(lambda ctx, grads: grads[0] * 2 + grads[1] * 3)
        a = t.tensor([1.0, 2.0], requires_grad=True)
        b = t.tensor([3.0, 4.0], requires_grad=True)
        w = t.tensor([0.5, -1.0], requires_grad=True)
        out0, out1 = mix([a, b], w)
        (out0.sum() + (out1 * out1).sum()).backward()
        parts = split(a)
        parts[1].sum().backward()
        return out0, out1, a.grad, b.grad, w.grad, parts, out0.grad_fn is out1.grad_fn

    ours, theirs = run_both(program, "lists_autograd")
    assert_same(ours, theirs)


def test_backward_without_register_autograd_fails_at_backward_as_torch():
    def program(t, ns):
        numpy_sin = _numpy_sin(t, ns)
        x = t.tensor([1.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # torch warns at no point: forward must not warn either
            y = numpy_sin(x)
        assert y.requires_grad and y.grad_fn is not None
        y.sum().backward()

    message, _ = both_raise(program, "no_autograd")
    assert message.startswith("Trying to backward through")


def test_wrong_number_of_gradients():
    def program(t, ns):
        @t.library.custom_op(f"{ns}::f", mutates_args=())
        def f(x: t.Tensor, y: t.Tensor) -> t.Tensor:
            return x * y

        f.register_autograd(lambda ctx, g: g)
        x = t.tensor([1.0], requires_grad=True)
        f(x, x).sum().backward()

    both_raise(program, "grad_count")


def test_wrong_gradient_structure_for_a_tensor_list():
    def program(t, ns):
        @t.library.custom_op(f"{ns}::f", mutates_args=())
        def f(xs: list[t.Tensor]) -> t.Tensor:
            return xs[0] + xs[1]

        f.register_autograd(lambda ctx, g: g)
        x = t.tensor([1.0], requires_grad=True)
        f([x, x]).sum().backward()

    message, _ = both_raise(program, "grad_structure")
    assert message.startswith("Expected the return from backward to be of the same structure as the inputs")


def test_register_autograd_on_a_library_defined_op():
    def program(t, ns):
        lib = t.library.Library(ns, "FRAGMENT")
        lib.define("cube(Tensor x) -> Tensor")
        lib.impl("cube", lambda x: x * x * x, "CompositeExplicitAutograd")

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x * x

        t.library.register_autograd(f"{ns}::cube", backward, setup_context=setup_context, lib=lib)
        x = t.tensor([1.0, -2.0], requires_grad=True)
        y = getattr(t.ops, ns).cube(x)
        y.sum().backward()
        result = y, x.grad, type(y.grad_fn).__name__.replace(ns, "NS")
        lib._destroy()
        return result

    ours, theirs = run_both(program, "library_autograd")
    assert_same(ours, theirs)


def test_register_autograd_on_a_mutating_op_is_an_error():
    def program(t, ns):
        @t.library.custom_op(f"{ns}::bump", mutates_args={"x"})
        def bump(x: t.Tensor) -> None:
            x.add_(1)

        bump.register_autograd(lambda ctx, g: g)

    both_raise(program, "mutating_autograd")


# --- errors -------------------------------------------------------------------------------------

def test_output_aliasing_an_input_is_an_error():
    def returns_input(t, ns):
        @t.library.custom_op(f"{ns}::same", mutates_args=())
        def same(x: t.Tensor) -> t.Tensor:
            return x

        same(t.ones(2))

    def returns_view(t, ns):
        @t.library.custom_op(f"{ns}::view", mutates_args=())
        def view(x: t.Tensor) -> t.Tensor:
            return x.view(-1)

        view(t.ones(2, 2))

    def outputs_alias_each_other(t, ns):
        @t.library.custom_op(f"{ns}::pair", mutates_args=())
        def pair(x: t.Tensor) -> tuple[t.Tensor, t.Tensor]:
            y = x + 1
            return y, y[0]

        pair(t.ones(2))

    for program in (returns_input, returns_view, outputs_alias_each_other):
        both_raise(program, "alias")


@pytest.mark.parametrize("case", ["kwarg_only_tensor", "bad_annotation", "missing_mutated_name",
                                  "schema_mismatch", "bad_device_type", "no_device_argument", "no_namespace",
                                  "missing_mutates_args"])
def test_definition_errors_equal_torch_and_leave_no_op_behind(case):
    ns = fresh_ns(case)

    def define(t):
        if case == "kwarg_only_tensor":
            def f(x: t.Tensor, *, y: t.Tensor) -> t.Tensor:
                return x + y
            return t.library.custom_op(f"{ns}::op", f, mutates_args=())
        if case == "bad_annotation":
            def f(x: t.Tensor, y: dict) -> t.Tensor:
                return x
            return t.library.custom_op(f"{ns}::op", f, mutates_args=())
        if case == "missing_mutated_name":
            def f(x: t.Tensor) -> t.Tensor:
                return x + 1
            return t.library.custom_op(f"{ns}::op", f, mutates_args=["y"])
        if case == "schema_mismatch":
            return t.library.custom_op(f"{ns}::op", lambda x: None, mutates_args=(),
                                       schema="(Tensor(a!) x) -> ()")
        if case == "bad_device_type":
            def f(x: t.Tensor) -> t.Tensor:
                return x + 1
            return t.library.custom_op(f"{ns}::op", f, mutates_args=(), device_types="nodevice")
        if case == "no_device_argument":
            def f(n: int) -> t.Tensor:
                return t.ones(n)
            return t.library.custom_op(f"{ns}::op", f, mutates_args=(), device_types="cpu")
        if case == "no_namespace":
            def f(x: t.Tensor) -> t.Tensor:
                return x + 1
            return t.library.custom_op(f"{ns}_op", f, mutates_args=())
        def f(x: t.Tensor) -> t.Tensor:
            return x + 1
        return t.library.custom_op(f"{ns}::op", f)

    messages = []
    for t in (torch, torchpy):
        with pytest.raises(Exception) as info:
            define(t)
        messages.append((type(info.value), normalize(str(info.value))))
    assert messages[1] == messages[0]
    # torch leaves the op defined when a check after the definition fails; torchpy never does
    assert "op" not in list(getattr(torchpy.ops, ns))
    assert all(not name.startswith(f"{ns}::") for name in torchpy._C._dispatch_get_all_op_names())


def test_kernel_receives_arguments_converted_as_torch_converts_them():
    def program(t, ns):
        seen = []

        @t.library.custom_op(f"{ns}::f", mutates_args=())
        def f(x: t.Tensor, s: list[int], num: t.types.Number, d: t.dtype = t.float32,
              dev: t.device = t.device("cpu"), o: Optional[t.Tensor] = None, fl: float = 2.0,
              ls: Optional[list[float]] = None) -> t.Tensor:
            seen.append((type(s).__name__, s, type(num).__name__, num, str(d), type(dev).__name__,
                         str(dev), o is None, type(fl).__name__, fl, ls))
            return x.to(d) * num

        x = t.ones(2)
        results = [f(x, (1, 2), 2), f(x, [3], 2.5, t.float64), f(x, [], True, d=t.float32, dev="cpu"),
                   f(x, [1], 1, fl=3, ls=[1, 2.5]), f(x, t.Size([4]), 1, fl=True)]
        return results, seen

    ours, theirs = run_both(program, "conversions")
    assert_same(ours, theirs)


def test_saved_tensors_are_version_checked_and_freed_as_torch():
    def program(t, ns, modify):
        @t.library.custom_op(f"{ns}::sq", mutates_args=())
        def sq(x: t.Tensor) -> t.Tensor:
            return x * x

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0], output)

        def backward(ctx, grad):
            x, _ = ctx.saved_tensors
            return 2 * grad * x

        sq.register_autograd(backward, setup_context=setup_context)
        x = t.tensor([1.0, 2.0], requires_grad=True) * 1
        y = sq(x)
        if modify:
            x.add_(1)
        y.sum().backward()
        y.sum().backward()

    both_raise(lambda t, ns: program(t, ns, True), "saved_modified")
    both_raise(lambda t, ns: program(t, ns, False), "saved_freed")


def test_double_backward_through_a_differentiable_backward():
    def program(t, ns):
        @t.library.custom_op(f"{ns}::cube", mutates_args=())
        def cube(x: t.Tensor) -> t.Tensor:
            return x * x * x

        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * grad * x * x

        cube.register_autograd(backward, setup_context=setup_context)
        x = t.tensor([1.0, -2.0], requires_grad=True)
        (g,) = t.autograd.grad(cube(x).sum(), x, create_graph=True)
        g.sum().backward()
        return g, x.grad

    ours, theirs = run_both(program, "double_backward")
    assert_same(ours, theirs)


def test_mutating_op_on_a_leaf_that_requires_grad_and_on_meta():
    def program(t, ns):
        @t.library.custom_op(f"{ns}::bump", mutates_args={"x"})
        def bump(x: t.Tensor, y: t.Tensor) -> None:
            x.add_(y)

        x = t.zeros(2, requires_grad=True)
        y = t.ones(2, requires_grad=True)
        meta = t.zeros(2, device="meta")
        return bump(x, y), x, x._version, x.grad_fn is None, bump(meta, meta), meta._version

    ours, theirs = run_both(program, "leaf_mutation")
    assert_same(ours, theirs)


def test_defining_over_a_library_defined_op_and_bad_schema_strings():
    ns = fresh_ns("duplicate")
    messages = []
    for t in (torch, torchpy):
        lib = t.library.Library(ns, "FRAGMENT")
        lib.define("f(Tensor x) -> Tensor")

        def f(x: t.Tensor) -> t.Tensor:
            return x + 1

        with pytest.raises(RuntimeError) as duplicate:
            t.library.custom_op(f"{ns}::f", f, mutates_args=())
        with pytest.raises(RuntimeError) as unparsable:  # torchpy's SchemaParseError is a RuntimeError
            t.library.custom_op(f"{ns}::g", lambda x: x, mutates_args=(), schema="(Tensor x -> Tensor")
        # the Library's definition is left as it was
        assert str(getattr(t.ops, ns).f.default._schema) == f"{ns}::f(Tensor x) -> Tensor"
        assert not t._C._dispatch_has_kernel_for_dispatch_key(f"{ns}::f", "CompositeExplicitAutograd")
        lib._destroy()
        duplicate_message = re.sub(r"registered at \S+", "<where>", str(duplicate.value))
        messages.append((duplicate_message, str(unparsable.value)))
    assert messages[1] == messages[0]


def test_get_ctx_outside_a_fake_impl_and_register_fake_without_override():
    assert torchpy.library.get_ctx() is None and torch.library.get_ctx() is None

    def program(t, ns):
        lib = t.library.Library(ns, "FRAGMENT")
        lib.define("f(Tensor x) -> Tensor")
        try:
            t.library.register_fake(f"{ns}::f", lambda x: t.empty_like(x), lib=lib)
            t.library.register_fake(f"{ns}::f", lambda x: t.empty_like(x), lib=lib, allow_override=False)
        finally:
            lib._destroy()

    message, _ = both_raise(program, "fake_override")
    assert message.startswith("register_fake(...): the operator")
