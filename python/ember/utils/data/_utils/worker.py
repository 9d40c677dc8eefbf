"""The worker process of a DataLoader (torch.utils.data._utils.worker): it takes batches of
indices from its index queue and puts (index, collated batch) on the shared result queue; an
exception goes back wrapped with its traceback, the end of an IterableDataset as a marker."""
import os
import queue
import random
from dataclasses import dataclass
from typing import Optional

from . import HAS_NUMPY, ExceptionWrapper


class ManagerWatchdog:
    r"""Tells a worker whether the process that started it is still alive."""

    def __init__(self):
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self):
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


_worker_info = None

# How long a worker waits on its index queue before looking at the done event and its parent.
# Shorter than PyTorch's 5 s: when an abandoned iterator is collected as garbage, its index
# queues may be finalized before its __del__ sends the workers None, and the workers then learn
# of the shutdown only from the event; with 5 s the main process's join waited that long per
# worker (PyTorch 1.13 behaves so).
_POLL_INTERVAL = 0.25


class WorkerInfo:
    r"""What get_worker_info() returns in a worker: id, num_workers, seed, dataset (this
    worker's copy). Read-only."""
    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError("Cannot assign attributes to {} objects".format(self.__class__.__name__))
        return super().__setattr__(key, val)

    def __repr__(self):
        items = ["{}={}".format(k, getattr(self, k)) for k in self.__keys]
        return "{}({})".format(self.__class__.__name__, ", ".join(items))


def get_worker_info():
    r"""In a DataLoader worker: a WorkerInfo (id, num_workers, seed, dataset); None in the main
    process. An IterableDataset uses it to read only its share of the data."""
    return _worker_info


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    seed: Optional[int] = None


def _numpy_seed(base_seed, worker_id):
    # A distinct, well-mixed numpy seed per worker (numpy's own SeedSequence hashing).
    import numpy as np
    return np.random.SeedSequence([worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32]).generate_state(4)


def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation,
                 collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers,
                 persistent_workers, shared_seed):
    import ember
    from ..dataloader import _DatasetKind

    # ember's intra-op pool is not touched here: after fork its threads do not exist in this
    # process, and a parallel region then runs on the calling thread alone.
    try:
        seed = base_seed + worker_id
        random.seed(seed)
        ember.manual_seed(seed)
        if HAS_NUMPY:
            import numpy as np
            np.random.seed(_numpy_seed(base_seed, worker_id))

        global _worker_info
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)

        init_exception = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where="in DataLoader worker process {}".format(worker_id))

        # When the main process asks for a batch after this worker's IterableDataset ended, the
        # request is ignored (iteration_end) until the next _ResumeIteration.
        iteration_end = False
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=_POLL_INTERVAL)
            except queue.Empty:
                if done_event.is_set():
                    break  # shutdown whose None could not reach us (see _POLL_INTERVAL)
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put((r, None))  # acknowledge: the main process waits for every worker
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation,
                                                      collate_fn, drop_last)
                continue
            if r is None:
                assert done_event.is_set() or iteration_end
                break
            if done_event.is_set() or iteration_end:
                continue  # draining after shutdown began or after the end of the stream
            idx, index = r
            if init_exception is not None:
                data = init_exception
                init_exception = None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where="in DataLoader worker process {}".format(worker_id))
            data_queue.put((idx, data))
            del data, idx, index, r  # let the batch go as soon as it has been sent
    except KeyboardInterrupt:
        pass  # the main process handles the interrupt and shuts the workers down
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
