"""One truth per module tree (Note [One list of children]): containers, _modules / _parameters /
_buffers, attribute assignment, del, None slots, registration checks and their messages, the
Module API of issue 12 (get_submodule, named_modules(memo, remove_duplicate), share_memory,
type, half, double) — each against PyTorch 1.13."""
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
from ember import nn


def both(fn):
    """fn(lib) on ember and torch: returns (ember result, torch result)."""
    return fn(ember), fn(torch)


def outcome(fn, lib):
    """(exception type name, message) or ("ok", value)."""
    try:
        return ("ok", fn(lib))
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return (type(e).__name__, str(e).replace("torch", "ember"))


def same_outcome(fn):
    e, t = outcome(fn, ember), outcome(fn, torch)
    assert e == t
    return e


def arr(x):
    return np.asarray(x.detach().numpy())


# ---- containers ----

@pytest.mark.parametrize("how", ["add_module", "setattr", "_modules", "register_module"])
def test_sequential_sees_children_added_by_every_route(how):
    def run(lib):
        lib.manual_seed(0)
        seq = lib.nn.Sequential(lib.nn.Linear(3, 4))
        sm = lib.nn.Softmax(1)
        if how == "add_module":
            seq.add_module("sm", sm)
        elif how == "setattr":
            seq.sm = sm
        elif how == "_modules":
            seq._modules["sm"] = sm
        else:
            seq.register_module("sm", sm)
        x = lib.ones(2, 3)
        return (len(seq), seq[-1] is sm, [type(m).__name__ for m in seq],
                [n for n, _ in seq.named_children()], seq(x).sum(1).tolist(), repr(seq))

    e, t = both(run)
    assert e[:4] == t[:4] == (2, True, ["Linear", "Softmax"], ["0", "sm"])
    np.testing.assert_allclose(e[4], [1.0, 1.0], rtol=1e-6)
    assert e[5] == t[5]


def test_sequential_output_includes_added_child_numerically():
    seq = nn.Sequential(nn.Linear(3, 4))
    x = ember.randn(2, 3)
    before = seq(x)
    seq.add_module("sm", nn.Softmax(1))
    after = seq(x)
    np.testing.assert_allclose(arr(after), arr(ember.softmax(before, 1)), rtol=1e-6)


def test_sequential_delete_renumbers_like_torch():
    def run(lib):
        seq = lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Tanh())
        seq.add_module("sm", lib.nn.Softmax(1))
        del seq[0]
        names = [n for n, _ in seq.named_children()]
        seq.append(lib.nn.Sigmoid())
        return names, [n for n, _ in seq.named_children()], len(seq), repr(seq)

    e, t = both(run)
    assert e == t


def test_modulelist_and_moduledict_one_list():
    def run(lib):
        ml = lib.nn.ModuleList([lib.nn.ReLU()])
        ml.add_module("extra", lib.nn.Tanh())
        ml.tail = lib.nn.Sigmoid()
        md = lib.nn.ModuleDict({"a": lib.nn.ReLU()})
        md.add_module("b", lib.nn.Tanh())
        md.c = lib.nn.Sigmoid()
        return (len(ml), outcome(lambda lib: ml[-1], lib)[0], type(ml[0]).__name__,
                [type(m).__name__ for m in ml],
                len(md), list(md.keys()), "c" in md, type(md["b"]).__name__, repr(ml), repr(md))

    e, t = both(run)
    assert e == t


def test_container_none_child_and_delete_by_attribute():
    def run(lib):
        seq = lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Tanh())
        seq.add_module("x", None)
        n1 = len(seq)
        r1 = repr(seq)
        del seq.x
        del seq[0]
        return n1, r1, len(seq), list(seq._modules.keys())

    e, t = both(run)
    assert e == t


def test_sequential_calling_none_child_raises_like_torch():
    def run(lib):
        seq = lib.nn.Sequential(lib.nn.ReLU())
        seq.add_module("x", None)
        return seq(lib.ones(1))

    e = same_outcome(run)
    assert e[0] == "TypeError"


