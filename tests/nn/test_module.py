"""nn.Module against torch.nn.Module: registration, naming, state_dict, errors, repr, conversions."""

import copy

import pytest
import torch

import torchpy
from tests.nn.helpers import check


def _net(lib):
    """Two linears, a shared submodule, buffers (one non-persistent), a None parameter."""
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)
            self.register_buffer("count", lib.zeros(1))
            self.register_buffer("scratch", lib.ones(2), persistent=False)
            self.register_parameter("gate", None)

        def forward(self, x):
            return self.fc(x)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Block()
            self.b = nn.Linear(3, 2, bias=False)
            self.shared = self.a  # the same module twice
            self.scale = nn.Parameter(lib.ones(1))
            self.add_module("empty", None)
            self.register_module("head", nn.Identity())

        def forward(self, x):
            return self.head(self.b(self.a(x)) * self.scale)

    lib.manual_seed(0)
    return Net()


@pytest.mark.parametrize("remove_duplicate", [True, False])
def test_named_members_names_and_order(remove_duplicate):
    def program(lib):
        m = _net(lib)
        return {
            "params": [n for n, _ in m.named_parameters(remove_duplicate=remove_duplicate)],
            "params_prefix": [n for n, _ in m.named_parameters(prefix="root")],
            "params_local": [n for n, _ in m.named_parameters(recurse=False)],
            "buffers": [n for n, _ in m.named_buffers(remove_duplicate=remove_duplicate)],
            "buffers_prefix": [n for n, _ in m.named_buffers(prefix="p", recurse=True)],
            "modules": [n for n, _ in m.named_modules(remove_duplicate=remove_duplicate)],
            "modules_prefix": [n for n, _ in m.named_modules(prefix="top")],
            "children": [n for n, _ in m.named_children()],
            "n_children": len(list(m.children())),
            "n_modules": len(list(m.modules())),
            "n_params": len(list(m.parameters())),
            "n_buffers": len(list(m.buffers())),
            "values": [p for p in m.parameters()],
        }

    check(program)


def test_state_dict_keys_values_metadata_and_keep_vars():
    def program(lib):
        m = _net(lib)
        sd = m.state_dict()
        kept = m.state_dict(keep_vars=True)
        pre = m.state_dict(prefix="model.")
        return {
            "type": type(sd).__name__,
            "keys": list(sd),
            "values": list(sd.values()),
            "prefixed": list(pre),
            "metadata": dict(sd._metadata),
            "detached": [v.requires_grad for v in sd.values()],
            "kept_is_param": [kept[k] is m.get_parameter(k) for k in ("b.weight", "scale")],
            "kept_requires_grad": [v.requires_grad for v in kept.values()],
        }

    check(program)


def test_load_state_dict_round_trip_and_incompatible_keys():
    def program(lib):
        src, dst = _net(lib), _net(lib)
        with lib.no_grad():
            for p in src.parameters():
                p.mul_(3)
        result = dst.load_state_dict(src.state_dict())
        sd = src.state_dict()
        del sd["b.weight"]
        sd["extra.key"] = lib.zeros(1)
        loose = dst.load_state_dict(sd, strict=False)
        return {
            "repr_ok": repr(result),
            "fields": (result.missing_keys, result.unexpected_keys),
            "loose": (loose.missing_keys, loose.unexpected_keys, type(loose).__name__),
            "loose_repr": repr(loose),
            "values": list(dst.state_dict().values()),
        }

    check(program)


