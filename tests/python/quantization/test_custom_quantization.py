"""The custom-quantization notebook's code (examples/python/custom_quantization.py) against
torchvision 0.14's own quantizable MobileNetV2 on torch 1.13, built from the same float weights
and calibrated on the same inputs: the same module tree before and after convert, 248 keys, the
same scales and zero points, bit for bit, on every observer but the classifier's (ember's float
convolutions take torch 1.13's paths, Note [Torch's float convolution paths]; the classifier's
input is a float mean and its output an addmm, which ember sums in another order than torch's
OpenBLAS, see docs/quantization.md), bit-identical int8 logits on the qnnpack engine (after
torch's observer statistics are loaded through the prepared model's state_dict, which covers the
classifier). Also ember's own ember.vision.models.quantization builders against torchvision's."""
import collections
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
tv_quant = pytest.importorskip("torchvision.models.quantization")
import torch.ao.quantization as tq  # noqa: E402

import ember  # noqa: E402
import ember.ao.quantization as eq  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "python" / "custom_quantization.py"


def load_example():
    spec = importlib.util.spec_from_file_location("custom_quantization_example", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(autouse=True)
def qnnpack():
    old_t, old_e = torch.backends.quantized.engine, ember.backends.quantized.engine
    torch.backends.quantized.engine = "qnnpack"
    ember.backends.quantized.engine = "qnnpack"
    yield
    torch.backends.quantized.engine = old_t
    ember.backends.quantized.engine = old_e


# torch 1.13 picks its float convolution kernels by its thread count, and ember takes the ones
# torch takes at one thread, its default on this 2-core machine (Note [Torch's float convolution
# paths]); other tests in the session may have changed torch's count, so calibration pins it.
TORCH_THREADS = 1


def to_ember_sd(sd):
    out = collections.OrderedDict()
    for k, v in sd.items():
        out[k] = ember.from_numpy(v.detach().numpy().copy())
    return out


def torch_float_model(seed=0):
    """torchvision's quantizable MobileNetV2 (float), its BatchNorm statistics recalibrated on noise
    so that a random network's activations do not collapse (as tests/python/quantized does)."""
    torch.manual_seed(seed)
    model = tv_quant.mobilenet_v2(weights=None, quantize=False)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.momentum = None
            m.reset_running_stats()
    model.train()
    with torch.no_grad():
        for _ in range(3):
            model(torch.rand(4, 3, 96, 96) * 2 - 1)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.momentum = 0.1
    return model.eval()


def inputs(n, seed):
    rng = np.random.default_rng(seed)
    xs = [(rng.random((1, 3, 224, 224), dtype=np.float32) * 2 - 1) for _ in range(n)]
    return [torch.from_numpy(x) for x in xs], [ember.from_numpy(x.copy()) for x in xs]


def observers(model):
    return [(n, m) for n, m in model.named_modules() if n.endswith("activation_post_process")]


def ember_repr(text):
    return text.replace("torch.", "ember.")


@pytest.fixture(scope="module")
def flow():
    """Both models through fuse, prepare, calibrate; converted copies alongside."""
    old_t, old_e = torch.backends.quantized.engine, ember.backends.quantized.engine
    old_threads = torch.get_num_threads()
    torch.set_num_threads(TORCH_THREADS)
    torch.backends.quantized.engine = "qnnpack"
    ember.backends.quantized.engine = "qnnpack"
    try:
        cq = load_example()
        tmodel = torch_float_model()
        emodel = cq.mobilenet_v2(pretrained=False, quantize=False)
        float_keys = (list(emodel.state_dict()), list(tmodel.state_dict()))
        emodel.load_state_dict(to_ember_sd(tmodel.state_dict()))
        emodel.eval()
        float_reprs = (repr(emodel), repr(tmodel))
        tmodel.fuse_model()
        emodel.fuse_model(False)
        fused_reprs = (repr(emodel), repr(tmodel))
        tmodel.qconfig = tq.QConfig(activation=tq.default_observer,
                                    weight=tq.default_weight_observer)
        emodel.qconfig = eq.QConfig(activation=eq.default_observer,
                                    weight=eq.default_weight_observer)
        tq.prepare(tmodel, inplace=True)
        eq.prepare(emodel, inplace=True)
        prepared_obs = ([n for n, _ in observers(emodel)], [n for n, _ in observers(tmodel)])
        txs, exs = inputs(3, seed=1)
        with torch.no_grad():
            for tx, ex in zip(txs, exs):
                tmodel(tx)
                emodel(ex)
        qparams = [(n, e.calculate_qparams(), t.calculate_qparams())
                   for (n, e), (_, t) in zip(observers(emodel), observers(tmodel))]
        # The observers' statistics are buffers: the prepared models' state_dicts have the same
        # keys, and torch's loads into ember's. Calibration agrees bit for bit except the
        # classifier's observer (test_observers_and_their_qparams); with torch's statistics
        # loaded, convert must give the same int8 model bit for bit.
        prepared_keys = (list(emodel.state_dict()), list(tmodel.state_dict()))
        emodel.load_state_dict(to_ember_sd(tmodel.state_dict()))
        tq.convert(tmodel, inplace=True)
        eq.convert(emodel, inplace=True)
        yield dict(cq=cq, t=tmodel, e=emodel, float_keys=float_keys, float_reprs=float_reprs,
                   fused_reprs=fused_reprs, prepared_obs=prepared_obs, qparams=qparams,
                   prepared_keys=prepared_keys)
    finally:
        torch.set_num_threads(old_threads)
        torch.backends.quantized.engine = old_t
        ember.backends.quantized.engine = old_e


def test_float_model_is_torchvisions(flow):
    ekeys, tkeys = flow["float_keys"]
    assert ekeys == tkeys
    erepr, trepr = flow["float_reprs"]
    assert erepr == ember_repr(trepr)


def test_fused_model_is_torchvisions(flow):
    erepr, trepr = flow["fused_reprs"]
    assert erepr == ember_repr(trepr)
    assert erepr.count("ConvReLU2d(") == 35


def test_observers_and_their_qparams(flow):
    enames, tnames = flow["prepared_obs"]
    assert enames == tnames and len(enames) == 71
    # Calibration computed the same float activations as torch: every observer's scale and
    # zero point are torch's bits, the classifier's too (its input is a mean in torch's sum
    # order, and the observed Linear multiplies as torch's addmm does: Note [Observed layers
    # take torch's path]).
    inexact = []
    for name, (es, ez), (ts, tz) in flow["qparams"]:
        assert np.allclose(es.numpy(), ts.numpy(), rtol=1e-5, atol=0), name
        assert np.abs(ez.numpy().astype(np.int64) - tz.numpy().astype(np.int64)).max() <= 1, name
        if not (np.array_equal(es.numpy(), ts.numpy()) and np.array_equal(ez.numpy(), tz.numpy())):
            inexact.append(name)
    assert inexact == [], inexact
    ekeys, tkeys = flow["prepared_keys"]
    assert ekeys == tkeys


def test_converted_tree_keys_and_values(flow):
    e, t = flow["e"], flow["t"]
    assert repr(e) == ember_repr(repr(t))
    esd, tsd = e.state_dict(), t.state_dict()
    assert len(esd) == len(tsd) == 248
    assert list(esd) == list(tsd)
    for k, tv in tsd.items():
        ev = esd[k]
        if isinstance(tv, tuple):  # the Linear's packed (weight, bias)
            assert np.array_equal(ev[0].int_repr().numpy(), tv[0].int_repr().numpy()), k
            assert np.array_equal(ev[1].detach().numpy(), tv[1].detach().numpy()), k
        elif isinstance(tv, torch.Tensor) and tv.is_quantized:
            assert np.array_equal(ev.int_repr().numpy(), tv.int_repr().numpy()), k
            assert ev.q_scale() == tv.q_scale(), k
        elif isinstance(tv, torch.Tensor):
            assert np.array_equal(ev.detach().numpy(), tv.detach().numpy()), k
        else:
            assert str(ev).replace("ember.", "torch.") == str(tv), k


def test_int8_logits_bit_identical_on_qnnpack(flow):
    e, t = flow["e"], flow["t"]
    txs, exs = inputs(2, seed=7)
    for tx, ex in zip(txs, exs):
        with torch.no_grad():
            tl = t(tx).numpy()
        el = e(ex).numpy()
        assert np.array_equal(el, tl)
        assert np.abs(tl).max() > 0  # not a collapsed network


def mask_qparams(text):
    return re.sub(r"(scale|zero_point)=[^,)\]]+", r"\1=*", text)


def test_ember_builders_match_torchvision_structure():
    from ember.vision.models.quantization import mobilenet_v2, resnet18
    emodel = mobilenet_v2(quantize=True)
    tmodel = tv_quant.mobilenet_v2(weights=None, quantize=True)
    assert list(emodel.state_dict()) == list(tmodel.state_dict())
    assert len(emodel.state_dict()) == 248
    assert mask_qparams(repr(emodel)) == mask_qparams(ember_repr(repr(tmodel)))
    ef = mobilenet_v2()
    tf = tv_quant.mobilenet_v2(weights=None)
    assert repr(ef) == ember_repr(repr(tf))
    assert list(ef.state_dict()) == list(tf.state_dict())
    er, tr = resnet18(), tv_quant.resnet18(weights=None)
    assert repr(er) == ember_repr(repr(tr))
    assert list(er.state_dict()) == list(tr.state_dict())
    er.eval().fuse_model()
    tr.eval().fuse_model()
    assert repr(er) == ember_repr(repr(tr))


def test_module_paths_as_the_notebook_imports_them():
    from ember.vision.ops.misc import ConvNormActivation, Conv2dNormActivation
    from ember.vision.models.mobilenetv2 import model_urls
    from ember.vision._internally_replaced_utils import load_state_dict_from_url
    assert ConvNormActivation is Conv2dNormActivation
    assert model_urls["mobilenet_v2"].endswith("mobilenet_v2-b0353104.pth")
    assert callable(load_state_dict_from_url)


def test_pretrained_quantized_weights_load_through_the_hub_cache(tmp_path, monkeypatch):
    """The notebook's `mobilenet_v2(pretrained=True, quantize=True)`: the builder asks
    load_state_dict_from_url for torchvision's qnnpack checkpoint URL; with that file already in
    `$EMBER_HOME/hub/checkpoints` (here written by torch 1.13 from its own converted model),
    nothing is downloaded and the int8 model computes torch's logits bit for bit."""
    from ember.vision.models.quantization import mobilenet_v2
    prev_t, prev_e = torch.backends.quantized.engine, ember.backends.quantized.engine
    try:
        torch.backends.quantized.engine = "qnnpack"
        torch.manual_seed(0)
        tmodel = tv_quant.mobilenet_v2(weights=None, quantize=True).eval()
        cache = tmp_path / "hub" / "checkpoints"
        cache.mkdir(parents=True)
        torch.save(tmodel.state_dict(), cache / "mobilenet_v2_qnnpack_37f702c5.pth")
        monkeypatch.setenv("EMBER_HOME", str(tmp_path))
        ember.backends.quantized.engine = "qnnpack"
        with pytest.warns(UserWarning, match="pretrained"):
            emodel = mobilenet_v2(pretrained=True, quantize=True)
        assert list(emodel.state_dict()) == list(tmodel.state_dict())
        x = np.random.default_rng(0).random((1, 3, 224, 224), dtype=np.float32)
        with torch.no_grad():
            want = tmodel(torch.from_numpy(x)).numpy()
        got = emodel.eval()(ember.from_numpy(x)).numpy()
        np.testing.assert_array_equal(got, want)
    finally:
        torch.backends.quantized.engine = prev_t
        ember.backends.quantized.engine = prev_e


def test_quantize_model_unknown_backend():
    from ember.vision.models.quantization import mobilenet_v2
    with pytest.raises(RuntimeError, match="Quantized backend not supported"):
        mobilenet_v2(quantize=True, backend="fbgemm")


def test_example_runs():
    # A bare environment, but a sanitizer run's preload and options pass through (`make
    # asan-python`: an ASan-built ember._C needs libasan first in the initial library list).
    sanitizer = {k: v for k, v in os.environ.items()
                 if k in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS")}
    done = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                          timeout=600, env={"PYTHONPATH": str(Path(ember.__file__).parents[1]),
                                            "PATH": "/usr/bin:/bin", **sanitizer})
    assert done.returncode == 0, done.stderr
    assert "observers after prepare: 71" in done.stdout
    assert "state_dict keys after convert: 248" in done.stdout
    assert "QuantizedConvReLU2d QuantizedLinear" in done.stdout


def test_histogram_calibration_gives_torchs_qparams():
    """The example's own recipe, get_default_qconfig("qnnpack") (HistogramObserver), with torch
    1.13's histogram range truncation switched on: after the same calibration every observer but
    the classifier's has torch's scale and zero point bit for bit (the L2 search compares float
    sums, which ember adds in torch's order: Note [torch's float sum])."""
    old_threads = torch.get_num_threads()
    torch.set_num_threads(TORCH_THREADS)
    try:
        histogram_calibration()
    finally:
        torch.set_num_threads(old_threads)


def histogram_calibration():
    cq = load_example()
    tmodel = torch_float_model()
    emodel = cq.mobilenet_v2(pretrained=False, quantize=False)
    emodel.load_state_dict(to_ember_sd(tmodel.state_dict()))
    emodel.eval()
    tmodel.fuse_model()
    emodel.fuse_model(False)
    eq.set_histogram_observer_truncation(True)
    try:
        tmodel.qconfig = tq.get_default_qconfig("qnnpack")
        emodel.qconfig = eq.get_default_qconfig("qnnpack")
        tq.prepare(tmodel, inplace=True)
        eq.prepare(emodel, inplace=True)
    finally:
        eq.set_histogram_observer_truncation(False)
    txs, exs = inputs(2, seed=3)
    with torch.no_grad():
        for tx, ex in zip(txs, exs):
            tmodel(tx)
            emodel(ex)
    inexact = []
    pairs = list(zip(observers(emodel), observers(tmodel)))
    assert len(pairs) == 71
    for (name, e), (_, t) in pairs:
        assert type(e).__name__ == type(t).__name__ == "HistogramObserver"
        (es, ez), (ts, tz) = e.calculate_qparams(), t.calculate_qparams()
        assert np.allclose(es.numpy(), ts.numpy(), rtol=1e-5, atol=0), name
        if not (np.array_equal(es.numpy(), ts.numpy()) and np.array_equal(ez.numpy(), tz.numpy())):
            inexact.append(name)
    assert inexact == [], inexact
