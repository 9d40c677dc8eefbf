"""The fused kernels of the sequence-model training step against torch 1.13 (issue 16's
benchmark work): native_layer_norm and its backward (now primitives with one-pass kernels),
GELU's vectorized erf, the last-dim softmax / log_softmax backward, softmax over masked scores,
and the pre-norm TransformerEncoderLayer that now normalises once. Odd sizes throughout, so the
vector loops' tails run."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def pair(shape, seed, dtype=np.float32, scale=1.0, shift=0.0):
    a = (np.random.RandomState(seed).randn(*shape) * scale + shift).astype(dtype)
    return ember.from_numpy(a.copy()).requires_grad_(True), torch.from_numpy(a.copy()).requires_grad_(True)


def close(e, t, rtol, atol):
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


TOL = {np.float32: (2e-5, 2e-5), np.float64: (1e-10, 1e-10)}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,normalized", [((3, 5, 17), (17,)), ((2, 7, 3, 11), (3, 11)),
                                              ((1, 3), (3,)), ((129, 64), (64,)), ((4, 33), (33,))])
@pytest.mark.parametrize("affine", ["both", "weight", "none"])
def test_layer_norm_values_and_gradients(dtype, shape, normalized, affine):
    xe, xt = pair(shape, 0, dtype, scale=3.0, shift=1.5)
    we, wt = pair(normalized, 1, dtype)
    be, bt = pair(normalized, 2, dtype)
    ge, gt = pair(shape, 3, dtype)
    w = (we, wt) if affine != "none" else (None, None)
    b = (be, bt) if affine == "both" else (None, None)
    ye = ember.nn.functional.layer_norm(xe, normalized, w[0], b[0], 1e-5)
    yt = torch.nn.functional.layer_norm(xt, normalized, w[1], b[1], 1e-5)
    rtol, atol = TOL[dtype]
    close(ye, yt, rtol, atol)
    assert ye.grad_fn.name() == yt.grad_fn.name() == "NativeLayerNormBackward0"
    ye.backward(ge.detach())
    yt.backward(gt.detach())
    close(xe.grad, xt.grad, 4 * rtol, 4 * atol)
    if affine != "none":
        close(we.grad, wt.grad, 4 * rtol, 4 * atol * shape[0])
    if affine == "both":
        close(be.grad, bt.grad, 4 * rtol, 4 * atol * shape[0])


def test_layer_norm_grad_fn_and_statistics():
    xe, xt = pair((4, 6, 9), 0)
    ye, me, re = ember.native_layer_norm(xe, [6, 9], None, None, 1e-5)
    yt, mt, rt = torch.native_layer_norm(xt, [6, 9], None, None, 1e-5)
    assert ye.grad_fn.name() == yt.grad_fn.name() == "NativeLayerNormBackward0"
    assert tuple(me.shape) == tuple(mt.shape) == (4, 1, 1)
    assert me.grad_fn is None and re.grad_fn is None
    close(me, mt, 1e-6, 1e-6)
    close(re, rt, 1e-5, 1e-6)


def test_layer_norm_double_backward_matches_torch():
    xe, xt = pair((3, 7), 0, np.float64, scale=2.0)
    we, wt = pair((7,), 1, np.float64)
    be, bt = pair((7,), 2, np.float64)
    out = []
    for lib, x, w, b in ((ember, xe, we, be), (torch, xt, wt, bt)):
        y = lib.nn.functional.layer_norm(x, (7,), w, b, 1e-5)
        gx, gw = lib.autograd.grad((y * y.detach().sin()).sum(), (x, w), create_graph=True)
        # (the gradients do not depend on the bias: it is not in their graph)
        hx, hw = lib.autograd.grad((gx * gx).sum() + gw.pow(3).sum(), (x, w))
        out.append((gx, gw, hx, hw))
    for e, t in zip(*out):
        close(e, t, 1e-9, 1e-10)


def test_native_layer_norm_backward_called_directly_is_differentiable():
    xe, xt = pair((5, 8), 0, np.float64)
    ge, gt = pair((5, 8), 1, np.float64)
    we, wt = pair((8,), 2, np.float64)
    res = []
    for lib, x, g, w in ((ember, xe, ge, we), (torch, xt, gt, wt)):
        _, mean, rstd = lib.native_layer_norm(x, [8], w, None, 1e-5)
        gi, gw, gb = lib.ops.aten.native_layer_norm_backward(g, x, [8], mean, rstd, w, None,
                                                             [True, True, False])
        assert gb is None
        hx, hg = lib.autograd.grad((gi.sin()).sum() + gw.sum(), (x, g))
        res.append((gi, gw, hx, hg))
    for e, t in zip(*res):
        close(e, t, 1e-9, 1e-10)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_layer_norm_16bit_computes_in_float(dtype):
    a = np.random.RandomState(0).randn(5, 19).astype(np.float32)
    xe = ember.from_numpy(a).to(getattr(ember, dtype))
    ref = ember.nn.functional.layer_norm(ember.from_numpy(a), (19,))
    ye = ember.nn.functional.layer_norm(xe, (19,))
    assert ye.dtype == getattr(ember, dtype)
    _, mean, rstd = ember.native_layer_norm(xe, [19], None, None, 1e-5)
    assert mean.dtype == ember.float32 and rstd.dtype == ember.float32
    np.testing.assert_allclose(ye.float().numpy(), ref.numpy(), rtol=2e-2, atol=2e-2)


def test_gelu_float32_matches_torch():
    # torch 1.13's vectorized GELU uses the same erf formula: values within a few float ulps.
    a = np.concatenate([np.linspace(-12, 12, 100003), [0.0, -0.0, 1e-30, -1e-30, 40.0, -40.0]]).astype(np.float32)
    xe, xt = ember.from_numpy(a.copy()).requires_grad_(True), torch.from_numpy(a.copy()).requires_grad_(True)
    ye, yt = ember.nn.functional.gelu(xe), torch.nn.functional.gelu(xt)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-6, atol=4e-7)
    g = np.random.RandomState(0).randn(a.size).astype(np.float32)
    ye.backward(ember.from_numpy(g.copy()))
    yt.backward(torch.from_numpy(g.copy()))
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-6)
    special = np.array([np.inf, -np.inf, np.nan], dtype=np.float32)
    np.testing.assert_array_equal(ember.nn.functional.gelu(ember.from_numpy(special.copy())).numpy(),
                                  torch.nn.functional.gelu(torch.from_numpy(special.copy())).numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1), (3, 17), (64, 65), (2, 3, 31)])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_backward_last_dim(dtype, shape, log):
    xe, xt = pair(shape, 0, dtype, scale=3.0)
    ge, gt = pair(shape, 1, dtype)
    fe = ember.log_softmax if log else ember.softmax
    ft = torch.log_softmax if log else torch.softmax
    ye, yt = fe(xe, -1), ft(xt, -1)
    ye.backward(ge.detach())
    yt.backward(gt.detach())
    rtol, atol = TOL[dtype]
    close(ye, yt, rtol, atol)
    close(xe.grad, xt.grad, rtol, atol)


def test_softmax_over_causal_mask():
    a = np.random.RandomState(0).randn(4, 37, 37).astype(np.float32)
    mask = np.triu(np.full((37, 37), -np.inf, dtype=np.float32), 1)
    se = ember.softmax(ember.from_numpy(a) + ember.from_numpy(mask), -1)
    st = torch.softmax(torch.from_numpy(a) + torch.from_numpy(mask), -1)
    np.testing.assert_array_equal(se.numpy() == 0, st.numpy() == 0)
    np.testing.assert_allclose(se.numpy(), st.numpy(), rtol=1e-6, atol=1e-7)


def test_pre_norm_encoder_layer_matches_torch():
    torch.manual_seed(0)
    tl = torch.nn.TransformerEncoderLayer(32, 4, 48, 0.0, activation="gelu", batch_first=True,
                                          norm_first=True)
    el = ember.nn.TransformerEncoderLayer(32, 4, 48, 0.0, activation="gelu", batch_first=True,
                                          norm_first=True)
    el.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy()) for k, v in tl.state_dict().items()})
    xe, xt = pair((3, 11, 32), 5)
    mask_t = torch.nn.Transformer.generate_square_subsequent_mask(11)
    mask_e = ember.nn.Transformer.generate_square_subsequent_mask(11)
    ye, yt = el(xe, src_mask=mask_e), tl(xt, src_mask=mask_t)
    close(ye, yt, 1e-5, 1e-5)
    ye.sum().backward()
    yt.sum().backward()
    close(xe.grad, xt.grad, 1e-4, 1e-5)
    grads_t = dict(tl.named_parameters())
    for name, p in el.named_parameters():
        close(p.grad, grads_t[name].grad, 1e-4, 1e-4)
