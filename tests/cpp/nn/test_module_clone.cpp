// Module::clone and nn::deep_copy (Note [Cloning modules]): independence, equal state, shared
// weights and children staying shared, models' typed members pointing at the copies, tensors'
// storage sharing, leaves only, and the registry's message for an unregistered class.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/models.h"
#include "ember/nn.h"
#include "ember/nn/module_clone.h"

namespace ember {
namespace {

using testing::expect_error;

void expect_same_state(nn::Module& a, nn::Module& b) {
  auto sa = a.state_dict(), sb = b.state_dict();
  ASSERT_EQ(sa.items().size(), sb.items().size());
  for (size_t i = 0; i < sa.items().size(); ++i) {
    const auto& [ka, va] = sa.items()[i];
    const auto& [kb, vb] = sb.items()[i];
    EXPECT_EQ(ka, kb);
    const Tensor ta = va.to_tensor(), tb = vb.to_tensor();
    EXPECT_TRUE(equal(ta, tb)) << ka;
    EXPECT_NE(ta.impl()->storage().get(), tb.impl()->storage().get()) << ka;
  }
}

TEST(ModuleClone, LinearIsIndependentAndEqual) {
  auto fc = std::make_shared<nn::Linear>(3, 2);
  fc->eval();
  auto copy = std::dynamic_pointer_cast<nn::Linear>(fc->clone());
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->repr(), fc->repr());
  EXPECT_FALSE(copy->is_training());
  EXPECT_TRUE(nn::is_parameter(copy->weight()));
  EXPECT_TRUE(copy->weight().requires_grad());
  expect_same_state(*fc, *copy);
  Tensor x = randn({4, 3});
  EXPECT_TRUE(equal((*fc)(x), (*copy)(x)));
  AutoGradMode no_grad(false);
  copy->weight().add_(1.0);
  EXPECT_FALSE(equal((*fc)(x), (*copy)(x)));
}

TEST(ModuleClone, SharedWeightsAndChildrenStayShared) {
  auto a = std::make_shared<nn::Linear>(4, 4);
  auto b = std::make_shared<nn::Linear>(4, 4);
  b->weight() = a->weight();  // tied
  auto seq = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{a, b, a});
  auto copy = std::dynamic_pointer_cast<nn::Sequential>(seq->clone());
  ASSERT_TRUE(copy);
  auto ca = copy->at<nn::Linear>(0), cb = copy->at<nn::Linear>(1);
  EXPECT_EQ(copy->at<nn::Linear>(2).get(), ca.get());  // one module at two places
  EXPECT_NE(ca.get(), a.get());
  EXPECT_EQ(ca->weight().impl(), cb->weight().impl());  // still tied, to a new tensor
  EXPECT_NE(ca->weight().impl(), a->weight().impl());
  EXPECT_EQ(copy->parameters().size(), seq->parameters().size());
}

TEST(ModuleClone, OneMemoAcrossCalls) {
  auto fc = std::make_shared<nn::Linear>(2, 2);
  auto holder = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{fc});
  nn::CloneMemo memo;
  auto c1 = holder->clone(memo);
  auto c2 = fc->clone(memo);
  EXPECT_EQ(std::dynamic_pointer_cast<nn::Sequential>(c1)->at<nn::Linear>(0).get(), c2.get());
}

TEST(ModuleClone, ResNetMembersPointAtTheCopies) {
  auto net = models::resnet18(10);
  net->eval();
  auto copy = std::dynamic_pointer_cast<models::ResNet>(net->clone());
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->fc.get(), copy->child("fc").get());
  EXPECT_NE(copy->fc.get(), net->fc.get());
  EXPECT_EQ(copy->layer1.get(), copy->child("layer1").get());
  auto block = copy->layer2->at<models::BasicBlock>(0);
  EXPECT_EQ(block->downsample.get(), block->child("downsample").get());
  EXPECT_EQ(block->conv1.get(), block->child("conv1").get());
  EXPECT_EQ(copy->repr(), net->repr());
  expect_same_state(*net, *copy);
  Tensor x = randn({1, 3, 32, 32});
  EXPECT_TRUE(allclose((*net)(x), (*copy)(x)));
  // Changing the copy leaves the original alone.
  AutoGradMode no_grad(false);
  copy->fc->bias().fill_(3.0);
  EXPECT_FALSE(equal(net->fc->bias(), copy->fc->bias()));
}

TEST(ModuleClone, MobileNetV2) {
  auto net = std::make_shared<models::MobileNetV2>(10);
  auto copy = std::dynamic_pointer_cast<models::MobileNetV2>(net->clone());
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->features.get(), copy->child("features").get());
  EXPECT_EQ(copy->classifier.get(), copy->child("classifier").get());
  expect_same_state(*net, *copy);
  EXPECT_EQ(copy->repr(), net->repr());
}

TEST(ModuleClone, DeepCopyOfTensors) {
  nn::CloneMemo memo;
  Tensor base = arange(6).to(kFloat32);
  Tensor v1 = base.view({2, 3}), v2 = base.slice(0, 2, 6);
  Tensor c1 = nn::deep_copy(v1, memo), c2 = nn::deep_copy(v2, memo);
  EXPECT_EQ(c1.impl()->storage().get(), c2.impl()->storage().get());  // one new storage
  EXPECT_NE(c1.impl()->storage().get(), base.impl()->storage().get());
  EXPECT_EQ(c2.storage_offset(), 2);
  EXPECT_TRUE(equal(c2, v2));
  EXPECT_EQ(nn::deep_copy(v1, memo).impl(), c1.impl());  // memo hit

  Tensor w = randn({3}).requires_grad_(true);
  w.set_grad(ones({3}));
  nn::CloneMemo m2;
  Tensor cw = nn::deep_copy(w, m2);
  EXPECT_TRUE(cw.requires_grad());
  EXPECT_TRUE(cw.is_leaf());
  EXPECT_TRUE(equal(cw.grad(), ones({3})));
  EXPECT_NE(cw.grad().impl(), w.grad().impl());
  expect_error([&] { nn::deep_copy(w * 2, m2); },
               "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
               "protocol at the moment");

  DeviceGuard meta(kMeta);
  Tensor m = empty({2, 3});
  Tensor cm = nn::deep_copy(m, m2);
  EXPECT_TRUE(cm.is_meta());
  EXPECT_EQ(cm.sizes().vec(), std::vector<int64_t>({2, 3}));
}

struct Unregistered : nn::Module {
  Unregistered() : Module("Unregistered") {}
};

struct Registered : nn::Module {
  Registered() : Module("Registered") { register_parameter("w", ones({2})); }
  int64_t extra = 7;
};

TEST(ModuleClone, Registry) {
  Unregistered u;
  expect_error([&] { u.clone(); }, "cannot copy module Unregistered", ErrorKind::Type);
  nn::register_cloneable<Registered>();
  auto r = std::make_shared<Registered>();
  r->extra = 9;
  auto c = std::dynamic_pointer_cast<Registered>(r->clone());
  ASSERT_TRUE(c);
  EXPECT_EQ(c->extra, 9);
  EXPECT_NE(c->parameter("w").impl(), r->parameter("w").impl());
}

}  // namespace
}  // namespace ember
