"""The dynamic quantized recurrent modules (nn.quantized.dynamic.LSTM / GRU / LSTMCell / GRUCell /
RNNCell), their ops (quantized::make_quantized_cell_params_dynamic, quantized_*_cell_dynamic)
and ember.quantized_lstm / quantized_gru against torch 1.13 on the qnnpack engine: state_dicts
written by torch load into ember's modules and give bit-identical outputs; quantize_dynamic of
the same float model gives the same modules; reprs, state_dict layout, errors, copies."""
import copy
import pickle

import numpy as np
import pytest
import torch
import torch.ao.nn.quantized.dynamic as tnnqd

import ember
import ember.nn.quantized.dynamic as nnqd
from ember.utils._python_dispatch import TorchDispatchMode

from qmodules_util import tensor_to_ember, value_to_ember


@pytest.fixture(autouse=True)
def qnnpack():
    old_t, old_e = torch.backends.quantized.engine, ember.backends.quantized.engine
    torch.backends.quantized.engine = "qnnpack"
    ember.backends.quantized.engine = "qnnpack"
    yield
    torch.backends.quantized.engine = old_t
    ember.backends.quantized.engine = old_e


def linear_to_ember(p):
    w, b = p.__getstate__()[0]
    return ember.ops.quantized.linear_prepack(tensor_to_ember(w), tensor_to_ember(b))


def obj_to_ember(o):
    """A torch LinearPackedParamsBase / CellParamsBase ScriptObject as ember's."""
    state, cls = o.__getstate__()
    if cls.endswith("LinearPackedParamsBase"):
        return linear_to_ember(o)
    kind, tensors, _doubles, longs, packed = state
    assert kind == "quantized_dynamic"
    return ember.ops.quantized.make_quantized_cell_params_dynamic(
        linear_to_ember(packed[0]), linear_to_ember(packed[1]), tensor_to_ember(tensors[0]),
        tensor_to_ember(tensors[1]), bool(longs[0]))


def sd_to_ember(sd):
    out = type(sd)()
    for k, v in sd.items():
        out[k] = obj_to_ember(v) if isinstance(v, torch.ScriptObject) else value_to_ember(v)
    out._metadata = type(sd._metadata)((k, dict(v)) for k, v in sd._metadata.items())
    return out


def same(e, t):
    """Bit for bit (the integer parts: quantized weights, linear_dynamic)."""
    e, t = e.detach().numpy(), t.detach().numpy()
    return e.shape == t.shape and e.dtype == t.dtype and np.array_equal(e, t)


MAX_DIFF = []


def close(e, t):
    """The recurrent outputs: the gates are float sigmoid / tanh, which torch computes with
    Sleef's vector functions and ember with its own, so their last bits can differ (and a
    hidden state one ulp off can move the next step's dynamic input scale); everything else is
    the same integer and float arithmetic in the same order. Measured: most outputs within
    1.2e-7, a moved scale up to 3.3e-4 (2-layer bidirectional, 50 steps)."""
    e, t = e.detach().numpy(), t.detach().numpy()
    if e.shape != t.shape or e.dtype != t.dtype:
        return False
    MAX_DIFF.append(float(np.abs(e - t).max()) if e.size else 0.0)
    return np.allclose(e, t, rtol=0, atol=1e-3)


