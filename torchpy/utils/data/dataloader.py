"""DataLoader: batches from a dataset through a sampler and a collate function, in this process
(num_workers=0) or in worker processes (multiprocessing) that return batches in order."""

from __future__ import annotations

import itertools
import math
import os
import queue
import warnings
from typing import Any, Callable, Iterable

from ..._aten.kernels.random import Generator
from ..._aten.public import functions as _F
from ..._tensor import dtype as _dt
from . import worker as _worker
from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .fetch import DatasetKind, create_fetcher
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, _InfiniteConstantSampler

__all__ = ["DataLoader"]

_FROZEN_AFTER_INIT = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


class DataLoader:
    """torch.utils.data.DataLoader: iterate a dataset in (collated) batches."""

    _iterator: Any
    __initialized = False

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler | Iterable | None = None, batch_sampler: Sampler | Iterable | None = None,
                 num_workers: int = 0, collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn: Callable | None = None,
                 multiprocessing_context: Any = None, generator: Generator | None = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        # An iterable dataset has no indices: refuse samplers and shuffling before anything else.
        if isinstance(dataset, IterableDataset):
            self._dataset_kind = DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, "
                                 "sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)  # type: ignore[arg-type]
            else:
                sampler = SequentialSampler(dataset)  # type: ignore[arg-type]
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called: int | None = None
        self._iterator = None
        self.check_worker_number_rationality()

    # --- configuration ------------------------------------------------------------------------

    @property
    def multiprocessing_context(self) -> Any:
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, context: Any) -> None:
        if context is not None:
            import multiprocessing  # deferred: only loaders with workers need it (import time)
            if self.num_workers <= 0:
                raise ValueError("multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
            if isinstance(context, str):
                methods = multiprocessing.get_all_start_methods()
                if context not in methods:
                    raise ValueError("multiprocessing_context option should specify a valid start method in "
                                     f"{methods!r}, but got multiprocessing_context={context!r}")
                context = multiprocessing.get_context(context)
            if not isinstance(context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context object or a string "
                                f"specifying the start method, but got multiprocessing_context={context}")
        self.__multiprocessing_context = context

    def __setattr__(self, attr: str, val: Any) -> None:
        if self.__initialized and attr in _FROZEN_AFTER_INIT:
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        """What the fetchers are fed: the batch sampler when batching, else the sampler."""
        return self.batch_sampler if self._auto_collation else self.sampler

    # --- iteration ----------------------------------------------------------------------------

    def _get_iterator(self) -> "_BaseDataLoaderIter":
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self) -> "_BaseDataLoaderIter":
        # Persistent workers: one iterator (and one set of processes) for the loader's lifetime.
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self) -> int:
        if self._dataset_kind == DatasetKind.Iterable:
            # Remember the length, to warn when the dataset yields more than it said.
            length = self._IterableDataset_len_called = len(self.dataset)  # type: ignore[arg-type]
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self) -> None:
        """Warn when asked for more workers than this process may use CPUs."""
        if not self.num_workers:
            return
        cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if cpus is not None and self.num_workers <= cpus:
            return
        checked = "" if hasattr(os, "sched_getaffinity") else " (`cpuset` is not taken into account)"
        suggestion = (f"Our suggested max number of worker in current system is {cpus}{checked}, which is smaller "
                      "than what this DataLoader is going to create." if cpus is not None else
                      "DataLoader is not able to compute a suggested max number of worker in current system.")
        warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. {suggestion} "
                      "Please be aware that excessive worker creation might get DataLoader running slow or even "
                      "freeze, lower the worker number to avoid potential slowness/freeze if necessary.",
                      stacklevel=2)


