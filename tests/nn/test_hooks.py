"""Module forward hooks, full backward hooks and the global module hooks, against torch."""

import warnings

import pytest

from tests.nn.helpers import check


def _shape(v):
    return tuple(v.shape) if hasattr(v, "shape") else v


def _describe(args):
    return tuple(_shape(a) if a is not None else None for a in args)


def test_forward_pre_hooks_order_prepend_kwargs_and_replacing_args():
    def program(lib):
        nn = lib.nn
        log = []

        class Scale(nn.Module):
            def forward(self, x, factor=1.0, *, shift=0.0):
                log.append(("forward", factor, shift))
                return x * factor + shift

        m = Scale()
        m.register_forward_pre_hook(lambda mod, args: log.append(("first", _describe(args))))
        m.register_forward_pre_hook(lambda mod, args: log.append(("prepended", _describe(args))), prepend=True)
        # a non-tuple return becomes the single positional argument
        m.register_forward_pre_hook(lambda mod, args: args[0] + 1)
        m.register_forward_pre_hook(lambda mod, args, kwargs: (args + (2.0,), {**kwargs, "shift": 10.0}),
                                    with_kwargs=True)
        out = m(lib.ones(2), shift=1.0)
        return log, out

    check(program)


def test_forward_hooks_order_kwargs_and_replacing_output():
    def program(lib):
        nn = lib.nn
        log = []
        m = nn.Linear(2, 2)
        h1 = m.register_forward_hook(lambda mod, args, out: log.append(("first", _describe(args), _shape(out))))
        m.register_forward_hook(lambda mod, args, out: log.append("prepended"), prepend=True)
        m.register_forward_hook(lambda mod, args, kwargs, out: (log.append(("kw", sorted(kwargs))), out * 0)[1],
                                with_kwargs=True)
        m.register_forward_hook(lambda mod, args, out: log.append(("sees", out)))
        out1 = m(lib.ones(3, 2))
        h1.remove()
        h1.remove()  # removing twice is harmless
        out2 = m(input=lib.ones(1, 2))
        return log, out1, out2

    check(program)


def test_forward_pre_hook_bad_return_with_kwargs():
    def program(lib):
        m = lib.nn.Identity()
        m.register_forward_pre_hook(lambda mod, args, kwargs: 5, with_kwargs=True)
        return m(lib.ones(1))

    check(program, expect_error=RuntimeError)


def test_always_call_hooks_run_when_forward_raises():
    def program(lib):
        nn = lib.nn
        log = []

        class Boom(nn.Module):
            def forward(self, x):
                raise ValueError("boom")

        m = Boom()
        m.register_forward_hook(lambda mod, args, out: log.append(("always", out)), always_call=True)
        m.register_forward_hook(lambda mod, args, out: log.append("normal"))
        m.register_forward_hook(lambda mod, args, kwargs, out: log.append(("always_kw", kwargs)), always_call=True,
                                with_kwargs=True)
        try:
            m(lib.ones(1), )
        except ValueError as e:
            log.append(str(e))
        return log

    check(program)


def test_global_hooks_run_before_module_hooks_and_can_be_removed():
    def program(lib):
        nn = lib.nn
        mm = lib.nn.modules.module
        log = []
        model = nn.Module()
        model.fc = nn.Linear(2, 2)
        model.forward = lambda x: model.fc(x)
        model.fc.register_forward_pre_hook(lambda mod, args: log.append(("local pre", type(mod).__name__)))
        model.fc.register_forward_hook(lambda mod, args, out: log.append(("local fwd", type(mod).__name__)))
        handles = [
            mm.register_module_forward_pre_hook(lambda mod, args: log.append(("global pre", type(mod).__name__))),
            mm.register_module_forward_hook(lambda mod, args, out: log.append(("global fwd", type(mod).__name__))),
            mm.register_module_forward_hook(lambda mod, args, kwargs, out: log.append(("global kw", kwargs)),
                                            with_kwargs=True),
            mm.register_module_full_backward_pre_hook(
                lambda mod, go: log.append(("global bpre", type(mod).__name__, go))),
            mm.register_module_full_backward_hook(
                lambda mod, gi, go: log.append(("global bwd", type(mod).__name__, gi, go))),
        ]
        try:
            x = lib.ones(1, 2, requires_grad=True)
            model(x).sum().backward()
        finally:
            for h in handles:
                h.remove()
        model(lib.ones(1, 2))  # no global hooks any more
        return log

    check(program)


