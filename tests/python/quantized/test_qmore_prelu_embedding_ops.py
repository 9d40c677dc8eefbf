"""quantized::prelu and the row-wise quantized embedding-bag ops (embedding_bag_{byte,4bit}_
{prepack,unpack,rowwise_offsets}) against torch 1.13: every code and every float bit equal,
torch's error texts, dispatch-mode visibility."""
import numpy as np
import pytest
import torch

import ember
from ember.utils._python_dispatch import TorchDispatchMode

from qmodules_util import tensor_to_ember

TQ, EQ = torch.ops.quantized, ember.ops.quantized


@pytest.fixture(autouse=True)
def restore_engines():
    old_t, old_e = torch.backends.quantized.engine, ember.backends.quantized.engine
    yield
    torch.backends.quantized.engine = old_t
    ember.backends.quantized.engine = old_e


def same(e, t):
    e = e.int_repr().numpy() if e.is_quantized else e.numpy()
    t = t.int_repr().numpy() if t.is_quantized else t.numpy()
    return e.shape == t.shape and e.dtype == t.dtype and np.array_equal(e, t)


def rand(*shape, seed=0, scale=1.0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed)) * scale


# ---- prelu ----

@pytest.mark.parametrize("engine", ["qnnpack", "onednn"])
@pytest.mark.parametrize("dtype,zx,zw,zy", [(torch.quint8, 10, 5, 20), (torch.qint8, -3, 2, 1),
                                            (torch.quint8, 128, 128, 0)])
@pytest.mark.parametrize("shape,channels", [((2, 3, 5, 5), 3), ((2, 3, 5, 5), 1), ((4, 6), 6),
                                            ((7,), 1), ((2, 4, 3), 4)])
def test_prelu_matches_torch(engine, dtype, zx, zw, zy, shape, channels):
    torch.backends.quantized.engine = engine
    ember.backends.quantized.engine = engine
    x = torch.quantize_per_tensor(rand(*shape, scale=3.0), 0.07, zx, dtype)
    w = torch.quantize_per_tensor(rand(channels, seed=1, scale=0.5), 0.01, zw, dtype)
    yt = TQ.prelu(x, w, 0.05, zy)
    ye = EQ.prelu(tensor_to_ember(x), tensor_to_ember(w), 0.05, zy)
    assert same(ye, yt)
    assert ye.q_scale() == yt.q_scale() and ye.q_zero_point() == yt.q_zero_point()
    assert ye.dtype == tensor_to_ember(x).dtype


def test_prelu_channels_last_and_saturation():
    x = torch.quantize_per_tensor(rand(2, 3, 4, 4, scale=50.0), 0.07, 100, torch.quint8)
    x = x.contiguous(memory_format=torch.channels_last)
    w = torch.quantize_per_tensor(rand(3, seed=2), 0.02, 100, torch.quint8)
    yt = TQ.prelu(x, w, 0.01, 128)
    xe = tensor_to_ember(x).contiguous(memory_format=ember.channels_last)
    ye = EQ.prelu(xe, tensor_to_ember(w), 0.01, 128)
    assert same(ye.contiguous(), yt.contiguous())
    assert ye.is_contiguous(memory_format=ember.channels_last) == yt.is_contiguous(
        memory_format=torch.channels_last)
    codes = ye.int_repr().numpy()
    assert codes.min() == 0 and codes.max() == 255


