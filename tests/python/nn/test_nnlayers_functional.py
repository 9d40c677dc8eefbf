"""Issue 16's torch.nn.functional entries and losses against torch 1.13: values, gradients,
warnings and error texts (every interpolate mode, grid_sample, fold / unfold, the losses)."""
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn as enn
import ember.nn.functional as EF


def E(t):
    return ember.from_numpy(t.detach().numpy().copy())


def N(t):
    return t.detach().numpy()


def rand(*shape, seed=0, kind="any"):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float64)
    if kind == "pos":
        x = x.abs() + 0.1
    elif kind == "unit":
        x = torch.sigmoid(x)
    return x


def check(t_fn, e_fn, inputs, rtol=1e-9, atol=1e-11, grad=True, diff=None):
    """Values, then the gradients of the inputs listed in `diff` (all floating ones by default)."""
    def wants(i, x):
        return grad and x.is_floating_point() and (diff is None or i in diff)
    t_in = [x.clone().requires_grad_(wants(i, x)) if isinstance(x, torch.Tensor) else x
            for i, x in enumerate(inputs)]
    e_in = [E(x).requires_grad_(wants(i, x)) if isinstance(x, torch.Tensor) else x
            for i, x in enumerate(inputs)]
    t_out, e_out = t_fn(*t_in), e_fn(*e_in)
    np.testing.assert_allclose(N(e_out), N(t_out), rtol=rtol, atol=atol)
    if grad and t_out.requires_grad:
        g = rand(*t_out.shape, seed=9)
        t_out.backward(g)
        e_out.backward(E(g))
        for a, b in zip(e_in, t_in):
            if isinstance(b, torch.Tensor) and b.requires_grad:
                np.testing.assert_allclose(N(a.grad), N(b.grad), rtol=rtol * 10, atol=atol * 10)


ACTIVATIONS = [
    ("leaky_relu", (0.2,)), ("elu", (0.5,)), ("selu", ()), ("celu", (0.7,)), ("softplus", (2, 1)),
    ("mish", ()), ("glu", (0,)), ("logsigmoid", ()), ("softsign", ()), ("softshrink", (0.3,)),
    ("hardshrink", (0.3,)), ("tanhshrink", ()), ("threshold", (0.1, 20.0)), ("softmin", (1,)),
    ("rrelu", ()), ("normalize", ()), ("local_response_norm", (2,)),
]


@pytest.mark.parametrize("name,args", ACTIVATIONS, ids=[a for a, _ in ACTIVATIONS])
def test_activation_functionals(name, args):
    x = rand(4, 6, 3)
    # torch's CeluBackward0 uses 1 / alpha rounded to float (derivatives.yaml); ember the double.
    rtol = 1e-8 if name == "celu" else 1e-9
    check(lambda t: getattr(TF, name)(t, *args), lambda t: getattr(EF, name)(t, *args), [x], rtol=rtol)


def test_inplace_activations_write_input():
    for name in ("leaky_relu", "elu", "selu", "celu", "threshold"):
        x = rand(3, 4)
        extra = (0.1, 5.0) if name == "threshold" else ()
        tx, ex = x.clone(), E(x)
        t_out = getattr(TF, name)(tx, *extra, inplace=True)
        e_out = getattr(EF, name)(ex, *extra, inplace=True)
        assert e_out is ex
        np.testing.assert_allclose(N(ex), N(tx), rtol=1e-12)
        assert t_out is tx


def test_prelu_and_pdist_and_distances():
    x, w = rand(2, 3, 4), rand(3, seed=1, kind="pos")
    check(TF.prelu, EF.prelu, [x, w])
    check(TF.pdist, EF.pdist, [rand(5, 3)])
    check(lambda a, b: TF.cosine_similarity(a, b, 1), lambda a, b: EF.cosine_similarity(a, b, 1),
          [rand(3, 4), rand(3, 4, seed=1)])
    check(TF.pairwise_distance, EF.pairwise_distance, [rand(3, 4), rand(3, 4, seed=1)])
    for p in (0.0, 1.0, 2.0, 3.0, float("inf")):
        check(lambda a, b: torch.cdist(a, b, p), lambda a, b: ember.cdist(a, b, p),
              [rand(4, 3), rand(5, 3, seed=1)], grad=p > 0)
    check(torch.cdist, ember.cdist, [rand(30, 3), rand(4, 3, seed=1)], rtol=1e-7)


