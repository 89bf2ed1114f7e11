"""The operator registry and the call path, checked against PyTorch 2.13's dispatcher."""

import itertools
import random
import threading
import warnings

import pytest
import torch

import torchpy
from torchpy._dispatch import dispatcher as dispatcher_module
from torchpy._dispatch import keys as K
from torchpy._dispatch import tls
from torchpy._dispatch.dispatcher import dispatcher
from torchpy._dispatch.keys import DispatchKey, DispatchKeySet

from .helpers import FakeTensor, cpu_tensor, fresh_namespace, table_labels

MAIN_KEYS = ["CPU", "Autograd", "CompositeImplicitAutograd", "CompositeExplicitAutograd"]
EXTRA_KEYS = ["Meta", "SparseCPU", "AutogradCPU", "AutogradOther", "QuantizedCPU",
              "CompositeExplicitAutogradNonFunctional", "FuncTorchBatchedDecomposition",
              "CompositeImplicitAutogradNestedTensor", "NestedTensorCPU", "AutogradNestedTensor"]


def _kernel(x):
    return x


def _table(library, keys, prefix):
    """{key: label} after registering `keys` in order, or ("error", message) if one is refused."""
    ns = fresh_namespace(prefix)
    lib = library.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    try:
        for key in keys:
            lib.impl("f", _kernel, key)
        return table_labels(library._C._dispatch_dump_table(f"{ns}::f"))
    except RuntimeError as error:
        return ("error", str(error))
    finally:
        lib._destroy()


def torch_table(keys):
    return _table(torch, keys, "tpyref")


def torchpy_table(keys):
    return _table(torchpy, keys, "tpytest")


def _subsets(keys):
    for r in range(1, len(keys) + 1):
        yield from itertools.combinations(keys, r)


@pytest.mark.parametrize("subset", list(_subsets(MAIN_KEYS)), ids="+".join)
def test_table_matches_torch_for_every_registration_order(subset):
    expected = torch_table(subset)
    for order in itertools.permutations(subset):
        assert torchpy_table(order) == expected, order


def test_table_matches_torch_with_more_keys_in_random_orders():
    rng = random.Random(1)
    for _ in range(150):
        keys = rng.sample(MAIN_KEYS + EXTRA_KEYS, rng.randint(1, 5))
        assert torchpy_table(keys) == torch_table(keys), keys


def test_ambiguous_autogradother_as_torch():
    keys = ["SparseCPU", "CompositeImplicitAutograd"]
    assert torchpy_table(keys)["AutogradOther"] == "ambiguous autogradother"
    assert torchpy_table(keys) == torch_table(keys)


def test_dump_lines_say_where_each_kernel_was_registered():
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", _kernel, "CPU")
    lib.impl("f", torchpy.library.fallthrough_kernel, "AutogradCPU")
    dump = torchpy._C._dispatch_dump_table(f"{ns}::f")
    assert f"CPU: registered at {__file__}:" in dump
    assert f"AutogradCPU: fallthrough registered at {__file__}:" in dump
    assert "BackendSelect: fallthrough registered at" in dump and "[backend fallback]" in dump
    lib._destroy()


# --- kernel stacks, removal, override warning ----------------------------------------------


def test_newest_kernel_wins_and_removal_restores_previous(monkeypatch):
    monkeypatch.setattr(dispatcher_module, "_override_warned", False)
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: "first", "CPU")
    second = torchpy.library.Library(ns, "IMPL", "CPU")
    with pytest.warns(UserWarning, match="Overriding a previously registered kernel") as record:
        second.impl("f", lambda x: "second")
    message = str(record[0].message)
    assert message.startswith("Warning only once for all operators")
    assert f"operator: {ns}::f(Tensor x) -> Tensor" in message and "dispatch key: CPU" in message
    op = getattr(torchpy.ops, ns).f.default
    assert op(cpu_tensor()) == "second"
    second._destroy()
    assert op(cpu_tensor()) == "first"
    # the warning is given once per process, as PyTorch's TORCH_WARN_ONCE
    third = torchpy.library.Library(ns, "IMPL", "CPU")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        third.impl("f", lambda x: "third")
    third._destroy()
    lib._destroy()


def test_removing_an_older_kernel_keeps_the_newest_active():
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    older = torchpy.library.Library(ns, "IMPL", "CPU")
    older.impl("f", lambda x: "older")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        newer = torchpy.library.Library(ns, "IMPL", "CPU")
        newer.impl("f", lambda x: "newer")
    older._destroy()
    assert getattr(torchpy.ops, ns).f.default(cpu_tensor()) == "newer"
    newer._destroy()
    lib._destroy()


