"""Observers against torch 1.13 on the same inputs: buffers bit for bit after several updates,
qparams, reprs, errors, state_dict round trips, with_args and Python subclasses."""
import copy
from collections import OrderedDict
import warnings

import numpy as np
import pytest
import torch
import torch.ao.quantization as tq

import ember
import ember.ao.quantization as eq


def E(a):
    return ember.tensor(np.asarray(a, dtype=np.float32))


def T(a):
    return torch.tensor(np.asarray(a, dtype=np.float32))


def bits(t):
    a = np.asarray(t.detach().numpy())
    return a.dtype, a.shape, a.tobytes()


def same(et, tt):
    assert bits(et) == bits(tt), (et, tt)


def batches(seed, n=5, shape=(4, 6), scale=3.0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(shape) * scale * (i + 1) + rng.uniform(-1, 1)).astype(np.float32) for i in range(n)]


def run_both(name, kwargs, data, **ekw):
    t = getattr(tq, name)(**kwargs)
    e = getattr(eq, name)(**{k: _to_ember(v) for k, v in kwargs.items()}, **ekw)
    for x in data:
        rt, re = t(T(x)), e(E(x))
        np.testing.assert_array_equal(re.numpy(), x)
    return t, e


def _to_ember(v):
    if isinstance(v, torch.dtype):
        return getattr(ember, str(v).split(".")[1])
    if isinstance(v, torch.qscheme):
        return getattr(ember, str(v).split(".")[1])
    return v


def check_state(t, e):
    ts, es = t.state_dict(), e.state_dict()
    assert list(ts) == list(es)
    for k in ts:
        same(es[k], ts[k])


def check_qparams(t, e):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ts, tz = t.calculate_qparams()
        es, ez = e.calculate_qparams()
    same(es, ts)
    same(ez, tz)


PER_TENSOR = [
    {},
    {"dtype": torch.qint8},
    {"qscheme": torch.per_tensor_symmetric},
    {"dtype": torch.qint8, "qscheme": torch.per_tensor_symmetric},
    {"reduce_range": True},
    {"dtype": torch.qint8, "reduce_range": True},
    {"quant_min": 0, "quant_max": 127},
    {"quant_min": 0, "quant_max": 15, "qscheme": torch.per_tensor_symmetric},
    {"dtype": torch.qint8, "quant_min": -127, "quant_max": 127, "qscheme": torch.per_tensor_symmetric, "eps": 2 ** -12},
    {"quant_min": 0, "quant_max": 255, "reduce_range": True},
    {"dtype": torch.qint32},
    {"eps": 0.5},
]


