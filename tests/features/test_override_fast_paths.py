"""The short paths for subclasses and modes (issue 5) against torch on the same programs:
a subclass keeping Tensor's default __torch_function__ (run inline), a TorchFunctionMode
over plain tensors (dispatch_to_mode), and the Python key's per-signature plans."""

import pytest
import torch
import torch.overrides
import torch.utils._python_dispatch
import torch.utils._pytree

import torchpy
import torchpy.overrides
import torchpy.utils._python_dispatch
import torchpy.utils._pytree
from torchpy._dispatch import tls

LIBS = (torch, torchpy)


def _names(types):
    return tuple(t.__name__ for t in types)


def _type_name(value):
    return type(value).__name__


# --- a subclass with Tensor's default __torch_function__ ----------------------------------


PROGRAMS = {
    "x + 1": lambda lib, x, p: x + 1,
    "1 + x": lambda lib, x, p: 1 + x,
    "x + p": lambda lib, x, p: x + p,
    "p + x": lambda lib, x, p: p + x,
    "x * x": lambda lib, x, p: x * x,
    "x - 2.5": lambda lib, x, p: x - 2.5,
    "x == 1": lambda lib, x, p: x == 1,
    "x / p": lambda lib, x, p: x / p,
    "x ** 2": lambda lib, x, p: x ** 2,
    "-x": lambda lib, x, p: -x,
    "add(x, p)": lambda lib, x, p: lib.add(x, p),
    "add(p, x)": lambda lib, x, p: lib.add(p, x),
    "x.mul(2)": lambda lib, x, p: x.mul(2),
    "abs(x)": lambda lib, x, p: lib.abs(x),
    "x.neg()": lambda lib, x, p: x.neg(),
    "mul(x, x)": lambda lib, x, p: lib.mul(x, x),
    "x.add(p)": lambda lib, x, p: x.add(p),
    "p.sub(x)": lambda lib, x, p: p.sub(x),
    "x.eq(p)": lambda lib, x, p: x.eq(p),
    "x.sum()": lambda lib, x, p: x.sum(),
    "x.max(0)": lambda lib, x, p: tuple(x.max(0)),
    "x.chunk(2)": lambda lib, x, p: x.chunk(2),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_default_torch_function_gives_results_the_subclass(name):
    seen = []
    for lib in LIBS:
        Sub = type("Sub", (lib.Tensor,), {})
        x = lib.tensor([1.0, 2.0, 3.0, 4.0]).as_subclass(Sub)
        p = lib.tensor([4.0, 3.0, 2.0, 1.0])
        out = PROGRAMS[name](lib, x, p)
        values = out if isinstance(out, tuple) else (out,)
        seen.append([(_type_name(v), v.tolist()) for v in values])
    assert seen[0] == seen[1]


def test_in_place_dunder_keeps_the_object_and_its_class():
    for lib in LIBS:
        Sub = type("Sub", (lib.Tensor,), {})
        x = lib.tensor([1.0, 2.0]).as_subclass(Sub)
        y = x
        x += 1
        assert x is y and type(x) is Sub and x.tolist() == [2.0, 3.0]


def test_reassigning_torch_function_after_first_use_takes_effect():
    logs = []
    for lib in LIBS:
        Sub = type("Sub", (lib.Tensor,), {})
        x = lib.tensor([1.0, 2.0]).as_subclass(Sub)
        log = [_type_name(x + 1), _type_name(lib.add(x, 1))]  # the default, inline

        def handler(cls, func, types, args=(), kwargs=None):
            log.append((func.__name__, _names(types), kwargs))
            return "custom"

        Sub.__torch_function__ = classmethod(handler)
        log += [x + 1, lib.add(x, 1), lib.add(x, x, alpha=2)]
        Sub.__torch_function__ = lib._C._disabled_torch_function_impl  # opt out: plain results
        log += [_type_name(x + 1), _type_name(lib.add(x, 1))]
        del Sub.__torch_function__  # back to the inherited default
        log += [_type_name(x + 1), _type_name(x.abs())]
        logs.append(log)
    assert logs[0] == logs[1]


def test_a_torch_function_that_is_no_bound_method_is_called_not_run_inline():
    logs = []
    for lib in LIBS:
        log = []

        def handler(func, types, args=(), kwargs=None):
            log.append((func.__name__, _names(types)))
            return "static"

        Sub = type("Sub", (lib.Tensor,), {"__torch_function__": staticmethod(handler)})
        x = lib.tensor([1.0, 2.0]).as_subclass(Sub)
        log += [x + x, x * 2, lib.add(x, x), x.add(x)]
        logs.append(log)
    assert logs[0] == logs[1]


def test_torch_function_bound_to_tensor_is_not_the_subclass_default():
    results = []
    for lib in LIBS:
        # the classmethod bound to Tensor: its results are converted to Tensor, i.e. not at all
        Sub = type("Sub", (lib.Tensor,), {"__torch_function__": lib.Tensor.__torch_function__})
        x = lib.tensor([1.0, 2.0]).as_subclass(Sub)
        result = []
        for program in (lambda: lib.add(x, 1), lambda: x.abs()):
            try:
                result.append(_type_name(program()))
            except TypeError as error:
                result.append(str(error).split(";")[0])
        with pytest.raises(TypeError):  # (torch: unsupported operand; torchpy: dispatch failed)
            x + 1
        results.append(result)
    assert results[0] == results[1]


def test_two_unrelated_subclasses_with_the_default():
    outcomes = []
    for lib in LIBS:
        A = type("A", (lib.Tensor,), {})
        B = type("B", (lib.Tensor,), {})
        a = lib.tensor([1.0]).as_subclass(A)
        b = lib.tensor([2.0]).as_subclass(B)
        outcome = []
        for program in (lambda: lib.add(a, b), lambda: a.mul(b)):
            try:
                outcome.append(_type_name(program()))
            except TypeError as error:
                outcome.append(str(error))
        with pytest.raises(TypeError):  # (torch: unsupported operand; torchpy: dispatch failed)
            a + b
        outcomes.append(outcome)
    assert outcomes[0] == outcomes[1]


def test_subclass_and_its_subclass_take_the_most_derived_class():
    results = []
    for lib in LIBS:
        A = type("A", (lib.Tensor,), {})
        B = type("B", (A,), {})
        a = lib.tensor([1.0]).as_subclass(A)
        b = lib.tensor([2.0]).as_subclass(B)
        results.append([_type_name(a + b), _type_name(b + a), _type_name(lib.mul(a, b))])
    assert results[0] == results[1]


def test_no_wrap_functions_and_disabled_subclass_handling_are_respected():
    results = []
    for lib in LIBS:
        Sub = type("Sub", (lib.Tensor,), {})
        x = lib.tensor([1.0, 2.0]).as_subclass(Sub)
        nowrap = lib.overrides.get_default_nowrap_functions()
        nowrap.add(lib.Tensor.add)
        try:
            unwrapped = [_type_name(x + 1), _type_name(x.add(1)), _type_name(x * 2)]
        finally:
            nowrap.discard(lib.Tensor.add)
        with lib._C.DisableTorchFunctionSubclass():
            disabled = [_type_name(x + 1), _type_name(lib.add(x, 1))]
        results.append((unwrapped, disabled, _type_name(x + 1)))
    assert results[0] == results[1]


def test_an_error_inside_the_default_path_restores_subclass_handling():
    results = []
    for lib in LIBS:
        Sub = type("Sub", (lib.Tensor,), {})
        x = lib.tensor([1.0, 2.0]).as_subclass(Sub)
        with pytest.raises(RuntimeError):
            x + lib.ones(3)  # a shape mismatch, raised with subclass handling off
        results.append(_type_name(x + 1))
    assert results == ["Sub", "Sub"]


# --- TorchFunctionMode over plain tensors -------------------------------------------------


def test_function_mode_sees_func_types_and_kwargs_as_torch():
    logs = []
    for lib in LIBS:
        log = []

        class Logging(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                log.append((func.__name__, _names(types), len(args), kwargs,
                            lib.overrides._get_current_function_mode() is None))
                return func(*args, **(kwargs or {}))

        a, b = lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])
        with Logging():
            lib.add(a, b)
            lib.add(a, 2)
            a.mul(b)
            lib.exp(a)
            lib.clamp(a, 0.0, 1.5)
            a + b
        logs.append(log)
    assert logs[0] == logs[1]