def rand(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def torch_dynamic(float_mod):
    return torch.ao.quantization.quantize_dynamic(torch.nn.Sequential(float_mod))


RNN_CONFIGS = [
    dict(num_layers=1),
    dict(num_layers=2, bidirectional=True),
    dict(num_layers=2, batch_first=True),
    dict(num_layers=3, bidirectional=True, batch_first=True),
]


@pytest.mark.parametrize("cfg", RNN_CONFIGS)
@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_torch_state_dict_loads_and_matches(mode, cfg):
    torch.manual_seed(1)
    tq = torch_dynamic(getattr(torch.nn, mode)(5, 7, **cfg))
    eq = ember.nn.Sequential(getattr(nnqd, mode)(5, 7, **cfg))
    tsd = tq.state_dict()
    esd_keys = list(eq.state_dict().keys())
    assert esd_keys == list(tsd.keys())
    assert dict(eq.state_dict()._metadata) == {k: dict(v) for k, v in tsd._metadata.items()}
    res = eq.load_state_dict(sd_to_ember(tsd))
    assert not res.missing_keys and not res.unexpected_keys
    x = rand(4, 3, 5) if not cfg.get("batch_first") else rand(3, 4, 5)
    out_t, h_t = tq[0](x)
    out_e, h_e = eq[0](tensor_to_ember(x))
    assert close(out_e, out_t)
    if mode == "LSTM":
        assert close(h_e[0], h_t[0]) and close(h_e[1], h_t[1])
    else:
        assert close(h_e, h_t)
    # with an initial state
    dirs = 2 if cfg.get("bidirectional") else 1
    h0 = rand(cfg["num_layers"] * dirs, 3, 7, seed=3)
    hx_t = (h0, h0 * 0.5) if mode == "LSTM" else h0
    hx_e = (tensor_to_ember(h0), tensor_to_ember(h0 * 0.5)) if mode == "LSTM" else tensor_to_ember(h0)
    out_t, h_t = tq[0](x, hx_t)
    out_e, h_e = eq[0](tensor_to_ember(x), hx_e)
    assert close(out_e, out_t)


@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_packed_sequences_match(mode, bidirectional):
    torch.manual_seed(2)
    tq = torch_dynamic(getattr(torch.nn, mode)(4, 6, num_layers=2, bidirectional=bidirectional))
    eq = ember.nn.Sequential(getattr(nnqd, mode)(4, 6, num_layers=2, bidirectional=bidirectional))
    eq.load_state_dict(sd_to_ember(tq.state_dict()))
    x = rand(5, 3, 4)
    lengths = [3, 5, 2]
    pt = torch.nn.utils.rnn.pack_padded_sequence(x, torch.tensor(lengths), enforce_sorted=False)
    pe = ember.nn.utils.rnn.pack_padded_sequence(tensor_to_ember(x), ember.tensor(lengths),
                                                 enforce_sorted=False)
    out_t, h_t = tq[0](pt)
    out_e, h_e = eq[0](pe)
    assert isinstance(out_e, ember.nn.utils.rnn.PackedSequence)
    assert close(out_e.data, out_t.data)
    assert same(out_e.batch_sizes, out_t.batch_sizes)
    hs_t = h_t if mode == "LSTM" else (h_t,)
    hs_e = h_e if mode == "LSTM" else (h_e,)
    for a, b in zip(hs_e, hs_t):
        assert close(a, b)


@pytest.mark.parametrize("kind", ["LSTMCell", "GRUCell", "RNNCell", "RNNCell-relu"])
def test_cells_from_torch_state_dict(kind):
    torch.manual_seed(3)
    name, _, nl = kind.partition("-")
    kw = {"nonlinearity": nl} if nl else {}
    tq = torch_dynamic(getattr(torch.nn, name)(5, 6, **kw))
    eq = ember.nn.Sequential(getattr(nnqd, name)(5, 6, **kw))
    tsd = tq.state_dict()
    assert list(eq.state_dict().keys()) == list(tsd.keys()) == ["0._packed_weight_ih",
                                                                 "0._packed_weight_hh"]
    eq.load_state_dict(sd_to_ember(tsd))
    x = rand(3, 5)
    for hx in (None, rand(3, 6, seed=5)):
        if name == "LSTMCell":
            thx = None if hx is None else (hx, hx * 2)
            ehx = None if hx is None else (tensor_to_ember(hx), tensor_to_ember(hx * 2))
            (ht, ct), (he, ce) = tq[0](x, thx), eq[0](tensor_to_ember(x), ehx)
            assert close(he, ht) and close(ce, ct)
        else:
            ehx = None if hx is None else tensor_to_ember(hx)
            assert close(eq[0](tensor_to_ember(x), ehx), tq[0](x, hx))


def test_quantize_dynamic_from_the_same_float_model():
    torch.manual_seed(4)
    tf = torch.nn.Sequential(torch.nn.LSTM(4, 5, 2), torch.nn.GRU(5, 3, bidirectional=True),
                             torch.nn.LSTMCell(4, 5), torch.nn.GRUCell(4, 5),
                             torch.nn.RNNCell(4, 5, nonlinearity="relu"), torch.nn.Linear(4, 3),
                             torch.nn.RNN(4, 5))
    ef = ember.nn.Sequential(ember.nn.LSTM(4, 5, 2), ember.nn.GRU(5, 3, bidirectional=True),
                             ember.nn.LSTMCell(4, 5), ember.nn.GRUCell(4, 5),
                             ember.nn.RNNCell(4, 5, nonlinearity="relu"), ember.nn.Linear(4, 3),
                             ember.nn.RNN(4, 5))
    ef.load_state_dict({k: tensor_to_ember(v) for k, v in tf.state_dict().items()})
    tq = torch.ao.quantization.quantize_dynamic(tf)
    eq = ember.ao.quantization.quantize_dynamic(ef)
    assert repr(eq) == repr(tq).replace("torch.", "ember.")
    assert type(eq[0]) is nnqd.LSTM and type(eq[3]) is nnqd.GRUCell
    assert type(eq[6]) is ember.nn.RNN  # torch has no dynamic RNN layer: it stays float
    x = rand(6, 2, 4)
    o_t, (h_t, c_t) = tq[0](x)
    o_e, (h_e, c_e) = eq[0](tensor_to_ember(x))
    assert close(o_e, o_t) and close(h_e, h_t) and close(c_e, c_t)
    o_t, h_t = tq[1](o_t)
    o_e, h_e = eq[1](o_e)
    assert close(o_e, o_t) and close(h_e, h_t)
    for i in (2, 3, 4):
        rt, re_ = tq[i](x[0]), eq[i](tensor_to_ember(x[0]))
        for a, b in zip(re_ if i == 2 else (re_,), rt if i == 2 else (rt,)):
            assert close(a, b)
    # the quantized weights themselves are torch's (same observer, same codes)
    wt, we = tq[0].get_weight(), eq[0].get_weight()
    assert list(we.keys()) == list(wt.keys())
    for k in wt:
        assert np.array_equal(we[k].int_repr().numpy(), wt[k].int_repr().numpy())
        assert we[k].q_scale() == wt[k].q_scale()


def test_quantize_dynamic_qconfig_spec_set_and_from_float_errors():
    ef = ember.nn.Sequential(ember.nn.LSTM(3, 4), ember.nn.Linear(3, 3))
    eq = ember.ao.quantization.quantize_dynamic(ef, {ember.nn.LSTM})
    assert type(eq[0]) is nnqd.LSTM and type(eq[1]) is ember.nn.Linear
    with pytest.raises(AssertionError, match="only works for nn.LSTM and nn.GRU"):
        nnqd.LSTM.from_float(ember.nn.Linear(2, 3))
    with pytest.raises(AssertionError, match="Input float module must have qconfig defined"):
        nnqd.LSTM.from_float(ember.nn.LSTM(2, 3))
    with pytest.raises(AssertionError) as e:
        nnqd.LSTMCell.from_float(ember.nn.Linear(2, 3))
    with pytest.raises(AssertionError) as t:
        tnnqd.LSTMCell.from_float(torch.nn.Linear(2, 3))
    assert str(e.value) == str(t.value)
    # the result follows the float module, as torch's classmethods
    g = ember.nn.GRU(3, 4)
    g.qconfig = ember.ao.quantization.default_dynamic_qconfig
    assert type(nnqd.LSTM.from_float(g)) is nnqd.GRU


REPR_CASES = [
    ("LSTM", (10, 20), {}),
    ("LSTM", (10, 20, 2), dict(bidirectional=True, batch_first=True)),
    ("GRU", (3, 4), dict(num_layers=2, dropout=0.5)),
    ("GRU", (3, 4), dict(bias=False)),
    ("LSTMCell", (3, 4), {}),
    ("LSTMCell", (3, 4), dict(bias=False)),
    ("GRUCell", (3, 4), {}),
    ("RNNCell", (3, 4), dict(nonlinearity="relu")),
    ("RNNCell", (3, 4), {}),
]


@pytest.mark.parametrize("name,args,kw", REPR_CASES)
def test_reprs_and_names(name, args, kw):
    t = getattr(tnnqd, name)(*args, **kw)
    e = getattr(nnqd, name)(*args, **kw)
    assert repr(e) == repr(t)
    assert e._get_name() == t._get_name()
    assert e.training == t.training
    assert type(e).__name__ == name
    assert type(e).__module__ == "ember.ao.nn.quantized.dynamic.modules.rnn"


def test_modules_package_and_nn_alias():
    assert ember.nn.quantized.dynamic.LSTM is nnqd.LSTM is ember.ao.nn.quantized.dynamic.LSTM
    mods = ember.ao.nn.quantized.dynamic.modules
    assert mods.LSTM is nnqd.LSTM and mods.Linear is nnqd.Linear
    assert mods.rnn.PackedParameter is not None and ember.nn.quantized.dynamic.modules is mods
    assert nnqd.LSTM._FLOAT_MODULE is ember.nn.LSTM


def test_forward_errors_match_torch():
    t, e = tnnqd.LSTM(3, 4), nnqd.LSTM(3, 4)
    cases = [
        ((rand(2, 3),), (ember.randn(2, 3),)),
        ((rand(2, 3, 5),), (ember.randn(2, 3, 5),)),
        ((rand(2, 3, 3), (torch.zeros(1, 2, 4), torch.zeros(1, 3, 4))),
         (ember.randn(2, 3, 3), (ember.zeros(1, 2, 4), ember.zeros(1, 3, 4)))),
    ]
    for targs, eargs in cases:
        with pytest.raises(RuntimeError) as te:
            t(*targs)
        with pytest.raises(RuntimeError) as ee:
            e(*eargs)
        assert str(ee.value) == str(te.value)
    tc, ec = tnnqd.GRUCell(3, 4), nnqd.GRUCell(3, 4)
    for tx, th in ((rand(2, 5), None), (rand(2, 3), rand(3, 4)), (rand(2, 3), rand(2, 5))):
        with pytest.raises(RuntimeError) as te:
            tc(tx, th)
        with pytest.raises(RuntimeError) as ee:
            ec(tensor_to_ember(tx), tensor_to_ember(th))
        assert str(ee.value) == str(te.value)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nnqd.LSTM(3, 4, dropout=2)
    with pytest.raises(ValueError, match="Unrecognized RNN mode: RNN_TANH"):
        ember.ao.nn.quantized.dynamic.modules.rnn.RNNBase("RNN_TANH", 3, 4)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nnqd.GRU(3, 4, dropout=0.2)


def test_state_dict_round_trip_copies_and_pickle():
    torch.manual_seed(5)
    tq = torch_dynamic(torch.nn.LSTM(3, 4, 2, bidirectional=True))
    e = ember.nn.Sequential(nnqd.LSTM(3, 4, 2, bidirectional=True))
    e.load_state_dict(sd_to_ember(tq.state_dict()))
    x = ember.randn(5, 2, 3)
    ref = e[0](x)[0]
    sd = e.state_dict()
    p = sd["0._all_weight_values.0.param"]
    assert isinstance(p, ember.ScriptObject)
    assert p is e[0]._all_weight_values[0].param  # the very object, as torch's state_dict
    e2 = ember.nn.Sequential(nnqd.LSTM(3, 4, 2, bidirectional=True))
    e2.load_state_dict(sd)
    assert same(e2[0](x)[0], tensor_to_torch_np(ref))
    for c in (copy.deepcopy(e), pickle.loads(pickle.dumps(e))):
        assert same(c[0](x)[0], tensor_to_torch_np(ref))
        assert c[0]._all_weight_values[0].param is not p
    cell = ember.nn.Sequential(nnqd.GRUCell(3, 4))
    y = cell[0](x[0])
    for c in (copy.deepcopy(cell), pickle.loads(pickle.dumps(cell))):
        assert np.array_equal(c[0](x[0]).numpy(), y.numpy())
        assert c[0]._packed_weight_ih is not cell[0]._packed_weight_ih
    state = p.__getstate__()
    assert state[1] == "__torch__.torch.classes.rnn.CellParamsBase"
    assert state[0][0] == "quantized_dynamic" and state[0][3] == [1]
    q = pickle.loads(pickle.dumps(p))
    assert q.__getstate__()[0][1][0].equal(state[0][1][0])


def tensor_to_torch_np(t):
    return torch.from_numpy(t.detach().numpy().copy())


def test_weight_bias_accessors_match_torch():
    torch.manual_seed(6)
    tq = torch_dynamic(torch.nn.GRU(3, 4, bidirectional=True))[0]
    e = nnqd.GRU(3, 4, bidirectional=True)
    ember.nn.Sequential(e).load_state_dict(sd_to_ember(torch.nn.Sequential(tq).state_dict()))
    tw, ew = tq.get_weight(), e.get_weight()
    tb, eb = tq.get_bias(), e.get_bias()
    assert sorted(ew) == sorted(tw) and sorted(eb) == sorted(tb)
    for k in tb:
        assert same(eb[k], tb[k])
    e2 = nnqd.GRU(3, 4, bidirectional=True)
    e2.set_weight_bias({**ew, **eb})
    x = ember.randn(2, 2, 3)
    assert np.array_equal(e2(x)[0].numpy(), e(x)[0].numpy())
    c = nnqd.LSTMCell(3, 4)
    wb = c._weight_bias()
    assert sorted(wb["weight"]) == ["weight_hh", "weight_ih"]
    assert sorted(wb["bias"]) == ["bias_hh", "bias_ih"]


def test_ops_match_torch_and_are_seen_by_dispatch_modes():
    torch.manual_seed(7)
    wt = torch.quantize_per_tensor(torch.randn(16, 3) * 0.3, 0.01, 0, torch.qint8)
    wh = torch.quantize_per_tensor(torch.randn(16, 4) * 0.3, 0.01, 0, torch.qint8)
    bi, bh = torch.randn(16), torch.randn(16)
    tpi, tph = torch.ops.quantized.linear_prepack(wt, bi), torch.ops.quantized.linear_prepack(wh, bh)
    epi, eph = linear_to_ember(tpi), linear_to_ember(tph)
    x, h, c = rand(2, 3), rand(2, 4, seed=1), rand(2, 4, seed=2)
    ex, eh, ec = map(tensor_to_ember, (x, h, c))
    eb_i, eb_h = tensor_to_ember(bi), tensor_to_ember(bh)
    rt = torch.ops.quantized.quantized_lstm_cell_dynamic(x, [h, c], tpi, tph, bi, bh)
    re_ = ember.ops.quantized.quantized_lstm_cell_dynamic(ex, [eh, ec], epi, eph, eb_i, eb_h)
    assert close(re_[0], rt[0]) and close(re_[1], rt[1])
    # GRU / RNN cells: three and one gates
    for op, rows in (("quantized_gru_cell_dynamic", 12), ("quantized_rnn_tanh_cell_dynamic", 4),
                     ("quantized_rnn_relu_cell_dynamic", 4)):
        wt = torch.quantize_per_tensor(torch.randn(rows, 3) * 0.3, 0.01, 0, torch.qint8)
        wh = torch.quantize_per_tensor(torch.randn(rows, 4) * 0.3, 0.01, 0, torch.qint8)
        bi, bh = torch.randn(rows), torch.randn(rows)
        pi, ph = torch.ops.quantized.linear_prepack(wt, bi), torch.ops.quantized.linear_prepack(wh, bh)
        rt = getattr(torch.ops.quantized, op)(x, h, pi, ph, bi, bh)
        re_ = getattr(ember.ops.quantized, op)(ex, eh, linear_to_ember(pi), linear_to_ember(ph),
                                               tensor_to_ember(bi), tensor_to_ember(bh))
        assert close(re_, rt)
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with Log():
        ember.ops.quantized.quantized_lstm_cell_dynamic(ex, [eh, ec], epi, eph, eb_i, eb_h)
    with Log():
        ember.ops.quantized.linear_dynamic(ex, epi)
    assert "quantized.linear_dynamic.default" in seen
    # the cell op itself (its inner linear_dynamic runs below the mode, as in torch)
    assert [s for s in seen if "quantized_lstm_cell_dynamic" in s] == [
        "quantized.quantized_lstm_cell_dynamic.default"]


def test_quantized_lstm_and_gru_functions_match_torch():
    torch.manual_seed(8)
    tq = torch_dynamic(torch.nn.LSTM(3, 4, 2))[0]
    params_t = [m.param for m in tq._all_weight_values]
    params_e = [obj_to_ember(p) for p in params_t]
    x, h0, c0 = rand(5, 2, 3), rand(2, 2, 4, seed=1), rand(2, 2, 4, seed=2)
    rt = torch.quantized_lstm(x, [h0, c0], params_t, True, 2, 0.0, False, False, False,
                              dtype=torch.qint8, use_dynamic=True)
    re_ = ember.quantized_lstm(tensor_to_ember(x), [tensor_to_ember(h0), tensor_to_ember(c0)],
                               params_e, True, 2, 0.0, False, False, False, dtype=ember.qint8,
                               use_dynamic=True)
    assert all(close(a, b) for a, b in zip(re_, rt))
    with pytest.raises(RuntimeError, match="quantized LSTM requires biases"):
        ember.quantized_lstm(tensor_to_ember(x), [tensor_to_ember(h0), tensor_to_ember(c0)],
                             params_e, False, 2, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="Expected more hidden states in stacked_rnn"):
        ember.quantized_lstm(tensor_to_ember(x), [tensor_to_ember(h0), tensor_to_ember(c0)],
                             params_e, True, 1, 0.0, False, False, False)
    tg = torch_dynamic(torch.nn.GRU(3, 4))[0]
    pg_t = [m.param for m in tg._all_weight_values]
    rt = torch.quantized_gru(x, h0[:1], pg_t, True, 1, 0.0, False, False, False)
    re_ = ember.quantized_gru(tensor_to_ember(x), tensor_to_ember(h0[:1]),
                              [obj_to_ember(p) for p in pg_t], True, 1, 0.0, False, False, False)
    assert all(close(a, b) for a, b in zip(re_, rt))


def test_dynamic_linear_relu_and_module_packages():
    import torch.nn.intrinsic.quantized.dynamic as tniqd
    torch.manual_seed(9)
    tf = torch.nn.Sequential(torch.nn.intrinsic.LinearReLU(torch.nn.Linear(6, 5), torch.nn.ReLU()))
    ef = ember.nn.Sequential(ember.nn.intrinsic.LinearReLU(ember.nn.Linear(6, 5), ember.nn.ReLU()))
    ef.load_state_dict({k: tensor_to_ember(v) for k, v in tf.state_dict().items()})
    tq = torch.ao.quantization.quantize_dynamic(tf, {torch.nn.intrinsic.LinearReLU})
    eq = ember.ao.quantization.quantize_dynamic(ef, {ember.nn.intrinsic.LinearReLU})
    assert repr(eq) == repr(tq).replace("torch.", "ember.")
    assert type(eq[0]) is ember.nn.intrinsic.quantized.dynamic.LinearReLU
    assert eq[0]._get_name() == tq[0]._get_name() == "DynamicQuantizedLinearReLU"
    x = rand(4, 6, seed=10)
    assert same(eq[0](tensor_to_ember(x)), tq[0](x))
    assert (eq[0](tensor_to_ember(x)).numpy() >= 0).all()
    # a state_dict torch wrote loads (LinearPackedParams layout, version 4)
    e2 = ember.nn.Sequential(ember.nn.intrinsic.quantized.dynamic.LinearReLU(6, 5))
    e2.load_state_dict(sd_to_ember(tq.state_dict()))
    assert same(e2[0](tensor_to_ember(x)), tq[0](x))
    assert repr(ember.nn.intrinsic.quantized.dynamic.LinearReLU(3, 2)) == repr(
        tniqd.LinearReLU(3, 2)).replace("torch.", "ember.")
    c = copy.deepcopy(e2)
    assert same(c[0](tensor_to_ember(x)), tq[0](x))
    assert ember.nn.intrinsic.quantized.modules.ConvReLU2d is ember.nn.intrinsic.quantized.ConvReLU2d
    assert ember.nn.intrinsic.qat.modules.LinearReLU is ember.nn.intrinsic.qat.LinearReLU
    assert ember.ao.quantization.get_default_dynamic_quant_module_mappings()[
        ember.nn.intrinsic.LinearReLU] is ember.nn.intrinsic.quantized.dynamic.LinearReLU
