"""Issue 16's layers (python/csrc/nn_nnlayers.cpp) against torch 1.13: reprs, state_dict keys,
attributes, outputs and gradients for the same weights and inputs."""
import numpy as np
import pytest
import torch

import ember
import ember.nn as enn


def E(t):
    return ember.from_numpy(t.detach().numpy().copy())


def N(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach().numpy())


# (constructor, input shapes, input kind) — kinds: "any" normal, "pos" positive, "unit" in (0, 1)
LAYERS = [
    ("LeakyReLU()", [(3, 4)]), ("LeakyReLU(0.2, True)", [(3, 4)]), ("PReLU()", [(2, 3, 4)]),
    ("PReLU(3, 0.1)", [(2, 3, 4)]), ("ELU()", [(3, 4)]), ("ELU(2)", [(3, 4)]), ("SELU()", [(3, 4)]),
    ("CELU(0.5)", [(3, 4)]), ("GLU()", [(3, 4)]), ("GLU(0)", [(4, 3)]), ("Softplus()", [(3, 4)]),
    ("Softplus(2.0, 10)", [(3, 4)]), ("Softsign()", [(3, 4)]), ("Softshrink()", [(3, 4)]),
    ("Hardshrink(0.3)", [(3, 4)]), ("Tanhshrink()", [(3, 4)]), ("Mish()", [(3, 4)]),
    ("LogSigmoid()", [(3, 4)]), ("Hardsigmoid()", [(3, 4)]), ("Threshold(0.1, 20)", [(3, 4)]),
    ("Softmin(1)", [(3, 4)]), ("Softmax2d()", [(2, 3, 4, 5)]), ("RReLU()", [(3, 4)]),
    ("Conv3d(2, 4, 3)", [(1, 2, 5, 5, 5)]),
    ("Conv3d(2, 4, (2, 3, 3), stride=2, padding=1, bias=False)", [(1, 2, 5, 6, 6)]),
    ("Conv3d(2, 2, 3, padding='same', groups=2, padding_mode='replicate')", [(1, 2, 4, 4, 4)]),
    ("ConvTranspose1d(3, 4, 3, stride=2, output_padding=1)", [(2, 3, 6)]),
    ("ConvTranspose1d(4, 4, 3, groups=2, dilation=2, bias=False)", [(2, 4, 5)]),
    ("ConvTranspose3d(2, 3, 2, stride=2)", [(1, 2, 3, 3, 3)]),
    ("MaxPool1d(2)", [(2, 3, 9)]), ("MaxPool1d(3, 2, 1, ceil_mode=True)", [(2, 3, 9)]),
    ("MaxPool3d(2)", [(1, 2, 4, 5, 6)]), ("MaxPool3d(3, 2, 1, dilation=1)", [(1, 2, 5, 5, 5)]),
    ("AvgPool1d(2)", [(2, 3, 9)]), ("AvgPool1d(3, 2, 1, True, False)", [(2, 3, 9)]),
    ("AvgPool3d(2)", [(1, 2, 4, 5, 6)]), ("AvgPool3d((2, 2, 2), divisor_override=3)", [(1, 2, 4, 4, 4)]),
    ("AdaptiveAvgPool1d(3)", [(2, 3, 9)]), ("AdaptiveAvgPool3d((1, None, 2))", [(1, 2, 4, 5, 6)]),
    ("AdaptiveAvgPool3d(2)", [(1, 2, 4, 5, 6)]), ("AdaptiveMaxPool1d(4)", [(2, 3, 9)]),
    ("AdaptiveMaxPool3d(2)", [(1, 2, 4, 5, 6)]), ("LPPool1d(2, 3)", [(2, 3, 9)]),
    ("LPPool2d(2.0, 2, 1)", [(1, 2, 5, 5)]),
    ("InstanceNorm1d(3)", [(2, 3, 6)]), ("InstanceNorm2d(3, affine=True)", [(2, 3, 4, 5)]),
    ("InstanceNorm3d(3, track_running_stats=True)", [(2, 3, 3, 4, 4)]), ("InstanceNorm1d(3)", [(3, 6)]),
    ("LocalResponseNorm(2)", [(2, 4, 5)]), ("LocalResponseNorm(3, 1e-3, 0.5, 2.0)", [(2, 5, 4, 4)]),
    ("ZeroPad2d(1)", [(1, 2, 3, 3)]), ("ZeroPad2d((1, 2, 3, 4))", [(1, 2, 3, 3)]),
    ("ConstantPad1d(2, 3.5)", [(2, 3, 4)]), ("ConstantPad2d((1, 0, 2, 1), -1)", [(1, 2, 3, 3)]),
    ("ConstantPad3d(1, 0)", [(1, 2, 3, 3, 3)]), ("ReflectionPad1d(2)", [(2, 3, 5)]),
    ("ReflectionPad2d((1, 1, 2, 0))", [(1, 2, 4, 4)]), ("ReflectionPad3d(1)", [(1, 2, 3, 4, 4)]),
    ("ReplicationPad1d((1, 3))", [(2, 3, 5)]), ("ReplicationPad2d(2)", [(1, 2, 3, 3)]),
    ("ReplicationPad3d((1, 0, 0, 2, 1, 1))", [(1, 2, 3, 3, 3)]),
    ("UpsamplingNearest2d(scale_factor=2)", [(1, 2, 3, 4)]), ("UpsamplingBilinear2d(size=5)", [(1, 2, 3, 4)]),
    ("Fold(4, 2)", [(1, 8, 9)]), ("Unfold(2)", [(1, 2, 4, 4)]), ("Unfold((2, 3), padding=1, stride=2)", [(1, 2, 5, 5)]),
    ("Unflatten(1, (2, 3))", [(4, 6)]), ("PixelShuffle(2)", [(1, 8, 2, 3)]),
    ("PixelUnshuffle(2)", [(1, 2, 4, 6)]), ("ChannelShuffle(2)", [(1, 4, 2, 2)]),
    ("CosineSimilarity()", [(3, 4), (3, 4)]), ("CosineSimilarity(0, 1e-6)", [(3, 4), (3, 4)]),
    ("PairwiseDistance()", [(3, 4), (3, 4)]), ("PairwiseDistance(1.0, 1e-6, True)", [(3, 4), (3, 4)]),
    ("Dropout1d()", None), ("Dropout3d(0.2, True)", None), ("AlphaDropout()", None), ("FeatureAlphaDropout()", None),
]


