"""What the int8 benchmarks rely on (benchmarks/bench_qmodels.py, bench_qworkflow.py):

- a model converted on the qnnpack engine, deep-copied while the fast engine (x86) is active,
  computes with the fast engine's formula: the copy's convs equal convs prepacked under x86 bit
  for bit, and torch's onednn engine within its tolerance, on depthwise, stride-2, 1x1 and odd
  shapes, NCHW and channels_last inputs, and an empty batch; the original keeps qnnpack's
  numbers (torch's qnnpack bit for bit);
- ember's own quantizable MobileNetV2 (a C++ module tree made by prepare / convert) with torch's
  converted state_dict gives the same logits as the Python-built twin, bit for bit, on the fast
  engine and on qnnpack.
"""
import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.intrinsic.quantized  # noqa: E402,F401  (registers torch.nn.intrinsic.quantized)

import ember  # noqa: E402
import ember.ao.nn.quantized as ennq  # noqa: E402
import ember.ao.nn.intrinsic.quantized as enniq  # noqa: E402

from qconv_helpers import assert_codes_match, codes, engine, quantize_both  # noqa: E402

SHAPES = [  # (in, out, kernel, stride, padding, groups, batch, h, w, relu)
    (16, 16, 3, 1, 1, 16, 1, 12, 9, True),   # depthwise
    (24, 24, 3, 2, 1, 24, 2, 11, 13, False),  # depthwise, stride 2
    (8, 20, 1, 1, 0, 1, 1, 7, 7, True),      # 1x1
    (5, 7, (3, 2), (2, 1), (1, 0), 1, 1, 9, 6, False),  # odd
    (6, 6, 3, 1, 1, 6, 0, 5, 5, True),       # empty batch
]


def ember_and_torch_conv(shape, seed):
    cin, cout, k, s, p, g, _, _, _, relu = shape
    rng = np.random.default_rng(seed)
    ecls = enniq.ConvReLU2d if relu else ennq.Conv2d
    tcls = torch.nn.intrinsic.quantized.ConvReLU2d if relu else torch.nn.quantized.Conv2d
    e = ecls(cin, cout, k, stride=s, padding=p, groups=g)
    t = tcls(cin, cout, k, stride=s, padding=p, groups=g)
    kh, kw = (k, k) if isinstance(k, int) else k
    w = rng.uniform(-1, 1, (cout, cin // g, kh, kw)).astype(np.float32)
    b = rng.uniform(-1, 1, cout).astype(np.float32)
    scales = rng.uniform(0.004, 0.01, cout)
    we = ember.quantize_per_channel(ember.from_numpy(w), ember.from_numpy(scales),
                                    ember.from_numpy(np.zeros(cout, np.int64)), 0, ember.qint8)
    wt = torch.quantize_per_channel(torch.from_numpy(w), torch.from_numpy(scales),
                                    torch.zeros(cout, dtype=torch.int64), 0, torch.qint8)
    e.set_weight_bias(we, ember.from_numpy(b))
    t.set_weight_bias(wt, torch.from_numpy(b))
    e.scale = t.scale = 0.04
    e.zero_point = t.zero_point = 60
    return e, t


@pytest.mark.parametrize("channels_last", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s[:6])))
def test_deepcopy_under_x86_runs_the_fast_engine(shape, channels_last):
    n, h, w = shape[6:9]
    x = np.random.default_rng(3).uniform(-1, 2, (n, shape[0], h, w)).astype(np.float32)
    with engine("qnnpack"):
        e_q, t_q = ember_and_torch_conv(shape, 1)
        # (An empty batch quantizes to NCHW strides in both libraries, whatever the input's.)
        xe, xt = quantize_both(x, 0.02, 40, "quint8", channels_last and n > 0)
        y_q = e_q(xe)
        assert_codes_match(y_q, t_q(xt), "qnnpack")
    with engine("onednn"):
        e_fast = copy.deepcopy(e_q)  # re-packed for the engine active now
        e_direct, t_onednn = ember_and_torch_conv(shape, 1)  # prepacked under onednn
        y_fast = e_fast(xe)
        np.testing.assert_array_equal(codes(y_fast), codes(e_direct(xe)))
        assert_codes_match(y_fast, t_onednn(xt), "onednn")
        # The original keeps the formula it was packed for, whatever engine is active.
        np.testing.assert_array_equal(codes(e_q(xe)), codes(y_q))


def test_deepcopy_under_x86_changes_the_formula():
    """On a larger conv the two formulas differ on some outputs (~0.1%, as torch's two engines
    do): the x86 copy gives the onednn formula's codes there, the original qnnpack's."""
    shape = (32, 32, 3, 1, 1, 1, 2, 24, 24, False)
    x = np.random.default_rng(5).uniform(-1, 2, (2, 32, 24, 24)).astype(np.float32)
    with engine("qnnpack"):
        e_q, t_q = ember_and_torch_conv(shape, 2)
        xe, xt = quantize_both(x, 0.02, 40, "quint8")
        y_q = codes(e_q(xe))
        np.testing.assert_array_equal(y_q, codes(t_q(xt)))
    with engine("onednn"):
        e_fast = copy.deepcopy(e_q)
        _, t_onednn = ember_and_torch_conv(shape, 2)
        y_fast = e_fast(xe)
        assert_codes_match(y_fast, t_onednn(xt), "onednn")
    assert (codes(y_fast) != y_q).sum() > 0


@pytest.mark.parametrize("engine_name", ["onednn", "qnnpack"])
def test_converted_cpp_tree_equals_python_twin(engine_name):
    pytest.importorskip("torchvision")
    import mobilenet_port as port
    import ember.ao.quantization as eq
    from ember.vision.models.quantization import mobilenet_v2

    prev_t, prev_e = torch.backends.quantized.engine, ember.backends.quantized.engine
    try:
        tmodel = port.torch_int8_mobilenet(engine_name, calibration_batches=1)
        ember.backends.quantized.engine = "qnnpack" if engine_name == "qnnpack" else "x86"
        twin = port.ember_twin(tmodel)
        tree = mobilenet_v2(weights=None, quantize=False).eval()
        tree.fuse_model(False)
        tree.qconfig = eq.get_default_qconfig("qnnpack" if engine_name == "qnnpack" else "x86")
        eq.prepare(tree, inplace=True)
        with ember.no_grad():
            tree(ember.rand(1, 3, 64, 64))
        eq.convert(tree, inplace=True)
        tree.load_state_dict(port.state_dict_to_ember(tmodel.state_dict()))
        _, ex = port.same_input(seed=4, size=96)
        with ember.no_grad():
            a, b = twin(ex), tree(ex)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert float(a.abs().max()) > 0  # not an all-zero network
    finally:
        torch.backends.quantized.engine = prev_t
        ember.backends.quantized.engine = prev_e
