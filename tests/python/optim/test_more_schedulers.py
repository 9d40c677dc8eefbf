"""ember.optim.lr_scheduler's ExponentialLR, ConstantLR, LinearLR, MultiplicativeLR,
PolynomialLR, CosineAnnealingWarmRestarts and ReduceLROnPlateau against torch 1.13: the learning
rates equal to the bit over many steps (two groups), get_last_lr, state_dict layout and round
trips, the deprecated step(epoch) closed forms, and error texts."""
import math
import warnings

import pytest
import torch

import ember


def _opts(lr0=0.1, lr1=0.05):
    t = torch.optim.SGD([{"params": [torch.zeros(2, requires_grad=True)]},
                         {"params": [torch.zeros(1, requires_grad=True)], "lr": lr1}], lr=lr0, momentum=0.9)
    e = ember.optim.SGD([{"params": [ember.zeros(2, requires_grad=True)]},
                         {"params": [ember.zeros(1, requires_grad=True)], "lr": lr1}], lr=lr0, momentum=0.9)
    return t, e


SCHEDS = [
    ("ExponentialLR", dict(gamma=0.9)),
    ("ConstantLR", dict()),
    ("ConstantLR", dict(factor=0.3, total_iters=3)),
    ("LinearLR", dict()),
    ("LinearLR", dict(start_factor=0.1, end_factor=0.7, total_iters=7)),
    ("PolynomialLR", dict()),
    ("PolynomialLR", dict(total_iters=8, power=2.5)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3)),
    ("CosineAnnealingWarmRestarts", dict(T_0=2, T_mult=2, eta_min=0.001)),
]


def _clean(sd):
    return {k: v for k, v in sd.items() if k != "lr_lambdas"}


@pytest.mark.parametrize("name,kw", SCHEDS, ids=[f"{s[0]}-{i}" for i, s in enumerate(SCHEDS)])
def test_rates_equal_torch_bit_for_bit(name, kw):
    topt, eopt = _opts()
    ts = getattr(torch.optim.lr_scheduler, name)(topt, **kw)
    es = getattr(ember.optim.lr_scheduler, name)(eopt, **kw)
    assert es.get_last_lr() == ts.get_last_lr()
    for step in range(20):
        topt.step()
        eopt.step()
        ts.step()
        es.step()
        assert es.get_last_lr() == ts.get_last_lr(), step
        assert [g["lr"] for g in eopt.param_groups] == [g["lr"] for g in topt.param_groups]
        if step == 9:  # round trip through state_dict into a fresh scheduler
            sd = es.state_dict()
            assert list(sd) == list(ts.state_dict()), (list(sd), list(ts.state_dict()))
            assert sd == ts.state_dict()
            osd = eopt.state_dict()
            _, eopt = _opts()  # resuming: new optimizer and scheduler, then both states
            es = getattr(ember.optim.lr_scheduler, name)(eopt, **kw)
            eopt.load_state_dict(osd)
            es.load_state_dict(sd)
    assert es.state_dict() == ts.state_dict()