def _inputs(shapes, seed):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(s, generator=g, dtype=torch.float64) for s in shapes]


@pytest.mark.parametrize("ctor,shapes", LAYERS, ids=[c for c, _ in LAYERS])
def test_layer_matches_torch(ctor, shapes):
    torch.manual_seed(0)
    t_mod = eval("torch.nn." + ctor).double()
    e_mod = eval("enn." + ctor).double()
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict().keys()) == list(t_mod.state_dict().keys())
    assert [n for n, _ in e_mod.named_parameters()] == [n for n, _ in t_mod.named_parameters()]
    if shapes is None:
        return
    e_mod.load_state_dict({k: E(v) for k, v in t_mod.state_dict().items()})
    if "RReLU" in ctor:
        t_mod.eval(), e_mod.eval()
    xs = _inputs(shapes, 1)
    t_in = [x.clone().requires_grad_(True) for x in xs]
    e_in = [E(x).requires_grad_(True) for x in xs]
    inplace = "True)" in ctor and "Leaky" in ctor
    t_out = t_mod(*[x * 1 for x in t_in]) if inplace else t_mod(*t_in)
    e_out = e_mod(*[x * 1 for x in e_in]) if inplace else e_mod(*e_in)
    np.testing.assert_allclose(N(e_out), N(t_out), rtol=1e-9, atol=1e-11)
    if "ChannelShuffle" in ctor:
        return  # torch 1.13 has no derivative for channel_shuffle (ember's is a view's)
    g = torch.randn(t_out.shape, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    t_out.backward(g)
    e_out.backward(E(g))
    for a, b in zip(e_in, t_in):
        np.testing.assert_allclose(N(a.grad), N(b.grad), rtol=1e-8, atol=1e-10)
    for (n, p), (_, q) in zip(e_mod.named_parameters(), t_mod.named_parameters()):
        np.testing.assert_allclose(N(p.grad), N(q.grad), rtol=1e-8, atol=1e-10, err_msg=n)
    if "track_running_stats=True" in ctor:
        for k, v in t_mod.state_dict().items():
            np.testing.assert_allclose(N(e_mod.state_dict()[k]), N(v), rtol=1e-9, atol=1e-12)


REPRS = ["LeakyReLU()", "LeakyReLU(0.2, True)", "PReLU(3)", "ELU(alpha=2, inplace=True)", "SELU(True)",
         "Softplus()", "Softplus(2.0, 10)", "Softshrink()", "Threshold(1, 2, True)", "Softmin()",
         "RReLU(0.1, 0.3, True)", "Mish(True)", "MaxPool3d(2, 1, 1, return_indices=True)",
         "AvgPool1d(3, 2, 1)", "AvgPool3d((2, 2, 2))", "AdaptiveMaxPool1d(2, True)",
         "LPPool1d(2, 3)", "MaxUnpool1d(2)", "MaxUnpool2d(2)", "MaxUnpool3d(2, 1, 0)",
         "InstanceNorm3d(3, track_running_stats=True)", "LocalResponseNorm(2)", "Fold(4, 2)",
         "Dropout1d()", "Dropout3d(0.2, True)", "AlphaDropout()",
         "Conv3d(2, 4, 3)", "ConvTranspose1d(2, 4, 3, stride=2, output_padding=1)",
         "ConvTranspose3d(2, 4, 3, bias=False)", "BCELoss()", "KLDivLoss()", "HuberLoss()",
         "SmoothL1Loss()", "TripletMarginLoss()", "GaussianNLLLoss()", "CosineEmbeddingLoss()",
         "MarginRankingLoss()", "MultiMarginLoss()", "PoissonNLLLoss()"]


@pytest.mark.parametrize("ctor", REPRS)
def test_repr_and_keys(ctor):
    t_mod = eval("torch.nn." + ctor)
    e_mod = eval("enn." + ctor)
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict().keys()) == list(t_mod.state_dict().keys())


