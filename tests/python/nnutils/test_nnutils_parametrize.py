"""nn.utils.parametrize and nn.utils.parametrizations against torch 1.13: the Parametrized<Class>
subclass and its repr, state_dict keys (parametrizations.weight.original, original0/1), the
C++ layer's forward reading the parametrized weight, gradients to the originals, cached(),
right_inverse on assignment, chained parametrizations, unsafe, removal, error texts,
orthogonal (matrix_exp / cayley / householder) and spectral_norm."""
import numpy as np
import pytest
import torch

import ember
from ember.nn.utils import parametrize as P


def np_(t):
    return t.detach().numpy()


def make_symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)
    return Symmetric


def twin_linear(shape=(3, 3)):
    torch.manual_seed(0)
    tm = torch.nn.Linear(*shape)
    em = ember.nn.Linear(*shape)
    with ember.no_grad():
        em.weight.copy_(ember.tensor(np_(tm.weight)))
        em.bias.copy_(ember.tensor(np_(tm.bias)))
    return tm, em


def x_of(lib, n=2, k=3):
    return lib.tensor(np.linspace(-1, 1, n * k).reshape(n, k).astype("float32"))


def test_register_parametrization_matches_torch():
    tm, em = twin_linear()
    torch.nn.utils.parametrize.register_parametrization(tm, "weight", make_symmetric(torch)())
    assert P.register_parametrization(em, "weight", make_symmetric(ember)()) is em
    assert type(em).__name__ == "ParametrizedLinear"
    assert isinstance(em, ember.nn.Linear)
    assert P.type_before_parametrizations(em) is ember.nn.Linear
    assert repr(em) == repr(tm)
    assert list(em.state_dict()) == list(tm.state_dict()) == [
        "bias", "parametrizations.weight.original"]
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert P.is_parametrized(em) and P.is_parametrized(em, "weight")
    assert not P.is_parametrized(em, "bias")
    np.testing.assert_allclose(np_(em.weight), np_(tm.weight), rtol=1e-6)
    np.testing.assert_array_equal(np_(em.weight), np_(em.weight).T)
    ty, ey = tm(x_of(torch)), em(x_of(ember))  # Linear's own C++ forward reads the property
    np.testing.assert_allclose(np_(ey), np_(ty), rtol=1e-5, atol=1e-6)
    ty.pow(2).sum().backward()
    ey.pow(2).sum().backward()
    np.testing.assert_allclose(np_(em.parametrizations.weight.original.grad),
                               np_(tm.parametrizations.weight.original.grad), rtol=1e-5, atol=1e-6)


