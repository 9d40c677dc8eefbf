"""float32 sum / mean over contiguous runs give torch 1.13's bits (Note [torch's float sum]),
and an observed (hooked) Linear multiplies as torch's addmm does (Note [Observed layers take
torch's path]): the values an eager-quantization observer sees are torch's."""
import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def rows(n, outer=(4, 3), seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((*outer, n)).astype(np.float32)
    return x * (10.0 ** rng.integers(-3, 4, size=x.shape)).astype(np.float32)


@pytest.mark.parametrize("n", [2, 3, 5, 7, 8, 9, 49, 100, 511, 512, 513, 4099, 20000])
def test_sum_and_mean_over_the_last_dim_are_torchs_bits(n):
    x = rows(n)
    t, e = torch.from_numpy(x), ember.from_numpy(x)
    np.testing.assert_array_equal(e.sum(-1).numpy(), t.sum(-1).numpy())
    np.testing.assert_array_equal(e.mean(-1).numpy(), t.mean(-1).numpy())
    # one output: the whole tensor as one run (torch reduces it serially below 32768 elements)
    np.testing.assert_array_equal(e[0, 0].sum().numpy(), t[0, 0].sum().numpy())


def test_small_rows_interleave_as_torch_does():
    x = [1.0, 1e8, -1e8, 1.0, 1.0]  # a sequential float32 sum gives 2
    assert ember.tensor(x).sum().item() == torch.tensor(x).sum().item() == 1.0


def test_pooled_features_are_torchs_bits():
    x = np.clip(rows(49, (2, 1280)) , 0, 6).reshape(2, 1280, 7, 7)
    want = torch.nn.functional.adaptive_avg_pool2d(torch.from_numpy(x), (1, 1)).numpy()
    got = ember.nn.functional.adaptive_avg_pool2d(ember.from_numpy(x), (1, 1)).numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ember.from_numpy(x).mean((-1, -2)).numpy(),
                                  torch.from_numpy(x).mean((-1, -2)).numpy())


@pytest.mark.parametrize("batch", [1, 2, 3, 8, 33])
def test_hooked_linear_is_torchs_addmm(batch):
    rng = np.random.default_rng(batch)
    x = rng.standard_normal((batch, 1280)).astype(np.float32)
    w = (rng.standard_normal((1000, 1280)) * 0.02).astype(np.float32)
    b = (rng.standard_normal(1000) * 0.1).astype(np.float32)
    want = torch.nn.functional.linear(*map(torch.from_numpy, (x, w, b))).numpy()
    m = ember.nn.Linear(1280, 1000)
    with ember.no_grad():
        m.weight.copy_(ember.from_numpy(w))
        m.bias.copy_(ember.from_numpy(b))
    seen = []
    handle = m.register_forward_hook(lambda mod, inp, out: seen.append(out.detach().numpy().copy()))
    got = m(ember.from_numpy(x)).detach().numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(seen[0], want)
    handle.remove()
    # unobserved, the layer takes ember's faster GEMM: the same values to float rounding
    np.testing.assert_allclose(m(ember.from_numpy(x)).detach().numpy(), want, rtol=1e-5, atol=1e-5)


def test_hooked_linear_inside_a_cpp_parent():
    # The hook fires from the C++ Sequential, and the observed layer still takes torch's path.
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 64)).astype(np.float32)
    em = ember.nn.Sequential(ember.nn.ReLU(), ember.nn.Linear(64, 300))
    tm = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(64, 300))
    with torch.no_grad():
        tm[1].weight.copy_(torch.from_numpy(em[1].weight.detach().numpy()))
        tm[1].bias.copy_(torch.from_numpy(em[1].bias.detach().numpy()))
    seen = []
    em[1].register_forward_hook(lambda mod, inp, out: seen.append(out.detach().numpy().copy()))
    em(ember.from_numpy(x))
    np.testing.assert_array_equal(seen[0], tm(torch.from_numpy(x)).detach().numpy())