def test_attributes():
    assert enn.Softplus().beta == 1 and isinstance(enn.Softplus().beta, int)
    assert enn.ELU().alpha == 1.0 and isinstance(enn.ELU().alpha, float)
    m = enn.MaxPool3d(2)
    assert (m.kernel_size, m.stride, m.padding, m.dilation) == (2, 2, 0, 1)
    a = enn.AvgPool1d(3)
    assert a.kernel_size == (3,) and a.stride == (3,)
    c = enn.Conv3d(2, 4, 3)
    assert c.kernel_size == (3, 3, 3) and c.weight.shape == (4, 2, 3, 3, 3)
    assert enn.ReflectionPad2d(1).padding == (1, 1, 1, 1)
    assert enn.ConstantPad1d(2, 3.5).value == 3.5
    assert enn.PixelShuffle(3).upscale_factor == 3
    assert enn.Unflatten(1, (2, 3)).unflattened_size == (2, 3)
    assert isinstance(enn.Dropout3d(), enn.Module)


def test_prelu_init_and_reset():
    m = enn.PReLU(4, 0.1)
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.full(4, 0.1, np.float32))
    with ember.no_grad():
        m.weight.fill_(2.0)
    m.reset_parameters()
    assert float(m.weight[0]) == pytest.approx(0.1)


def test_conv_init_statistics_match_torch_bounds():
    # kaiming_uniform_(a=sqrt(5)): |w| <= 1/sqrt(fan_in), bias likewise.
    c = enn.Conv3d(2, 4, 3)
    bound = 1 / np.sqrt(2 * 27)
    assert np.abs(c.weight.detach().numpy()).max() <= bound + 1e-7
    t = enn.ConvTranspose1d(3, 4, 3)
    assert t.weight.shape == (3, 4, 3)


