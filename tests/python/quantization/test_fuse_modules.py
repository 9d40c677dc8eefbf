"""fuse_modules / fuse_modules_qat and the float fused modules (ember.nn.intrinsic) against
torch 1.13: structure after fusion, folded weights bit for bit, reprs, state_dict keys, error
types and texts, hooks moved, inplace vs copy; on Python models, C++ models and Python
subclasses of C++ models."""
import copy
import pickle

import numpy as np
import pytest
import torch
import torch.ao.quantization as tq
import torch.nn.intrinsic as tnni

import ember
import ember.nn as enn
import ember.nn.intrinsic as enni
from ember.ao.quantization.fuse_modules import fuse_known_modules, fuse_modules, fuse_modules_qat
from ember.ao.quantization import fuser_method_mappings as efm


def to_ember(t):
    return ember.from_numpy(t.detach().clone().numpy())  # clone: .numpy() pins the storage


def sync(e_model, t_model):
    """Copies t_model's state into e_model (same keys)."""
    sd = {k: to_ember(v) for k, v in t_model.state_dict().items()}
    e_model.load_state_dict(sd)


def randomize_bn(t_bn, seed):
    g = torch.Generator().manual_seed(seed)
    n = t_bn.num_features
    with torch.no_grad():
        t_bn.running_mean.copy_(torch.randn(n, generator=g))
        t_bn.running_var.copy_(torch.rand(n, generator=g) + 0.5)
        if t_bn.affine:
            t_bn.weight.copy_(torch.randn(n, generator=g))
            t_bn.bias.copy_(torch.randn(n, generator=g))


def make_pair(layers):
    """The same model (a Sequential with the named layers) in torch and in ember: layers is a
    list of (name, torch factory, ember factory)."""
    t, e = torch.nn.Sequential(), enn.Sequential()
    for i, (name, tf, ef) in enumerate(layers):
        t.add_module(name, tf(torch.nn))
        e.add_module(name, ef(enn))
        m = getattr(t, name)
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            randomize_bn(m, i)
    sync(e, t)
    return t, e


def structure(m):
    return [(n, type(x).__name__, x.training) for n, x in m.named_modules()]


def assert_same_state(e, t):
    te, tt = e.state_dict(), t.state_dict()
    assert list(te.keys()) == list(tt.keys())
    for k in tt:
        np.testing.assert_array_equal(te[k].numpy(), tt[k].numpy(), err_msg=k)


CONV2 = ("conv", lambda n: n.Conv2d(3, 4, 3, padding=1, bias=False), lambda n: n.Conv2d(3, 4, 3, padding=1, bias=False))
CONV2B = ("conv", lambda n: n.Conv2d(3, 4, 3), lambda n: n.Conv2d(3, 4, 3))
CONV1 = ("conv", lambda n: n.Conv1d(3, 4, 3), lambda n: n.Conv1d(3, 4, 3))
BN2 = ("bn", lambda n: n.BatchNorm2d(4), lambda n: n.BatchNorm2d(4))
BN1 = ("bn", lambda n: n.BatchNorm1d(4), lambda n: n.BatchNorm1d(4))
BN3 = ("bn", lambda n: n.BatchNorm3d(4), lambda n: n.BatchNorm3d(4))
RELU = ("relu", lambda n: n.ReLU(), lambda n: n.ReLU())
LIN = ("lin", lambda n: n.Linear(5, 4), lambda n: n.Linear(5, 4))
LIN_NB = ("lin", lambda n: n.Linear(5, 4, bias=False), lambda n: n.Linear(5, 4, bias=False))
CONVT = ("convt", lambda n: n.ConvTranspose2d(3, 4, 3, stride=2), lambda n: n.ConvTranspose2d(3, 4, 3, stride=2))
CONV3 = ("conv", lambda n: n.Conv3d(3, 4, 3, padding=1), lambda n: n.Conv3d(3, 4, 3, padding=1))
CONV3_NB = ("conv", lambda n: n.Conv3d(3, 4, 2, bias=False), lambda n: n.Conv3d(3, 4, 2, bias=False))
CONVT1 = ("convt", lambda n: n.ConvTranspose1d(3, 4, 3, stride=2), lambda n: n.ConvTranspose1d(3, 4, 3, stride=2))
CONVT3 = ("convt", lambda n: n.ConvTranspose3d(3, 4, 2), lambda n: n.ConvTranspose3d(3, 4, 2))

