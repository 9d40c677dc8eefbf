"""utils.checkpoint against torch 1.13: gradients equal to the uncheckpointed run (reentrant
and not), dropout recomputed from the saved RNG state, the warning when no input requires grad
(reentrant only), parameters reached without input gradients (non-reentrant), keyword
arguments, checkpoint_sequential, preserve_rng_state=False."""
import warnings

import numpy as np
import pytest
import torch
import torch.utils.checkpoint as tck

import ember
import ember.utils.checkpoint as eck


def model(lib, p=0.5):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Dropout(p),
                             lib.nn.Linear(8, 3))


def x_of(lib, requires_grad=True):
    return lib.tensor(np.linspace(-1, 1, 8).reshape(2, 4).astype("float32"),
                      requires_grad=requires_grad)


def grads(m, x):
    out = [p.grad.numpy().copy() for p in m.parameters()]
    return out + ([x.grad.numpy().copy()] if x.grad is not None else [])


@pytest.mark.parametrize("reentrant", [True, False])
def test_gradients_equal_uncheckpointed_run_with_dropout(reentrant):
    m, x = model(ember), x_of(ember)
    ember.manual_seed(5)
    y = eck.checkpoint(m, x, use_reentrant=reentrant)
    y.sum().backward()
    g_ck = grads(m, x)
    m.zero_grad()
    x.grad = None
    ember.manual_seed(5)
    y2 = m(x)
    y2.sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), y2.detach().numpy())
    for a, b in zip(g_ck, grads(m, x)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("reentrant", [True, False])
def test_matches_torch_without_dropout(reentrant):
    tm, em = model(torch, 0.0), model(ember, 0.0)
    with ember.no_grad():
        for p, q in zip(em.parameters(), tm.parameters()):
            p.copy_(ember.tensor(q.detach().numpy()))
    tx, ex = x_of(torch), x_of(ember)
    tck.checkpoint(tm, tx, use_reentrant=reentrant).pow(2).sum().backward()
    eck.checkpoint(em, ex, use_reentrant=reentrant).pow(2).sum().backward()
    for a, b in zip(grads(em, ex), grads(tm, tx)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_reentrant_warns_when_no_input_requires_grad():
    m = model(ember)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = eck.checkpoint(m, x_of(ember, False))
    assert [str(i.message) for i in w] == [
        "None of the inputs have requires_grad=True. Gradients will be None"]
    assert not y.requires_grad


def test_non_reentrant_reaches_parameters_without_input_grad():
    m = model(ember, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = eck.checkpoint(m, x_of(ember, False), use_reentrant=False)
    assert y.requires_grad
    y.sum().backward()
    assert all(p.grad is not None for p in m.parameters())


def test_keyword_arguments():
    def fn(a, scale=1.0):
        return a * scale

    x = x_of(ember)
    y = eck.checkpoint(fn, x, use_reentrant=False, scale=3.0)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 4), 3.0, np.float32))
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        eck.checkpoint(fn, x, scale=3.0)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: a,b"):
        eck.checkpoint_sequential([fn], 1, x, a=1, b=2)


def test_preserve_rng_state_false_draws_a_new_mask():
    m, x = model(ember, 0.5), x_of(ember)
    ember.manual_seed(7)
    y = eck.checkpoint(m, x, preserve_rng_state=False)
    ember.manual_seed(7)
    y.sum().backward()  # the recomputation draws from the generator as it is now
    assert m[0].weight.grad is not None


def test_checkpoint_sequential_matches_plain_run():
    tm, em = model(torch, 0.0), model(ember, 0.0)
    with ember.no_grad():
        for p, q in zip(em.parameters(), tm.parameters()):
            p.copy_(ember.tensor(q.detach().numpy()))
    tx, ex = x_of(torch), x_of(ember)
    ty = tck.checkpoint_sequential(tm, 2, tx)
    ey = eck.checkpoint_sequential(em, 2, ex)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-5, atol=1e-7)
    ty.sum().backward()
    ey.sum().backward()
    for a, b in zip(grads(em, ex), grads(tm, tx)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_none_of_outputs_requires_grad_is_an_error():
    def fn(a):
        return a.detach()

    y = eck.checkpoint(fn, x_of(ember))  # reentrant: the Function's output records history
    with pytest.raises(RuntimeError, match="none of output has requires_grad=True"):
        y.sum().backward()
    # Non-reentrant: fn's own graph, as torch's, so a detached output has none.
    y = eck.checkpoint(fn, x_of(ember), use_reentrant=False)
    assert not y.requires_grad
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have "
                                           "a grad_fn"):
        y.sum().backward()


def test_non_reentrant_grad_on_a_subset_of_leaves():
    results = []
    for lib, ck in ((torch, tck), (ember, eck)):
        lib.manual_seed(0)
        x = lib.ones(2, 4, requires_grad=True)
        w = lib.full((4, 3), 0.25, requires_grad=True)
        y = ck.checkpoint(lambda a: (a @ w).tanh(), x, use_reentrant=False).sum()
        gw, = lib.autograd.grad(y, [w])
        assert x.grad is None
        results.append(gw.numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6)


def test_non_reentrant_recomputes_once_and_frees_activations():
    runs = []

    def fn(a):
        runs.append(1)
        return a.exp().sin().cos()

    x = x_of(ember)
    y = eck.checkpoint(fn, x, use_reentrant=False).sum()
    assert len(runs) == 1
    y.backward(retain_graph=True)
    assert len(runs) == 2
    y.backward()  # the retained graph reuses the recomputation
    assert len(runs) == 2
    ref = x.detach()
    expect = 2 * (ref.exp().sin().sin() * -1 * ref.exp().cos() * ref.exp())
    np.testing.assert_allclose(x.grad.numpy(), expect.numpy(), rtol=1e-5, atol=1e-6)


def test_reachable_as_attribute():
    assert ember.utils.checkpoint.checkpoint is eck.checkpoint
