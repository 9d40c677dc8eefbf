"""ember.optim.ASGD and Rprop against torch.optim 1.13: parameter trajectories (two groups with
different options, a parameter stored transposed, a step where one parameter has no gradient, a
state_dict round trip half way, complex parameters), defaults, reprs, state_dict layouts,
loading torch's older layouts, and error texts."""
import copy
import pickle

import numpy as np
import pytest
import torch

import ember

TOL = {"float64": 1e-13, "float32": 2e-6}

CASES = [
    ("ASGD", {}, {"lr": 0.05}),
    ("ASGD", {"t0": 3, "lambd": 0.01, "alpha": 0.5, "weight_decay": 0.1},
     {"maximize": True, "t0": 0, "lr": 0.02}),
    ("ASGD", {"t0": 5, "foreach": False}, {"t0": 1.5, "lambd": 0.1, "foreach": None}),
    ("Rprop", {}, {"lr": 0.05}),
    ("Rprop", {"etas": (0.3, 1.7), "step_sizes": (1e-3, 0.04)},
     {"maximize": True, "lr": 0.02, "etas": (0.6, 1.1)}),
    ("Rprop", {"foreach": False}, {"step_sizes": (0.01, 0.011), "foreach": None}),
]

VALUES = [np.array([0.5, -1.25, 2.0]), np.array([[0.1, -0.2], [0.3, 1.5], [-0.75, 0.05]]),
          np.array(-0.8), np.array([1.0, 0.0, -2.5, 0.125])]
# the gradient at step s: p * a + b * (s + 1) * (-1)^(s // c): sign changes for Rprop
GRAD = [(0.7, -0.05, 1), (-0.4, 0.02, 2), (1.3, 0.1, 3), (0.25, -0.3, 1)]


def _params(mod, dtype):
    out = []
    for i, v in enumerate(VALUES):
        if i == 1:  # stored transposed
            t = mod.tensor(v.T.copy(), dtype=getattr(mod, dtype)).t()
        else:
            t = mod.tensor(v, dtype=getattr(mod, dtype))
        out.append(t.requires_grad_())
    return out


def _numpy(t):
    return np.array(t.detach().tolist())


def _run(mod, name, g0, g1, dtype, steps=12, reload_at=5, skip=True):
    ps = _params(mod, dtype)

    def make():
        return getattr(mod.optim, name)([dict(params=ps[:2], **g0), dict(params=ps[2:], **g1)])
    opt = make()
    traj = []
    for s in range(steps):
        for i, p in enumerate(ps):
            if skip and s == 3 and i == 2:
                p.grad = None  # no gradient on this step
                continue
            a, b, c = GRAD[i]
            with mod.no_grad():
                p.grad = p.detach() * a + b * (s + 1) * (-1) ** (s // c)
        opt.step()
        traj.append([_numpy(p) for p in ps])
        if s == reload_at:
            sd = opt.state_dict()
            opt = make()
            opt.load_state_dict(sd)
    return traj, opt


def _same_state_dict(e, t, tol):
    assert list(e) == ["state", "param_groups"]
    assert e["param_groups"] == t["param_groups"]
    assert [list(g) for g in e["param_groups"]] == [list(g) for g in t["param_groups"]]
    assert list(e["state"]) == list(t["state"])
    for k in t["state"]:
        es, ts = e["state"][k], t["state"][k]
        assert list(es) == list(ts), k
        for key, tv in ts.items():
            ev = es[key]
            if isinstance(tv, torch.Tensor):
                assert isinstance(ev, ember.Tensor), key
                assert str(ev.dtype)[6:] == str(tv.dtype)[6:], key
                assert tuple(ev.shape) == tuple(tv.shape), key
                np.testing.assert_allclose(_numpy(ev), tv.numpy(), rtol=tol, atol=tol * 1e-2)
            else:
                assert type(ev) is type(tv) and ev == tv, key


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,g0,g1", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_trajectory_equals_torch(name, g0, g1, dtype):
    want, topt = _run(torch, name, g0, g1, dtype)
    got, eopt = _run(ember, name, g0, g1, dtype)
    for s, (w, g) in enumerate(zip(want, got)):
        for i, (a, b) in enumerate(zip(w, g)):
            np.testing.assert_allclose(b, a, rtol=TOL[dtype], atol=TOL[dtype] * 1e-2,
                                       err_msg=f"step {s} param {i}")
    _same_state_dict(eopt.state_dict(), topt.state_dict(), TOL[dtype])


@pytest.mark.parametrize("name", ["ASGD", "Rprop"])
def test_foreach_true_matches_torch_multi_tensor(name):
    # torch 1.13's foreach kernels compute the same update; ember runs the single-tensor one.
    # (Every parameter has its gradient on every step: torch 1.13's foreach ASGD uses the first
    # parameter's eta for the whole group, which differs once a parameter skipped a step.)
    kw = {"foreach": True}
    want, _ = _run(torch, name, kw, kw, "float64", skip=False)
    got, eopt = _run(ember, name, kw, kw, "float64", skip=False)
    assert eopt.param_groups[0]["foreach"] is True
    for w, g in zip(want, got):
        for a, b in zip(w, g):
            np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["ASGD", "Rprop"])