@pytest.mark.parametrize("case", ["missing", "unexpected", "size", "all", "not_tensor", "not_mapping", "scalar"])
def test_load_state_dict_errors(case):
    def program(lib):
        m = _net(lib)
        sd = m.state_dict()
        if case in ("missing", "all"):
            del sd["a.fc.bias"]
            del sd["scale"]
        if case in ("unexpected", "all"):
            sd["a.fc.extra"] = lib.zeros(1)
            sd["nope"] = lib.zeros(1)
            sd["b.deeper.x"] = lib.zeros(1)
        if case in ("size", "all"):
            sd["b.weight"] = lib.zeros(3, 3)
        if case == "not_tensor":
            sd["scale"] = 1.5
        if case == "not_mapping":
            sd = [1, 2]
        if case == "scalar":  # a 1-element 1-d tensor loads into a 0-d parameter
            m.scale = lib.nn.Parameter(lib.tensor(2.0))
            sd["scale"] = lib.tensor([5.0])
            m.load_state_dict(sd)
            return m.scale
        before = [p.clone() for p in m.parameters()]
        try:
            m.load_state_dict(sd)
        except (RuntimeError, TypeError) as e:  # the error, and parameters left as they were
            return type(e).__name__, str(e).replace("torchpy.", "torch."), before, list(m.parameters())
        return "loaded", before, list(m.parameters())

    result = check(program)
    assert case == "scalar" or result[0] in ("RuntimeError", "TypeError")


def test_setattr_registration_and_errors():
    def program(lib):
        nn = lib.nn
        m = nn.Linear(2, 2)
        out = {}
        for name, value in [("weight", lib.zeros(2, 2)), ("weight", 3), ("bias", "x")]:
            try:
                setattr(m, name, value)
            except Exception as e:
                out[f"{name}={type(value).__name__}"] = (type(e).__name__, str(e))
        m.bias = None  # a parameter slot can be emptied
        out["bias_none"] = ("bias" in m._parameters, m.bias is None, [n for n, _ in m.named_parameters()])
        m.register_buffer("buf", lib.zeros(1))
        try:
            m.buf = 5
        except TypeError as e:
            out["buffer_bad"] = str(e)
        m.buf = lib.ones(2)  # a tensor assigned to a buffer name stays a buffer
        out["buf"] = [n for n, _ in m.named_buffers()]
        m.sub = nn.Identity()
        try:
            m.sub = 3
        except TypeError as e:
            out["module_bad"] = str(e)
        m.sub = nn.Parameter(lib.ones(1))  # a parameter replaces the submodule of that name
        out["sub"] = ([n for n, _ in m.named_parameters()], [n for n, _ in m.named_children()])
        m.plain = lib.ones(1)  # a plain tensor attribute is neither parameter nor buffer
        out["plain"] = ("plain" in m.__dict__, [n for n, _ in m.named_buffers()])
        del m.sub
        del m.buf
        del m.plain
        out["deleted"] = ([n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()], hasattr(m, "plain"))
        try:
            m.nothing
        except AttributeError as e:
            out["getattr"] = str(e)
        return out

    check(program)


@pytest.mark.parametrize("call", [
    lambda lib, m: m.register_parameter("a.b", None),
    lambda lib, m: m.register_parameter("", None),
    lambda lib, m: m.register_parameter(3, None),
    lambda lib, m: m.register_parameter("training", None),
    lambda lib, m: m.register_parameter("p", lib.ones(1)),
    lambda lib, m: m.register_parameter("p", lib.nn.Parameter(lib.ones(1)) * 2),
    lambda lib, m: m.register_buffer("a.b", None),
    lambda lib, m: m.register_buffer("", None),
    lambda lib, m: m.register_buffer(1, None),
    lambda lib, m: m.register_buffer("weight", None),
    lambda lib, m: m.register_buffer("b", [1.0]),
    lambda lib, m: m.add_module("a.b", None),
    lambda lib, m: m.add_module("", None),
    lambda lib, m: m.add_module(2, None),
    lambda lib, m: m.add_module("weight", lib.nn.Identity()),
    lambda lib, m: m.add_module("x", 5),
    lambda lib, m: m.get_submodule("nope"),
    lambda lib, m: m.get_submodule("weight"),
    lambda lib, m: m.get_parameter("nope"),
    lambda lib, m: m.get_parameter("in_features"),
    lambda lib, m: m.get_buffer("weight"),
    lambda lib, m: m.train("yes"),
    lambda lib, m: m.forward_missing(),
    lambda lib, m: lib.nn.Module()(lib.ones(1)),
    lambda lib, m: lib.nn.Module(3),
    lambda lib, m: lib.nn.Module(a=1),
    lambda lib, m: m.to(lib.int64),
])
def test_registration_errors(call):
    def program(lib):
        m = lib.nn.Linear(2, 2)
        before = (list(m._parameters), list(m._buffers), list(m._modules))
        try:
            call(lib, m)
        finally:
            assert (list(m._parameters), list(m._buffers), list(m._modules)) == before

    check(program, expect_error=Exception)  # each call raises; type and message must be torch's


