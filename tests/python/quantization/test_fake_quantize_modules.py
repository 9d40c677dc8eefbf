"""Fake-quantize modules against torch 1.13: forward and gradients bit for bit, buffers after
several steps, state_dict keys, reprs, the enable / disable functions and errors."""
import copy
import warnings

import numpy as np
import pytest
import torch
import torch.ao.quantization as tq

import ember
import ember.ao.quantization as eq


def same(et, tt):
    a, b = np.asarray(et.detach().numpy()), np.asarray(tt.detach().numpy())
    assert (a.dtype, a.shape, a.tobytes()) == (b.dtype, b.shape, b.tobytes()), (et, tt)


def step_both(t, e, x):
    tx = torch.tensor(x, requires_grad=True)
    ex = ember.tensor(x, requires_grad=True)
    ty, ey = t(tx), e(ex)
    same(ey, ty)
    g = np.linspace(-1, 1, x.size, dtype=np.float32).reshape(x.shape)
    ty.backward(torch.tensor(g))
    ey.backward(ember.tensor(g))
    same(ex.grad, tx.grad)


def data(seed, shape=(4, 3, 5)):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(shape) * (i + 1) * 2).astype(np.float32) for i in range(4)]


FACTORIES = [
    "default_fake_quant", "default_weight_fake_quant", "default_per_channel_weight_fake_quant",
    "default_histogram_fake_quant", "default_fused_act_fake_quant", "default_fused_wt_fake_quant",
    "default_fused_per_channel_wt_fake_quant", "default_dynamic_fake_quant", "default_embedding_fake_quant",
    "fused_wt_fake_quant_range_neg_127_to_127", "fused_per_channel_wt_fake_quant_range_neg_127_to_127",
    "default_fixed_qparams_range_0to1_fake_quant", "default_fixed_qparams_range_neg1to1_fake_quant",
]


@pytest.mark.parametrize("name", FACTORIES)
def test_default_fake_quants_match_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # A HistogramObserver equals torch 1.13's with its histc truncation (spec § 2.3).
        eq.set_histogram_observer_truncation("histogram" in name)
        try:
            t, e = getattr(tq, name)(), getattr(eq, name)()
        finally:
            eq.set_histogram_observer_truncation(False)
        assert repr(e) == repr(t).replace("torch.", "ember.")
        shape = (4, 3, 5) if "embedding" not in name else (6, 5)
        for i, x in enumerate(data(3, shape)):
            if i == 2:
                t.disable_observer()
                e.disable_observer()
            step_both(t, e, x)
        ts, es = t.state_dict(), e.state_dict()
        assert list(es) == list(ts)
        for k in ts:
            same(es[k], ts[k])
        e.disable_fake_quant()
        t.disable_fake_quant()
        step_both(t, e, data(4, shape)[0])
        assert repr(e) == repr(t).replace("torch.", "ember.")


def test_fused_flags_and_order_match_torch():
    # The fused op updates qparams only when fake quantization is on.
    t, e = tq.default_fused_act_fake_quant(), eq.default_fused_act_fake_quant()
    t.disable_fake_quant()
    e.disable_fake_quant()
    for x in data(5):
        step_both(t, e, x)
    same(e.scale, t.scale)
    same(e.activation_post_process.min_val, t.activation_post_process.min_val)
    assert e.fake_quant_enabled.dtype == ember.int64


def test_module_functions_and_apply():
    m = ember.nn.Sequential(ember.nn.Linear(2, 2), eq.default_fake_quant(), eq.default_fused_act_fake_quant())
    m.apply(eq.disable_observer)
    m.apply(eq.disable_fake_quant)
    assert [f.observer_enabled.tolist() for f in m[1:]] == [[0], [0]]
    assert [f.fake_quant_enabled.tolist() for f in m[1:]] == [[0], [0]]
    m.apply(eq.enable_observer)
    m.apply(eq.enable_fake_quant)
    assert [f.observer_enabled.tolist() + f.fake_quant_enabled.tolist() for f in m[1:]] == [[1, 1], [1, 1]]
    eq.disable_observer(m[0])  # not a fake quantize: nothing happens


