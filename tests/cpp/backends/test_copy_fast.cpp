// The streaming copy and the vector float32 -> bfloat16 conversion equal their scalar
// references bit for bit, at every alignment and length around the vector widths, and
// Tensor::copy_ takes them for large dense copies with the same results.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "backends/cpu/copy_fast.h"
#include "testing.h"

namespace ember {
namespace {

TEST(CopyFast, StreamingCopyEqualsRef) {
  std::vector<unsigned char> src(4096 + 64), a(4096 + 64), b(4096 + 64);
  std::mt19937 rng(1);
  for (auto& c : src) c = static_cast<unsigned char>(rng());
  for (size_t dst_off : {0, 1, 7, 31, 32}) {
    for (size_t src_off : {0, 3, 32}) {
      for (size_t n : {0, 1, 31, 32, 127, 128, 129, 1000, 4000}) {
        std::fill(a.begin(), a.end(), 0xAB);
        std::fill(b.begin(), b.end(), 0xAB);
        cpu::copy_bytes_streaming(a.data() + dst_off, src.data() + src_off, n);
        cpu::copy_bytes_ref(b.data() + dst_off, src.data() + src_off, n);
        ASSERT_EQ(a, b) << dst_off << " " << src_off << " " << n;
      }
    }
  }
}

TEST(CopyFast, BFloat16ConversionEqualsRef) {
  std::vector<float> src;
  const float specials[] = {0.f, -0.f, 1.f, -1.f, 1.00390625f, 1.01171875f, 3.0e38f, -3.4e38f,
                            std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::min(), std::bit_cast<float>(0x7f800001u),
                            std::bit_cast<float>(0xffc00001u), std::bit_cast<float>(0x3f808000u),
                            std::bit_cast<float>(0x3f818000u), std::bit_cast<float>(0x7f7fffffu)};
  for (float f : specials) src.push_back(f);
  std::mt19937 rng(2);
  for (int i = 0; i < 5000; ++i) src.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  std::vector<uint16_t> a(src.size() + 16), b(src.size() + 16);
  for (bool stream : {false, true}) {
    for (size_t off : {0, 1, 5}) {
      for (size_t n : {size_t{0}, size_t{7}, size_t{16}, size_t{17}, src.size() - off}) {
        std::fill(a.begin(), a.end(), 0x1234);
        std::fill(b.begin(), b.end(), 0x1234);
        cpu::float_to_bfloat16(a.data() + off, src.data() + off, static_cast<int64_t>(n), stream);
        cpu::float_to_bfloat16_ref(b.data() + off, src.data() + off, static_cast<int64_t>(n));
        ASSERT_EQ(a, b) << stream << " " << off << " " << n;
      }
    }
  }
}

TEST(CopyFast, TensorCopyTakesTheFastPathsCorrectly) {
  const int64_t n = int64_t{3} << 20;  // 12 MiB of float32: above kStreamMinBytes
  Tensor src = empty({n}, kFloat32);
  float* s = src.data_ptr<float>();
  std::mt19937 rng(3);
  for (int64_t i = 0; i < n; ++i) s[i] = std::bit_cast<float>(static_cast<uint32_t>(rng()));
  Tensor dst = empty({n}, kFloat32);
  dst.copy_(src);
  EXPECT_EQ(std::memcmp(dst.data_ptr(), src.data_ptr(), src.nbytes()), 0);
  Tensor bf = empty({n}, kBFloat16);
  bf.copy_(src);
  std::vector<uint16_t> want(static_cast<size_t>(n));
  cpu::float_to_bfloat16_ref(want.data(), s, n);
  EXPECT_EQ(std::memcmp(bf.data_ptr(), want.data(), want.size() * 2), 0);
  Tensor bf2 = src.narrow(0, 1, n - 1).to(kBFloat16);  // unaligned source
  EXPECT_EQ(std::memcmp(bf2.data_ptr(), want.data() + 1, (want.size() - 1) * 2), 0);
}

}  // namespace
}  // namespace ember