def test_cached_computes_once():
    calls = []

    class Counting(ember.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 2

    _, em = twin_linear()
    P.register_parametrization(em, "weight", Counting())
    calls.clear()
    em.weight
    em.weight
    assert len(calls) == 2
    calls.clear()
    with P.cached():
        a = em.weight
        em(x_of(ember))
        with P.cached():
            b = em.weight
    assert len(calls) == 1
    assert a is b
    em.weight
    assert len(calls) == 2


def test_right_inverse_on_assignment_and_multiple_originals():
    class Scale(ember.nn.Module):
        def forward(self, X):
            return X * 2

        def right_inverse(self, X):
            return X / 2

    class Split(ember.nn.Module):
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X * 0.25, X * 0.75

    _, em = twin_linear()
    w = np_(em.weight).copy()
    P.register_parametrization(em, "weight", Scale())
    np.testing.assert_allclose(np_(em.parametrizations.weight.original), w / 2, rtol=1e-6)
    np.testing.assert_allclose(np_(em.weight), w, rtol=1e-6)
    em.weight = ember.ones(3, 3)
    np.testing.assert_allclose(np_(em.parametrizations.weight.original), np.full((3, 3), 0.5))
    _, em2 = twin_linear()
    P.register_parametrization(em2, "weight", Split())
    assert list(em2.state_dict()) == ["bias", "parametrizations.weight.original0",
                                      "parametrizations.weight.original1"]
    np.testing.assert_allclose(np_(em2.weight), w, rtol=1e-6)
    P.remove_parametrizations(em2, "weight")
    assert list(em2.state_dict()) == ["bias", "weight"]
    assert type(em2) is ember.nn.Linear
    assert repr(em2) == "Linear(in_features=3, out_features=3, bias=True)"


def test_chained_and_removal():
    tm, em = twin_linear()
    for lib, m in ((torch, tm), (ember, em)):
        lib.nn.utils.parametrize.register_parametrization(m, "weight", make_symmetric(lib)())
        lib.nn.utils.parametrize.register_parametrization(m, "weight", make_symmetric(lib)())
    assert repr(em) == repr(tm)
    np.testing.assert_allclose(np_(em.weight), np_(tm.weight), rtol=1e-6)
    torch.nn.utils.parametrize.remove_parametrizations(tm, "weight", leave_parametrized=False)
    P.remove_parametrizations(em, "weight", leave_parametrized=False)
    assert type(em) is ember.nn.Linear
    assert list(em.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(np_(em.weight), np_(tm.weight), rtol=1e-6)
    assert not hasattr(em, "parametrizations")
    np.testing.assert_allclose(np_(em(x_of(ember))), np_(tm(x_of(torch))), rtol=1e-5, atol=1e-6)


def test_errors_as_torch():
    class Bad(ember.nn.Module):
        def forward(self, X):
            return X[:2]

    _, em = twin_linear()
    with pytest.raises(ValueError) as e:
        P.register_parametrization(em, "weight", Bad())
    assert str(e.value) == (
        "Registering a parametrization may not change the shape of the tensor, unless `unsafe` "
        "flag is enabled.\nunparametrized shape: ember.Size([3, 3])\n"
        "parametrized shape: ember.Size([2, 3])")
    P.register_parametrization(em, "weight", Bad(), unsafe=True)
    assert tuple(em.weight.shape) == (2, 3)
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized "
                                         "element with name 'foo'"):
        P.register_parametrization(em, "foo", Bad())
    _, other = twin_linear()
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        P.remove_parametrizations(other, "weight")


@pytest.mark.parametrize("shape,orth_map", [((3, 3), None), ((3, 3), "cayley"),
                                             ((5, 3), None), ((3, 5), "householder"),
                                             ((5, 3), "matrix_exp")])
def test_orthogonal(shape, orth_map):
    torch.manual_seed(0)
    tm = torch.nn.Linear(*shape)
    em = ember.nn.Linear(*shape)
    torch.nn.utils.parametrizations.orthogonal(tm, orthogonal_map=orth_map)
    ember.nn.utils.parametrizations.orthogonal(em, orthogonal_map=orth_map)
    assert list(em.state_dict()) == list(tm.state_dict())
    assert repr(em) == repr(tm)
    W = np_(em.weight).astype(np.float64)
    Q = W if W.shape[0] >= W.shape[1] else W.T
    np.testing.assert_allclose(Q.T @ Q, np.eye(Q.shape[1]), atol=1e-5)
    em(ember.ones(2, shape[0])).sum().backward()
    assert em.parametrizations.weight.original.grad is not None


def test_orthogonal_without_trivialization():
    em = ember.nn.Linear(3, 5)
    ember.nn.utils.parametrizations.orthogonal(em, use_trivialization=False)
    assert list(em.state_dict()) == ["bias", "parametrizations.weight.original"]
    W = np_(em.weight).astype(np.float64)
    np.testing.assert_allclose(W.T @ W, np.eye(3), atol=1e-5)
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices. Got a tensor "
                                         "of 1 dimensions."):
        ember.nn.utils.parametrizations.orthogonal(em, "bias")


def test_spectral_norm_parametrization_matches_torch():
    tm, em = twin_linear((5, 4))
    torch.nn.utils.parametrizations.spectral_norm(tm)
    ember.nn.utils.parametrizations.spectral_norm(em)
    assert list(em.state_dict()) == list(tm.state_dict()) == [
        "bias", "parametrizations.weight.original", "parametrizations.weight.0._u",
        "parametrizations.weight.0._v"]
    assert repr(em) == repr(tm)
    sd = {k: ember.tensor(np_(v)) for k, v in tm.state_dict().items()}
    em.load_state_dict(sd)
    x = np.linspace(-1, 1, 10).reshape(2, 5).astype("float32")
    for _ in range(3):
        ty, ey = tm(torch.tensor(x)), em(ember.tensor(x))
        np.testing.assert_allclose(np_(ey), np_(ty), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np_(em.parametrizations.weight[0]._u),
                               np_(tm.parametrizations.weight[0]._u), rtol=1e-5, atol=1e-6)
    ty.sum().backward()
    ey.sum().backward()
    np.testing.assert_allclose(np_(em.parametrizations.weight.original.grad),
                               np_(tm.parametrizations.weight.original.grad), rtol=1e-4, atol=1e-6)
