"""ember.nn.Module from Python: registration by attribute, identity of parameters, reprs,
state_dict / load_state_dict (keys, values, messages) against PyTorch 1.13, hooks, conversion,
and Python modules held only by C++ parents (Note [Python modules under C++ parents])."""
import gc
import weakref
from collections import OrderedDict

import pytest
import torch

import ember
from ember import nn


from nn_convert import E, T, to_list


def build(lib):
    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(3, 4)
            self.act = lib.nn.ReLU()
            self.register_buffer("steps", lib.zeros(2))
            self.register_buffer("scratch", lib.ones(1), persistent=False)
            self.scale = lib.nn.Parameter(lib.ones(4))

        def forward(self, x):
            return self.act(self.fc(x)) * self.scale

        def extra_repr(self):
            return "block=True"

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.head = lib.nn.Sequential(lib.nn.Linear(4, 2), lib.nn.Tanh())
            self.register_parameter("unused", None)
            self.tag = "net"  # a plain attribute

        def forward(self, x):
            return self.head(self.block(x))

    return Net()


def copy_from_torch(em, tm):
    em.load_state_dict({k: E(v) for k, v in tm.state_dict().items()})


def test_registration_matches_torch():
    em, tm = build(ember), build(torch)
    assert [n for n, _ in em.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert [n for n, _ in em.named_buffers()] == [n for n, _ in tm.named_buffers()]
    assert [n for n, _ in em.named_modules()] == [n for n, _ in tm.named_modules()]
    assert list(em.state_dict().keys()) == list(tm.state_dict().keys())
    assert em.tag == "net" and em.unused is None
    assert type(em.block.fc.weight) is nn.Parameter
    assert len(list(em.parameters())) == len(list(tm.parameters()))
    assert list(em._parameters) == list(tm._parameters) == ["unused"]
    assert list(em.block._buffers) == list(tm.block._buffers)
    assert em.block._non_persistent_buffers_set == tm.block._non_persistent_buffers_set


def test_repr_matches_torch():
    assert repr(build(ember)) == repr(build(torch))
    for make in [lambda l: l.nn.Linear(3, 5, bias=False), lambda l: l.nn.Dropout(0.25),
                 lambda l: l.nn.LayerNorm([4, 5], eps=1e-6), lambda l: l.nn.Embedding(10, 3, padding_idx=0),
                 lambda l: l.nn.GELU("tanh"), lambda l: l.nn.Softmax(dim=1), lambda l: l.nn.ReLU6(True),
                 lambda l: l.nn.Hardtanh(-2.0, 2.0), lambda l: l.nn.CrossEntropyLoss(label_smoothing=0.1),
                 lambda l: l.nn.Flatten(), lambda l: l.nn.ModuleDict({"a": l.nn.Sigmoid()}),
                 lambda l: l.nn.Sequential(OrderedDict([("x", l.nn.Identity())]))]:
        assert repr(make(ember)) == repr(make(torch))


def test_identity_of_parameters_and_state_dict():
    m = build(ember)
    w = m.block.fc.weight
    assert m.block.fc.weight is w
    sd = m.state_dict(keep_vars=True)
    assert sd["block.fc.weight"] is w and sd["block.scale"] is m.block.scale
    assert sd["block.steps"] is m.block.steps
    assert sd._metadata[""] == {"version": 1}
    plain = m.state_dict()
    assert plain["block.fc.weight"] is not w and not plain["block.fc.weight"].requires_grad


def test_setattr_rules_match_torch():
    for lib in (ember, torch):
        m = lib.nn.Linear(2, 2)
        with pytest.raises(TypeError, match="cannot assign .* as parameter 'weight'"):
            m.weight = lib.zeros(2, 2)
        m.bias = None
        assert m.bias is None and [n for n, _ in m.named_parameters()] == ["weight"]
        m.extra = lib.nn.ReLU()
        assert [n for n, _ in m.named_children()] == ["extra"]
        m.extra = None
        assert m.extra is None
        del m.extra
        with pytest.raises(AttributeError, match="'Linear' object has no attribute 'extra'"):
            m.extra
        m.register_buffer("b", lib.zeros(1))
        m.b = lib.ones(3)
        assert m.b.shape == (3,)
        with pytest.raises(TypeError, match="as buffer 'b'"):
            m.b = 3
    # A parameter assigned over a plain attribute replaces it.
    m = nn.Module()
    m.x = 1
    m.x = nn.Parameter(ember.zeros(1))
    assert [n for n, _ in m.named_parameters()] == ["x"] and "x" not in m.__dict__


def test_load_state_dict_messages_match_torch():
    em, tm = build(ember), build(torch)
    sd_t = tm.state_dict()
    sd_e = OrderedDict((k, E(v)) for k, v in sd_t.items())
    for drop, extra in [("block.scale", None), (None, "block.bogus"), ("head.0.bias", "zzz")]:
        t_sd, e_sd = OrderedDict(sd_t), OrderedDict(sd_e)
        if drop:
            del t_sd[drop], e_sd[drop]
        if extra:
            t_sd[extra], e_sd[extra] = torch.zeros(1), ember.zeros(1)
        with pytest.raises(RuntimeError) as te:
            tm.load_state_dict(t_sd)
        with pytest.raises(RuntimeError) as ee:
            em.load_state_dict(e_sd)
        assert str(ee.value) == str(te.value)
        assert repr(em.load_state_dict(e_sd, strict=False)) == repr(tm.load_state_dict(t_sd, strict=False))
    t_sd, e_sd = OrderedDict(sd_t), OrderedDict(sd_e)
    t_sd["block.fc.weight"], e_sd["block.fc.weight"] = torch.zeros(5, 3), ember.zeros(5, 3)
    with pytest.raises(RuntimeError) as te:
        tm.load_state_dict(t_sd)
    with pytest.raises(RuntimeError) as ee:
        em.load_state_dict(e_sd)
    assert str(ee.value) == str(te.value).replace("torch.Size", "ember.Size")
    assert repr(em.load_state_dict(sd_e)) == repr(tm.load_state_dict(sd_t)) == "<All keys matched successfully>"
    keys = em.load_state_dict(sd_e)
    assert keys.missing_keys == [] and keys.unexpected_keys == []
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        em.load_state_dict([1])


def test_load_copies_values_and_forward_matches_torch():
    torch.manual_seed(0)
    em, tm = build(ember), build(torch)
    copy_from_torch(em, tm)
    for k, v in em.state_dict().items():
        assert torch.equal(T(v), tm.state_dict()[k]), k
    x = torch.randn(5, 3)
    assert torch.allclose(T(em(E(x))), tm(x), atol=1e-6)


def test_python_overrides_of_state_dict_steps():
    class Renamed(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(ember.ones(2))

        def _save_to_state_dict(self, destination, prefix, keep_vars):
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "w_v2"] = destination.pop(prefix + "w")

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing,
                                  unexpected, errors):
            if prefix + "w_v2" in state_dict:
                state_dict[prefix + "w"] = state_dict.pop(prefix + "w_v2")
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing,
                                          unexpected, errors)

    outer = nn.Sequential(Renamed())
    assert list(outer.state_dict()) == ["0.w_v2"]
    outer.load_state_dict({"0.w_v2": ember.full((2,), 3.0)})
    assert to_list(outer[0].w) == [3.0, 3.0]


