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
_SIGCHLD_handler_set = False


def _set_worker_pids(key, pids):
    if key in _worker_pids:
        raise RuntimeError("_set_worker_pids should be called only once for each _BaseDataLoaderIter.")
    _worker_pids[key] = tuple(pids)


def _remove_worker_pids(key):
    if _worker_pids.pop(key, None) is None:
        raise RuntimeError("Cannot find worker information for _BaseDataLoaderIter with id {}".format(key))


def _error_if_any_worker_fails():
    for pids in list(_worker_pids.values()):
        for pid in pids:
            try:
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                continue  # reaped already (joined), or not our child
            if info is None or info.si_pid == 0:
                continue  # still running
            if info.si_code == os.CLD_EXITED and info.si_status != 0:
                raise RuntimeError(
                    "DataLoader worker (pid {}) exited unexpectedly with exit code {}. Details are "
                    "lost due to multiprocessing. Rerunning with num_workers=0 may give better "
                    "error trace.".format(pid, info.si_status))
            if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED):
                if info.si_status == signal.SIGBUS:
                    raise RuntimeError(
                        "DataLoader worker (pid {}) is killed by signal: Bus error. It is possible "
                        "that dataloader's workers are out of shared memory. Please try to raise "
                        "your shared memory limit.".format(pid))
                raise RuntimeError("DataLoader worker (pid {}) is killed by signal: {}. ".format(
                    pid, signal.strsignal(info.si_status)))


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
        if not _utils_package().python_exit_status:
            _error_if_any_worker_fails()
        if previous is not None:
            previous(signum, frame)

    signal.signal(signal.SIGCHLD, handler)
    _SIGCHLD_handler_set = True
