// The tensor-level autograd API: flags, hooks, retain_grad, backward(inputs=), detach, errors.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/ember.h"

namespace ember {
namespace {

Tensor vec(std::vector<double> v) {
  const auto n = static_cast<int64_t>(v.size());
  return testing::from_values(v, {n}, kFloat64);
}

TEST(AutogradApi, RequiresGradFlags) {
  testing::expect_error([] { ones({2}, kInt64).requires_grad_(); },
                        "only Tensors of floating point dtype can require gradients");
  Tensor x = ones({2}).requires_grad_();
  EXPECT_TRUE(x.requires_grad());
  EXPECT_TRUE(x.is_leaf());
  Tensor y = x * 2.0;
  testing::expect_error([&] { y.requires_grad_(false); },
                        "you can only change requires_grad flags of leaf variables.");
  x.requires_grad_(false);
  EXPECT_FALSE(x.requires_grad());
  EXPECT_FALSE(ones({2}).requires_grad());
}

TEST(AutogradApi, NoGradDoesNotRecord) {
  Tensor x = ones({2}).requires_grad_();
  {
    NoGradGuard no_grad;
    Tensor y = x * 2.0;
    EXPECT_FALSE(y.requires_grad());
    EXPECT_EQ(y.grad_fn(), nullptr);
  }
  EXPECT_TRUE((x * 2.0).requires_grad());
  {
    NoGradGuard no_grad;
    EnableGradGuard enable;
    EXPECT_TRUE((x * 2.0).requires_grad());
  }
  AutoGradMode off(false);
  EXPECT_FALSE((x * 2.0).requires_grad());
}

TEST(AutogradApi, ReprShowsGradFn) {
  Tensor x = ones({2}).requires_grad_();
  EXPECT_EQ(x.to_string(), "tensor([1., 1.], requires_grad=True)");
  EXPECT_EQ((x * 2.0).to_string(), "tensor([2., 2.], grad_fn=<MulBackward0>)");
}

TEST(AutogradApi, RetainGradOnNonLeaf) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor y = x * 3.0;
  y.retain_grad();
  EXPECT_TRUE(y.retains_grad());
  Tensor z = y * y;
  z.sum().backward();
  testing::expect_values(y.grad(), {2}, {6, 12});
  testing::expect_values(x.grad(), {2}, {18, 36});
  Tensor w = x * 1.0;
  EXPECT_FALSE(w.grad().defined());
}

TEST(AutogradApi, TensorHooksMayReplaceTheGradient) {
  Tensor x = vec({1, 2}).requires_grad_();
  std::vector<std::string> seen;
  x.register_hook([&](const Tensor& g) {
    seen.push_back("leaf");
    return g * 10.0;
  });
  Tensor y = x * 2.0;
  unsigned id = y.register_hook([&](const Tensor& g) {
    seen.push_back("y " + std::to_string(testing::values(g)[0]));
    return Tensor();  // keep
  });
  y.sum().backward();
  testing::expect_values(x.grad(), {2}, {20, 20});
  EXPECT_EQ(seen, (std::vector<std::string>{"y 1.000000", "leaf"}));
  y.remove_hook(id);
  x.grad().zero_();
  (x * 2.0).sum().backward();
  testing::expect_values(x.grad(), {2}, {20, 20});
  EXPECT_EQ(seen.size(), 3u);
}

TEST(AutogradApi, PostAccumulateGradHookSeesTheLeaf) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor seen;
  x.register_post_accumulate_grad_hook([&](const Tensor& t) { seen = t.grad().clone(); });
  (x * x).sum().backward();
  testing::expect_values(seen, {2}, {2, 4});
  testing::expect_error([&] { (x * 2.0).register_post_accumulate_grad_hook([](const Tensor&) {}); },
                        "post accumulate grad hooks cannot be registered on non-leaf tensors");
}