@pytest.mark.parametrize("mode,dims,ac", [
    ("nearest", 1, None), ("nearest", 2, None), ("nearest", 3, None),
    ("nearest-exact", 1, None), ("nearest-exact", 2, None), ("nearest-exact", 3, None),
    ("linear", 1, False), ("linear", 1, True), ("bilinear", 2, False), ("bilinear", 2, True),
    ("bicubic", 2, False), ("bicubic", 2, True), ("trilinear", 3, False), ("trilinear", 3, True),
    ("area", 1, None), ("area", 2, None), ("area", 3, None),
])
def test_interpolate_every_mode(mode, dims, ac):
    x = rand(2, 3, *[5 + d for d in range(dims)])
    for kw in ({"size": [7 + d for d in range(dims)]}, {"scale_factor": 1.7},
               {"scale_factor": 0.6, "recompute_scale_factor": True}):
        check(lambda t: TF.interpolate(t, mode=mode, align_corners=ac, **kw),
              lambda t: EF.interpolate(t, mode=mode, align_corners=ac, **kw), [x], rtol=1e-7, atol=1e-9)


def test_interpolate_errors():
    x = rand(1, 1, 3)
    for mode in ("bilinear", "trilinear"):
        with pytest.raises(NotImplementedError) as te:
            TF.interpolate(x, scale_factor=2, mode=mode)
        with pytest.raises(NotImplementedError) as ee:
            EF.interpolate(E(x), scale_factor=2, mode=mode)
        assert str(ee.value) == str(te.value)
    with pytest.raises(ValueError, match="align_corners option can only be set"):
        EF.interpolate(E(x), scale_factor=2, mode="nearest", align_corners=True)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("ac", [False, True])
def test_grid_sample(mode, padding_mode, ac):
    x = rand(2, 3, 5, 6)
    grid = torch.tanh(rand(2, 4, 3, 2, seed=1)) * 1.2
    check(lambda a, g: TF.grid_sample(a, g, mode, padding_mode, ac),
          lambda a, g: EF.grid_sample(a, g, mode, padding_mode, ac), [x, grid], rtol=1e-7, atol=1e-9,
          grad=mode != "nearest")


def test_affine_grid_and_warnings():
    theta = rand(2, 2, 3)
    check(lambda t: TF.affine_grid(t, [2, 3, 4, 5], False), lambda t: EF.affine_grid(t, [2, 3, 4, 5], False), [theta])
    check(lambda t: TF.affine_grid(t, [1, 1, 2, 3, 4], True), lambda t: EF.affine_grid(t, [1, 1, 2, 3, 4], True),
          [rand(1, 3, 4)])
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
        EF.affine_grid(E(theta), [2, 3, 4, 5])
    with pytest.raises(ValueError) as te:
        TF.affine_grid(rand(1, 3, 3), (1, 1, 2, 2), False)
    with pytest.raises(ValueError) as ee:
        EF.affine_grid(E(rand(1, 3, 3)), (1, 1, 2, 2), False)
    assert str(ee.value) == str(te.value).replace("torch.", "ember.")
    with pytest.raises(ValueError) as ee:
        EF.grid_sample(E(rand(1, 1, 3, 3)), E(rand(1, 2, 2, 2)), mode="foo")
    assert "expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'foo'" in str(ee.value)


