"""optim.SGD and the Optimizer base against torch.optim: training, state, errors, aten calls."""

import copy

import numpy as np
import pytest
import torch

import torchpy
from tests.nn.helpers import check
from tests.oracle import assert_values, scaled


def _mlp(lib):
    nn = lib.nn

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 8)
            self.fc2 = nn.Linear(8, 3)

        def forward(self, x):
            return self.fc2(self.fc1(x).relu())

    return MLP()


CONFIGS = [
    dict(lr=0.1),
    dict(lr=0.05, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.3),
    dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.01),
    dict(lr=0.02, weight_decay=0.1, maximize=True),
    dict(lr=0.05, momentum=0.5, foreach=False),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_training_an_mlp_matches_torch_step_by_step(config):
    torch.manual_seed(0)
    t_model = _mlp(torch)
    p_model = _mlp(torchpy)
    p_model.load_state_dict({k: torchpy.tensor(v.numpy()) for k, v in t_model.state_dict().items()})
    t_opt = torch.optim.SGD(t_model.parameters(), **config)
    p_opt = torchpy.optim.SGD(p_model.parameters(), **config)
    x = torch.randn(16, 4)
    target = torch.randn(16, 3)
    px, ptarget = torchpy.tensor(x.numpy()), torchpy.tensor(target.numpy())
    for step in range(5):
        t_opt.zero_grad()
        p_opt.zero_grad()
        t_loss = ((t_model(x) - target) ** 2).mean()
        p_loss = ((p_model(px) - ptarget) ** 2).mean()
        t_loss.backward()
        p_loss.backward()
        t_opt.step()
        p_opt.step()
        assert_values(p_loss.item(), t_loss.item(), scaled(rtol=1e-5), path=f"loss at step {step}")
        for (name, tp), pp in zip(t_model.named_parameters(), p_model.parameters()):
            assert_values(np.array(pp.tolist()), tp.detach().numpy(), scaled(rtol=1e-5, atol=1e-6),
                          path=f"{name} after step {step}")
            assert pp.grad is not None and type(pp).__name__ == "Parameter"


def test_closure_and_param_groups_with_own_options():
    def program(lib):
        model = _mlp(lib)
        opt = lib.optim.SGD([{"params": model.fc1.parameters()},
                             {"params": model.fc2.parameters(), "lr": 0.5, "momentum": 0.9}], lr=0.1)
        x = lib.ones(2, 4)

        def closure():
            opt.zero_grad()
            loss = model(x).sum()
            loss.backward()
            return loss

        losses = [opt.step(closure) for _ in range(3)]
        return losses, list(model.parameters()), [sorted(g) for g in opt.param_groups], repr(opt)

    check(program)


def test_state_dict_round_trip_continues_identically():
    def program(lib):
        model = _mlp(lib)
        opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
        x = lib.ones(3, 4)
        for _ in range(2):
            opt.zero_grad()
            model(x).pow(2).sum().backward()
            opt.step()
        sd = opt.state_dict()
        shape = {"keys": list(sd), "groups": sd["param_groups"], "state_keys": list(sd["state"]),
                 "buffers": [v["momentum_buffer"] for v in sd["state"].values()]}
        clone = copy.deepcopy(model)
        opt2 = lib.optim.SGD(clone.parameters(), lr=0.3)
        opt2.load_state_dict(sd)
        after_load = {"groups": [{k: v for k, v in g.items() if k != "params"} for g in opt2.param_groups],
                      "same_params": [p is q for p, q in zip(opt2.param_groups[0]["params"], clone.parameters())],
                      "buffer_copied": all(opt2.state[p]["momentum_buffer"] is not opt.state[q]["momentum_buffer"]
                                           for p, q in zip(clone.parameters(), model.parameters()))}
        for m, o in ((model, opt), (clone, opt2)):
            o.zero_grad()
            m(x).pow(2).sum().backward()
            o.step()
        return shape, after_load, list(model.parameters()), list(clone.parameters())

    check(program, policy=scaled(rtol=1e-4, atol=1e-5))


@pytest.mark.parametrize("call", [
    lambda lib, ps: lib.optim.SGD(ps, lr=-0.1),
    lambda lib, ps: lib.optim.SGD(ps, lr=0.1, momentum=-1),
    lambda lib, ps: lib.optim.SGD(ps, lr=0.1, weight_decay=-1e-3),
    lambda lib, ps: lib.optim.SGD(ps, lr=0.1, nesterov=True),
    lambda lib, ps: lib.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.1, nesterov=True),
    lambda lib, ps: lib.optim.SGD(ps, lr=lib.tensor([0.1, 0.2])),
    lambda lib, ps: lib.optim.SGD([], lr=0.1),
    lambda lib, ps: lib.optim.SGD(ps[0], lr=0.1),
    lambda lib, ps: lib.optim.SGD([{"params": set(ps)}], lr=0.1),
    lambda lib, ps: lib.optim.SGD([ps[0], 1.0], lr=0.1),
    lambda lib, ps: lib.optim.SGD([ps[0] * 2], lr=0.1),
    lambda lib, ps: lib.optim.SGD([{"params": ps[:1]}, {"params": ps}], lr=0.1),
    lambda lib, ps: lib.optim.SGD(ps, lr=0.1).add_param_group([ps[0]]),
    lambda lib, ps: lib.optim.SGD(ps[:1], lr=0.1).add_param_group({"params": ps[:1]}),
    lambda lib, ps: lib.optim.SGD([("a", ps[0]), ps[1]], lr=0.1),
    lambda lib, ps: lib.optim.SGD(ps[:1], lr=0.1).load_state_dict({"state": {}, "param_groups": []}),
    lambda lib, ps: lib.optim.SGD(ps[:1], lr=0.1).load_state_dict(
        {"state": {}, "param_groups": [{"params": [0, 1], "lr": 0.1}]}),
])
def test_errors(call):
    def program(lib):
        ps = [lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(3))]
        call(lib, ps)

    check(program, expect_error=Exception)  # each call raises; type and message must be torch's


