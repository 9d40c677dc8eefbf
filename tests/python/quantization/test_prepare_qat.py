"""prepare_qat / quantize_qat / convert of QAT models against torch 1.13: module types and reprs
after prepare_qat and after convert, observers where torch puts them, and a converted QAT model
with the same int8 output as torch's after the same training steps (float tolerance)."""
import collections

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.ao.quantization as tq  # noqa: E402

import ember  # noqa: E402
import ember.ao.quantization as eq  # noqa: E402

pytest.importorskip("ember.ao.nn.intrinsic.qat")


@pytest.fixture(autouse=True)
def qnnpack():
    old_t, old_e = torch.backends.quantized.engine, ember.backends.quantized.engine
    torch.backends.quantized.engine = "qnnpack"
    ember.backends.quantized.engine = "qnnpack"
    yield
    torch.backends.quantized.engine = old_t
    ember.backends.quantized.engine = old_e


def build(lib, stubs):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = stubs.QuantStub()
            self.conv = nn.Conv2d(2, 3, 3, bias=False)
            self.bn = nn.BatchNorm2d(3)
            self.relu = nn.ReLU()
            self.conv2 = nn.Conv2d(3, 3, 1)
            self.flat = nn.Flatten()
            self.fc = nn.Linear(3 * 4 * 4, 4)
            self.dequant = stubs.DeQuantStub()

        def forward(self, x):
            x = self.relu(self.bn(self.conv(self.quant(x))))
            return self.dequant(self.fc(self.flat(self.conv2(x))))

    return Net()


def same_weights(tmodel, emodel):
    emodel.load_state_dict(collections.OrderedDict(
        (k, ember.from_numpy(v.detach().numpy().copy())) for k, v in tmodel.state_dict().items()))


def data(seed, n=2):
    rng = np.random.default_rng(seed)
    xs = [rng.standard_normal((4, 2, 6, 6)).astype(np.float32) for _ in range(n)]
    return [torch.from_numpy(x) for x in xs], [ember.from_numpy(x.copy()) for x in xs]


@pytest.fixture
def qat_pair():
    torch.manual_seed(0)
    t, e = build(torch, tq), build(ember, eq)
    same_weights(t, e)
    t.train()
    e.train()
    tq.fuse_modules_qat(t, [["conv", "bn", "relu"]], inplace=True)
    eq.fuse_modules_qat(e, [["conv", "bn", "relu"]], inplace=True)
    t.qconfig = tq.get_default_qat_qconfig("qnnpack")
    e.qconfig = eq.get_default_qat_qconfig("qnnpack")
    return tq.prepare_qat(t), eq.prepare_qat(e)


def test_prepare_qat_matches_torch(qat_pair):
    t, e = qat_pair
    assert repr(e) == repr(t).replace("torch.", "ember.")
    tn = [n for n, _ in t.named_modules() if n.endswith("activation_post_process")]
    en = [n for n, _ in e.named_modules() if n.endswith("activation_post_process")]
    assert en == tn


def test_qat_steps_then_convert(qat_pair):
    t, e = qat_pair
    topt = torch.optim.SGD(t.parameters(), lr=0.01)
    eopt = ember.optim.SGD(e.parameters(), lr=0.01)
    txs, exs = data(1, 3)
    for tx, ex in zip(txs, exs):
        topt.zero_grad()
        t(tx).sum().backward()
        topt.step()
        eopt.zero_grad()
        e(ex).sum().backward()
        eopt.step()
    for (k, tv), (k2, ev) in zip(t.state_dict().items(), e.state_dict().items()):
        assert k == k2
        assert np.allclose(ev.detach().numpy(), tv.detach().numpy(), rtol=1e-4, atol=1e-5), k
    t.eval()
    e.eval()
    tc, ec = tq.convert(t), eq.convert(e)
    assert repr(ec).split("scale=")[0] == repr(tc).replace("torch.", "ember.").split("scale=")[0]
    assert [type(m).__name__ for m in ec.modules()] == [type(m).__name__ for m in tc.modules()]
    assert list(ec.state_dict()) == list(tc.state_dict())


def test_prepare_qat_requires_training_mode():
    e = build(ember, eq).eval()
    e.qconfig = eq.get_default_qat_qconfig("qnnpack")
    with pytest.raises(AssertionError, match="prepare_qat only works on models in training mode"):
        eq.prepare_qat(e)