PATTERNS = {
    "conv2d_bn": ([CONV2, BN2], (2, 3, 6, 6)),
    "conv2d_bias_bn_relu": ([CONV2B, BN2, RELU], (2, 3, 6, 6)),
    "conv2d_relu": ([CONV2B, RELU], (2, 3, 6, 6)),
    "conv1d_bn": ([CONV1, BN1], (2, 3, 7)),
    "conv1d_bn_relu": ([CONV1, BN1, RELU], (2, 3, 7)),
    "conv1d_relu": ([CONV1, RELU], (2, 3, 7)),
    "linear_bn": ([LIN, BN1], (3, 5)),
    "linear_nobias_bn": ([LIN_NB, BN1], (3, 5)),
    "linear_relu": ([LIN, RELU], (3, 5)),
    "bn2d_relu": ([BN2, RELU], (2, 4, 3, 3)),
    "bn3d_relu": ([BN3, RELU], (2, 4, 2, 3, 3)),
    "convtranspose2d_bn": ([CONVT, BN2], (2, 3, 4, 4)),
    "conv3d_bn": ([CONV3_NB, BN3], (2, 3, 4, 4, 4)),
    "conv3d_bias_bn_relu": ([CONV3, BN3, RELU], (2, 3, 3, 4, 4)),
    "conv3d_relu": ([CONV3, RELU], (2, 3, 3, 4, 4)),
    "convtranspose1d_bn": ([CONVT1, BN1], (2, 3, 5)),
    "convtranspose3d_bn": ([CONVT3, BN3], (2, 3, 2, 3, 3)),
}


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_eval_fusion_matches_torch(name):
    layers, shape = PATTERNS[name]
    t, e = make_pair(layers)
    t.eval(), e.eval()
    names = [n for n, _, _ in layers]
    tf = tq.fuse_modules(t, names)
    ef = fuse_modules(e, names)
    assert structure(ef) == structure(tf)
    assert repr(ef) == repr(tf)
    assert_same_state(ef, tf)  # the folded weights bit for bit
    x = torch.randn(*shape)
    np.testing.assert_allclose(ef(to_ember(x)).detach().numpy(), tf(x).detach().numpy(), rtol=1e-5, atol=1e-5)
    # the original is unchanged (inplace=False copies)
    assert [type(getattr(e, n)).__name__ for n in names] == [type(getattr(t, n)).__name__ for n in names]
    assert_same_state(e, t)


@pytest.mark.parametrize("name", sorted(k for k in PATTERNS if not k.startswith("convtranspose")))
def test_qat_fusion_matches_torch(name):
    layers, shape = PATTERNS[name]
    t, e = make_pair(layers)
    names = [n for n, _, _ in layers]
    tf = tq.fuse_modules_qat(t, names)
    ef = fuse_modules_qat(e, names)
    assert structure(ef) == structure(tf)
    assert repr(ef) == repr(tf)
    assert_same_state(ef, tf)
    # the fused containers hold the original modules (QAT keeps the BatchNorm)
    first = getattr(ef, names[0])
    if isinstance(first, enni._FusedModule):
        assert first[0] is not getattr(e, names[0])  # a copy (inplace=False)


def test_convtranspose_qat_fails_as_torch():
    t, e = make_pair([CONVT, BN2])
    with pytest.raises(Exception) as te:
        tq.fuse_modules_qat(t, ["convt", "bn"])
    with pytest.raises(Exception) as ee:
        fuse_modules_qat(e, ["convt", "bn"])
    assert type(ee.value).__name__ == type(te.value).__name__ == "Exception"
    assert str(ee.value) == str(te.value) == "Fusing ConvTranspose+BatchNorm not yet supported in QAT."


def test_unsupported_pattern_assertion():
    t, e = make_pair([CONV2B, RELU])
    e.eval()
    with pytest.raises(AssertionError) as ee:
        fuse_modules(e, ["relu", "conv"])
    msg = str(ee.value)
    assert msg.startswith("did not find fuser method for: (<class ") and msg.endswith(") ")
    assert "ReLU'>, <class " in msg and "Conv2d'>" in msg
    with pytest.raises(AssertionError) as te:
        tq.fuse_modules(t.eval(), ["relu", "conv"])
    assert str(te.value).startswith("did not find fuser method for: (")
    # ReLU6 is not in the table (hence torchvision's _replace_relu)
    m = enn.Sequential(enn.Conv2d(1, 1, 1), enn.ReLU6()).eval()
    with pytest.raises(AssertionError, match="did not find fuser method for"):
        fuse_modules(m, ["0", "1"])