# ---- _modules / _parameters / _buffers views ----

def test_member_views_and_assignment():
    def run(lib):
        m = lib.nn.Linear(2, 3)
        out = [list(m._parameters.keys()), list(m._buffers.keys()), list(m._modules.keys())]
        m._buffers["b"] = lib.zeros(1)
        m._parameters["extra"] = lib.nn.Parameter(lib.ones(1))
        out.append([n for n, _ in m.named_parameters()])
        out.append([n for n, _ in m.named_buffers()])
        del m._parameters["extra"]
        out.append(hasattr(m, "extra"))
        m._modules = OrderedDict([("child", lib.nn.ReLU())])
        out.append(list(m._modules.keys()))
        out.append(repr(m))
        return out

    e, t = both(run)
    assert e == t


def test_setattr_none_slots():
    def run(lib):
        m = lib.nn.Module()
        m.register_parameter("w", lib.nn.Parameter(lib.ones(2)))
        m.register_buffer("b", lib.ones(2))
        m.c = lib.nn.ReLU()
        m.w = None
        m.b = None
        m.c = None
        return (list(m._parameters.keys()), m.w, list(m._buffers.keys()), m.b,
                list(m._modules.keys()), m.c, list(m.state_dict().keys()), repr(m))

    e, t = both(run)
    assert e == t


@pytest.mark.parametrize("case", ["param_plain_tensor", "param_int", "buffer_int", "child_int"])
def test_assignment_type_errors(case):
    def run(lib):
        m = lib.nn.Linear(2, 2)
        m.register_buffer("b", lib.zeros(1))
        m.sub = lib.nn.ReLU()
        if case == "param_plain_tensor":
            m.weight = lib.zeros(2, 2)
        elif case == "param_int":
            m.weight = 3
        elif case == "buffer_int":
            m.b = 3
        else:
            m.sub = 3

    e = same_outcome(run)
    assert e[0] == "TypeError"


def test_del_members_and_missing_attribute():
    def run(lib):
        m = lib.nn.Module()
        m.register_parameter("bias", lib.nn.Parameter(lib.ones(1)))
        m.register_parameter("w", lib.nn.Parameter(lib.ones(1)))
        m.register_buffer("b", lib.zeros(1))
        m.sub = lib.nn.ReLU()
        del m.bias, m.b, m.sub
        return list(m.state_dict().keys()), repr(m), hasattr(m, "bias")

    e, t = both(run)
    assert e == t
    same_outcome(lambda lib: getattr(lib.nn.Linear(1, 1), "nope"))


# ---- registration checks ----

@pytest.mark.parametrize("call", [
    lambda lib, m: m.register_buffer("a.b", lib.zeros(1)),
    lambda lib, m: m.register_buffer("", lib.zeros(1)),
    lambda lib, m: m.register_buffer(1, lib.zeros(1)),
    lambda lib, m: m.register_buffer("weight", lib.zeros(1)),
    lambda lib, m: m.register_buffer("forward", lib.zeros(1)),
    lambda lib, m: m.register_buffer("x", 3),
    lambda lib, m: m.register_parameter("a.b", None),
    lambda lib, m: m.register_parameter("", None),
    lambda lib, m: m.register_parameter(2.0, None),
    lambda lib, m: m.register_parameter("bias_buf", None),
    lambda lib, m: m.register_parameter("x", lib.zeros(1)),
    lambda lib, m: m.register_parameter("x", 3),
    lambda lib, m: m.add_module("a.b", lib.nn.ReLU()),
    lambda lib, m: m.add_module("", lib.nn.ReLU()),
    lambda lib, m: m.add_module(1, lib.nn.ReLU()),
    lambda lib, m: m.add_module("weight", lib.nn.ReLU()),
    lambda lib, m: m.add_module("x", 3),
    lambda lib, m: m.add_module("x", lib.zeros(1)),
])
def test_registration_errors(call):
    def run(lib):
        m = lib.nn.Linear(2, 2)
        m.register_buffer("bias_buf", lib.zeros(1))
        call(lib, m)

    e = same_outcome(run)
    assert e[0] in ("KeyError", "TypeError")