class _BaseDataLoaderIter:
    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be used as the device,"
                          f"ignore pin_memory_device='{loader.pin_memory_device}'.", stacklevel=3)
        if loader.pin_memory:  # torchpy has no accelerator: pinning is a no-op, as torch's on CPU
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=3)
        self._pin_memory = False
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # Drawn for every iterator, workers or not, so the loader's stream moves as torch's does.
        self._base_seed = int(_F.empty((), dtype=_dt.int64).random_(generator=loader.generator).item())
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self) -> "_BaseDataLoaderIter":
        return self

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self) -> Any:
        return next(self._sampler_iter)  # may raise StopIteration

    def _next_data(self) -> Any:
        raise NotImplementedError

    def __next__(self) -> Any:
        data = self._next_data()
        self._num_yielded += 1
        if (self._dataset_kind == DatasetKind.Iterable and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            msg = (f"Length of IterableDataset {self._dataset} was reported to be {self._IterableDataset_len_called}"
                   f"(when accessing len(dataloader)), but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                        "IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self) -> Any:
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._fetcher = create_fetcher(self._dataset_kind, self._dataset, self._auto_collation,
                                       self._collate_fn, self._drop_last)

    def _next_data(self) -> Any:
        index = self._next_index()  # may raise StopIteration
        return self._fetcher.fetch(index)  # may raise StopIteration


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Workers take tasks round-robin from their own index queues (at most prefetch_factor
    outstanding each) and answer on one shared queue; answers that come early wait in
    _task_info until their turn, so batches come out in the sampler's order."""

    def __init__(self, loader: DataLoader) -> None:
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        import multiprocessing  # deferred: only loaders with workers need it (import time)
        context = loader.multiprocessing_context or multiprocessing.get_context()
        self._worker_init_fn = loader.worker_init_fn
        self._shutdown = False
        self._worker_result_queue = context.Queue()
        self._workers_done_event = context.Event()
        self._index_queues: list[Any] = []
        self._workers: list[Any] = []
        for worker_id in range(self._num_workers):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()  # never block exit on tasks no worker will read
            process = context.Process(
                target=_worker.worker_loop,
                args=(self._dataset_kind, self._dataset, index_queue, self._worker_result_queue,
                      self._workers_done_event, self._auto_collation, self._collate_fn, self._drop_last,
                      self._base_seed, self._worker_init_fn, worker_id, self._num_workers),
                daemon=True)
            process.start()
            self._index_queues.append(index_queue)
            self._workers.append(process)
        self._data_queue = self._worker_result_queue
        self._reset(loader, first_iter=True)

    def _reset(self, loader: DataLoader, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0  # the next task's id
        self._rcvd_idx = 0  # the id of the next batch to return
        # task id -> (worker id,) while outstanding, (worker id, data) once it came early
        self._task_info: dict[int, tuple] = {}
        self._tasks_outstanding = 0
        self._workers_num_tasks = [0] * self._num_workers
        self._workers_status = [True] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:  # persistent workers: tell each that an epoch starts, and wait for all
            for index_queue in self._index_queues:
                index_queue.put(_worker.ResumeIteration())
            pending = self._num_workers
            while pending > 0:
                answer, _ = self._get_data()
                if isinstance(answer, _worker.ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self) -> None:
        max_tasks = self._prefetch_factor * self._num_workers
        if self._tasks_outstanding >= max_tasks:
            return
        try:
            index = self._next_index()
        except StopIteration:
            return
        # The next worker still taking tasks; out of order, the next one with room for more.
        for _ in range(self._num_workers):
            worker_id = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_id] and (
                    self._in_order or self._workers_num_tasks[worker_id] < max_tasks // sum(self._workers_status)):
                break
        else:
            return  # none (iterable datasets all ended, or all full): the index is dropped, as in torch
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._workers_num_tasks[worker_id] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _try_get_data(self, timeout: float) -> tuple[bool, Any]:
        try:
            return True, self._data_queue.get(timeout=timeout)
        except Exception as e:
            failed = [w for i, w in enumerate(self._workers) if self._workers_status[i] and not w.is_alive()]
            if failed:
                for i, w in enumerate(self._workers):
                    if w in failed:
                        self._mark_worker_as_unavailable(i, shutdown=True)
                self._shutdown_workers()
                pids = ", ".join(str(w.pid) for w in failed)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from e
            if isinstance(e, queue.Empty):
                return False, None
            raise

    def _get_data(self) -> tuple[Any, Any]:
        if self._timeout > 0:
            ok, data = self._try_get_data(self._timeout)
            if ok:
                return data
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        while True:
            ok, data = self._try_get_data(_worker.STATUS_CHECK_INTERVAL)
            if ok:
                return data

    def _next_data(self) -> Any:
        while True:
            # Skip tasks of workers that ended (iterable datasets) and never answered.
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None and (len(info) == 2 or self._workers_status[info[0]]):
                    break
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:  # it came early: return it now
                self._rcvd_idx += 1
                return self._process_data(*self._task_info.pop(self._rcvd_idx - 1))
            task_id, data = self._get_data()
            self._tasks_outstanding -= 1
            if isinstance(data, _worker.IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if task_id != self._rcvd_idx:
                if not self._in_order:  # in_order=False: whatever is ready, as it comes
                    return self._process_data(self._task_info.pop(task_id)[0], data)
                self._task_info[task_id] += (data,)
                continue
            self._rcvd_idx += 1
            return self._process_data(self._task_info.pop(task_id)[0], data)

    def _process_data(self, worker_id: int, data: Any) -> Any:
        self._workers_num_tasks[worker_id] -= 1
        self._try_put_index()
        if isinstance(data, _worker.ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id: int, shutdown: bool = False) -> None:
        """Stop sending to a worker; ask it to exit (its None after the epoch's tasks)."""
        self._workers_status[worker_id] = False
        if not shutdown:
            self._index_queues[worker_id].put(None)

    def _shutdown_workers(self) -> None:
        """Stop every worker: set the done event, send each None, join, terminate laggards."""
        if getattr(self, "_shutdown", True):  # done already, or __init__ never got to the workers
            return
        self._shutdown = True
        if not hasattr(self, "_workers_status"):  # a worker failed to start: stop the others
            self._workers_status = [True] * len(self._workers)
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id)
            for process in self._workers:
                process.join(timeout=_worker.STATUS_CHECK_INTERVAL * 5)
            for index_queue in self._index_queues:
                index_queue.cancel_join_thread()
                index_queue.close()
            self._worker_result_queue.cancel_join_thread()
            self._worker_result_queue.close()
        finally:
            for process in self._workers:
                if process.is_alive():
                    process.terminate()
                    process.join()

    def __del__(self) -> None:
        self._shutdown_workers()
