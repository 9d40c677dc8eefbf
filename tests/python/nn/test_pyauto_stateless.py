"""ember.nn.utils.stateless.functional_call against torch 1.13: outputs and the gradients with
respect to the tensors passed, for C++-backed layers (Linear, Conv2d, BatchNorm with its
buffers) and Python subclasses; restoration (also after an exception); tied weights; keys."""
import warnings

import numpy as np
import pytest
import torch

import ember


def _e(t):
    return ember.tensor(t.detach().numpy())


def _build(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = lib.nn.Conv2d(2, 3, 3)
            self.bn = lib.nn.BatchNorm2d(3)
            self.head = lib.nn.Sequential(lib.nn.Flatten(), lib.nn.Linear(12, 4), lib.nn.Tanh(),
                                          lib.nn.Linear(4, 2))
            self.scale = lib.nn.Parameter(lib.tensor([1.5]))
            self.register_buffer("shift", lib.tensor([0.25, -0.5]))

        def forward(self, x, bias=0.0):
            h = self.bn(self.conv(x))
            return self.head(h) * self.scale + self.shift + bias
    return Net()


def _pair_nets():
    torch.manual_seed(0)
    tn = _build(torch)
    en = _build(ember)
    en.load_state_dict({k: _e(v) for k, v in tn.state_dict().items()})
    return en, tn


def _new_values(tn, names, seed=1):
    rng = np.random.default_rng(seed)
    sd = dict(tn.named_parameters(), **dict(tn.named_buffers()))
    arrs = {n: rng.standard_normal(tuple(sd[n].shape)) * 0.5 + (1.0 if "var" in n else 0.0)
            for n in names}
    for n in arrs:
        if "var" in n:
            arrs[n] = np.abs(arrs[n]) + 0.5
    return arrs


@pytest.mark.parametrize("training", [True, False])
def test_outputs_and_gradients_as_torch(training):
    en, tn = _pair_nets()
    en.train(training)
    tn.train(training)
    names = ["conv.weight", "head.1.weight", "head.3.bias", "scale", "shift", "bn.weight",
             "bn.running_mean", "bn.running_var"]
    arrs = _new_values(tn, names)
    ep = {n: ember.tensor(a, dtype=ember.float32, requires_grad="running" not in n)
          for n, a in arrs.items()}
    tp = {n: torch.tensor(a, dtype=torch.float32, requires_grad="running" not in n)
          for n, a in arrs.items()}
    x = np.random.default_rng(2).standard_normal((2, 2, 4, 4))
    before_e = {k: v.clone() for k, v in en.state_dict().items()}
    orig_params = dict(en.named_parameters())
    out_e = ember.nn.utils.stateless.functional_call(en, ep, (ember.tensor(x, dtype=ember.float32),),
                                                     {"bias": 0.1})
    out_t = torch.nn.utils.stateless.functional_call(tn, tp, (torch.tensor(x, dtype=torch.float32),),
                                                     {"bias": 0.1})
    np.testing.assert_allclose(out_e.detach().numpy(), out_t.detach().numpy(), rtol=1e-5,
                               atol=1e-5)
    out_e.square().sum().backward()
    out_t.square().sum().backward()
    for n in names:
        if "running" in n:
            # train mode updates the passed running statistics in place, as torch
            np.testing.assert_allclose(ep[n].numpy(), tp[n].numpy(), rtol=1e-5, atol=1e-6)
            continue
        np.testing.assert_allclose(ep[n].grad.numpy(), tp[n].grad.numpy(), rtol=1e-4,
                                   atol=1e-5, err_msg=n)
    # the module's own tensors are back, the same objects, unchanged, and got no gradient
    # where they were replaced
    for n, p in en.named_parameters():
        assert p is orig_params[n]
        assert isinstance(p, ember.nn.Parameter)
    after = en.state_dict()
    for k, v in before_e.items():
        if k == "bn.num_batches_tracked":  # not passed: the module's own counts the batch
            assert after[k].item() == v.item() + int(training) == tn.bn.num_batches_tracked
        else:  # passed, or not touched by the call
            assert ember.equal(after[k], v), k
    assert en.conv.weight.grad is None and en.head[1].weight.grad is None
    # parameters not passed did get their gradients, equal to torch's
    np.testing.assert_allclose(en.conv.bias.grad.numpy(), tn.conv.bias.grad.numpy(), rtol=1e-4,
                               atol=1e-5)


def test_num_batches_tracked_as_torch():
    en, tn = _pair_nets()
    x = np.ones((1, 2, 4, 4))
    nbt_e, nbt_t = ember.tensor(5), torch.tensor(5)
    ember.nn.utils.stateless.functional_call(en, {"bn.num_batches_tracked": nbt_e},
                                             ember.tensor(x, dtype=ember.float32))
    torch.nn.utils.stateless.functional_call(tn, {"bn.num_batches_tracked": nbt_t},
                                             torch.tensor(x, dtype=torch.float32))
    assert nbt_e.item() == nbt_t.item() == 6
    assert en.bn.num_batches_tracked.item() == tn.bn.num_batches_tracked.item() == 0


def test_restored_after_an_exception():
    m = ember.nn.Linear(3, 2)
    w, b = m.weight, m.bias
    with pytest.raises(RuntimeError):
        ember.nn.utils.stateless.functional_call(m, {"weight": ember.ones(2, 3),
                                                     "bias": ember.ones(2)}, ember.ones(1, 4))
    assert m.weight is w and m.bias is b
    assert type(m) is ember.nn.Linear and m.__dict__ == {}


def test_single_argument_and_values():
    m = ember.nn.Linear(3, 2)
    y = ember.nn.utils.stateless.functional_call(
        m, {"weight": ember.ones(2, 3), "bias": ember.tensor([1., 2.])}, ember.ones(1, 3))
    assert y.tolist() == [[4., 5.]]
    # only some names: the others stay the module's
    y = ember.nn.utils.stateless.functional_call(m, {"bias": ember.zeros(2)}, ember.ones(1, 3))
    np.testing.assert_allclose(y.detach().numpy(), (m.weight.sum(1)).detach().numpy()[None],
                               rtol=1e-6)


def _tied(lib):
    class Tied(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = lib.nn.Linear(2, 2)
            self.b = lib.nn.Linear(2, 2)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))
    return Tied()


