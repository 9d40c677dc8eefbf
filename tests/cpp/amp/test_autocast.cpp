// CPU autocast from C++ (ember/autocast.h): the thread's state and AutocastGuard, the casting
// policies of PyTorch 1.13's CPU lists (lower precision, fp32, promote with its errors, cat's
// pass-through), what is never cast (float64, integers, meta tensors), the weight cache, autograd
// through the casts, and what a dispatch mode sees. (Against torch 1.13: tests/python/amp/.)
#include <gtest/gtest.h>

#include "ember/autocast.h"
#include "ember/nn/modules/linear.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/linalg.h"
#include "ember/ops/random.h"
#include "ember/ops/shape.h"
#include "testing.h"

namespace ember {
namespace {

namespace ac = ember::autocast;

TEST(Autocast, DefaultStateAndGuard) {
  EXPECT_FALSE(ac::is_cpu_enabled());
  EXPECT_FALSE(ac::is_enabled());
  EXPECT_EQ(ac::get_autocast_cpu_dtype(), kBFloat16);
  EXPECT_EQ(ac::get_autocast_gpu_dtype(), kFloat16);
  EXPECT_TRUE(ac::is_autocast_cache_enabled());
  Tensor a = randn({3, 4}), b = randn({4, 2});
  EXPECT_EQ(mm(a, b).dtype(), kFloat32);
  {
    ac::AutocastGuard on;
    EXPECT_TRUE(ac::is_cpu_enabled());
    EXPECT_EQ(mm(a, b).dtype(), kBFloat16);
    {
      ac::AutocastGuard off(/*enabled=*/false, kBFloat16, /*cache_enabled=*/false);
      EXPECT_FALSE(ac::is_cpu_enabled());
      EXPECT_FALSE(ac::is_autocast_cache_enabled());
      EXPECT_EQ(mm(a, b).dtype(), kFloat32);
    }
    EXPECT_TRUE(ac::is_cpu_enabled());
    EXPECT_TRUE(ac::is_autocast_cache_enabled());
    // The op's value is the op on the cast inputs.
    testing::expect_values(mm(a, b).to(kFloat32), {3, 2},
                           testing::values(mm(a.to(kBFloat16), b.to(kBFloat16)).to(kFloat32)));
  }
  EXPECT_FALSE(ac::is_cpu_enabled());
  EXPECT_EQ(mm(a, b).dtype(), kFloat32);
}

TEST(Autocast, OnlyBFloat16IsSupported) {
  testing::expect_error([] { ac::set_autocast_cpu_dtype(kFloat16); },
                        "Currently, AutocastCPU only support Bfloat16 as the autocast_cpu_dtype");
  testing::expect_error([] { ac::AutocastGuard g(true, kFloat32); }, "only support Bfloat16");
  // The failed guard left nothing behind.
  EXPECT_FALSE(ac::is_cpu_enabled());
  EXPECT_EQ(ac::increment_nesting(), 1);
  EXPECT_EQ(ac::decrement_nesting(), 0);
  EXPECT_EQ(ac::decrement_nesting(), -1);  // PyTorch does not stop at zero either
  EXPECT_EQ(ac::increment_nesting(), 0);
}

TEST(Autocast, Policies) {
  ac::AutocastGuard on;
  Tensor f = randn({3, 3});
  Tensor h = f.to(kBFloat16);
  // lower_precision_fp: float32 and bfloat16 inputs alike; float64 and meta are never cast.
  EXPECT_EQ(mm(h, f).dtype(), kBFloat16);
  EXPECT_EQ(matmul(f, f).dtype(), kBFloat16);  // a composite, seen before it decomposes
  EXPECT_EQ(mm(f.to(kFloat64), f.to(kFloat64)).dtype(), kFloat64);
  Tensor m = empty({2, 2}, TensorOptions().device(kMeta));
  EXPECT_EQ(mm(m, m).dtype(), kFloat32);
  // fp32: bfloat16 and float16 inputs run in float32.
  EXPECT_EQ(trace(h).dtype(), kFloat32);
  EXPECT_EQ(trace(f.to(kFloat16)).dtype(), kFloat32);
  EXPECT_EQ(trace(f.to(kFloat64)).dtype(), kFloat64);
  // promote: the widest of the arguments, float32 winning over bfloat16, float64 ignored.
  EXPECT_EQ(stack({h, h}).dtype(), kBFloat16);
  EXPECT_EQ(stack({h, f}).dtype(), kFloat32);
  EXPECT_EQ(stack({f, f.to(kFloat16)}).dtype(), kFloat32);
  EXPECT_EQ(stack({h, f.to(kInt64)}).dtype(), kBFloat16);
  testing::expect_error([&] { (void)stack({f.to(kFloat16), f}); },
                        "Unexpected floating ScalarType in at::autocast::prioritize");
  // cat passes its arguments through uncast (1.13).
  EXPECT_EQ(cat({f.to(kFloat16), f.to(kFloat16)}).dtype(), kFloat16);
  EXPECT_EQ(cat({h, f}).dtype(), kFloat32);
  // Ops off the lists run unchanged.
  EXPECT_EQ((h + h).dtype(), kBFloat16);
  EXPECT_EQ((f + f).dtype(), kFloat32);
}

TEST(Autocast, WeightCacheAndAutograd) {
  nn::Linear fc(4, 3);
  Tensor& weight = fc.weight();
  Tensor& bias = fc.bias();
  Tensor x = randn({2, 4});
  Tensor y, first_cast;
  {
    ac::AutocastGuard on;
    Tensor w1 = ac::cached_cast(kBFloat16, weight);
    Tensor w2 = ac::cached_cast(kBFloat16, weight);
    EXPECT_EQ(w1.impl(), w2.impl());  // one cast per region
    first_cast = w1;
    Tensor nonleaf = weight * 1;
    EXPECT_NE(ac::cached_cast(kBFloat16, nonleaf).impl(), ac::cached_cast(kBFloat16, nonleaf).impl());
    y = fc.forward(x);
    EXPECT_EQ(y.dtype(), kBFloat16);
    {
      ac::AutocastGuard no_cache(true, kBFloat16, /*cache_enabled=*/false);
      EXPECT_NE(ac::cached_cast(kBFloat16, bias).impl(), ac::cached_cast(kBFloat16, bias).impl());
    }
    {
      ac::AutocastGuard inner;  // an inner region exiting keeps the cache
    }
    EXPECT_EQ(ac::cached_cast(kBFloat16, weight).impl(), w1.impl());
  }
  {
    ac::AutocastGuard again;  // the outermost exit cleared it
    EXPECT_NE(ac::cached_cast(kBFloat16, weight).impl(), first_cast.impl());
  }
  y.to(kFloat32).sum().backward();
  EXPECT_EQ(weight.grad().dtype(), kFloat32);
  EXPECT_EQ(bias.grad().dtype(), kFloat32);
  // d(sum(x W^T + b))/db = the batch size, exactly, through the bfloat16 casts.
  testing::expect_values(bias.grad(), {3}, {2, 2, 2});
}

TEST(Autocast, DispatchModeSeesTheCasts) {
  struct Log : DispatchMode {
    std::vector<std::string> seen;
    std::vector<bool> autocast_on;
    std::optional<Stack> torch_dispatch(const OpHandle& op, const Stack& args) override {
      seen.push_back(op.full_name());
      autocast_on.push_back(ac::is_cpu_enabled());
      return op.redispatch(args);
    }
  };
  auto mode = make_intrusive<Log>();
  Tensor a = randn({2, 2}), b = randn({2, 2});
  {
    ac::AutocastGuard on;
    DispatchModeGuard g(mode);
    (void)mm(a, b);
    (void)(a + b);
  }
  const std::vector<std::string> expected = {"aten::_to_copy", "aten::_to_copy", "aten::mm",
                                             "aten::add.Tensor"};
  EXPECT_EQ(mode->seen, expected);
  // Handlers run with autocast off, as PyTorch's torch_dispatch handlers do.
  for (bool on : mode->autocast_on) EXPECT_FALSE(on);
}

TEST(Autocast, ReducedAndFullPrecisionHelpers) {
  Tensor f = randn({2});
  EXPECT_EQ(ac::to_reduced_precision(f, false, true, kFloat16, kBFloat16).dtype(), kBFloat16);
  EXPECT_EQ(ac::to_reduced_precision(f, true, false, kFloat16, kBFloat16).impl(), f.impl());
  Tensor d = f.to(kFloat64);
  EXPECT_EQ(ac::to_reduced_precision(d, false, true, kFloat16, kBFloat16).impl(), d.impl());
  EXPECT_EQ(ac::to_full_precision(f.to(kFloat16), false, true).dtype(), kFloat32);
  EXPECT_EQ(ac::to_full_precision(d, false, true).impl(), d.impl());
}

TEST(Autocast, ListsAreThe113CpuLists) {
  const auto& ops = ac::cpu_ops();
  EXPECT_EQ(ops.size(), 117u);
  int lower = 0, fp32 = 0, promote = 0;
  for (const auto& [name, policy] : ops) {
    lower += policy == ac::CastPolicy::lower_precision_fp;
    fp32 += policy == ac::CastPolicy::fp32;
    promote += policy == ac::CastPolicy::promote || policy == ac::CastPolicy::promote_uncast;
  }
  EXPECT_EQ(lower, 14);
  EXPECT_EQ(promote, 3);
  EXPECT_EQ(fp32, 100);
  EXPECT_EQ(ops.front().first, "conv1d");
  EXPECT_STREQ(ac::policy_name(ops.front().second), "lower_precision_fp");
}

}  // namespace
}  // namespace ember