TEST(AutogradApi, NodeHooks) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor y = x * 2.0;
  auto fn = y.grad_fn();
  std::vector<double> pre, post;
  fn->register_prehook([&](const autograd::tensor_list& g) {
    pre = testing::values(g[0]);
    return autograd::tensor_list{g[0] * 2.0};
  });
  fn->register_hook([&](const autograd::tensor_list& grad_inputs, const autograd::tensor_list&) {
    post = testing::values(grad_inputs[0]);
    return autograd::tensor_list{};
  });
  y.sum().backward();
  EXPECT_EQ(pre, (std::vector<double>{1, 1}));
  EXPECT_EQ(post, (std::vector<double>{4, 4}));
  testing::expect_values(x.grad(), {2}, {4, 4});
}

TEST(AutogradApi, BackwardWithInputsAccumulatesOnlyThere) {
  Tensor a = vec({1, 2}).requires_grad_();
  Tensor b = vec({3, 4}).requires_grad_();
  Tensor mid = a * b;
  (mid * 1.0).sum().backward({}, std::nullopt, false, {b, mid});
  EXPECT_FALSE(a.grad().defined());
  testing::expect_values(b.grad(), {2}, {1, 2});
  testing::expect_values(mid.grad(), {2}, {1, 1});
}

TEST(AutogradApi, RetainGraphAllowsASecondBackward) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor z = (x * x).sum();
  z.backward({}, /*retain_graph=*/true);
  z.backward();
  testing::expect_values(x.grad(), {2}, {4, 8});
}

TEST(AutogradApi, GradErrors) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor unused = vec({1}).requires_grad_();
  Tensor plain = vec({1});
  Tensor s = (x * 2.0).sum();
  testing::expect_error([&] { autograd::grad({s}, {x, unused}, {}, true); },
                        "One of the differentiated Tensors appears to not have been used in the "
                        "graph. Set allow_unused=True if this is the desired behavior.");
  auto g = autograd::grad({s}, {x, unused}, {}, true, false, /*allow_unused=*/true);
  EXPECT_FALSE(g[1].defined());
  testing::expect_error([&] { autograd::grad({s}, {plain}, {}, true); },
                        "One of the differentiated Tensors does not require grad");
  testing::expect_error([] { ones({2}).backward(); },
                        "element 0 of tensors does not require grad and does not have a grad_fn");
  testing::expect_error([&] { (x * 2.0).backward(); },
                        "grad can be implicitly created only for scalar outputs");
  testing::expect_error([&] { (x * 2.0).backward(ones({3}, kFloat64)); },
                        "Mismatch in shape: grad_output[0] has a shape of ember.Size([3]) and "
                        "output[0] has a shape of ember.Size([2]).");
  (x * 2.0).backward(vec({1, 10}));
  testing::expect_values(x.grad(), {2}, {2, 20});
}

TEST(AutogradApi, DetachAndData) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor y = x * 2.0;
  Tensor d = y.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_FALSE(d.is_view());
  EXPECT_EQ(d.data_ptr(), y.data_ptr());
  y.detach_();
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE(y.is_leaf());
  Tensor v = (x * 2.0).view({2});
  testing::expect_error([&] { v.detach_(); }, "Can't detach views in-place. Use detach() instead.");
  Tensor data = x.variable_data();
  EXPECT_FALSE(data.requires_grad());
  data.add_(1.0);
  EXPECT_EQ(x.version(), 0u);  // .data has its own version counter
}

TEST(AutogradApi, ViewMadeUnderNoGradRefusesRecordedInplace) {
  Tensor a = vec({1, 2, 3}).requires_grad_() * 1.0;
  Tensor v;
  {
    NoGradGuard no_grad;
    v = a.view({3});
  }
  EXPECT_TRUE(v.requires_grad());
  EXPECT_TRUE(v.is_leaf());
  EXPECT_TRUE(v._base().is_same(a));
  testing::expect_error([&] { v.mul_(2.0); },
                        "A view was created in no_grad mode and is being modified inplace with grad "
                        "mode enabled.");
}

TEST(AutogradApi, FloatGradForFloatLeafFromDoubleMath) {
  Tensor x = ones({2}).requires_grad_();
  (x * vec({2, 3})).sum().backward();  // float32 * float64 promotes; the grad is cast back
  EXPECT_EQ(x.grad().dtype(), kFloat32);
  testing::expect_values(x.grad(), {2}, {2, 3});
}

}  // namespace
}  // namespace ember