def test_training_mode_mismatch_and_eval_only():
    t, e = make_pair([CONV2B, BN2, RELU])
    for m in (t, e):
        m.conv.eval()
    with pytest.raises(AssertionError) as te:
        tq.fuse_modules(t, ["conv", "bn"])
    with pytest.raises(AssertionError) as ee:
        fuse_modules(e, ["conv", "bn"])
    assert str(ee.value) == str(te.value) == "Conv and BN both must be in the same mode (train or eval)."
    with pytest.raises(AssertionError) as ee:
        fuse_modules(e, ["conv", "bn", "relu"])
    assert str(ee.value) == "Conv and BN both must be in the same mode (train or eval)."
    # both training, eval fusion: torch's nn.utils.fusion assertion
    t2, e2 = make_pair([CONV2B, BN2])
    with pytest.raises(AssertionError) as te:
        tq.fuse_modules(t2, ["conv", "bn"])
    with pytest.raises(AssertionError) as ee:
        fuse_modules(e2, ["conv", "bn"])
    assert str(ee.value) == str(te.value) == "Fusion only for eval!"
    t3, e3 = make_pair([LIN, BN1])
    t3.lin.eval(), e3.lin.eval()
    with pytest.raises(AssertionError) as te:
        tq.fuse_modules(t3, ["lin", "bn"])
    with pytest.raises(AssertionError) as ee:
        fuse_modules(e3, ["lin", "bn"])
    assert str(ee.value) == str(te.value)


def test_qat_checks():
    cases = [
        (lambda n: n.Sequential(n.Conv2d(1, 3, 1), n.BatchNorm2d(4)), ["0", "1"]),
        (lambda n: n.Sequential(n.Conv2d(1, 4, 1), n.BatchNorm2d(4, affine=False)), ["0", "1"]),
        (lambda n: n.Sequential(n.Conv2d(1, 4, 1), n.BatchNorm2d(4, track_running_stats=False)), ["0", "1"]),
        (lambda n: n.Sequential(n.Conv2d(1, 3, 1), n.BatchNorm2d(4), n.ReLU()), ["0", "1", "2"]),
        (lambda n: n.Sequential(n.Conv2d(1, 4, 1), n.BatchNorm2d(4, affine=False), n.ReLU()), ["0", "1", "2"]),
        (lambda n: n.Sequential(n.Linear(1, 3), n.BatchNorm1d(4)), ["0", "1"]),
        (lambda n: n.Sequential(n.Linear(1, 4), n.BatchNorm1d(4, affine=False)), ["0", "1"]),
    ]
    for build, names in cases:
        with pytest.raises(AssertionError) as te:
            tq.fuse_modules_qat(build(torch.nn), names)
        with pytest.raises(AssertionError) as ee:
            fuse_modules_qat(build(enn), names)
        assert str(ee.value) == str(te.value)


def test_fused_module_constructors_check_types():
    cases = [
        ("ConvReLU1d", lambda n: (n.Conv2d(1, 1, 1), n.ReLU())),
        ("ConvReLU2d", lambda n: (n.Conv2d(1, 1, 1), n.ReLU6())),
        ("LinearReLU", lambda n: (n.Linear(1, 1), n.Identity())),
        ("ConvBn1d", lambda n: (n.Conv1d(1, 1, 1), n.BatchNorm2d(1))),
        ("ConvBn2d", lambda n: (n.Conv2d(1, 1, 1), n.BatchNorm1d(1))),
        ("ConvBnReLU1d", lambda n: (n.Conv1d(1, 1, 1), n.BatchNorm1d(1), n.Identity())),
        ("ConvBnReLU2d", lambda n: (n.Conv1d(1, 1, 1), n.BatchNorm2d(1), n.ReLU())),
        ("BNReLU2d", lambda n: (n.BatchNorm3d(1), n.ReLU())),
        ("BNReLU3d", lambda n: (n.BatchNorm2d(1), n.ReLU())),
        ("LinearBn1d", lambda n: (n.Linear(1, 1), n.BatchNorm2d(1))),
    ]
    for name, args in cases:
        with pytest.raises(AssertionError) as te:
            getattr(tnni, name)(*args(torch.nn))
        with pytest.raises(AssertionError) as ee:
            getattr(enni, name)(*args(enn))
        t_msg = str(te.value)
        assert t_msg.startswith("Incorrect types for input modules<class ")
        e_msg = str(ee.value)
        assert e_msg.startswith("Incorrect types for input modules<class ")
        # the same classes, named as each library names them
        t_names = [p.split("'")[0].rsplit(".", 1)[-1] for p in t_msg.split("<class '")[1:]]
        e_names = [p.split("'")[0].rsplit(".", 1)[-1] for p in e_msg.split("<class '")[1:]]
        assert e_names == t_names
    # a subclass of Conv2d is not a Conv2d here
    class MyConv(enn.Conv2d):
        pass
    with pytest.raises(AssertionError, match="MyConv"):
        enni.ConvReLU2d(MyConv(1, 1, 1), enn.ReLU())