def test_add_param_group_named_params_and_defaults():
    def program(lib):
        model = _mlp(lib)
        opt = lib.optim.SGD(model.fc1.named_parameters(), lr=0.1)
        opt.add_param_group({"params": model.fc2.named_parameters(), "momentum": 0.5})
        return [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups], opt.defaults

    check(program)


def test_zero_grad_modes():
    def program(lib):
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=0.1)
        (p * 3).sum().backward()
        grad = p.grad
        opt.zero_grad(set_to_none=False)
        kept = (p.grad is grad, p.grad)
        opt.zero_grad()
        return kept, p.grad

    check(program)


def test_parameters_without_grad_are_skipped():
    def program(lib):
        a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([a, b], lr=0.1, momentum=0.9)
        (a * 2).sum().backward()
        opt.step()
        return a, b, len(opt.state), "momentum_buffer" in opt.state[a]

    check(program)


def test_tensor_learning_rate():
    def program(lib):
        p = lib.nn.Parameter(lib.ones(3))
        p.grad = lib.full((3,), 2.0)
        lib.optim.SGD([p], lr=lib.tensor([0.25])).step()
        return p

    check(program)


def _aten_calls(lib, run):
    from importlib import import_module

    dispatch = import_module(lib.__name__ + ".utils._python_dispatch")
    calls = []

    class Log(dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if str(func).startswith("aten."):  # torch also records profiler ops around step()
                calls.append((str(func), sorted((kwargs or {}).items())))
            return func(*args, **(kwargs or {}))

    with Log():
        run()
    return calls


@pytest.mark.parametrize("config", CONFIGS[:5], ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_a_dispatch_mode_sees_torchs_aten_calls(config):
    def program(lib):
        p = lib.nn.Parameter(lib.ones(3))
        p.grad = lib.full((3,), 0.5)
        opt = lib.optim.SGD([p], **config)
        return [_aten_calls(lib, opt.step) for _ in range(2)], _aten_calls(lib, lambda: opt.zero_grad())

    check(program)


def test_step_hooks_order_arguments_and_removal():
    def program(lib):
        from importlib import import_module

        optimizer_module = import_module(lib.__name__ + ".optim.optimizer")
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.ones(2)
        opt = lib.optim.SGD([p], lr=0.1)
        log = []
        handles = [
            opt.register_step_pre_hook(lambda o, args, kwargs: log.append(("pre", o is opt, len(args), sorted(kwargs)))),
            opt.register_step_post_hook(lambda o, args, kwargs: log.append(("post", sorted(kwargs)))),
            optimizer_module.register_optimizer_step_pre_hook(lambda o, args, kwargs: log.append("global pre")),
            optimizer_module.register_optimizer_step_post_hook(lambda o, args, kwargs: log.append("global post")),
        ]
        try:
            opt.step(closure=lambda: log.append("closure"))
        finally:
            for h in handles:
                h.remove()
        opt.step()
        return log, p

    check(program)


def test_step_pre_hook_can_replace_arguments():
    def program(lib):
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.ones(2)
        opt = lib.optim.SGD([p], lr=0.1)
        opt.register_step_pre_hook(lambda o, args, kwargs: (args, {"closure": lambda: 7}))
        return opt.step(), p

    check(program)


def test_state_dict_hooks():
    def program(lib):
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.ones(2)
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        opt.step()
        log = []
        opt.register_state_dict_pre_hook(lambda o: log.append("pre"))
        opt.register_state_dict_pre_hook(lambda o: log.append("pre first"), prepend=True)
        opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
        sd = opt.state_dict()

        def load_pre(o, state_dict):
            log.append(("load pre", sorted(state_dict)))
            state_dict.pop("extra")
            state_dict["param_groups"][0]["lr"] = 0.5
            return state_dict

        handle = opt.register_load_state_dict_pre_hook(load_pre)
        opt.register_load_state_dict_post_hook(lambda o: log.append(("load post", o.param_groups[0]["lr"])))
        opt.load_state_dict(sd)
        handle.remove()
        return log, sorted(sd), opt.param_groups[0]["lr"]

    check(program)


def test_step_hooks_with_an_optimizer_subclass():
    def program(lib):
        log = []

        class Logged(lib.optim.SGD):
            def step(self, closure=None):
                log.append("subclass step")
                return super().step(closure)

        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.ones(2)
        opt = Logged([p], lr=0.1)
        opt.register_step_pre_hook(lambda o, a, k: log.append("pre"))
        opt.register_step_post_hook(lambda o, a, k: log.append("post"))
        opt.step()
        return log, p

    check(program)