def test_registration_before_init():
    class Early(nn.Module):
        def __init__(self):
            self.register_buffer("b", ember.zeros(1))

    class EarlyT(torch.nn.Module):
        def __init__(self):
            self.register_buffer("b", torch.zeros(1))

    with pytest.raises(AttributeError) as e:
        Early()
    with pytest.raises(AttributeError) as t:
        EarlyT()
    assert str(e.value) == str(t.value)


def test_register_existing_keeps_order_and_persistence():
    def run(lib):
        m = lib.nn.Module()
        m.register_buffer("a", lib.zeros(1))
        m.register_buffer("b", lib.zeros(1), persistent=False)
        m.register_buffer("a", lib.ones(1), persistent=False)
        m.register_buffer("b", lib.ones(1))
        return list(m._buffers.keys()), list(m.state_dict().keys())

    e, t = both(run)
    assert e == t


# ---- get_submodule / get_parameter / get_buffer ----

def _tree(lib):
    m = lib.nn.Sequential(OrderedDict([("a", lib.nn.Sequential(lib.nn.Linear(2, 2))),
                                       ("b", lib.nn.BatchNorm2d(2))]))
    m.a.register_buffer("buf", lib.zeros(1))
    m.plain = 3
    return m


@pytest.mark.parametrize("expr", [
    lambda m: m.get_submodule("a.0") is m.a[0],
    lambda m: m.get_submodule("") is m,
    lambda m: m.get_submodule("a.x"),
    lambda m: m.get_submodule("a.0.weight"),
    lambda m: m.get_submodule("plain"),
    lambda m: m.get_parameter("a.0.weight") is m.a[0].weight,
    lambda m: m.get_parameter("a.0.nope"),
    lambda m: m.get_parameter("a.buf"),
    lambda m: m.get_parameter("b.running_mean"),
    lambda m: m.get_buffer("b.running_mean") is m.b.running_mean,
    lambda m: m.get_buffer("a.buf") is m.a.buf,
    lambda m: m.get_buffer("a.0.weight"),
    lambda m: m.get_buffer("x.y"),
])
def test_get_submodule_parameter_buffer(expr):
    same_outcome(lambda lib: expr(_tree(lib)))


def test_named_modules_memo_prefix_remove_duplicate():
    def run(lib):
        shared = lib.nn.ReLU()
        m = lib.nn.Sequential(shared, lib.nn.Sequential(shared), shared)
        out = [[n for n, _ in m.named_modules()],
               [n for n, _ in m.named_modules(remove_duplicate=False)],
               [n for n, _ in m.named_modules(prefix="root")],
               [n for n, _ in m.named_modules(memo={shared})],
               len(list(m.modules()))]
        p = lib.nn.Parameter(lib.ones(1))
        m2 = lib.nn.Module()
        m2.a = lib.nn.Linear(1, 1)
        m2.b = m2.a
        m2.register_parameter("p", p)
        m2.register_parameter("q", p)
        out.append([n for n, _ in m2.named_parameters()])
        if lib is ember:  # remove_duplicate on named_parameters is PyTorch 2.x
            out.append([n for n, _ in m2.named_parameters(remove_duplicate=False)])
        return out

    e, t = both(run)
    assert e[:5] == t[:5]
    assert e[5] == ["p", "a.weight", "a.bias"]
    assert e[6] == ["p", "q", "a.weight", "a.bias", "b.weight", "b.bias"]


