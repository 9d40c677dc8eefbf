"""The QAT modules (ember.nn.qat, ember.nn.intrinsic.qat) against torch 1.13: reprs, state_dict
keys, from_float / to_float, error texts, BN freezing, and a few SGD steps from the same
weights on the same data giving the same outputs, gradients and weights (float tolerance).

The weight fake-quantizer is the same small module in both libraries (a fixed-qparams
fake_quantize_per_tensor_affine), so these tests do not depend on the observers."""
import copy

import numpy as np
import pytest
import torch
import torch.nn.intrinsic as tnni
import torch.nn.intrinsic.qat as tnniqat
import torch.ao.nn.qat as tnnqat
from torch.ao.quantization import QConfig as TQConfig

import ember
import ember.nn as enn
import ember.nn.intrinsic as enni
import ember.nn.intrinsic.qat as enniqat
import ember.nn.qat as ennqat
from ember.ao.quantization import QConfig as EQConfig


class TFQ(torch.nn.Module):
    def __init__(self, factory_kwargs=None):
        super().__init__()

    def forward(self, x):
        return torch.fake_quantize_per_tensor_affine(x, 0.02, 3, -128, 127)


class EFQ(enn.Module):
    def forward(self, x):
        return ember.fake_quantize_per_tensor_affine(x, 0.02, 3, -128, 127)


EFQ.__name__ = EFQ.__qualname__ = "TFQ"  # same repr as the torch one
TQ = TQConfig(activation=torch.nn.Identity, weight=TFQ)
EQ = EQConfig(activation=enn.Identity, weight=EFQ)


def E(t):
    return ember.from_numpy(t.detach().clone().numpy())  # clone: .numpy() pins the storage


def sync(e, t):
    from collections import OrderedDict
    sd = t.state_dict()
    out = OrderedDict((k, E(v)) for k, v in sd.items())
    out._metadata = copy.deepcopy(sd._metadata)  # the observers read their version from it
    e.load_state_dict(out)


def assert_close(e, t, rtol=1e-5, atol=1e-5, msg=""):
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol,
                               err_msg=msg)


