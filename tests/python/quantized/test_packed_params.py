"""The packed-params objects (Conv2dPackedParamsBase / LinearPackedParamsBase): accessors,
unpack, __getstate__ / __setstate__ in torch's form, deepcopy and pickle re-packing for the
engine active then, identity across the dispatcher, and __torch_dispatch__ visibility."""
import copy
import pickle
import re

import numpy as np
import pytest
import torch

import ember
import ember._utils
from ember.utils._python_dispatch import TorchDispatchMode
from qconv_helpers import ENGINES, Q, TQ, codes, engine, quantize_both, quantize_weight_both


def conv_weight(rng, o=4, c=2):
    wf = rng.standard_normal((o, c, 3, 3)).astype(np.float32) * 0.3
    return quantize_weight_both(wf, float(np.abs(wf).max() / 127.5), 0)


@pytest.mark.parametrize("eng", ENGINES)
def test_accessors_and_method_names_match_torch(eng):
    we, wt = conv_weight(np.random.default_rng(0), 4, 4)
    with engine(eng):
        pe = Q.conv2d_prepack(we, None, [2, 1], [1, 0], [1, 2], 2)
        pt = TQ.conv2d_prepack(wt, None, [2, 1], [1, 0], [1, 2], 2)
        for m in ["stride", "padding", "dilation", "output_padding", "groups", "transpose"]:
            assert getattr(pe, m)() == getattr(pt, m)(), m
        assert type(pe.groups()) is int and pe.transpose() is False
        assert pe._method_names() == pt._method_names()
        assert Q.conv2d_stride(pe) == TQ.conv2d_stride(pt) == [2, 1]
        assert Q.conv2d_groups(pe) == 2 and Q.conv2d_transpose(pe) == 0
        assert Q.conv2d_output_padding(pe) == [0, 0]
        lw = quantize_weight_both(np.ones((3, 2), np.float32), 0.1, 0)
        assert Q.linear_prepack(lw[0])._method_names() == TQ.linear_prepack(lw[1])._method_names()


@pytest.mark.parametrize("eng", ENGINES)
def test_unpack_gives_back_weight_and_bias(eng):
    rng = np.random.default_rng(1)
    we, wt = conv_weight(rng)
    bias = ember.randn(4, dtype=ember.float64)
    with engine(eng):
        p = Q.conv2d_prepack(we, bias, [1, 1], [0, 0], [1, 1], 1)
        w, b = p.unpack()
        assert b is bias                     # the very bias, its dtype kept (as torch's)
        assert w.q_scale() == we.q_scale() and np.array_equal(codes(w), codes(we))
        assert Q.conv2d_unpack(p)[1] is bias
        # a missing bias: qnnpack packs zeros and gives them back, onednn keeps None (torch 1.13)
        pe = Q.conv2d_prepack(we, None, [1, 1], [0, 0], [1, 1], 1)
        pt = TQ.conv2d_prepack(wt, None, [1, 1], [0, 0], [1, 1], 1)
        if eng == "qnnpack":
            assert np.array_equal(pe.unpack()[1].numpy(), pt.unpack()[1].numpy())
        else:
            assert pe.unpack()[1] is None and pt.unpack()[1] is None
        # per-channel weights come back per channel
        wc = ember.quantize_per_channel(ember.randn(4, 2, 3, 3), ember.rand(4) / 10 + 0.01,
                                        ember.zeros(4, dtype=ember.int64), 0, ember.qint8)
        w2 = Q.conv2d_prepack(wc, None, [1, 1], [0, 0], [1, 1], 1).unpack()[0]
        assert w2.qscheme() is ember.per_channel_affine
        assert np.array_equal(codes(w2), codes(wc))
        lw = ember.quantize_per_tensor(ember.randn(5, 3), 0.05, 0, ember.qint8)
        lb = ember.randn(5)
        w3, b3 = Q.linear_unpack(Q.linear_prepack(lw, lb))
        assert b3 is lb and np.array_equal(codes(w3), codes(lw))


@pytest.mark.parametrize("eng", ENGINES)
def test_getstate_has_torchs_form(eng):
    we, wt = conv_weight(np.random.default_rng(2))
    with engine(eng):
        se = Q.conv2d_prepack(we, None, [2, 1], [1, 0], [1, 2], 1).__getstate__()
        st = TQ.conv2d_prepack(wt, None, [2, 1], [1, 0], [1, 2], 1).__getstate__()
        assert se[1] == st[1] == "__torch__.torch.classes.quantized.Conv2dPackedParamsBase"
        (ve, [ce, we2], [be]), (vt, [ct, _], [bt]) = se[0], st[0]
        assert ve == vt == "2"
        assert ce.dtype is ember.int16 and ce.tolist() == ct.tolist()
        assert np.array_equal(codes(we2), codes(we))
        assert (be is None) == (bt is None)
        ls = Q.linear_prepack(ember.quantize_per_tensor(ember.randn(4, 3), 0.1, 0, ember.qint8))
        assert ls.__getstate__()[1] == "__torch__.torch.classes.quantized.LinearPackedParamsBase"
        assert len(ls.__getstate__()[0]) == 2


