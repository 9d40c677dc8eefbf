"""ember.optim's RMSprop, Adagrad, Adadelta, Adamax, NAdam and RAdam against torch.optim 1.13:
the same parameter trajectories (two groups with different options, a parameter stored
transposed, a step where one parameter has no gradient, a state_dict round trip half way),
defaults, reprs, state_dict layouts, and error texts."""
import math

import numpy as np
import pytest
import torch

import ember

# float64 agrees to the last bits; float32 to float rounding (torch's addcmul / addcdiv are
# fused multiply-adds in its AVX2 kernels, ember's are not always).
TOL = {"float64": 1e-12, "float32": 2e-6}

CASES = [
    ("RMSprop", {}, {"lr": 0.05}),
    ("RMSprop", {"momentum": 0.9, "centered": True, "weight_decay": 0.1}, {"alpha": 0.9, "maximize": True}),
    ("RMSprop", {"centered": True, "eps": 1e-3}, {"momentum": 0.5, "lr": 0.02}),
    ("Adagrad", {}, {"lr": 0.1}),
    ("Adagrad", {"lr_decay": 0.05, "weight_decay": 0.2, "initial_accumulator_value": 0.3},
     {"maximize": True, "eps": 1e-6}),
    ("Adadelta", {}, {"rho": 0.5}),
    ("Adadelta", {"weight_decay": 0.1, "lr": 0.5}, {"maximize": True, "eps": 1e-3}),
    ("Adamax", {}, {"lr": 0.05}),
    ("Adamax", {"betas": (0.8, 0.9), "weight_decay": 0.1}, {"maximize": True}),
    ("NAdam", {}, {"lr": 0.01}),
    ("NAdam", {"betas": (0.8, 0.95), "weight_decay": 0.1, "momentum_decay": 0.01}, {"eps": 1e-4}),
    ("RAdam", {}, {"lr": 0.01}),
    ("RAdam", {"betas": (0.5, 0.6), "weight_decay": 0.1}, {"eps": 1e-4}),  # rectified from step 6
]

VALUES = [np.array([0.5, -1.25, 2.0]), np.array([[0.1, -0.2], [0.3, 1.5], [-0.75, 0.05]]),
          np.array(-0.8), np.array([1.0, 0.0, -2.5, 0.125])]
GRAD = [(0.7, -0.05), (-0.4, 0.02), (1.3, 0.1), (0.25, -0.3)]  # grad at step s: p * a + b * (s+1)


def _params(lib, dtype):
    out = []
    for i, v in enumerate(VALUES):
        if i == 1:  # stored transposed
            t = torch.tensor(v.T, dtype=getattr(torch, dtype)).t()
        else:
            t = torch.tensor(v, dtype=getattr(torch, dtype))
        if lib == "ember":
            e = ember.from_numpy(t.contiguous().numpy().copy())
            if i == 1:
                e = ember.from_numpy(t.t().contiguous().numpy().copy()).t()
            t = e
        out.append(t.requires_grad_())
    return out


def _run(lib, name, g0, g1, dtype, steps=12, reload_at=5):
    mod = torch if lib == "torch" else ember
    ps = _params(lib, dtype)
    groups = [dict(params=ps[:2], **g0), dict(params=ps[2:], **g1)]
    opt = getattr(mod.optim, name)(groups)
    traj = []
    for s in range(steps):
        for i, p in enumerate(ps):
            if s == 3 and i == 2:
                p.grad = None  # no gradient on this step
                continue
            a, b = GRAD[i]
            with mod.no_grad():
                p.grad = p.detach() * a + b * (s + 1)
        opt.step()
        traj.append([p.detach().numpy().copy() if lib == "torch" else np.array(p.detach().tolist()) for p in ps])
        if s == reload_at:
            sd = opt.state_dict()
            opt = getattr(mod.optim, name)([dict(params=ps[:2], **g0), dict(params=ps[2:], **g1)])
            opt.load_state_dict(sd)
    return traj, opt


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,g0,g1", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_trajectory_equals_torch(name, g0, g1, dtype):
    want, topt = _run("torch", name, g0, g1, dtype)
    got, eopt = _run("ember", name, g0, g1, dtype)
    for s, (w, g) in enumerate(zip(want, got)):
        for i, (a, b) in enumerate(zip(w, g)):
            np.testing.assert_allclose(b, a, rtol=TOL[dtype], atol=TOL[dtype] * 1e-2,
                                       err_msg=f"step {s} param {i}")
    _same_state_dict(eopt.state_dict(), topt.state_dict(), TOL[dtype])


def _same_state_dict(e, t, tol):
    assert list(e) == ["state", "param_groups"]
    assert e["param_groups"] == t["param_groups"]
    assert list(e["state"]) == list(t["state"])
    for k in t["state"]:
        es, ts = e["state"][k], t["state"][k]
        assert list(es) == list(ts), k
        for key, tv in ts.items():
            ev = es[key]
            if isinstance(tv, torch.Tensor):
                assert isinstance(ev, ember.Tensor), key
                assert str(ev.dtype).replace("ember.", "") == str(tv.dtype).replace("torch.", ""), key
                assert tuple(ev.shape) == tuple(tv.shape), key
                np.testing.assert_allclose(np.array(ev.tolist()), tv.numpy(), rtol=tol, atol=tol * 1e-2)
            else:
                assert type(ev) is type(tv) and ev == tv, key