# name -> (torch ctor, ember ctor, input shape)
MODULES = {
    "qat.Conv1d": (lambda: tnnqat.Conv1d(2, 3, 3, padding=1, qconfig=TQ),
                   lambda: ennqat.Conv1d(2, 3, 3, padding=1, qconfig=EQ), (4, 2, 6)),
    "qat.Conv2d": (lambda: tnnqat.Conv2d(2, 3, 3, stride=2, qconfig=TQ),
                   lambda: ennqat.Conv2d(2, 3, 3, stride=2, qconfig=EQ), (4, 2, 7, 7)),
    "qat.Linear": (lambda: tnnqat.Linear(5, 3, qconfig=TQ),
                   lambda: ennqat.Linear(5, 3, qconfig=EQ), (6, 5)),
    "ConvBn1d": (lambda: tnniqat.ConvBn1d(2, 3, 3, qconfig=TQ),
                 lambda: enniqat.ConvBn1d(2, 3, 3, qconfig=EQ), (4, 2, 6)),
    "ConvBnReLU1d": (lambda: tnniqat.ConvBnReLU1d(2, 3, 3, bias=True, qconfig=TQ),
                     lambda: enniqat.ConvBnReLU1d(2, 3, 3, bias=True, qconfig=EQ), (4, 2, 6)),
    "ConvBn2d": (lambda: tnniqat.ConvBn2d(2, 3, 3, padding=1, qconfig=TQ),
                 lambda: enniqat.ConvBn2d(2, 3, 3, padding=1, qconfig=EQ), (4, 2, 5, 5)),
    "ConvBnReLU2d": (lambda: tnniqat.ConvBnReLU2d(2, 3, 3, bias=True, momentum=0.3, qconfig=TQ),
                     lambda: enniqat.ConvBnReLU2d(2, 3, 3, bias=True, momentum=0.3, qconfig=EQ),
                     (4, 2, 5, 5)),
    "ConvReLU1d": (lambda: tnniqat.ConvReLU1d(2, 3, 3, qconfig=TQ),
                   lambda: enniqat.ConvReLU1d(2, 3, 3, qconfig=EQ), (4, 2, 6)),
    "ConvReLU2d": (lambda: tnniqat.ConvReLU2d(2, 3, 3, qconfig=TQ),
                   lambda: enniqat.ConvReLU2d(2, 3, 3, qconfig=EQ), (4, 2, 5, 5)),
    "LinearReLU": (lambda: tnniqat.LinearReLU(5, 3, qconfig=TQ),
                   lambda: enniqat.LinearReLU(5, 3, qconfig=EQ), (6, 5)),
    "LinearBn1d": (lambda: tnniqat.LinearBn1d(5, 3, qconfig=TQ),
                   lambda: enniqat.LinearBn1d(5, 3, qconfig=EQ), (6, 5)),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_repr_keys_attributes(name):
    tf, ef, _ = MODULES[name]
    t, e = tf(), ef()
    assert repr(e) == repr(t)
    assert list(e.state_dict().keys()) == list(t.state_dict().keys())
    assert e.qconfig is EQ
    assert type(e.weight_fake_quant) is EFQ
    assert type(e).__name__ == type(t).__name__
    if hasattr(t, "freeze_bn"):
        assert e.freeze_bn is t.freeze_bn is False and e.bn.training is t.bn.training is True
    # the float class it extends
    for base in ("Conv1d", "Conv2d", "Linear"):
        assert isinstance(e, getattr(enn, base)) == isinstance(t, getattr(torch.nn, base))
    c = copy.deepcopy(e)
    assert type(c) is type(e) and repr(c) == repr(e) and c.qconfig is EQ


@pytest.mark.parametrize("name", sorted(MODULES))
def test_training_steps_match_torch(name):
    tf, ef, shape = MODULES[name]
    torch.manual_seed(1)
    t, e = tf(), ef()
    if hasattr(t, "bn"):
        with torch.no_grad():
            t.bn.weight.uniform_(0.5, 1.5)
            t.bn.bias.uniform_(-0.5, 0.5)
            if t.bias is not None:  # LinearBn1d leaves its bias uninitialised (torch.empty)
                t.bias.uniform_(-0.5, 0.5)
    sync(e, t)
    topt = torch.optim.SGD(t.parameters(), lr=0.01, momentum=0.9)
    eopt = ember.optim.SGD(e.parameters(), lr=0.01, momentum=0.9)
    for step in range(4):
        x = torch.randn(*shape)
        ty, ey = t(x), e(E(x))
        assert_close(ey, ty, rtol=1e-4, atol=1e-5, msg=f"step {step} output")
        ((ty * ty).mean() + ty.mean()).backward()
        ((ey * ey).mean() + ey.mean()).backward()
        for (n, tp), (_, ep) in zip(t.named_parameters(), e.named_parameters()):
            assert_close(ep.grad, tp.grad, rtol=1e-3, atol=1e-4, msg=f"step {step} grad {n}")
        topt.step(), eopt.step()
        topt.zero_grad(), eopt.zero_grad()
        if step == 2 and hasattr(t, "freeze_bn_stats"):
            t.freeze_bn_stats(), e.freeze_bn_stats()
    for k, v in t.state_dict().items():
        assert_close(e.state_dict()[k], v, rtol=1e-4, atol=1e-5, msg=k)
    t.eval(), e.eval()
    x = torch.randn(*shape)
    assert_close(e(E(x)), t(x), rtol=1e-4, atol=1e-5, msg="eval")


FLOAT = {
    "qat.Conv2d": (lambda n: n.Conv2d(2, 3, 3, padding=1, bias=False), "Conv2d"),
    "qat.Conv1d": (lambda n: n.Conv1d(2, 3, 3), "Conv1d"),
    "qat.Linear": (lambda n: n.Linear(4, 3), "Linear"),
    "ConvBn2d": (lambda n: n.intrinsic.ConvBn2d(n.Conv2d(2, 3, 3), n.BatchNorm2d(3)), "ConvBn2d"),
    "ConvBnReLU2d": (lambda n: n.intrinsic.ConvBnReLU2d(n.Conv2d(2, 3, 3, bias=False), n.BatchNorm2d(3, momentum=0.2), n.ReLU()), "ConvBnReLU2d"),
    "ConvBn1d": (lambda n: n.intrinsic.ConvBn1d(n.Conv1d(2, 3, 3), n.BatchNorm1d(3)), "ConvBn1d"),
    "ConvBnReLU1d": (lambda n: n.intrinsic.ConvBnReLU1d(n.Conv1d(2, 3, 3), n.BatchNorm1d(3), n.ReLU()), "ConvBnReLU1d"),
    "ConvReLU2d": (lambda n: n.intrinsic.ConvReLU2d(n.Conv2d(2, 3, 3), n.ReLU()), "ConvReLU2d"),
    "ConvReLU1d": (lambda n: n.intrinsic.ConvReLU1d(n.Conv1d(2, 3, 3), n.ReLU()), "ConvReLU1d"),
    "LinearReLU": (lambda n: n.intrinsic.LinearReLU(n.Linear(4, 3), n.ReLU()), "LinearReLU"),
    "LinearBn1d": (lambda n: n.intrinsic.LinearBn1d(n.Linear(4, 3), n.BatchNorm1d(3)), "LinearBn1d"),
}


def qat_class(lib_qat, lib_iqat, name):
    return getattr(lib_qat, name[4:]) if name.startswith("qat.") else getattr(lib_iqat, name)


@pytest.mark.parametrize("name", sorted(FLOAT))
def test_from_float_and_to_float(name):
    build, _ = FLOAT[name]
    torch.manual_seed(2)
    tm, em = build(torch.nn), build(enn)
    sync(em, tm)
    for mod, q in ((tm, TQ), (em, EQ)):
        for sub in mod.modules():  # as propagate_qconfig_ leaves them
            sub.qconfig = q
    t = qat_class(tnnqat, tnniqat, name).from_float(tm)
    e = qat_class(ennqat, enniqat, name).from_float(em)
    assert type(e).__name__ == type(t).__name__
    assert repr(e) == repr(t)
    assert list(e.state_dict().keys()) == list(t.state_dict().keys())
    inner = em[0] if isinstance(em, enni._FusedModule) else em
    assert e.weight is inner.weight  # shared, as torch's assignment
    if hasattr(e, "bn"):
        assert e.bn.running_mean is em[1].running_mean
    assert e.qconfig is EQ
    # to_float gives torch's float module (BN folded with the running statistics)
    tf, ef = t.to_float(), e.to_float()
    assert repr(ef) == repr(tf) and type(ef).__name__ == type(tf).__name__
    assert ef.training is tf.training
    for k, v in tf.state_dict().items():
        np.testing.assert_array_equal(ef.state_dict()[k].numpy(), v.numpy(), err_msg=k)


def test_errors_match_torch():
    cases = [
        (lambda: tnnqat.Conv2d(1, 1, 1), lambda: ennqat.Conv2d(1, 1, 1)),
        (lambda: tnnqat.Linear(1, 1), lambda: ennqat.Linear(1, 1)),
        (lambda: tnniqat.ConvBn2d(1, 1, 1), lambda: enniqat.ConvBn2d(1, 1, 1)),
        (lambda: tnniqat.LinearBn1d(1, 1), lambda: enniqat.LinearBn1d(1, 1)),
        (lambda: tnnqat.Conv2d.from_float(torch.nn.Linear(1, 1)),
         lambda: ennqat.Conv2d.from_float(enn.Linear(1, 1))),
        (lambda: tnnqat.Linear.from_float(torch.nn.Conv2d(1, 1, 1)),
         lambda: ennqat.Linear.from_float(enn.Conv2d(1, 1, 1))),
        (lambda: tnnqat.Linear.from_float(torch.nn.Linear(1, 1)),
         lambda: ennqat.Linear.from_float(enn.Linear(1, 1))),
        (lambda: tnniqat.ConvBn2d.from_float(torch.nn.Conv2d(1, 1, 1)),
         lambda: enniqat.ConvBn2d.from_float(enn.Conv2d(1, 1, 1))),
        (lambda: tnniqat.ConvReLU2d.from_float(tnni.ConvReLU2d(torch.nn.Conv2d(1, 1, 1), torch.nn.ReLU())),
         lambda: enniqat.ConvReLU2d.from_float(enni.ConvReLU2d(enn.Conv2d(1, 1, 1), enn.ReLU()))),
    ]
    for tc, ec in cases:
        with pytest.raises(AssertionError) as te:
            tc()
        with pytest.raises(AssertionError) as ee:
            ec()
        assert str(ee.value) == str(te.value)
    m = tnn_none = enn.Conv2d(1, 1, 1)
    m.qconfig = None
    with pytest.raises(AssertionError, match="Input float module must have a valid qconfig"):
        ennqat.Conv2d.from_float(tnn_none)


def test_freeze_bn_semantics():
    t, e = tnniqat.ConvBnReLU2d(2, 3, 3, qconfig=TQ), enniqat.ConvBnReLU2d(2, 3, 3, qconfig=EQ)
    for m in (t, e):
        assert m.freeze_bn_stats() is m
        assert m.freeze_bn is True and m.bn.training is False
        m.train()
        assert m.training is True and m.bn.training is False  # train() keeps a frozen BN
        m.update_bn_stats()
        m.eval()
        assert m.bn.training is False
        m.train()
        assert m.bn.training is True
    # built in eval mode: frozen
    model = enn.Sequential(enniqat.ConvBn2d(1, 2, 1, qconfig=EQ), enniqat.LinearBn1d(2, 2, qconfig=EQ))
    model.apply(enniqat.freeze_bn_stats)
    assert model[0].freeze_bn is True and model[1].freeze_bn is False  # torch's list: ConvBn only
    model.train()
    assert model[0].bn.training is False and model[1].bn.training is True
    model.apply(enniqat.update_bn_stats)
    assert model[0].freeze_bn is False
    # a C++ parent's train() (Module::train) respects a frozen child too
    model[0].freeze_bn_stats()
    model.eval()
    model.train()
    assert model[0].bn.training is False


def test_fuse_then_from_float_flow():
    """fuse_modules_qat -> the QAT classes from_float, as prepare_qat's swap does."""
    from ember.ao.quantization import fuse_modules_qat
    m = enn.Sequential(enn.Conv2d(2, 3, 3), enn.BatchNorm2d(3), enn.ReLU())
    fused = fuse_modules_qat(m, ["0", "1", "2"])
    for sub in fused.modules():
        sub.qconfig = EQ
    q = enniqat.ConvBnReLU2d.from_float(fused[0])
    assert q.weight is fused[0][0].weight
    y = q(ember.randn(2, 2, 5, 5))
    assert (y.detach().numpy() >= 0).all()


@pytest.mark.parametrize("backend", ["qnnpack", "fbgemm"])
def test_default_qat_qconfig_training_matches_torch(backend):
    """With the real default QAT qconfig (fake quantizers that observe), a few training steps
    of ConvBnReLU2d, ConvReLU2d and Linear give torch's outputs, gradients and statistics."""
    import torch.ao.quantization as tq
    import ember.ao.quantization as eq
    tqc, eqc = tq.get_default_qat_qconfig(backend), eq.get_default_qat_qconfig(backend)
    torch.manual_seed(3)
    pairs = [
        (tnniqat.ConvBnReLU2d(3, 4, 3, padding=1, qconfig=tqc),
         enniqat.ConvBnReLU2d(3, 4, 3, padding=1, qconfig=eqc), (4, 3, 6, 6)),
        (tnniqat.ConvReLU2d(3, 4, 3, qconfig=tqc), enniqat.ConvReLU2d(3, 4, 3, qconfig=eqc), (4, 3, 6, 6)),
        (tnnqat.Linear(5, 3, qconfig=tqc), ennqat.Linear(5, 3, qconfig=eqc), (8, 5)),
    ]
    for t, e, shape in pairs:
        assert repr(e) == repr(t).replace("torch.", "ember.")
        sync(e, t)
        topt = torch.optim.SGD(t.parameters(), lr=0.01)
        eopt = ember.optim.SGD(e.parameters(), lr=0.01)
        for step in range(3):
            x = torch.randn(*shape)
            ty, ey = t(x), e(E(x))
            assert_close(ey, ty, rtol=1e-4, atol=1e-4, msg=f"{type(t).__name__} step {step}")
            (ty * ty).mean().backward()
            (ey * ey).mean().backward()
            for (n, tp), (_, ep) in zip(t.named_parameters(), e.named_parameters()):
                assert_close(ep.grad, tp.grad, rtol=1e-3, atol=1e-4, msg=f"step {step} grad {n}")
            topt.step(), eopt.step()
            topt.zero_grad(), eopt.zero_grad()
        for k, v in t.state_dict().items():
            assert_close(e.state_dict()[k], v, rtol=1e-4, atol=1e-5, msg=k)


def test_fused_module_marker():
    from ember.ao.nn.intrinsic.modules.fused import _is_fused_module
    for name, (tf, ef, _) in MODULES.items():
        t, e = tf(), ef()
        assert _is_fused_module(e) == isinstance(t, tnni._FusedModule), name
    assert _is_fused_module(enni.ConvReLU2d(enn.Conv2d(1, 1, 1), enn.ReLU()))
    assert not _is_fused_module(enn.Sequential(enn.Conv2d(1, 1, 1)))
