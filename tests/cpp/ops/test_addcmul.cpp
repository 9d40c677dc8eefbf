// addcmul / addcdiv: values (pasted from torch 1.13), broadcasting, in place, dtypes, meta, errors,
// and their backward rules (gradcheck / gradgradcheck).
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/gradcheck.h"
#include "ember/ember.h"

namespace ember {
namespace {

TEST(Addcmul, ValuesBroadcastAndInplace) {
  Tensor s = testing::from_values({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor a = testing::from_values({0.5, -1, 2}, {3});
  Tensor b = testing::from_values({2, 3}, {2, 1});
  testing::expect_values(addcmul(s, a, b, 0.5), {2, 3}, {1.5, 1.0, 5.0, 4.75, 3.5, 9.0});
  testing::expect_values(addcdiv(s, a, b, -2), {2, 3},
                         {0.5, 3.0, 1.0, 3.6666667461395264, 5.666666507720947, 4.666666507720947});
  Tensor t = s.clone();
  t.addcmul_(a, b, 0.5);
  testing::expect_values(t, {2, 3}, {1.5, 1.0, 5.0, 4.75, 3.5, 9.0});
  EXPECT_EQ(t.version(), 1u);
  // bfloat16: computed in float, rounded once (torch: [1.2109375, 2.0]).
  Tensor h = testing::from_values({1, 2}, {2}, kBFloat16);
  h.addcmul_(testing::from_values({3, 0.1}, {2}, kBFloat16),
             testing::from_values({0.7, 0.3}, {2}, kBFloat16), 0.1);
  testing::expect_values(h, {2}, {1.2109375, 2.0});
  // Non-contiguous operands and a meta call.
  Tensor m = testing::iota({3, 2}, kFloat64).t();
  testing::expect_values(addcmul(m, m, m), {2, 3}, {0, 6, 20, 2, 12, 30});
  Tensor meta = addcdiv(empty({2, 3}, TensorOptions(kFloat32).device(kMeta)), a.to(kMeta),
                        b.to(kMeta));
  EXPECT_TRUE(meta.is_meta());
  EXPECT_EQ(meta.sizes(), IntArrayRef({2, 3}));
}

TEST(Addcmul, Errors) {
  Tensor s = zeros({3});
  testing::expect_error([&] { addcdiv(s, ones({3}, kInt64), ones({3}, kInt64)); },
                        "Integer division with addcdiv is no longer supported");
  testing::expect_error([&] { s.addcmul_(ones({2, 3}), ones({3})); },
                        "output with shape [3] doesn't match the broadcast shape [2, 3]");
  Tensor i = zeros({3}, kInt64);
  testing::expect_error([&] { i.addcmul_(ones({3}), ones({3})); },
                        "result type Float can't be cast to the desired output type Long");
}

TEST(Addcmul, BackwardRules) {
  using autograd::tensor_list;
  Tensor s = testing::iota({2, 3}, kFloat64, 1).requires_grad_();
  Tensor a = (testing::iota({3}, kFloat64, 1) * 0.3).requires_grad_();
  Tensor b = (testing::iota({2, 1}, kFloat64, 2)).requires_grad_();
  EXPECT_EQ(addcmul(s, a, b).grad_fn()->name(), "AddcmulBackward0");
  EXPECT_EQ(addcdiv(s, a, b).grad_fn()->name(), "AddcdivBackward0");
  auto mul = [](const tensor_list& in) { return tensor_list{addcmul(in[0], in[1], in[2], 0.7)}; };
  auto div = [](const tensor_list& in) { return tensor_list{addcdiv(in[0], in[1], in[2], -1.5)}; };
  auto mul_ = [](const tensor_list& in) {
    Tensor y = in[0] * 1.0;
    y.addcmul_(in[1], in[2], 0.7);
    return tensor_list{y};
  };
  auto div_ = [](const tensor_list& in) {
    Tensor y = in[0] * 1.0;
    y.addcdiv_(in[1], in[2], -1.5);
    return tensor_list{y};
  };
  for (const auto& f : {autograd::DifferentiableFn(mul), autograd::DifferentiableFn(div),
                        autograd::DifferentiableFn(mul_), autograd::DifferentiableFn(div_)}) {
    EXPECT_TRUE(autograd::gradcheck(f, {s, a, b}));
    EXPECT_TRUE(autograd::gradgradcheck(f, {s, a, b}));
  }
  Tensor leaf = ones({3}).requires_grad_();
  testing::expect_error([&] { leaf.addcmul_(ones({3}), ones({3})); },
                        "a leaf Variable that requires grad is being used in an in-place operation.");
}

}  // namespace
}  // namespace ember