def test_attribute_assignment_before_init():
    def program(lib):
        nn = lib.nn
        errors = []
        for value in (nn.Parameter(lib.ones(1)), nn.Identity()):
            class Early(nn.Module):
                def __init__(self, v):
                    self.x = v
                    super().__init__()
            try:
                Early(value)
            except AttributeError as e:
                errors.append(str(e))
        return errors

    check(program)


def test_get_submodule_parameter_buffer():
    def program(lib):
        m = _net(lib)
        return (m.get_submodule("a.fc") is m.a.fc, m.get_submodule("") is m,
                m.get_parameter("a.fc.weight") is m.a.fc.weight, m.get_buffer("a.count") is m.a.count)

    check(program)


def test_repr_nested_and_extra_repr():
    def program(lib):
        nn = lib.nn

        class WithExtra(nn.Module):
            def extra_repr(self):
                return "line one\nline two"

        class Deep(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = _net(lib)
                self.extra = WithExtra()
                self.lin = nn.Linear(1, 1)
                self.none = None
                self.add_module("missing", None)

        single = WithExtra()
        single.child = nn.Identity()
        return [repr(Deep()), repr(nn.Linear(2, 3, bias=False)), repr(nn.Identity()), repr(WithExtra()),
                repr(single), str(nn.Module())]

    check(program)


def test_dir_lists_members_and_hides_numeric_names():
    def program(lib):
        m = _net(lib)
        m.add_module("0", lib.nn.Identity())
        names = dir(m)
        return [n for n in ("a", "b", "scale", "shared", "head", "training", "forward") if n in names], "0" in names, names == sorted(names)

    check(program)


def test_train_eval_apply_requires_grad_zero_grad():
    def program(lib):
        m = _net(lib)
        out = {"default": [s.training for s in m.modules()]}
        out["eval_returns_self"] = m.eval() is m
        out["eval"] = [s.training for s in m.modules()]
        m.train()
        m.a.train(False)
        out["mixed"] = [s.training for s in m.modules()]
        seen = []
        out["apply_self"] = m.apply(lambda s: seen.append(type(s).__name__)) is m
        out["apply_order"] = seen
        m.requires_grad_(False)
        out["frozen"] = [p.requires_grad for p in m.parameters()]
        m.requires_grad_()
        m(lib.ones(2, 3)).sum().backward()
        out["grads"] = [p.grad for p in m.parameters()]
        m.zero_grad(set_to_none=False)
        out["zeroed"] = [p.grad for p in m.parameters()]
        m.zero_grad()
        out["none"] = [p.grad is None for p in m.parameters()]
        return out

    check(program)


def test_conversions_keep_parameter_objects():
    def program(lib):
        m = _net(lib)
        m(lib.ones(1, 3)).sum().backward()
        params = list(m.parameters())
        out = {}
        out["double_self"] = m.double() is m
        out["double"] = [(p is q, p.dtype, p.grad.dtype, type(p).__name__, p.requires_grad) for p, q in zip(m.parameters(), params)]
        out["buffers_double"] = [b.dtype for b in m.buffers()]
        m.register_buffer("steps", lib.zeros(2, dtype=lib.int64))
        m.half()
        out["half"] = [t.dtype for t in m.state_dict().values()]
        m.float()
        out["float"] = [t.dtype for t in m.state_dict().values()]
        m.to(lib.float64)
        out["to_dtype"] = [t.dtype for t in m.state_dict().values()]
        m.to("cpu", lib.float32)
        out["to_device_dtype"] = [t.dtype for t in m.state_dict().values()]
        m.to(dtype=lib.float64)
        m.to(lib.zeros(1, dtype=lib.float32))
        out["to_tensor"] = [t.dtype for t in m.state_dict().values()]
        out["cpu"] = m.cpu() is m
        m.type(lib.float64)
        out["type"] = [t.dtype for t in m.state_dict().values()]
        out["values"] = list(m.state_dict().values())
        return out

    check(program)


def test_deepcopy_module_and_parameters():
    def program(lib):
        m = _net(lib)
        c = copy.deepcopy(m)
        shared = c.a is c.shared
        with lib.no_grad():
            c.b.weight.add_(1)
        return shared, type(c.b.weight).__name__, c.b.weight.requires_grad, m.b.weight, c.b.weight

    check(program)


def test_forward_not_implemented_message():
    def program(lib):
        class NoForward(lib.nn.Module):
            pass
        return NoForward()(1)

    check(program, expect_error=Exception)


def test_module_outputs_match_torch_with_weights_from_torch():
    torch.manual_seed(1)
    tm = _net(torch)
    pm = _net(torchpy)
    pm.load_state_dict({k: torchpy.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = torch.randn(4, 3)
    expected = tm(x)
    actual = pm(torchpy.tensor(x.numpy()))
    torch.testing.assert_close(torch.tensor(actual.tolist()), expected.detach())


def test_extra_state_round_trip_and_missing_key():
    def program(lib):
        nn = lib.nn

        class WithState(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(1, 1)
                self.v = 3

            def get_extra_state(self):
                return {"v": self.v}

            def set_extra_state(self, state):
                self.v = state["v"]

        src, dst = WithState(), WithState()
        dst.v = 0
        sd = src.state_dict()
        out = [list(sd), sd["_extra_state"], repr(dst.load_state_dict(sd)), dst.v]
        del sd["_extra_state"]
        try:
            dst.load_state_dict(sd)
        except RuntimeError as e:
            out.append(str(e))
        sd["lin._extra_state"] = 1  # a module without extra state does not expect the key
        out.append(dst.load_state_dict(sd, strict=False))
        return out

    check(program)


def test_load_state_dict_assign_replaces_tensors():
    def program(lib):
        m = lib.nn.Linear(2, 2)
        m.requires_grad_(False)
        sd = {k: v.clone() + 1 for k, v in m.state_dict().items()}
        m.load_state_dict(sd, assign=True)
        return (m.weight is sd["weight"], type(m.weight).__name__, m.weight.requires_grad,
                [n for n, _ in m.named_parameters()], m.weight)

    check(program)


def test_pickle_round_trip():
    import pickle

    def program(lib):
        m = lib.nn.Module()  # pickle needs importable classes: nn's own, no local ones
        m.lin = lib.nn.Linear(2, 3)
        m.register_buffer("steps", lib.arange(3))
        m.lin.register_buffer("tmp", lib.ones(1), persistent=False)
        again = pickle.loads(pickle.dumps(m))
        p = pickle.loads(pickle.dumps(lib.nn.Parameter(lib.ones(2), requires_grad=False)))
        return (list(again.state_dict().items()), type(p).__name__, p.requires_grad, repr(again),
                [type(t).__name__ for t in again.parameters()], again.lin.tmp)

    check(program)


def test_shared_submodules_and_parameters():
    def program(lib):
        nn = lib.nn
        lin = nn.Linear(2, 2)
        top = nn.Module()
        top.a = lin
        top.b = lin
        top.tied = lin.weight
        return ([n for n, _ in top.named_modules()], [n for n, _ in top.named_modules(remove_duplicate=False)],
                [n for n, _ in top.named_parameters()], [n for n, _ in top.named_parameters(remove_duplicate=False)],
                list(top.state_dict()), [n for n, _ in top.named_children()])

    check(program)


@pytest.mark.parametrize("args,kwargs", [
    ((), {"foo": 1}), (("cpu",), {"foo": 1}), ((), {"foo": 1, "bar": 2.0}), (("cpu", 3), {}),
    (("cpu", None, False, False, 1), {}),
])
def test_to_argument_errors(args, kwargs):
    def program(lib):
        lib.nn.Linear(2, 2).to(*args, **kwargs)

    check(program, expect_error=Exception)


def test_to_complex_warns():
    import warnings

    def program(lib):
        m = lib.nn.Linear(2, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m.to(lib.complex64)
        return [str(w.message) for w in caught], m.weight.dtype, m.bias.dtype

    check(program)


def test_state_dict_hooks():
    def program(lib):
        nn = lib.nn
        log = []
        m = _net(lib)
        m.a.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("pre", prefix, keep_vars)))
        m.register_state_dict_post_hook(lambda mod, sd, prefix, meta: log.append(("post", prefix, list(sd), meta)))
        sd = m.state_dict(keep_vars=True)
        bad = nn.Linear(1, 1)
        bad.register_state_dict_post_hook(lambda mod, sd, prefix, meta: {})
        try:
            bad.state_dict()
        except RuntimeError as e:
            log.append(str(e))
        return log, list(sd)

    check(program)


def test_load_state_dict_hooks():
    def program(lib):
        nn = lib.nn
        log = []
        m = _net(lib)

        def pre(mod, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
            log.append(("pre", type(mod).__name__, prefix, sorted(state_dict), local_metadata, strict))

        def post(mod, keys):
            log.append(("post", type(mod).__name__, list(keys.missing_keys), list(keys.unexpected_keys)))
            keys.unexpected_keys.clear()  # hooks may forgive keys in place

        m.a.register_load_state_dict_pre_hook(pre)
        m.register_load_state_dict_post_hook(post)
        sd = m.state_dict()
        sd["surplus"] = lib.zeros(1)
        result = m.load_state_dict(sd)
        bad = nn.Linear(1, 1)
        bad.register_load_state_dict_post_hook(lambda mod, keys: keys)
        try:
            bad.load_state_dict(bad.state_dict())
        except AssertionError as e:
            log.append(str(e))
        return log, repr(result)

    check(program)


@pytest.mark.parametrize("target,strict", [
    ("a.fc", False), ("a.new", False), ("a.new", True), ("top", False), ("", False), ("a.fc.weight", False),
    ("a.count", False), ("nope.x", False), ("a.fc", "not a module"),
])
def test_set_submodule(target, strict):
    def program(lib):
        m = _net(lib)
        replacement = lib.nn.Identity() if strict != "not a module" else 3
        m.set_submodule(target, replacement, strict=bool(strict is True))
        return [n for n, _ in m.named_modules()], repr(m)

    succeeds = (target, strict) in {("a.fc", False), ("a.new", False), ("top", False)}
    check(program, expect_error=None if succeeds else Exception)


def test_private_state_dict_hook_forms():
    def program(lib):
        log = []
        m = _net(lib)
        # the old post-hook form may return a replacement dict (respected for the root module)
        m._register_state_dict_hook(lambda mod, sd, prefix, meta: {"only": lib.ones(1)})
        m.a._register_load_state_dict_pre_hook(lambda sd, prefix, *rest: log.append(("no module", prefix)))
        out = [list(m.state_dict())]
        m.load_state_dict(_net(lib).state_dict())

        def public(mod, sd, prefix, meta):
            return None

        m.register_state_dict_post_hook(public)
        try:
            m._register_state_dict_hook(public)
        except RuntimeError as e:
            out.append(str(e))
        return out, log

    check(program)


def test_meta_device_and_to_empty():
    def program(lib):
        m = _net(lib)
        m(lib.ones(1, 3)).sum().backward()
        params = list(m.parameters())
        m.to("meta")
        on_meta = [(t.device.type, tuple(t.shape), t.dtype) for t in m.state_dict().values()]
        on_meta.append([(type(p).__name__, p.requires_grad, p.grad.device.type, p.grad.requires_grad)
                        for p in m.parameters()])
        same_objects = all(p is q for p, q in zip(params, m.parameters()))
        m.to_empty(device="cpu")
        back = [(t.device.type, tuple(t.shape)) for t in m.state_dict().values()]
        m.a.to_empty(device="meta", recurse=False)
        partial = [t.device.type for t in m.state_dict().values()]
        return on_meta, same_objects, back, partial, repr(m)

    check(program)