def test_function_mode_declining_raises_torchs_error():
    messages = []
    for lib in LIBS:
        class Declines(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                return NotImplemented

        class Sub(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

        a = lib.tensor([1.0, 2.0])
        s = a.as_subclass(Sub)
        mode = Declines()
        with mode:
            for program in (lambda: lib.add(a, a), lambda: a.add(a), lambda: lib.add(s, a)):
                with pytest.raises(TypeError) as info:
                    program()
                messages.append(str(info.value).replace(repr(mode), "<mode>").replace(repr(Sub), "<Sub>"))
            assert lib.overrides._get_current_function_mode() is mode
    assert messages[:3] == messages[3:]


def test_function_mode_error_leaves_the_stack_as_it_was():
    for lib in LIBS:
        class Raises(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                raise ValueError("from the handler")

        a = lib.tensor([1.0, 2.0])
        mode = Raises()
        with mode:
            with pytest.raises(ValueError):
                lib.add(a, a)
            assert lib.overrides._get_current_function_mode() is mode
        assert lib.overrides._get_current_function_mode() is None
        assert lib.add(a, a).tolist() == [2.0, 4.0]


# --- the Python key: modes and wrapper subclasses -----------------------------------------


def _wrapper_class(lib, log):
    pytree = lib.utils._pytree

    class Wrapper(lib.Tensor):
        @staticmethod
        def __new__(cls, elem):
            r = lib.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, device=elem.device)
            r.elem = elem
            return r

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            log.append((str(func), _names(types), [_type_name(a) for a in args], kwargs))
            unwrap = lambda x: x.elem if isinstance(x, Wrapper) else x  # noqa: E731
            wrap = lambda x: Wrapper(x) if isinstance(x, lib.Tensor) else x  # noqa: E731
            out = func(*pytree.tree_map(unwrap, args), **pytree.tree_map(unwrap, kwargs or {}))
            return pytree.tree_map(wrap, out)

    return Wrapper


def test_wrapper_subclass_handlers_see_torchs_types_and_arguments():
    logs = []
    for lib in LIBS:
        log = []
        Wrapper = _wrapper_class(lib, log)
        x, p = lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])
        w = Wrapper(x)
        results = [w + w, w + p, p + w, w + 2, 2 * w, lib.add(w, p, alpha=2), lib.stack([w, p])]
        log.append([(_type_name(r), r.elem.tolist()) for r in results])
        logs.append(log)
    assert logs[0] == logs[1]


