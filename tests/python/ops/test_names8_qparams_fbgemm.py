"""torch.choose_qparams_optimized against torch 1.13, and the legacy fbgemm_* functions with the
quantized RNN cells over them (names8). Debian's torch 1.13 has no FBGEMM ("This PyTorch
installation was not built with FBGEMM operators"), so those are checked against their
definition: per-tensor int8 weights, the activation quantized to uint8 over its own range,
int32 products, and PyTorch's cell formulas."""
import warnings

import numpy as np
import pytest
import torch

import ember


def e(t):
    return ember.from_numpy(t.detach().numpy().copy())


@pytest.mark.parametrize("bit_width", [8, 4, 2])
def test_choose_qparams_optimized_matches_torch(bit_width):
    g = torch.Generator().manual_seed(bit_width)
    for n, numel, n_bins, ratio in ((64, 64, 200, 0.16), (100, 37, 100, 0.5), (10, 10, 200, 0.16),
                                    (50, 50, 0, 0.16), (50, 50, 200, 1.5), (30, 0, 200, 0.16)):
        x = torch.randn(n, generator=g) * 3
        want = torch.choose_qparams_optimized(x, numel, n_bins, ratio, bit_width)
        got = ember.choose_qparams_optimized(e(x), numel, n_bins, ratio, bit_width)
        assert isinstance(got, tuple) and len(got) == 2
        for a, b in zip(got, want):
            assert a.dtype == ember.float32 and tuple(a.shape) == (1,)
            assert a.numpy().tobytes() == b.numpy().tobytes(), (a, b)
    same = torch.choose_qparams_optimized(torch.ones(10), 10, 200, 0.16, 4)
    got = ember.choose_qparams_optimized(ember.ones(10), 10, 200, 0.16, 4)
    assert [t.item() for t in got] == [t.item() for t in same]


def test_choose_qparams_optimized_errors():
    x = torch.randn(8)
    with pytest.raises(RuntimeError) as te:
        torch.choose_qparams_optimized(x, 9, 200, 0.16, 8)
    with pytest.raises(RuntimeError) as ee:
        ember.choose_qparams_optimized(e(x), 9, 200, 0.16, 8)
    assert str(ee.value) == str(te.value)
    with pytest.raises(RuntimeError) as te:
        torch.choose_qparams_optimized(x.double(), 8, 200, 0.16, 8)
    with pytest.raises(RuntimeError) as ee:
        ember.choose_qparams_optimized(e(x).double(), 8, 200, 0.16, 8)
    assert str(ee.value) == str(te.value)
    with pytest.raises(RuntimeError, match="numel >= 0"):  # torch crashes
        ember.choose_qparams_optimized(e(x), -1, 200, 0.16, 8)


def test_torch_has_no_fbgemm_here():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="not built with FBGEMM"):
            torch.fbgemm_linear_quantize_weight(torch.randn(3, 4))


def quantize_weight(w):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ember.fbgemm_linear_quantize_weight(w)


def test_quantize_weight_and_pack():
    w = ember.randn(5, 7)
    q, col, scale, zp = quantize_weight(w)
    assert q.dtype == ember.int8 and col.dtype == ember.int32 and tuple(col.shape) == (5,)
    assert isinstance(scale, float) and isinstance(zp, int)
    lo, hi = min(w.min().item(), 0.0), max(w.max().item(), 0.0)
    assert abs(scale - (hi - lo) / 255) < 1e-6
    deq = (q.double() - zp) * scale
    assert (deq - w.double()).abs().max().item() <= scale / 2 + 1e-6
    assert col.tolist() == (q.long().sum(1) - zp * 7).tolist()
    packed = ember.fbgemm_pack_quantized_matrix(q)
    assert packed.dtype == ember.uint8 and packed.dim() == 1
    assert ember.fbgemm_pack_quantized_matrix(q, 7, 5).tolist() == packed.tolist()  # K, N ignored as in torch


def int8_linear_reference(x, q, col, scale, zp, b):
    """The definition: x quantized to uint8 over [min(x, 0), max(x, 0)], int32 products with the
    zero points' cross terms removed, scaled, plus bias."""
    xn = x.numpy().astype(np.float32)
    lo, hi = min(float(xn.min()), 0.0), max(float(xn.max()), 0.0)
    a_scale = np.float32((hi - lo) / 255.0)
    a_zp = int(np.clip(np.round(0 - lo / float(a_scale)), 0, 255))
    xq = np.clip(np.rint(xn / a_scale + a_zp), 0, 255).astype(np.int64)
    acc = (xq - a_zp) @ (q.numpy().astype(np.int64) - zp).T
    return acc.astype(np.float32) * a_scale * np.float32(scale) + b.numpy()


def test_int8_linear_against_its_definition_and_float():
    ember.manual_seed(0)
    w, b, x = ember.randn(6, 8), ember.randn(6), ember.randn(2, 3, 8)
    q, col, scale, zp = quantize_weight(w)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        packed = ember.fbgemm_pack_quantized_matrix(q)
        y = ember.fbgemm_linear_int8_weight_fp32_activation(x, q, packed, col, scale, zp, b)
        y2 = ember.fbgemm_linear_int8_weight(x, q, packed, col, scale, zp, b)
    assert y.dtype == ember.float32 and tuple(y.shape) == (2, 3, 6)
    assert y.tolist() == y2.tolist()
    ref = int8_linear_reference(x.reshape(6, 8), q, col, scale, zp, b).reshape(2, 3, 6)
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(y.numpy(), (x @ w.t() + b).numpy(), atol=0.1)


