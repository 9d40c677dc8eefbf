"""The QAT ConvBn modules' two forwards (torch 1.13 nn/intrinsic/qat/modules/conv_fused.py):
`_forward_approximate` (the default) and `_forward_slow`, chosen by
`_enable_slow_path_for_better_numerical_stability`, in C++, against torch: outputs, BatchNorm
statistics and gradients in training and eval mode, and bn.weight == 0, which only the slow
path handles."""
import collections

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.ao.quantization as tq  # noqa: E402
import torch.nn.intrinsic.qat as tnniqat  # noqa: E402

import ember  # noqa: E402
import ember.ao.quantization as eq  # noqa: E402
import ember.nn.intrinsic.qat as enniqat  # noqa: E402

CASES = [("ConvBn2d", 4), ("ConvBnReLU2d", 4), ("ConvBn1d", 3), ("ConvBnReLU1d", 3)]


def pair(name, bias, zero_gamma=False):
    torch.manual_seed(0)
    t = getattr(tnniqat, name)(3, 5, 3, padding=1, bias=bias, qconfig=tq.default_qat_qconfig)
    e = getattr(enniqat, name)(3, 5, 3, padding=1, bias=bias, qconfig=eq.default_qat_qconfig)
    with torch.no_grad():
        t.bn.weight.uniform_(0.5, 1.5)
        t.bn.bias.uniform_(-0.5, 0.5)
        t.bn.running_mean.uniform_(-0.2, 0.2)
        t.bn.running_var.uniform_(0.5, 2.0)
        if zero_gamma:
            t.bn.weight[1] = 0
    sd = collections.OrderedDict(
        (k, ember.from_numpy(v.detach().numpy().copy())) for k, v in t.state_dict().items())
    e.load_state_dict(sd)
    return t, e


def close(a, b, rtol=1e-4, atol=1e-5):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def test_default_is_the_approximate_path():
    t, e = pair("ConvBn2d", False)
    assert e._enable_slow_path_for_better_numerical_stability is False
    assert t._enable_slow_path_for_better_numerical_stability is False


@pytest.mark.parametrize("name,dims", CASES)
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("training", [True, False])
def test_slow_path_matches_torch(name, dims, bias, training):
    t, e = pair(name, bias)
    for m in (t, e):
        m._enable_slow_path_for_better_numerical_stability = True
        m.train(training)
    rng = np.random.default_rng(1)
    shape = (4, 3, 6, 6) if dims == 4 else (4, 3, 9)
    for step in range(2):
        x = rng.standard_normal(shape, dtype=np.float32)
        tx = torch.from_numpy(x).requires_grad_()
        ex = ember.from_numpy(x.copy()).requires_grad_()
        ty, ey = t(tx), e(ex)
        close(ey.detach().numpy(), ty.detach().numpy())
        ty.square().sum().backward()
        (ey * ey).sum().backward()
        close(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-3, atol=1e-4)
        close(e.weight.grad.numpy(), t.weight.grad.numpy(), rtol=1e-3, atol=1e-3)
        close(e.bn.weight.grad.numpy(), t.bn.weight.grad.numpy(), rtol=1e-3, atol=1e-3)
        if bias:  # eval: through the fused mean; training: only torch's DDP term, gradient 0
            close(e.bias.grad.numpy(), t.bias.grad.numpy(), rtol=1e-3, atol=1e-3)
            if training:
                assert not e.bias.grad.numpy().any()
    for k in ("running_mean", "running_var", "num_batches_tracked"):
        close(getattr(e.bn, k).numpy(), getattr(t.bn, k).numpy())


def test_slow_and_approximate_agree_and_differ_only_at_zero_gamma():
    t, e = pair("ConvBn2d", True, zero_gamma=True)
    x = np.random.default_rng(2).standard_normal((2, 3, 5, 5), dtype=np.float32)
    e.eval()
    t.eval()
    ex, tx = ember.from_numpy(x.copy()), torch.from_numpy(x)
    approx = e._forward_approximate(ex).detach().numpy()
    slow = e._forward_slow(ex).detach().numpy()
    with torch.no_grad():
        t_slow = t._forward_slow(tx).numpy()
        t_approx = t._forward_approximate(tx).numpy()
    assert np.isfinite(slow).all() and np.isfinite(t_slow).all()
    close(slow, t_slow)
    # channel 1 has bn.weight == 0: the approximate path divides by it (torch's too)
    assert np.array_equal(np.isfinite(approx), np.isfinite(t_approx))
    assert not np.isfinite(approx[:, 1]).all()
    close(np.delete(approx, 1, axis=1), np.delete(slow, 1, axis=1))
    e._enable_slow_path_for_better_numerical_stability = True
    np.testing.assert_array_equal(e(ex).detach().numpy(), slow)
    np.testing.assert_array_equal(e._forward(ex).detach().numpy(), slow)


def test_flag_survives_deepcopy():
    import copy
    _, e = pair("ConvBnReLU2d", False)
    e._enable_slow_path_for_better_numerical_stability = True
    assert copy.deepcopy(e)._enable_slow_path_for_better_numerical_stability is True
