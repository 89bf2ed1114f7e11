"""What runs inside a DataLoader worker process: its seeding, get_worker_info(), the fetch loop,
and how an error travels back to the main process (ExceptionWrapper)."""

from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..._aten.kernels.random import manual_seed
from .fetch import DatasetKind, create_fetcher

__all__ = ["ExceptionWrapper", "WorkerInfo", "get_worker_info"]

# How often (seconds) a waiting worker checks that its parent still lives, and a waiting main
# process checks that its workers do.
STATUS_CHECK_INTERVAL = 0.5


class WorkerInfo:
    """What a worker knows about itself: id, num_workers, seed and its copy of the dataset."""

    id: int
    num_workers: int
    seed: int
    dataset: Any
    __initialized = False

    def __init__(self, **kwargs: Any) -> None:
        for key, value in kwargs.items():
            setattr(self, key, value)
        self.__keys = tuple(kwargs)
        self.__initialized = True

    def __setattr__(self, key: str, value: Any) -> None:
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        super().__setattr__(key, value)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({fields})"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker, its WorkerInfo; in the main process, None."""
    return _worker_info


class ExceptionWrapper:
    """An exception with its formatted traceback, picklable, re-raised in another process."""

    def __init__(self, exc_info: Any = None, where: str = "in background") -> None:
        exc_info = sys.exc_info() if exc_info is None else exc_info
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self) -> None:
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)  # KeyError's str() would otherwise show the repr
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # an exception class whose constructor wants other arguments
            raise RuntimeError(msg) from None
        try:
            raise exception
        finally:
            # No frame -> exception -> traceback -> frame cycle: once the caller drops the
            # exception, the loader's iterator goes at once and shuts its workers down.
            del exception


class _KeyErrorMessage(str):
    """A str whose repr is itself, so a KeyError shows the traceback's line breaks."""

    __slots__ = ()

    def __repr__(self) -> str:
        return self


@dataclass(frozen=True)
class IterableDatasetStopIteration:
    """A worker's word that its iterable dataset is exhausted."""
    worker_id: int


@dataclass(frozen=True)
class ResumeIteration:
    """The main process's word to a persistent worker: a new epoch starts."""
    seed: int | None = None


def numpy_seed_state(base_seed: int, worker_id: int) -> list[int]:
    """Four 32-bit words for NumPy's seed in worker `worker_id`: NumPy's SeedSequence hash of
    (worker_id, the seed's low and high halves, 0), which is what torch computes."""
    mask = 0xFFFFFFFF
    words = [worker_id, base_seed & mask, base_seed >> 32, 0]
    return [int(w) for w in np.random.SeedSequence(words, pool_size=4).generate_state(4, np.uint32)]


def seed_worker(base_seed: int, worker_id: int) -> int:
    """Seed Python's, torchpy's and NumPy's generators as torch seeds a worker; the seed."""
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(numpy_seed_state(base_seed, worker_id))
    return seed


def worker_loop(dataset_kind: DatasetKind, dataset: Any, index_queue: Any, data_queue: Any,
                done_event: Any, auto_collation: bool, collate_fn: Callable, drop_last: bool,
                base_seed: int, init_fn: Callable | None, worker_id: int, num_workers: int) -> None:
    """A worker's life: take (task id, indices) from index_queue, put (task id, batch or error)
    on data_queue, until None arrives or the parent dies."""
    global _worker_info
    parent = os.getppid()
    try:
        seed = seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        init_error = fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        exhausted = False  # the iterable dataset ended: answer nothing more until None
        while os.getppid() == parent:
            try:
                task = index_queue.get(timeout=STATUS_CHECK_INTERVAL)
            except queue.Empty:
                # Shutting down, and the None meant for us may never come (the main process's
                # queue can be finalized first when the garbage collector takes the loader).
                if done_event.is_set():
                    break
                continue
            if task is None:
                break
            if isinstance(task, ResumeIteration):
                data_queue.put((task, None))
                exhausted = False
                fetcher = create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
                continue
            if done_event.is_set() or exhausted:
                continue
            task_id, index = task
            if init_error is not None:
                data, init_error = init_error, None
            else:
                try:
                    data = fetcher.fetch(index)  # type: ignore[union-attr]
                except StopIteration:
                    if dataset_kind != DatasetKind.Iterable:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
                    else:
                        data, exhausted = IterableDatasetStopIteration(worker_id), True
                except Exception:
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((task_id, data))
            del data, task, index
    except KeyboardInterrupt:
        pass  # the main process sees the interrupt too and shuts the workers down
    if done_event.is_set():
        data_queue.cancel_join_thread()  # exit without waiting for the parent to read
        data_queue.close()
