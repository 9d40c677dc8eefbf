"""Lazy modules (namesb): LazyLinear, LazyConv*d, LazyConvTranspose*d, LazyBatchNorm*d,
LazyInstanceNorm*d with UninitializedParameter / UninitializedBuffer, against torch 1.13: reprs
before and after the first forward, shape inference, becoming the regular layer, state_dict of
uninitialized parameters, loading an initialized state, numbers with torch's weights, errors."""
import copy
import warnings

import numpy as np
import pytest
import torch

import ember
from ember import nn


def e(t):
    return ember.from_numpy(t.detach().numpy().copy())


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


CASES = [
    ("LazyLinear", (3,), {}, (2, 5), "Linear"),
    ("LazyLinear", (4,), {"bias": False}, (2, 3, 6), "Linear"),
    ("LazyConv1d", (4, 3), {}, (2, 3, 9), "Conv1d"),
    ("LazyConv2d", (4, 3), {"stride": 2, "padding": 1}, (1, 2, 7, 7), "Conv2d"),
    ("LazyConv2d", (4, 3), {"groups": 2, "bias": False}, (1, 6, 5, 5), "Conv2d"),
    ("LazyConv3d", (2, 2), {}, (1, 3, 4, 4, 4), "Conv3d"),
    ("LazyConvTranspose1d", (4, 3), {"stride": 2}, (2, 3, 5), "ConvTranspose1d"),
    ("LazyConvTranspose2d", (4, 3), {"output_padding": 1, "stride": 2}, (1, 2, 4, 4), "ConvTranspose2d"),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 3, 3, 3, 3), "ConvTranspose3d"),
    ("LazyBatchNorm1d", (), {}, (4, 3), "BatchNorm1d"),
    ("LazyBatchNorm2d", (), {"affine": False}, (2, 3, 4, 4), "BatchNorm2d"),
    ("LazyBatchNorm3d", (), {"track_running_stats": False}, (2, 3, 2, 2, 2), "BatchNorm3d"),
    ("LazyInstanceNorm1d", (), {"affine": True}, (2, 3, 6), "InstanceNorm1d"),
    ("LazyInstanceNorm2d", (), {}, (2, 3, 4, 4), "InstanceNorm2d"),
    ("LazyInstanceNorm3d", (), {"affine": True, "track_running_stats": True}, (2, 3, 2, 3, 2), "InstanceNorm3d"),
]


@pytest.mark.parametrize("name,args,kwargs,shape,becomes", CASES, ids=[c[0] + str(i) for i, c in enumerate(CASES)])
def test_lazy_module_matches_torch(name, args, kwargs, shape, becomes):
    tm = getattr(torch.nn, name)(*args, **kwargs)
    em = getattr(nn, name)(*args, **kwargs)
    assert repr(em) == repr(tm)
    assert em.has_uninitialized_params() == tm.has_uninitialized_params()
    assert list(em.state_dict()) == list(tm.state_dict())
    for k, v in tm.state_dict().items():
        assert type(em.state_dict()[k]).__name__ == type(v).__name__
    x = torch.randn(*shape)
    tm.train()
    want = tm(x)
    # the same values: load torch's materialized state into a fresh lazy module (the lazy load
    # hook materializes it), then run it
    em2 = getattr(nn, name)(*args, **kwargs)
    em2.load_state_dict({k: e(v) for k, v in tm.state_dict().items()})
    assert not em2.has_uninitialized_params()
    assert type(em2).__name__ == name  # still lazy until its forward
    got = em2(e(x))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-5)
    assert type(em2).__name__ == becomes and isinstance(em2, getattr(nn, becomes))
    assert not isinstance(em2, getattr(nn, name))
    # the first forward of a never-loaded one infers the shapes and becomes the layer
    em(e(x))
    assert repr(em) == repr(tm) and type(em).__name__ == becomes
    assert not hasattr(em, "_initialize_hook")
    for (k, v), (tk, tv) in zip(em.state_dict().items(), tm.state_dict().items()):
        assert k == tk and tuple(v.shape) == tuple(tv.shape) and type(v) is ember.Tensor
    for p in em.parameters():
        assert type(p) is nn.Parameter and p.requires_grad


def test_uninitialized_parameter_behaviour():
    p, tp = nn.UninitializedParameter(), torch.nn.UninitializedParameter()
    assert repr(p) == repr(tp) == "<UninitializedParameter>"
    assert isinstance(p, nn.Parameter) and p.requires_grad
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter or buffer."):
        p.shape
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
        p + 1
    b = nn.UninitializedBuffer(dtype=ember.float64)
    assert repr(b) == "<UninitializedBuffer>" and not b.requires_grad
    b.materialize((2, 3))
    assert type(b) is ember.Tensor and b.shape == (2, 3) and b.dtype == ember.float64
    p.materialize((4,), dtype=ember.float64)
    assert type(p) is nn.Parameter and p.shape == (4,) and p.dtype == ember.float64
    q = copy.deepcopy(nn.UninitializedParameter(requires_grad=False))
    assert type(q) is nn.UninitializedParameter and not q.requires_grad


def test_lazy_errors_and_mixin():
    m = nn.LazyConv2d(4, 3)
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to LazyConv2d, but got input of size: "):
        m(ember.randn(2, 3))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(ember.randn(1, 3, 5, 5))
    assert issubclass(nn.LazyLinear, nn.LazyModuleMixin)
    with pytest.warns(UserWarning, match="Lazy modules are a new feature under heavy development"):
        nn.LazyLinear(2)


def test_lazy_module_inside_a_model_and_optimizer():
    model = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
    assert repr(model) == repr(torch.nn.Sequential(torch.nn.LazyLinear(8), torch.nn.ReLU(), torch.nn.LazyLinear(1)))
    y = model(ember.randn(5, 3))
    assert y.shape == (5, 1)
    assert "Linear(in_features=3, out_features=8, bias=True)" in repr(model)
    opt = ember.optim.SGD(model.parameters(), lr=0.1)
    loss = y.pow(2).mean()
    loss.backward()
    opt.step()
    assert all(p.grad is not None for p in model.parameters())


def test_conversion_before_the_first_forward():
    m = nn.LazyLinear(3).double()  # module conversion reaches the uninitialized parameters
    assert m.weight.dtype == ember.float64 and type(m.weight) is nn.UninitializedParameter
    y = m(ember.ones(2, 4, dtype=ember.float64))
    assert y.dtype == ember.float64 and m.weight.dtype == ember.float64
    assert repr(m) == "Linear(in_features=4, out_features=3, bias=True)"
    c = copy.deepcopy(nn.LazyConv1d(2, 3))
    assert type(c).__name__ == "LazyConv1d" and c.has_uninitialized_params()


@pytest.mark.parametrize("make", [
    lambda m: m.nn.LazyLinear(4),
    lambda m: m.nn.LazyConv1d(2, 2),
    lambda m: m.nn.LazyConv2d(4, 3),
    lambda m: m.nn.LazyConvTranspose2d(3, 2),
    lambda m: m.nn.LazyBatchNorm1d(),
])
def test_construction_warns_only_as_torch(make):
    # torch's lazy classes skip initialising their zero-sized parameters: the only warning is
    # the lazy-module one.
    import warnings
    seen = {}
    for mod in (torch, ember):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            make(mod)
        seen[mod.__name__] = [str(x.message) for x in w]
    assert seen["ember"] == seen["torch"]
