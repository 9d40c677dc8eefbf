"""ember.vision.models against torchvision 0.14 (Debian's python3-torchvision): state_dict keys
and shapes, reprs, eval outputs and a training-mode step's running statistics for the same
weights; Python blocks and subclasses."""
import numpy as np
import pytest
import torch

import ember
import ember.nn as enn
from ember.vision import models as emodels

torchvision = pytest.importorskip("torchvision")


def E(t):
    return ember.from_numpy(t.detach().numpy().copy())


def load_from_torch(e_mod, t_mod):
    result = e_mod.load_state_dict({k: E(v) for k, v in t_mod.state_dict().items()})
    assert not result.missing_keys and not result.unexpected_keys


def shapes(sd):
    return [(k, tuple(v.shape)) for k, v in sd.items()]


@pytest.mark.parametrize("name", ["mobilenet_v2", "resnet18"])
def test_model_matches_torchvision(name):
    torch.manual_seed(0)
    t = getattr(torchvision.models, name)()
    e = getattr(emodels, name)()
    assert shapes(e.state_dict()) == shapes(t.state_dict())
    assert repr(e) == repr(t)
    # Non-trivial running statistics, so that eval mode really uses them.
    t.train()
    with torch.no_grad():
        for _ in range(2):
            t(torch.randn(2, 3, 64, 64))
    load_from_torch(e, t)
    x = torch.randn(1, 3, 224, 224)
    e.eval()
    t.eval()
    with torch.no_grad():
        ty = t(x)
    ey = e(E(x))
    assert tuple(ey.shape) == (1, 1000)
    np.testing.assert_allclose(ey.detach().numpy(), ty.numpy(), rtol=1e-4, atol=1e-4)

    # One training-mode forward: the outputs and every running statistic after it.
    e.train()
    t.train()
    for m in list(e.modules()) + list(t.modules()):  # dropout draws differ between the two
        if type(m).__name__ == "Dropout":
            m.eval()
    x2 = torch.randn(2, 3, 96, 96)
    with torch.no_grad():
        ty = t(x2)
    ey = e(E(x2))
    np.testing.assert_allclose(ey.detach().numpy(), ty.numpy(), rtol=1e-4, atol=1e-4)
    esd = e.state_dict()
    for k, v in t.state_dict().items():
        if k.endswith(("running_mean", "running_var", "num_batches_tracked")):
            np.testing.assert_allclose(esd[k].numpy(), v.numpy(), rtol=1e-4, atol=1e-5,
                                       err_msg=k)


@pytest.mark.parametrize("ctor", [
    "mobilenet_v2(num_classes=10, width_mult=0.5)",
    "mobilenet_v2(round_nearest=4, dropout=0.5)",
    "MobileNetV2(inverted_residual_setting=[[1, 16, 1, 1], [6, 24, 2, 2]])",
    "resnet34(num_classes=7)",
    "resnet50()",
    "ResNet(BasicBlock, [1, 1, 1, 1], replace_stride_with_dilation=None, width_per_group=64)",
    "ResNet(Bottleneck, [1, 1, 1, 1], groups=2, width_per_group=32)",
    "ResNet(Bottleneck, [1, 1, 1, 1], replace_stride_with_dilation=[False, True, True])",
])
def test_constructor_arguments_as_torchvision(ctor):
    e = eval(ctor, dict(vars(emodels)))
    t = eval(ctor, {**vars(torchvision.models.resnet), **vars(torchvision.models)})
    assert shapes(e.state_dict()) == shapes(t.state_dict())
    assert repr(e) == repr(t)


def test_building_blocks_as_torchvision():
    from torchvision.models.mobilenetv2 import InvertedResidual as TIR
    from torchvision.models.resnet import BasicBlock as TBB, Bottleneck as TBN
    from torchvision.ops.misc import Conv2dNormActivation as TCNA
    from ember.vision.ops import Conv2dNormActivation
    pairs = [
        (emodels.InvertedResidual(16, 16, 1, 6), TIR(16, 16, 1, 6)),
        (emodels.InvertedResidual(16, 24, 2, 1), TIR(16, 24, 2, 1)),
        (emodels.BasicBlock(8, 8), TBB(8, 8)),
        (emodels.Bottleneck(16, 4), TBN(16, 4)),
        (Conv2dNormActivation(3, 8, 3, 2), TCNA(3, 8, 3, 2)),
        (Conv2dNormActivation(3, 8, 1, norm_layer=None, activation_layer=enn.ReLU6),
         TCNA(3, 8, 1, norm_layer=None, activation_layer=torch.nn.ReLU6)),
        (Conv2dNormActivation(4, 8, 3, groups=4, activation_layer=None, bias=True),
         TCNA(4, 8, 3, groups=4, activation_layer=None, bias=True)),
    ]
    for e, t in pairs:
        assert repr(e) == repr(t)
        assert shapes(e.state_dict()) == shapes(t.state_dict())
    ir = pairs[0][0]
    assert ir.use_res_connect and ir.stride == 1 and ir.out_channels == 16
    assert emodels.BasicBlock.expansion == 1 and emodels.Bottleneck.expansion == 4
    assert emodels.BasicBlock(8, 8).downsample is None
    down = enn.Sequential(enn.Conv2d(8, 16, 1, 2, bias=False), enn.BatchNorm2d(16))
    blk = emodels.BasicBlock(8, 16, 2, down)
    assert blk.downsample is down
    with pytest.raises(ValueError, match="stride should be 1 or 2 instead of 3"):
        emodels.InvertedResidual(4, 4, 3, 1)
    with pytest.raises(ValueError, match="inverted_residual_setting should be non-empty"):
        emodels.MobileNetV2(inverted_residual_setting=[[1, 2]])
    with pytest.raises(NotImplementedError):
        emodels.resnet18(weights="IMAGENET1K_V1")


def test_python_norm_layer_block_and_subclass():
    import functools
    made = []

    def norm(n):
        made.append(n)
        return enn.BatchNorm2d(n, eps=1e-3)

    net = emodels.mobilenet_v2(num_classes=4, norm_layer=norm)
    t = torchvision.models.mobilenet_v2(
        num_classes=4, norm_layer=functools.partial(torch.nn.BatchNorm2d, eps=1e-3))
    assert repr(net) == repr(t) and made

    calls = []

    class CountingBlock(emodels.InvertedResidual):
        def forward(self, x):
            calls.append(1)
            return super().forward(x)

    net = emodels.MobileNetV2(num_classes=3, block=CountingBlock)
    assert "(1): CountingBlock(" in repr(net)
    assert type(net.features[1]) is CountingBlock
    net.eval()
    y = net(ember.randn(1, 3, 32, 32))
    assert tuple(y.shape) == (1, 3) and len(calls) == 17

    class MyResNet(emodels.ResNet):
        def forward(self, x):
            return super().forward(x) * 0

    r = MyResNet(emodels.BasicBlock, [1, 1, 1, 1], num_classes=5)
    assert repr(r).startswith("MyResNet(")
    r.eval()
    assert float(r(ember.randn(1, 3, 32, 32)).abs().sum().item()) == 0.0

    class MyBlock(emodels.BasicBlock):
        pass

    r2 = emodels.ResNet(MyBlock, [1, 1, 1, 1], num_classes=5)
    assert type(r2.layer2[0]) is MyBlock and r2.layer2[0].downsample is not None
    tr = torchvision.models.ResNet(torchvision.models.resnet.BasicBlock, [1, 1, 1, 1], num_classes=5)
    assert shapes(r2.state_dict()) == shapes(tr.state_dict())
