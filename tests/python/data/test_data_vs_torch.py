"""ember.utils.data against torch.utils.data (1.13) in one process: datasets, random_split,
samplers, default_collate / default_convert, and DataLoader without workers (batches, len,
errors). Worker processes and shared memory: test_dataloader_workers.py."""
import collections
import os
import re
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import ember
import ember.utils.data as edata


def as_np(x):
    return x.numpy() if isinstance(x, (torch.Tensor, ember.Tensor)) else np.asarray(x)


def same_structure(e, t):
    """ember's result e has the structure, types, dtypes and values of torch's t."""
    if isinstance(t, torch.Tensor):
        assert type(e) is ember.Tensor, type(e)
        assert str(e.dtype).replace("ember.", "") == str(t.dtype).replace("torch.", "")
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_array_equal(e.numpy(), t.numpy())
    elif isinstance(t, dict):
        assert type(e) is type(t) and list(e) == list(t)
        for k in t:
            same_structure(e[k], t[k])
    elif isinstance(t, (list, tuple)):
        assert type(e) is type(t) and len(e) == len(t), (type(e), type(t))
        for a, b in zip(e, t):
            same_structure(a, b)
    else:
        assert type(e) is type(t) and e == t, (e, t)


def raises_like(fn_e, fn_t, exc_types=Exception):
    """Both raise the same exception type with the same message (ember for torch)."""
    with pytest.raises(exc_types) as te:
        fn_t()
    with pytest.raises(type(te.value)) as ee:
        fn_e()
    assert str(ee.value) == str(te.value).replace("torch.", "ember.")
    return ee.value


def both(name, *args, **kwargs):
    def conv(lib, a):
        if isinstance(a, np.ndarray):
            return lib.from_numpy(a.copy())
        return a
    return (getattr(edata, name)(*[conv(ember, a) for a in args], **kwargs),
            getattr(tdata, name)(*[conv(torch, a) for a in args], **kwargs))


# ---- datasets ----

def test_tensor_dataset_indexing_and_len():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    y = np.arange(6)
    e, t = both("TensorDataset", x, y)
    assert len(e) == len(t) == 6
    same_structure(e[4], t[4])
    same_structure(e[1:3], t[1:3])
    raises_like(lambda: edata.TensorDataset(ember.ones(3), ember.ones(4)),
                lambda: tdata.TensorDataset(torch.ones(3), torch.ones(4)), AssertionError)