def test_full_backward_hooks_grad_input_and_grad_output_values():
    def program(lib):
        nn = lib.nn
        log = []

        class Mix(nn.Module):
            def forward(self, a, k, b, c):
                return a * b * k, (a + c).sin()

        m = Mix()
        m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", go)))
        m.register_full_backward_hook(lambda mod, gi, go: log.append(("post", gi, go)))
        lib.manual_seed(0)
        a = lib.randn(3, requires_grad=True)
        b = lib.randn(3)  # needs no grad: its slot in grad_input is None
        c = lib.randn(3, requires_grad=True)
        out1, out2 = m(a, 2.0, b, c)
        (out1.sum() * 3 + (out2 * out2).sum()).backward()
        return log, a.grad, c.grad

    check(program)


def test_backward_hooks_can_replace_gradients():
    def program(lib):
        nn = lib.nn
        m = nn.Linear(3, 2)
        lib.manual_seed(2)
        m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 10,))
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0] + 1,))
        seen = []
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)), prepend=False)
        x = lib.randn(4, 3, requires_grad=True)
        m(x).sum().backward()
        return seen, x.grad, m.weight.grad

    check(program)


def test_backward_hooks_order_across_nested_modules():
    def program(lib):
        nn = lib.nn
        log = []
        model = nn.Module()
        model.l1 = nn.Linear(2, 2)
        model.l2 = nn.Linear(2, 2)
        model.forward = lambda x: model.l2(model.l1(x).tanh())
        for name in ("l1", "l2"):
            sub = getattr(model, name)
            sub.register_full_backward_pre_hook(lambda mod, go, name=name: log.append(("pre", name)))
            sub.register_full_backward_hook(lambda mod, gi, go, name=name: log.append(("post", name)))
        model(lib.ones(1, 2, requires_grad=True)).sum().backward()
        return log

    check(program)


def test_backward_hook_wrong_number_of_gradients():
    def program(lib):
        m = lib.nn.Linear(2, 2)
        m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
        m(lib.ones(1, 2, requires_grad=True)).sum().backward()

    check(program, expect_error=RuntimeError)


def test_backward_pre_hook_wrong_number_of_gradients():
    def program(lib):
        m = lib.nn.Linear(2, 2)
        m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
        m(lib.ones(1, 2, requires_grad=True)).sum().backward()

    check(program, expect_error=RuntimeError)


