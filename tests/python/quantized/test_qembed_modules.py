"""nn.quantized.Embedding / EmbeddingBag against torch 1.13: the eager workflow (prepare / convert
with float_qparams_weight_only_qconfig(_4bit), quantize_dynamic), from_float (observers, QAT
modules, the assertion texts), reprs, state_dict layout and versions, loading a state_dict that
torch wrote (through numpy) with bit-identical outputs, copies."""
import copy
import pickle

import numpy as np
import pytest
import torch
import torch.ao.nn.quantized as tnnq
import torch.ao.quantization as tq

import ember
import ember.ao.nn.quantized as ennq
import ember.ao.quantization as eq


def to_ember(t):
    return None if t is None else ember.from_numpy(t.detach().numpy().copy())


def qweight_to_ember(t):
    """A torch float-qparams weight as the equal ember tensor: quint8 through its codes, the
    sub-byte dtypes through their packed bytes (the quantized tensor's storage)."""
    s, z = to_ember(t.q_per_channel_scales()), to_ember(t.q_per_channel_zero_points())
    if t.dtype == torch.quint8:
        return ember._make_per_channel_quantized_tensor(to_ember(t.int_repr()), s, z, 0)
    e = ember._empty_per_channel_affine_quantized(list(t.shape), scales=s, zero_points=z, axis=0,
                                                  dtype=getattr(ember, str(t.dtype)[6:]))
    raw = ember.tensor([], dtype=ember.uint8).set_(e.untyped_storage())
    raw.copy_(to_ember(t.int_repr()))
    return e


def same(e, t):
    a, b = e.detach().numpy(), t.detach().numpy()
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)


def same_q(e, t):
    return (str(e.dtype)[6:] == str(t.dtype)[6:]
            and np.array_equal(e.int_repr().numpy(), t.int_repr().numpy())
            and np.array_equal(e.q_per_channel_scales().numpy(), t.q_per_channel_scales().numpy())
            and np.array_equal(e.q_per_channel_zero_points().numpy(),
                               t.q_per_channel_zero_points().numpy()))


class TorchModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 12)
        self.bag = torch.nn.EmbeddingBag(10, 12, mode="sum")

    def forward(self, x, o):
        return self.emb(x), self.bag(x, o)


