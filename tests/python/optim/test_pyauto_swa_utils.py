"""ember.optim.swa_utils (AveragedModel, SWALR, update_bn) against torch.optim.swa_utils 1.13:
averaged parameters and buffers (default and custom avg_fn, use_buffers), SWALR's rates for
both strategies and several groups, its state_dict, warnings and errors, and update_bn's
recomputed statistics."""
import warnings

import numpy as np
import pytest
import torch

import ember


def _net(lib):
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(),
                             lib.nn.Linear(4, 2))


def _pair():
    torch.manual_seed(0)
    t = _net(torch)
    e = _net(ember)
    e.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t.state_dict().items()})
    return e, t


def _perturb(e, t, s):
    rng = np.random.default_rng(s)
    for (ne, pe), (nt, pt) in zip(e.named_parameters(), t.named_parameters()):
        d = rng.standard_normal(tuple(pt.shape)) * 0.1
        with torch.no_grad():
            pt.add_(torch.tensor(d, dtype=pt.dtype))
        with ember.no_grad():
            pe.add_(ember.tensor(d, dtype=pe.dtype))
    x = rng.standard_normal((6, 3))
    e.train()
    t.train()
    e(ember.tensor(x, dtype=ember.float32))  # moves the running statistics
    t(torch.tensor(x, dtype=torch.float32))


def _close_state(em, tm, tol=1e-6):
    es, ts = em.state_dict(), tm.state_dict()
    assert list(es) == list(ts)
    for k in ts:
        np.testing.assert_allclose(np.array(es[k].tolist()), ts[k].numpy(), rtol=tol, atol=tol,
                                   err_msg=k)


@pytest.mark.parametrize("use_buffers", [False, True])
@pytest.mark.parametrize("custom", [False, True])
def test_averaged_model_as_torch(use_buffers, custom):
    e, t = _pair()
    kw = {"use_buffers": use_buffers}
    if custom:  # an exponential moving average
        kw["avg_fn"] = lambda avg, cur, n: 0.9 * avg + 0.1 * cur
    ea = ember.optim.swa_utils.AveragedModel(e, **kw)
    ta = torch.optim.swa_utils.AveragedModel(t, **kw)
    assert ea.module is not e and isinstance(ea, ember.nn.Module)
    for s in range(4):
        _perturb(e, t, s)
        ea.update_parameters(e)
        ta.update_parameters(t)
    assert ea.n_averaged.item() == ta.n_averaged.item() == 4
    assert ea.n_averaged.dtype == ember.int64
    _close_state(ea, ta)
    x = np.random.default_rng(9).standard_normal((5, 3))
    ea.eval()
    ta.eval()
    np.testing.assert_allclose(ea(ember.tensor(x, dtype=ember.float32)).detach().numpy(),
                               ta(torch.tensor(x, dtype=torch.float32)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    assert list(dict(ea.named_parameters())) == list(dict(ta.named_parameters()))
    assert list(dict(ea.named_buffers())) == list(dict(ta.named_buffers()))


def test_default_average_is_the_mean():
    m = ember.nn.Linear(2, 1)
    avg = ember.optim.swa_utils.AveragedModel(m)
    seen = []
    for v in (1.0, 2.0, 6.0):
        with ember.no_grad():
            m.weight.fill_(v)
        seen.append(v)
        avg.update_parameters(m)
    assert avg.module.weight.tolist() == [[3.0, 3.0]]
    assert m.weight.tolist() == [[6.0, 6.0]]  # the model itself is untouched


def test_update_bn_as_torch():
    e, t = _pair()
    rng = np.random.default_rng(4)
    batches = [rng.standard_normal((5, 3)) for _ in range(3)]
    e.eval()
    t.eval()
    ember.optim.swa_utils.update_bn([(ember.tensor(b, dtype=ember.float32), 0) for b in batches],
                                    e)
    torch.optim.swa_utils.update_bn([(torch.tensor(b, dtype=torch.float32), 0) for b in batches],
                                    t)
    _close_state(e, t, 1e-5)
    assert not e.training  # its mode is restored
    assert e[1].momentum == 0.1
    assert e[1].num_batches_tracked.item() == t[1].num_batches_tracked.item() == 3
    # plain tensors as batches, and a model without batch norm (nothing happens)
    ember.optim.swa_utils.update_bn([ember.tensor(b, dtype=ember.float32) for b in batches], e)
    _close_state(e, t, 1e-5)
    lin = ember.nn.Linear(3, 3)
    ember.optim.swa_utils.update_bn([ember.ones(2, 3)], lin)
    assert lin.training


def _lrs(lib, strategy, anneal_epochs, swa_lr, groups=1, steps=7, pre=None):
    ps = [lib.ones(1, requires_grad=True) for _ in range(groups)]
    opt = lib.optim.SGD([{"params": [p], "lr": 0.5 + 0.25 * i} for i, p in enumerate(ps)],
                        lr=0.5)
    sched = lib.optim.swa_utils.SWALR(opt, swa_lr=swa_lr, anneal_epochs=anneal_epochs,
                                      anneal_strategy=strategy)
    out = [sched.get_last_lr()]
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append(sched.get_last_lr())
    return out, opt, sched


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 3])
def test_swalr_rates_as_torch(strategy, anneal_epochs):
    e, eopt, es = _lrs(ember, strategy, anneal_epochs, 0.05)
    t, topt, ts = _lrs(torch, strategy, anneal_epochs, 0.05)
    np.testing.assert_allclose(e, t, rtol=1e-15)
    e, eopt, es = _lrs(ember, strategy, anneal_epochs, [0.05, 0.2], groups=2)
    t, topt, ts = _lrs(torch, strategy, anneal_epochs, [0.05, 0.2], groups=2)
    np.testing.assert_allclose(e, t, rtol=1e-15)
    assert eopt.param_groups[1]["swa_lr"] == 0.2 and eopt.param_groups[1]["initial_lr"] == 0.75
    esd, tsd = es.state_dict(), ts.state_dict()
    assert list(esd) == list(tsd)
    assert esd["anneal_func"].__name__ == tsd["anneal_func"].__name__
    for k in tsd:
        if k != "anneal_func":
            assert esd[k] == tsd[k], k