def test_share_memory_half_double_type():
    def run(lib):
        m = lib.nn.Linear(2, 2)
        m.register_buffer("steps", lib.zeros(1, dtype=lib.int64))
        out = [m.share_memory() is m]
        out.append(m.half() is m)
        out.append(str(m.weight.dtype))
        out.append(m.double() is m)
        out.append(str(m.weight.dtype))
        out.append(str(m.steps.dtype))
        out.append(m.type(lib.float32) is m)
        out.append((str(m.weight.dtype), str(m.steps.dtype), type(m.weight).__name__))
        return out

    e, t = both(run)
    assert [str(x).replace("torch", "ember") for x in e] == [str(x).replace("torch", "ember") for x in t]


def test_share_memory_moves_storages_in_place():
    def run(lib):
        m = lib.nn.Linear(2, 2)
        w = m.weight
        before = [t.is_shared() for t in m.parameters()]
        m.share_memory()
        return before, [t.is_shared() for t in m.parameters()], m.weight is w

    e, t = both(run)
    assert e == t == ([False, False], [True, True], True)


def test_module_cuda_raises_the_no_cuda_assertion():
    m = nn.Linear(2, 2)
    with pytest.raises(AssertionError, match="not compiled with CUDA enabled"):
        m.cuda()
    assert m.weight.device == ember.device("cpu")


# ---- messages ----

def test_load_state_dict_size_mismatch_names_ember():
    m = nn.Linear(3, 2)
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict({"weight": ember.zeros(2, 4), "bias": ember.zeros(2)})
    tm = torch.nn.Linear(3, 2)
    with pytest.raises(RuntimeError) as t:
        tm.load_state_dict({"weight": torch.zeros(2, 4), "bias": torch.zeros(2)})
    assert "ember.Size([2, 4])" in str(e.value)
    assert str(e.value) == str(t.value).replace("torch.", "ember.")


@pytest.mark.parametrize("value,expected", [
    (lambda: torch.zeros(2), "<class 'torch.Tensor'>"),
    (lambda: "text", "<class 'str'>"),
    (lambda: (1, 2), "<class 'tuple'>"),
    (lambda: [1.0], "<class 'list'>"),
    (lambda: None, "<class 'NoneType'>"),
    (lambda: 3, "<class 'int'>"),
])
def test_load_state_dict_foreign_value_names_its_type(value, expected):
    m = nn.Linear(2, 1)
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict({"weight": value(), "bias": ember.zeros(1)})
    tm = torch.nn.Linear(2, 1)
    v = value()
    if isinstance(v, torch.Tensor):
        v = np.zeros(2)  # torch's own message for a foreign object
        expected_t = "<class 'numpy.ndarray'>"
    else:
        expected_t = expected
    with pytest.raises(RuntimeError) as t:
        tm.load_state_dict({"weight": v, "bias": torch.zeros(1)})
    assert f"received {expected}" in str(e.value)
    assert f"received {expected_t}" in str(t.value)
    assert "expected ember.Tensor or Tensor-like object" in str(e.value)
    assert str(e.value).replace(expected, expected_t) == str(t.value).replace("torch.", "ember.")


def test_load_state_dict_non_mapping():
    same_outcome(lambda lib: lib.nn.Linear(1, 1).load_state_dict([1, 2]))


def test_no_torch_in_module_messages():
    m = nn.Linear(2, 2).to(device="meta")
    with pytest.raises(NotImplementedError) as e:
        m.to("cpu")
    assert "torch" not in str(e.value) and "ember.nn.Module.to_empty()" in str(e.value)
    with pytest.raises(TypeError) as e:
        nn.Linear(1, 1).to(ember.int32)
    assert "dtype=ember.int32" in str(e.value)


def test_container_operators():
    def run(lib):
        a = lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Tanh())
        b = lib.nn.Sequential(lib.nn.Sigmoid())
        out = [repr(a + b), repr(a * 2), repr(2 * b)]
        a += b
        out.append(repr(a))
        b *= 3
        out.append(repr(b))
        ml = lib.nn.ModuleList([lib.nn.ReLU()]) + [lib.nn.Tanh()]
        out.append(repr(ml))
        for bad in (lambda: a + 1, lambda: a * 0, lambda: a * 1.5):
            try:
                bad()
            except (ValueError, TypeError) as e:
                out.append((type(e).__name__, str(e).replace("torch", "ember")))
        return out

    e, t = both(run)
    assert e == t