def test_forward_hooks_and_arbitrary_python_values():
    class Pair(nn.Module):
        def forward(self, x, *, scale=1, extra=None):
            return {"y": x * scale, "extra": extra}

    m = Pair()
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: calls.append("pre") or (args[0] + 1,))
    h2 = m.register_forward_hook(lambda mod, args, out: calls.append("post") or dict(out, hooked=True))
    out = m(ember.ones(2), scale=2, extra=("a", 1))
    assert calls == ["pre", "post"] and out["hooked"] and out["extra"] == ("a", 1)
    assert to_list(out["y"]) == [4.0, 4.0]
    h1.remove()
    h2.remove()
    assert to_list(m(ember.ones(1))["y"]) == [1.0]
    # Hooks on C++ layers run when a Sequential calls them.
    seen = []
    lin = nn.Linear(2, 2)
    lin.register_forward_hook(lambda mod, args, out: seen.append(mod is lin))
    nn.Sequential(lin, nn.ReLU())(ember.ones(1, 2))
    assert seen == [True]
    with pytest.raises(NotImplementedError, match=r'Module \[Module\] is missing the required "forward" function'):
        nn.Module()(ember.ones(1))


def test_python_child_held_only_by_cpp_parent():
    ran = []

    class Child(nn.Module):
        def __init__(self):
            super().__init__()
            self.note = "kept"
            self.fc = nn.Linear(2, 2)

        def forward(self, x):
            ran.append(self.note)
            return self.fc(x) * 0 + 7

    parent = nn.Sequential(nn.Identity(), Child())
    child_ref = weakref.ref(parent[1])
    parent.append(Child())
    gc.collect()
    assert child_ref() is not None  # alive: the C++ parent holds it
    out = parent(ember.ones(1, 2))
    assert ran == ["kept", "kept"] and to_list(out) == [[7.0, 7.0]]
    assert parent[1].__dict__["note"] == "kept" and parent[1] is child_ref()
    fc_ref = weakref.ref(parent[1].fc)
    parent_ref = weakref.ref(parent)
    del parent, out
    gc.collect()
    assert parent_ref() is None and child_ref() is None and fc_ref() is None