@pytest.mark.parametrize("kwargs", PER_TENSOR)
@pytest.mark.parametrize("name", ["MinMaxObserver", "MovingAverageMinMaxObserver"])
def test_per_tensor_observers_match_torch(name, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(3):
            t, e = run_both(name, kwargs, batches(seed))
            check_state(t, e)
            check_qparams(t, e)
            assert repr(e) == repr(t)
            assert (e.quant_min, e.quant_max) == (t.quant_min, t.quant_max)


PER_CHANNEL = [
    {},
    {"ch_axis": 1},
    {"ch_axis": -1},
    {"dtype": torch.qint8, "qscheme": torch.per_channel_symmetric},
    {"dtype": torch.quint8, "qscheme": torch.per_channel_symmetric},
    {"qscheme": torch.per_channel_affine_float_qparams},
    {"quant_min": 0, "quant_max": 127, "ch_axis": 2},
    {"dtype": torch.qint8, "reduce_range": True},
]


@pytest.mark.parametrize("kwargs", PER_CHANNEL)
@pytest.mark.parametrize("name", ["PerChannelMinMaxObserver", "MovingAveragePerChannelMinMaxObserver"])
def test_per_channel_observers_match_torch(name, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, e = run_both(name, kwargs, batches(7, shape=(3, 4, 5)))
        check_state(t, e)
        check_qparams(t, e)
        assert e.ch_axis == t.ch_axis


def test_spec_checklist_values():
    o = eq.MinMaxObserver()
    o(E([-2, 0.5, 3]))
    s, z = o.calculate_qparams()
    assert s.dtype == ember.float32 and s.shape == (1,) and z.dtype == ember.int32
    assert s.item() == np.float32(5 / 255) and z.item() == 102
    o = eq.MinMaxObserver()
    o(E([0, 0, 0]))
    assert o.calculate_qparams()[0].item() == np.float32(np.finfo(np.float32).eps)
    w = eq.default_weight_observer()
    w(E([-2, 0.5, 3]))
    s, z = w.calculate_qparams()
    assert s.item() == np.float32(3 / 127.5) and z.dtype == ember.int64 and z.item() == 0
    m = eq.MovingAverageMinMaxObserver()
    m(E([0, 1]))
    m(E([-1, 3]))
    assert (m.min_val.item(), m.max_val.item()) == (np.float32(-0.01), np.float32(1.02))
    assert eq.MinMaxObserver(reduce_range=True).quant_max == 127
    assert (eq.MinMaxObserver(dtype=ember.qint8, reduce_range=True).quant_min,) == (-64,)


def test_uncalibrated_empty_and_nan_as_torch():
    for lib, mod in ((torch, tq), (ember, eq)):
        o = mod.MinMaxObserver()
        with pytest.warns(UserWarning, match="must run observer before calling calculate_qparams"):
            s, z = o.calculate_qparams()
        assert s.tolist() == [1.0] and z.tolist() == [0] and z.dtype == lib.int64
        x = lib.tensor([])
        assert o(x) is x
        assert o.min_val.item() == float("inf")
        o(lib.tensor([float("nan"), 1.0]))
        assert np.isnan(o.min_val.item()) and np.isnan(o.max_val.item())
        with pytest.raises(AssertionError, match="^min nan should be less than max nan$"):
            o.calculate_qparams()
        p = mod.PerChannelMinMaxObserver()
        with pytest.warns(UserWarning):
            assert p.calculate_qparams()[0].tolist() == [1.0]


ERRORS = [
    ("MinMaxObserver", {"qscheme": "per_channel_affine"}, NotImplementedError),
    ("MovingAverageMinMaxObserver", {"qscheme": "per_channel_affine"}, NotImplementedError),
    ("HistogramObserver", {"qscheme": "per_channel_affine"}, NotImplementedError),
    ("PerChannelMinMaxObserver", {"qscheme": "per_tensor_affine"}, NotImplementedError),
    ("MovingAveragePerChannelMinMaxObserver", {"qscheme": "per_tensor_affine"}, NotImplementedError),
    ("MinMaxObserver", {"qscheme": "per_tensor_symmetric", "reduce_range": True}, NotImplementedError),
    ("PerChannelMinMaxObserver", {"qscheme": "per_channel_symmetric", "reduce_range": True}, NotImplementedError),
    ("MinMaxObserver", {"dtype": "float"}, AssertionError),
    ("MinMaxObserver", {"quant_min": 1, "quant_max": 5}, AssertionError),
    ("MinMaxObserver", {"quant_min": -5, "quant_max": -5}, AssertionError),
    ("MinMaxObserver", {"quant_min": 0, "quant_max": 0}, AssertionError),
    ("MinMaxObserver", {"dtype": "qint8", "quant_min": -200, "quant_max": 100}, AssertionError),
    ("MinMaxObserver", {"bogus": 1}, TypeError),
]


@pytest.mark.parametrize("name,kwargs,exc", ERRORS)
def test_errors_match_torch(name, kwargs, exc):
    def args(lib):
        return {k: (getattr(lib, v) if isinstance(v, str) else v) for k, v in kwargs.items()}

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(exc) as te:
            getattr(tq, name)(**args(torch))
        with pytest.raises(exc) as ee:
            getattr(eq, name)(**args(ember))
    assert str(ee.value) == str(te.value).replace("torch.", "ember.")


def test_abstract_and_placeholder_errors():
    with pytest.raises(TypeError, match="Can't instantiate abstract class ObserverBase with abstract methods "
                                        "calculate_qparams, forward"):
        eq.ObserverBase(ember.quint8)
    for name in ("PlaceholderObserver", "NoopObserver", "RecordingObserver"):
        with pytest.raises(Exception, match=f"calculate_qparams should not be called for {name}"):
            getattr(eq, name)().calculate_qparams()
    assert repr(eq.PlaceholderObserver()) == "PlaceholderObserver()"
    assert eq.NoopObserver().dtype is ember.float16
    d = eq.default_dynamic_quant_observer()
    assert d.dtype is ember.quint8 and d.compute_dtype is ember.quint8
    assert not hasattr(eq.PlaceholderObserver(), "compute_dtype")
    r = eq.RecordingObserver()
    r(E([1, 2]))
    r(E([3]))
    assert [v.tolist() for v in r.get_tensor_value()] == [[1, 2], [3]]


def to_ember_sd(sd):
    out = OrderedDict((k, ember.tensor(v.numpy())) for k, v in sd.items())
    out._metadata = sd._metadata
    return out


def test_state_dict_round_trip_and_torch_checkpoints():
    t = tq.PerChannelMinMaxObserver()
    t(T(np.arange(12).reshape(3, 4)))
    e = eq.PerChannelMinMaxObserver()
    # Without _metadata the version is unknown: torch reads the old key names and fails.
    with pytest.raises(RuntimeError) as ee:
        e.load_state_dict(dict(to_ember_sd(t.state_dict())))
    with pytest.raises(RuntimeError) as te:
        tq.PerChannelMinMaxObserver().load_state_dict(dict(t.state_dict()))
    assert str(ee.value) == str(te.value).replace("torch.", "ember.")
    e.load_state_dict(to_ember_sd(t.state_dict()))
    check_state(t, e)
    check_qparams(t, e)
    assert e.state_dict()._metadata[""]["version"] == 3
    # Empty observers load back with torch's shapes.
    e2 = eq.PerChannelMinMaxObserver()
    e2.load_state_dict(eq.PerChannelMinMaxObserver().state_dict())
    assert e2.min_val.shape == (0,)
    h = eq.HistogramObserver()
    h.load_state_dict(eq.HistogramObserver().state_dict())
    assert h.min_val.shape == () and h.min_val.item() == float("inf")
    th = tq.HistogramObserver()
    th(T([0.5, 1.5, 2.5]))
    eh = eq.HistogramObserver()
    eh.load_state_dict(to_ember_sd(th.state_dict()))
    check_state(th, eh)
    c = copy.deepcopy(e)
    check_state(t, c)


def test_observer_state_dict_helpers():
    m = ember.nn.Sequential(ember.nn.Linear(2, 2))
    m.activation_post_process = eq.MinMaxObserver()
    m.activation_post_process(E([1, 2]))
    sd = eq.get_observer_state_dict(m)
    assert list(sd) == ["activation_post_process.eps", "activation_post_process.min_val",
                        "activation_post_process.max_val"]
    m2 = ember.nn.Sequential(ember.nn.Linear(2, 2))
    m2.activation_post_process = eq.MinMaxObserver()
    eq.load_observer_state_dict(m2, sd)
    assert m2.activation_post_process.max_val.item() == 2.0
    # torch loads non-strictly: nothing missing is reported.
    eq.load_observer_state_dict(m2, {})
    assert m2.activation_post_process.max_val.item() == 2.0


def test_with_args_and_callable_args_like_torch():
    for mod in (tq, eq):
        f = mod.MinMaxObserver.with_args(quant_min=0, quant_max=127).with_args(eps=0.25)
        o = f()
        assert (o.quant_min, o.quant_max, o.eps.item()) == (0, 127, 0.25)
        calls = []
        g = mod.MinMaxObserver.with_callable_args(eps=lambda: calls.append(1) or 0.5)
        assert g().eps.item() == 0.5 and g(eps=1.0).eps.item() == 1.0 and calls == [1]
        assert f() is not f()
    assert repr(eq.default_observer) == repr(tq.default_observer).replace(
        "torch.ao.quantization.observer", "ember.ao.quantization.observer")
    assert repr(eq.default_weight_observer) == repr(tq.default_weight_observer).replace("torch", "ember")


def test_python_subclass_observers():
    class MyObs(eq.ObserverBase):
        def __init__(self, dtype=ember.quint8):
            super().__init__(dtype)
            self.seen = 0

        def forward(self, x):
            self.seen += 1
            return x

        def calculate_qparams(self):
            return ember.tensor([0.5]), ember.tensor([3])

    o = MyObs()
    assert o.dtype is ember.quint8 and repr(o) == "MyObs()"
    seq = ember.nn.Sequential(o)
    seq(E([1.0]))
    assert o.seen == 1
    with pytest.raises(TypeError, match="Can't instantiate abstract class Half with abstract methods forward"):
        type("Half", (eq.ObserverBase,), {"calculate_qparams": lambda self: None})(ember.quint8)

    class Clipped(eq.MinMaxObserver):
        def calculate_qparams(self):
            s, z = super().calculate_qparams()
            return s * 2, z

    c = Clipped(quant_min=0, quant_max=127)
    c(E([-1, 1]))
    assert c.calculate_qparams()[0].item() == np.float32(2 / 127) * 2
    assert repr(c).startswith("Clipped(min_val=-1.0")
    # C++ callers (a FakeQuantize) reach the override.
    fq = eq.FakeQuantize(observer=Clipped, quant_min=0, quant_max=127)
    fq(E([-1, 1]))
    assert fq.scale.item() == np.float32(2 / 127) * 2


def test_buffers_are_updated_in_place_as_torch():
    # torch resizes and copies into its buffers: references taken before an update stay live.
    for mod, lib in ((tq, torch), (eq, ember)):
        o = mod.PerChannelMinMaxObserver()
        mn = o.min_val
        o(lib.tensor([[1.0, 2.0], [3.0, -4.0]]))
        assert o.min_val is mn and mn.tolist() == [1.0, -4.0]
        h = mod.HistogramObserver()
        hist = h.histogram
        h(lib.tensor([1.0, 2.0]))
        h(lib.tensor([3.0, 5.0]))
        assert h.histogram is hist


def test_pickle_round_trips():
    import pickle
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mods = [eq.MinMaxObserver(quant_min=0, quant_max=127), eq.PerChannelMinMaxObserver(ch_axis=1),
                eq.HistogramObserver(bins=64), eq.default_fake_quant(), eq.default_per_channel_weight_fake_quant(),
                eq.default_fused_per_channel_wt_fake_quant(), eq.default_fixed_qparams_range_neg1to1_fake_quant()]
        for m in mods:
            m(ember.tensor(np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)))
            r = pickle.loads(pickle.dumps(m))
            assert type(r) is type(m) and repr(r) == repr(m)
            assert list(r.state_dict()) == list(m.state_dict())
            for a, b in zip(r.state_dict().values(), m.state_dict().values()):
                assert ember.equal(a, b)
    assert r.scale is r.activation_post_process.scale


@pytest.mark.parametrize("data", [[-np.inf, 1.0], [1.0, np.inf], [-np.inf, np.inf], [0.0, 1e-40], [3e38, -3e38]])
@pytest.mark.parametrize("name,kw", [("MinMaxObserver", {}), ("MinMaxObserver", {"qscheme": "per_tensor_symmetric"}),
                                     ("MovingAverageMinMaxObserver", {}), ("PerChannelMinMaxObserver", {})])
def test_infinities_and_denormals_as_torch(data, name, kw):
    def outcome(lib, mod):
        o = getattr(mod, name)(**{k: getattr(lib, v) for k, v in kw.items()})
        o(lib.tensor([data]))
        o(lib.tensor([[0.5, 0.25]]))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return [np.asarray(v.numpy()).tobytes() for v in o.calculate_qparams()]
        except AssertionError as e:
            return "AssertionError"

    assert outcome(ember, eq) == outcome(torch, tq)
