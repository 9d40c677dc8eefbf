"""nn.utils.clip_grad_norm_ / clip_grad_value_ against torch 1.13: total norms (2, 1, inf,
fractional), the clipped gradients, parameters without gradients, a single tensor, generators,
error_if_nonfinite (and that it leaves the gradients alone), foreach accepted."""
import numpy as np
import pytest
import torch

import ember
from ember import nn
from seq_helpers import arr, to_ember


def params(lib, scale=1.0):
    g = torch.Generator().manual_seed(0)
    ts = [torch.randn(3, 4, generator=g, dtype=torch.float64) * scale,
          torch.randn(5, generator=g, dtype=torch.float64) * scale]
    out = []
    for i, t in enumerate(ts):
        p = (t.clone() if lib is torch else to_ember(t)).requires_grad_()
        p.grad = (t * (i + 2)).clone() if lib is torch else to_ember(t * (i + 2))
        out.append(p)
    nograd = (torch.zeros(2, dtype=torch.float64) if lib is torch
              else ember.zeros(2, dtype=ember.float64)).requires_grad_()
    return out + [nograd]


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 0.5, 3])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    tp, ep = params(torch), params(ember)
    tn = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type)
    en = nn.utils.clip_grad_norm_(iter(ep), max_norm, norm_type, foreach=None)
    np.testing.assert_allclose(float(en), float(tn), rtol=1e-12)
    assert en.dim() == 0
    for a, b in zip(ep, tp):
        if b.grad is None:
            assert a.grad is None
        else:
            np.testing.assert_allclose(arr(a.grad), arr(b.grad), rtol=1e-12)


def test_single_tensor_and_no_grads():
    t = torch.ones(3, requires_grad=True)
    t.grad = torch.full((3,), 4.0)
    e = ember.ones(3, requires_grad=True)
    e.grad = ember.full((3,), 4.0)
    np.testing.assert_allclose(float(nn.utils.clip_grad_norm_(e, 1.0)),
                               float(torch.nn.utils.clip_grad_norm_(t, 1.0)))
    np.testing.assert_allclose(arr(e.grad), arr(t.grad), rtol=1e-6)
    z = nn.utils.clip_grad_norm_([ember.ones(2, requires_grad=True)], 1.0)
    assert float(z) == 0.0 and z.dim() == 0


def test_error_if_nonfinite():
    e = ember.ones(3, requires_grad=True)
    e.grad = ember.tensor([1.0, float("nan"), 2.0])
    t = torch.ones(3, requires_grad=True)
    t.grad = torch.tensor([1.0, float("nan"), 2.0])
    with pytest.raises(RuntimeError) as ee:
        nn.utils.clip_grad_norm_([e], 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError) as te:
        torch.nn.utils.clip_grad_norm_([t], 1.0, error_if_nonfinite=True)
    assert str(ee.value) == str(te.value)
    assert np.isnan(arr(e.grad)[1]) and arr(e.grad)[0] == 1.0
    n = nn.utils.clip_grad_norm_([e], 1.0)
    assert np.isnan(float(n))


def test_clip_grad_value():
    tp, ep = params(torch), params(ember)
    torch.nn.utils.clip_grad_value_(tp, 0.7)
    nn.utils.clip_grad_value_(ep, 0.7, foreach=False)
    for a, b in zip(ep, tp):
        if b.grad is not None:
            np.testing.assert_array_equal(arr(a.grad), arr(b.grad))