def test_python_child_in_python_parent_freed_without_gc():
    class Child(nn.Module):
        def forward(self, x):
            return x

    class Parent(nn.Module):
        def __init__(self):
            super().__init__()
            self.c = Child()

    p = Parent()
    r = weakref.ref(p.c)
    gc.disable()
    try:
        del p
        assert r() is None  # no reference cycle: freed by reference counting alone
    finally:
        gc.enable()


def test_train_eval_apply_zero_grad_requires_grad_and_conversion():
    m = build(ember)
    assert m.training and m.eval() is m and not m.block.fc.training
    m.train()
    m.block.training = False
    assert not m.block.training and m.block.fc.training and m.training
    visited = []
    m.apply(lambda mod: visited.append(type(mod).__name__))
    assert visited == [type(x).__name__ for x in
                       [m.block.fc, m.block.act, m.block, m.head[0], m.head[1], m.head, m]]
    for p in m.parameters():
        p.grad = ember.ones(*p.shape)
    assert m.block.fc.weight.grad is not None
    m.zero_grad()
    assert m.block.fc.weight.grad is None
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    w = m.block.fc.weight
    assert m.double() is m and m.block.fc.weight.dtype == ember.float64
    assert m.block.steps.dtype == ember.float64
    m.to(ember.float32)
    assert m.block.fc.weight.dtype == ember.float32 and w is m.block.fc.weight
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point"):
        m.to(ember.int32)
    meta = nn.Linear(3, 3, device="meta")
    assert meta.weight.device.type == "meta"
    meta.to_empty(device="cpu")
    assert meta.weight.device.type == "cpu"


def test_parameter():
    p = nn.Parameter(ember.zeros(2))
    assert isinstance(p, ember.Tensor) and type(p) is nn.Parameter and p.requires_grad
    assert repr(p).startswith("Parameter containing:\ntensor(")
    assert repr(p) == repr(torch.nn.Parameter(torch.zeros(2)))
    assert not nn.Parameter(ember.zeros(1), requires_grad=False).requires_grad
    assert nn.Parameter().shape == (0,)
    assert type(p * 2) is ember.Tensor  # op results are plain tensors


def test_containers():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    seq.append(nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear)
    assert repr(seq[0:2]) == repr(torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU()))
    del seq[1]
    assert [n for n, _ in seq.named_children()] == ["0", "1"]
    ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    assert [type(x).__name__ for x in ml] == ["ReLU", "Tanh"]
    md = nn.ModuleDict({"a": nn.ReLU()})
    md["b"] = nn.Tanh()
    assert list(md.keys()) == ["a", "b"] and "a" in md and isinstance(md["b"], nn.Tanh)
