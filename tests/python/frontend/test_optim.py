"""ember.optim against PyTorch 1.13: the same training steps from the same weights, param_groups
holding the very Parameter objects with writable options, state_dict round trips, schedulers."""
import pytest
import torch

import ember
from ember import nn


from nn_convert import E, T, to_list


def pair():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    em = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    em.load_state_dict({k: E(v) for k, v in tm.state_dict().items()})
    return em, tm


@pytest.mark.parametrize("name,kwargs", [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    ("AdamW", dict(lr=0.01, betas=(0.8, 0.99))),
])
def test_training_steps_match_torch(name, kwargs):
    em, tm = pair()
    eo = getattr(ember.optim, name)(em.parameters(), **kwargs)
    to = getattr(torch.optim, name)(tm.parameters(), **kwargs)
    x, y = torch.randn(16, 4), torch.randn(16, 2)
    for _ in range(4):
        eo.zero_grad()
        to.zero_grad()
        torch.nn.functional.mse_loss(tm(x), y).backward()
        # The same gradients, given to ember's parameters (this compares the optimizers alone).
        for ep, tp in zip(em.parameters(), tm.parameters()):
            ep.grad = E(tp.grad)
        eo.step()
        to.step()
    for (k, ev), tv in zip(em.state_dict().items(), tm.state_dict().values()):
        assert torch.allclose(T(ev), tv, atol=1e-6), k
    assert repr(eo) == repr(to)


def test_param_groups_identity_and_writes():
    m = nn.Linear(2, 1)
    opt = ember.optim.SGD([{"params": [m.weight]}, {"params": m.bias, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert opt.param_groups[0]["params"][0] is m.weight
    assert opt.param_groups[1]["params"][0] is m.bias
    assert opt.param_groups[1]["lr"] == 0.5 and opt.param_groups[0]["momentum"] == 0.9
    t = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    assert list(opt.param_groups[0].keys()) == list(t.param_groups[0].keys())
    opt.param_groups[0]["lr"] = 0.0
    for g in opt.param_groups:
        g["momentum"] = 0.0
    assert opt.param_groups[0]["lr"] == 0.0
    w0, b0 = to_list(m.weight), to_list(m.bias)
    m.weight.grad = ember.ones(1, 2)
    m.bias.grad = ember.ones(1)
    opt.step()
    assert to_list(m.weight) == w0  # lr 0 reached C++
    assert to_list(m.bias) == pytest.approx([b0[0] - 0.5])
    opt.zero_grad()
    assert m.weight.grad is None


def test_closure_state_dict_and_add_param_group():
    em, tm = pair()
    eo = ember.optim.Adam(em.parameters(), lr=0.01)
    x = E(torch.randn(3, 4))

    def closure():
        eo.zero_grad()
        for p in em.parameters():
            p.grad = ember.full(tuple(p.shape), 0.5)
        return em(x).sum()

    loss = eo.step(closure)
    assert isinstance(loss, ember.Tensor)
    sd = eo.state_dict()
    assert sorted(sd["state"]) == [0, 1, 2, 3]
    assert list(sd["state"][0]) == ["step", "exp_avg", "exp_avg_sq"]
    assert sd["param_groups"][0]["params"] == [0, 1, 2, 3]
    assert sd["param_groups"][0]["betas"] == (0.9, 0.999)
    eo2 = ember.optim.Adam(em.parameters(), lr=0.5)
    eo2.load_state_dict(sd)
    assert eo2.param_groups[0]["lr"] == 0.01
    assert to_list(eo2.state[em[0].weight]["exp_avg"]) == to_list(sd["state"][0]["exp_avg"])
    extra = nn.Parameter(ember.zeros(2))
    eo2.add_param_group({"params": [extra], "lr": 1.0})
    assert len(eo2.param_groups) == 2 and eo2.param_groups[1]["betas"] == (0.9, 0.999)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        ember.optim.SGD(em.parameters(), lr=-1)


def test_schedulers_match_torch():
    cases = [
        ("StepLR", dict(step_size=2, gamma=0.5)),
        ("MultiStepLR", dict(milestones=[1, 3], gamma=0.1)),
        ("CosineAnnealingLR", dict(T_max=5, eta_min=0.01)),
        ("LambdaLR", dict(lr_lambda=lambda e: 0.9 ** e)),
        ("OneCycleLR", dict(max_lr=1.0, total_steps=10)),
    ]
    for name, kwargs in cases:
        eo = ember.optim.SGD([nn.Parameter(ember.zeros(1))], lr=0.1, momentum=0.9)
        to = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1, momentum=0.9)
        es = getattr(ember.optim.lr_scheduler, name)(eo, **kwargs)
        ts = getattr(torch.optim.lr_scheduler, name)(to, **kwargs)
        assert es.optimizer is eo
        for _ in range(6):
            eo.step()
            to.step()
            es.step()
            ts.step()
            assert es.get_last_lr() == ts.get_last_lr(), name
            assert eo.param_groups[0]["lr"] == to.param_groups[0]["lr"]
        assert es.last_epoch == ts.last_epoch
