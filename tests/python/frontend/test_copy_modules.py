"""copy.copy, copy.deepcopy and pickle of modules: C++ layers, containers, Python subclasses,
the C++ models, tied weights, hooks; compared with torch 1.13 where the behaviour is observable."""
import copy
import gc
import pickle
import weakref

import pytest
import torch

import ember
import ember.vision.models  # noqa: F401
from ember import nn

PROTOCOLS = range(2, pickle.HIGHEST_PROTOCOL + 1)


def assert_equal_and_independent(a, b):
    assert repr(a) == repr(b)
    assert type(a) is type(b) and a is not b
    assert a.training == b.training
    sa, sb = a.state_dict(), b.state_dict()
    assert list(sa) == list(sb)
    for k in sa:
        assert ember.equal(sa[k], sb[k]), k
        if sa[k].numel():
            assert sa[k].data_ptr() != sb[k].data_ptr(), k
    pa, pb = dict(a.named_parameters()), dict(b.named_parameters())
    for k in pa:
        assert type(pa[k]) is type(pb[k]) and pa[k].requires_grad == pb[k].requires_grad


def layers():
    return [
        nn.Linear(3, 4), nn.Linear(3, 4, bias=False), nn.Conv2d(2, 4, 3, padding=1),
        nn.BatchNorm2d(4), nn.LayerNorm(5), nn.Embedding(6, 3, padding_idx=0), nn.ReLU(),
        nn.Dropout(0.3), nn.GroupNorm(2, 4), nn.MaxPool2d(2), nn.Flatten(), nn.Softmax(dim=1),
        nn.CrossEntropyLoss(label_smoothing=0.1),
        nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)),
        nn.ModuleList([nn.Linear(2, 2), nn.Tanh()]),
        nn.ModuleDict({"a": nn.Linear(1, 2), "b": nn.Sigmoid()}),
    ]


@pytest.mark.parametrize("i", range(len(layers())))
def test_layers_deepcopy_and_pickle(i):
    m = layers()[i]
    m.eval()
    for c in [copy.deepcopy(m)] + [pickle.loads(pickle.dumps(m, p)) for p in PROTOCOLS]:
        assert_equal_and_independent(m, c)


def test_forward_and_independence():
    m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU())
    x = ember.randn(2, 3, 8, 8)
    m(x)  # update running stats
    for c in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert ember.equal(c[1].running_mean, m[1].running_mean)
        assert c[1].num_batches_tracked.item() == 1
        m.eval(), c.eval()
        assert ember.allclose(m(x), c(x))
        with ember.no_grad():
            c[0].weight.add_(1.0)
        assert not ember.allclose(m(x), c(x))
        m.train()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 4)
        self.fc2 = nn.Linear(4, 2)
        self.fc2.weight = nn.Parameter(self.fc1.weight[:2].clone())
        self.head = self.fc2  # one module under two names
        self.scale = 3
        self.names = ["fc1", "fc2"]
        self.register_buffer("steps", ember.zeros((), dtype=ember.int64))
        self.refs = [self.fc1]

    def forward(self, x):
        return self.fc2(self.fc1(x)) * self.scale


def test_python_subclass_with_attributes_and_shared_children():
    n = Net()
    n.eval()
    for c in [copy.deepcopy(n)] + [pickle.loads(pickle.dumps(n, p)) for p in PROTOCOLS]:
        assert type(c) is Net
        assert_equal_and_independent(n, c)
        assert c.scale == 3 and c.names == ["fc1", "fc2"] and c.names is not n.names
        assert c.head is c.fc2 and c.refs[0] is c.fc1
        x = ember.randn(2, 4)
        assert ember.equal(c(x), n(x))


def test_tied_weights_stay_tied():
    a, b = nn.Linear(3, 3), nn.Linear(3, 3)
    b.weight = a.weight
    seq = nn.Sequential(a, b)
    t = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 3))
    t[1].weight = t[0].weight
    for c, tc in ((copy.deepcopy(seq), copy.deepcopy(t)),
                  (pickle.loads(pickle.dumps(seq)), pickle.loads(pickle.dumps(t)))):
        assert (c[0].weight is c[1].weight) == (tc[0].weight is tc[1].weight) == True  # noqa: E712
        assert c[0].weight is not a.weight
        assert len(list(c.parameters())) == len(list(tc.parameters())) == 3


