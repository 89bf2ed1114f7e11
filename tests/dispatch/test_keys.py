"""Dispatch keys and key sets against PyTorch 2.13's own."""

import itertools
import random
import threading

import pytest
import torch

from torchpy._C import _ExcludeDispatchKeyGuard, _IncludeDispatchKeyGuard
from torchpy._dispatch import keys as K
from torchpy._dispatch import tls
from torchpy._dispatch.keys import DispatchKey, DispatchKeySet

TDK = torch._C.DispatchKey
EXPOSED = [name for name in TDK.__members__]
RUNTIME_EXPOSED = [
    n for n in EXPOSED
    if K.is_runtime_key(DispatchKey[n]) and n != "Undefined"
]


def torch_set(names):
    ks = torch._C.DispatchKeySet(TDK.Undefined)
    for n in names:
        ks = ks | torch._C.DispatchKeySet(TDK.__members__[n])
    return ks


def ours(names):
    return DispatchKeySet([DispatchKey[n] for n in names])


@pytest.mark.parametrize("name", EXPOSED)
def test_key_values_and_bits_match_torch(name):
    key = DispatchKey[name]
    assert key.value == TDK.__members__[name].value
    if not K.is_alias_key(key):
        assert DispatchKeySet(key).raw_repr() == torch._C.DispatchKeySet(TDK.__members__[name]).raw_repr()


def test_key_str_like_torch():
    assert str(DispatchKey.CPU) == str(TDK.CPU) == "DispatchKey.CPU"


def test_repr_and_iteration_order_match_torch():
    full = torch._C._dispatch_keyset_full()
    assert repr(DispatchKeySet.from_raw_repr(full.raw_repr())) == repr(full)
    cpu = torch._C._dispatch_keys(torch.randn(2))
    assert repr(DispatchKeySet.from_raw_repr(cpu.raw_repr())) == repr(cpu)
    assert repr(DispatchKeySet()) == "DispatchKeySet()"
    # a bare per-backend functionality has no runtime key to show, as in PyTorch
    assert repr(DispatchKeySet(DispatchKey.Dense)) == repr(torch._C.DispatchKeySet(TDK.Dense))


def test_set_algebra_and_highest_key_match_torch():
    rng = random.Random(0)
    for _ in range(300):
        a = rng.sample(RUNTIME_EXPOSED, rng.randint(0, 6))
        b = rng.sample(RUNTIME_EXPOSED, rng.randint(0, 6))
        ta, tb, oa, ob = torch_set(a), torch_set(b), ours(a), ours(b)
        assert (oa | ob).raw_repr() == (ta | tb).raw_repr()
        assert (oa & ob).raw_repr() == (ta & tb).raw_repr()
        assert (oa - ob).raw_repr() == (ta - tb).raw_repr()
        assert repr(oa | ob) == repr(ta | tb)
        if a:
            assert oa.highest_priority_type_id().name == ta.highestPriorityTypeId().name
        for n in b:
            assert oa.has(DispatchKey[n]) == ta.has(TDK.__members__[n])


def test_highest_key_of_empty_set_is_undefined():
    assert DispatchKeySet().highest_priority_type_id() == DispatchKey.Undefined


def test_key_set_is_immutable_and_hashable():
    ks = DispatchKeySet(DispatchKey.CPU)
    with pytest.raises(AttributeError):
        ks._raw = 0
    assert ks.add(DispatchKey.AutogradCPU) == ours(["CPU", "AutogradCPU"])
    assert ks == DispatchKeySet(DispatchKey.CPU)  # add returned a new set
    assert len({ks, DispatchKeySet(DispatchKey.CPU)}) == 1


ALIASES = ["Autograd", "CompositeImplicitAutograd", "CompositeExplicitAutograd",
           "CompositeExplicitAutogradNonFunctional", "CompositeImplicitAutogradNestedTensor",
           "FuncTorchBatchedDecomposition"]


@pytest.mark.parametrize("alias", ALIASES)
def test_alias_coverage_matches_torch(alias):
    for name in RUNTIME_EXPOSED:
        expected = torch._C._dispatch_is_included_in_alias(TDK.__members__[name], TDK.__members__[alias])
        assert K.is_included_in_alias(DispatchKey[name], DispatchKey[alias]) == expected, name