def test_int8_linear_errors():
    w, b = ember.randn(6, 8), ember.randn(6)
    q, col, scale, zp = quantize_weight(w)
    packed = ember.fbgemm_pack_quantized_matrix(q)
    f = ember.fbgemm_linear_int8_weight_fp32_activation
    with pytest.raises(RuntimeError, match=r"Expected input.dim\(\) >= 2 to be true"):
        f(ember.randn(8), q, packed, col, scale, zp, b)
    with pytest.raises(RuntimeError, match=r"Expected K == weight.size\(1\) to be true"):
        f(ember.randn(2, 7), q, packed, col, scale, zp, b)
    with pytest.raises(RuntimeError, match="packed weight made by fbgemm_pack_quantized_matrix"):
        f(ember.randn(2, 8), q, ember.zeros(40, dtype=ember.uint8), col, scale, zp, b)
    with pytest.raises(RuntimeError, match=r"weight_scale.isFloatingPoint"):
        f(ember.randn(2, 8), q, packed, col, 1, zp, b)


def test_fp16_linear():
    w, b, x = ember.randn(4, 5) * 100, ember.randn(4), ember.randn(3, 5)
    w[0, 0] = 1e6
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        packed = ember.fbgemm_pack_gemm_matrix_fp16(w)
    assert any("FOUND weight out of range" in str(r.message) for r in rec)
    y = ember.fbgemm_linear_fp16_weight_fp32_activation(x, packed, b)
    w16 = w.clamp(-65504, 65504).half().float()
    np.testing.assert_allclose(y.numpy(), (x @ w16.t() + b).numpy(), rtol=1e-5, atol=1e-3)
    assert ember.fbgemm_linear_fp16_weight(x, packed, b).tolist() == y.tolist()


def cell_params(hidden, inputs, gates, seed):
    ember.manual_seed(seed)
    w_ih, w_hh = ember.randn(gates * hidden, inputs), ember.randn(gates * hidden, hidden)
    b_ih, b_hh = ember.randn(gates * hidden), ember.randn(gates * hidden)
    qi, ci, si, zi = quantize_weight(w_ih)
    qh, ch, sh, zh = quantize_weight(w_hh)
    pi, ph = ember.fbgemm_pack_quantized_matrix(qi), ember.fbgemm_pack_quantized_matrix(qh)
    args = (qi, qh, b_ih, b_hh, pi, ph, ci, ch, si, sh, zi, zh)
    return args, (w_ih, w_hh, b_ih, b_hh)


def lin(x, q, col, s, zp, b):
    return ember.from_numpy(int8_linear_reference(x, q, col, s, zp, b))


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
def test_quantized_cells(kind):
    gates = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}[kind]
    args, floats = cell_params(5, 3, gates, 1)
    qi, qh, b_ih, b_hh, pi, ph, ci, ch, si, sh, zi, zh = args
    x, h, c = ember.randn(2, 3), ember.randn(2, 5), ember.randn(2, 5)
    gi, gh = lin(x, qi, ci, si, zi, b_ih), lin(h, qh, ch, sh, zh, b_hh)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "lstm":
            hy, cy = ember.quantized_lstm_cell(x, [h, c], *args)
            i, f, g, o = (gh + gi).chunk(4, 1)
            cy_ref = f.sigmoid() * c + i.sigmoid() * g.tanh()
            np.testing.assert_allclose(cy.numpy(), cy_ref.numpy(), rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(hy.numpy(), (o.sigmoid() * cy_ref.tanh()).numpy(), rtol=1e-5, atol=1e-5)
            fh, fc = ember.lstm_cell(x, [h, c], *floats)
            np.testing.assert_allclose(hy.numpy(), fh.numpy(), atol=0.1)
            return
        out = getattr(ember, f"quantized_{kind}_cell")(x, h, *args)
    if kind == "gru":
        r, z, n = (gh[:, :5] + gi[:, :5]).sigmoid(), (gh[:, 5:10] + gi[:, 5:10]).sigmoid(), None
        n = (gi[:, 10:] + gh[:, 10:] * r).tanh()
        ref = (h - n) * z + n
    elif kind == "rnn_tanh":
        ref = (gh + gi).tanh()
    else:
        ref = (gh + gi).relu()
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-5)
    fl = getattr(ember, f"{kind}_cell")(x, h, *floats)
    np.testing.assert_allclose(out.numpy(), fl.numpy(), atol=0.15)


def test_cells_are_op_rows():
    for name in ("quantized_lstm_cell", "quantized_gru_cell", "quantized_rnn_relu_cell", "quantized_rnn_tanh_cell",
                 "fbgemm_linear_int8_weight_fp32_activation", "fbgemm_pack_quantized_matrix",
                 "choose_qparams_optimized"):
        assert getattr(ember.ops.aten, name) is not None
    assert str(ember.ops.aten.fbgemm_linear_quantize_weight.default._schema) == str(
        torch.ops.aten.fbgemm_linear_quantize_weight.default._schema)