# --- failed registrations leave no trace ----------------------------------------------------


def _snapshot():
    return (
        {name: (entry.dump_table(), entry.dump_registrations()) for name, entry in dispatcher.entries.items()},
        list(dispatcher.fallbacks),
    )


def test_failed_registrations_leave_every_table_unchanged():
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", _kernel, "CPU")
    before = _snapshot()
    impl_lib = torchpy.library.Library(ns, "IMPL", "CPU")
    global_lib = torchpy.library.Library("_", "IMPL")
    failures = [
        (RuntimeError, lambda: lib.define("f(Tensor x) -> Tensor")),
        (RuntimeError, lambda: lib.define("g(Tensor x -> Tensor")),
        (RuntimeError, lambda: lib.define("other::g(Tensor x) -> Tensor")),
        (RuntimeError, lambda: impl_lib.define("g(Tensor x) -> Tensor")),
        (RuntimeError, lambda: torchpy.library.Library(ns, "DEF")),
        (ValueError, lambda: torchpy.library.Library(ns, "BAD")),
        (TypeError, lambda: lib.impl("f", 3, "CPU")),
        (ValueError, lambda: lib.impl("f", _kernel, "Bogus")),
        (RuntimeError, lambda: impl_lib.impl("f", _kernel, "CUDA")),
        (RuntimeError, lambda: lib.impl("other::f", _kernel, "CPU")),
        (RuntimeError, lambda: lib.fallback(_kernel, "CPU")),
        (RuntimeError, lambda: global_lib.fallback(_kernel, "BackendSelect")),  # already a fallthrough
        (RuntimeError, lambda: lib.impl("f", _kernel, "CPU", allow_override=False)),
    ]
    for exc_type, attempt in failures:
        with pytest.raises(exc_type):
            attempt()
        assert _snapshot() == before
    impl_lib._destroy()
    global_lib._destroy()
    assert _snapshot() == before
    lib._destroy()


def test_destroy_removes_every_registration_and_the_namespace_can_be_reused():
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.define("f.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)")
    lib.impl("f", _kernel, "CPU")
    assert getattr(torchpy.ops, ns).f.overloads() == ["default", "out"]
    lib._destroy()
    assert not any(name.startswith(ns + "::") for name in dispatcher.entries)
    with pytest.raises(AttributeError):
        getattr(getattr(torchpy.ops, ns), "f")
    again = torchpy.library.Library(ns, "DEF")  # the DEF slot for the namespace is free again
    again.define("f(Tensor x) -> Tensor")
    again._destroy()


def test_garbage_collected_library_unregisters():
    import gc

    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    del lib
    gc.collect()
    assert f"{ns}::f" not in dispatcher.entries


# --- calling: fallthrough, keysets, fallbacks, redispatch, errors ------------------------------


@pytest.fixture
def op_f():
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("f(Tensor x, int y=2, *, int z=3) -> Tensor")
    yield lib, getattr(torchpy.ops, ns).f.default
    lib._destroy()


def test_fallthrough_kernel_skips_its_key(op_f):
    lib, op = op_f
    lib.impl("f", lambda x, y=2, z=3: ("cpu", y, z), "CPU")
    lib.impl("f", lambda x, y=2, z=3: "autograd", "AutogradCPU")
    assert op(cpu_tensor()) == "autograd"
    lib2 = torchpy.library.Library(lib.ns, "FRAGMENT")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib2.impl("f", torchpy.library.fallthrough_kernel, "AutogradCPU")
    assert op(cpu_tensor(), 5, z=6) == ("cpu", 5, 6)
    lib2._destroy()
    assert op(cpu_tensor()) == "autograd"


def test_with_keyset_kernel_gets_the_same_keyset_as_torch(op_f):
    lib, op = op_f
    seen = {}

    def autograd_kernel(keyset, x, y=2, z=3):
        seen["keyset"] = keyset
        return op.redispatch(keyset & torchpy._C._after_autograd_keyset, x, y, z=z)

    lib.impl("f", lambda x, y=2, z=3: ("cpu", y, z), "CPU")
    lib.impl("f", autograd_kernel, "AutogradCPU", with_keyset=True)
    assert op(cpu_tensor(), 7) == ("cpu", 7, 3)

    tns = fresh_namespace("tpyref")
    tlib = torch.library.Library(tns, "DEF")
    tlib.define("f(Tensor x, int y=2, *, int z=3) -> Tensor")
    tseen = {}

    def torch_autograd_kernel(keyset, x, y=2, z=3):
        tseen["keyset"] = keyset
        return x

    tlib.impl("f", lambda x, y=2, z=3: x, "CPU")
    tlib.impl("f", torch_autograd_kernel, "AutogradCPU", with_keyset=True)
    getattr(torch.ops, tns).f(torch.ones(1), 7)
    tlib._destroy()
    assert repr(seen["keyset"]) == repr(tseen["keyset"]) == "DispatchKeySet(CPU, AutogradCPU)"
    assert (torchpy._C._after_autograd_keyset.raw_repr()
            == torch._C._after_autograd_keyset.raw_repr())


