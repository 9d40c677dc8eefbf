"""optim.LBFGS against torch 1.13: Rosenbrock and a small regression, with and without the
strong-Wolfe line search, float64 and float32 (the same steps: Note [LBFGS scalars]); the
returned loss, the state's counters and keys, state_dict round trip, repr, defaults, errors."""
import numpy as np
import pytest
import torch

import ember


def run_rosenbrock(lib, dtype, line_search, steps=3, **kw):
    x = lib.tensor([-1.5, 2.0], dtype=dtype, requires_grad=True)
    opt = lib.optim.LBFGS([x], lr=1, max_iter=20, history_size=10, line_search_fn=line_search,
                          **kw)

    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        return loss

    losses = [float(opt.step(closure)) for _ in range(steps)]
    return x.detach().numpy(), losses, opt


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
@pytest.mark.parametrize("dtype", ["float64"])
def test_rosenbrock_matches_torch(line_search, dtype):
    tx, tl, topt = run_rosenbrock(torch, getattr(torch, dtype), line_search)
    ex, el, eopt = run_rosenbrock(ember, getattr(ember, dtype), line_search)
    # float64: 60 L-BFGS iterations on Rosenbrock amplify any last-bit difference (one ulp
    # appears at the 12th inner iteration of the plain run), so the figures agree to 1e-6.
    tol = 1e-6 if dtype == "float64" else 1e-4
    np.testing.assert_allclose(el, tl, rtol=tol, atol=tol)
    np.testing.assert_allclose(ex, tx, rtol=tol, atol=tol)
    ts = next(iter(topt.state.values()))
    es = next(iter(eopt.state.values()))
    assert es["n_iter"] == ts["n_iter"]
    assert es["func_evals"] == ts["func_evals"]
    assert set(es) == set(ts)


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_float32_regression_matches_torch(line_search):
    # float32 Rosenbrock is chaotic (its dot products round differently from torch's BLAS
    # within a few steps); a well-conditioned least-squares problem is not.
    rng = np.random.default_rng(1)
    A = rng.standard_normal((20, 3)).astype("float32")
    y = (A @ np.array([0.5, -1.0, 2.0])).astype("float32")
    out = {}
    for lib in (torch, ember):
        w = lib.zeros(3, dtype=lib.float32, requires_grad=True)
        At, yt = lib.tensor(A), lib.tensor(y)
        opt = lib.optim.LBFGS([w], lr=0.5, max_iter=8, history_size=4, line_search_fn=line_search)

        def closure():
            opt.zero_grad()
            loss = ((At @ w - yt) ** 2).mean()
            loss.backward()
            return loss

        losses = [float(opt.step(closure)) for _ in range(2)]
        out[lib.__name__] = (w.detach().numpy(), losses)
    np.testing.assert_allclose(out["ember"][0], out["torch"][0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(out["ember"][1], out["torch"][1], rtol=1e-4, atol=1e-6)


def test_regression_matches_torch():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((30, 4))
    y = A @ np.array([1.0, -2.0, 0.5, 3.0]) + 0.01 * rng.standard_normal(30)
    out = {}
    for lib in (torch, ember):
        w = lib.zeros(4, 1, dtype=lib.float64, requires_grad=True)
        At, yt = lib.tensor(A), lib.tensor(y).reshape(-1, 1)
        opt = lib.optim.LBFGS([w], history_size=5, max_iter=10, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = ((At @ w - yt) ** 2).mean()
            loss.backward()
            return loss

        for _ in range(2):
            opt.step(closure)
        out[lib.__name__] = w.detach().numpy()
    np.testing.assert_allclose(out["ember"], out["torch"], rtol=1e-10)


def test_defaults_repr_state_dict():
    tw, ew = torch.zeros(2, requires_grad=True), ember.zeros(2, requires_grad=True)
    topt, eopt = torch.optim.LBFGS([tw]), ember.optim.LBFGS([ew])
    assert eopt.defaults == topt.defaults
    assert repr(eopt) == repr(topt)
    _, _, eopt = run_rosenbrock(ember, ember.float64, None, steps=1)
    sd = eopt.state_dict()
    assert sorted(sd["state"][0]) == sorted(["func_evals", "n_iter", "d", "t", "old_dirs",
                                             "old_stps", "ro", "H_diag", "prev_flat_grad",
                                             "prev_loss", "al"])
    assert sd["param_groups"][0]["history_size"] == 10


def test_errors():
    a, b = ember.zeros(2, requires_grad=True), ember.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match=r"LBFGS doesn't support per-parameter options "
                                         r"\(parameter groups\)"):
        ember.optim.LBFGS([{"params": [a]}, {"params": [b]}])
    opt = ember.optim.LBFGS([a], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = (a - 1).pow(2).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)
    with pytest.raises(TypeError):
        ember.optim.LBFGS([a]).step()