class EmberModel(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = ember.nn.Embedding(10, 12)
        self.bag = ember.nn.EmbeddingBag(10, 12, mode="sum")

    def forward(self, x, o):
        return self.emb(x), self.bag(x, o)


def models(seed=0):
    torch.manual_seed(seed)
    t = TorchModel().eval()
    e = EmberModel().eval()
    e.load_state_dict({k: to_ember(v) for k, v in t.state_dict().items()})
    return t, e


X, O = [1, 2, 3, 9, 0, 4, 4], [0, 2, 2, 5]


@pytest.mark.parametrize("bag_4bit", [False, True])
def test_prepare_convert_matches_torch(bag_4bit):
    t, e = models()
    t.emb.qconfig, e.emb.qconfig = tq.float_qparams_weight_only_qconfig, eq.float_qparams_weight_only_qconfig
    if bag_4bit:
        t.bag.qconfig = tq.float_qparams_weight_only_qconfig_4bit
        e.bag.qconfig = eq.float_qparams_weight_only_qconfig_4bit
    else:
        t.bag.qconfig, e.bag.qconfig = t.emb.qconfig, e.emb.qconfig
    pt, pe = tq.prepare(t), eq.prepare(e)
    assert repr(pe).replace("EmberModel", "TorchModel") == repr(pt)
    ct, ce = tq.convert(pt), eq.convert(pe)
    assert repr(ce).replace("EmberModel", "TorchModel") == repr(ct).replace("torch.", "ember.")
    assert type(ce.emb) is ennq.Embedding and type(ce.bag) is ennq.EmbeddingBag
    assert same_q(ce.emb.weight(), ct.emb.weight())
    assert same_q(ce.bag.weight(), ct.bag.weight())
    x, o = torch.tensor(X), torch.tensor(O)
    (yt1, yt2), (ye1, ye2) = ct(x, o), ce(to_ember(x), to_ember(o))
    assert same(ye1, yt1) and same(ye2, yt2)
    # state_dict: the same keys, types and versions
    st, se = ct.state_dict(), ce.state_dict()
    assert list(se.keys()) == list(st.keys())
    for k in st:
        if isinstance(st[k], torch.Tensor):
            assert same_q(se[k], st[k]), k
        else:
            assert str(se[k]) == str(st[k]).replace("torch.", "ember."), k
    assert dict(se._metadata) == dict(st._metadata)


def test_non_float_qparams_qconfig_asserts_as_torch():
    for cls_name in ("emb", "bag"):
        t, e = models()
        setattr(getattr(t, cls_name), "qconfig", tq.default_qconfig)
        setattr(getattr(e, cls_name), "qconfig", eq.default_qconfig)
        with pytest.raises(AssertionError) as te:
            tq.convert(tq.prepare(t))
        with pytest.raises(AssertionError) as ee:
            eq.convert(eq.prepare(e))
        assert str(ee.value) == str(te.value)


def test_from_float_asserts_as_torch():
    t, e = models()
    cases = [
        lambda nn, nnq, m: nnq.Embedding.from_float(m.bag),
        lambda nn, nnq, m: nnq.EmbeddingBag.from_float(m.emb),
        lambda nn, nnq, m: nnq.Embedding.from_float(m.emb),  # no qconfig
    ]
    for case in cases:
        with pytest.raises(AssertionError) as te:
            case(torch.nn, tnnq, t)
        with pytest.raises(AssertionError) as ee:
            case(ember.nn, ennq, e)
        assert str(ee.value) == str(te.value)
    # qconfig None: float_qparams_weight_only_qconfig's observer
    t.emb.qconfig, e.emb.qconfig = None, None
    qt, qe = tnnq.Embedding.from_float(t.emb), ennq.Embedding.from_float(e.emb)
    assert same_q(qe.weight(), qt.weight())


def test_quantize_dynamic_matches_torch():
    for dtype, spec in (("quint8", None), ("quint4x2", None), ("quint8", "set")):
        t, e = models(1)
        tspec = {torch.nn.EmbeddingBag} if spec else None
        espec = {ember.nn.EmbeddingBag} if spec else None
        ct = tq.quantize_dynamic(t, tspec, dtype=getattr(torch, dtype))
        ce = eq.quantize_dynamic(e, espec, dtype=getattr(ember, dtype))
        assert repr(ce).replace("EmberModel", "TorchModel") == repr(ct).replace("torch.", "ember.")
        x, o = torch.tensor(X), torch.tensor(O)
        for a, b in zip(ce(to_ember(x), to_ember(o)), ct(x, o)):
            assert same(a, b)


@pytest.mark.parametrize("dtype", ["quint8", "quint4x2"])
def test_torch_state_dict_loads_bit_identical(dtype):
    torch.manual_seed(3)
    ft = torch.nn.EmbeddingBag(12, 8)
    ft.qconfig = tq.float_qparams_weight_only_qconfig if dtype == "quint8" else \
        tq.float_qparams_weight_only_qconfig_4bit
    qt = tnnq.EmbeddingBag.from_float(ft)
    qe = ennq.EmbeddingBag(12, 8, dtype=getattr(ember, dtype))
    sd = {k: qweight_to_ember(v) if isinstance(v, torch.Tensor) else getattr(ember, str(v)[6:])
          for k, v in qt.state_dict().items()}
    qe.load_state_dict(sd)
    assert same_q(qe.weight(), qt.weight())
    g = torch.Generator().manual_seed(4)
    idx = torch.randint(0, 12, (20,), generator=g)
    off = torch.tensor([0, 3, 3, 10])
    psw = torch.rand(20, generator=g)
    for args, kw in (((idx, off), {}), ((idx, off), {"per_sample_weights": psw}),
                     ((idx[:16].view(4, 4),), {})):
        eargs = tuple(to_ember(a) for a in args)
        ekw = {k: to_ember(v) for k, v in kw.items()}
        assert same(qe(*eargs, **ekw), qt(*args, **kw))
    # and back: ember's state_dict gives torch the same module
    qt2 = tnnq.EmbeddingBag(12, 8, dtype=getattr(torch, dtype))
    back = {}
    for k, v in qe.state_dict().items():
        if isinstance(v, ember.Tensor):
            back[k] = qt.state_dict()[k] if dtype != "quint8" else torch._make_per_channel_quantized_tensor(
                torch.from_numpy(v.int_repr().numpy()), torch.from_numpy(v.q_per_channel_scales().numpy()),
                torch.from_numpy(v.q_per_channel_zero_points().numpy()), 0)
        else:
            back[k] = getattr(torch, str(v)[6:])
    qt2.load_state_dict(back)
    assert same(qe(to_ember(idx), to_ember(off)), qt2(idx, off))


def test_state_dict_round_trip_and_copies():
    torch.manual_seed(5)
    _, e = models(5)
    e.emb.qconfig = e.bag.qconfig = eq.float_qparams_weight_only_qconfig
    ce = eq.convert(eq.prepare(e))
    x, o = ember.tensor(X), ember.tensor(O)
    ref = ce(x, o)
    fresh = EmberModel()
    fresh.emb = ennq.Embedding(10, 12)
    fresh.bag = ennq.EmbeddingBag(10, 12)
    fresh.load_state_dict(ce.state_dict())
    for c in (fresh, copy.deepcopy(ce)):
        for a, b in zip(c(x, o), ref):
            assert np.array_equal(a.numpy(), b.numpy())
    assert copy.deepcopy(ce).bag._packed_params._packed_weight is not ce.bag._packed_params._packed_weight
    # a module built in Python pickles with its packed table, dtype and bag settings
    bag = ennq.EmbeddingBag(10, 12, include_last_offset=True, dtype=ember.quint4x2)
    bag.set_weight(ember.quantize_per_channel(ember.randn(10, 12), ember.rand(10) + 0.1,
                                              ember.randn(10), 0, ember.quint4x2))
    bag.pruned_weights = False
    c = pickle.loads(pickle.dumps(bag))
    assert (c.dtype, c.include_last_offset, c._packed_params.dtype) == (ember.quint4x2, True, ember.quint4x2)
    assert np.array_equal(c(x, o).numpy(), bag(x, o).numpy())


def test_constructors_reprs_and_names():
    cases = [
        lambda nnq, m: nnq.Embedding(5, 4),
        lambda nnq, m: nnq.Embedding(num_embeddings=5, embedding_dim=4, dtype=m.quint4x2),
        lambda nnq, m: nnq.EmbeddingBag(5, 4),
        lambda nnq, m: nnq.EmbeddingBag(5, 4, mode="mean", include_last_offset=True,
                                        dtype=m.quint4x2),
    ]
    for case in cases:
        mt, me = case(tnnq, torch), case(ennq, ember)
        assert repr(me) == repr(mt).replace("torch.", "ember.")
        assert me._get_name() == mt._get_name()
        assert str(me._packed_params.dtype) == str(mt._packed_params.dtype).replace("torch.", "ember.")
        assert me.dtype == getattr(ember, str(mt.dtype)[6:])
        assert list(me.state_dict().keys()) == list(mt.state_dict().keys())
    bag = ennq.EmbeddingBag(5, 4, mode="max", include_last_offset=True)
    assert bag.mode == "max" and bag.include_last_offset is True and bag.pruned_weights is False
    assert (bag.num_embeddings, bag.embedding_dim) == (5, 4)
    for kind, f in ((NotImplementedError, lambda nnq, m: nnq.Embedding(5, 4, dtype=m.qint8)),
                    (NotImplementedError, lambda nnq, m: nnq.EmbeddingBag(5, 4, dtype=m.qint8)),
                    (AssertionError, lambda nnq, m: nnq.Embedding(
                        5, 4, _weight=m.quantize_per_channel(m.zeros(4, 4), m.ones(4), m.zeros(4), 0,
                                                             m.quint8)))):
        with pytest.raises(kind) as te:
            f(tnnq, torch)
        with pytest.raises(kind) as ee:
            f(ennq, ember)
        assert str(ee.value) == str(te.value).replace("torch.", "ember.")
    assert ember.nn.quantized.Embedding is ennq.Embedding
    assert ember.nn.quantized.EmbeddingBag is ennq.EmbeddingBag
    from ember.ao.nn.quantized.modules import embedding_ops
    from ember.nn.quantized.modules import embedding_ops as legacy
    assert embedding_ops.Embedding is ennq.Embedding and legacy.EmbeddingBag is ennq.EmbeddingBag
    assert embedding_ops.__all__ == ["EmbeddingPackedParams", "Embedding", "EmbeddingBag"]
    assert ennq.Embedding.__module__ == "ember.ao.nn.quantized.modules.embedding_ops"
    assert "Embedding" in ennq.__all__ and "EmbeddingBag" in ennq.__all__
    m = ennq.Embedding(5, 4)
    assert isinstance(m._packed_params, embedding_ops.EmbeddingPackedParams)
    assert repr(m._packed_params).startswith("tensor(")


def test_qat_embedding_from_float_matches_torch():
    torch.manual_seed(6)
    ft = torch.nn.EmbeddingBag(10, 6, mode="sum")
    fe = ember.nn.EmbeddingBag(10, 6, mode="sum")
    fe.load_state_dict({k: to_ember(v) for k, v in ft.state_dict().items()})
    ft.qconfig, fe.qconfig = tq.default_embedding_qat_qconfig, eq.default_embedding_qat_qconfig
    import torch.ao.nn.qat as tqat
    import ember.ao.nn.qat as eqat
    at, ae = tqat.EmbeddingBag.from_float(ft), eqat.EmbeddingBag.from_float(fe)
    x, o = torch.tensor(X), torch.tensor(O)
    at(x, o)
    ae(to_ember(x), to_ember(o))
    qt, qe = tnnq.EmbeddingBag.from_float(at), ennq.EmbeddingBag.from_float(ae)
    assert same_q(qe.weight(), qt.weight())
    assert same(qe(to_ember(x), to_ember(o)), qt(x, o))
    assert eq.get_embedding_static_quant_module_mappings()[eqat.EmbeddingBag] is ennq.EmbeddingBag
    assert eq.get_embedding_qat_module_mappings()[ember.nn.Embedding] is eqat.Embedding


def test_4bit_observer_and_qconfigs():
    for name in ("float_qparams_weight_only_qconfig_4bit", "default_embedding_qat_qconfig_4bit"):
        assert hasattr(eq, name)
    obs_t = tq.default_float_qparams_observer_4bit()
    obs_e = eq.default_float_qparams_observer_4bit()
    assert (obs_e.quant_min, obs_e.quant_max) == (obs_t.quant_min, obs_t.quant_max) == (0, 15)
    w = torch.randn(5, 7)
    obs_t(w)
    obs_e(to_ember(w))
    st, zt = obs_t.calculate_qparams()
    se, ze = obs_e.calculate_qparams()
    assert same(se, st) and same(ze, zt)


@pytest.mark.parametrize("dtype", ["quint8", "quint4x2"])
def test_checkpoints_both_ways(dtype, tmp_path):
    torch.manual_seed(9)
    f = torch.nn.EmbeddingBag(10, 7)
    f.qconfig = tq.float_qparams_weight_only_qconfig if dtype == "quint8" else \
        tq.float_qparams_weight_only_qconfig_4bit
    qt = tnnq.EmbeddingBag.from_float(f)
    torch.save(qt.state_dict(), tmp_path / "t.pt")
    sd = ember.load(tmp_path / "t.pt")
    assert sd["_packed_params._packed_weight"].qscheme() == ember.per_channel_affine_float_qparams
    qe = ennq.EmbeddingBag(10, 7, dtype=sd["_packed_params.dtype"])
    qe.load_state_dict(sd)
    x, o = torch.tensor([1, 2, 3, 4, 9]), torch.tensor([0, 2])
    assert same(qe(to_ember(x), to_ember(o)), qt(x, o))
    ember.save(qe.state_dict(), tmp_path / "e.pt")
    back = torch.load(tmp_path / "e.pt")
    qt2 = tnnq.EmbeddingBag(10, 7, dtype=back["_packed_params.dtype"])
    qt2.load_state_dict(back)
    assert torch.equal(qt2(x, o), qt(x, o))