def test_complex_parameters_as_torch(name):
    vals = np.array([0.5 - 1j, -0.25 + 2j, 1.5 + 0.5j])
    out = []
    for mod in (torch, ember):
        p = mod.tensor(vals, dtype=mod.complex128, requires_grad=True)
        opt = getattr(mod.optim, name)([p], lr=0.05)
        for s in range(5):
            with mod.no_grad():
                p.grad = p.detach() * (0.5 - 0.3j) * (-1) ** s + 0.1j
            opt.step()
        out.append(np.array(p.detach().tolist()))
        out.append(opt.state_dict()["state"][0])
    np.testing.assert_allclose(out[2], out[0], rtol=1e-13)
    assert list(out[3]) == list(out[1])


@pytest.mark.parametrize("name", ["ASGD", "Rprop"])
def test_defaults_repr_and_state_keys(name):
    w, tw = ember.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    o, to = getattr(ember.optim, name)([w]), getattr(torch.optim, name)([tw])
    assert o.defaults == to.defaults and list(o.defaults) == list(to.defaults)
    expected_repr = repr(to).replace("torch.", "ember.")
    if name == "Rprop":  # torch's default step_sizes holds an int 50 (ember keeps floats)
        expected_repr = expected_repr.replace("(1e-06, 50)", "(1e-06, 50.0)")
    assert repr(o) == expected_repr
    w.grad, tw.grad = ember.ones(3), torch.ones(3)
    o.step()
    to.step()
    _same_state_dict(o.state_dict(), to.state_dict(), 0)
    st = o.state_dict()["state"][0]
    if name == "ASGD":
        assert list(st) == ["step", "eta", "mu", "ax"]
        assert all(st[k].dtype == ember.float32 and st[k].dim() == 0 for k in ("step", "eta", "mu"))
    else:
        assert list(st) == ["step", "prev", "step_size"] and type(st["step"]) is int


def test_rprop_state_of_a_transposed_parameter():
    p = ember.ones(2, 3).t().requires_grad_()
    o = ember.optim.Rprop([p])
    p.grad = ember.ones(3, 2)
    o.step()
    st = o.state_dict()["state"][0]
    assert st["step_size"].is_contiguous() and st["prev"].stride() == p.stride()


ERRORS = [
    ("ASGD", {"lr": -1.0}, "Invalid learning rate: -1.0"),
    ("ASGD", {"weight_decay": -0.5}, "Invalid weight_decay value: -0.5"),
    ("Rprop", {"lr": -0.5}, "Invalid learning rate: -0.5"),
    ("Rprop", {"etas": (1.5, 1.2)}, "Invalid eta values: 1.5, 1.2"),
    ("Rprop", {"etas": (0.0, 1.2)}, "Invalid eta values: 0.0, 1.2"),
    ("Rprop", {"etas": (0.5, 1.0)}, "Invalid eta values: 0.5, 1.0"),
]


@pytest.mark.parametrize("name,kw,msg", ERRORS)
def test_errors_as_torch(name, kw, msg):
    with pytest.raises(ValueError) as t:
        getattr(torch.optim, name)([torch.ones(1, requires_grad=True)], **kw)
    assert str(t.value) == msg
    with pytest.raises(ValueError) as e:
        getattr(ember.optim, name)([ember.ones(1, requires_grad=True)], **kw)
    assert str(e.value) == msg


def test_asgd_loads_older_number_state_as_torch():
    # torch < 1.12 saved ASGD's step, eta and mu as numbers; loading makes them tensors.
    w = ember.ones(2, requires_grad=True)
    o = ember.optim.ASGD([w], t0=0)
    w.grad = ember.ones(2)
    o.step()
    sd = o.state_dict()
    for k in ("step", "eta", "mu"):
        sd["state"][0][k] = sd["state"][0][k].item()
    o2 = ember.optim.ASGD([w], t0=0)
    o2.load_state_dict(sd)
    st = o2.state_dict()["state"][0]
    assert all(isinstance(st[k], ember.Tensor) for k in ("step", "eta", "mu"))
    assert st["step"].item() == 1.0
    sd["state"][0]["ax"] = ember.zeros(3)
    with pytest.raises(RuntimeError, match="ax has shape"):
        o2.load_state_dict(sd)
    assert o2.state_dict()["state"][0]["ax"].shape == (2,)


def test_group_option_types_are_checked():
    w = ember.ones(2, requires_grad=True)
    o = ember.optim.Rprop([w])
    o.param_groups[0]["etas"] = 0.5
    w.grad = ember.ones(2)
    with pytest.raises(TypeError, match="etas"):
        o.step()
    assert w.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("name", ["ASGD", "Rprop"])
def test_deepcopy_and_pickle_continue_the_run(name):
    w = ember.tensor([1.0, -2.0], requires_grad=True)
    o = getattr(ember.optim, name)([w], lr=0.1)
    for s in range(3):
        w.grad = w.detach() * (-1) ** s
        o.step()
    w2, o2 = copy.deepcopy((w, o))
    w3, o3 = pickle.loads(pickle.dumps((w, o)))
    for p, opt in ((w, o), (w2, o2), (w3, o3)):
        p.grad = p.detach().clone()
        opt.step()
    assert w.tolist() == w2.tolist() == w3.tolist()
    assert o2.param_groups[0]["params"][0] is w2
