"""torch.*'s functional forms of nn layers (namesb): the loss functions whose torch.* binding
defaults to no reduction, the dropout variants, conv_tbc, native_channel_shuffle, native_norm, the
synchronized batch norm steps, quantized_batch_norm / quantized_max_pool1d, _rowwise_prune, and
F.gumbel_softmax / F._threshold, against torch 1.13 (or its formulas where torch runs them on
CUDA only)."""
import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as EF


def e(t):
    return ember.from_numpy(t.numpy().copy())


def same(got, want, rtol=1e-6, atol=1e-6):
    if isinstance(want, ember.Tensor):
        want = torch.from_numpy(want.numpy())
    assert str(got.dtype).replace("ember.", "") == str(want.dtype).replace("torch.", "")
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=rtol, atol=atol)


def test_torch_loss_functions_default_to_no_reduction_like_torch():
    x, y, t = torch.randn(3, 4), torch.rand(3, 4), torch.randn(3, 4).sign()
    cases = [("binary_cross_entropy_with_logits", (x, y)), ("hinge_embedding_loss", (x, t)),
             ("kl_div", (x, y)), ("margin_ranking_loss", (x, y, t)), ("triplet_margin_loss", (x, y, t))]
    for name, args in cases:
        tf, ef = getattr(torch, name), getattr(ember, name)
        same(ef(*map(e, args)), tf(*args))
        same(ef(*map(e, args), reduction=1), tf(*args, reduction=1))
        same(ef(*map(e, args), reduction=2), tf(*args, reduction=2))
    # F's keep their "mean"
    same(EF.kl_div(e(x), e(y), reduction="mean"), torch.nn.functional.kl_div(x, y, reduction="mean"))
    # positional reduction after the optional arguments
    same(ember.hinge_embedding_loss(e(x), e(t), 0.5, 1), torch.hinge_embedding_loss(x, t, 0.5, 1))


@pytest.mark.parametrize("name", ["alpha_dropout", "feature_alpha_dropout", "feature_dropout"])
def test_dropout_forms(name):
    fn = getattr(ember, name)
    x = ember.randn(64, 32, 8)
    assert fn(x, 0.3, False) is x
    assert fn(x, 0.0, True) is x
    y = fn(x, 0.3, True)
    assert y.shape == x.shape
    if name == "feature_dropout":  # whole channels share one draw: all zero or all x / (1 - p)
        zero = (y == 0).all(-1)
        scaled = ((y - x / 0.7).abs() < 1e-5).all(-1)
        assert (zero | scaled).all() and zero.any() and scaled.any()
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        fn(x, 1.5, True)
    z = x.clone()
    assert getattr(ember, name + "_")(z, 0.3, True) is z
    assert not ember.equal(z, x)
    if "alpha" in name:
        # the SELU fixed point: mean 0 and variance 1 kept on standard normal input
        big = ember.randn(400, 400)
        out = fn(big, 0.2, True)
        assert abs(out.mean().item()) < 0.05 and abs(out.var().item() - 1) < 0.05


def test_conv_tbc_channel_shuffle_native_norm():
    x, w, b = torch.randn(7, 2, 3), torch.randn(3, 3, 5), torch.randn(5)
    for pad in (0, 1, 2):
        same(ember.conv_tbc(e(x), e(w), e(b), pad), torch.conv_tbc(x, w, b, pad), 1e-5, 1e-5)
    with pytest.raises(RuntimeError, match="Input must have 3 dims: time, batch, in_channel"):
        ember.conv_tbc(ember.zeros(2, 3), e(w), e(b))
    s = torch.randn(2, 6, 3)
    same(ember.native_channel_shuffle(e(s), 3), torch.native_channel_shuffle(s, 3))
    # torch runs native_norm on sparse tensors only; ember's is the dense norm
    same(ember.native_norm(e(s)), torch.norm(s))
    same(ember.native_norm(e(s), 1, [1], True, None), torch.norm(s, 1, [1], True))