def test_checklist_and_errors():
    assert (eq.default_fake_quant().quant_min, eq.default_fake_quant().quant_max) == (0, 127)
    f = eq.FakeQuantize(quant_min=0, quant_max=255, dtype=ember.quint8)
    assert f.is_per_channel is False and f.ch_axis == -1 and f.dtype is ember.quint8
    for lib, mod in ((torch, tq), (ember, eq)):
        with pytest.raises(AssertionError, match="^quant_min must be less than or equal to quant_max$"):
            mod.FakeQuantize(quant_min=5, quant_max=1)
        with pytest.raises(AssertionError, match="^quant_min out of bound$"):
            mod.FakeQuantize(quant_min=-1, quant_max=255)
        with pytest.raises(AssertionError, match="^quant_max out of bound$"):
            mod.FakeQuantize(observer=mod.MovingAverageMinMaxObserver.with_args(dtype=lib.qint8),
                             quant_min=0, quant_max=200)
        with pytest.raises(AssertionError, match="Fused observer\\+fake_quant module only works"):
            mod.FusedMovingAvgObsFakeQuantize(observer=mod.MinMaxObserver)
        with pytest.raises(AssertionError, match="FixedQParamsFakeQuantize's observer must be a FixedQParamsObserver"):
            mod.FixedQParamsFakeQuantize(observer=mod.MinMaxObserver)
        with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
            mod.FakeQuantize(bogus=1)


def test_state_dict_load_and_deepcopy():
    t = tq.default_per_channel_weight_fake_quant()
    t(torch.randn(4, 3))
    e = eq.default_per_channel_weight_fake_quant()
    sd = {k: ember.tensor(v.numpy()) for k, v in t.state_dict().items()}
    import collections
    od = collections.OrderedDict(sd)
    od._metadata = t.state_dict()._metadata
    e.load_state_dict(od)
    for k, v in t.state_dict().items():
        same(e.state_dict()[k], v)
    c = copy.deepcopy(e)
    assert type(c) is type(e) and c.scale.tolist() == e.scale.tolist()
    assert c.scale.data_ptr() != e.scale.data_ptr()


def test_fused_op_function_matches_torch():
    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    targs = [torch.tensor([1]), torch.tensor([1]), torch.tensor(float("inf")), torch.tensor(float("-inf")),
             torch.tensor([1.0]), torch.tensor([0], dtype=torch.int32)]
    eargs = [ember.tensor([1]), ember.tensor([1]), ember.tensor(float("inf")), ember.tensor(float("-inf")),
             ember.tensor([1.0]), ember.tensor([0], dtype=ember.int32)]
    ty = torch.fused_moving_avg_obs_fake_quant(torch.tensor(x), *targs, 0.01, -128, 127, 0, False, True)
    ey = ember.fused_moving_avg_obs_fake_quant(ember.tensor(x), *eargs, 0.01, -128, 127, 0, False, True)
    same(ey, ty)
    for a, b in zip(eargs, targs):
        same(a, b)


def test_python_subclass_of_fake_quantize_base():
    class Halve(eq.FakeQuantizeBase):
        def forward(self, x):
            return x * 0.5

        def calculate_qparams(self):
            return ember.tensor([1.0]), ember.tensor([0])

    h = Halve()
    assert list(h.state_dict()) == ["fake_quant_enabled", "observer_enabled"]
    h.disable_observer()
    assert h.observer_enabled.tolist() == [0]
    assert ember.nn.Sequential(h)(ember.tensor([2.0])).tolist() == [1.0]
    with pytest.raises(TypeError, match="Can't instantiate abstract class FakeQuantizeBase"):
        eq.FakeQuantizeBase()


def test_fused_op_per_channel_grows_empty_buffers_in_place():
    x = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)

    def args(lib, dtype):
        return [lib.tensor([1]), lib.tensor([1]), lib.tensor([]), lib.tensor([]), lib.tensor([1.0]),
                lib.tensor([0], dtype=dtype)]

    ta, ea = args(torch, torch.int32), args(ember, ember.int32)
    ty = torch.fused_moving_avg_obs_fake_quant(torch.tensor(x), *ta, 0.01, -128, 127, 0, True, True)
    ey = ember.fused_moving_avg_obs_fake_quant(ember.tensor(x), *ea, 0.01, -128, 127, 0, True, True)
    same(ey, ty)
    for a, b in zip(ea, ta):
        same(a, b)


def test_observed_qparams_reads_cpp_and_python_observers():
    oq = ember._C._quantization._observed_qparams
    w = eq.default_per_channel_weight_observer()
    w(ember.tensor([[1.0, -2.0], [3.0, 0.5]]))
    s, z, dtype, qscheme, axis = oq(w)
    assert dtype is ember.qint8 and qscheme is ember.per_channel_symmetric and axis == 0
    assert s.tolist() == w.calculate_qparams()[0].tolist()
    f = eq.default_fake_quant()
    f(ember.tensor([-1.0, 2.0]))
    assert oq(f)[2:] == (ember.quint8, ember.per_tensor_affine, -1)

    class Duck(ember.nn.Module):  # torch's duck typing: any module with calculate_qparams
        dtype = ember.qint8
        qscheme = ember.per_tensor_symmetric

        def calculate_qparams(self):
            return ember.tensor([0.25]), ember.tensor([0])

    assert oq(Duck())[0].tolist() == [0.25]
    with pytest.raises(TypeError, match="expected an observer or a fake quantize module"):
        oq(ember.nn.Linear(1, 1))
