"""Module hooks (Note [Module hooks across the boundary]): Python hooks fire when C++ calls the
module (a C++ Sequential, a C++ model's blocks), forward hooks with with_kwargs / prepend /
always_call, pre-hooks with kwargs, full backward hooks and pre-hooks (PyTorch 2.x semantics),
the module-global hooks — against PyTorch where 1.13 has the behaviour."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn.modules.module as emod
import ember.vision  # noqa: F401  (ember.vision.models)
from ember import nn


def arr(x):
    return np.asarray(x.detach().numpy())


# ---- hooks seen from C++ callers ----

def test_block_hooks_inside_cpp_sequential():
    # ResNet's forward (C++) calls layer1, a C++ Sequential, which calls its blocks.
    model = ember.vision.models.resnet18().eval()
    seen = []
    model.layer1[1].register_forward_pre_hook(lambda m, i: seen.append(("pre", type(m).__name__)))
    model.layer1[1].register_forward_hook(lambda m, i, o: seen.append(("post", tuple(o.shape))))
    model.layer1[1].register_forward_hook(lambda m, i, o: o * 0)
    with ember.no_grad():
        model(ember.randn(1, 3, 32, 32))
        out = model.layer1(ember.randn(1, 64, 8, 8))
    assert seen[:2] == [("pre", "BasicBlock"), ("post", (1, 64, 8, 8))]
    assert float(out.abs().sum()) == 0.0


def test_forward_hook_on_child_of_python_built_sequential():
    seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    seen = []
    seq[1].register_forward_hook(lambda m, i, o: seen.append(("relu", tuple(o.shape))))
    seq[2].register_forward_pre_hook(lambda m, i: seen.append(("pre", len(i))))
    # The C++ forward (what a C++ parent runs) must see the Python hooks.
    out = seq.forward(ember.randn(5, 3))
    assert seen == [("relu", (5, 4)), ("pre", 1)]
    assert tuple(out.shape) == (5, 2)


def test_forward_hook_replacing_output_under_cpp_parent():
    seq = nn.Sequential(nn.Linear(3, 3), nn.Tanh())
    x = ember.randn(2, 3)
    expected = arr(seq(x)) * 0
    seq[1].register_forward_hook(lambda m, i, o: o * 0)
    np.testing.assert_array_equal(arr(seq(x)), expected)


def test_hooks_on_resnet_blocks_called_from_cpp():
    model = ember.vision.models.resnet18().eval()
    order = []
    # Handles and module objects dropped at once: the hooks must stay (Note [Python state of
    # C++-held modules]).
    for name, m in model.named_modules():
        if isinstance(m, (nn.Conv2d, nn.BatchNorm2d)) and name.startswith("layer1.0"):
            m.register_forward_hook(lambda mod, i, o, name=name: order.append(name))
    del m
    with ember.no_grad():
        model(ember.randn(1, 3, 64, 64))
    assert order == ["layer1.0.conv1", "layer1.0.bn1", "layer1.0.conv2", "layer1.0.bn2"]


def test_hook_on_cpp_child_keeps_the_same_object():
    model = ember.vision.models.resnet18()
    conv = model.layer1[0].conv1
    conv.tag = "mine"
    ident = id(conv)
    del conv
    again = model.layer1[0].conv1
    assert again.tag == "mine" and id(again) == ident


def test_hooks_fire_with_eval_fusion_disabled_for_hooked_modules():
    model = ember.vision.models.resnet18().eval()
    x = ember.randn(1, 3, 32, 32)
    with ember.no_grad():
        ref = arr(model(x))
    model.layer2[0].bn1.register_forward_hook(lambda m, i, o: o * 0)
    with ember.no_grad():
        changed = arr(model(x))
    assert not np.allclose(ref, changed)


def test_observer_style_hooks_on_every_child():
    model = ember.vision.models.resnet18().eval()
    counts = {}
    for name, m in model.named_modules():
        if name:
            m.register_forward_hook(lambda mod, i, o, name=name: counts.__setitem__(name, counts.get(name, 0) + 1))
    with ember.no_grad():
        model(ember.randn(1, 3, 32, 32))
    tmodel = __import__("torchvision").models.resnet18().eval()
    tcounts = {}
    for name, m in tmodel.named_modules():
        if name:
            m.register_forward_hook(lambda mod, i, o, name=name: tcounts.__setitem__(name, tcounts.get(name, 0) + 1))
    with torch.no_grad():
        tmodel(torch.randn(1, 3, 32, 32))
    assert counts == tcounts


def test_hook_removal_stops_cpp_calls():
    seq = nn.Sequential(nn.ReLU())
    seen = []
    h = seq[0].register_forward_hook(lambda *a: seen.append(1))
    seq.forward(ember.ones(1))
    h.remove()
    seq.forward(ember.ones(1))
    assert seen == [1]


def test_python_subclass_child_hook_from_cpp():
    class Double(nn.Module):
        def forward(self, x):
            return x * 2

    seq = nn.Sequential(Double())
    seq[0].register_forward_pre_hook(lambda m, i: (i[0] + 1,))
    np.testing.assert_array_equal(arr(seq.forward(ember.ones(2))), [4.0, 4.0])


# ---- hook API against torch ----

def run_both(fn):
    return fn(ember), fn(torch)


def test_forward_hook_with_kwargs_prepend_always_call():
    def run(lib):
        log = []

        class M(lib.nn.Module):
            def forward(self, x, scale=1.0):
                return x * scale

        m = M()
        m.register_forward_hook(lambda mod, a, o: log.append("plain"))
        m.register_forward_hook(lambda mod, a, k, o: log.append(("kw", sorted(k))), with_kwargs=True)
        m.register_forward_hook(lambda mod, a, o: log.append("first"), prepend=True)
        m.register_forward_pre_hook(lambda mod, a, k: ((a[0] + 1,), {"scale": 3.0}), with_kwargs=True)
        m.register_forward_pre_hook(lambda mod, a: log.append("pre-first"), prepend=True)
        out = m(lib.ones(2), scale=2.0)
        return log, out.tolist()

    # PyTorch 2.x's semantics (1.13 has no with_kwargs / prepend).
    assert run(ember) == (["pre-first", "first", "plain", ("kw", ["scale"])], [6.0, 6.0])


def test_always_call_runs_on_exception():
    def run(lib):
        log = []

        class Bad(lib.nn.Module):
            def forward(self, x):
                raise ValueError("boom")

        m = Bad()
        m.register_forward_hook(lambda mod, a, o: log.append(("always", o)), always_call=True)
        m.register_forward_hook(lambda mod, a, o: log.append("never"))
        with pytest.raises(ValueError, match="boom"):
            m(lib.ones(1))
        return log

    assert run(ember) == [("always", None)]  # PyTorch 2.x (always_call)


def test_pre_hook_bad_return_with_kwargs():
    def run(lib):
        m = lib.nn.Identity()
        m.register_forward_pre_hook(lambda mod, a, k: 5, with_kwargs=True)
        try:
            m(lib.ones(1))
        except RuntimeError as e:
            return str(e)

    assert run(ember) == ("forward pre-hook must return None or a tuple of (new_args, "
                          "new_kwargs), but got 5.")


def test_hook_handles_and_dicts():
    def run(lib):
        m = lib.nn.Linear(1, 1)
        h1 = m.register_forward_hook(lambda *a: None, with_kwargs=True, always_call=True)
        h2 = m.register_forward_pre_hook(lambda *a: None)
        out = [len(m._forward_hooks), len(m._forward_hooks_with_kwargs),
               len(m._forward_hooks_always_called), len(m._forward_pre_hooks)]
        h1.remove()
        with h2:
            pass
        out += [len(m._forward_hooks), len(m._forward_hooks_with_kwargs),
                len(m._forward_hooks_always_called), len(m._forward_pre_hooks)]
        return out

    assert run(ember) == [1, 1, 1, 1, 0, 0, 0, 0]  # PyTorch 2.x's dicts


def _backward_case(lib, pre=False, replace=False):
    lib.manual_seed(0)
    lin = lib.nn.Linear(3, 2)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]))
        lin.bias.zero_()
    log = []

    def hook(mod, gin, gout):
        log.append(("hook", [None if g is None else g.tolist() for g in gin],
                    [None if g is None else g.tolist() for g in gout]))
        if replace:
            return tuple(None if g is None else g * 10 for g in gin)

    def prehook(mod, gout):
        log.append(("pre", [g.tolist() for g in gout]))
        return tuple(g * 2 for g in gout)

    lin.register_full_backward_hook(hook)
    if pre:
        lin.register_full_backward_pre_hook(prehook)
    x = lib.ones(1, 3, requires_grad=True)
    lin(x).sum().backward()
    return log, x.grad.tolist()


@pytest.mark.parametrize("replace", [False, True])
def test_full_backward_hook_matches_torch(replace):
    assert _backward_case(ember, replace=replace) == _backward_case(torch, replace=replace)


def test_full_backward_pre_hook_replaces_grad_output():
    log, grad = _backward_case(ember, pre=True)
    assert log[0] == ("pre", [[[1.0, 1.0]]])
    assert log[1][2] == [[[2.0, 2.0]]]
    np.testing.assert_allclose(grad, [[0.0, 5.0, 10.0]])


def test_full_backward_hook_on_child_of_cpp_sequential():
    seq = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
    seen = []
    seq[1].register_full_backward_hook(lambda m, gi, go: seen.append((len(gi), len(go))))
    x = ember.randn(4, 3, requires_grad=True)
    seq.forward(x).sum().backward()
    assert seen == [(1, 1)]


def test_mixing_backward_hook_kinds_raises():
    def run(lib):
        m = lib.nn.Linear(1, 1)
        m.register_backward_hook(lambda *a: None)
        try:
            m.register_full_backward_hook(lambda *a: None)
        except RuntimeError as e:
            return str(e)

    e, t = run_both(run)
    assert e == t


def test_legacy_backward_hook_runs():
    def run(lib):
        m = lib.nn.Linear(2, 1)
        seen = []
        m.register_backward_hook(lambda mod, gi, go: seen.append(len(go)))
        x = lib.ones(1, 2, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m(x).sum().backward()
        return seen

    e, t = run_both(run)
    assert e == t


def test_global_forward_hooks_fire_under_cpp_parent():
    seen = []
    h1 = emod.register_module_forward_pre_hook(lambda m, i: seen.append(("pre", type(m).__name__)))
    h2 = emod.register_module_forward_hook(lambda m, i, o: seen.append(("post", type(m).__name__)))
    try:
        seq = nn.Sequential(nn.ReLU())
        seq.forward(ember.ones(1))
    finally:
        h1.remove()
        h2.remove()
    assert seen == [("pre", "ReLU"), ("post", "ReLU")]
    seen.clear()
    nn.Sequential(nn.ReLU())(ember.ones(1))
    assert seen == []


def test_global_hooks_match_torch_order():
    def run(lib):
        import importlib
        mod = importlib.import_module(lib.__name__ + ".nn.modules.module")
        log = []
        h = mod.register_module_forward_hook(lambda m, i, o: log.append(type(m).__name__))
        try:
            lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())(lib.ones(1, 2))
        finally:
            h.remove()
        return log

    e, t = run_both(run)
    assert e == t == ["Linear", "ReLU", "Sequential"]


def test_hook_inserted_directly_into_dict_after_reset():
    seq = nn.Sequential(nn.ReLU())
    child = seq[0]
    h = child.register_forward_hook(lambda *a: None)
    h.remove()
    seq.forward(ember.ones(1))  # no hook left: the C++ mark is dropped
    seen = []
    child._forward_hooks[99] = lambda m, i, o: seen.append(1)
    seq.forward(ember.ones(1))
    child(ember.ones(1))
    assert seen == [1, 1]


def test_global_regular_and_full_backward_hooks_do_not_mix():
    for lib in (ember, torch):
        mm = lib.nn.modules.module
        h = mm.register_module_full_backward_hook(lambda m, gi, go: None)
        try:
            with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks"):
                mm.register_module_backward_hook(lambda m, gi, go: None)
        finally:
            h.remove()
