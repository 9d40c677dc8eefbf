"""QuantStub, DeQuantStub, QuantWrapper (ember.ao.quantization.stubs) and the functional
wrappers' texts, against torch 1.13."""
import copy
import pickle

import numpy as np
import pytest
import torch
import torch.ao.quantization as tq

import ember
import ember.nn as enn
import ember.ao.quantization as eq
import ember.ao.nn.quantized as ennq


def test_stub_reprs_keys_and_identity():
    for name in ("QuantStub", "DeQuantStub"):
        t, e = getattr(tq, name)(), getattr(eq, name)()
        assert repr(e) == repr(t) == name + "()"
        assert list(e.state_dict().keys()) == [] == list(t.state_dict().keys())
        x = ember.randn(2, 3)
        assert e(x) is x
        obj = ("anything", 1)
        assert e(obj) is obj  # any Python value passes through, as torch's `return x`
        assert type(e).__module__ == "ember.ao.quantization.stubs"
        assert not hasattr(e, "qconfig") and not hasattr(t, "qconfig")
        assert getattr(ember.quantization, name) is getattr(eq, name) if hasattr(ember, "quantization") else True


def test_stub_qconfig_only_when_given():
    q = eq.QConfig(activation=enn.Identity, weight=enn.Identity)
    s = eq.QuantStub(q)
    assert s.qconfig is q
    d = eq.DeQuantStub(qconfig=q)
    assert d.qconfig is q
    assert not hasattr(eq.QuantStub(None), "qconfig")


def test_quant_wrapper_matches_torch():
    torch.manual_seed(0)
    t_lin = torch.nn.Linear(3, 2)
    e_lin = enn.Linear(3, 2)
    e_lin.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                           for k, v in t_lin.state_dict().items()})
    t_lin.eval(), e_lin.eval()
    tw, ew = tq.QuantWrapper(t_lin), eq.QuantWrapper(e_lin)
    assert repr(ew) == repr(tw)
    assert list(ew.state_dict().keys()) == list(tw.state_dict().keys())
    assert [n for n, _ in ew.named_children()] == ["quant", "dequant", "module"]
    assert ew.module is e_lin
    assert ew.training is tw.training is False
    assert ew.quant.training is False
    x = torch.randn(4, 3)
    np.testing.assert_allclose(ew(ember.from_numpy(x.numpy())).detach().numpy(),
                               tw(x).detach().numpy(), rtol=1e-6)
    assert not hasattr(ew.quant, "qconfig")


def test_quant_wrapper_inherits_qconfig_and_runs_hooks():
    q = eq.QConfig(activation=enn.Identity, weight=enn.Identity)
    lin = enn.Linear(2, 2)
    lin.qconfig = q
    w = eq.QuantWrapper(lin)
    assert w.quant.qconfig is q and w.dequant.qconfig is q
    assert not hasattr(w, "qconfig")
    calls = []
    w.quant.register_forward_hook(lambda m, i, o: calls.append("quant"))
    w.dequant.register_forward_hook(lambda m, i, o: calls.append("dequant"))
    w(ember.ones(1, 2))
    # called from a C++ parent too
    seq = enn.Sequential(w)
    seq(ember.ones(1, 2))
    assert calls == ["quant", "dequant", "quant", "dequant"]


def test_stub_copies():
    q = eq.QConfig(activation=enn.Identity, weight=enn.Identity)
    w = eq.QuantWrapper(enn.Sequential(enn.Linear(2, 2), eq.QuantStub(q)))
    for c in (copy.deepcopy(w), pickle.loads(pickle.dumps(w))):
        assert type(c) is eq.QuantWrapper and repr(c) == repr(w)
        assert type(c.quant) is eq.QuantStub


def test_float_functional_texts():
    for t_cls, e_cls in ((torch.ao.nn.quantized.FloatFunctional, ennq.FloatFunctional),
                         (torch.ao.nn.quantized.QFunctional, ennq.QFunctional)):
        with pytest.raises(RuntimeError) as te:
            t_cls()(torch.ones(1))
        with pytest.raises(RuntimeError) as ee:
            e_cls()(ember.ones(1))
        assert str(ee.value) == str(te.value)
        assert repr(e_cls()) == repr(t_cls())
        assert list(e_cls().state_dict().keys()) == list(t_cls().state_dict().keys())
