"""torchpy/examples/train_digits.py: it learns, and --resume continues an interrupted run exactly."""

from __future__ import annotations

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("tqdm")

import torchpy  # noqa: E402
from torchpy.examples import train_digits  # noqa: E402

SUBSET = 320  # 10 batches of 32: a short epoch


def _train(**options):
    return train_digits.train(torchpy, batch_size=32, workers=0, progress=False, train_subset=SUBSET, **options)


def _same_parameters(a, b) -> bool:
    sa, sb = a.state_dict(), b.state_dict()
    return sa.keys() == sb.keys() and all(bool((sa[k] == sb[k]).all()) for k in sa)


def test_loss_decreases() -> None:
    result = _train(epochs=2)
    assert len(result["losses"]) == 2
    assert result["losses"][1] < result["losses"][0]


def test_resume_continues_an_interrupted_run(tmp_path) -> None:
    checkpoint = str(tmp_path / "digits.pt")
    interrupted = _train(epochs=2, checkpoint=checkpoint, stop_after=1)
    assert interrupted["epoch"] == 1
    assert torchpy.load(checkpoint)["epoch"] == 1

    resumed = _train(epochs=2, checkpoint=checkpoint, resume=True)
    assert len(resumed["epoch_times"]) == 1  # only the second epoch ran
    assert torchpy.load(checkpoint)["epoch"] == 2

    # An uninterrupted run ends with the same parameters.
    uninterrupted = _train(epochs=2, checkpoint=str(tmp_path / "whole.pt"))
    assert resumed["losses"] == uninterrupted["losses"][1:]
    assert _same_parameters(resumed["model"], uninterrupted["model"])


def test_worker_process_gives_the_same_first_epoch() -> None:
    # The sampler runs in this process, so a worker returns the batches of num_workers=0.
    # (Later epochs differ, as in torch: a persistent worker's re-iteration draws its seed anew.)
    in_process = _train(epochs=1)
    in_worker = train_digits.train(torchpy, epochs=1, batch_size=32, workers=1, progress=False,
                                   train_subset=SUBSET)
    assert in_worker["losses"] == in_process["losses"]


def test_command_line_resume(tmp_path, capsys) -> None:
    checkpoint = str(tmp_path / "cli.pt")
    args = ["--epochs", "1", "--workers", "0", "--no-compare", "--checkpoint", checkpoint]
    assert train_digits.main(args) == 0
    assert "test accuracy" in capsys.readouterr().out
    assert train_digits.main([*args, "--resume"]) == 0
    assert "no epoch left to run" in capsys.readouterr().out
