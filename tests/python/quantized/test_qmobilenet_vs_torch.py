"""End to end: an int8 MobileNetV2 converted by torch 1.13 runs in ember with the same logits.

On the qnnpack engine every block's output codes and the logits are equal bit for bit (spec
§ 7.2: the method of the numpy re-derivation, here with ember's kernels). On the fast engine the
formulas are oneDNN's, whose ±1 differences compound through the network (spec § 7.6), so the
first block is compared within one code and the logits loosely.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchvision")

import ember  # noqa: E402

import mobilenet_port as port  # noqa: E402


def block_outputs(model, features, x):
    outs = []
    hooks = [f.register_forward_hook(lambda m, i, o: outs.append(o)) for f in features]
    try:
        logits = model(x)
    finally:
        for h in hooks:
            h.remove()
    return logits, outs


@pytest.fixture(scope="module")
def qnnpack_pair():
    prev_t, prev_e = torch.backends.quantized.engine, ember.backends.quantized.engine
    tmodel = port.torch_int8_mobilenet("qnnpack")
    ember.backends.quantized.engine = "qnnpack"
    try:
        yield tmodel, port.ember_twin(tmodel)
    finally:
        torch.backends.quantized.engine = prev_t
        ember.backends.quantized.engine = prev_e


@pytest.mark.parametrize("seed", [1, 2])
def test_qnnpack_logits_bit_exact_block_by_block(qnnpack_pair, seed):
    tmodel, emodel = qnnpack_pair
    tx, ex = port.same_input(seed)
    with torch.no_grad():
        tl, touts = block_outputs(tmodel, list(tmodel.features), tx)
    el, eouts = block_outputs(emodel, list(emodel.features), ex)
    assert len(touts) == len(eouts) == 19
    for i, (t, e) in enumerate(zip(touts, eouts)):
        assert e.is_quantized and e.dtype == ember.quint8, i
        assert (e.q_scale(), e.q_zero_point()) == (t.q_scale(), t.q_zero_point()), i
        assert e.shape == tuple(t.shape), i
        np.testing.assert_array_equal(e.int_repr().numpy(), t.int_repr().numpy(), err_msg=f"features.{i}")
    assert np.abs(tl.numpy()).max() > 0  # a collapsed network would compare zeros
    np.testing.assert_array_equal(el.numpy(), tl.numpy())


def test_qnnpack_state_dict_round_trip(qnnpack_pair):
    tmodel, emodel = qnnpack_pair
    sd = emodel.state_dict()
    tsd = tmodel.state_dict()
    assert list(sd.keys()) == list(tsd.keys())
    assert len(sd) == 248


def test_fast_engine_close_to_torch_onednn():
    prev_t, prev_e = torch.backends.quantized.engine, ember.backends.quantized.engine
    try:
        tmodel = port.torch_int8_mobilenet("onednn")
        ember.backends.quantized.engine = "onednn"
        emodel = port.ember_twin(tmodel)
        tx, ex = port.same_input(3)
        with torch.no_grad():
            tl, touts = block_outputs(tmodel, list(tmodel.features), tx)
        el, eouts = block_outputs(emodel, list(emodel.features), ex)
        first = eouts[0].int_repr().numpy().astype(int) - touts[0].int_repr().numpy().astype(int)
        assert np.abs(first).max() <= 1
        assert (first != 0).mean() < 1e-3
        scale = float(np.abs(tl.numpy()).max())
        assert np.abs(el.numpy() - tl.numpy()).max() <= 0.25 * scale
    finally:
        torch.backends.quantized.engine = prev_t
        ember.backends.quantized.engine = prev_e