def test_fold_unfold_pools():
    x = rand(2, 3, 6, 7)
    check(lambda t: TF.unfold(t, (2, 3), dilation=(1, 2), padding=1, stride=2),
          lambda t: EF.unfold(t, (2, 3), dilation=(1, 2), padding=1, stride=2), [x])
    cols = rand(2, 12, 20)
    check(lambda t: TF.fold(t, (5, 6), 2), lambda t: EF.fold(t, (5, 6), 2), [cols])
    v = rand(1, 2, 5, 6, 7)
    check(lambda t: TF.max_pool3d(t, 2, 2, 1), lambda t: EF.max_pool3d(t, 2, 2, 1), [v])
    check(lambda t: TF.avg_pool3d(t, 3, 2, 1, True, False), lambda t: EF.avg_pool3d(t, 3, 2, 1, True, False), [v])
    check(lambda t: TF.adaptive_max_pool3d(t, (2, None, 3)), lambda t: EF.adaptive_max_pool3d(t, (2, None, 3)), [v])
    check(lambda t: TF.lp_pool2d(t, 2, 2), lambda t: EF.lp_pool2d(t, 2, 2), [rand(1, 2, 4, 4)])
    s = rand(2, 3, 9)
    check(lambda t: TF.max_pool1d(t, 3, 2, 1, ceil_mode=True), lambda t: EF.max_pool1d(t, 3, 2, 1, ceil_mode=True), [s])
    check(lambda t: TF.lp_pool1d(t, 3.0, 2), lambda t: EF.lp_pool1d(t, 3.0, 2), [s.abs()])
    sq = x[..., :6]
    tv, ti = TF.max_pool2d(sq, 2, return_indices=True)
    ev, ei = EF.max_pool2d(E(sq), 2, return_indices=True)
    np.testing.assert_array_equal(N(EF.max_unpool2d(ev, ei, 2)), N(TF.max_unpool2d(tv, ti, 2)))
    np.testing.assert_array_equal(N(EF.max_unpool2d(ev, ei, 2, output_size=(7, 7))),
                                  N(TF.max_unpool2d(tv, ti, 2, output_size=(7, 7))))


def test_instance_norm_functional_and_running_stats():
    x = rand(2, 3, 4, 5)
    rm, rv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    erm, erv = E(rm), E(rv)
    t = TF.instance_norm(x, rm, rv, use_input_stats=True, momentum=0.2)
    e = EF.instance_norm(E(x), erm, erv, use_input_stats=True, momentum=0.2)
    np.testing.assert_allclose(N(e), N(t), rtol=1e-10)
    np.testing.assert_allclose(N(erm), N(rm), rtol=1e-10)
    np.testing.assert_allclose(N(erv), N(rv), rtol=1e-10)
    with pytest.raises(ValueError, match="Expected more than 1 spatial element when training"):
        EF.instance_norm(E(rand(2, 3, 1)))


def test_one_hot_and_shuffles():
    idx = torch.tensor([[0, 3], [2, 1]])
    np.testing.assert_array_equal(N(EF.one_hot(E(idx))), N(TF.one_hot(idx)))
    np.testing.assert_array_equal(N(EF.one_hot(E(idx), 6)), N(TF.one_hot(idx, 6)))
    for bad, kw in ((torch.tensor([-1]), {}), (torch.tensor([3]), {"num_classes": 2})):
        with pytest.raises(RuntimeError) as te:
            TF.one_hot(bad, **kw)
        with pytest.raises(RuntimeError) as ee:
            EF.one_hot(E(bad), **kw)
        assert str(ee.value) == str(te.value)
    x = rand(1, 8, 2, 3)
    check(lambda t: TF.pixel_unshuffle(TF.pixel_shuffle(t, 2), 2),
          lambda t: EF.pixel_unshuffle(EF.pixel_shuffle(t, 2), 2), [x])


LOSSES = [
    ("binary_cross_entropy", ["unit", "unit"], {}), ("binary_cross_entropy", ["unit", "unit"], {"reduction": "sum"}),
    ("kl_div", ["any", "unit"], {"reduction": "batchmean"}), ("kl_div", ["any", "any"], {"reduction": "sum", "log_target": True}),
    ("huber_loss", ["any", "any"], {"delta": 0.5}), ("smooth_l1_loss", ["any", "any"], {"beta": 0.5}),
    ("soft_margin_loss", ["any", "any"], {}), ("multilabel_soft_margin_loss", ["any", "unit"], {}),
    ("hinge_embedding_loss", ["any", "sign"], {}), ("poisson_nll_loss", ["any", "pos"], {}),
    ("poisson_nll_loss", ["pos", "pos"], {"log_input": False, "full": True, "reduction": "none"}),
]


@pytest.mark.parametrize("name,kinds,kw", LOSSES, ids=[n for n, _, _ in LOSSES])
def test_two_input_losses(name, kinds, kw):
    def make(kind, seed):
        if kind == "sign":
            return torch.sign(rand(4, 5, seed=seed)).double()
        return rand(4, 5, seed=seed, kind=kind)
    a, b = make(kinds[0], 0), make(kinds[1], 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda x, y: getattr(TF, name)(x, y, **kw), lambda x, y: getattr(EF, name)(x, y, **kw), [a, b],
              diff=(0,))