def test_backward_hook_when_no_input_requires_grad_warns_and_sees_none():
    def program(lib):
        m = lib.nn.Linear(2, 2)
        log = []
        m.register_full_backward_hook(lambda mod, gi, go: log.append((gi, go)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m(lib.ones(1, 2)).sum().backward()
        return log, [str(w.message) for w in caught], m.weight.grad

    check(program)


def test_no_backward_hook_machinery_without_grad():
    def program(lib):
        m = lib.nn.Linear(2, 2)
        log = []
        m.register_full_backward_hook(lambda mod, gi, go: log.append(1))
        with lib.no_grad():
            out = m(lib.ones(1, 2, requires_grad=True))
        return out.grad_fn is None, log

    check(program)


@pytest.mark.parametrize("kind", ["pre", "fwd", "bwd"])
def test_hook_handles_as_context_managers(kind):
    def program(lib):
        m = lib.nn.Linear(2, 2)
        log = []
        register = {
            "pre": lambda: m.register_forward_pre_hook(lambda *a: log.append("pre")),
            "fwd": lambda: m.register_forward_hook(lambda *a: log.append("fwd"), with_kwargs=True, always_call=True),
            "bwd": lambda: m.register_full_backward_hook(lambda *a: log.append("bwd")),
        }[kind]
        with register():
            m(lib.ones(1, 2, requires_grad=True)).sum().backward()
        m(lib.ones(1, 2, requires_grad=True)).sum().backward()
        return log, len(m._forward_hooks_with_kwargs), len(m._forward_hooks_always_called)

    check(program)


def test_per_module_op_counting_with_global_hooks_and_a_dispatch_mode():
    """What a FlopCounterMode-style tool does: global hooks keep a module stack, a dispatch
    mode attributes each aten call to the modules on it."""

    def program(lib):
        from collections import Counter
        from importlib import import_module

        dispatch = import_module(lib.__name__ + ".utils._python_dispatch")
        mm = lib.nn.modules.module
        nn = lib.nn
        stack, counts = [], Counter()

        class Count(dispatch.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                for name in stack or ["<top>"]:
                    counts[(name, str(func))] += 1
                return func(*args, **(kwargs or {}))

        model = nn.Module()
        model.l1 = nn.Linear(3, 4)
        model.l2 = nn.Linear(4, 2)
        model.forward = lambda x: model.l2(model.l1(x).relu())
        names = {id(m): n or "root" for n, m in model.named_modules()}
        handles = [
            mm.register_module_forward_pre_hook(lambda mod, args: stack.append(names[id(mod)])),
            mm.register_module_forward_hook(lambda mod, args, out: stack.pop() and None, always_call=True),
        ]
        try:
            with Count():
                model(lib.ones(5, 3))
        finally:
            for h in handles:
                h.remove()
        return sorted(counts.items()), stack

    check(program)


def _run_non_full(lib, module, *inputs):
    log = []
    module.register_backward_hook(lambda mod, gi, go: log.append((type(mod).__name__, gi, go)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = module(*inputs)
        (out[0] if isinstance(out, tuple) else out).sum().backward()
    return log, [(w.category.__name__, str(w.message)) for w in caught]


def test_non_full_backward_hook_sees_the_last_nodes_gradients():
    def program(lib):
        lib.manual_seed(0)
        x = lib.randn(2, 3, requires_grad=True)
        return _run_non_full(lib, lib.nn.Linear(3, 2), x)

    check(program)


@pytest.mark.parametrize("case", ["elementwise", "two_nodes", "tuple_out", "kwargs_in"])
def test_non_full_backward_hook_warnings(case):
    def program(lib):
        nn = lib.nn
        x = lib.ones(2, requires_grad=True)
        y = lib.full((2,), 3.0, requires_grad=True)
        m = nn.Module()
        if case == "elementwise":
            m.forward = lambda a, b: a * b
            return _run_non_full(lib, m, x, y)
        if case == "two_nodes":
            m.forward = lambda a, b: (a * b).exp()
            return _run_non_full(lib, m, x, y)
        if case == "tuple_out":
            m.forward = lambda a, b: (a * b, a + b)
            return _run_non_full(lib, m, x, y)
        m.forward = lambda a, scale=2.0: a * scale
        return _run_non_full(lib, m, x, 2.0)

    check(program)


def test_full_and_non_full_hooks_do_not_mix():
    def program(lib):
        errors = []
        m = lib.nn.Linear(1, 1)
        m.register_backward_hook(lambda *a: None)
        try:
            m.register_full_backward_hook(lambda *a: None)
        except RuntimeError as e:
            errors.append(str(e))
        n = lib.nn.Linear(1, 1)
        n.register_full_backward_hook(lambda *a: None)
        try:
            n.register_backward_hook(lambda *a: None)
        except RuntimeError as e:
            errors.append(str(e))
        return errors

    check(program)


def test_global_non_full_backward_hook():
    def program(lib):
        mm = lib.nn.modules.module
        log = []
        mm._global_is_full_backward_hook = None  # an earlier test's global full hook leaves the mode set
        handle = mm.register_module_backward_hook(lambda mod, gi, go: log.append((type(mod).__name__, gi, go)))
        try:
            m = lib.nn.Linear(2, 1)  # kept alive: torch's non-full hook holds the module weakly
            m(lib.ones(1, 2, requires_grad=True)).sum().backward()
            try:
                mm.register_module_full_backward_hook(lambda *a: None)
            except RuntimeError as e:
                log.append(str(e))
        finally:
            handle.remove()
            mm._global_is_full_backward_hook = None  # both libraries keep the mode after removal
        return log

    check(program)