class Squares(tdata.Dataset):
    """A plain Python dataset, usable with both libraries (its items are ints)."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i * i


def test_concat_dataset_and_add():
    a, b = edata.TensorDataset(ember.arange(3)), edata.TensorDataset(ember.arange(10, 15))
    c = a + b
    assert type(c) is edata.ConcatDataset and len(c) == 8 and c.cumulative_sizes == [3, 8]
    assert [int(c[i][0]) for i in range(8)] == [0, 1, 2, 10, 11, 12, 13, 14]
    assert int(c[-1][0]) == 14 and int(c[-8][0]) == 0
    tc = tdata.ConcatDataset([Squares(3), Squares(5)])
    ec = edata.ConcatDataset([Squares(3), Squares(5)])
    assert [ec[i] for i in range(-8, 8)] == [tc[i] for i in range(-8, 8)]
    raises_like(lambda: ec[-9], lambda: tc[-9], ValueError)
    raises_like(lambda: edata.ConcatDataset([]), lambda: tdata.ConcatDataset([]), AssertionError)
    with pytest.warns(DeprecationWarning, match="cummulative_sizes attribute is renamed"):
        assert ec.cummulative_sizes == [3, 8]


class Stream(edata.IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        info = edata.get_worker_info()
        if info is None:
            return iter(range(self.start, self.end))
        per = -(-(self.end - self.start) // info.num_workers)
        lo = self.start + info.id * per
        return iter(range(lo, min(lo + per, self.end)))

    def __len__(self):
        return self.end - self.start


def test_iterable_dataset_chain_and_concat_refusal():
    chain = Stream(0, 3) + Stream(10, 12)
    assert type(chain) is edata.ChainDataset
    assert list(chain) == [0, 1, 2, 10, 11] and len(chain) == 5
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        edata.ConcatDataset([Stream(0, 2)])
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(edata.ChainDataset([Squares(2)]))


def test_subset_indexing():
    base = Squares(10)
    e, t = edata.Subset(base, [9, 2, 5]), tdata.Subset(base, [9, 2, 5])
    assert len(e) == len(t) == 3
    assert [e[i] for i in range(3)] == [t[i] for i in range(3)] == [81, 4, 25]


# ---- random_split ----

@pytest.mark.parametrize("n,lengths", [(10, [3, 7]), (30, [0.3, 0.3, 0.4]), (11, [0.5, 0.5]),
                                       (7, [0.2, 0.2, 0.2, 0.2, 0.2]), (5, [5, 0])])
def test_random_split_lengths_as_torch(n, lengths):
    ember.manual_seed(0)
    with warnings.catch_warnings(record=True) as ew:
        warnings.simplefilter("always")
        es = edata.random_split(range(n), lengths)
    with warnings.catch_warnings(record=True) as tw:
        warnings.simplefilter("always")
        ts = tdata.random_split(range(n), lengths)
    assert [len(s) for s in es] == [len(s) for s in ts]
    assert [str(w.message) for w in ew] == [str(w.message) for w in tw]
    assert all(type(s) is edata.Subset for s in es)
    drawn = [i for s in es for i in s]
    assert sorted(drawn) == list(range(n))  # disjoint, covering everything


def test_random_split_is_reproducible_and_errors_as_torch():
    ember.manual_seed(5)
    a = [list(s) for s in edata.random_split(range(20), [5, 15])]
    ember.manual_seed(5)
    b = [list(s) for s in edata.random_split(range(20), [5, 15])]
    assert a == b and a[0] != list(range(5))  # shuffled (with overwhelming probability)
    raises_like(lambda: edata.random_split(range(10), [3, 8]),
                lambda: tdata.random_split(range(10), [3, 8]), ValueError)
    raises_like(lambda: edata.random_split(range(10), [1.2, -0.2]),
                lambda: tdata.random_split(range(10), [1.2, -0.2]), ValueError)


def _generator_or_skip():
    try:
        return ember.Generator()
    except TypeError:
        pytest.skip("ember.Generator() is not constructible in this build (issue 12's identity part)")


def test_random_split_with_generator():
    g1 = _generator_or_skip().manual_seed(42)
    g2 = ember.Generator().manual_seed(42)
    a = [list(s) for s in edata.random_split(range(30), [0.3, 0.3, 0.4], generator=g1)]
    b = [list(s) for s in edata.random_split(range(30), [0.3, 0.3, 0.4], generator=g2)]
    assert a == b


# ---- samplers ----

def test_sequential_and_batch_sampler_as_torch():
    for n in (0, 1, 7, 8):
        assert list(edata.SequentialSampler(range(n))) == list(tdata.SequentialSampler(range(n)))
        for bs in (1, 3, 8, 10):
            for drop_last in (False, True):
                e = edata.BatchSampler(edata.SequentialSampler(range(n)), bs, drop_last)
                t = tdata.BatchSampler(tdata.SequentialSampler(range(n)), bs, drop_last)
                assert list(e) == list(t) and len(e) == len(t)
    for bad in (0, -1, 2.0, True):
        raises_like(lambda: edata.BatchSampler(range(3), bad, False),
                    lambda: tdata.BatchSampler(range(3), bad, False), ValueError)
    raises_like(lambda: edata.BatchSampler(range(3), 2, 1), lambda: tdata.BatchSampler(range(3), 2, 1),
                ValueError)


def test_random_sampler_rules():
    ember.manual_seed(0)
    s = edata.RandomSampler(range(10))
    order = list(s)
    assert sorted(order) == list(range(10)) and len(s) == 10
    s = edata.RandomSampler(range(4), num_samples=10)
    order = list(s)
    assert len(order) == 10 == len(s)
    assert sorted(order[:4]) == sorted(order[4:8]) == [0, 1, 2, 3]  # whole permutations first
    assert len(set(order[8:])) == 2
    s = edata.RandomSampler(range(3), replacement=True, num_samples=70)
    order = list(s)
    assert len(order) == 70 and set(order) <= {0, 1, 2} and len(set(order)) == 3
    ember.manual_seed(7)
    a = list(edata.RandomSampler(range(50)))
    ember.manual_seed(7)
    assert list(edata.RandomSampler(range(50))) == a
    raises_like(lambda: edata.RandomSampler(range(3), replacement=1),
                lambda: tdata.RandomSampler(range(3), replacement=1), TypeError)
    for bad in (0, -2, 2.5):
        raises_like(lambda: edata.RandomSampler(range(3), num_samples=bad),
                    lambda: tdata.RandomSampler(range(3), num_samples=bad), ValueError)
    raises_like(lambda: edata.RandomSampler([]), lambda: tdata.RandomSampler([]), ValueError)


def test_subset_and_weighted_random_samplers():
    ember.manual_seed(1)
    s = edata.SubsetRandomSampler([10, 20, 30, 40])
    assert sorted(s) == [10, 20, 30, 40] and len(s) == 4
    w = edata.WeightedRandomSampler([0.0, 1.0, 0.0, 2.0], 300)
    drawn = list(w)
    assert len(drawn) == 300 == len(w) and set(drawn) == {1, 3}
    assert 150 < drawn.count(3) < 260  # twice as likely as 1
    assert w.weights.dtype == ember.float64
    w = edata.WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False)
    assert sorted(w) == [0, 1, 2]
    for kwargs in ({"weights": [1.0], "num_samples": 0}, {"weights": [1.0], "num_samples": True},
                   {"weights": [1.0], "num_samples": 1, "replacement": 0},
                   {"weights": [[1.0, 2.0]], "num_samples": 1}):
        raises_like(lambda: edata.WeightedRandomSampler(**kwargs),
                    lambda: tdata.WeightedRandomSampler(**kwargs), ValueError)
    raises_like(lambda: list(edata.WeightedRandomSampler([1.0, 1.0], 3, replacement=False)),
                lambda: list(tdata.WeightedRandomSampler([1.0, 1.0], 3, replacement=False)), RuntimeError)


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (2, 4, False),
                                                  (12, 4, True), (7, 2, False), (1, 3, False)])
def test_distributed_sampler_without_shuffle_as_torch(n, replicas, drop_last):
    for rank in range(replicas):
        e = edata.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        t = tdata.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(e) == list(t) and len(e) == len(t) and e.total_size == t.total_size


def test_distributed_sampler_errors():
    raises_like(lambda: edata.DistributedSampler(range(4), 2, 2),
                lambda: tdata.DistributedSampler(range(4), 2, 2), ValueError)
    raises_like(lambda: edata.DistributedSampler(range(4), 2, -1),
                lambda: tdata.DistributedSampler(range(4), 2, -1), ValueError)
    with pytest.raises(RuntimeError, match="Requires distributed package to be available"):
        edata.DistributedSampler(range(4))


def test_distributed_sampler_shuffle_partitions_and_follows_epoch():
    _generator_or_skip()
    parts = [list(edata.DistributedSampler(range(10), 2, r, seed=3)) for r in range(2)]
    assert sorted(parts[0] + parts[1]) == list(range(10))
    again = [list(edata.DistributedSampler(range(10), 2, r, seed=3)) for r in range(2)]
    assert again == parts  # every replica draws the same permutation
    s = edata.DistributedSampler(range(10), 2, 0, seed=3)
    s.set_epoch(1)
    assert s.epoch == 1 and list(s) != parts[0]


# ---- default_collate / default_convert ----

Point = collections.namedtuple("Point", ["x", "y"])


def collate_cases():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    return [
        [1, 2, 3],
        [1.5, 2.0],
        [True, False],
        ["a", "bc"],
        [b"x", b"y"],
        [np.float64(1.5), np.float64(2)],
        [np.int32(3), np.int32(4)],
        [np.bool_(True), np.bool_(False)],
        [a, a + 1],
        [np.arange(3), np.arange(3, 6)],
        [{"a": 1, "b": 2.0}, {"a": 3, "b": 4.0}],
        [collections.OrderedDict(b=1, a=2), collections.OrderedDict(b=3, a=4)],
        [Point(1, 2.0), Point(3, 4.0)],
        [(1, "s"), (2, "t")],
        [[1, 2], [3, 4]],
        [{"img": a, "meta": {"id": 1, "tags": ["p", "q"]}}, {"img": a, "meta": {"id": 2, "tags": ["r", "s"]}}],
    ]


@pytest.mark.parametrize("case", range(len(collate_cases())))
def test_default_collate_as_torch(case):
    batch = collate_cases()[case]
    same_structure(edata.default_collate(batch), tdata.default_collate(batch))


def test_default_collate_tensors_and_namedtuple_types():
    e = edata.default_collate([ember.ones(2, 3), ember.zeros(2, 3)])
    t = tdata.default_collate([torch.ones(2, 3), torch.zeros(2, 3)])
    same_structure(e, t)
    e = edata.default_collate([Point(ember.tensor(1), 2), Point(ember.tensor(3), 4)])
    assert type(e) is Point and e.x.tolist() == [1, 3] and e.y.tolist() == [2, 4]


def test_default_collate_errors_as_torch():
    raises_like(lambda: edata.default_collate([object(), object()]),
                lambda: tdata.default_collate([object(), object()]), TypeError)
    err = raises_like(lambda: edata.default_collate([[1, 2], [3]]),
                      lambda: tdata.default_collate([[1, 2], [3]]), RuntimeError)
    assert "each element in list of batch should be of equal size" in str(err)
    strs = [np.array(["a", "b"]), np.array(["c", "d"])]
    raises_like(lambda: edata.default_collate(strs), lambda: tdata.default_collate(strs), TypeError)
    with pytest.raises(RuntimeError, match="stack expects each tensor to be equal size"):
        edata.default_collate([ember.ones(2), ember.ones(3)])


@pytest.mark.parametrize("sample", [
    np.arange(3), np.float32(2.5), np.int64(4), np.array(["a"]), "text", 3, 2.5,
    {"a": np.arange(2), "b": "x"}, Point(np.arange(2), 1), (np.arange(2), 1), [np.arange(2), "y"],
])
def test_default_convert_as_torch(sample):
    e, t = edata.default_convert(sample), tdata.default_convert(sample)
    if isinstance(t, np.ndarray):
        assert isinstance(e, np.ndarray)
        return
    same_structure(e, t)


def test_default_convert_keeps_tensors():
    x = ember.ones(2)
    assert edata.default_convert(x) is x


# ---- DataLoader without workers ----

def loaders(dataset_np, **kwargs):
    ed = edata.TensorDataset(*[ember.from_numpy(a.copy()) for a in dataset_np])
    td = tdata.TensorDataset(*[torch.from_numpy(a.copy()) for a in dataset_np])
    return edata.DataLoader(ed, **kwargs), tdata.DataLoader(td, **kwargs)


@pytest.mark.parametrize("kwargs", [{}, {"batch_size": 4}, {"batch_size": 4, "drop_last": True},
                                    {"batch_size": None}, {"batch_size": 20}])
def test_dataloader_batches_and_len_as_torch(kwargs):
    data = (np.arange(30, dtype=np.float32).reshape(10, 3), np.arange(10))
    e, t = loaders(data, **kwargs)
    assert len(e) == len(t)
    eb, tb = list(e), list(t)
    assert len(eb) == len(tb)
    for a, b in zip(eb, tb):
        same_structure(a, b)


def test_dataloader_shuffle_and_samplers():
    ds = edata.TensorDataset(ember.arange(20))
    ember.manual_seed(0)
    got = ember.cat([b[0] for b in edata.DataLoader(ds, batch_size=6, shuffle=True)]).tolist()
    assert sorted(got) == list(range(20)) and got != list(range(20))
    ember.manual_seed(0)
    again = ember.cat([b[0] for b in edata.DataLoader(ds, batch_size=6, shuffle=True)]).tolist()
    assert again == got
    sampler = [19, 0, 5]
    assert [b[0].tolist() for b in edata.DataLoader(ds, batch_size=2, sampler=sampler)] == [[19, 0], [5]]
    bs = [[1, 2, 3], [7], [4, 4]]
    dl = edata.DataLoader(ds, batch_sampler=bs)
    assert len(dl) == 3 and dl.batch_size is None
    assert [b[0].tolist() for b in dl] == bs
    dl = edata.DataLoader(ds, batch_size=5, collate_fn=lambda batch: len(batch))
    assert list(dl) == [5, 5, 5, 5]


def test_dataloader_batch_size_none_converts_samples():
    ds = [np.arange(2), {"a": np.float64(1.0)}]
    e = list(edata.DataLoader(ds, batch_size=None))
    t = list(tdata.DataLoader(ds, batch_size=None))
    same_structure(e, t)


def test_dataloader_iterable_dataset_len_and_batches():
    dl = edata.DataLoader(Stream(0, 10), batch_size=4)
    assert len(dl) == 3
    assert [b.tolist() for b in dl] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    dl = edata.DataLoader(Stream(0, 10), batch_size=4, drop_last=True)
    assert len(dl) == 2 and len(list(dl)) == 2
    dl = edata.DataLoader(Stream(0, 3), batch_size=None)
    assert [int(x) for x in dl] == [0, 1, 2]

    class Liar(Stream):
        def __len__(self):
            return 2

    dl = edata.DataLoader(Liar(0, 4), batch_size=None)
    assert len(dl) == 2
    with pytest.warns(UserWarning, match=r"Length of IterableDataset .* was reported to be 2 \(when "
                                         r"accessing len\(dataloader\)\), but 3 samples have been fetched"):
        list(dl)


CONFLICTS = [
    ({"num_workers": -1}, ValueError),
    ({"timeout": -1}, ValueError),
    ({"prefetch_factor": 3}, ValueError),
    ({"persistent_workers": True}, ValueError),
    ({"shuffle": True, "sampler": [0, 1]}, ValueError),
    ({"batch_sampler": [[0]], "batch_size": 2}, ValueError),
    ({"batch_sampler": [[0]], "shuffle": True}, ValueError),
    ({"batch_sampler": [[0]], "drop_last": True}, ValueError),
    ({"batch_sampler": [[0]], "sampler": [0]}, ValueError),
    ({"batch_size": None, "drop_last": True}, ValueError),
    ({"multiprocessing_context": "fork"}, ValueError),
    ({"num_workers": 1, "multiprocessing_context": "nope"}, ValueError),
    ({"num_workers": 1, "multiprocessing_context": 3}, TypeError),
]


@pytest.mark.parametrize("kwargs,exc", CONFLICTS)
def test_dataloader_option_errors_as_torch(kwargs, exc):
    raises_like(lambda: edata.DataLoader(Squares(4), **kwargs),
                lambda: tdata.DataLoader(Squares(4), **kwargs), exc)


@pytest.mark.parametrize("kwargs", [{"shuffle": True}, {"sampler": [0]}, {"batch_sampler": [[0]]}])
def test_dataloader_iterable_dataset_refuses_ordering(kwargs):
    class TStream(tdata.IterableDataset):
        def __iter__(self):
            return iter(range(3))

    e = raises_like(lambda: edata.DataLoader(Stream(0, 3), **kwargs),
                    lambda: tdata.DataLoader(TStream(), **kwargs), ValueError)
    assert str(e).startswith("DataLoader with IterableDataset: expected unspecified")


def test_dataloader_attributes_frozen_after_init():
    dl = edata.DataLoader(Squares(4))
    for attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers"):
        raises_like(lambda: setattr(dl, attr, None), lambda: setattr(tdata.DataLoader(Squares(4)), attr, None),
                    ValueError)
    dl.num_workers = 0  # others may change
    assert type(dl.sampler) is edata.SequentialSampler and type(dl.batch_sampler) is edata.BatchSampler


def test_dataloader_exception_in_main_process_propagates_unchanged():
    class Bad(edata.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            raise ValueError(f"bad {i}")

    with pytest.raises(ValueError, match=re.escape("bad 0")):
        next(iter(edata.DataLoader(Bad(), batch_size=2)))


def test_pin_memory_is_a_no_op():
    dl = edata.DataLoader(edata.TensorDataset(ember.arange(4)), batch_size=2, pin_memory=True)
    assert [b[0].tolist() for b in dl] == [[0, 1], [2, 3]]


def test_too_many_workers_warning_as_torch():
    n = len(os.sched_getaffinity(0)) + 1
    with warnings.catch_warnings(record=True) as ew:
        warnings.simplefilter("always")
        edata.DataLoader(Squares(4), num_workers=n)
    with warnings.catch_warnings(record=True) as tw:
        warnings.simplefilter("always")
        tdata.DataLoader(Squares(4), num_workers=n)
    assert [str(w.message) for w in ew] == [str(w.message) for w in tw]
    assert len(ew) == 1 and f"This DataLoader will create {n} worker processes in total." in str(ew[0].message)