def test_prelu_errors():
    x = ember.quantize_per_tensor(ember.randn(2, 3), 0.1, 10, ember.quint8)
    w = ember.quantize_per_tensor(ember.randn(3), 0.1, 10, ember.quint8)
    with pytest.raises(RuntimeError, match="zero-dim input tensor is not allowed"):
        EQ.prelu(ember.quantize_per_tensor(ember.tensor(1.0), 0.1, 10, ember.quint8), w, 0.1, 0)
    with pytest.raises(NotImplementedError, match="Could not run 'quantized::prelu' with "
                                                  "arguments from the 'CPU' backend"):
        EQ.prelu(ember.randn(2, 3), ember.randn(3), 0.1, 0)
    with pytest.raises(RuntimeError, match="quantized::prelu: expected a quantized input"):
        EQ.prelu(ember.randn(2, 3), w, 0.1, 0)
    with pytest.raises(RuntimeError, match="quantized::prelu: expected a quantized weight"):
        EQ.prelu(x, ember.randn(3), 0.1, 0)
    with pytest.raises(RuntimeError, match="must match the size"):
        EQ.prelu(x, ember.quantize_per_tensor(ember.randn(2), 0.1, 10, ember.quint8), 0.1, 0)


def test_prelu_module_and_convert_match_torch():
    import copy
    import pickle
    import warnings
    t, e = torch.ao.nn.quantized.PReLU(0.05, 7, 3), ember.ao.nn.quantized.PReLU(0.05, 7, 3)
    assert repr(e) == repr(t) == "QuantizedPReLU()"
    assert e._get_name() == "QuantizedPReLU" and list(e.state_dict().keys()) == []
    assert ember.nn.quantized.PReLU is ember.ao.nn.quantized.PReLU
    w = torch.quantize_per_tensor(rand(3, seed=9), 0.01, 3, torch.quint8)
    t.set_weight(w)
    e.set_weight(tensor_to_ember(w))
    x = torch.quantize_per_tensor(rand(2, 3, 4, seed=8), 0.03, 100, torch.quint8)
    assert same(e(tensor_to_ember(x)), t(x))
    for c in (copy.deepcopy(e), pickle.loads(pickle.dumps(e))):
        assert same(c(tensor_to_ember(x)), t(x))

    torch.manual_seed(0)
    tf = torch.nn.Sequential(torch.ao.quantization.QuantStub(), torch.nn.PReLU(3),
                             torch.ao.quantization.DeQuantStub())
    ef = ember.nn.Sequential(ember.ao.quantization.QuantStub(), ember.nn.PReLU(3),
                             ember.ao.quantization.DeQuantStub())
    with torch.no_grad():
        tf[1].weight.copy_(torch.tensor([0.25, -0.5, 1.3]))
    ef.load_state_dict({k: tensor_to_ember(v) for k, v in tf.state_dict().items()})
    for m, ao in ((tf, torch.ao.quantization), (ef, ember.ao.quantization)):
        m.eval()
        m.qconfig = ao.default_qconfig
    tp, ep = torch.ao.quantization.prepare(tf), ember.ao.quantization.prepare(ef)
    data = rand(4, 3, 5, seed=11, scale=2.0)
    tp(data)
    ep(tensor_to_ember(data))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tq, eq = torch.ao.quantization.convert(tp), ember.ao.quantization.convert(ep)
    assert repr(eq) == repr(tq).replace("torch.", "ember.")
    assert type(eq[1]) is ember.ao.nn.quantized.PReLU
    assert same(eq[1].weight, tq[1].weight)
    assert np.array_equal(eq(tensor_to_ember(data)).numpy(), tq(data).numpy())


# ---- embedding bags ----

@pytest.mark.parametrize("shape", [(10, 8), (2, 3, 5), (7,), (4, 1)])
@pytest.mark.parametrize("half", [False, True])
def test_byte_prepack_unpack_match_torch(shape, half):
    w = rand(*shape, scale=2.0)
    if half:
        # torch 1.13's non-FBGEMM path writes a float16 table's first rows wrongly; ember packs
        # the float16 values as the float32 table of the same values (torch's float result)
        w = w.half()
        pt = TQ.embedding_bag_byte_prepack(w.float())
    else:
        pt = TQ.embedding_bag_byte_prepack(w)
    pe = EQ.embedding_bag_byte_prepack(tensor_to_ember(w))
    assert same(pe, pt)
    assert same(EQ.embedding_bag_byte_unpack(pe), TQ.embedding_bag_byte_unpack(pt))