def test_swalr_state_dict_round_trip_and_warnings():
    _, opt, s = _lrs(ember, "cos", 4, 0.05, steps=2)
    sd = s.state_dict()
    p = ember.ones(1, requires_grad=True)
    opt2 = ember.optim.SGD([p], lr=0.5)
    s2 = ember.optim.swa_utils.SWALR(opt2, swa_lr=0.05, anneal_strategy="linear")
    s2.load_state_dict(sd)
    assert s2.anneal_epochs == 4 and s2.last_epoch == 2 and s2.anneal_func is sd["anneal_func"]
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        s.get_lr()
    # the scheduler stepped before the optimizer warns, as torch's schedulers do
    opt3 = ember.optim.SGD([ember.ones(1, requires_grad=True)], lr=0.5)
    s3 = ember.optim.swa_utils.SWALR(opt3, swa_lr=0.05)
    with pytest.warns(UserWarning, match="^Detected call of `lr_scheduler.step\\(\\)` before "
                      "`optimizer.step\\(\\)`"):
        s3.step()
    opt4 = ember.optim.SGD([ember.ones(1, requires_grad=True)], lr=0.5)
    s4 = ember.optim.swa_utils.SWALR(opt4, swa_lr=0.05)
    opt4.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s4.step()


@pytest.mark.parametrize("kw", [{"anneal_strategy": "exp"}, {"anneal_epochs": -1},
                                {"anneal_epochs": 1.5}, {"swa_lr": [0.1, 0.2]}])
def test_swalr_errors_as_torch(kw):
    out = []
    for lib in (ember, torch):
        opt = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.5)
        with pytest.raises(ValueError) as info:
            lib.optim.swa_utils.SWALR(opt, **dict({"swa_lr": 0.05}, **kw))
        out.append(str(info.value))
    assert out[0] == out[1]
