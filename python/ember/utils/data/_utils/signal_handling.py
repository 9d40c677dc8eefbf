"""Turning a dead worker into an error in the main process, never a hang.

The main process records its workers' pids; `_error_if_any_worker_fails` looks at each one
without reaping it (waitid with WNOWAIT, so multiprocessing still sees the exit) and raises
PyTorch's RuntimeError for a worker killed by a signal or exited with a non-zero code. It runs
from a SIGCHLD handler (so the error interrupts a blocking wait at once) and from the main
process's periodic check of its queue.
"""
import os
import signal
import threading

from . import IS_WINDOWS

_worker_pids = {}  # id(iterator) -> tuple of pids
_shutdowns_in_progress = 0  # while an iterator joins its workers, SIGCHLD reports nothing
_SIGCHLD_handler_set = False


def _set_worker_pids(key, pids):
    if key in _worker_pids:
        raise RuntimeError("_set_worker_pids should be called only once for each _BaseDataLoaderIter.")
    _worker_pids[key] = tuple(pids)


def _remove_worker_pids(key):
    if _worker_pids.pop(key, None) is None:
        raise RuntimeError("Cannot find worker information for _BaseDataLoaderIter with id {}".format(key))


def _error_if_any_worker_fails():
    # A pid is looked at until it is reported or found gone: the kernel reuses pids, and a
    # later child that got a reaped worker's pid must not be taken for that worker.
    for key, pids in list(_worker_pids.items()):
        for pid in pids:
            try:
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                _forget(key, pid)  # reaped already (joined, or seen dead by is_alive)
                continue
            if info is None or info.si_pid == 0:
                continue  # still running
            if info.si_code == os.CLD_EXITED and info.si_status != 0:
                _forget(key, pid)
                raise _failure(
                    "DataLoader worker (pid {}) exited unexpectedly with exit code {}. Details are "
                    "lost due to multiprocessing. Rerunning with num_workers=0 may give better "
                    "error trace.".format(pid, info.si_status))
            if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED):
                _forget(key, pid)
                if info.si_status == signal.SIGBUS:
                    raise _failure(
                        "DataLoader worker (pid {}) is killed by signal: Bus error. It is possible "
                        "that dataloader's workers are out of shared memory. Please try to raise "
                        "your shared memory limit.".format(pid))
                raise _failure("DataLoader worker (pid {}) is killed by signal: {}. ".format(
                    pid, signal.strsignal(info.si_status)))


def _failure(message):
    # A plain RuntimeError (as PyTorch's), marked so the DataLoader knows it names the worker.
    error = RuntimeError(message)
    error._dataloader_worker_failure = True
    return error


def _forget(key, pid):
    if key in _worker_pids:
        _worker_pids[key] = tuple(p for p in _worker_pids[key] if p != pid)


class _ShutdownInProgress:
    """Around a shutdown's joins: the SIGCHLD handler stays quiet (the workers exiting then are
    meant to, and an error raised into the joins would only abort the shutdown)."""

    def __enter__(self):
        global _shutdowns_in_progress
        _shutdowns_in_progress += 1

    def __exit__(self, *exc):
        global _shutdowns_in_progress
        _shutdowns_in_progress -= 1


def _utils_package():
    import sys
    return sys.modules[__package__]


def _set_SIGCHLD_handler():
    global _SIGCHLD_handler_set
    if IS_WINDOWS or _SIGCHLD_handler_set or threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGCHLD)
    if not callable(previous):
        previous = None

    def handler(signum, frame):
        # At interpreter exit multiprocessing terminates the workers of iterators that were
        # never shut down: not an error then.
        if not _utils_package().python_exit_status and not _shutdowns_in_progress:
            _error_if_any_worker_fails()
        if previous is not None:
            previous(signum, frame)

    signal.signal(signal.SIGCHLD, handler)
    _SIGCHLD_handler_set = True
