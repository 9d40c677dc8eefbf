// The 1x1 convolutions that run as PyTorch 1.13's slow_conv2d (one OpenBLAS sgemm per image,
// Note [Torch's float convolution paths] in src/backends/cpu/conv_gemm.cpp) against the scalar
// reference, and which layers take that path.
#include "../../../src/backends/cpu/conv_kernels.h"
#include "../testing.h"

namespace ember {
namespace {

using testing::expect_values;
using testing::values;

cpu::ConvGeometry geometry(int64_t stride, int64_t pad, int64_t dilation = 1, int64_t groups = 1) {
  return {{stride, stride}, {pad, pad}, {dilation, dilation}, groups};
}

TEST(QflowConvGemm, MatchesReference) {
  manual_seed(3);
  // c_in above OpenBLAS's K block (the sgemm adds per-block sums), batches 1 and 3, with and
  // without bias
  for (int64_t n : {1, 3}) {
    for (int64_t c_in : {5, 40, 600}) {
      Tensor x = randn({n, c_in, 6, 7});
      Tensor w = randn({9, c_in, 1, 1});
      Tensor b = randn({9});
      for (bool with_bias : {true, false}) {
        const std::optional<Tensor> bias = with_bias ? std::optional<Tensor>(b) : std::nullopt;
        Tensor got = empty({n, 9, 6, 7}), want = empty({n, 9, 6, 7});
        ASSERT_TRUE(cpu::conv_forward_torch_gemm(got, x, w, bias, geometry(1, 0)));
        cpu::conv_forward_ref(want, x, w, bias, geometry(1, 0));
        expect_values(got, {n, 9, 6, 7}, values(want), 1e-4, 1e-4);
      }
    }
  }
}

TEST(QflowConvGemm, OnlyTorchsSlowConv2dLayers) {
  Tensor x = randn({1, 8, 5, 5}), w1 = randn({4, 8, 1, 1}), w3 = randn({4, 8, 3, 3});
  EXPECT_TRUE(cpu::conv_torch_uses_gemm(x, w1, geometry(1, 0)));
  EXPECT_FALSE(cpu::conv_torch_uses_gemm(x, w3, geometry(1, 1)));           // 3x3: oneDNN
  EXPECT_FALSE(cpu::conv_torch_uses_gemm(x, w1, geometry(2, 0)));           // strided
  EXPECT_FALSE(cpu::conv_torch_uses_gemm(x, w1, geometry(1, 1)));           // padded
  EXPECT_FALSE(cpu::conv_torch_uses_gemm(x, w1, geometry(1, 0, 2)));        // dilated
  EXPECT_FALSE(cpu::conv_torch_uses_gemm(x, randn({8, 1, 1, 1}), geometry(1, 0, 1, 8)));
  EXPECT_FALSE(cpu::conv_torch_uses_gemm(randn({16, 8, 5, 5}), w1, geometry(1, 0)));  // batch 16
  // not dense NCHW float32: declined (the caller takes oneDNN)
  Tensor out = empty({1, 4, 5, 5});
  EXPECT_FALSE(cpu::conv_forward_torch_gemm(out, x.contiguous(MemoryFormat::ChannelsLast), w1,
                                            std::nullopt, geometry(1, 0)));
  EXPECT_FALSE(cpu::conv_forward_torch_gemm(empty({1, 4, 5, 5}, kFloat64), x.to(kFloat64),
                                            w1.to(kFloat64), std::nullopt, geometry(1, 0)));
  // the dispatching entry point takes it and agrees with the reference
  Tensor got = empty({1, 4, 5, 5}), want = empty({1, 4, 5, 5});
  cpu::conv_forward(got, x, w1, std::nullopt, geometry(1, 0));
  cpu::conv_forward_ref(want, x, w1, std::nullopt, geometry(1, 0));
  expect_values(got, {1, 4, 5, 5}, values(want), 1e-4, 1e-4);
}

}  // namespace
}  // namespace ember
