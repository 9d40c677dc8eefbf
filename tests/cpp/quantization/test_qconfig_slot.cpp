// Note [The qconfig slot]: nn::Module's qconfig is unset, None or a shared QConfig, and deep
// copies keep it.
#include <gtest/gtest.h>

#include "ember/nn.h"
#include "ember/quantization/qconfig.h"

namespace ember {
namespace {

TEST(QConfigSlot, UnsetNoneAndSet) {
  nn::Linear lin(2, 3);
  EXPECT_FALSE(lin.has_qconfig());
  EXPECT_EQ(lin.qconfig(), nullptr);
  lin.set_qconfig(nullptr);  // `m.qconfig = None`
  EXPECT_TRUE(lin.has_qconfig());
  EXPECT_EQ(lin.qconfig(), nullptr);

  int made = 0;
  auto q = std::make_shared<quantization::QConfig>();
  q->activation = [&made] {
    ++made;
    return std::make_shared<nn::Identity>();
  };
  lin.set_qconfig(q);
  ASSERT_EQ(lin.qconfig().get(), q.get());
  auto act = lin.qconfig()->activation();
  EXPECT_EQ(made, 1);
  EXPECT_EQ(act->type_name(), "Identity");
  EXPECT_FALSE(lin.qconfig()->weight);  // an empty factory stays empty

  lin.clear_qconfig();  // `del m.qconfig`
  EXPECT_FALSE(lin.has_qconfig());
  EXPECT_EQ(lin.qconfig(), nullptr);
}

TEST(QConfigSlot, DeepCopySharesTheQConfig) {
  auto seq = std::make_shared<nn::Sequential>();
  seq->push_back(std::make_shared<nn::Linear>(2, 2));
  auto q = std::make_shared<const quantization::QConfig>();
  seq->set_qconfig(q);
  seq->children()[0]->set_qconfig(nullptr);
  auto copy = seq->clone();
  EXPECT_EQ(copy->qconfig().get(), q.get());
  EXPECT_TRUE(copy->children()[0]->has_qconfig());
  EXPECT_EQ(copy->children()[0]->qconfig(), nullptr);
  EXPECT_FALSE(nn::Linear(1, 1).clone()->has_qconfig());
}

}  // namespace
}  // namespace ember