def test_constant_rows_and_prepack_errors():
    w = torch.ones(3, 4) * 0.5
    w[1] = torch.tensor([1e-3, -7.0, 1e6, 0.0])
    assert same(EQ.embedding_bag_byte_prepack(tensor_to_ember(w)), TQ.embedding_bag_byte_prepack(w))
    assert same(EQ.embedding_bag_4bit_prepack(tensor_to_ember(w)), TQ.embedding_bag_4bit_prepack(w))
    for op, msg in (("embedding_bag_byte_prepack", "'embedding_bag_byte_prepack' only support "
                                                   "float32 or float16."),
                    ("embedding_bag_4bit_prepack", "'qembeddingbag_nbit_prepack' only support "
                                                   "float32 or float16.")):
        with pytest.raises(RuntimeError) as t:
            getattr(TQ, op)(torch.ones(3, 4, dtype=torch.float64))
        with pytest.raises(RuntimeError) as e:
            getattr(EQ, op)(ember.ones(3, 4, dtype=ember.float64))
        assert str(e.value) == str(t.value) == msg
    with pytest.raises(RuntimeError, match="only works for the number of columns a multiple of 2"):
        EQ.embedding_bag_4bit_prepack(ember.randn(3, 5))
    with pytest.raises(RuntimeError, match="expected scalar type Byte but found Float"):
        EQ.embedding_bag_byte_unpack(ember.ones(3, 12))


@pytest.mark.parametrize("shape", [(10, 8), (5, 2), (6, 32)])
def test_4bit_prepack_unpack_match_torch(shape):
    w = rand(*shape, seed=3, scale=1.5)
    pt, pe = TQ.embedding_bag_4bit_prepack(w), EQ.embedding_bag_4bit_prepack(tensor_to_ember(w))
    assert same(pe, pt)
    assert same(EQ.embedding_bag_4bit_unpack(pe), TQ.embedding_bag_4bit_unpack(pt))
    pth = TQ.embedding_bag_4bit_prepack(w.half())
    assert same(EQ.embedding_bag_4bit_prepack(tensor_to_ember(w.half())), pth)


def bag_cases():
    yield dict(indices=[1, 2, 4, 5, 4, 3, 2, 9], offsets=[0, 4])
    yield dict(indices=[1, 2, 4, 5, 4, 3, 2, 9], offsets=[0, 1, 3, 8], include_last_offset=True)
    yield dict(indices=[0, 9, 9, 3], offsets=[0, 0, 2])                       # an empty bag
    yield dict(indices=[1, 2, 3, 4, 5, 6], offsets=None, two_d=True)         # fixed-length bags
    yield dict(indices=[1, 2, 3, 4], offsets=[0, 2], psw=[0.5, -2.0, 1.5, 3.0])
    yield dict(indices=[1, 2, 3, 4], offsets=[0, 2], int32=True)
    yield dict(indices=[1, 2, 3, 4], offsets=[1, 3])                         # offsets[0] != 0


@pytest.mark.parametrize("bits", [8, 4])
@pytest.mark.parametrize("case", list(bag_cases()))
def test_rowwise_offsets_match_torch(bits, case):
    w = rand(10, 16, seed=4, scale=2.0)
    prepack = "embedding_bag_byte_prepack" if bits == 8 else "embedding_bag_4bit_prepack"
    op = "embedding_bag_byte_rowwise_offsets" if bits == 8 else "embedding_bag_4bit_rowwise_offsets"
    pt = getattr(TQ, prepack)(w)
    pe = getattr(EQ, prepack)(tensor_to_ember(w))
    dt = torch.int32 if case.get("int32") else torch.int64
    idx = torch.tensor(case["indices"], dtype=dt)
    if case.get("two_d"):
        idx = idx.reshape(2, 3)
    off = None if case["offsets"] is None else torch.tensor(case["offsets"], dtype=dt)
    kw = dict(include_last_offset=case.get("include_last_offset", False))
    if "psw" in case:
        kw["per_sample_weights"] = torch.tensor(case["psw"])
    rt = getattr(TQ, op)(pt, idx, off, **kw)
    ekw = {k: (tensor_to_ember(v) if isinstance(v, torch.Tensor) else v) for k, v in kw.items()}
    re_ = getattr(EQ, op)(pe, tensor_to_ember(idx), tensor_to_ember(off), **ekw)
    assert same(re_, rt)


