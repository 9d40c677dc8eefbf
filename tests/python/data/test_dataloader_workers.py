"""DataLoader with worker processes, and shared memory: batches as without workers, in order;
worker_init_fn / get_worker_info; IterableDataset sharding; persistent workers; a worker's
exception or death becomes an error in the main process (never a hang); batches arrive in
shared memory; nothing is left in /dev/shm and no file descriptor leaks.

Every test runs under an alarm, so a bug that would hang fails instead."""
import gc
import multiprocessing as mp
import os
import re
import signal
import time

import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import ember
import ember.multiprocessing as emp
import ember.utils.data as edata

TEST_TIMEOUT = 40


@pytest.fixture(autouse=True)
def hang_guard():
    def on_alarm(signum, frame):
        raise TimeoutError(f"test did not finish within {TEST_TIMEOUT} s (a hang)")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(TEST_TIMEOUT)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def shm_entries():
    return set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()


def open_fds():
    return len(os.listdir("/proc/self/fd"))


class Rows(edata.Dataset):
    """Sample i: a (2, 3) float tensor filled with i and the label i."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return ember.full((2, 3), float(i)), i


class TRows(tdata.Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.full((2, 3), float(i)), i


def flat(batches):
    return [(x.tolist(), y.tolist()) for x, y in batches]


@pytest.mark.parametrize("kwargs", [{"batch_size": 4}, {"batch_size": 3, "drop_last": True},
                                    {"batch_size": 5, "prefetch_factor": 1}, {"batch_size": None}])
def test_worker_batches_equal_single_process_and_torch(kwargs):
    e0 = edata.DataLoader(Rows(17), num_workers=0, **{k: v for k, v in kwargs.items() if k != "prefetch_factor"})
    e2 = edata.DataLoader(Rows(17), num_workers=2, **kwargs)
    t2 = tdata.DataLoader(TRows(17), num_workers=2, **kwargs)
    got = list(e2)
    if kwargs.get("batch_size") is None:
        assert [(x.tolist(), y) for x, y in got] == [(x.tolist(), y) for x, y in t2]
        return
    assert flat(got) == flat(e0) == flat(t2)
    assert len(e2) == len(t2) == len(got)
    assert all(type(x) is ember.Tensor and x.dtype == ember.float32 and y.dtype == ember.int64 for x, y in got)


def test_worker_batches_are_in_shared_memory():
    batches = list(edata.DataLoader(Rows(8), batch_size=4, num_workers=2))
    for x, y in batches:
        assert x.is_shared() and y.is_shared()
    x = ember.ones(3)
    assert not x.is_shared()
    assert x.share_memory_() is x and x.is_shared()
    assert x.tolist() == [1.0, 1.0, 1.0]


def test_share_memory_moves_every_view():
    x = ember.arange(6.0)
    v = x[2:4]
    x.share_memory_()
    assert v.is_shared() and x.is_shared()
    v.fill_(7.0)
    assert x.tolist() == [0.0, 1.0, 7.0, 7.0, 4.0, 5.0]
    assert ember.empty(0).share_memory_().is_shared()
    m = ember.zeros(2, device="meta")
    assert not m.is_shared() and not torch.zeros(2, device="meta").is_shared()
    with pytest.raises(RuntimeError, match="^_share_fd_: only available on CPU$"):
        m.share_memory_()
    with pytest.raises(RuntimeError, match="^_share_fd_: only available on CPU$"):
        torch.zeros(2, device="meta").share_memory_()


def _child_adds_one(q_in, q_out):
    t = q_in.get()
    t.add_(1)  # in place, in the shared segment
    q_out.put((t.is_shared(), t[1:]))  # a view goes back: it must map the same memory
    q_in.get()  # a sender lives until its tensors are received (as with PyTorch's file descriptors)


def test_tensor_through_multiprocessing_queue_shares_memory():
    ctx = emp.get_context("fork")
    q_in, q_out = ctx.Queue(), ctx.Queue()
    t = ember.zeros(4)
    p = ctx.Process(target=_child_adds_one, args=(q_in, q_out))
    p.start()
    q_in.put(t)
    shared, view = q_out.get(timeout=20)
    q_in.put(None)
    p.join(10)
    assert shared and t.is_shared()
    assert t.tolist() == [1.0, 1.0, 1.0, 1.0]  # the child's write landed in our tensor
    view.fill_(5.0)
    assert t.tolist() == [1.0, 5.0, 5.0, 5.0]  # the returned view maps our memory too


def test_parameter_and_requires_grad_survive_the_queue():
    ctx = emp.get_context("fork")
    q = ctx.Queue()
    p = ember.nn.Parameter(ember.ones(2))
    r = ember.ones(3).requires_grad_()
    q.put((p, r))
    p2, r2 = q.get(timeout=10)
    assert type(p2) is ember.nn.Parameter and p2.requires_grad and r2.requires_grad and r2.is_leaf
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor"):
        from ember.multiprocessing.reductions import reduce_tensor
        reduce_tensor(r * 2)


@pytest.mark.filterwarnings("ignore:This DataLoader will create 3 worker processes")
def test_worker_init_fn_and_worker_info():
    def init(worker_id):
        info = edata.get_worker_info()
        assert info.id == worker_id and info.num_workers == 3
        info.dataset.tag = worker_id

    class Tagged(edata.Dataset):
        tag = None

        def __len__(self):
            return 6

        def __getitem__(self, i):
            info = edata.get_worker_info()
            return ember.tensor([i, self.tag, info.id, info.seed])

    assert edata.get_worker_info() is None
    rows = ember.cat(list(edata.DataLoader(Tagged(), batch_size=2, num_workers=3, worker_init_fn=init))).tolist()
    assert [r[0] for r in rows] == list(range(6))
    for i, tag, wid, seed in rows:
        assert tag == wid == (i // 2) % 3  # batches go round robin
    seeds = {wid: seed for _, _, wid, seed in rows}
    assert seeds[1] - seeds[0] == 1 and seeds[2] - seeds[0] == 2  # base_seed + worker id
    info = edata._utils.worker.WorkerInfo(id=0, num_workers=1, seed=3, dataset=None)
    assert repr(info) == "WorkerInfo(id=0, num_workers=1, seed=3, dataset=None)"
    with pytest.raises(RuntimeError, match="Cannot assign attributes to WorkerInfo objects"):
        info.id = 2


class Stream(edata.IterableDataset):
    def __init__(self, start, end, shard=True):
        self.start, self.end, self.shard = start, end, shard

    def __iter__(self):
        info = edata.get_worker_info()
        if info is None or not self.shard:
            return iter(range(self.start, self.end))
        per = -(-(self.end - self.start) // info.num_workers)
        lo = self.start + info.id * per
        return iter(range(lo, min(lo + per, self.end)))


def test_iterable_dataset_with_workers():
    got = [int(x) for x in edata.DataLoader(Stream(3, 7), num_workers=2)]
    assert got == [3, 5, 4, 6]  # as PyTorch's documented example
    got = [b.tolist() for b in edata.DataLoader(Stream(0, 10), batch_size=3, num_workers=2)]
    assert sorted(sum(got, [])) == list(range(10))
    got = [int(x) for x in edata.DataLoader(Stream(3, 7, shard=False), num_workers=2)]
    assert got == [3, 3, 4, 4, 5, 5, 6, 6]  # each worker iterates its own copy


def test_persistent_workers_keep_their_processes_across_epochs():
    class Pid(edata.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return os.getpid()

    dl = edata.DataLoader(Pid(), batch_size=1, num_workers=2, persistent_workers=True)
    first = {int(b) for b in dl}
    second = {int(b) for b in dl}
    assert first == second and len(first) == 2 and os.getpid() not in first
    it = dl._iterator
    partial = iter(dl)  # an epoch abandoned half way ...
    next(partial)
    assert {int(b) for b in dl} == first  # ... and the next one is whole
    assert it is dl._iterator
    it._shutdown_workers()


class Failing(edata.Dataset):
    def __init__(self, exc):
        self.exc = exc

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise self.exc
        return ember.tensor([i])


def test_worker_exception_reraised_with_worker_id_and_traceback():
    with pytest.raises(ValueError) as info:
        list(edata.DataLoader(Failing(ValueError("bad index 5")), batch_size=2, num_workers=2))
    msg = str(info.value)
    assert msg.startswith("Caught ValueError in DataLoader worker process 0.\nOriginal Traceback (most recent call last):\n")
    assert "in __getitem__" in msg and msg.rstrip().endswith("ValueError: bad index 5")
    with pytest.raises(KeyError) as info:
        list(edata.DataLoader(Failing(KeyError("k")), batch_size=2, num_workers=1))
    assert str(info.value).startswith("Caught KeyError in DataLoader worker process 0.\nOriginal Traceback")


def test_worker_exception_matches_torch_text():
    class TFailing(tdata.Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            if i == 5:
                raise ValueError("bad index 5")
            return torch.tensor([i])

    titer = iter(tdata.DataLoader(TFailing(), batch_size=2, num_workers=2))
    with pytest.raises(ValueError) as t:
        list(titer)
    titer._shutdown_workers()  # now: collected later as garbage, torch's shutdown waits 5 s per worker
    with pytest.raises(ValueError) as e:
        list(edata.DataLoader(Failing(ValueError("bad index 5")), batch_size=2, num_workers=2))
    first_line = lambda s: s.split("\n")[:2]  # noqa: E731
    assert first_line(str(e.value)) == first_line(str(t.value))


def test_worker_init_fn_exception_is_reported():
    def init(worker_id):
        raise RuntimeError(f"init failed in {worker_id}")

    with pytest.raises(RuntimeError) as info:
        list(edata.DataLoader(Rows(4), num_workers=1, worker_init_fn=init))
    msg = str(info.value)
    assert msg.startswith("Caught RuntimeError in DataLoader worker process 0.\nOriginal Traceback")
    assert msg.rstrip().endswith("RuntimeError: init failed in 0")


class Dies(edata.Dataset):
    def __init__(self, how):
        self.how = how

    def __len__(self):
        return 64

    def __getitem__(self, i):
        if i == 5:
            if self.how == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(3)
        return ember.tensor([i])


# PyTorch gives one of two texts: the pid with its signal or exit code when the SIGCHLD handler
# or the status check sees the worker die (the usual case), or the bare "pid(s) ... exited
# unexpectedly" when the worker was reaped before anyone looked (a race a loaded machine wins).
REAPED_EARLY = r"|^DataLoader worker \(pid\(s\) \d+\) exited unexpectedly$"


@pytest.mark.parametrize("how,message", [
    ("kill", r"^DataLoader worker \(pid \d+\) is killed by signal: Killed\. $" + REAPED_EARLY),
    ("exit", r"^DataLoader worker \(pid \d+\) exited unexpectedly with exit code 3\. Details are lost due "
             r"to multiprocessing\. Rerunning with num_workers=0 may give better error trace\.$" + REAPED_EARLY),
])
def test_dead_worker_is_an_error_not_a_hang(how, message):
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=message) as info:
        list(edata.DataLoader(Dies(how), batch_size=2, num_workers=2))
    assert time.monotonic() - t0 < 15
    assert type(info.value) is RuntimeError


def test_timeout():
    class Slow(edata.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            time.sleep(3)
            return i

    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.3 seconds$"):
        list(edata.DataLoader(Slow(), num_workers=1, timeout=0.3))


def test_spawn_context():
    dl = edata.DataLoader(edata.TensorDataset(ember.arange(6)), batch_size=2, num_workers=1,
                          multiprocessing_context="spawn")
    assert isinstance(dl.multiprocessing_context, mp.context.SpawnContext)
    assert [b[0].tolist() for b in dl] == [[0, 1], [2, 3], [4, 5]]


def test_no_leaks_in_dev_shm_or_fds():
    before_shm, before_fds = shm_entries(), open_fds()
    for _ in range(3):
        for x, y in edata.DataLoader(Rows(40), batch_size=4, num_workers=2):
            assert x.is_shared()
        del x, y
    gc.collect()  # (multiprocessing's pipes may wait for the cyclic collector)
    assert shm_entries() - before_shm == set()
    assert open_fds() - before_fds <= 2  # (queues' pipes may be kept by multiprocessing)


def test_sharing_strategy():
    assert emp.get_sharing_strategy() == "file_descriptor"
    assert emp.get_all_sharing_strategies() == {"file_descriptor"}
    emp.set_sharing_strategy("file_descriptor")
    with pytest.raises(AssertionError):
        emp.set_sharing_strategy("file_system")
    assert emp.Queue is not None and emp.Process is mp.Process


def test_persistent_workers_with_iterable_dataset():
    dl = edata.DataLoader(Stream(0, 6), batch_size=2, num_workers=2, persistent_workers=True)
    epochs = [sorted(sum((b.tolist() for b in dl), [])) for _ in range(3)]
    assert epochs == [list(range(6))] * 3
    dl._iterator._shutdown_workers()


def test_reachable_as_attributes():
    import importlib
    ember_again = importlib.import_module("ember")
    assert ember_again.utils.data.DataLoader is edata.DataLoader
    assert ember_again.multiprocessing is emp
    assert emp.reductions.ForkingPickler._extra_reducers[ember.Tensor] is emp.reductions.reduce_tensor


def test_worker_killed_while_main_process_is_busy_raises_from_sigchld():
    it = iter(edata.DataLoader(Rows(64), batch_size=2, num_workers=2))
    next(it)
    pid = it._workers[1].pid
    with pytest.raises(RuntimeError, match=r"^DataLoader worker \(pid {}\) is killed by signal: Killed\. $".format(pid)):
        os.kill(pid, signal.SIGKILL)
        time.sleep(10)  # the SIGCHLD handler interrupts this
    it._shutdown_workers()
    assert all(not w.is_alive() for w in it._workers)


def test_share_memory_and_is_shared_honour_torch_function_as_torch():
    def run(lib):
        seen = []

        class Log(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                seen.append(func.__name__)
                return super().__torch_function__(func, types, args, kwargs or {})

        x = lib.ones(2).as_subclass(Log)
        r = x.share_memory_()
        return type(r).__name__, x.is_shared(), seen

    assert run(ember) == run(torch) == ("Log", True, ["share_memory_", "is_shared"])


EXIT_WITH_LIVE_WORKERS = """
import ember
import ember.utils.data as data
dl = data.DataLoader(data.TensorDataset(ember.arange(8.)), batch_size=2, num_workers=2,
                     persistent_workers=True)
print([b[0].tolist() for b in dl])
"""


def test_interpreter_exit_with_persistent_workers_is_quiet():
    # At exit multiprocessing terminates the persistent workers (SIGTERM): that is no worker
    # failure, and nothing may be reported (as torch, whose workers exit quietly then).
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(ember.__file__)))
    proc = subprocess.run([sys.executable, "-c", EXIT_WITH_LIVE_WORKERS], capture_output=True,
                          text=True, timeout=30, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]"
    assert proc.stderr == ""
