"""Train a small CNN on scikit-learn's 8x8 digits, with torchpy or real torch.

    python -m torchpy.examples.train_digits             # torchpy, then torch for comparison
    python -m torchpy.examples.train_digits --torch     # real torch only (or TORCHPY_DEMO_BACKEND=torch)
    python -m torchpy.examples.train_digits --resume    # continue from the last checkpoint

Everything below the backend import is plain torch code: `torch` is either torchpy or torch.
Needs the `demo` extra (scikit-learn, tqdm): pip install -e '.[demo]'.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile
import time
from types import ModuleType
from typing import Any

import numpy as np

# Seeded split of the 1,797 digits: the same test set for both backends and every run.
TEST_FRACTION = 0.2
DEFAULT_EPOCHS = 6


def import_backend(use_torch: bool) -> ModuleType:
    """The only backend-specific line: `import torch` or `import torchpy as torch`."""
    return importlib.import_module("torch" if use_torch else "torchpy")


def load_digits_split(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(x_train, y_train, x_test, y_test) as NumPy arrays; images scaled to [0, 1], shape (N, 1, 8, 8)."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None]
    y = digits.target.astype(np.int64)
    perm = np.random.default_rng(seed).permutation(len(x))
    n_test = int(len(x) * TEST_FRACTION)
    test, train = perm[:n_test], perm[n_test:]
    return x[train], y[train], x[test], y[test]


def build_model(torch: ModuleType) -> Any:
    """Two 3x3 convolutions (the second strided: 8x8 -> 4x4) and a linear classifier."""
    nn = torch.nn

    class DigitsNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU())
            self.classifier = nn.Linear(32 * 4 * 4, 10)

        def forward(self, x: Any) -> Any:
            return self.classifier(self.features(x).flatten(1))

    return DigitsNet()


def nll_loss(torch: ModuleType, logits: Any, target: Any) -> Any:
    """Cross entropy written with log_softmax and gather (what F.cross_entropy computes)."""
    return -torch.nn.functional.log_softmax(logits, 1).gather(1, target[:, None]).mean()


def limit_threads(torch: ModuleType, threads: int) -> None:
    """Cap intra-op threads: a model this small gains nothing from them, and on a busy machine
    spinning thread pools cost up to 10x. threadpoolctl (a scikit-learn dependency) caps the
    BLAS and OpenMP pools of the process (NumPy's, under torchpy's matmuls); torch also has its own
    setting."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(threads)
    if hasattr(torch, "set_num_threads"):
        torch.set_num_threads(threads)


def default_checkpoint(backend: str) -> str:
    return os.path.join(tempfile.gettempdir(), f"train_digits_{backend}.pt")


