"""copy.deepcopy and pickle of optimizers (with state) and LR schedulers, against torch 1.13: the
copies continue training exactly as the originals, and a copy made together with its model
refers to the copied model's parameters."""
import copy
import pickle

import pytest
import torch

import ember


def make(m, opt_name, **kw):
    m.manual_seed(0)
    model = m.nn.Linear(3, 2)
    with m.no_grad():
        model.weight.copy_(m.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
        model.bias.copy_(m.tensor([0.01, -0.02]))
    opt = getattr(m.optim, opt_name)(model.parameters(), **kw)
    return model, opt


def step(m, model, opt, k):
    x = m.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]) * (k + 1)
    opt.zero_grad()
    (model(x) ** 2).sum().backward()
    opt.step()


OPTS = [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01, amsgrad=True)),
        ("AdamW", dict(lr=0.01, weight_decay=0.1))]


@pytest.mark.parametrize("name,kw", OPTS)
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copy_with_model_continues_identically(name, kw, how):
    results = []
    for m in (ember, torch):
        model, opt = make(m, name, **kw)
        step(m, model, opt, 0)
        blob = {"model": model, "opt": opt}
        c = copy.deepcopy(blob) if how == "deepcopy" else pickle.loads(pickle.dumps(blob))
        cm, co = c["model"], c["opt"]
        assert co.param_groups[0]["params"][0] is cm.weight
        assert co.param_groups[0]["params"][1] is cm.bias
        assert cm.weight is not model.weight
        assert type(co) is type(opt)
        if m is ember:  # (torch 1.13's AdamW.__setstate__ adds 'differentiable' to the copy)
            assert co.defaults == opt.defaults
        for k in (1, 2):
            step(m, model, opt, k)
            step(m, cm, co, k)
        assert m.equal(cm.weight, model.weight)
        results.append([v for row in cm.weight.tolist() for v in row])
    assert results[0] == pytest.approx(results[1], rel=1e-5)


def test_state_is_copied_not_shared():
    model, opt = make(ember, "SGD", lr=0.1, momentum=0.9)
    step(ember, model, opt, 0)
    c = copy.deepcopy({"model": model, "opt": opt})
    buf = opt.state[model.weight]["momentum_buffer"]
    cbuf = c["opt"].state[c["model"].weight]["momentum_buffer"]
    assert ember.equal(buf, cbuf) and buf.data_ptr() != cbuf.data_ptr()


def test_optimizer_alone_gets_new_parameters():
    model, opt = make(ember, "Adam", lr=0.01)
    co = copy.deepcopy(opt)
    p = co.param_groups[0]["params"][0]
    assert p is not model.weight and ember.equal(p, model.weight)
    assert isinstance(p, ember.nn.Parameter)


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_schedulers(how):
    out = []
    for m in (ember, torch):
        model, opt = make(m, "SGD", lr=1.0)
        sched = m.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
        for k in range(3):
            step(m, model, opt, k)
            sched.step()
        blob = {"opt": opt, "sched": sched}
        c = copy.deepcopy(blob) if how == "deepcopy" else pickle.loads(pickle.dumps(blob))
        co, cs = c["opt"], c["sched"]
        assert cs.optimizer is co
        assert cs.last_epoch == sched.last_epoch and cs.get_last_lr() == sched.get_last_lr()
        assert co.param_groups[0]["lr"] == opt.param_groups[0]["lr"]
        lrs = []
        for _ in range(4):
            sched.step()
            cs.step()
            lrs.append((opt.param_groups[0]["lr"], co.param_groups[0]["lr"]))
        assert all(a == b for a, b in lrs)
        out.append(lrs)
    assert out[0] == out[1]


def multiplier(epoch):
    return 0.9 ** epoch


def test_lambda_scheduler_with_module_level_function():
    model, opt = make(ember, "SGD", lr=1.0)
    sched = ember.optim.lr_scheduler.LambdaLR(opt, multiplier)
    step(ember, model, opt, 0)
    sched.step()
    c = pickle.loads(pickle.dumps({"opt": opt, "sched": sched}))
    c["sched"].step()
    sched.step()
    assert c["opt"].param_groups[0]["lr"] == opt.param_groups[0]["lr"]