def test_wrapper_subclass_declining_raises_torchs_error_and_restores_tls():
    messages = []
    for lib in LIBS:
        class Declines(lib.Tensor):
            @staticmethod
            def __new__(cls, elem):
                return lib.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, device=elem.device)

            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

        d = Declines(lib.tensor([1.0, 2.0]))
        before = (tls.local.included, tls.local.excluded, tls.local.salt)
        with pytest.raises(TypeError) as info:
            lib.add(d, d)
        if lib is torchpy:
            assert (tls.local.included, tls.local.excluded, tls.local.salt) == before
        messages.append(str(info.value).split(";")[0].replace("torchpy", "torch"))
    assert messages[0] == messages[1]


def test_dispatch_mode_sees_types_and_numbers_and_restores_tls_after_an_error():
    logs = []
    for lib in LIBS:
        log = []

        class Logging(lib.utils._python_dispatch.TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                log.append((str(func), _names(types), [a if isinstance(a, (int, float)) else _type_name(a)
                                                       for a in args], kwargs))
                if func is lib.ops.aten.mul.Tensor:
                    raise ValueError("from the handler")
                return func(*args, **(kwargs or {}))

        a = lib.tensor([1.0, 2.0])
        Wrapper = _wrapper_class(lib, log)
        w = Wrapper(lib.tensor([3.0, 4.0]))
        before = (tls.local.included, tls.local.excluded, tls.local.salt)
        with Logging():
            a + a
            a + 2
            w + a
            lib.add(a, a, alpha=3)
            with pytest.raises(ValueError):
                a * a
            a - a
        if lib is torchpy:
            assert (tls.local.included, tls.local.excluded, tls.local.salt) == before
        log.append((a + a).tolist())
        logs.append(log)
    assert logs[0] == logs[1]


def test_wrapper_storage_is_made_on_demand_and_kept():
    Wrapper = _wrapper_class(torchpy, [])
    w = Wrapper(torchpy.tensor([1.0, 2.0]))
    assert w._storage is None
    storage = w.untyped_storage()
    assert storage is w.untyped_storage() and storage.data_ptr() == 0 and storage.device == w.device
