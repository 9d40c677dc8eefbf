"""F.ctc_loss / nn.CTCLoss against torch 1.13: losses and gradients (float32 and float64) for
padded and concatenated targets, int32 targets, tensor and tuple lengths, every reduction,
zero_infinity, unbatched input, blank other than 0; repr; error texts."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF


def np_(t):
    return t.detach().numpy()


def inputs(dtype, T=12, N=3, C=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    lp = torch.randn(T, N, C, generator=g, dtype=dtype).log_softmax(2)
    return lp


CASES = [
    # targets (padded), input_lengths, target_lengths
    ([[1, 2, 2, 3], [4, 4, 1, 0], [2, 0, 0, 0]], [12, 10, 7], [4, 3, 1]),
    ([[1, 1, 1, 1], [3, 0, 0, 0], [1, 2, 3, 4]], [12, 12, 4], [4, 0, 4]),  # last one impossible
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_values_and_gradients(dtype, case, reduction, zero_infinity):
    targets, il, tl = CASES[case]
    tlp = inputs(dtype).requires_grad_()
    elp = ember.tensor(np_(tlp)).requires_grad_()
    tt = torch.tensor(targets)
    et = ember.tensor(targets)
    tl_ = TF.ctc_loss(tlp, tt, il, tl, reduction=reduction, zero_infinity=zero_infinity)
    el_ = EF.ctc_loss(elp, et, il, tl, reduction=reduction, zero_infinity=zero_infinity)
    tol = 1e-5 if dtype == torch.float32 else 1e-12
    np.testing.assert_allclose(np_(el_), np_(tl_), rtol=tol, atol=tol)
    if not np.all(np.isfinite(np_(tl_))):
        return
    g = np.linspace(0.5, 1.5, tl_.numel()).reshape(tl_.shape).astype(np_(tl_).dtype)
    tl_.backward(torch.tensor(g))
    el_.backward(ember.tensor(g))
    np.testing.assert_allclose(np_(elp.grad), np_(tlp.grad), rtol=tol * 10, atol=tol * 10)


def test_concatenated_int32_targets_tensor_lengths():
    targets, il, tl = CASES[0]
    flat = [v for row, n in zip(targets, tl) for v in row[:n]]
    tlp = inputs(torch.float64)
    elp = ember.tensor(np_(tlp))
    t = TF.ctc_loss(tlp, torch.tensor(flat, dtype=torch.int32), torch.tensor(il),
                    torch.tensor(tl), reduction="none")
    e = EF.ctc_loss(elp, ember.tensor(flat, dtype=ember.int32), ember.tensor(il),
                    ember.tensor(tl), reduction="none")
    np.testing.assert_allclose(np_(e), np_(t), rtol=1e-12)
    t_raw = torch._ctc_loss(tlp, torch.tensor(flat), il, tl)[0]
    e_raw = ember.ops.aten._ctc_loss(elp, ember.tensor(flat), il, tl)[0]
    np.testing.assert_allclose(np_(e_raw), np_(t_raw), rtol=1e-12)


def test_unbatched_and_blank():
    tlp = inputs(torch.float64)[:, 0]
    elp = ember.tensor(np_(tlp))
    t = TF.ctc_loss(tlp, torch.tensor([1, 2, 3]), (12,), (3,), blank=4, reduction="none")
    e = EF.ctc_loss(elp, ember.tensor([1, 2, 3]), (12,), (3,), blank=4, reduction="none")
    assert e.dim() == 0
    np.testing.assert_allclose(np_(e), np_(t), rtol=1e-12)


def test_module():
    targets, il, tl = CASES[0]
    tlp = inputs(torch.float32)
    elp = ember.tensor(np_(tlp))
    tm, em = torch.nn.CTCLoss(blank=0, zero_infinity=True), ember.nn.CTCLoss(blank=0, zero_infinity=True)
    assert repr(em) == repr(tm) == "CTCLoss()"
    assert em.blank == 0 and em.zero_infinity and em.reduction == "mean"
    np.testing.assert_allclose(np_(em(elp, ember.tensor(targets), il, tl)),
                               np_(tm(tlp, torch.tensor(targets), il, tl)), rtol=1e-5)
    np.testing.assert_allclose(
        np_(em(elp, ember.tensor(targets), ember.tensor(il), ember.tensor(tl))),
        np_(tm(tlp, torch.tensor(targets), torch.tensor(il), torch.tensor(tl))), rtol=1e-5)
    y = em(elp.requires_grad_(), ember.tensor(targets), il, tl)
    assert y.grad_fn is not None


def _err(fn):
    with pytest.raises(Exception) as e:
        fn()
    return type(e.value).__name__, str(e.value)


def test_errors_as_torch():
    tlp = inputs(torch.float32, T=5, N=2, C=4)
    elp = ember.tensor(np_(tlp))
    long2 = [[1, 1, 1], [1, 1, 1]]
    cases = [
        lambda L, lp: L._ctc_loss(lp, L.ones(2, 3), [5, 5], [3, 3]),
        lambda L, lp: L._ctc_loss(lp[0], L.tensor(long2), [5, 5], [3, 3]),
        lambda L, lp: L._ctc_loss(lp, L.tensor(long2), [5, 5], [3, 4]),
        lambda L, lp: L._ctc_loss(lp, L.tensor(long2), [5, 6], [3, 3]),
        lambda L, lp: L._ctc_loss(lp, L.ones(7, dtype=L.long), [5, 5], [3, 3]),
        lambda L, lp: L._ctc_loss(lp, L.tensor(long2), [5, 5, 5], [3, 3]),
        lambda L, lp: L._ctc_loss(lp, L.tensor(long2), [5, 5], [3, 3], blank=4),
        lambda L, lp: L.ctc_loss(lp, L.tensor(long2), L.tensor([5.0, 5.0]), L.tensor([3, 3])),
    ]
    for fn in cases:
        tname, tmsg = _err(lambda: fn(torch, tlp))
        ename, emsg = _err(lambda: fn(ember, elp))
        assert ename == tname
        assert emsg == tmsg.replace("torch.", "ember.")