def test_fused_module_reprs_keys_and_types():
    builders = {
        "ConvReLU1d": lambda n: (n.Conv1d(2, 3, 3), n.ReLU()),
        "ConvReLU2d": lambda n: (n.Conv2d(2, 3, 3, stride=2), n.ReLU(inplace=True)),
        "LinearReLU": lambda n: (n.Linear(2, 3), n.ReLU()),
        "ConvBn1d": lambda n: (n.Conv1d(2, 3, 1), n.BatchNorm1d(3)),
        "ConvBn2d": lambda n: (n.Conv2d(2, 3, 1, bias=False), n.BatchNorm2d(3)),
        "ConvBnReLU1d": lambda n: (n.Conv1d(2, 3, 1), n.BatchNorm1d(3), n.ReLU()),
        "ConvBnReLU2d": lambda n: (n.Conv2d(2, 3, 1), n.BatchNorm2d(3, momentum=0.3), n.ReLU()),
        "ConvReLU3d": lambda n: (n.Conv3d(2, 3, 3), n.ReLU()),
        "ConvBn3d": lambda n: (n.Conv3d(2, 3, 1, bias=False), n.BatchNorm3d(3)),
        "ConvBnReLU3d": lambda n: (n.Conv3d(2, 3, 1), n.BatchNorm3d(3), n.ReLU()),
        "BNReLU2d": lambda n: (n.BatchNorm2d(3), n.ReLU()),
        "BNReLU3d": lambda n: (n.BatchNorm3d(3), n.ReLU()),
        "LinearBn1d": lambda n: (n.Linear(2, 3), n.BatchNorm1d(3)),
    }
    for name, args in builders.items():
        t = getattr(tnni, name)(*args(torch.nn))
        e = getattr(enni, name)(*args(enn))
        assert repr(e) == repr(t)
        assert list(e.state_dict().keys()) == list(t.state_dict().keys())
        assert isinstance(e, enn.Sequential) and isinstance(e, enni._FusedModule)
        assert type(e).__module__ == "ember.ao.nn.intrinsic.modules.fused"
        assert type(e).__qualname__ == type(t).__qualname__
        assert len(e) == len(t)
        assert getattr(ember.ao.nn.intrinsic, name) is getattr(enni, name)
        # copies keep the class and the children
        for c in (copy.deepcopy(e), pickle.loads(pickle.dumps(e))):
            assert type(c) is type(e) and repr(c) == repr(e)
            assert list(c.state_dict().keys()) == list(e.state_dict().keys())
    # the children are the modules given (not copies)
    conv, relu = enn.Conv2d(1, 1, 1), enn.ReLU()
    f = enni.ConvReLU2d(conv, relu)
    assert f[0] is conv and f[1] is relu
    assert sorted(enni.__all__) == sorted(builders)