def test_models_deepcopy():
    for make in (ember.vision.models.resnet18, ember.vision.models.mobilenet_v2):
        m = make(num_classes=10)
        m.eval()
        c = copy.deepcopy(m)
        assert_equal_and_independent(m, c)
        x = ember.randn(1, 3, 32, 32)
        assert ember.allclose(m(x), c(x))
        c.train()
        assert not m.training and c.training


def test_model_pickle():
    net = ember.vision.models.resnet18(num_classes=10)
    net.layer1[0].conv1.weight.requires_grad_(False)
    with ember.no_grad():
        net.layer2[0].bn1.running_mean.add_(0.5)
    m = nn.Sequential(net, nn.Linear(10, 3))
    m.eval()
    for proto in PROTOCOLS:
        c = pickle.loads(pickle.dumps(m, proto))
        assert_equal_and_independent(m, c)
        assert type(c[0]) is type(net) and c[1].out_features == 3
        assert not c[0].layer1[0].conv1.weight.requires_grad
        x = ember.randn(1, 3, 32, 32)
        assert ember.allclose(m(x), c(x))


def test_hooks_kept_as_torch():
    calls = []

    def hook(mod, inp, out):
        calls.append(type(mod).__name__)

    m, t = nn.Linear(2, 2), torch.nn.Linear(2, 2)
    m.register_forward_hook(hook)
    t.register_forward_hook(hook)
    mc, tc = copy.deepcopy(m), copy.deepcopy(t)
    mc(ember.ones(1, 2))
    tc(torch.ones(1, 2))
    assert calls == ["Linear", "Linear"]
    assert len(mc._forward_hooks) == len(tc._forward_hooks) == 1
    assert mc._forward_hooks is not m._forward_hooks


def test_shallow_copy_shares_members_as_torch():
    m, t = nn.Linear(2, 2), torch.nn.Linear(2, 2)
    mc, tc = copy.copy(m), copy.copy(t)
    assert (mc is m) == (tc is t) == False  # noqa: E712
    assert (mc.weight is m.weight) == (tc.weight is t.weight) == True  # noqa: E712
    s = nn.Sequential(m)
    assert copy.copy(s)[0] is m


def test_deepcopy_memo_maps_parameters():
    m = nn.Linear(2, 2)
    d = copy.deepcopy({"w": m.weight, "m": m})
    assert d["w"] is d["m"].weight and d["w"] is not m.weight
    d = copy.deepcopy({"m": m, "w": m.weight})
    assert d["w"] is d["m"].weight


class MyConv(nn.Conv2d):
    def __init__(self):
        super().__init__(2, 3, 3)
        self.note = "mine"

    def forward(self, x):
        return super().forward(x) + 1


def test_subclass_of_cpp_layer():
    m = MyConv()
    for c in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert type(c) is MyConv and c.note == "mine"
        x = ember.randn(1, 2, 5, 5)
        assert ember.allclose(c(x), m(x))
        # inside a C++ parent the copy's Python forward still runs
        assert ember.allclose(nn.Sequential(c)(x), m(x))


def test_python_children_live_on_in_the_copy():
    # The copied parent holds each copied Python child by its Python object (class, __dict__,
    # forward), also when nothing else refers to it.
    seq = nn.Sequential(MyConv(), nn.ReLU())
    seq[1].tag = "relu"
    for make in (lambda: copy.deepcopy(seq), lambda: pickle.loads(pickle.dumps(seq))):
        c = make()
        gc.collect()
        assert type(c[0]) is MyConv and c[0].note == "mine" and c[1].tag == "relu"
        x = ember.randn(1, 2, 5, 5)
        assert ember.allclose(c(x), seq(x))
        wr = weakref.ref(c[0])
        del c
        gc.collect()
        assert wr() is None  # and the copy is freed with its parent