def test_replacing_children_of_cpp_models_is_seen_by_their_forward():
    import ember.vision  # noqa: F401
    import torchvision

    def run(lib, models):
        lib.manual_seed(0)
        m = models.resnet18(num_classes=3).eval()
        m.fc = lib.nn.Sequential(lib.nn.Dropout(0.5), lib.nn.Linear(512, 7))
        m.layer1[0].relu = lib.nn.Tanh()
        m.layer2[0].downsample = None if lib is torch else None
        shapes = []
        m.layer1[0].relu.register_forward_hook(lambda mod, i, o: shapes.append(tuple(o.shape)))
        with lib.no_grad():
            try:
                out = m(lib.randn(1, 3, 32, 32))
                return tuple(out.shape), shapes
            except Exception as e:  # noqa: BLE001 - compared by type
                return type(e).__name__, shapes

    e = run(ember, ember.vision.models)
    t = run(torch, torchvision.models)
    assert e == t


def test_mobilenet_classifier_replacement():
    import ember.vision  # noqa: F401

    m = ember.vision.models.mobilenet_v2(num_classes=4).eval()
    m.classifier = nn.Linear(1280, 2)
    with ember.no_grad():
        assert tuple(m(ember.randn(1, 3, 32, 32)).shape) == (1, 2)


def test_parameters_dict_stores_values_as_given():
    def run(lib):
        m = lib.nn.Module()
        t = lib.ones(2)
        m._parameters["x"] = t
        m._parameters["y"] = None
        return (m.x is t, type(m.x).__name__, [n for n, _ in m.named_parameters()],
                list(m._parameters.keys()))

    e, t = both(run)
    assert e == t


def test_hook_dicts_assignable_and_synced():
    seq = nn.Sequential(nn.ReLU())
    child = seq[0]
    child._forward_hooks = OrderedDict()
    seen = []
    child._forward_hooks[0] = lambda m, i, o: seen.append(1)
    seq.forward(ember.ones(1))
    child.__dict__["_forward_pre_hooks"] = OrderedDict([(1, lambda m, i: seen.append(0))])
    child._sync_hooks()
    seq.forward(ember.ones(1))
    assert seen == [1, 0, 1]


def test_slices_keep_the_container_subclass():
    def run(lib):
        class MySeq(lib.nn.Sequential):
            pass

        class MyList(lib.nn.ModuleList):
            pass

        s = MySeq(lib.nn.ReLU(), lib.nn.Tanh(), lib.nn.Sigmoid())
        ml = MyList([lib.nn.ReLU(), lib.nn.Tanh()])
        return (type(s[1:]).__name__, repr(s[::2]), type(ml[:1]).__name__, repr(ml[1:]),
                type(s[0]).__name__)

    e, t = both(run)
    assert e == t


@pytest.mark.parametrize("walk", ["train", "repr", "state_dict", "apply", "float"])
def test_cycle_in_module_graph_raises_instead_of_crashing(walk):
    def run(lib):
        outer = lib.nn.Sequential(lib.nn.Linear(1, 1))
        inner = lib.nn.Sequential(outer)
        outer.add_module("back", inner)  # outer -> inner -> outer
        try:
            if walk == "train":
                outer.train()
            elif walk == "repr":
                repr(outer)
            elif walk == "state_dict":
                outer.state_dict()
            elif walk == "apply":
                outer.apply(lambda m: None)
            else:
                outer.float()
        except RuntimeError:  # PyTorch: RecursionError, a RuntimeError
            return "raised"
        return "ok"

    assert run(ember) == run(torch) == "raised"
