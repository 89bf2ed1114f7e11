"""torch.optim.lr_scheduler against torch: the lr (and momentum) sequence over 30 steps for every
scheduler, state_dict contents, state_dicts loaded mid-schedule, warnings and errors. The
schedules are Python float arithmetic in the same order as torch's, so lrs compare exactly."""

from __future__ import annotations

import warnings

import pytest

from tests.nn.helpers import check
from tests.oracle import EXACT


def _optimizer(lib, name="SGD"):
    w = lib.nn.Parameter(lib.ones(2))
    b = lib.nn.Parameter(lib.ones(1))
    groups = [{"params": [w]}, {"params": [b], "lr": 0.05}]
    if name == "Adam":
        return lib.optim.Adam(groups, lr=0.1)
    return lib.optim.SGD(groups, lr=0.1, momentum=0.9)


class Scale:
    """A callable object: its __dict__ travels in the state_dict."""

    def __init__(self, factor):
        self.factor = factor

    def __call__(self, epoch):
        return self.factor ** epoch


S = None  # the lr_scheduler module of the library under test, set by _schedule

SCHEDULES = {
    "LambdaLR": lambda o: S.LambdaLR(o, lambda e: 0.95 ** e),
    "LambdaLR-list": lambda o: S.LambdaLR(o, [lambda e: 1 / (e + 1), Scale(0.9)]),
    "MultiplicativeLR": lambda o: S.MultiplicativeLR(o, lambda e: 0.97),
    "StepLR": lambda o: S.StepLR(o, step_size=4, gamma=0.5),
    "MultiStepLR": lambda o: S.MultiStepLR(o, milestones=[3, 7, 7, 15], gamma=0.3),
    "ConstantLR": lambda o: S.ConstantLR(o, factor=0.25, total_iters=6),
    "LinearLR": lambda o: S.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=12),
    "ExponentialLR": lambda o: S.ExponentialLR(o, gamma=0.9),
    "PolynomialLR": lambda o: S.PolynomialLR(o, total_iters=17, power=2.0),
    "CosineAnnealingLR": lambda o: S.CosineAnnealingLR(o, T_max=7, eta_min=0.001),
    "CosineAnnealingWarmRestarts": lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01),
    "CyclicLR": lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=4, step_size_down=3),
    "CyclicLR-triangular2": lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=3, mode="triangular2"),
    "CyclicLR-exp_range": lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=5, mode="exp_range", gamma=0.95,
                                               cycle_momentum=False),
    "OneCycleLR": lambda o: S.OneCycleLR(o, max_lr=0.3, total_steps=31),
    "OneCycleLR-linear-3phase": lambda o: S.OneCycleLR(o, max_lr=[0.3, 0.2], epochs=4, steps_per_epoch=8,
                                                       anneal_strategy="linear", three_phase=True, pct_start=0.25),
    "SequentialLR": lambda o: S.SequentialLR(o, [S.LinearLR(o, 0.1, total_iters=5), S.ExponentialLR(o, 0.9),
                                                 S.StepLR(o, 3)], milestones=[6, 15]),
    "ChainedScheduler": lambda o: S.ChainedScheduler([S.ConstantLR(o, 0.5, total_iters=4),
                                                      S.ExponentialLR(o, 0.95)]),
}


def _schedule(lib, name, optimizer_name="SGD", steps=30):
    global S
    S = lib.optim.lr_scheduler
    opt = _optimizer(lib, optimizer_name)
    sched = SCHEDULES[name](opt)
    lrs = [sched.get_last_lr()]
    momenta = []
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
        momenta.append([g.get("momentum", g.get("betas")) for g in opt.param_groups])
    return opt, sched, lrs, momenta


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_lr_sequence_matches_torch(name):
    check(lambda lib: _schedule(lib, name)[2:], policy=EXACT)


@pytest.mark.parametrize("name", ["CyclicLR", "OneCycleLR"])
def test_beta1_cycles_with_adam(name):
    check(lambda lib: _schedule(lib, name, "Adam")[2:], policy=EXACT)


def test_reduce_lr_on_plateau():
    metrics = [1.0, 0.9, 0.95, 0.95, 0.95, 0.94, 0.96, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.81, 0.9, 0.7] * 2

    def program(lib, **options):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **options)
        out = []
        for m in metrics:
            opt.step()
            sched.step(m)
            out.append((sched.get_last_lr(), sched.num_bad_epochs, sched.cooldown_counter, sched.best))
        return out, sched.state_dict()

    check(lambda lib: program(lib, patience=2), policy=EXACT)
    check(lambda lib: program(lib, mode="max", factor=0.5, patience=1, threshold=0.05, threshold_mode="abs",
                              cooldown=2, min_lr=[0.02, 0.01]), policy=EXACT)
    check(lambda lib: program(lib, mode="min", threshold_mode="abs", patience=0, eps=0.01), policy=EXACT)


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_state_dict_matches_torch_and_resumes(name):
    """The state_dict has torch's keys and values; loaded into a fresh scheduler mid-way, the
    rest of the schedule is the uninterrupted one."""

    def program(lib):
        opt, sched, _, _ = _schedule(lib, name, steps=9)
        state = sched.state_dict()
        opt2, sched2, _, _ = _schedule(lib, name, steps=0)
        opt2.load_state_dict(opt.state_dict())
        sched2.load_state_dict(state)
        rest = []
        for _ in range(10):
            for o, s in ((opt, sched), (opt2, sched2)):
                o.step()
                s.step()
            rest.append((sched.get_last_lr(), sched2.get_last_lr()))
        return {k: v for k, v in state.items() if k != "_schedulers"}, rest

    check(program, policy=EXACT)


