// ElementwiseLoop (src/backends/cpu/loop.h): the runs it produces and the values a kernel
// computes through it, for the flat fast path, merged and unmerged dims, broadcast inputs and
// 0-d operands.
#include "backends/cpu/loop.h"
#include "testing.h"

namespace ember {
namespace {

Tensor iota(IntArrayRef sizes) { return testing::iota(sizes, kFloat64); }

using testing::expect_values;


// out = a + 10 * b through the loop; the reference indexes with the operands' own strides.
void check_sum(const Tensor& out, const Tensor& a, const Tensor& b) {
  cpu::ElementwiseLoop({out, a, b}).run<double, double, double>([](double x, double y) {
    return x + 10 * y;
  });
  Tensor want = empty(out.sizes(), kFloat64);
  Tensor ea = a.expand(out.sizes()).contiguous(), eb = b.expand(out.sizes()).contiguous();
  for (int64_t i = 0; i < want.numel(); ++i) {
    want.data_ptr<double>()[i] = ea.data_ptr<double>()[i] + 10 * eb.data_ptr<double>()[i];
  }
  expect_values(out, out.sizes(), testing::values(want), 0, 0);
}

TEST(Loop, ContiguousOperandsAreOneFlatRun) {
  Tensor out = empty({3, 4}, kFloat64), a = iota({3, 4}), b = iota({3, 4});
  cpu::ElementwiseLoop loop({out, a, b});
  EXPECT_EQ(loop.ndim(), 1);
  int runs = 0;
  loop.for_each_run([&](char**, const int64_t* strides, int64_t n) {
    ++runs;
    EXPECT_EQ(n, 12);
    EXPECT_EQ(strides[0], 8);
    EXPECT_EQ(strides[2], 8);
  });
  EXPECT_EQ(runs, 1);
  check_sum(out, a, b);
}

TEST(Loop, StridedBroadcastAndZeroDimOperands) {
  // A transposed input: the dims stay separate and follow the output's order.
  Tensor out = empty({3, 4}, kFloat64);
  check_sum(out, iota({4, 3}).t(), iota({3, 4}));
  EXPECT_EQ(cpu::ElementwiseLoop({out, iota({4, 3}).t()}).ndim(), 2);
  // Broadcast rows and columns, a sliced input, a 0-d input, a transposed output.
  check_sum(out, iota({4}), iota({3, 1}));
  check_sum(out, iota({3, 8}).slice(1, 0, std::nullopt, 2), iota({}));
  check_sum(empty({4, 3}, kFloat64).t(), iota({3, 4}), iota({1, 4}));
  // 0-d and empty outputs.
  check_sum(empty({}, kFloat64), iota({}), iota({}));
  check_sum(empty({2, 0}, kFloat64), iota({2, 0}), iota({0}));
  // Dims that merge (a row slice keeps whole rows contiguous) next to one that does not.
  Tensor big = iota({4, 6, 5});
  check_sum(empty({2, 6, 5}, kFloat64), big.narrow(0, 1, 2), iota({5}));
  EXPECT_EQ(cpu::ElementwiseLoop({empty({2, 6, 5}, kFloat64), big.narrow(0, 1, 2)}).ndim(), 1);
  EXPECT_EQ(cpu::ElementwiseLoop({empty({2, 6, 3}, kFloat64), big.narrow(0, 1, 2).narrow(2, 0, 3)}).ndim(), 2);
}

TEST(Loop, SameLayoutAddFastPathMatchesGeneralPath) {
  // add's fast path (one dtype, shape and device) and the general one agree, for contiguous and
  // strided operands and for 0-d ones.
  Tensor a = iota({3, 4}), bt = iota({4, 3}).t();
  expect_values(add(a, bt), {3, 4}, testing::values(add(a, bt.contiguous())), 0, 0);
  expect_values(add(a, a, 2), {3, 4}, {0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33}, 0, 0);
  Tensor s = scalar_tensor(2.0, kFloat64);
  expect_values(add(s, s), {}, {4}, 0, 0);
  Tensor i = full({2}, 3, kInt32);
  EXPECT_EQ(add(i, i).dtype(), kInt32);
  testing::expect_error([&] { add(i, i, 1.5); },
                        "For integral input tensors, argument alpha must not be a floating point number.");
}

}  // namespace
}  // namespace ember