def test_margin_losses_and_three_input_losses():
    x = rand(5, 4)
    y = torch.tensor([0, 3, 1, 1, 2])
    for p in (1, 2):
        check(lambda a: TF.multi_margin_loss(a, y, p=p, margin=0.7), lambda a: EF.multi_margin_loss(a, E(y), p=p, margin=0.7), [x])
    w = rand(4, kind="pos")
    check(lambda a: TF.multi_margin_loss(a, y, weight=w, reduction="none"),
          lambda a: EF.multi_margin_loss(a, E(y), weight=E(w), reduction="none"), [x])
    ml = torch.tensor([[3, 0, -1, 1], [0, 1, 2, 3], [1, -1, 0, 0], [2, 2, -1, 0], [-1, 0, 0, 0]])
    check(lambda a: TF.multilabel_margin_loss(a, ml, reduction="none"),
          lambda a: EF.multilabel_margin_loss(a, E(ml), reduction="none"), [x])
    a, b, t = rand(5, 4), rand(5, 4, seed=1), torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0], dtype=torch.float64)
    check(lambda p, q: TF.cosine_embedding_loss(p, q, t, 0.1), lambda p, q: EF.cosine_embedding_loss(p, q, E(t), 0.1), [a, b])
    check(lambda p, q: TF.margin_ranking_loss(p[:, 0], q[:, 0], t, 0.2),
          lambda p, q: EF.margin_ranking_loss(p[:, 0], q[:, 0], E(t), 0.2), [a, b])
    n = rand(5, 4, seed=2)
    for swap in (False, True):
        check(lambda p, q, r: TF.triplet_margin_loss(p, q, r, swap=swap),
              lambda p, q, r: EF.triplet_margin_loss(p, q, r, swap=swap), [a, b, n])
    check(lambda p, q, r: TF.triplet_margin_with_distance_loss(p, q, r),
          lambda p, q, r: EF.triplet_margin_with_distance_loss(p, q, r), [a, b, n])
    var = rand(5, 4, seed=3, kind="pos")
    check(lambda p, q, v: TF.gaussian_nll_loss(p, q, v, full=True), lambda p, q, v: EF.gaussian_nll_loss(p, q, v, full=True),
          [a, b, var], diff=(0, 2))
    check(lambda p, q, v: TF.gaussian_nll_loss(p, q, v), lambda p, q, v: EF.gaussian_nll_loss(p, q, v),
          [a, b, var[:, :1]], diff=(0, 2))


def test_loss_modules_match_functional():
    a, b = rand(4, 5, kind="unit"), rand(4, 5, seed=1, kind="unit")
    w = rand(5, kind="pos")
    t_l, e_l = torch.nn.BCELoss(weight=w), enn.BCELoss(weight=E(w))
    assert list(e_l.state_dict()) == list(t_l.state_dict()) == ["weight"]
    np.testing.assert_allclose(N(e_l(E(a), E(b))), N(t_l(a, b)), rtol=1e-10)
    assert list(enn.BCELoss().state_dict()) == []
    for ctor, args in [("KLDivLoss(reduction='batchmean')", 2), ("HuberLoss(delta=2.0)", 2),
                       ("SmoothL1Loss(beta=0.3)", 2), ("SoftMarginLoss()", 2),
                       ("MultiLabelSoftMarginLoss()", 2), ("TripletMarginLoss(margin=0.3)", 3),
                       ("CosineEmbeddingLoss()", 0), ("MarginRankingLoss(0.1)", 0),
                       ("GaussianNLLLoss()", 0), ("PoissonNLLLoss()", 2), ("HingeEmbeddingLoss()", 2)]:
        tm, em = eval("torch.nn." + ctor), eval("enn." + ctor)
        assert repr(em) == repr(tm)
        if args == 2:
            ins = [rand(4, 5), rand(4, 5, seed=1, kind="unit")]
        elif args == 3:
            ins = [rand(4, 5), rand(4, 5, seed=1), rand(4, 5, seed=2)]
        else:
            continue
        np.testing.assert_allclose(N(em(*[E(x) for x in ins])), N(tm(*ins)), rtol=1e-10)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'negative'"):
        enn.TripletMarginLoss()(E(a), E(b))


