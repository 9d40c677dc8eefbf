"""DataLoader (torch.utils.data.dataloader): batches from a dataset, in the main process
(num_workers=0) or from worker processes.

With workers, each worker gets batches of indices on its own queue and puts (task index, batch)
on one result queue; the main process hands batches out in sampler order whatever order they
arrive in, keeping prefetch_factor * num_workers tasks in flight. A batch collated in a worker
lives in shared memory and crosses as a file descriptor (ember.multiprocessing). A worker's
exception comes back wrapped with its traceback and is raised again in the main process; a
worker that dies (a signal, os._exit) is noticed by the SIGCHLD handler or the periodic check
of the queue wait, so the main process raises instead of waiting forever.
"""
import itertools
import math
import multiprocessing as python_multiprocessing
import os
import queue
import time
import warnings
from typing import Any, Callable, Generic, Iterable, List, Optional, Sequence, TypeVar, Union

import ember
import ember.multiprocessing as multiprocessing

from . import _utils
from ._utils import ExceptionWrapper
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert"]

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")
_worker_init_fn_t = Callable[[int], None]
_collate_fn_t = Callable[[List[T]], Any]

default_collate: _collate_fn_t = _utils.collate.default_collate
default_convert = _utils.collate.default_convert
get_worker_info = _utils.worker.get_worker_info


class _DatasetKind:
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        if kind == _DatasetKind.Map:
            return _utils.fetch._MapDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)
        return _utils.fetch._IterableDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)


class _InfiniteConstantSampler(Sampler):
    r"""The sampler of an IterableDataset: None forever (the dataset decides when to stop)."""

    def __init__(self):
        super().__init__(None)

    def __iter__(self):
        while True:
            yield None


def _draw_seed(generator):
    t = ember.empty((), dtype=ember.int64)
    if generator is None:
        return t.random_(0, None).item()
    return t.random_(0, None, generator=generator).item()


class DataLoader(Generic[T_co]):
    r"""Iterates over `dataset` in batches.

    Args as torch.utils.data.DataLoader: batch_size (None: no batching), shuffle, sampler,
    batch_sampler, num_workers, collate_fn, pin_memory (no effect: ember has only CPU memory),
    drop_last, timeout (seconds to wait for a worker's batch; 0 waits as long as the workers
    live), worker_init_fn, multiprocessing_context, generator, and keyword-only
    prefetch_factor, persistent_workers, pin_memory_device.
    """
    __initialized = False

    def __init__(self, dataset: Dataset[T_co], batch_size: Optional[int] = 1,
                 shuffle: Optional[bool] = None, sampler: Union[Sampler, Iterable, None] = None,
                 batch_sampler: Union[Sampler[Sequence], Iterable[Sequence], None] = None,
                 num_workers: int = 0, collate_fn: Optional[_collate_fn_t] = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Optional[_worker_init_fn_t] = None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor: int = 2,
                 persistent_workers: bool = False, pin_memory_device: str = ""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor != 2:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing.")
        assert prefetch_factor > 0
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

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 "shuffle option, but got shuffle={}".format(shuffle))
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 "sampler option, but got sampler={}".format(sampler))
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 "batch_sampler option, but got batch_sampler={}".format(batch_sampler))
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive "
                                 "with batch_size, shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None:
            if drop_last:
                raise ValueError("batch_size=None option disables auto-batching "
                                 "and is mutually exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = _utils.collate.default_collate if self._auto_collation else _utils.collate.default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None  # len(dataset) as read by len(loader)
        self._iterator = None
        self.check_worker_number_rationality()

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context):
        if multiprocessing_context is not None:
            if self.num_workers > 0:
                if isinstance(multiprocessing_context, str):
                    valid_start_methods = multiprocessing.get_all_start_methods()
                    if multiprocessing_context not in valid_start_methods:
                        raise ValueError(
                            "multiprocessing_context option should specify a valid start method "
                            "in {!r}, but got multiprocessing_context={!r}".format(
                                valid_start_methods, multiprocessing_context))
                    multiprocessing_context = multiprocessing.get_context(multiprocessing_context)
                if not isinstance(multiprocessing_context, python_multiprocessing.context.BaseContext):
                    raise TypeError("multiprocessing_context option should be a valid context object "
                                    "or a string specifying the start method, but got "
                                    "multiprocessing_context={}".format(multiprocessing_context))
            else:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 "loading (num_workers > 0), but got num_workers={}".format(self.num_workers))
        self.__multiprocessing_context = multiprocessing_context

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                           "dataset", "persistent_workers"):
            raise ValueError("{} attribute should not be set after {} is "
                             "initialized".format(attr, self.__class__.__name__))
        super().__setattr__(attr, val)

    def __iter__(self):
        # Persistent workers: one iterator (and one set of worker processes) for every epoch.
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._dataset_kind == _DatasetKind.Iterable:
            # The dataset's own length, in batches; with several workers each replica may yield
            # the whole stream, so the loader warns when more batches than this come.
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        if not self.num_workers:
            return
        suggested, cpuset_checked = None, False
        if hasattr(os, "sched_getaffinity"):
            try:
                suggested = len(os.sched_getaffinity(0))
                cpuset_checked = True
            except Exception:
                pass
        if suggested is None:
            suggested = os.cpu_count()
        if suggested is not None and self.num_workers <= suggested:
            return
        if suggested is not None:
            detail = ("Our suggested max number of worker in current system is {}{}, which is smaller "
                      "than what this DataLoader is going to create.").format(
                          suggested, "" if cpuset_checked else " (`cpuset` is not taken into account)")
        else:
            detail = "DataLoader is not able to compute a suggested max number of worker in current system."
        warnings.warn(
            "This DataLoader will create {} worker processes in total. {} Please be aware that "
            "excessive worker creation might get DataLoader running slow or even freeze, lower the "
            "worker number to avoid potential slowness/freeze if necessary.".format(self.num_workers, detail))