def test_fused_module_forward():
    torch.manual_seed(0)
    t = tnni.ConvBnReLU2d(torch.nn.Conv2d(2, 3, 3), torch.nn.BatchNorm2d(3), torch.nn.ReLU())
    e = enni.ConvBnReLU2d(enn.Conv2d(2, 3, 3), enn.BatchNorm2d(3), enn.ReLU())
    sync(e, t)
    x = torch.randn(2, 2, 5, 5)
    np.testing.assert_allclose(e(to_ember(x)).detach().numpy(), t(x).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert_same_state(e, t)  # the training-mode BatchNorm updated its running stats the same way


def test_inplace_and_copy_identity():
    t, e = make_pair([CONV2B, BN2, RELU])
    e.eval()
    orig_conv = e.conv
    out = fuse_modules(e, ["conv", "bn", "relu"], inplace=True)
    assert out is e
    assert type(e.conv).__name__ == "ConvReLU2d" and e.conv is not orig_conv
    t2, e2 = make_pair([CONV2B, BN2, RELU])
    e2.eval()
    conv2 = e2.conv
    out2 = fuse_modules(e2, ["conv", "bn", "relu"])
    assert out2 is not e2 and e2.conv is conv2 and type(e2.bn).__name__ == "BatchNorm2d"
    # QAT fusion in place keeps the very modules inside the container
    t3, e3 = make_pair([CONV2B, BN2, RELU])
    conv3, bn3, relu3 = e3.conv, e3.bn, e3.relu
    fuse_modules_qat(e3, ["conv", "bn", "relu"], inplace=True)
    assert e3.conv[0] is conv3 and e3.conv[1] is bn3 and e3.conv[2] is relu3


def test_identity_training_flag():
    for qat in (False, True):
        t, e = make_pair([CONV2B, BN2, RELU])
        if not qat:
            t.eval(), e.eval()
        tf = (tq.fuse_modules_qat if qat else tq.fuse_modules)(t, ["conv", "bn", "relu"])
        ef = (fuse_modules_qat if qat else fuse_modules)(e, ["conv", "bn", "relu"])
        assert ef.bn.training is tf.bn.training is qat
        assert ef.relu.training is tf.relu.training is qat


def build_net(self, nn):
    if True:
        self.quant = nn.Identity()
        self.block = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU())
        self.sub = nn.Module()
        self.sub.conv = nn.Conv2d(4, 4, 1)
        self.sub.relu = nn.ReLU()
        self.fc = nn.Linear(4, 2)
        self.bn1 = nn.BatchNorm1d(2)


class TNet(torch.nn.Module):
    def __init__(self, nn):
        super().__init__()
        build_net(self, nn)


class ENet(enn.Module):
    def __init__(self, nn):
        super().__init__()
        build_net(self, nn)


def test_nested_names_and_list_of_lists():
    t, e = TNet(torch.nn).eval(), ENet(enn).eval()
    randomize_bn(t.block[1], 3)
    randomize_bn(t.bn1, 4)
    sync(e, t)
    groups = [["block.0", "block.1", "block.2"], ["sub.conv", "sub.relu"], ["fc", "bn1"]]
    tf, ef = tq.fuse_modules(t, groups), fuse_modules(e, groups)
    assert structure(ef)[1:] == structure(tf)[1:]
    assert_same_state(ef, tf)
    assert type(ef) is ENet
    with pytest.raises(AttributeError) as ee:
        fuse_modules(e, ["sub.nope", "sub.relu"])
    with pytest.raises(AttributeError) as te:
        tq.fuse_modules(t, ["sub.nope", "sub.relu"])
    assert str(ee.value) == str(te.value).replace("torch", "ember")


def test_hooks_moved_as_torch():
    def run(lib, nn, fuse, names):
        calls = []
        m = nn.Sequential()
        m.conv, m.bn, m.relu = nn.Conv2d(2, 2, 1), nn.BatchNorm2d(2), nn.ReLU()
        if "relu" not in names:
            del m.relu
        if "bn" not in names:
            del m.bn
        m.eval()
        m.conv.register_forward_pre_hook(lambda mod, i: calls.append(("pre", type(mod).__name__)))
        getattr(m, names[-1]).register_forward_hook(
            lambda mod, i, o: calls.append(("post", type(mod).__name__)))
        f = fuse(m, names)
        f(lib.randn(1, 2, 3, 3))
        return calls, f

    for names in (["conv", "bn"], ["conv", "bn", "relu"], ["conv", "relu"]):
        tc, tf = run(torch, torch.nn, tq.fuse_modules, names)
        ec, ef = run(ember, enn, fuse_modules, names)
        assert ec == tc, names
        # the originals lose the moved hooks (inplace=True)
    calls = []
    m = enn.Sequential(enn.Conv2d(1, 1, 1), enn.ReLU()).eval()
    m[0].register_forward_pre_hook(lambda *a: calls.append("pre1"))
    m[0].register_forward_pre_hook(lambda *a: calls.append("pre2"))  # 1.13 fails on two
    m[1].register_forward_hook(lambda *a: calls.append("post"))
    first = m[0]
    fuse_modules(m, ["0", "1"], inplace=True)
    m(ember.randn(1, 1, 2, 2))
    assert calls == ["pre1", "pre2", "post"]
    assert not first.__dict__.get("_forward_pre_hooks")