# Pickling the state pickles the quantized weight, which needs ember._utils._rebuild_qtensor
# (the quantized tensors' part); until it exists only deepcopy (done in C++) is tested.
_QTENSOR_PICKLES = hasattr(ember._utils, "_rebuild_qtensor")


@pytest.mark.parametrize("copier", [
    copy.deepcopy,
    pytest.param(lambda p: pickle.loads(pickle.dumps(p)), marks=pytest.mark.skipif(
        not _QTENSOR_PICKLES, reason="quantized tensors do not pickle yet (_rebuild_qtensor)")),
], ids=["deepcopy", "pickle"])
def test_copies_repack_for_the_current_engine(copier):
    rng = np.random.default_rng(3)
    we, wt = conv_weight(rng)
    xf = rng.random((1, 2, 6, 6)).astype(np.float32)
    xe, xt = quantize_both(xf, 0.02, 5, "quint8")
    with engine("onednn"):
        pe = Q.conv2d_prepack(we, None, [1, 1], [1, 1], [1, 1], 1)
        pt = TQ.conv2d_prepack(wt, None, [1, 1], [1, 1], [1, 1], 1)
    with engine("qnnpack"):
        ce, ct = copier(pe), copier(pt)
        assert isinstance(ce, ember.ScriptObject) and ce is not pe
        assert ce.stride() == [1, 1] and ce.padding() == [1, 1]
        # re-packed under qnnpack: zeros for the missing bias, and qnnpack's numbers
        assert np.array_equal(ce.unpack()[1].numpy(), ct.unpack()[1].numpy())
        assert np.array_equal(codes(Q.conv2d(xe, ce, 0.05, 10)), codes(TQ.conv2d(xt, ct, 0.05, 10)))
        le = Q.linear_prepack(ember.quantize_per_tensor(ember.randn(4, 3), 0.1, 0, ember.qint8))
        lc = copier(le)
        assert np.array_equal(codes(lc.unpack()[0]), codes(le.unpack()[0]))


def test_identity_and_repr():
    we, _ = conv_weight(np.random.default_rng(4))
    with engine("qnnpack"):
        p = Q.conv2d_prepack(we, None, [1, 1], [0, 0], [1, 1], 1)
    assert isinstance(p, ember.ScriptObject)
    assert re.fullmatch(r"<ember\.ScriptObject object at 0x[0-9a-f]+>", repr(p))
    seen = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append((func, args))
            return func(*args, **(kwargs or {}))

    x = ember.quantize_per_tensor(ember.rand(1, 2, 5, 5), 0.02, 10, ember.quint8)
    with engine("qnnpack"), Record():
        y = Q.conv2d_relu(x, p, 0.1, 3)
        q = Q.conv2d_prepack(we, None, [1, 1], [0, 0], [1, 1], 1)
        assert Q.conv2d_stride(q) == [1, 1]
    names = [str(f) for f, _ in seen]
    assert names == ["quantized.conv2d_relu.new", "quantized.conv2d_prepack.default",
                     "quantized.conv2d_stride.default"]
    func, args = seen[0]
    assert func is ember.ops.quantized.conv2d_relu.new
    assert args[1] is p                   # the handler sees the very object
    assert args[0] is x
    assert y.q_zero_point() == 3 and y.int_repr().numpy().min() >= 3
    assert isinstance(q, ember.ScriptObject)


def test_handler_can_replace_the_result():
    we, _ = conv_weight(np.random.default_rng(5))

    class Swap(TorchDispatchMode):
        def __init__(self, other):
            super().__init__()
            self.other = other

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func is ember.ops.quantized.conv2d_prepack.default:
                return self.other
            return func(*args, **(kwargs or {}))

    with engine("qnnpack"):
        other = Q.conv2d_prepack(we, None, [2, 2], [0, 0], [1, 1], 1)
        with Swap(other):
            got = Q.conv2d_prepack(we, None, [1, 1], [0, 0], [1, 1], 1)
    assert got is other


def test_wrong_packed_class_is_refused():
    with engine("qnnpack"):
        lp = Q.linear_prepack(ember.quantize_per_tensor(ember.randn(4, 3), 0.1, 0, ember.qint8))
        x = ember.quantize_per_tensor(ember.rand(1, 2, 5, 5), 0.02, 10, ember.quint8)
        with pytest.raises((RuntimeError, TypeError)):
            Q.conv2d(x, lp, 0.1, 0)
        with pytest.raises((RuntimeError, TypeError)):
            Q.conv2d(x, x, 0.1, 0)
