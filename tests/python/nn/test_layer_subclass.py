"""Python subclasses of every C++ layer (Note [Trampolines for C++ layers]): their forward,
extra_repr and class name are theirs also when C++ calls them, and super() reaches the layer."""
import numpy as np
import pytest
import torch

import ember
import ember.vision  # noqa: F401  (ember.vision.models)
from ember import nn

# (class name, constructor arguments, input maker)
LAYERS = [
    ("Linear", (3, 2), lambda lib: lib.ones(1, 3)),
    ("Bilinear", (2, 2, 1), None),
    ("ReLU", (), lambda lib: lib.ones(2)),
    ("ReLU6", (), lambda lib: lib.ones(2)),
    ("Hardtanh", (), lambda lib: lib.ones(2)),
    ("Hardswish", (), lambda lib: lib.ones(2)),
    ("Sigmoid", (), lambda lib: lib.ones(2)),
    ("Tanh", (), lambda lib: lib.ones(2)),
    ("GELU", (), lambda lib: lib.ones(2)),
    ("SiLU", (), lambda lib: lib.ones(2)),
    ("Softmax", (1,), lambda lib: lib.ones(1, 2)),
    ("LogSoftmax", (1,), lambda lib: lib.ones(1, 2)),
    ("Flatten", (), lambda lib: lib.ones(1, 2, 2)),
    ("Dropout", (), None),
    ("Identity", (), lambda lib: lib.ones(2)),
    ("Embedding", (4, 2), lambda lib: lib.tensor([1, 2])),
    ("LayerNorm", (2,), lambda lib: lib.ones(1, 2)),
    ("MSELoss", (), None),
    ("L1Loss", (), None),
    ("NLLLoss", (), None),
    ("CrossEntropyLoss", (), None),
    ("BCEWithLogitsLoss", (), None),
    ("Conv2d", (1, 1, 1), lambda lib: lib.ones(1, 1, 2, 2)),
    ("BatchNorm2d", (1,), lambda lib: lib.ones(2, 1, 2, 2)),
    ("MaxPool2d", (1,), lambda lib: lib.ones(1, 1, 2, 2)),
]


def subclass(lib, name):
    base = getattr(lib.nn, name)

    class Mine(base):
        def extra_repr(self):
            return "mine=" + super().extra_repr()

    Mine.__name__ = Mine.__qualname__ = "My" + name
    return Mine


@pytest.mark.parametrize("name,args,inp", LAYERS, ids=[c[0] for c in LAYERS])
def test_subclass_repr_and_extra_repr(name, args, inp):
    e = subclass(ember, name)(*args)
    t = subclass(torch, name)(*args)
    assert repr(e) == repr(t)
    assert e.extra_repr() == t.extra_repr()
    assert getattr(ember.nn, name)(*args).extra_repr() == getattr(torch.nn, name)(*args).extra_repr()
    # Inside a C++ parent, the parent's repr shows the subclass's.
    assert repr(ember.nn.Sequential(e)) == repr(torch.nn.Sequential(t))


@pytest.mark.parametrize("name,args,inp", [c for c in LAYERS if c[2] is not None],
                         ids=[c[0] for c in LAYERS if c[2] is not None])
def test_subclass_forward_and_super(name, args, inp):
    calls = []

    class Mine(getattr(nn, name)):
        def forward(self, x):
            calls.append(name)
            return super().forward(x)

    m = Mine(*args)
    x = inp(ember)
    plain = getattr(nn, name)(*args)
    plain.load_state_dict(m.state_dict())
    m.eval()
    plain.eval()
    got = nn.Sequential(m)(x)
    np.testing.assert_allclose(got.detach().numpy(), plain(x).detach().numpy(), rtol=1e-6)
    assert calls == [name]


def test_linear_subclass_forward_called_by_cpp_model():
    calls = []

    class Head(nn.Linear):
        def forward(self, x):
            calls.append(tuple(x.shape))
            return super().forward(x) * 0

    model = ember.vision.models.resnet18(num_classes=3).eval()
    model.fc = Head(512, 3)
    with ember.no_grad():
        out = model(ember.randn(1, 3, 32, 32))
    assert calls == [(1, 512)]
    assert float(out.abs().sum()) == 0.0


def test_subclass_attributes_and_state_dict():
    class Scaled(nn.Linear):
        def __init__(self, *a, scale=2.0, **k):
            super().__init__(*a, **k)
            self.scale = scale

        def forward(self, x):
            return super().forward(x) * self.scale

    m = Scaled(2, 2, bias=False, scale=3.0)
    assert list(m.state_dict().keys()) == ["weight"]
    x = ember.ones(1, 2)
    np.testing.assert_allclose(m(x).detach().numpy(), (x @ m.weight.t() * 3).detach().numpy())
    assert type(nn.Sequential(m)[0]) is Scaled


@pytest.mark.parametrize("base", ["Sequential", "ModuleList", "ModuleDict"])
def test_container_subclass_forward_and_repr_under_cpp_model(base):
    calls = []

    def make(lib):
        cls = getattr(lib.nn, base)

        class Head(cls):
            def __init__(self):
                lin = lib.nn.Linear(512, 2)
                if base == "ModuleDict":
                    super().__init__({"lin": lin})
                elif base == "ModuleList":
                    super().__init__([lin])
                else:
                    super().__init__(lin)

            def forward(self, x):
                calls.append(base)
                first = self["lin"] if base == "ModuleDict" else self[0]
                return first(x) + 1

        return Head()

    e, t = make(ember), make(torch)
    assert repr(e) == repr(t)
    model = ember.vision.models.resnet18(num_classes=3).eval()
    model.fc = e  # ResNet's C++ forward calls it
    with ember.no_grad():
        out = model(ember.randn(1, 3, 32, 32))
    assert calls == [base] and tuple(out.shape) == (1, 2)