def test_errors_match_torch():
    cases = [
        ("Softmax2d()", [(3,)], AssertionError),
        ("InstanceNorm1d(3)", [(2, 3, 4, 5)], ValueError),
        ("InstanceNorm2d(3, affine=True)", [(2, 4, 5, 5)], RuntimeError),
        ("MaxPool3d(2)", [(3, 4, 4)], RuntimeError),
        ("ReflectionPad1d(5)", [(2, 3, 4)], RuntimeError),
    ]
    for ctor, shapes, exc in cases:
        xs = _inputs(shapes, 0)
        with pytest.raises(exc) as te:
            eval("torch.nn." + ctor)(*xs)
        with pytest.raises(exc) as ee:
            eval("enn." + ctor)(*[E(x) for x in xs])
        assert str(ee.value) == str(te.value).replace("torch.", "ember."), ctor
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        enn.Dropout1d(1.5)
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        enn.MultiMarginLoss(p=3)


def test_conv_transpose_output_size_and_return_indices():
    torch.manual_seed(0)
    t = torch.nn.ConvTranspose1d(3, 2, 3, stride=2).double()
    e = enn.ConvTranspose1d(3, 2, 3, stride=2).double()
    e.load_state_dict({k: E(v) for k, v in t.state_dict().items()})
    x = _inputs([(1, 3, 5)], 3)[0]
    np.testing.assert_allclose(N(e(E(x), output_size=[12])), N(t(x, output_size=[12])), rtol=1e-10)
    tp, ep = torch.nn.MaxPool3d(2, return_indices=True), enn.MaxPool3d(2, return_indices=True)
    v = _inputs([(1, 1, 4, 4, 4)], 4)[0]
    (tv, ti), (ev, ei) = tp(v), ep(E(v))
    np.testing.assert_array_equal(N(ei), N(ti))
    tu, eu = torch.nn.MaxUnpool3d(2), enn.MaxUnpool3d(2)
    np.testing.assert_array_equal(N(eu(ev, ei)), N(tu(tv, ti)))


def test_subclass_forward_runs():
    class MyELU(enn.ELU):
        def forward(self, x):
            return super().forward(x) * 2

    m = MyELU()
    assert repr(m) == "MyELU(alpha=1.0)"
    x = ember.tensor([-1.0, 1.0])
    np.testing.assert_allclose(m(x).numpy(), (torch.nn.functional.elu(torch.tensor([-1.0, 1.0])) * 2).numpy())
    seq = enn.Sequential(enn.Conv3d(1, 1, 1), MyELU())
    assert seq(ember.ones(1, 1, 2, 2, 2)).shape == (1, 1, 2, 2, 2)


def test_deepcopy_and_state_dict_round_trip():
    import copy
    m = enn.Sequential(enn.Conv3d(2, 3, 2), enn.PReLU(3), enn.InstanceNorm3d(3, affine=True),
                       enn.LeakyReLU(0.2))
    m2 = copy.deepcopy(m)
    assert repr(m2) == repr(m)
    for (k, a), (_, b) in zip(m.state_dict().items(), m2.state_dict().items()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert a.data_ptr() != b.data_ptr()


def test_parameter_list_and_dict():
    torch.manual_seed(0)
    a, b = torch.randn(3), torch.randn(2, 3)
    tl = torch.nn.ParameterList([torch.nn.Parameter(a), torch.nn.Parameter(b)])
    el = enn.ParameterList([E(a), E(b)])
    assert repr(el) == repr(tl).replace("torch.", "ember.")
    assert len(el) == 2 and el[-1].shape == (2, 3) and isinstance(el[0], enn.Parameter)
    el.append(E(torch.ones(1)))
    assert list(el.state_dict().keys()) == ["0", "1", "2"]
    assert [p.shape for p in el] == [(3,), (2, 3), (1,)]
    with pytest.raises(IndexError):
        el[3]
    td = torch.nn.ParameterDict({"w": torch.nn.Parameter(a)})
    ed = enn.ParameterDict({"w": E(a)})
    assert repr(ed) == repr(td).replace("torch.", "ember.")
    ed["b"] = E(b)
    assert list(ed.keys()) == ["w", "b"] and "b" in ed and len(ed) == 2
    holder = enn.Module()
    holder.params = ed
    assert list(holder.state_dict().keys()) == ["params.w", "params.b"]
    del ed["w"]
    assert list(ed.keys()) == ["b"]
