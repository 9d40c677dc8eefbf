"""HistogramObserver (spec § 2.3): torch 1.13's histc truncation behind the flag, bit for bit
against torch; the intended arithmetic by default."""
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


def same(et, tt):
    a, b = np.asarray(et.numpy()), np.asarray(tt.detach().numpy())
    assert (a.dtype, a.shape, a.tobytes()) == (b.dtype, b.shape, b.tobytes()), (et, tt)


@pytest.fixture
def truncating():
    eq.set_histogram_observer_truncation(True)
    yield
    eq.set_histogram_observer_truncation(False)


@pytest.mark.parametrize("seed", range(4))
def test_histc_matches_torch(seed):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(1000) * 3).astype(np.float32)
    for lo, hi, bins in ((-2.0, 3.0, 2048), (float(x.min()), float(x.max()), 2048), (0.0, 0.0, 17), (-1.0, 7.5, 256)):
        same(ember._C._quantization._histc(E(x), bins, lo, hi), torch.histc(T(x), bins, lo, hi))


KWARGS = [{}, {"quant_min": 0, "quant_max": 127}, {"reduce_range": True}, {"dtype": torch.qint8},
          {"qscheme": torch.per_tensor_symmetric, "dtype": torch.qint8}, {"bins": 256, "upsample_rate": 16}]


def ember_kwargs(kw):
    return {k: (getattr(ember, str(v).split(".")[1]) if isinstance(v, (torch.dtype, torch.qscheme)) else v)
            for k, v in kw.items()}


@pytest.mark.parametrize("kwargs", KWARGS)
@pytest.mark.parametrize("seed", range(3))
def test_truncating_flag_is_torch_113_bit_for_bit(truncating, kwargs, seed):
    rng = np.random.default_rng(seed)
    t = tq.HistogramObserver(**kwargs)
    e = eq.HistogramObserver(**ember_kwargs(kwargs))
    assert e.truncate_histc_range
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(4):
            x = (rng.standard_normal((8, 16)) * (1 + 2 * i) + rng.uniform(-2, 2)).astype(np.float32)
            t(T(x))
            e(E(x))
            for k in ("histogram", "min_val", "max_val"):
                same(getattr(e, k), getattr(t, k))
        ts, tz = t.calculate_qparams()
        es, ez = e.calculate_qparams()
    same(es, ts)
    same(ez, tz)
    assert repr(e) == repr(t)


def test_spec_items_19_20_67(truncating):
    o = eq.HistogramObserver()
    assert (o.bins, o.upsample_rate, o.dst_nbins) == (2048, 128, 256)
    assert eq.HistogramObserver(reduce_range=True).dst_nbins == 256
    o(E([-0.3, 0.1, 0.5, 1.9, 2.7]))
    assert o.histogram.sum().item() == 3  # 1.13: values outside [int(min), int(max)] dropped
    d = eq.HistogramObserver()
    x = E([0.5, 1.5, 2.5, 3.0])
    d(x)
    first = d.histogram.clone()
    d(x)
    assert ember.equal(d.histogram, first * 2)


def test_intended_arithmetic_by_default():
    o = eq.HistogramObserver()
    assert not o.truncate_histc_range
    o(E([-0.3, 0.1, 0.5, 1.9, 2.7]))
    assert o.histogram.sum().item() == 5  # every value counted
    rng = np.random.default_rng(0)
    for i in range(3):
        o(E(rng.standard_normal(100) * (i + 1)))
    assert o.histogram.sum().item() == pytest.approx(305, abs=1e-3)
    s, z = o.calculate_qparams()
    assert s.dtype == ember.float32 and z.dtype == ember.int32
    # A first batch whose range has integer ends: truncation changes nothing, torch's numbers.
    t, e = tq.HistogramObserver(), eq.HistogramObserver()
    x = [-2.0, 0.5, 1.0, 1.25, 3.0]
    t(T(x))
    e(E(x))
    same(e.histogram, t.histogram)
    same(e.calculate_qparams()[0], t.calculate_qparams()[0])


def test_uncalibrated_warns_as_torch():
    with pytest.warns(UserWarning, match="must run observer before calling calculate_qparams"):
        s, z = eq.HistogramObserver().calculate_qparams()
    assert s.tolist() == [1.0] and z.tolist() == [0]