def test_rowwise_offsets_pruned_and_errors():
    w = rand(6, 8, seed=5)
    pt, pe = TQ.embedding_bag_byte_prepack(w), EQ.embedding_bag_byte_prepack(tensor_to_ember(w))
    idx, off = torch.tensor([0, 1, 2, 3]), torch.tensor([0, 2])
    mapping = torch.tensor([3, -1, 0, 5], dtype=torch.int32)
    rt = TQ.embedding_bag_byte_rowwise_offsets(pt, idx, off, pruned_weights=True,
                                               compressed_indices_mapping=mapping)
    re_ = EQ.embedding_bag_byte_rowwise_offsets(pe, tensor_to_ember(idx), tensor_to_ember(off),
                                                pruned_weights=True,
                                                compressed_indices_mapping=tensor_to_ember(mapping))
    assert same(re_, rt)
    cases = [
        ((torch.tensor([1, 2, 3]),), "embedding_bag_byte expects offsets to be set for 1D indices."),
        ((torch.tensor([[1, 2], [3, 4]]), torch.tensor([0, 1])),
         "embedding_bag_byte operator: input is 2D, then offsets has to be None, as input is "
         "treated is a mini-batch of fixed length sequences."),
        ((torch.tensor([1, 20]), torch.tensor([0])), "Invalid indices data"),
        ((torch.tensor([1.0, 2.0]), torch.tensor([0])),
         "Expect 32 or 64 bit indices, but found Float instead."),
        ((torch.tensor([1, 2, 3]), torch.tensor([0, 5])),
         "Expect the lengths data to be less than indices size"),
    ]
    for args, msg in cases:
        with pytest.raises(RuntimeError) as t:
            TQ.embedding_bag_byte_rowwise_offsets(pt, *args)
        with pytest.raises(RuntimeError) as e:
            EQ.embedding_bag_byte_rowwise_offsets(pe, *[tensor_to_ember(a) for a in args])
        assert str(t.value) == msg
        assert str(e.value) == msg


def test_embedding_ops_are_seen_by_dispatch_modes():
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    w = ember.randn(5, 4)
    with Log():
        p = EQ.embedding_bag_byte_prepack(w)
        EQ.embedding_bag_byte_rowwise_offsets(p, ember.tensor([0, 1]), ember.tensor([0]))
    assert any("embedding_bag_byte_prepack" in s for s in seen)
    assert any("embedding_bag_byte_rowwise_offsets" in s for s in seen)


@pytest.mark.skipif(not hasattr(ember, "choose_qparams_optimized"),
                    reason="aten::choose_qparams_optimized is another part's op, not in this build")
def test_4bit_prepack_optimized_qparams_matches_torch():
    w = rand(6, 16, seed=12, scale=1.5)
    pt = TQ.embedding_bag_4bit_prepack(w, True)
    pe = EQ.embedding_bag_4bit_prepack(tensor_to_ember(w), True)
    assert same(pe, pt)
    assert same(EQ.embedding_bag_4bit_prepack(tensor_to_ember(w), True, 100, 0.3),
                TQ.embedding_bag_4bit_prepack(w, True, 100, 0.3))


@pytest.mark.skipif(hasattr(ember, "choose_qparams_optimized"), reason="the op exists here")
def test_4bit_prepack_optimized_qparams_without_the_search_op_says_so():
    with pytest.raises(RuntimeError, match="needs aten::choose_qparams_optimized"):
        EQ.embedding_bag_4bit_prepack(ember.randn(3, 4), True)