@pytest.mark.parametrize("name,kw", [s for s in SCHEDS if s[0] != "CosineAnnealingWarmRestarts"])
def test_closed_forms_of_step_epoch(name, kw):
    topt, eopt = _opts()
    ts = getattr(torch.optim.lr_scheduler, name)(topt, **kw)
    es = getattr(ember.optim.lr_scheduler, name)(eopt, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in [3, 1, 7, 12, 0, 5]:
            ts.step(epoch)
            es.step(epoch)
            assert es.get_last_lr() == ts.get_last_lr(), epoch


def test_warm_restarts_fractional_and_jumping_epochs():
    for kw in [dict(T_0=3), dict(T_0=2, T_mult=2, eta_min=0.01), dict(T_0=5, T_mult=3)]:
        topt, eopt = _opts()
        ts = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(topt, **kw)
        es = ember.optim.lr_scheduler.CosineAnnealingWarmRestarts(eopt, **kw)
        for epoch in [0.5, 1.25, 2, 4.75, 9, 26, 26.5, None, None, 3, None, 40.0]:
            ts.step(epoch)
            es.step(epoch)
            assert es.get_last_lr() == ts.get_last_lr(), (kw, epoch)
            assert es.last_epoch == ts.last_epoch
            assert es.state_dict() == ts.state_dict(), (kw, epoch)
            assert type(es.state_dict()["T_cur"]) is type(ts.state_dict()["T_cur"]), (kw, epoch)
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        es.step(-1)


def test_multiplicative_lr():
    topt, eopt = _opts()
    ts = torch.optim.lr_scheduler.MultiplicativeLR(topt, lambda e: 0.95 if e % 2 else 0.8)
    es = ember.optim.lr_scheduler.MultiplicativeLR(eopt, lambda e: 0.95 if e % 2 else 0.8)
    for _ in range(10):
        topt.step()
        eopt.step()
        ts.step()
        es.step()
        assert es.get_last_lr() == ts.get_last_lr()
    assert list(es.state_dict()) == list(ts.state_dict())
    assert es.state_dict() == ts.state_dict()  # lr_lambdas: [None, None]
    es2 = ember.optim.lr_scheduler.MultiplicativeLR(eopt, [lambda e: 0.5, lambda e: 0.9])
    es2.load_state_dict(es.state_dict())
    assert es2.last_epoch == 10
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        ember.optim.lr_scheduler.MultiplicativeLR(eopt, [lambda e: 0.5])


@pytest.mark.parametrize("name,kw,msg", [
    ("ConstantLR", dict(factor=1.5), "Constant multiplicative factor expected to be between 0 and 1."),
    ("LinearLR", dict(start_factor=-0.1), "Starting multiplicative factor expected to be between 0 and 1."),
    ("LinearLR", dict(end_factor=2.0), "Ending multiplicative factor expected to be between 0 and 1."),
    ("CosineAnnealingWarmRestarts", dict(T_0=0), "Expected positive integer T_0, but got 0"),
    ("CosineAnnealingWarmRestarts", dict(T_0=2, T_mult=0), "Expected integer T_mult >= 1, but got 0"),
    ("ReduceLROnPlateau", dict(factor=1.0), "Factor should be < 1.0."),
    ("ReduceLROnPlateau", dict(mode="middle"), "mode middle is unknown!"),
    ("ReduceLROnPlateau", dict(threshold_mode="x"), "threshold mode x is unknown!"),
    ("ReduceLROnPlateau", dict(min_lr=[0.1]), "expected 2 min_lrs, got 1"),
])
def test_errors_as_torch(name, kw, msg):
    topt, eopt = _opts()
    with pytest.raises(ValueError) as t:
        getattr(torch.optim.lr_scheduler, name)(topt, **kw)
    assert str(t.value) == msg
    with pytest.raises(ValueError) as e:
        getattr(ember.optim.lr_scheduler, name)(eopt, **kw)
    assert str(e.value) == msg


@pytest.mark.parametrize("kw", [
    dict(),
    dict(mode="max", factor=0.5, patience=1, cooldown=2, threshold=0.05, threshold_mode="abs"),
    dict(patience=0, min_lr=[0.02, 0.001], eps=1e-3),
    dict(mode="max", patience=2, threshold_mode="rel", min_lr=0.03),
])
def test_reduce_lr_on_plateau_equals_torch(kw):
    topt, eopt = _opts()
    ts = torch.optim.lr_scheduler.ReduceLROnPlateau(topt, **kw)
    es = ember.optim.lr_scheduler.ReduceLROnPlateau(eopt, **kw)
    assert es.state_dict() == ts.state_dict()
    assert list(es.state_dict()) == list(ts.state_dict())
    metrics = [1.0, 0.9, 0.95, 0.97, 0.96, 0.99, 0.5, 0.51, 0.52, 0.53, 0.54, 0.55, 0.56, 0.2,
               0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3]
    for i, m in enumerate(metrics):
        ts.step(m)
        es.step(ember.tensor(m) if i % 3 == 0 else m)  # float(metrics): tensors too
        assert [g["lr"] for g in eopt.param_groups] == [g["lr"] for g in topt.param_groups], i
        assert es.state_dict() == ts.state_dict(), i
        assert es._last_lr == ts._last_lr
        if i == 12:
            sd = es.state_dict()
            es = ember.optim.lr_scheduler.ReduceLROnPlateau(eopt, **kw)
            es.load_state_dict(sd)
    assert list(es.state_dict()) == list(ts.state_dict())
    assert es.in_cooldown == ts.in_cooldown and es.num_bad_epochs == ts.num_bad_epochs


def test_reduce_lr_on_plateau_bad_state_changes_nothing():
    _, eopt = _opts()
    es = ember.optim.lr_scheduler.ReduceLROnPlateau(eopt)
    sd = es.state_dict()
    sd["mode"] = "sideways"
    with pytest.raises(ValueError, match="mode sideways is unknown!"):
        es.load_state_dict(sd)
    assert es.state_dict()["mode"] == "min"
    assert math.isinf(es.best)


def _pair(lib, opt):
    L = (torch if lib == "torch" else ember).optim.lr_scheduler
    return [L.LinearLR(opt, start_factor=0.2, total_iters=3), L.ExponentialLR(opt, gamma=0.8),
            L.ConstantLR(opt, factor=0.5, total_iters=2)]


def test_sequential_lr_equals_torch():
    topt, eopt = _opts()
    ts = torch.optim.lr_scheduler.SequentialLR(topt, _pair("torch", topt), milestones=[4, 9])
    es = ember.optim.lr_scheduler.SequentialLR(eopt, _pair("ember", eopt), milestones=[4, 9])
    assert es.get_last_lr() == ts.get_last_lr()
    for step in range(15):
        topt.step()
        eopt.step()
        ts.step()
        es.step()
        assert es.get_last_lr() == ts.get_last_lr(), step
        assert [g["lr"] for g in eopt.param_groups] == [g["lr"] for g in topt.param_groups], step
        assert es.last_epoch == ts.last_epoch
    sd, tsd = es.state_dict(), ts.state_dict()
    assert list(sd) == list(tsd) == ["_milestones", "last_epoch", "_last_lr", "_schedulers"]
    assert sd == tsd
    _, eopt2 = _opts()
    es2 = ember.optim.lr_scheduler.SequentialLR(eopt2, _pair("ember", eopt2), milestones=[4, 9])
    es2.load_state_dict(sd)
    assert es2.state_dict() == tsd
    with pytest.raises(ValueError) as t:
        torch.optim.lr_scheduler.SequentialLR(topt, _pair("torch", topt), milestones=[4])
    with pytest.raises(ValueError) as e:
        ember.optim.lr_scheduler.SequentialLR(eopt, _pair("ember", eopt), milestones=[4])
    assert str(e.value) == str(t.value)
    with pytest.raises(ValueError) as t:
        torch.optim.lr_scheduler.SequentialLR(_opts()[0], _pair("torch", topt), milestones=[4, 9])
    with pytest.raises(ValueError) as e:
        ember.optim.lr_scheduler.SequentialLR(_opts()[1], _pair("ember", eopt), milestones=[4, 9])
    assert str(e.value) == str(t.value)


def test_chained_scheduler_equals_torch():
    topt, eopt = _opts()
    ts = torch.optim.lr_scheduler.ChainedScheduler(_pair("torch", topt))
    es = ember.optim.lr_scheduler.ChainedScheduler(_pair("ember", eopt))
    assert es.get_last_lr() == ts.get_last_lr()
    for step in range(10):
        topt.step()
        eopt.step()
        ts.step()
        es.step()
        assert es.get_last_lr() == ts.get_last_lr(), step
    sd, tsd = es.state_dict(), ts.state_dict()
    assert list(sd) == list(tsd) == ["_last_lr", "_schedulers"]
    assert sd == tsd
    _, eopt2 = _opts()
    es2 = ember.optim.lr_scheduler.ChainedScheduler(_pair("ember", eopt2))
    es2.load_state_dict(sd)
    assert es2.state_dict() == tsd
    with pytest.raises(ValueError) as t:
        torch.optim.lr_scheduler.ChainedScheduler([torch.optim.lr_scheduler.ExponentialLR(topt, 0.9),
                                                   torch.optim.lr_scheduler.ExponentialLR(_opts()[0], 0.9)])
    with pytest.raises(ValueError) as e:
        ember.optim.lr_scheduler.ChainedScheduler([ember.optim.lr_scheduler.ExponentialLR(eopt, 0.9),
                                                   ember.optim.lr_scheduler.ExponentialLR(_opts()[1], 0.9)])
    assert str(e.value) == str(t.value)


@pytest.mark.parametrize("kw", [
    dict(base_lr=0.01, max_lr=0.1, step_size_up=4),
    dict(base_lr=[0.01, 0.02], max_lr=[0.1, 0.3], step_size_up=3, step_size_down=5, mode="triangular2"),
    dict(base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range", gamma=0.9, base_momentum=0.7,
         max_momentum=0.95),
    dict(base_lr=0.01, max_lr=0.1, step_size_up=3, scale_fn=lambda x: 1 / (x + 1), scale_mode="iterations",
         cycle_momentum=False),
])
def test_cyclic_lr_equals_torch(kw):
    topt, eopt = _opts()
    ts = torch.optim.lr_scheduler.CyclicLR(topt, **kw)
    es = ember.optim.lr_scheduler.CyclicLR(eopt, **kw)
    assert es.get_last_lr() == ts.get_last_lr()
    for step in range(25):
        topt.step()
        eopt.step()
        ts.step()
        es.step()
        assert es.get_last_lr() == ts.get_last_lr(), step
        assert [g["momentum"] for g in eopt.param_groups] == [g["momentum"] for g in topt.param_groups], step
    sd, tsd = es.state_dict(), ts.state_dict()
    assert list(sd) == list(tsd)
    skip = ("_scale_fn_ref", "_scale_fn_custom")  # functions in torch
    assert {k: v for k, v in sd.items() if k not in skip} == {k: v for k, v in tsd.items() if k not in skip}
    es.load_state_dict(sd)
    assert es.state_dict() == sd


def test_cyclic_lr_errors_as_torch():
    for kw in [dict(base_lr=[0.1], max_lr=0.2), dict(base_lr=0.1, max_lr=0.2, mode="square")]:
        topt, eopt = _opts()
        with pytest.raises(ValueError) as t:
            torch.optim.lr_scheduler.CyclicLR(topt, **kw)
        with pytest.raises(ValueError) as e:
            ember.optim.lr_scheduler.CyclicLR(eopt, **kw)
        assert str(e.value) == str(t.value)
    t = torch.optim.Adam([torch.zeros(1, requires_grad=True)])
    e = ember.optim.Adam([ember.zeros(1, requires_grad=True)])
    with pytest.raises(ValueError) as te:
        torch.optim.lr_scheduler.CyclicLR(t, 0.1, 0.2)
    with pytest.raises(ValueError) as ee:
        ember.optim.lr_scheduler.CyclicLR(e, 0.1, 0.2)
    assert str(ee.value) == str(te.value)
