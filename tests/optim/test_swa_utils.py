"""torch.optim.swa_utils against torch: SWA / EMA averages, SWALR's lr sequence, errors."""

import pytest

from tests.nn.helpers import check
from tests.oracle import EXACT, scaled


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))


def _perturb(lib, model, step):
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.mul_(0.9).add_(0.1 * (step + 1) * (i + 1))


@pytest.mark.parametrize("kind", ["swa", "avg_fn", "swa_multi", "ema_multi", "ema"])
def test_averaged_model_matches_torch(kind):
    def program(lib):
        swa = lib.optim.swa_utils
        model = _model(lib)
        options = {"avg_fn": swa.get_swa_avg_fn()} if kind == "avg_fn" else \
            {"multi_avg_fn": swa.get_swa_multi_avg_fn()} if kind == "swa_multi" else \
            {"multi_avg_fn": swa.get_ema_multi_avg_fn(0.8)} if kind == "ema_multi" else \
            {"avg_fn": swa.get_ema_avg_fn(0.7)} if kind == "ema" else {}
        averaged = swa.AveragedModel(model, **options)
        out = []
        for step in range(5):
            _perturb(lib, model, step)
            averaged.update_parameters(model)
            out.append([p.detach().clone() for p in averaged.parameters()])
        return out, averaged.n_averaged, averaged(lib.ones(1, 3)), sorted(averaged.state_dict())

    check(program, policy=scaled(rtol=1e-6, atol=1e-7))


@pytest.mark.parametrize("options", [dict(swa_lr=0.05), dict(swa_lr=[0.05, 0.01], anneal_epochs=4,
                                                             anneal_strategy="linear"),
                                     dict(swa_lr=0.02, anneal_epochs=0)])
def test_swalr_sequence(options):
    def program(lib):
        w, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(1))
        opt = lib.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.3}], lr=0.5)
        sched = lib.optim.swa_utils.SWALR(opt, **options)
        lrs = [sched.get_last_lr()]
        for _ in range(20):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr())
        state = sched.state_dict()
        return lrs, state

    check(program, policy=EXACT)


@pytest.mark.parametrize("call", [
    lambda lib, opt: lib.optim.swa_utils.get_ema_avg_fn(1.5),
    lambda lib, opt: lib.optim.swa_utils.get_ema_multi_avg_fn(-0.1),
    lambda lib, opt: lib.optim.swa_utils.SWALR(opt, 0.1, anneal_strategy="exp"),
    lambda lib, opt: lib.optim.swa_utils.SWALR(opt, 0.1, anneal_epochs=-1),
    lambda lib, opt: lib.optim.swa_utils.SWALR(opt, [0.1, 0.2]),
    lambda lib, opt: lib.optim.swa_utils.AveragedModel(_model(lib), avg_fn=lambda *a: a[0],
                                                       multi_avg_fn=lambda *a: None),
])
def test_errors(call):
    def program(lib):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=0.1)
        call(lib, opt)

    check(program, expect_error=Exception)


def test_update_bn_without_batch_norm_is_a_no_op():
    def program(lib):
        model = _model(lib)
        lib.optim.swa_utils.update_bn([lib.ones(2, 3)], model)
        return list(model.parameters()), model.training

    check(program)
