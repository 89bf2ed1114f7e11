"""Every optimizer of torch.optim against torch: parameters after each step for each option
family, the state_dict's layout, state_dicts loaded across the libraries, and errors.

Tolerance: float32 parameters agree within a few ulp per step, not bit for bit. torch's CPU
kernels fuse some operations (add with alpha and lerp with a weight >= 0.5 use fused
multiply-add), and NumPy rounds each operation; sqrt / div are correctly rounded in both. The
few-ulp differences of one step feed the next, so after six steps `scaled(1e-5, 1e-7)`
(about 100 float32 ulp at the parameters' magnitude of 1) bounds them with margin; a wrong
formula or option is off by far more (a changed lr, beta or eps moves parameters by >= 1e-4).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import torchpy
from tests.nn.helpers import check
from tests.oracle import scaled

from .helpers import arrays, convert, run_steps

POLICY = scaled(rtol=1e-5, atol=1e-7)

CASES = [
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True, maximize=True)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("Adam", dict(lr=0.01, foreach=True, amsgrad=True, weight_decay=0.05)),
    ("Adam", dict(lr=0.01, foreach=True, maximize=True, betas=(0.3, 0.9))),
    ("Adam", dict(lr=0.01, fused=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, weight_decay=0.2, amsgrad=True, foreach=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5, eps=1e-8)),
    ("Adagrad", dict(lr=0.1, maximize=True, foreach=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1, maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, betas=(0.7, 0.9), weight_decay=0.1, maximize=True, foreach=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, lambd=0.01, alpha=0.5, t0=2, weight_decay=0.1, maximize=True)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True, foreach=True)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.5), weight_decay=0.1)),  # rho_t > 5 from the first steps on
    ("RAdam", dict(lr=0.01, betas=(0.9, 0.5), weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, momentum=0.9, maximize=True, foreach=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.01, etas=(0.3, 1.5), step_sizes=(1e-3, 0.05), maximize=True)),
    ("Adafactor", dict(lr=0.01)),
    ("Adafactor", dict(lr=0.01, beta2_decay=-0.5, eps=(1e-3, 1e-3), d=1.5, weight_decay=0.1, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01, foreach=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, fused=True)),
]


def _ids(case):
    return case[0] + "(" + ",".join(f"{k}={v}" for k, v in case[1].items()) + ")"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_parameters_after_each_step_match_torch(case):
    name, options = case

    def program(lib):
        history, opt, _ = run_steps(lib, lambda lib, ps: getattr(lib.optim, name)(ps, **options))
        return history, opt.state_dict()

    check(program, policy=POLICY)


def test_tensor_learning_rate_and_param_groups():
    def make(lib, ps):
        return lib.optim.Adam([{"params": ps[:2]}, {"params": ps[2:], "lr": 0.05, "betas": (0.5, 0.9)}],
                              lr=lib.tensor(0.01))

    check(lambda lib: run_steps(lib, make)[0], policy=POLICY)
    for name in ("RMSprop", "NAdam", "Adagrad", "Rprop", "ASGD", "Adamax", "RAdam", "Adadelta"):
        check(lambda lib: run_steps(lib, lambda lib, ps: getattr(lib.optim, name)(ps, lr=lib.tensor([0.01])))[0],
              policy=POLICY)


@pytest.mark.parametrize("case", [c for c in CASES if c[0] != "Adafactor"][::3], ids=_ids)
def test_state_dict_loads_across_libraries_and_continues_identically(case):
    """torch's state_dict converted to torchpy tensors loads in torchpy and the next steps match
    torch's; torchpy's state_dict loads in torch the same way."""
    name, options = case
    make = lambda lib, ps: getattr(lib.optim, name)(ps, **options)  # noqa: E731
    for source, target in ((torch, torchpy), (torchpy, torch)):
        _, opt, params = run_steps(source, make, steps=3)
        state = convert(opt.state_dict(), target)
        values = [convert(p.detach(), target) for p in params]
        copies = [target.nn.Parameter(v) for v in values]
        loaded = make(target, copies)
        loaded.load_state_dict(state)
        for step in range(3):
            grads = arrays(10 + step)
            for p, g in zip(params, grads):
                p.grad = source.tensor(g)
            for p, g in zip(copies, grads):
                p.grad = target.tensor(g)
            opt.step()
            loaded.step()
        for p, q in zip(params, copies):
            np.testing.assert_allclose(np.asarray(q.detach().tolist()), np.asarray(p.detach().tolist()),
                                       rtol=1e-5, atol=1e-7)


def test_lbfgs_with_and_without_strong_wolfe():
    def program(lib, line_search):
        lib.manual_seed(0)
        a = lib.tensor([[3.0, 1.0, 0.5], [1.0, 2.0, 0.2], [0.5, 0.2, 1.5], [0.3, 0.1, 0.9]])
        b = lib.tensor([1.0, -2.0, 0.5, 0.7])
        x = lib.nn.Parameter(lib.tensor([0.5, -0.5, 1.0]))
        opt = lib.optim.LBFGS([x], lr=0.8, max_iter=5, history_size=3, line_search_fn=line_search)

        def closure():
            opt.zero_grad()
            loss = ((a @ x - b) ** 2).sum() + (x ** 4).sum() * 0.1
            loss.backward()
            return loss

        out = []
        for _ in range(4):
            out.append((opt.step(closure), x.detach().clone()))
        state = opt.state[x]
        return out, state["func_evals"], state["n_iter"]

    for line_search in (None, "strong_wolfe"):
        check(lambda lib: program(lib, line_search), policy=scaled(rtol=1e-4, atol=1e-6))


def test_muon_orthogonalises_in_bfloat16():
    def program(lib):
        history, opt, _ = run_steps(lib, lambda lib, ps: lib.optim.Muon(ps, lr=0.02, adjust_lr_fn="match_rms_adamw"),
                                    shapes=[(4, 3), (2, 5)], steps=3)
        return history, sorted(opt.state_dict()["param_groups"][0])

    # bfloat16 matmuls: torch accumulates in float32 and rounds once; 8 mantissa bits leave ~4e-3 relative
    check(program, policy=scaled(rtol=2e-2, atol=2e-3))


def test_default_dtype_float64_makes_float64_steps():
    def program(lib):
        previous = lib.get_default_dtype()
        lib.set_default_dtype(lib.float64)
        try:
            _, opt, _ = run_steps(lib, lambda lib, ps: lib.optim.Adam(ps), steps=1, dtype=np.float64)
            return opt.state_dict()
        finally:
            lib.set_default_dtype(previous)

    check(program, policy=POLICY)


ERRORS = [
    lambda lib, ps: lib.optim.Adam(ps, lr=-0.1),
    lambda lib, ps: lib.optim.Adam(ps, betas=(1.0, 0.9)),
    lambda lib, ps: lib.optim.Adam(ps, betas=(0.9, -0.1)),
    lambda lib, ps: lib.optim.Adam(ps, eps=-1.0),
    lambda lib, ps: lib.optim.Adam(ps, weight_decay=-1.0),
    lambda lib, ps: lib.optim.Adam(ps, lr=lib.tensor(0.1), foreach=True),
    lambda lib, ps: lib.optim.Adam(ps, lr=lib.tensor([0.1, 0.2])),
    lambda lib, ps: lib.optim.Adam(ps, betas=(lib.tensor(0.9), 0.99)),
    lambda lib, ps: lib.optim.Adam(ps, fused=True, foreach=True),
    lambda lib, ps: lib.optim.Adam(ps, fused=True, differentiable=True),
    lambda lib, ps: lib.optim.AdamW(ps, lr=-1),
    lambda lib, ps: lib.optim.SGD(ps, fused=True, foreach=True),
    lambda lib, ps: lib.optim.SGD(ps, fused=True, differentiable=True),
    lambda lib, ps: lib.optim.Adagrad(ps, fused=True, foreach=True),
    lambda lib, ps: lib.optim.Adagrad(ps, lr_decay=-1),
    lambda lib, ps: lib.optim.Adagrad(ps, initial_accumulator_value=-1),
    lambda lib, ps: lib.optim.Adadelta(ps, rho=1.5),
    lambda lib, ps: lib.optim.Adamax(ps, betas=(0.9, 1.0)),
    lambda lib, ps: lib.optim.ASGD(ps, weight_decay=-1),
    lambda lib, ps: lib.optim.NAdam(ps, momentum_decay=-1),
    lambda lib, ps: lib.optim.RAdam(ps, eps=-1),
    lambda lib, ps: lib.optim.RMSprop(ps, alpha=-1),
    lambda lib, ps: lib.optim.RMSprop(ps, momentum=-1),
    lambda lib, ps: lib.optim.Rprop(ps, etas=(1.5, 1.2)),
    lambda lib, ps: lib.optim.Adafactor(ps, lr=-1),
    lambda lib, ps: lib.optim.Adafactor(ps, beta2_decay=0.5),
    lambda lib, ps: lib.optim.Adafactor(ps, eps=(-1, 1e-3)),
    lambda lib, ps: lib.optim.Adafactor(ps, d=0.5),
    lambda lib, ps: lib.optim.Muon(ps),
    lambda lib, ps: lib.optim.Muon(ps[:1], adjust_lr_fn="bad"),
    lambda lib, ps: lib.optim.Muon(ps[:1], momentum=-1),
    lambda lib, ps: lib.optim.LBFGS([{"params": ps[:1]}, {"params": ps[1:]}]),
    lambda lib, ps: lib.optim.LBFGS(ps, lr=-1),
    lambda lib, ps: lib.optim.SparseAdam(ps, lr=0.0),
    lambda lib, ps: lib.optim.SparseAdam(ps, eps=0.0),
    lambda lib, ps: _stepped(lib.optim.SparseAdam(ps), ps),
    lambda lib, ps: _stepped(lib.optim.Adam(ps, capturable=True), ps),
    lambda lib, ps: _stepped(lib.optim.Adadelta(ps, capturable=True), ps),
    lambda lib, ps: _stepped(lib.optim.NAdam(ps, capturable=True), ps),
    lambda lib, ps: _stepped(lib.optim.LBFGS(ps, line_search_fn="armijo"), ps, closure=True),
]


def _stepped(opt, ps, closure=False):
    for p in ps:
        p.grad = p.detach() * 0.5
    if closure:
        return opt.step(lambda: sum((p * p).sum() for p in ps))
    return opt.step()


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(call):
    def program(lib):
        ps = [lib.nn.Parameter(lib.ones(2, 2)), lib.nn.Parameter(lib.ones(3))]
        call(lib, ps)

    check(program, expect_error=Exception)


def test_zero_grad_and_hooks_on_every_optimizer():
    def program(lib):
        log = []
        for name in ("Adam", "AdamW", "Adagrad", "Adadelta", "Adamax", "ASGD", "NAdam", "RAdam", "RMSprop",
                     "Rprop", "Adafactor"):
            p = lib.nn.Parameter(lib.ones(2, 2))
            opt = getattr(lib.optim, name)([p])
            opt.register_step_pre_hook(lambda o, a, k: log.append(("pre", type(o).__name__)))
            opt.register_step_post_hook(lambda o, a, k: log.append(("post", type(o).__name__)))
            p.grad = lib.ones(2, 2)
            opt.step()
            opt.zero_grad(set_to_none=False)
            log.append(p.grad)
            opt.zero_grad()
            log.append(p.grad is None)
            log.append(sorted(opt.state_dict()["param_groups"][0]))
        return log

    check(program, policy=POLICY)


@pytest.mark.parametrize("name", ["Adam", "AdamW", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "RMSprop",
                                  "Rprop", "ASGD"])
def test_a_dispatch_mode_sees_torchs_aten_calls(name):
    """Once the state exists, a step of the single-tensor path makes torch's for-loop path's
    aten calls, in its order. torchpy's Tensor.item() reads the value without dispatching, so
    torch's _local_scalar_dense calls (item() of the step count) are left out of torch's log."""
    from tests.optim.test_sgd import _aten_calls

    def program(lib):
        p = lib.nn.Parameter(lib.ones(3))
        p.grad = lib.full((3,), 0.5)
        extra = {} if name == "Rprop" else {"weight_decay": 0.1}
        opt = getattr(lib.optim, name)([p], foreach=False, **extra)
        opt.step()
        calls = [_aten_calls(lib, opt.step) for _ in range(2)]
        # keyword values as text: torch.preserve_format and torchpy's are different objects
        return [[(op, [(k, str(v)) for k, v in kwargs]) for op, kwargs in log
                 if not op.startswith("aten._local_scalar_dense")] for log in calls]

    check(program)


@pytest.mark.parametrize("name", ["Adam", "AdamW", "SGD", "RMSprop", "Adagrad", "NAdam", "RAdam", "Adamax",
                                  "Adadelta", "ASGD", "Rprop"])
def test_differentiable_step_records_a_graph(name):
    """differentiable=True: the step runs with grad mode on, so the updated parameter's graph
    reaches the tensors the gradient was computed from (here grad = x * x)."""

    def program(lib):
        x = lib.tensor([1.0, 2.0, -3.0], requires_grad=True)
        p = x.clone()
        opt = getattr(lib.optim, name)([p], differentiable=True)
        p.grad = x * x
        opt.step()
        grad, = lib.autograd.grad(p.sum(), x)
        return p, grad

    check(program, policy=scaled(rtol=1e-5, atol=1e-6))


@pytest.mark.parametrize("name", ["Adam", "Adagrad", "RMSprop", "NAdam"])
def test_complex_parameters_are_refused_not_miscomputed(name):
    """torch steps complex parameters through view_as_real, which torchpy lacks yet: a clear
    refusal rather than different numbers. (SGD needs no view and steps them as torch.)"""
    p = torchpy.nn.Parameter(torchpy.ones(2, dtype=torchpy.complex64))
    p.grad = torchpy.ones(2, dtype=torchpy.complex64)
    with pytest.raises(NotImplementedError, match="complex parameters"):
        getattr(torchpy.optim, name)([p]).step()