def test_loss_errors():
    with pytest.raises(ValueError) as te:
        TF.binary_cross_entropy(rand(3, kind="unit"), rand(3, 1, kind="unit"))
    with pytest.raises(ValueError) as ee:
        EF.binary_cross_entropy(E(rand(3, kind="unit")), E(rand(3, 1, kind="unit")))
    assert str(ee.value) == str(te.value).replace("torch.", "ember.")
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        EF.binary_cross_entropy(E(rand(3) + 3), E(rand(3, kind="unit")))
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss"):
        EF.kl_div(E(rand(3)), E(rand(3, kind="unit")))
    with pytest.raises(ValueError, match="var has negative entry"):
        EF.gaussian_nll_loss(E(rand(3)), E(rand(3)), E(-rand(3, kind="pos")))


def test_native_batch_norm_legit_family_is_native_batch_norm():
    # The _native_batch_norm_legit ops are newer than torch 1.13: the oracle is its native_batch_norm.
    x, w, b = rand(4, 3, 5), rand(3, seed=1), rand(3, seed=2)
    rm, rv = rand(3, seed=3), rand(3, seed=4, kind="pos")
    t = torch.native_batch_norm(x, w, b, rm.clone(), rv.clone(), True, 0.1, 1e-5)
    erm, erv = E(rm), E(rv)
    e = ember.ops.aten._native_batch_norm_legit(E(x), E(w), E(b), erm, erv, True, 0.1, 1e-5)
    for a, c in zip(e, t):
        np.testing.assert_allclose(N(a), N(c), rtol=1e-10, atol=1e-12)
    trm, trv = rm.clone(), rv.clone()
    torch.native_batch_norm(x, w, b, trm, trv, True, 0.1, 1e-5)
    np.testing.assert_allclose(N(erm), N(trm), rtol=1e-12)
    e = ember.ops.aten._native_batch_norm_legit.no_stats(E(x), E(w), E(b), True, 0.1, 1e-5)
    t = torch.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)
    np.testing.assert_allclose(N(e[0]), N(t[0]), rtol=1e-10, atol=1e-12)
    e = ember.ops.aten._native_batch_norm_legit_no_training(E(x), E(w), E(b), E(rm), E(rv), 0.1, 1e-5)
    t = torch.native_batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5)
    np.testing.assert_allclose(N(e[0]), N(t[0]), rtol=1e-10, atol=1e-12)


def test_native_layer_norm_and_group_norm_backward_ops():
    x, w, b = rand(2, 3, 4), rand(4, seed=1), rand(4, seed=2)
    t = torch.native_layer_norm(x, [4], w, b, 1e-5)
    e = ember.native_layer_norm(E(x), [4], E(w), E(b), 1e-5)
    for a, c in zip(e, t):
        np.testing.assert_allclose(N(a), N(c), rtol=1e-9, atol=1e-11)
    g = rand(2, 3, 4, seed=5)
    tb = torch.ops.aten.native_layer_norm_backward(g, x, [4], t[1], t[2], w, b, [True, True, True])
    eb = ember.ops.aten.native_layer_norm_backward(E(g), E(x), [4], e[1], e[2], E(w), E(b), [True, True, True])
    for a, c in zip(eb, tb):
        np.testing.assert_allclose(N(a), N(c), rtol=1e-9, atol=1e-11)
    xg, wg, bg = rand(2, 6, 3), rand(6, seed=1), rand(6, seed=2)
    out, mean, rstd = torch.native_group_norm(xg, wg, bg, 2, 6, 3, 3, 1e-5)
    gg = rand(2, 6, 3, seed=6)
    tb = torch.ops.aten.native_group_norm_backward(gg, xg, mean, rstd, wg, 2, 6, 3, 3, [True, True, True])
    eb = ember.ops.aten.native_group_norm_backward(E(gg), E(xg), E(mean), E(rstd), E(wg), 2, 6, 3, 3,
                                                   [True, True, True])
    for a, c in zip(eb, tb):
        np.testing.assert_allclose(N(a), N(c), rtol=1e-9, atol=1e-11)