def test_fuser_func_and_custom_config():
    seen = []

    def my_fuser(mod_list, is_qat, additional_fuser_method_mapping=None):
        seen.append(([type(m).__name__ for m in mod_list], is_qat))
        return fuse_known_modules(mod_list, is_qat, additional_fuser_method_mapping)

    m = enn.Sequential(enn.Conv2d(1, 2, 1), enn.ReLU()).eval()
    f = fuse_modules(m, ["0", "1"], fuser_func=my_fuser)
    assert seen == [(["Conv2d", "ReLU"], False)] and type(f[0]).__name__ == "ConvReLU2d"

    def relu6_fuser(is_qat, conv, relu6):
        return enni.ConvReLU2d(conv, enn.ReLU())

    m = enn.Sequential(enn.Conv2d(1, 2, 1), enn.ReLU6()).eval()
    cfg = {"additional_fuser_method_mapping": {(enn.Conv2d, enn.ReLU6): relu6_fuser}}
    f = fuse_modules_qat(m, ["0", "1"], fuse_custom_config_dict=cfg)
    assert type(f[0]).__name__ == "ConvReLU2d" and type(f[1]).__name__ == "Identity"
    assert efm.get_fuser_method((enn.Conv2d, enn.ReLU6), cfg["additional_fuser_method_mapping"]) is relu6_fuser
    assert efm.get_fuser_method((enn.Conv2d, enn.BatchNorm2d)) is efm.fuse_conv_bn


def test_fuser_methods_direct():
    conv, bn = enn.Conv2d(2, 3, 1), enn.BatchNorm2d(3)
    fused = efm.fuse_conv_bn(True, conv, bn)
    assert type(fused) is enni.ConvBn2d and fused[0] is conv and fused[1] is bn
    conv.eval(), bn.eval()
    folded = efm.fuse_conv_bn(False, conv, bn)
    assert type(folded) is enn.Conv2d and folded is not conv
    out = fuse_known_modules([conv, bn], False)
    assert type(out[0]) is enn.Conv2d and type(out[1]) is enn.Identity and len(out) == 2
    lin, bn1 = enn.Linear(2, 3), enn.BatchNorm1d(3)
    assert type(efm.fuse_linear_bn(True, lin, bn1)) is enni.LinearBn1d


def test_cpp_model_and_python_subclass():
    import ember.vision.models as evm
    import torchvision.models as tvm
    for build_e, build_t in ((lambda: evm.resnet18(), lambda: tvm.resnet18()),):
        torch.manual_seed(0)
        t = build_t().eval()
        for i, mod in enumerate(t.modules()):
            if isinstance(mod, torch.nn.BatchNorm2d):
                randomize_bn(mod, i)
        e = build_e().eval()
        sync(e, t)
        groups = [["conv1", "bn1", "relu"], ["layer1.0.conv1", "layer1.0.bn1"],
                  ["layer1.0.conv2", "layer1.0.bn2"]]
        tf, ef = tq.fuse_modules(t, groups), fuse_modules(e, groups)
        assert structure(ef) == structure(tf)
        assert_same_state(ef, tf)
        x = torch.randn(1, 3, 32, 32)
        np.testing.assert_allclose(ef(to_ember(x)).detach().numpy(), tf(x).detach().numpy(), rtol=1e-4, atol=1e-4)
        assert type(e.conv1).__name__ == "Conv2d"  # the original is untouched

    class MyResNet(type(evm.resnet18())):
        pass

    import inspect  # noqa: F401
    sub = MyResNet.__new__(MyResNet)
    try:
        MyResNet.__init__(sub, evm.resnet.BasicBlock, [2, 2, 2, 2])
    except Exception:
        pytest.skip("ResNet is not subclassable with these arguments")
    sub.eval()
    f = fuse_modules(sub, [["conv1", "bn1", "relu"]])
    assert type(f) is MyResNet and type(f.conv1).__name__ == "ConvReLU2d"
    np.testing.assert_allclose(f(ember.ones(1, 3, 32, 32)).detach().numpy(), sub(ember.ones(1, 3, 32, 32)).detach().numpy(),
                               rtol=1e-4, atol=1e-4)
