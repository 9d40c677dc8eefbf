"""The 3-d QAT modules (nn.qat.Conv3d, nn.intrinsic.qat.ConvBn3d / ConvBnReLU3d / ConvReLU3d)
and convert's 3-d mapping, against torch 1.13: fuse_modules_qat -> prepare_qat -> a training
step -> convert, with the same weights and inputs."""
import collections

import numpy as np
import pytest

import ember
import ember.ao.quantization as eq

torch = pytest.importorskip("torch")
import torch.ao.quantization as tq  # noqa: E402


def model(lib, stubs):
    nn = lib.nn
    return nn.Sequential(stubs.QuantStub(), nn.Conv3d(2, 4, 3, padding=1), nn.BatchNorm3d(4),
                         nn.ReLU(), nn.Conv3d(4, 3, 1), nn.ReLU(), nn.Conv3d(3, 2, 1),
                         stubs.DeQuantStub())


@pytest.fixture
def pair():
    old = torch.backends.quantized.engine, ember.backends.quantized.engine
    torch.backends.quantized.engine = ember.backends.quantized.engine = "onednn"  # torch 1.13 cannot unpack (print) a qnnpack conv3d
    torch.manual_seed(0)
    t = model(torch, tq)
    e = model(ember, eq)
    e.load_state_dict(collections.OrderedDict(
        (k, ember.from_numpy(v.detach().numpy().copy())) for k, v in t.state_dict().items()))
    t.train()
    e.train()
    t = tq.fuse_modules_qat(t, [["1", "2", "3"], ["4", "5"]])
    e = eq.fuse_modules_qat(e, [["1", "2", "3"], ["4", "5"]])
    t.qconfig = tq.get_default_qat_qconfig("qnnpack")
    e.qconfig = eq.get_default_qat_qconfig("qnnpack")
    tq.prepare_qat(t, inplace=True)
    eq.prepare_qat(e, inplace=True)
    yield t, e
    torch.backends.quantized.engine, ember.backends.quantized.engine = old


def test_prepare_qat_swaps_in_the_3d_modules(pair):
    t, e = pair
    assert [type(m).__name__ for m in e] == [type(m).__name__ for m in t]
    assert type(e[1]) is ember.nn.intrinsic.qat.ConvBnReLU3d
    assert type(e[4]) is ember.nn.intrinsic.qat.ConvReLU3d
    assert type(e[6]) is ember.nn.qat.Conv3d
    assert ember.ao.nn.qat.Conv3d is ember.nn.qat.Conv3d
    assert list(e.state_dict()) == list(t.state_dict())
    assert repr(e) == repr(t).replace("torch.", "ember.")


def test_training_step_and_convert_match_torch(pair):
    t, e = pair
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 2, 5, 5, 5)).astype(np.float32)
    target = rng.random((2, 2, 5, 5, 5)).astype(np.float32)
    topt = torch.optim.SGD(t.parameters(), lr=0.05)
    eopt = ember.optim.SGD(e.parameters(), lr=0.05)
    for _ in range(3):
        tl = ((t(torch.from_numpy(x)) - torch.from_numpy(target)) ** 2).mean()
        el = ((e(ember.from_numpy(x)) - ember.from_numpy(target)) ** 2).mean()
        np.testing.assert_allclose(el.item(), tl.item(), rtol=1e-4)
        topt.zero_grad()
        eopt.zero_grad()
        tl.backward()
        el.backward()
        np.testing.assert_allclose(e[1].weight.grad.numpy(), t[1].weight.grad.numpy(),
                                   rtol=1e-3, atol=1e-5)
        topt.step()
        eopt.step()
    for (k, tv), (k2, ev) in zip(t.state_dict().items(), e.state_dict().items()):
        assert k == k2
        np.testing.assert_allclose(ev.numpy(), tv.numpy(), rtol=1e-4, atol=1e-5, err_msg=k)
    t.eval()
    e.eval()
    tq.convert(t, inplace=True)
    eq.convert(e, inplace=True)
    assert [type(m).__name__ for m in e] == [type(m).__name__ for m in t]
    assert type(e[1]) is ember.ao.nn.intrinsic.quantized.ConvReLU3d
    assert type(e[6]) is ember.ao.nn.quantized.Conv3d
    assert repr(e) == repr(t).replace("torch.", "ember.")
    want = t(torch.from_numpy(x)).numpy()
    got = e(ember.from_numpy(x)).numpy()
    scale = float(t[6].scale)
    assert np.abs(got - want).max() <= 2 * scale + 1e-6