def test_boxed_fallbacks_receive_op_keyset_and_normalized_args(op_f):
    lib, op = op_f
    lib.impl("f", lambda x, y=2, z=3: "cpu", "CPU")
    calls = []
    global_lib = torchpy.library.Library("_", "IMPL")

    def fallback(keyset, fop, *args, **kwargs):
        calls.append((keyset, fop, args, kwargs))
        return "fallback"

    global_lib.fallback(fallback, "PrivateUse3", with_keyset=True)
    global_lib.fallback(torchpy.library.fallthrough_kernel, "AutogradPrivateUse3")
    x = cpu_tensor()
    with torchpy._C._IncludeDispatchKeyGuard(DispatchKey.PrivateUse3):
        assert op(x, 5, z=4) == "fallback"
        assert op(x, 2, z=3) == "fallback"
    global_lib._destroy()
    assert op(x) == "cpu"
    # PyTorch 2.13 gives (DispatchKeySet(CPU, PrivateUse3), op, x, 5) {'z': 4}, then (…, x) {}
    assert [(repr(k), o, a, kw) for k, o, a, kw in calls] == [
        ("DispatchKeySet(CPU, PrivateUse3)", op, (x, 5), {"z": 4}),
        ("DispatchKeySet(CPU, PrivateUse3)", op, (x,), {}),
    ]


def test_plain_fallback_receives_op_first(op_f):
    lib, op = op_f
    global_lib = torchpy.library.Library("_", "IMPL")
    global_lib.fallback(lambda fop, *args, **kwargs: (fop, args, kwargs), "PrivateUse2")
    x = FakeTensor(DispatchKey.PrivateUse2)
    assert op(x, 4) == (op, (x, 4), {})
    global_lib._destroy()


def test_tls_excluded_keys_are_skipped(op_f):
    lib, op = op_f
    lib.impl("f", lambda x, y=2, z=3: "cpu", "CPU")
    lib.impl("f", lambda x, y=2, z=3: "autograd", "Autograd")
    assert op(cpu_tensor()) == "autograd"
    with torchpy._C._ExcludeDispatchKeyGuard(DispatchKeySet(DispatchKey.AutogradCPU)):
        assert op(cpu_tensor()) == "cpu"
    assert op(cpu_tensor()) == "autograd"


def test_redispatch_masks_the_current_key_and_above(op_f):
    lib, op = op_f
    order = []
    for key in ["CPU", "ADInplaceOrView", "AutogradCPU", "Python"]:
        def kernel(keyset, x, y=2, z=3, _key=key):
            order.append(_key)
            if _key == "CPU":
                return order
            after = DispatchKeySet.from_raw_repr(K.full_after(DispatchKey[_key]))
            return op.redispatch(keyset & after, x, y, z=z)
        lib.impl("f", kernel, key, with_keyset=True)
    x = FakeTensor(DispatchKey.CPU, DispatchKey.AutogradCPU, DispatchKey.Python)
    assert op(x) == ["AutogradCPU", "ADInplaceOrView", "Python", "CPU"]  # priority order


def test_per_backend_fallthrough_only_affects_that_backend(op_f):
    lib, op = op_f
    lib.impl("f", lambda x, y=2, z=3: "dense", "CompositeExplicitAutograd")
    lib.impl("f", lambda x, y=2, z=3: "autograd", "Autograd")
    lib.impl("f", torchpy.library.fallthrough_kernel, "AutogradMeta")
    assert op(FakeTensor(DispatchKey.Meta, DispatchKey.AutogradMeta)) == "dense"
    assert op(cpu_tensor()) == "autograd"


def _torch_error(schema, impl_key, make_args):
    ns = fresh_namespace("tpyref")
    lib = torch.library.Library(ns, "DEF")
    lib.define(schema)
    if impl_key:
        lib.impl("g", _kernel, impl_key)
    try:
        getattr(torch.ops, ns).g(*make_args())
    except NotImplementedError as error:
        return ns, str(error)
    finally:
        lib._destroy()
    raise AssertionError("torch did not raise")


def _first_part(message, marker):
    return message.split(marker)[0]


