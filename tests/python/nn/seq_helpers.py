"""Shared by the test_seq_*.py files: copying torch 1.13 weights into ember modules and
comparing values, gradients and outcomes (exception type and text) between the two."""
import numpy as np
import torch

import ember


def to_ember(t, requires_grad=None):
    """A torch tensor (or None) as an ember tensor with the same values and dtype."""
    if t is None:
        return None
    e = ember.from_numpy(t.detach().numpy().copy())
    if requires_grad if requires_grad is not None else t.requires_grad:
        e.requires_grad_(True)
    return e


def arr(t):
    return np.asarray(t.detach().numpy())


def copy_weights(e_mod, t_mod):
    """Loads torch's state_dict into the ember module (the keys must be the same)."""
    sd = {k: to_ember(v) for k, v in t_mod.state_dict().items()}
    assert list(sd) == list(e_mod.state_dict().keys())
    e_mod.load_state_dict(sd)


def close(e, t, rtol=1e-5, atol=1e-6):
    if t is None:
        assert e is None
        return
    assert e is not None
    assert tuple(e.shape) == tuple(t.shape), (tuple(e.shape), tuple(t.shape))
    np.testing.assert_allclose(arr(e), arr(t), rtol=rtol, atol=atol)


def grads_close(e_params, t_params, rtol=1e-4, atol=1e-5):
    e_params, t_params = list(e_params), list(t_params)
    assert len(e_params) == len(t_params)
    for (en, ep), (tn, tp) in zip(e_params, t_params):
        assert en == tn
        if tp.grad is None:
            assert ep.grad is None, en
        else:
            np.testing.assert_allclose(arr(ep.grad), arr(tp.grad), rtol=rtol, atol=atol, err_msg=en)


def outcome(fn, lib):
    """("ok", value) or (exception type name, message with torch read as ember)."""
    try:
        return ("ok", fn(lib))
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return (type(e).__name__, str(e).replace("torch", "ember"))


def same_error(fn):
    e, t = outcome(fn, ember), outcome(fn, torch)
    assert e[0] != "ok" and t[0] != "ok", (e, t)
    assert e == t
