"""nn.utils.weight_norm / spectral_norm (the hook forms) against torch 1.13: parameter and buffer
names and order, state_dict, the recomputed weight seen by the layer's own forward, gradients of
g / v / weight_orig, power iteration from the same u and v, eval mode, removal, error texts."""
import numpy as np
import pytest
import torch

import ember


def np_(t):
    return t.detach().numpy()


def twin_linear(shape=(3, 4), seed=0):
    torch.manual_seed(seed)
    tm = torch.nn.Linear(*shape)
    em = ember.nn.Linear(*shape)
    with ember.no_grad():
        em.weight.copy_(ember.tensor(np_(tm.weight)))
        em.bias.copy_(ember.tensor(np_(tm.bias)))
    return tm, em


def x_of(lib, n=2, k=3):
    return lib.tensor(np.linspace(-1, 1, n * k).reshape(n, k).astype("float32"))


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_torch(dim):
    tm, em = twin_linear()
    torch.nn.utils.weight_norm(tm, dim=dim)
    assert ember.nn.utils.weight_norm(em, dim=dim) is em
    assert list(em.state_dict()) == list(tm.state_dict()) == ["bias", "weight_g", "weight_v"]
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    for k in tm.state_dict():
        np.testing.assert_allclose(np_(em.state_dict()[k]), np_(tm.state_dict()[k]), rtol=1e-6)
    assert repr(em) == repr(tm)
    ty, ey = tm(x_of(torch)), em(x_of(ember))
    np.testing.assert_allclose(np_(ey), np_(ty), rtol=1e-5, atol=1e-6)
    ty.pow(2).sum().backward()
    ey.pow(2).sum().backward()
    for n in ("weight_g", "weight_v", "bias"):
        np.testing.assert_allclose(np_(getattr(em, n).grad), np_(getattr(tm, n).grad),
                                   rtol=1e-5, atol=1e-6)
    assert not isinstance(em.weight, ember.nn.Parameter)
    assert em.weight.requires_grad
    torch.nn.utils.remove_weight_norm(tm)
    ember.nn.utils.remove_weight_norm(em)
    assert list(em.state_dict()) == list(tm.state_dict()) == ["bias", "weight"]
    assert isinstance(em.weight, ember.nn.Parameter)
    np.testing.assert_allclose(np_(em.weight), np_(tm.weight), rtol=1e-6)


def test_weight_norm_follows_changes_of_g():
    tm, em = twin_linear()
    torch.nn.utils.weight_norm(tm)
    ember.nn.utils.weight_norm(em)
    with torch.no_grad():
        tm.weight_g.mul_(3)
    with ember.no_grad():
        em.weight_g.mul_(3)
    np.testing.assert_allclose(np_(em(x_of(ember))), np_(tm(x_of(torch))), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np_(em.weight), np_(tm.weight), rtol=1e-6)


def test_weight_norm_conv_and_errors():
    torch.manual_seed(0)
    tc = torch.nn.Conv2d(2, 3, 3)
    ec = ember.nn.Conv2d(2, 3, 3)
    with ember.no_grad():
        ec.weight.copy_(ember.tensor(np_(tc.weight)))
        ec.bias.copy_(ember.tensor(np_(tc.bias)))
    torch.nn.utils.weight_norm(tc)
    ember.nn.utils.weight_norm(ec)
    assert tuple(ec.weight_g.shape) == tuple(tc.weight_g.shape) == (3, 1, 1, 1)
    x = np.linspace(-1, 1, 2 * 2 * 5 * 5).reshape(2, 2, 5, 5).astype("float32")
    np.testing.assert_allclose(np_(ec(ember.tensor(x))), np_(tc(torch.tensor(x))), rtol=1e-5,
                               atol=1e-5)
    with pytest.raises(RuntimeError) as te:
        torch.nn.utils.weight_norm(tc)
    with pytest.raises(RuntimeError) as ee:
        ember.nn.utils.weight_norm(ec)
    assert str(ee.value) == str(te.value)
    _, em = twin_linear()
    with pytest.raises(ValueError) as ee:
        ember.nn.utils.remove_weight_norm(em)
    assert str(ee.value) == ("weight_norm of 'weight' not found in Linear(in_features=3, "
                             "out_features=4, bias=True)")


def test_spectral_norm_power_iteration_matches_torch():
    tm, em = twin_linear((5, 4))
    torch.nn.utils.spectral_norm(tm)
    ember.nn.utils.spectral_norm(em)
    assert list(em.state_dict()) == list(tm.state_dict()) == [
        "bias", "weight_orig", "weight_u", "weight_v"]
    assert [n for n, _ in em.named_buffers()] == ["weight_u", "weight_v"]
    # The same starting u, v (torch's generator draws them): copy torch's.
    with ember.no_grad():
        em.weight_u.copy_(ember.tensor(np_(tm.weight_u)))
        em.weight_v.copy_(ember.tensor(np_(tm.weight_v)))
    x = np.linspace(-1, 1, 10).reshape(2, 5).astype("float32")
    for _ in range(3):
        ty, ey = tm(torch.tensor(x)), em(ember.tensor(x))
        np.testing.assert_allclose(np_(ey), np_(ty), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np_(em.weight_u), np_(tm.weight_u), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np_(em.weight_v), np_(tm.weight_v), rtol=1e-5, atol=1e-6)
    ty.sum().backward()
    ey.sum().backward()
    np.testing.assert_allclose(np_(em.weight_orig.grad), np_(tm.weight_orig.grad), rtol=1e-4,
                               atol=1e-6)
    tm.eval()
    em.eval()
    u = np_(em.weight_u).copy()
    np.testing.assert_allclose(np_(em(ember.tensor(x))), np_(tm(torch.tensor(x))), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_array_equal(np_(em.weight_u), u)
    torch.nn.utils.remove_spectral_norm(tm)
    ember.nn.utils.remove_spectral_norm(em)
    assert list(em.state_dict()) == list(tm.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(np_(em.weight), np_(tm.weight), rtol=1e-5, atol=1e-6)


def test_spectral_norm_errors_and_conv_transpose_dim():
    _, em = twin_linear()
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but got "
                                         "n_power_iterations=0"):
        ember.nn.utils.spectral_norm(em, n_power_iterations=0)
    ember.nn.utils.spectral_norm(em)
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the same "
                                           "parameter weight"):
        ember.nn.utils.spectral_norm(em)
    _, other = twin_linear()
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in Linear"):
        ember.nn.utils.remove_spectral_norm(other)
    ct = ember.nn.ConvTranspose2d(2, 3, 3)
    ember.nn.utils.spectral_norm(ct)
    assert tuple(ct.weight_u.shape) == (3,)
    assert tuple(ct.weight_v.shape) == (18,)