def test_missing_kernel_error_as_torch():
    tns, theirs = _torch_error("g(Tensor x) -> Tensor", "", lambda: (torch.ones(1),))
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("g(Tensor x) -> Tensor")
    with pytest.raises(NotImplementedError) as info:
        getattr(torchpy.ops, ns).g(FakeTensor(DispatchKey.CPU))
    ours = str(info.value)
    marker = "is only available for these backends: ["
    assert _first_part(ours, marker).replace(ns, "NS") == _first_part(theirs, marker).replace(tns, "NS")
    assert marker in ours and "BackendSelect" in ours.split(marker)[1]
    lib._destroy()


def test_no_tensor_arguments_error_as_torch():
    tns, theirs = _torch_error("g(int x) -> Tensor", "CPU", lambda: (1,))
    ns = fresh_namespace()
    lib = torchpy.library.Library(ns, "DEF")
    lib.define("g(int x) -> Tensor")
    lib.impl("g", _kernel, "CPU")
    with pytest.raises(NotImplementedError) as info:
        getattr(torchpy.ops, ns).g(1)
    marker = "Available functions are ["
    ours = str(info.value)
    assert _first_part(ours, marker).replace(ns, "NS") == _first_part(theirs, marker).replace(tns, "NS")
    assert ours.split(marker)[1].startswith("CPU, BackendSelect")
    lib._destroy()


def test_error_in_a_kernel_leaves_tls_as_it_was(op_f):
    lib, op = op_f

    def failing(keyset, x, y=2, z=3):
        with torchpy._C._ExcludeDispatchKeyGuard(DispatchKeySet(DispatchKey.AutogradCPU)):
            raise ValueError("boom")

    lib.impl("f", failing, "AutogradCPU", with_keyset=True)
    before = (tls.local.included, tls.local.excluded)
    with pytest.raises(ValueError):
        op(cpu_tensor())
    assert (tls.local.included, tls.local.excluded) == before


def test_registration_from_many_threads_is_consistent(op_f):
    lib, op = op_f
    lib.impl("f", lambda x, y=2, z=3: "cpu", "CPU")
    errors = []

    def worker(i):
        try:
            sub = torchpy.library.Library(lib.ns, "FRAGMENT")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sub.impl("f", lambda x, y=2, z=3: i, "AutogradCPU")
            op(cpu_tensor())
            sub._destroy()
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert op(cpu_tensor()) == "cpu"


def test_a_specializing_fallback_runs_its_per_operator_function(op_f):
    """Kernel.specialize(op) is asked once per resolved key set and its function is what runs;
    the entry's table still shows the registration."""
    lib, op = op_f
    lib.impl("f", lambda x, y=2, z=3: "cpu", "CPU")
    asked = []

    def generic(fop, ks, args, kwargs):
        return "generic"

    def specialize(fop):
        asked.append(fop)
        return lambda fop, ks, args, kwargs: ("special", fop, args, kwargs)

    kernel = dispatcher_module.Kernel(generic, dispatcher_module.RAW, "registered here", specialize=specialize)
    handle = dispatcher.register_fallback(DispatchKey.PrivateUse3, kernel)
    global_lib = torchpy.library.Library("_", "IMPL")
    global_lib.fallback(torchpy.library.fallthrough_kernel, "AutogradPrivateUse3")
    try:
        x = cpu_tensor()
        with torchpy._C._IncludeDispatchKeyGuard(DispatchKey.PrivateUse3):
            assert op(x, 5, z=4) == ("special", op, (x, 5), {"z": 4})
            assert op(x) == ("special", op, (x,), {})
        assert asked == [op]
        assert "PrivateUse3: registered here [backend fallback]" in torchpy._C._dispatch_dump_table(op.name())
    finally:
        handle.remove()
        global_lib._destroy()
    assert op(cpu_tensor()) == "cpu"


def test_a_fallback_recomputes_only_its_slots_and_leaves_every_table_as_a_full_recompute_would():
    def tables():
        return {name: (list(entry.table), list(entry.labels)) for name, entry in dispatcher.entries.items()}

    def full_recompute():
        for entry in dispatcher.entries.values():
            entry.recompute(dispatcher.fallbacks)

    before = tables()
    kernel = dispatcher_module.Kernel(lambda op, ks, args, kwargs: "fallback", dispatcher_module.RAW, "here")
    handle = dispatcher.register_fallback(DispatchKey.PrivateUse3, kernel)
    try:
        registered = tables()
        assert registered != before
        full_recompute()
        assert tables() == registered
    finally:
        handle.remove()
    assert tables() == before
    full_recompute()
    assert tables() == before