def test_batch_norm_steps_compose_to_batch_norm():
    x = torch.randn(4, 3, 5, dtype=torch.float64)
    w, b = torch.rand(3, dtype=torch.float64) + 0.5, torch.randn(3, dtype=torch.float64)
    eps = 1e-5
    mean, invstd = ember.batch_norm_stats(e(x), eps)
    same(mean, x.mean((0, 2)))
    same(invstd, 1 / torch.sqrt(x.var((0, 2), unbiased=False) + eps))
    same(ember.batch_norm_elemt(e(x), e(w), e(b), mean, invstd, eps),
         torch.nn.functional.batch_norm(x, None, None, w, b, True, 0.1, eps), 1e-10, 1e-10)
    # two "processes" with 2 samples each gather to the whole batch's statistics
    parts = [x[:2], x[2:]]
    stats = [ember.batch_norm_stats(e(p), eps) for p in parts]
    rm, rv = ember.zeros(3, dtype=ember.float64), ember.ones(3, dtype=ember.float64)
    gm, gi = ember.batch_norm_gather_stats(e(x), ember.stack([s[0] for s in stats]), ember.stack([s[1] for s in stats]),
                                           rm, rv, 0.1, eps, 2 * 5)
    same(gm, mean, 1e-10, 1e-10)
    same(gi, invstd, 1e-8, 1e-8)
    trm, trv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    torch.nn.functional.batch_norm(x, trm, trv, None, None, True, 0.1, eps)
    same(rm, trm, 1e-10, 1e-10)
    same(rv, trv, 1e-8, 1e-8)
    gm2, gi2 = ember.batch_norm_gather_stats_with_counts(e(x), ember.stack([s[0] for s in stats]),
                                                         ember.stack([s[1] for s in stats]), None, None,
                                                         0.1, eps, ember.tensor([10.0, 10.0], dtype=ember.float64))
    same(gm2, gm, 1e-12, 1e-12)
    # update_stats runs on torch's CPU too
    r1, r2 = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    want = torch.batch_norm_update_stats(x, r1, r2, 0.3)
    er1, er2 = ember.zeros(3, dtype=ember.float64), ember.ones(3, dtype=ember.float64)
    got = ember.batch_norm_update_stats(e(x), er1, er2, 0.3)
    same(got[0], want[0])
    same(got[1], want[1])
    same(er1, r1)
    same(er2, r2)
    # backward: reduce + elemt give batch norm's input gradient
    xt = x.clone().requires_grad_()
    g = torch.randn_like(x)
    torch.nn.functional.batch_norm(xt, None, None, w, b, True, 0.1, eps).backward(g)
    sum_dy, sum_dy_xmu, gw, gb = ember.batch_norm_backward_reduce(e(g), e(x), mean, invstd, e(w), True, True, True)
    gx = ember.batch_norm_backward_elemt(e(g), e(x), mean, invstd, e(w), sum_dy, sum_dy_xmu,
                                         ember.tensor([20], dtype=ember.int32))
    same(gx, xt.grad, 1e-9, 1e-9)
    same(gb, g.sum((0, 2)), 1e-10, 1e-10)
    none = ember.batch_norm_backward_reduce(e(g), e(x), mean, invstd, None, False, False, False)
    assert all(t is None for t in none)


def test_quantized_forms_and_rowwise_prune():
    x = torch.randn(2, 3, 4, 4)
    q = torch.quantize_per_tensor(x, 0.05, 10, torch.quint8)
    eq_ = ember.quantize_per_tensor(e(x), 0.05, 10, ember.quint8)
    mean, var, w, b = torch.randn(3), torch.rand(3) + 0.5, torch.rand(3), torch.randn(3)
    want = torch.quantized_batch_norm(q, w, b, mean, var, 1e-5, 0.1, 3)
    got = ember.quantized_batch_norm(eq_, e(w), e(b), e(mean), e(var), 1e-5, 0.1, 3)
    assert got.int_repr().tolist() == want.int_repr().tolist()
    with pytest.raises(RuntimeError, match="Weight must be provided"):
        ember.quantized_batch_norm(eq_, None, e(b), e(mean), e(var), 1e-5, 0.1, 3)
    q1 = torch.quantize_per_tensor(torch.randn(2, 3, 9), 0.1, 0, torch.quint8)
    eq1 = ember.quantize_per_tensor(e(q1.dequantize()), 0.1, 0, ember.quint8)
    for args in (([2],), ([3], [2]), ([3], [1], [1])):
        assert ember.quantized_max_pool1d(eq1, *args).int_repr().tolist() == torch.quantized_max_pool1d(q1, *args).int_repr().tolist()
    wt, m = torch.randn(5, 3), torch.tensor([True, False, True, True, False])
    for dt, edt in ((torch.int32, ember.int32), (torch.int64, ember.int64)):
        pw, idx = torch._rowwise_prune(wt, m, dt)
        epw, eidx = ember._rowwise_prune(e(wt), e(m), edt)
        same(epw, pw)
        assert eidx.tolist() == idx.tolist() and eidx.dtype == edt


def test_gumbel_softmax_and_threshold_alias():
    assert EF._threshold is EF.threshold
    logits = ember.randn(200, 5)
    y = EF.gumbel_softmax(logits, tau=0.5)
    assert y.shape == (200, 5)
    np.testing.assert_allclose(y.sum(-1).numpy(), np.ones(200), rtol=1e-5)
    h = EF.gumbel_softmax(logits.requires_grad_(), hard=True)
    assert ember.equal(h.sum(-1), ember.ones(200))
    assert set(h.detach().unique().tolist()) <= {0.0, 1.0}
    h.sum().backward()  # straight-through: the soft sample's gradient
    assert logits.grad is not None
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated and has no effect."):
        EF.gumbel_softmax(ember.randn(2, 3), eps=1e-3)
