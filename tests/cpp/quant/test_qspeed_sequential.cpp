// nn::Sequential skips its Identity children (the ~100 that fusion leaves in an int8 model) only
// where nothing can tell: a hooked Identity still runs its hooks, a subclass of Identity still
// runs its own forward, and front-end hooks still see the call.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/nn.h"

namespace ember {
namespace {

using testing::expect_values;
using testing::from_values;

// A subclass: not skipped (its own class, its own forward).
struct Twice : nn::Identity {
  Value forward(const std::vector<Value>& inputs) override { return inputs[0].to_tensor() * 2.0; }
};

TEST(SequentialIdentity, HooksOnIdentityStillFire) {
  auto ident = std::make_shared<nn::Identity>();
  nn::Sequential seq(std::make_shared<nn::ReLU>(), ident, std::make_shared<nn::ReLU>());
  const Tensor x = from_values({-2, -1, 0.5, 3}, {4});
  expect_values(seq.forward(x), {4}, {0, 0, 0.5, 3});
  int pre = 0, post = 0;
  ident->register_forward_pre_hook([&](nn::Module&, const std::vector<Value>& in) {
    ++pre;
    return std::optional<std::vector<Value>>(std::vector<Value>{in[0].to_tensor() - 1.0});
  });
  ident->register_forward_hook([&](nn::Module&, const std::vector<Value>&, const Value& out) {
    ++post;
    return std::optional<Value>(out.to_tensor() * 10.0);
  });
  // relu(x) = (0, 0, 0.5, 3) -> -1 -> x10 -> relu
  expect_values(seq.forward(x), {4}, {0, 0, 0, 20});
  EXPECT_EQ(pre, 1);
  EXPECT_EQ(post, 1);
}

TEST(SequentialIdentity, IdentitySubclassForwardRuns) {
  nn::Sequential seq(std::make_shared<nn::Identity>(), std::make_shared<Twice>(),
                     std::make_shared<nn::Identity>());
  expect_values(seq.forward(from_values({1, -2}, {2})), {2}, {2, -4});
}

TEST(SequentialIdentity, FrontEndHooksStillSeeTheCall) {
  // A module marked as having front-end hooks hands its call to the front end; with no front end
  // installed (this binary), it runs natively, hooks included, so only the flag is observable:
  // has_forward_hooks() is what Sequential consults before skipping.
  auto ident = std::make_shared<nn::Identity>();
  EXPECT_FALSE(ident->has_forward_hooks());
  ident->set_front_end_hooks(true);
  EXPECT_TRUE(ident->has_forward_hooks());
  ident->set_front_end_hooks(false);
  nn::Sequential seq(ident, ident);
  const Tensor x = from_values({1}, {1});
  EXPECT_TRUE(seq.forward(x).is_same(x));  // Identity passes the very tensor through
}

}  // namespace
}  // namespace ember
