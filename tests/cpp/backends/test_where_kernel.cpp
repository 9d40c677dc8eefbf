// where_kernel (branch-free bit select) against where_kernel_ref (the plain conditional), on
// every dtype, random masks, contiguous, broadcast and uint8 conditions, NaN and -0.0 payloads.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "../testing.h"
#include "backends/cpu/pointwise_kernels.h"
#include "ember/ember.h"

namespace ember {
namespace {

void expect_same_bits(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.sizes(), b.sizes());
  ASSERT_EQ(a.nbytes(), b.nbytes());
  EXPECT_EQ(std::memcmp(a.contiguous().data_ptr(), b.contiguous().data_ptr(), a.nbytes()), 0);
}

TEST(WhereKernel, MatchesTheReferenceBitForBit) {
  manual_seed(3);
  for (ScalarType dt : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8, kUInt8, kInt16, kInt32,
                        kInt64, kBool}) {
    Tensor x = (randn({37, 5}) * 10).to(dt), y = (randn({37, 5}) * 10).to(dt);
    if (is_floating(dt)) {
      x.select(0, 1).fill_(std::numeric_limits<double>::quiet_NaN());
      y.select(0, 2).fill_(-0.0);
    }
    Tensor mask = rand({37, 5}) > 0.5;
    for (const Tensor& cond : {mask, mask.to(kUInt8)}) {
      Tensor out = empty({37, 5}, dt), ref = empty({37, 5}, dt);
      cpu::where_kernel(out, cond, x, y);
      cpu::where_kernel_ref(ref, cond, x, y);
      expect_same_bits(out, ref);
      // A broadcast operand (a 0-d value, as relu's backward passes) and a transposed one.
      Tensor zero = zeros({}, dt).expand({37, 5});
      cpu::where_kernel(out, cond, zero, y.t().contiguous().t());
      cpu::where_kernel_ref(ref, cond, zero, y.t().contiguous().t());
      expect_same_bits(out, ref);
    }
  }
}

}  // namespace
}  // namespace ember