@pytest.mark.parametrize("name", ["RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"])
def test_defaults_repr_and_initial_state(name):
    w, tw = ember.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    o, to = getattr(ember.optim, name)([w]), getattr(torch.optim, name)([tw])
    assert o.defaults == to.defaults and list(o.defaults) == list(to.defaults)
    assert repr(o) == repr(to).replace("torch.", "ember.")
    # Adagrad makes its state at construction, the others on the first step.
    assert o.state_dict()["param_groups"] == to.state_dict()["param_groups"]
    assert list(o.state_dict()["state"]) == list(to.state_dict()["state"])
    if name == "Adagrad":
        st = o.state_dict()["state"][0]
        assert list(st) == ["step", "sum"] and st["step"].item() == 0.0 and st["step"].dtype == ember.float32


def test_state_keys_with_options():
    w = ember.ones(2, requires_grad=True)
    o = ember.optim.RMSprop([w], momentum=0.9, centered=True)
    w.grad = ember.ones(2)
    o.step()
    st = o.state_dict()["state"][0]
    assert list(st) == ["step", "square_avg", "momentum_buffer", "grad_avg"]
    assert st["step"] == 1 and type(st["step"]) is int  # an int in torch 1.13's RMSprop
    o = ember.optim.NAdam([w])
    o.step()
    st = o.state_dict()["state"][0]
    assert list(st) == ["step", "mu_product", "exp_avg", "exp_avg_sq"]
    tw = torch.ones(2, requires_grad=True)
    tw.grad = torch.ones(2)
    to = torch.optim.NAdam([tw])
    to.step()
    assert st["mu_product"].item() == to.state_dict()["state"][0]["mu_product"].item()


ERRORS = [
    ("RMSprop", {"lr": -1.0}, "Invalid learning rate: -1.0"),
    ("RMSprop", {"eps": -1e-8}, "Invalid epsilon value: -1e-08"),
    ("RMSprop", {"momentum": -0.5}, "Invalid momentum value: -0.5"),
    ("RMSprop", {"weight_decay": -0.5}, "Invalid weight_decay value: -0.5"),
    ("RMSprop", {"alpha": -0.5}, "Invalid alpha value: -0.5"),
    ("Adagrad", {"lr_decay": -0.5}, "Invalid lr_decay value: -0.5"),
    ("Adagrad", {"initial_accumulator_value": -0.5}, "Invalid initial_accumulator_value value: -0.5"),
    ("Adagrad", {"eps": -0.5}, "Invalid epsilon value: -0.5"),
    ("Adadelta", {"rho": 1.5}, "Invalid rho value: 1.5"),
    ("Adamax", {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
    ("NAdam", {"betas": (0.9, 1.5)}, "Invalid beta parameter at index 1: 1.5"),
    ("NAdam", {"momentum_decay": -0.5}, "Invalid momentum_decay value: -0.5"),
    ("RAdam", {"weight_decay": -0.5}, "Invalid weight_decay value: -0.5"),
]


@pytest.mark.parametrize("name,kw,msg", ERRORS)
def test_errors_as_torch(name, kw, msg):
    with pytest.raises(ValueError) as t:
        getattr(torch.optim, name)([torch.ones(1, requires_grad=True)], **kw)
    assert str(t.value) == msg
    with pytest.raises(ValueError) as e:
        getattr(ember.optim, name)([ember.ones(1, requires_grad=True)], **kw)
    assert str(e.value) == msg


def test_foreach_is_accepted_and_kept():
    w = ember.ones(2, requires_grad=True)
    for name in ["RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"]:
        o = getattr(ember.optim, name)([w], foreach=True)
        assert o.param_groups[0]["foreach"] is True
        w.grad = ember.ones(2)
        o.step()  # runs (the single-tensor algorithm)


def test_load_older_number_steps_as_torch():
    # torch < 1.12 saved Adamax's / NAdam's step (and mu_product) as numbers.
    w = ember.ones(2, requires_grad=True)
    o = ember.optim.NAdam([w])
    w.grad = ember.ones(2)
    o.step()
    sd = o.state_dict()
    sd["state"][0]["step"] = 1
    sd["state"][0]["mu_product"] = sd["state"][0]["mu_product"].item()
    o2 = ember.optim.NAdam([w])
    o2.load_state_dict(sd)
    st = o2.state_dict()["state"][0]
    assert isinstance(st["step"], ember.Tensor) and st["step"].item() == 1.0
    assert isinstance(st["mu_product"], ember.Tensor)
    # A buffer of the wrong shape is refused before anything changes.
    sd["state"][0]["exp_avg"] = ember.zeros(3)
    with pytest.raises(RuntimeError, match="exp_avg has shape"):
        o2.load_state_dict(sd)
    assert o2.state_dict()["state"][0]["exp_avg"].shape == (2,)