def test_tied_weights_as_torch_1_13():
    torch.manual_seed(0)
    tt = _tied(torch)
    et = _tied(ember)
    et.load_state_dict({k: _e(v) for k, v in tt.state_dict().items()})
    assert et.b.weight is et.a.weight
    x = [[0.5, -1.0]]
    fe, ft = ember.nn.utils.stateless.functional_call, torch.nn.utils.stateless.functional_call
    for pe, pt in [({"a.weight": ember.zeros(2, 2)}, {"a.weight": torch.zeros(2, 2)})]:
        # 1.13 replaces only the names given: b keeps the tied original
        np.testing.assert_allclose(fe(et, pe, ember.tensor(x)).detach().numpy(),
                                   ft(tt, pt, torch.tensor(x)).detach().numpy(), rtol=1e-6)
    z = ember.zeros(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fe(et, {"a.weight": z, "b.weight": z}, ember.tensor(x))  # the same tensor: no warning
    with pytest.warns(UserWarning, match="^functional_call was passed multiple values for tied "
                      "weights. This behavior is deprecated"):
        fe(et, {"a.weight": z, "b.weight": ember.ones(2, 2)}, ember.tensor(x))
    assert et.b.weight is et.a.weight


def test_keys_as_torch_1_13():
    m = ember.nn.Linear(2, 2)
    x = ember.ones(1, 2)
    fe = ember.nn.utils.stateless.functional_call
    with pytest.raises(AttributeError, match="^'Linear' object has no attribute 'nonexist'$"):
        fe(m, {"nonexist.weight": ember.ones(2)}, x)
    with pytest.raises(AttributeError, match="^'Linear' object has no attribute 'nonexist'$"):
        torch.nn.utils.stateless.functional_call(torch.nn.Linear(2, 2),
                                                 {"nonexist.weight": torch.ones(2)},
                                                 torch.ones(1, 2))
    # a name that is no parameter or buffer is answered for the call only (1.13 accepts it)
    ref = m(x)
    assert ember.equal(fe(m, {"foo": ember.ones(2)}, x), ref)
    assert not hasattr(m, "foo")


def test_python_attribute_and_python_layer():
    class Scaled(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = ember.nn.Parameter(ember.tensor([2.0]))
            self.factor = ember.tensor(3.0)  # a plain tensor attribute

        def forward(self, x):
            return ember.nn.functional.linear(x, self.w.reshape(1, 1)) * self.factor

    m = Scaled()
    w = ember.tensor([5.0], requires_grad=True)
    y = ember.nn.utils.stateless.functional_call(m, {"w": w, "factor": ember.tensor(2.0)},
                                                 (ember.ones(1, 1),))
    assert y.item() == 10.0
    y.backward()
    assert w.grad.item() == 2.0
    assert m.factor.item() == 3.0 and m.w.item() == 2.0
