"""nn.RNN / LSTM / GRU and their cells against torch 1.13 with the same weights: outputs, final
states and gradients for every option (layers, bidirectional, batch_first, bias, proj_size,
nonlinearity, given or default hx, unbatched input, PackedSequence input), parameter names and
order, reprs, initialisation bounds, errors; the fused gate kernels against the unfused math;
nn.utils.rnn round trips."""
import numpy as np
import pytest
import torch

import ember
from ember import nn
from ember.nn.utils import rnn as ernn
from seq_helpers import arr, close, copy_weights, grads_close, same_error, to_ember

trnn = torch.nn.utils.rnn


def rand(*shape, seed=0, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=dtype)


def pair(cls, *args, dtype=torch.float64, **kw):
    torch.manual_seed(0)
    t = getattr(torch.nn, cls)(*args, **kw).to(dtype)
    e = getattr(nn, cls)(*args, **kw)
    e = e.double() if dtype == torch.float64 else e
    copy_weights(e, t)
    return e, t


CONFIGS = [
    dict(),
    dict(num_layers=2),
    dict(bidirectional=True),
    dict(num_layers=2, bidirectional=True, batch_first=True),
    dict(bias=False),
    dict(num_layers=3, bidirectional=True, bias=False),
]


def flatten_state(h):
    return h if isinstance(h, tuple) else (h,)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("kw", CONFIGS, ids=str)