class _BaseDataLoaderIter:
    def __init__(self, loader: DataLoader) -> None:
        self._dataset = loader.dataset
        self._shared_seed = None
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._world_size, self._rank = 1, 0
        self._prefetch_factor = loader.prefetch_factor
        if not loader.pin_memory_device:
            self._pin_memory = False  # page-locked memory only matters for a GPU; ember has none
            self._pin_memory_device = None
        else:
            if not loader.pin_memory:
                warnings.warn("pin memory device is set and pin_memory flag is not used then device "
                              "pinned memory won't be usedplease set pin_memory to true, if you need "
                              "to use the device pin memory")
            self._pin_memory = False
            self._pin_memory_device = loader.pin_memory_device
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = _draw_seed(loader.generator)
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)  # may raise StopIteration

    def _next_data(self):
        raise NotImplementedError

    def __next__(self) -> Any:
        if self._sampler_iter is None:
            self._reset()
        data = self._next_data()
        self._num_yielded += 1
        if (self._dataset_kind == _DatasetKind.Iterable and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            msg = ("Length of IterableDataset {} was reported to be {} (when accessing len(dataloader)), "
                   "but {} samples have been fetched. ").format(
                       self._dataset, self._IterableDataset_len_called, self._num_yielded)
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly "
                        "configuring the IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset "
                        "for examples.")
            warnings.warn(msg)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled", self.__class__.__name__)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        assert self._timeout == 0
        assert self._num_workers == 0
        self._dataset_fetcher = _DatasetKind.create_fetcher(
            self._dataset_kind, self._dataset, self._auto_collation, self._collate_fn, self._drop_last)

    def _next_data(self):
        index = self._next_index()  # may raise StopIteration
        return self._dataset_fetcher.fetch(index)  # may raise StopIteration


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    r"""Batches from worker processes, in sampler order.

    Bookkeeping: task i (a batch of indices) goes to a worker when sent (_send_idx counts them);
    _task_info[i] is (worker,) while outstanding and (worker, data) when it arrived early;
    _rcvd_idx is the next task to hand out. A worker whose IterableDataset ended is marked
    unavailable, and its outstanding tasks are skipped.
    """

    # How often a blocked wait looks at the workers when no SIGCHLD arrives (a worker that was
    # never our child's child, or a handler that could not be installed off the main thread).
    _STATUS_CHECK_INTERVAL = _utils.MP_STATUS_CHECK_INTERVAL

    def __init__(self, loader):
        super().__init__(loader)
        assert self._num_workers > 0
        assert self._prefetch_factor > 0
        ctx = loader.multiprocessing_context if loader.multiprocessing_context is not None else multiprocessing
        self._worker_init_fn = loader.worker_init_fn
        self._worker_result_queue = ctx.Queue()
        self._worker_pids_set = False
        self._shutdown = False
        self._workers_done_event = ctx.Event()
        self._index_queues = []
        self._workers = []
        for i in range(self._num_workers):
            index_queue = ctx.Queue()
            # A worker may exit with indices still queued for it; nothing must wait on them.
            index_queue.cancel_join_thread()
            w = ctx.Process(
                target=_utils.worker._worker_loop,
                args=(self._dataset_kind, self._dataset, index_queue, self._worker_result_queue,
                      self._workers_done_event, self._auto_collation, self._collate_fn,
                      self._drop_last, self._base_seed, self._worker_init_fn, i,
                      self._num_workers, self._persistent_workers, self._shared_seed))
            w.daemon = True
            w.start()
            self._index_queues.append(index_queue)
            self._workers.append(w)
        self._data_queue = self._worker_result_queue
        _utils.signal_handling._set_worker_pids(id(self), tuple(w.pid for w in self._workers))
        _utils.signal_handling._set_SIGCHLD_handler()
        self._worker_pids_set = True
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_status = [True for _ in range(self._num_workers)]
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # Persistent workers start a new epoch: each acknowledges, and whatever the last
            # epoch left in the queue is dropped on the way.
            for idx in range(self._num_workers):
                self._index_queues[idx].put(_utils.worker._ResumeIteration(self._shared_seed))
            remaining = self._num_workers
            while remaining > 0:
                return_idx, return_data = self._get_data()
                if isinstance(return_idx, _utils.worker._ResumeIteration):
                    assert return_data is None
                    remaining -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout=_utils.MP_STATUS_CHECK_INTERVAL):
        try:
            return True, self._data_queue.get(timeout=timeout)
        except Exception as e:
            # Nothing came, or the SIGCHLD handler interrupted the wait: a worker that died
            # explains it, and must not leave us waiting. (Its signal or exit code is the cause.)
            cause = e
            if isinstance(e, queue.Empty):
                try:
                    _utils.signal_handling._error_if_any_worker_fails()
                except RuntimeError as worker_error:
                    cause = worker_error
            if not isinstance(e, queue.Empty):
                # A dying worker's pipe can break (ConnectionResetError, EOFError) before the
                # worker is reaped: give the workers a moment to be seen dead, so that the error
                # names the worker and its exit code, not the socket.
                deadline = time.monotonic() + 2.0
                for worker_id, w in enumerate(self._workers):
                    if self._workers_status[worker_id]:
                        w.join(timeout=max(0.0, deadline - time.monotonic()))
            failed = []
            for worker_id, w in enumerate(self._workers):
                if self._workers_status[worker_id] and not w.is_alive():
                    failed.append(w)
                    self._mark_worker_as_unavailable(worker_id)
            if failed:
                # Note [Which error a dead worker gives]: the pid with its signal or exit code when
                # waitid told us (PyTorch 1.13 gives that as the cause of the message below, or
                # alone when the SIGCHLD handler fires outside this wait); the bare message when
                # the worker was reaped before anyone looked.
                if getattr(cause, "_dataloader_worker_failure", False):
                    raise cause
                pids = ", ".join(str(w.pid) for w in failed)
                raise RuntimeError("DataLoader worker (pid(s) {}) exited unexpectedly".format(pids)) from cause
            if isinstance(e, queue.Empty):
                return False, None
            raise

    def _get_data(self):
        if self._timeout > 0:
            success, data = self._try_get_data(self._timeout)
            if success:
                return data
            raise RuntimeError("DataLoader timed out after {} seconds".format(self._timeout))
        while True:
            success, data = self._try_get_data(self._STATUS_CHECK_INTERVAL)
            if success:
                return data

    def _next_data(self):
        while True:
            # Skip tasks of workers that are done (their IterableDataset ended).
            while self._rcvd_idx < self._send_idx:
                info = self._task_info[self._rcvd_idx]
                if len(info) == 2 or self._workers_status[info[0]]:
                    break
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration

            if len(self._task_info[self._rcvd_idx]) == 2:  # arrived earlier, out of order
                return self._process_data(self._task_info.pop(self._rcvd_idx)[1])

            assert not self._shutdown and self._tasks_outstanding > 0
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._dataset_kind == _DatasetKind.Iterable and \
                    isinstance(data, _utils.worker._IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                self._task_info[idx] += (data,)
            else:
                del self._task_info[idx]
                return self._process_data(data)

    def _try_put_index(self):
        assert self._tasks_outstanding < self._prefetch_factor * self._num_workers
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # the next worker still taking tasks
            worker_queue_idx = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_queue_idx]:
                break
        else:
            return  # every worker is done
        self._index_queues[worker_queue_idx].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_queue_idx,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data):
        self._rcvd_idx += 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id, shutdown=False):
        # The worker gets None on its index queue and exits after the tasks before it.
        assert self._workers_status[worker_id] or (self._persistent_workers and shutdown)
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False
        assert self._workers_done_event.is_set() == shutdown

    def _shutdown_workers(self):
        if _utils is None or _utils.python_exit_status is True or _utils.python_exit_status is None:
            return
        if self._shutdown:
            return
        self._shutdown = True
        # Forget the pids first: a worker that dies while being shut down (or one that died
        # earlier and was reported) must not raise again from the SIGCHLD handler meanwhile.
        if self._worker_pids_set:
            _utils.signal_handling._remove_worker_pids(id(self))
            self._worker_pids_set = False
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id, shutdown=True)
            with _utils.signal_handling._ShutdownInProgress():
                for w in self._workers:
                    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
            self._worker_result_queue.cancel_join_thread()
            self._worker_result_queue.close()

    def __del__(self):
        if getattr(self, "_workers", None) is not None and hasattr(self, "_shutdown"):
            self._shutdown_workers()
