"""ember's float convolutions take PyTorch 1.13's paths (Note [Torch's float convolution paths] in
src/backends/cpu/conv_gemm.cpp): slow_conv2d's OpenBLAS sgemm for 1x1 stride-1 layers at batch
< 16, oneDNN's forward_training kernels for depthwise / 1x1 / few-channel layers, so the
activations an eager-mode calibration observes are torch's bits. Debian's torch links the same
libdnnl and OpenBLAS. torch runs at its default thread count; ember's oneDNN calls must leave
that count alone (they restore the caller's OpenMP setting)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import ember  # noqa: E402
import ember.nn.functional as F  # noqa: E402

# (batch, c_in, c_out, hw, kernel, stride, groups): MobileNetV2's layer kinds, with the 1x1
# layers whose c_in exceeds OpenBLAS's K block (576, 960), which a straight dot product misses.
LAYERS = [
    (1, 3, 32, 160, 3, 2, 1),     # stem: 3 input channels (torch: oneDNN above 20480 inputs)
    (1, 32, 32, 56, 3, 1, 32),    # depthwise
    (1, 96, 96, 28, 3, 2, 96),    # depthwise, stride 2
    (1, 32, 16, 56, 1, 1, 1),     # 1x1
    (1, 576, 96, 14, 1, 1, 1),    # 1x1, K = 576
    (1, 960, 320, 7, 1, 1, 1),    # 1x1, K = 960
    (3, 960, 160, 7, 1, 1, 1),    # 1x1, batch 3: one sgemm per image
    (1, 64, 128, 28, 1, 2, 1),    # 1x1 stride 2 (torch: oneDNN)
    (2, 64, 64, 14, 3, 1, 8),     # grouped
]


@pytest.fixture(autouse=True)
def torch_default_threads():
    n = torch.get_num_threads()
    yield
    torch.set_num_threads(n)


@pytest.mark.parametrize("n,c_in,c_out,hw,k,stride,groups", LAYERS)
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_is_torchs_bits(n, c_in, c_out, hw, k, stride, groups, bias):
    torch.set_num_threads(1)  # torch's path choice depends on its thread count; 1 is its default here
    rng = np.random.default_rng(c_in * 7 + c_out)
    x = rng.standard_normal((n, c_in, hw, hw), dtype=np.float32)
    w = rng.standard_normal((c_out, c_in // groups, k, k), dtype=np.float32) * 0.1
    b = rng.standard_normal(c_out, dtype=np.float32) if bias else None
    with torch.no_grad():
        want = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w),
                                          None if b is None else torch.from_numpy(b),
                                          stride, k // 2, 1, groups).numpy()
    got = F.conv2d(ember.from_numpy(x.copy()), ember.from_numpy(w.copy()),
                   None if b is None else ember.from_numpy(b.copy()), stride, k // 2, 1, groups)
    np.testing.assert_array_equal(got.numpy(), want)


def test_conv2d_1x1_gemm_path_with_strided_operands():
    """Non-contiguous operands take the oneDNN path: values still right, to float rounding."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 40, 9, 9), dtype=np.float32)
    w = rng.standard_normal((24, 40, 1, 1), dtype=np.float32)
    ex = ember.from_numpy(x.copy()).permute(0, 1, 3, 2)
    tx = torch.from_numpy(x).permute(0, 1, 3, 2)
    got = F.conv2d(ex, ember.from_numpy(w.copy())).numpy()
    want = torch.nn.functional.conv2d(tx, torch.from_numpy(w)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_ember_leaves_torchs_thread_count_alone():
    torch.set_num_threads(1)
    old = ember.get_num_threads()
    ember.set_num_threads(2)
    try:
        x = ember.rand(1, 32, 28, 28)
        F.conv2d(x, ember.rand(32, 1, 3, 3), None, 1, 1, 1, 32)   # oneDNN convolution
        ember.rand(8, 64) @ ember.rand(64, 16)                      # oneDNN sgemm
        assert torch.get_num_threads() == 1
        torch.set_num_threads(2)
        F.conv2d(x, ember.rand(16, 32, 1, 1))
        assert torch.get_num_threads() == 2
    finally:
        ember.set_num_threads(old)