def test_closed_form_with_an_epoch_argument():
    def program(lib):
        out = []
        for name in ("StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR", "PolynomialLR",
                     "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "LambdaLR"):
            opt, sched, _, _ = _schedule(lib, name, steps=0)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                for epoch in (3, 8, 5, 13):
                    opt.step()
                    sched.step(epoch)
                    out.append(sched.get_last_lr())
            out.append(sorted({str(w.message)[:40] for w in caught}))
        return out

    check(program, policy=EXACT)


def test_warnings_match_torch():
    def program(lib):
        msgs = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            opt = _optimizer(lib)
            sched = lib.optim.lr_scheduler.StepLR(opt, 2)
            sched.step()  # before optimizer.step()
            sched.get_lr()  # outside step()
            opt2 = _optimizer(lib)
            sched2 = lib.optim.lr_scheduler.ExponentialLR(opt2, 0.9)
            opt2.step = lambda closure=None: None  # replaced after the scheduler wrapped it
            sched2.step()
        msgs = [(w.category.__name__, str(w.message)) for w in caught]
        return msgs

    check(program)


ERRORS = [
    lambda S, o: S.StepLR(object(), 3),
    lambda S, o: S.LambdaLR(o, [lambda e: 1.0]),
    lambda S, o: S.MultiplicativeLR(o, [1.0, 2.0]),
    lambda S, o: S.ConstantLR(o, factor=1.5),
    lambda S, o: S.LinearLR(o, start_factor=0),
    lambda S, o: S.LinearLR(o, end_factor=2),
    lambda S, o: S.StepLR(o, 3, last_epoch=4),
    lambda S, o: S.CyclicLR(o, 0.1, [0.1]),
    lambda S, o: S.CyclicLR(o, 0.1, 0.2, mode="bad"),
    lambda S, o: S.CyclicLR(_adagrad(o), 0.1, 0.2),
    lambda S, o: S.OneCycleLR(_adagrad(o), 0.1, total_steps=10),
    lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=0),
    lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="x"),
    lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=2).step(-1),
    lambda S, o: S.OneCycleLR(o, 0.1),
    lambda S, o: S.OneCycleLR(o, 0.1, total_steps=0),
    lambda S, o: S.OneCycleLR(o, 0.1, epochs=0, steps_per_epoch=2),
    lambda S, o: S.OneCycleLR(o, 0.1, epochs=2, steps_per_epoch=0),
    lambda S, o: S.OneCycleLR(o, 0.1, total_steps=10, pct_start=2.0),
    lambda S, o: S.OneCycleLR(o, 0.1, total_steps=10, anneal_strategy="x"),
    lambda S, o: _steps(S.OneCycleLR(o, 0.1, total_steps=2), 3),
    lambda S, o: S.ReduceLROnPlateau(o, factor=1.0),
    lambda S, o: S.ReduceLROnPlateau(o, mode="x"),
    lambda S, o: S.ReduceLROnPlateau(o, threshold_mode="x"),
    lambda S, o: S.ReduceLROnPlateau(o, min_lr=[0.1]),
    lambda S, o: S.SequentialLR(o, [], []),
    lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2)], [3]),
    lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2), S.ReduceLROnPlateau(o)], [3]),
    lambda S, o: S.SequentialLR(o, [S.StepLR(o, 2), 3], [3]),
    lambda S, o: S.ChainedScheduler([]),
    lambda S, o: S.ChainedScheduler([S.StepLR(o, 2), S.ReduceLROnPlateau(o)]),
]


def _adagrad(o):
    """An optimizer with neither momentum nor betas."""
    return __import__(type(o).__module__.split(".")[0]).optim.Adagrad(
        [p for g in o.param_groups for p in g["params"]])


def _steps(sched, n):
    for _ in range(n):
        sched.optimizer.step()
        sched.step()


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(call):
    def program(lib):
        call(lib.optim.lr_scheduler, _optimizer(lib))

    check(program, expect_error=Exception)


def test_tensor_lr_is_filled_in_place():
    def program(lib):
        p = lib.nn.Parameter(lib.ones(2))
        lr = lib.tensor(0.1)
        opt = lib.optim.Adam([p], lr=lr)
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        for _ in range(3):
            opt.step()
            sched.step()
        return opt.param_groups[0]["lr"] is lr, lr, sched.get_last_lr(), sched.base_lrs

    check(program, policy=EXACT)


def test_base_class_and_subclassing():
    def program(lib):
        class Halving(lib.optim.lr_scheduler.LRScheduler):
            def get_lr(self):
                return [g["lr"] * 0.5 if self.last_epoch > 0 else g["lr"] for g in self.optimizer.param_groups]

        opt = _optimizer(lib)
        sched = Halving(opt)
        out = []
        for _ in range(4):
            opt.step()
            sched.step()
            out.append(sched.get_last_lr())
        return out, sorted(sched.state_dict()), issubclass(lib.optim.lr_scheduler.LambdaLR,
                                                           lib.optim.lr_scheduler.LRScheduler)

    check(program, policy=EXACT)