def test_backend_keys_for_autograd_match_torch():
    for name in RUNTIME_EXPOSED:
        if not name.startswith("Autograd"):
            continue
        theirs = torch._C._dispatch_get_backend_keyset_from_autograd(TDK.__members__[name])
        mine = DispatchKeySet([DispatchKey(k) for k in K.backend_keys_for_autograd(DispatchKey[name])])
        assert repr(mine) == repr(theirs), name


def test_full_after_matches_torch():
    for name in ["AutogradCPU", "Python", "ADInplaceOrView", "Functionalize", "AutocastCPU"]:
        theirs = torch._C._dispatch_keyset_full_after(TDK.__members__[name])
        assert K.full_after(DispatchKey[name]) == theirs.raw_repr(), name


def test_tls_defaults_match_torch():
    assert tls.local_include_set().raw_repr() == torch._C._dispatch_tls_local_include_set().raw_repr()
    assert tls.local_exclude_set().raw_repr() == torch._C._dispatch_tls_local_exclude_set().raw_repr()


def test_guards_restore_on_exception_and_only_undo_their_own_keys():
    before = (tls.local.included, tls.local.excluded)
    with pytest.raises(ValueError):
        with _IncludeDispatchKeyGuard(DispatchKey.Python), _ExcludeDispatchKeyGuard(
            ours(["AutogradCPU", "ADInplaceOrView"])
        ):
            assert tls.is_key_included(DispatchKey.Python)
            assert tls.is_key_excluded(DispatchKey.AutogradCPU)
            raise ValueError
    assert (tls.local.included, tls.local.excluded) == before
    # BackendSelect is already included: the guard must not remove it on exit
    with _IncludeDispatchKeyGuard(DispatchKey.BackendSelect):
        pass
    assert tls.is_key_included(DispatchKey.BackendSelect)


def test_tls_is_per_thread():
    seen = {}

    def worker():
        seen["before"] = tls.is_key_included(DispatchKey.Python)
        tls.set_key_included(DispatchKey.Python, True)
        seen["after"] = tls.is_key_included(DispatchKey.Python)

    with _IncludeDispatchKeyGuard(DispatchKey.Functionalize):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not tls.is_key_included(DispatchKey.Python)
        assert tls.is_key_included(DispatchKey.Functionalize)
    assert seen == {"before": False, "after": True}


def test_runtime_key_count_and_iteration_cover_every_slot_once():
    slots = list(K.iter_runtime_keys(K.FULL_KEYSET_BITS))
    assert len(slots) == len(set(slots)) == len(K.RUNTIME_KEYS) - 1  # all but Undefined
    for a, b in itertools.pairwise(slots):
        assert K.functionality_of(a) <= K.functionality_of(b)


def test_a_fresh_threads_tls_dict_holds_its_salt():
    # Hot paths (autograd's recording, ADInplaceOrView, the Python key) read and write the salt
    # through the thread's dict; a new thread must start with it there, at the default state.
    seen = {}

    def worker():
        seen["dict"] = dict(tls.local.__dict__)
        seen["sets"] = (tls.local.included, tls.local.excluded)

    with _IncludeDispatchKeyGuard(DispatchKey.Functionalize):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    default = tls.state_sets(tls._DEFAULT_SALT)
    assert seen["sets"] == default
    # the mode stacks and switches kept on the same object start fresh in the new thread too
    assert seen["dict"] == {"salt": tls._DEFAULT_SALT, "modes": [], "subclasses_enabled": True, "enabled": True,
                            "dispatch_modes": []}


def test_thread_state_refuses_a_name_twice():
    with pytest.raises(RuntimeError, match="already defined"):
        tls.thread_state(modes=list)
    with pytest.raises(RuntimeError, match="already defined"):
        tls.thread_state(salt=int)


def test_recording_and_modes_in_a_fresh_thread_restore_its_tls():
    import torchpy
    from torchpy.utils._python_dispatch import TorchDispatchMode

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.setdefault("ops", []).append(str(func))
            return func(*args, **(kwargs or {}))

    seen = {}

    def worker():
        x = torchpy.ones(3, requires_grad=True)
        with Log():
            y = (x * 2).sum()  # recorded, under a mode: autograd and the Python key switch TLS
        y.backward()
        z = torchpy.ones(3)
        z.add_(1)  # ADInplaceOrView switches it too
        seen["grad"] = x.grad.tolist()
        seen["salt"] = tls.local.salt

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == {"ops": ["aten.mul.Tensor", "aten.sum.default"], "grad": [2.0, 2.0, 2.0],
                    "salt": tls._DEFAULT_SALT}