def train(torch: ModuleType, *, epochs: int = DEFAULT_EPOCHS, batch_size: int = 32, lr: float = 0.01, workers: int = 1,
          seed: int = 0, checkpoint: str | None = None, resume: bool = False, progress: bool = True,
          train_subset: int | None = None, stop_after: int | None = None) -> dict[str, Any]:
    """Train (or continue training) and evaluate; returns accuracy, losses and per-epoch times.

    A checkpoint (model, optimizer, scheduler, epoch) is written after every epoch; with resume=True
    training continues from it; stop_after ends this call after that many epochs (an interrupted run).
    Each epoch's shuffle comes from a generator seeded with (seed, epoch),
    so a resumed run sees the batches an uninterrupted run would have seen.
    """
    x_train, y_train, x_test, y_test = load_digits_split(seed)
    if train_subset is not None:
        x_train, y_train = x_train[:train_subset], y_train[:train_subset]
    dataset = torch.utils.data.TensorDataset(torch.tensor(x_train), torch.tensor(y_train))
    generator = torch.Generator()
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=workers,
                                         generator=generator, persistent_workers=workers > 0)

    torch.manual_seed(seed)
    model = build_model(torch)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=lr, epochs=epochs,
                                                    steps_per_epoch=len(loader))
    start_epoch = 0
    if resume and checkpoint and os.path.exists(checkpoint):
        state = torch.load(checkpoint)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start_epoch = state["epoch"]
        if progress:
            print(f"resumed from {checkpoint}: {start_epoch} of {epochs} epochs done")

    from tqdm import tqdm

    losses: list[float] = []
    epoch_times: list[float] = []
    last_epoch = epochs if stop_after is None else min(epochs, start_epoch + stop_after)
    for epoch in range(start_epoch, last_epoch):
        generator.manual_seed(seed * 1000 + epoch)
        model.train()
        started = time.perf_counter()
        seen = correct = 0
        total_loss = 0.0
        bar = tqdm(loader, desc=f"epoch {epoch + 1}/{epochs}", disable=not progress, leave=True)
        for x, y in bar:
            logits = model(x)
            loss = nll_loss(torch, logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            n = len(y)
            seen += n
            total_loss += loss.item() * n
            correct += (logits.argmax(1) == y).sum().item()
            bar.set_postfix(loss=f"{total_loss / seen:.4f}", acc=f"{correct / seen:.3f}")
        bar.close()
        epoch_times.append(time.perf_counter() - started)
        losses.append(total_loss / seen)
        if checkpoint:
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "epoch": epoch + 1}, checkpoint)

    model.eval()
    with torch.no_grad():
        predicted = model(torch.tensor(x_test)).argmax(1)
        test_acc = (predicted == torch.tensor(y_test)).float().mean().item()
    return {"test_acc": test_acc, "losses": losses, "epoch_times": epoch_times, "epoch": last_epoch,
            "model": model}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch", action="store_true", default=os.environ.get("TORCHPY_DEMO_BACKEND") == "torch",
                        help="run with real torch instead of torchpy (or TORCHPY_DEMO_BACKEND=torch)")
    parser.add_argument("--epochs", type=int, default=DEFAULT_EPOCHS)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--workers", type=int, default=1, help="DataLoader worker processes (0: in this process)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads (BLAS, OpenMP, torch's)")
    parser.add_argument("--checkpoint", default=None, help="checkpoint file (default: one per backend in the temp dir)")
    parser.add_argument("--resume", action="store_true", help="continue from the checkpoint")
    parser.add_argument("--no-compare", action="store_true", help="do not also run real torch afterwards")
    return parser.parse_args(argv)


def run(args: argparse.Namespace, use_torch: bool) -> dict[str, Any]:
    torch = import_backend(use_torch)
    backend = "torch" if use_torch else "torchpy"
    checkpoint = args.checkpoint or default_checkpoint(backend)
    if args.checkpoint and use_torch != args.torch:  # the comparison run keeps its own file
        checkpoint = f"{args.checkpoint}.{backend}"
    limit_threads(torch, args.threads)
    print(f"\n== training a CNN on 8x8 digits with {backend} {torch.__version__} (checkpoint: {checkpoint})")
    result = train(torch, epochs=args.epochs, batch_size=args.batch_size, lr=args.lr, workers=args.workers,
                   seed=args.seed, checkpoint=checkpoint, resume=args.resume)
    times = result["epoch_times"]
    per_epoch = f"{sum(times) / len(times):.2f} s per epoch" if times else "no epoch left to run"
    print(f"{backend}: test accuracy {result['test_acc']:.2%}, {per_epoch}")
    result["backend"] = backend
    return result


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    results = [run(args, args.torch)]
    if not args.torch and not args.no_compare:
        try:
            importlib.import_module("torch")
        except ImportError:
            print("(real torch is not installed: no comparison run)")
        else:
            results.append(run(args, True))
    if len(results) == 2:
        print("\n   backend   test acc   s / epoch")
        for r in results:
            times = r["epoch_times"]
            avg = f"{sum(times) / len(times):9.2f}" if times else "        -"
            print(f"   {r['backend']:<8}  {r['test_acc']:8.2%}   {avg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