@pytest.mark.parametrize("with_hx", [False, True])
def test_rnns_match_torch(cls, kw, with_hx):
    e, t = pair(cls, 5, 6, **kw)
    assert repr(e) == repr(t)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    T, N = 4, 3
    x = rand(N, T, 5, seed=1) if kw.get("batch_first") else rand(T, N, 5, seed=1)
    tx = x.clone().requires_grad_()
    ex = to_ember(tx)
    L = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    if with_hx:
        h0 = rand(L, N, 6, seed=2).requires_grad_()
        thx = (h0, rand(L, N, 6, seed=3).requires_grad_()) if cls == "LSTM" else h0
        ehx = tuple(to_ember(h) for h in thx) if cls == "LSTM" else to_ember(thx)
        to, th = t(tx, thx)
        eo, eh = e(ex, ehx)
    else:
        to, th = t(tx)
        eo, eh = e(ex)
    close(eo, to, rtol=1e-9, atol=1e-11)
    for a, b in zip(flatten_state(eh), flatten_state(th)):
        close(a, b, rtol=1e-9, atol=1e-11)
    g = rand(*to.shape, seed=4)
    loss_t = (to * g).sum() + sum(h.sum() for h in flatten_state(th))
    loss_e = (eo * to_ember(g)).sum() + sum(h.sum() for h in flatten_state(eh))
    loss_t.backward()
    loss_e.backward()
    grads_close(e.named_parameters(), t.named_parameters(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(arr(ex.grad), arr(tx.grad), rtol=1e-8, atol=1e-10)
    if with_hx:
        for a, b in zip(flatten_state(ehx), flatten_state(thx)):
            np.testing.assert_allclose(arr(a.grad), arr(b.grad), rtol=1e-8, atol=1e-10)


def test_rnn_relu_and_float32():
    e, t = pair("RNN", 4, 5, num_layers=2, nonlinearity="relu")
    assert repr(e) == repr(t) == "RNN(4, 5, num_layers=2)"
    x = rand(6, 2, 4, seed=1)
    close(e(to_ember(x))[0], t(x)[0], rtol=1e-9, atol=1e-11)
    e, t = pair("LSTM", 4, 5, dtype=torch.float32)
    x = rand(6, 2, 4, seed=1, dtype=torch.float32)
    close(e(to_ember(x))[0], t(x)[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kw", [dict(proj_size=3), dict(proj_size=2, num_layers=2, bidirectional=True)],
                         ids=str)
def test_lstm_proj_size(kw):
    e, t = pair("LSTM", 5, 6, **kw)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    x = rand(4, 3, 5, seed=1)
    tx = x.clone().requires_grad_()
    to, (th, tc) = t(tx)
    eo, (eh, ec) = e(to_ember(tx))
    close(eo, to, rtol=1e-9, atol=1e-11)
    close(eh, th, rtol=1e-9, atol=1e-11)
    close(ec, tc, rtol=1e-9, atol=1e-11)
    (to.sum() + th.sum() + tc.sum()).backward()
    (eo.sum() + eh.sum() + ec.sum()).backward()
    grads_close(e.named_parameters(), t.named_parameters(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_unbatched_input(cls):
    e, t = pair(cls, 3, 4, num_layers=2)
    x = rand(5, 3, seed=1)
    to, th = t(x)
    eo, eh = e(to_ember(x))
    close(eo, to, rtol=1e-9, atol=1e-11)
    for a, b in zip(flatten_state(eh), flatten_state(th)):
        close(a, b, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("kw", [dict(), dict(num_layers=2, bidirectional=True)], ids=str)
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequences_match_torch(cls, kw, enforce_sorted):
    e, t = pair(cls, 3, 4, **kw)
    lengths = [5, 3, 3, 1] if enforce_sorted else [3, 5, 1, 3]
    padded = rand(5, 4, 3, seed=1).requires_grad_()
    tp = trnn.pack_padded_sequence(padded, lengths, enforce_sorted=enforce_sorted)
    ep_in = to_ember(padded)
    ep = ernn.pack_padded_sequence(ep_in, lengths, enforce_sorted=enforce_sorted)
    close(ep.data, tp.data)
    assert arr(ep.batch_sizes).tolist() == tp.batch_sizes.tolist()
    if not enforce_sorted:
        assert sorted(arr(ep.sorted_indices).tolist()) == [0, 1, 2, 3]
        assert arr(ep.unsorted_indices).tolist() == tp.unsorted_indices.tolist()
    L = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    h0 = rand(L, 4, 4, seed=2)
    thx = (h0, rand(L, 4, 4, seed=3)) if cls == "LSTM" else h0
    ehx = tuple(to_ember(h) for h in thx) if cls == "LSTM" else to_ember(thx)
    to, th = t(tp, thx)
    eo, eh = e(ep, ehx)
    assert isinstance(eo, ernn.PackedSequence)
    close(eo.data, to.data, rtol=1e-9, atol=1e-11)
    for a, b in zip(flatten_state(eh), flatten_state(th)):
        close(a, b, rtol=1e-9, atol=1e-11)
    tpad, tlen = trnn.pad_packed_sequence(to, batch_first=True)
    epad, elen = ernn.pad_packed_sequence(eo, batch_first=True)
    close(epad, tpad, rtol=1e-9, atol=1e-11)
    assert arr(elen).tolist() == tlen.tolist()
    tpad.sum().backward()
    epad.sum().backward()
    grads_close(e.named_parameters(), t.named_parameters(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(arr(ep_in.grad), arr(padded.grad), rtol=1e-8, atol=1e-10)


def test_rnn_utils_round_trips():
    seqs_t = [rand(n, 2, seed=n) for n in (4, 2, 3)]
    seqs_e = [to_ember(s) for s in seqs_t]
    for bf in (False, True):
        close(ernn.pad_sequence(seqs_e, batch_first=bf, padding_value=-1.0),
              trnn.pad_sequence(seqs_t, batch_first=bf, padding_value=-1.0))
    tp = trnn.pack_sequence(seqs_t, enforce_sorted=False)
    ep = ernn.pack_sequence(seqs_e, enforce_sorted=False)
    close(ep.data, tp.data)
    assert arr(ep.batch_sizes).tolist() == tp.batch_sizes.tolist()
    padded, lengths = ernn.pad_packed_sequence(ep, total_length=6)
    tpadded, tlengths = trnn.pad_packed_sequence(tp, total_length=6)
    close(padded, tpadded)
    assert arr(lengths).tolist() == tlengths.tolist()
    back = ernn.unpack_sequence(ep)
    for a, b in zip(back, seqs_e):
        np.testing.assert_array_equal(arr(a), arr(b))
    assert ep._fields == tp._fields
    assert ep.double().data.dtype == ember.float64
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        ernn.pack_sequence(seqs_e)
    same_error(lambda lib: (ernn if lib is ember else trnn).pad_packed_sequence(
        ep if lib is ember else tp, total_length=2))
    same_error(lambda lib: (ernn if lib is ember else trnn).pack_padded_sequence(
        (ember if lib is ember else torch).zeros(3, 2, 1), [2, 0]))


CELLS = ["RNNCell", "LSTMCell", "GRUCell"]


@pytest.mark.parametrize("cls", CELLS)
@pytest.mark.parametrize("bias", [True, False])
def test_cells_match_torch(cls, bias):
    e, t = pair(cls, 4, 5, bias=bias)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    x = rand(3, 4, seed=1)
    tx = x.clone().requires_grad_()
    ex = to_ember(tx)
    h = rand(3, 5, seed=2)
    if cls == "LSTMCell":
        thx = (h, rand(3, 5, seed=3))
        th = t(tx, thx)
        eh = e(ex, tuple(to_ember(a) for a in thx))
        to, eo = th[0] + th[1], eh[0] + eh[1]
    else:
        to, eo = t(tx, h), e(ex, to_ember(h))
    close(eo, to, rtol=1e-9, atol=1e-11)
    to.sum().backward()
    eo.sum().backward()
    grads_close(e.named_parameters(), t.named_parameters(), rtol=1e-8, atol=1e-10)
    # no hx, unbatched
    xu = rand(4, seed=4)
    tu, eu = t(xu), e(to_ember(xu))
    for a, b in zip(flatten_state(eu), flatten_state(tu)):
        close(a, b, rtol=1e-9, atol=1e-11)


def test_rnncell_relu():
    e, t = pair("RNNCell", 3, 4, nonlinearity="relu")
    assert repr(e) == repr(t)
    x = rand(2, 3, seed=1)
    close(e(to_ember(x)), t(x), rtol=1e-9, atol=1e-11)


def test_fused_cells_equal_unfused_math():
    # The fused gate kernels (float and double) against the cells' math written out.
    for dtype in (ember.float32, ember.float64):
        x, h, c = ember.randn(3, 4, dtype=dtype), ember.randn(3, 5, dtype=dtype), ember.randn(3, 5, dtype=dtype)
        wi, wh = ember.randn(20, 4, dtype=dtype), ember.randn(20, 5, dtype=dtype)
        bi, bh = ember.randn(20, dtype=dtype), ember.randn(20, dtype=dtype)
        hy, cy = ember.lstm_cell(x, [h, c], wi, wh, bi, bh)
        gates = (x @ wi.t() + bi + h @ wh.t() + bh).chunk(4, 1)
        c_ref = gates[1].sigmoid() * c + gates[0].sigmoid() * gates[2].tanh()
        h_ref = gates[3].sigmoid() * c_ref.tanh()
        tol = 1e-5 if dtype == ember.float32 else 1e-12
        np.testing.assert_allclose(arr(cy), arr(c_ref), rtol=tol, atol=tol)
        np.testing.assert_allclose(arr(hy), arr(h_ref), rtol=tol, atol=tol)
        wi3, wh3 = wi[:15], wh[:15]
        bi3, bh3 = bi[:15], bh[:15]
        hy = ember.gru_cell(x, h, wi3, wh3, bi3, bh3)
        gi, gh = (x @ wi3.t() + bi3).chunk(3, 1), (h @ wh3.t() + bh3).chunk(3, 1)
        r, z = (gi[0] + gh[0]).sigmoid(), (gi[1] + gh[1]).sigmoid()
        n = (gi[2] + r * gh[2]).tanh()
        np.testing.assert_allclose(arr(hy), arr((1 - z) * n + z * h), rtol=tol, atol=tol)


def test_fused_cell_gradcheck():
    ig = ember.randn(2, 12, dtype=ember.float64, requires_grad=True)
    hg = ember.randn(2, 12, dtype=ember.float64, requires_grad=True)
    cx = ember.randn(2, 3, dtype=ember.float64, requires_grad=True)
    b = ember.randn(12, dtype=ember.float64, requires_grad=True)
    f = lambda *a: ember._C._op_functions["_thnn_fused_lstm_cell"](*a)[:2]  # noqa: E731
    assert ember.autograd.gradcheck(f, (ig, hg, cx, b, b))
    ig3 = ember.randn(2, 9, dtype=ember.float64, requires_grad=True)
    hg3 = ember.randn(2, 9, dtype=ember.float64, requires_grad=True)
    hx = ember.randn(2, 3, dtype=ember.float64, requires_grad=True)
    b3 = ember.randn(9, dtype=ember.float64, requires_grad=True)
    g = lambda *a: ember._C._op_functions["_thnn_fused_gru_cell"](*a)[0]  # noqa: E731
    assert ember.autograd.gradcheck(g, (ig3, hg3, hx, b3, b3))


def test_initialisation_and_attributes():
    m = nn.LSTM(10, 16, num_layers=2, bidirectional=True)
    bound = 1 / 16 ** 0.5
    for _, p in m.named_parameters():
        assert float(p.abs().max()) <= bound
    assert m._flat_weights_names == torch.nn.LSTM(10, 16, num_layers=2, bidirectional=True)._flat_weights_names
    assert m._all_weights == torch.nn.LSTM(10, 16, num_layers=2, bidirectional=True)._all_weights
    assert len(m.all_weights) == 4 and m.all_weights[0][0] is m.weight_ih_l0
    m.flatten_parameters()
    assert m.mode == "LSTM" and m.hidden_size == 16 and m.bidirectional
    assert nn.GRU(3, 4).mode == "GRU" and nn.RNN(3, 4, nonlinearity="relu").mode == "RNN_RELU"
    assert repr(nn.GRU(3, 4, 2, False, True, 0.5, True)) == \
        repr(torch.nn.GRU(3, 4, 2, False, True, 0.5, True))


def test_errors_match_torch():
    same_error(lambda lib: lib.nn.RNN(3, 4, nonlinearity="sigmoid"))
    same_error(lambda lib: lib.nn.LSTM(3, 4, proj_size=4))
    same_error(lambda lib: lib.nn.LSTM(3, 4, proj_size=-1))
    same_error(lambda lib: lib.nn.GRU(3, 4, dropout=1.5))
    same_error(lambda lib: lib.nn.GRU(3, 4, dropout=True))
    same_error(lambda lib: lib.nn.GRU(3, 4, proj_size=2))

    def mk(lib):
        return torch if lib is torch else ember

    same_error(lambda lib: lib.nn.LSTM(3, 4)(mk(lib).randn(5, 2, 7)))
    same_error(lambda lib: lib.nn.GRU(3, 4)(mk(lib).randn(5, 2, 3), mk(lib).randn(1, 3, 4)))
    same_error(lambda lib: lib.nn.GRU(3, 4)(mk(lib).randn(5, 2, 3), mk(lib).randn(2, 4)))
    same_error(lambda lib: lib.nn.LSTM(3, 4)(mk(lib).randn(5, 2, 3),
                                             (mk(lib).randn(1, 2, 4), mk(lib).randn(1, 2, 5))))
    same_error(lambda lib: lib.nn.LSTM(3, 4)(mk(lib).randn(5, 2, 3),
                                             (mk(lib).randn(2, 4), mk(lib).randn(2, 4))))
    same_error(lambda lib: lib.nn.RNNCell(3, 4)(mk(lib).randn(2, 2, 3)))
    same_error(lambda lib: lib.nn.LSTMCell(3, 4)(mk(lib).randn(2, 5)))


def test_dropout_between_layers():
    with pytest.warns(UserWarning, match="dropout option adds dropout after all but last"):
        nn.LSTM(3, 4, dropout=0.5)
    m = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = ember.randn(5, 2, 3)
    m.eval()
    a, b = m(x)[0], m(x)[0]
    assert np.array_equal(arr(a), arr(b))
    m.train()
    outs = [arr(m(x)[0]) for _ in range(3)]
    assert not all(np.array_equal(outs[0], o) for o in outs[1:])
