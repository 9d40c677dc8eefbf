"""ember.nn layers, losses, functional and init against PyTorch 1.13 (same weights, same inputs)."""
import warnings

import pytest
import torch

import ember
from ember import nn
import ember.nn.functional as F


from nn_convert import E, T, to_list


def close(a, b):
    return torch.allclose(T(a), b, atol=1e-5)


def test_functional_matches_torch():
    torch.manual_seed(0)
    x, w, b = torch.randn(4, 5), torch.randn(3, 5), torch.randn(3)
    labels = torch.tensor([0, 2, 1, 2])
    tf = torch.nn.functional
    assert close(F.linear(E(x), E(w), E(b)), tf.linear(x, w, b))
    assert close(F.relu(E(x)), tf.relu(x))
    assert close(F.gelu(E(x), approximate="tanh"), tf.gelu(x, approximate="tanh"))
    assert close(F.softmax(E(x), dim=1), tf.softmax(x, dim=1))
    assert close(F.log_softmax(E(x), 0), tf.log_softmax(x, 0))
    assert close(F.layer_norm(E(x), (5,)), tf.layer_norm(x, (5,)))
    logits = x[:, :3]
    assert close(F.cross_entropy(E(logits), E(labels)), tf.cross_entropy(logits, labels))
    assert close(F.cross_entropy(E(logits), E(labels), label_smoothing=0.2, reduction="sum"),
                 tf.cross_entropy(logits, labels, label_smoothing=0.2, reduction="sum"))
    assert close(F.nll_loss(E(logits), E(labels), ignore_index=2), tf.nll_loss(logits, labels, ignore_index=2))
    assert close(F.mse_loss(E(x), E(x * 2), reduction="none"), tf.mse_loss(x, x * 2, reduction="none"))
    assert close(F.l1_loss(E(x), E(x * 0)), tf.l1_loss(x, x * 0))
    assert close(F.binary_cross_entropy_with_logits(E(x), E(x.sigmoid())),
                 tf.binary_cross_entropy_with_logits(x, x.sigmoid()))
    assert close(F.dropout(E(x), 0.5, training=False), x)
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        F.mse_loss(E(x), E(x), reduction="bogus")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.mse_loss(E(x), E(x), size_average=False)
    assert "size_average and reduce args will be deprecated" in str(caught[0].message)


def test_layers_forward_match_torch():
    torch.manual_seed(1)
    x = torch.randn(2, 6)
    for make in [lambda l: l.nn.Linear(6, 3), lambda l: l.nn.LayerNorm(6),
                 lambda l: l.nn.Sequential(l.nn.Linear(6, 4), l.nn.SiLU(), l.nn.Linear(4, 2)),
                 lambda l: l.nn.Hardswish(), lambda l: l.nn.Softmax(dim=-1), lambda l: l.nn.Flatten(0)]:
        tm, em = make(torch), make(ember)
        em.load_state_dict({k: E(v) for k, v in tm.state_dict().items()})
        assert close(em(E(x)), tm(x)), repr(tm)
    emb_t = torch.nn.Embedding(5, 3, padding_idx=1)
    emb_e = nn.Embedding(5, 3, padding_idx=1)
    emb_e.load_state_dict({"weight": E(emb_t.weight.detach())})
    idx = torch.tensor([[0, 1], [4, 4]])
    assert close(emb_e(E(idx)), emb_t(idx))
    assert emb_e.padding_idx == 1 and to_list(emb_e.weight.select(0, 1)) == [0.0, 0.0, 0.0]
    loss_t, loss_e = torch.nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 3.0])), \
        nn.CrossEntropyLoss(weight=E([1.0, 2.0, 3.0]))
    logits, labels = torch.randn(4, 3), torch.tensor([0, 1, 2, 1])
    assert close(loss_e(E(logits), E(labels)), loss_t(logits, labels))
    assert list(loss_e.state_dict()) == list(loss_t.state_dict()) == ["weight"]
    assert list(nn.MSELoss().state_dict()) == []


def test_layer_attributes_and_errors():
    lin = nn.Linear(3, 4, bias=False)
    assert (lin.in_features, lin.out_features, lin.bias) == (3, 4, None)
    assert lin.weight.shape == (4, 3) and lin.weight.requires_grad
    ln = nn.LayerNorm([2, 3])
    assert ln.normalized_shape == (2, 3) and ln.eps == 1e-5
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)
    d = nn.Dropout(0.5).eval()
    x = ember.ones(10)
    assert to_list(d(x)) == to_list(x)
    frozen = nn.Embedding.from_pretrained(ember.ones(3, 2))
    assert not frozen.weight.requires_grad


def test_init():
    w = ember.empty(4, 5)
    assert nn.init.uniform_(w, -0.1, 0.1) is w
    assert bool(w.abs().max() <= 0.1)
    assert nn.init.constant_(w, 2.5) is w and to_list(w)[0][0] == 2.5
    nn.init.zeros_(w)
    assert w.abs().sum().item() == 0
    assert nn.init.calculate_gain("relu") == torch.nn.init.calculate_gain("relu")
    assert nn.init.calculate_gain("leaky_relu", 0.2) == torch.nn.init.calculate_gain("leaky_relu", 0.2)
    assert nn.init._calculate_fan_in_and_fan_out(w) == (5, 4)
    p = nn.Parameter(ember.zeros(3, 3))
    nn.init.eye_(p)
    assert p.requires_grad and p.is_leaf and to_list(p)[1] == [0.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        nn.init.calculate_gain("bogus")
