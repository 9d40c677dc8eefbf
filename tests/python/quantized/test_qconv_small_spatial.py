"""Regression: a 1x1 int8 convolution over a 6x6 map (MobileNetV2's block 7 on a 96x96 image)
corrupted the heap: oneDNN 2.6's AMX 1x1 kernel, tried while choosing the fastest implementation,
wrote past its buffers (Note [Choosing among oneDNN's int8 implementations]). Runs the shapes of
a 96x96 MobileNetV2's pointwise and depthwise layers on both engines and checks the codes against
torch 1.13 on qnnpack."""
import numpy as np
import pytest

import ember
import ember.ao.nn.quantized as nnq

torch = pytest.importorskip("torch")


def _pair(C, O, H, k, groups, stride, seed):
    g = np.random.default_rng(seed)
    x = g.random((2, C, H, H), dtype=np.float32)
    w = g.standard_normal((O, C // groups, k, k)).astype(np.float32)
    b = g.standard_normal(O).astype(np.float32)
    return x, w, b


@pytest.mark.parametrize("engine", ["qnnpack", "x86"])
@pytest.mark.parametrize("C,O,H,k,groups,stride", [
    (64, 64, 6, 1, 1, 1), (192, 64, 6, 1, 1, 1), (192, 16, 6, 1, 1, 1), (64, 384, 6, 1, 1, 1),
    (384, 384, 6, 3, 384, 1), (960, 960, 3, 3, 960, 1), (576, 160, 3, 1, 1, 1),
    (160, 960, 3, 1, 1, 1), (320, 1280, 3, 1, 1, 1), (32, 32, 5, 1, 1, 1),
])
def test_small_spatial_convs_run_and_match(engine, C, O, H, k, groups, stride):
    x, w, b = _pair(C, O, H, k, groups, stride, seed=C * 7 + O + H)
    ember.backends.quantized.engine = engine
    qx = ember.quantize_per_tensor(ember.from_numpy(x), 0.05, 3, ember.quint8)
    qw = ember.quantize_per_tensor(ember.from_numpy(w), 0.02, 0, ember.qint8)
    m = nnq.Conv2d(C, O, k, stride=stride, padding=k // 2, groups=groups)
    m.set_weight_bias(qw, ember.from_numpy(b))
    m.scale, m.zero_point = 0.06, 65
    for _ in range(3):  # a fresh primitive, then the cached one
        y = m(qx)
    if engine != "qnnpack":
        assert tuple(y.shape) == (2, O, H, H)
        return
    torch.backends.quantized.engine = "qnnpack"
    tm = torch.ao.nn.quantized.Conv2d(C, O, k, stride=stride, padding=k // 2, groups=groups)
    tm.set_weight_bias(torch.quantize_per_tensor(torch.from_numpy(w), 0.02, 0, torch.qint8),
                       torch.from_numpy(b))
    tm.scale, tm.zero_point = 0.06, 65
    ty = tm(torch.quantize_per_tensor(torch.from_numpy(x), 0.05, 3, torch.quint8))
    np.testing.assert_array_equal(y.int_repr().numpy(), ty.int_repr().numpy())
