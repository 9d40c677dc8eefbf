"""NLLLoss2d and Container (deprecated) and TripletMarginWithDistanceLoss (namesb), against
torch 1.13: reprs, warnings, values."""
import numpy as np
import pytest
import torch

import ember
from ember import nn


def e(t):
    return ember.from_numpy(t.detach().numpy().copy())


def test_nllloss2d_is_nllloss_with_a_deprecation_warning():
    with pytest.warns(UserWarning, match="NLLLoss2d has been deprecated. Please use NLLLoss instead"):
        m = nn.NLLLoss2d(ignore_index=1)
    with pytest.warns(UserWarning):
        tm = torch.nn.NLLLoss2d(ignore_index=1)
    assert repr(m) == repr(tm) == "NLLLoss2d()"
    assert isinstance(m, nn.NLLLoss)
    x, t = torch.randn(2, 3, 4, 4).log_softmax(1), torch.randint(0, 3, (2, 4, 4))
    np.testing.assert_allclose(m(e(x), e(t)).item(), tm(x, t).item(), rtol=1e-6)


def test_container_registers_its_keyword_modules():
    with pytest.warns(UserWarning, match="nn.Container is deprecated. All of it's functionality is now implemented in nn.Module"):
        c = nn.Container(a=nn.ReLU(), b=nn.Linear(2, 3))
    with pytest.warns(UserWarning):
        tc = torch.nn.Container(a=torch.nn.ReLU(), b=torch.nn.Linear(2, 3))
    assert repr(c) == repr(tc)
    assert [n for n, _ in c.named_children()] == ["a", "b"]
    assert list(c.state_dict()) == list(tc.state_dict())


def test_triplet_margin_with_distance_loss():
    a, p, n = torch.randn(5, 4), torch.randn(5, 4), torch.randn(5, 4)
    m, tm = nn.TripletMarginWithDistanceLoss(), torch.nn.TripletMarginWithDistanceLoss()
    assert repr(m) == repr(tm)
    np.testing.assert_allclose(m(e(a), e(p), e(n)).item(), tm(a, p, n).item(), rtol=1e-5)
    cos_e = lambda x, y: 1.0 - ember.nn.functional.cosine_similarity(x, y)  # noqa: E731
    cos_t = lambda x, y: 1.0 - torch.nn.functional.cosine_similarity(x, y)  # noqa: E731
    m2 = nn.TripletMarginWithDistanceLoss(distance_function=cos_e, margin=0.5, swap=True, reduction="none")
    tm2 = torch.nn.TripletMarginWithDistanceLoss(distance_function=cos_t, margin=0.5, swap=True, reduction="none")
    assert repr(m2) == repr(tm2) == "TripletMarginWithDistanceLoss()"
    np.testing.assert_allclose(m2(e(a), e(p), e(n)).numpy(), tm2(a, p, n).numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError):
        nn.TripletMarginWithDistanceLoss(None)  # keyword-only, as torch's


def test_adaptive_log_softmax_with_loss_matches_torch():
    torch.manual_seed(0)
    tm = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
    em = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
    assert repr(em) == repr(tm)
    assert list(em.state_dict()) == list(tm.state_dict())
    em.load_state_dict({k: e(v) for k, v in tm.state_dict().items()})
    x, t = torch.randn(6, 8), torch.tensor([0, 4, 9, 2, 7, 5])
    got, want = em(e(x), e(t)), tm(x, t)
    assert type(got).__name__ == "_ASMoutput" and got._fields == ("output", "loss")
    np.testing.assert_allclose(got.output.detach().numpy(), want.output.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got.loss.item(), want.loss.item(), rtol=1e-5)
    np.testing.assert_allclose(em.log_prob(e(x)).detach().numpy(), tm.log_prob(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert em.predict(e(x)).tolist() == tm.predict(x).tolist()
    got.loss.backward()
    assert em.head.weight.grad is not None
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique, positive integers"):
        nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3])
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\]"):
        em(e(x), ember.tensor([0, 1, 2, 3, 4, 12]))


def test_cross_map_lrn2d_matches_torch_values_and_gradients():
    # size 1: torch's backward slices past the padded buffer, and so does ember's port
    x1 = e(torch.randn(2, 4, 3, 3)).requires_grad_()
    with pytest.raises(RuntimeError, match=r"start \(1\) \+ length \(4\) exceeds dimension size \(4\)"):
        nn.CrossMapLRN2d(1)(x1).sum().backward()
    for size in (2, 3, 5):
        c, tc = nn.CrossMapLRN2d(size, 1e-2, 0.75, 1), torch.nn.CrossMapLRN2d(size, 1e-2, 0.75, 1)
        assert repr(c) == repr(tc)
        x = torch.randn(2, 4, 3, 3, requires_grad=True)
        y = tc(x)
        g = torch.randn_like(y)
        y.backward(g)
        ex = e(x).requires_grad_()
        ey = c(ex)
        ey.backward(e(g))
        np.testing.assert_allclose(ey.detach().numpy(), y.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(ex.grad.numpy(), x.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_sync_batch_norm_as_in_torch_without_cuda():
    s = nn.SyncBatchNorm(3, momentum=0.2)
    assert repr(s) == repr(torch.nn.SyncBatchNorm(3, momentum=0.2))
    assert list(s.state_dict()) == list(torch.nn.SyncBatchNorm(3).state_dict())
    for mode in (s.train, s.eval):
        mode()
        with pytest.raises(ValueError, match="SyncBatchNorm expected input tensor to be on GPU"):
            s(ember.randn(4, 3))
    bn = nn.BatchNorm2d(3)
    net = nn.Sequential(nn.Conv2d(2, 3, 1), bn, nn.Sequential(nn.BatchNorm1d(4, affine=False)))
    tnet = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 1), torch.nn.BatchNorm2d(3),
                               torch.nn.Sequential(torch.nn.BatchNorm1d(4, affine=False)))
    out = nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert repr(out) == repr(torch.nn.SyncBatchNorm.convert_sync_batchnorm(tnet))
    assert out[1].weight is bn.weight and out[1].running_mean is bn.running_mean
    assert type(nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1d(2))).__name__ == "SyncBatchNorm"
