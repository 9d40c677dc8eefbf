// One list of children (Note [One list of children]): a child registered on a container through
// Module's own registration is seen by size, indexing, iteration and forward; hooks through
// call(), the front-end call handoff (Note [Module hooks across the boundary]).
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/nn.h"

namespace ember {
namespace {

using Names = std::vector<std::string>;

TEST(ModuleTree, SequentialSeesChildRegisteredThroughModule) {
  auto seq = std::make_shared<nn::Sequential>(std::make_shared<nn::Linear>(3, 4));
  nn::Module& base = *seq;
  base.register_module("sm", std::make_shared<nn::Softmax>(1));
  EXPECT_EQ(seq->size(), 2u);
  EXPECT_EQ(seq->keys(), (Names{"0", "sm"}));
  EXPECT_EQ((*seq)[-1]->type_name(), "Softmax");
  size_t n = 0;
  for (const auto& m : *seq) n += m != nullptr;
  EXPECT_EQ(n, 2u);
  Tensor y = (*seq)(randn({2, 3}));
  const Tensor sums = y.sum(1);
  EXPECT_NEAR(sums[0].item<double>(), 1.0, 1e-6);
  EXPECT_NEAR(sums[1].item<double>(), 1.0, 1e-6);
  // append numbers after every child, as Python's str(len(self)).
  seq->append(std::make_shared<nn::ReLU>());
  EXPECT_EQ(seq->keys(), (Names{"0", "sm", "2"}));
  base.unregister_module("sm");
  EXPECT_EQ(seq->keys(), (Names{"0", "2"}));
}

TEST(ModuleTree, ModuleDictAndListShareTheList) {
  nn::ModuleDict dict;
  static_cast<nn::Module&>(dict).register_module("a", std::make_shared<nn::ReLU>());
  EXPECT_TRUE(dict.contains("a"));
  EXPECT_EQ(dict.keys(), (Names{"a"}));
  dict.set("b", std::make_shared<nn::Tanh>());
  dict.erase("a");
  EXPECT_EQ(static_cast<nn::Module&>(dict).named_children().size(), 1u);
  nn::ModuleList list;
  static_cast<nn::Module&>(list).register_module("x", std::make_shared<nn::ReLU>());
  EXPECT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]->type_name(), "ReLU");
}

TEST(ModuleTree, HooksRunOnCallsFromCppParents) {
  auto relu = std::make_shared<nn::ReLU>();
  nn::Sequential seq(std::make_shared<nn::Linear>(2, 2), relu);
  std::vector<std::string> seen;
  relu->register_forward_pre_hook([&](nn::Module& m, const std::vector<Value>&) {
    seen.push_back("pre " + m.type_name());
    return std::nullopt;
  });
  relu->register_forward_hook([&](nn::Module&, const std::vector<Value>&, const Value& out) {
    seen.push_back("post");
    return std::optional<Value>(out.to_tensor() * 0);
  });
  EXPECT_TRUE(relu->has_forward_hooks());
  Tensor y = seq(ones({1, 2}));
  EXPECT_EQ(seen, (std::vector<std::string>{"pre ReLU", "post"}));
  EXPECT_EQ(y.abs().sum().item<double>(), 0.0);
}

TEST(ModuleTree, FrontEndCallTakesMarkedModules) {
  static int front_end_calls = 0;
  auto relu = std::make_shared<nn::ReLU>();
  nn::Sequential seq(relu);
  nn::Module::set_front_end_call([](nn::Module& m, std::vector<Value>& in) {
    ++front_end_calls;
    return m.call_native(in);
  });
  seq(ones({1}));
  EXPECT_EQ(front_end_calls, 0);  // unmarked: never handed over
  relu->set_front_end_hooks(true);
  EXPECT_TRUE(relu->has_forward_hooks());
  Tensor y = seq(ones({1}));
  EXPECT_EQ(front_end_calls, 1);
  EXPECT_EQ(y.item<double>(), 1.0);
  relu->set_front_end_hooks(false);
  nn::Module::set_front_end_call(nullptr);
}

TEST(ModuleTree, MessagesNameEmber) {
  nn::Linear lin(3, 2);
  nn::StateDict sd;
  sd.insert("weight", zeros({2, 4}));
  sd.insert("bias", zeros({2}));
  testing::expect_error([&] { lin.load_state_dict(sd); },
                        "size mismatch for weight: copying a param with shape ember.Size([2, 4])");
  testing::expect_error([&] { lin.to(kInt32); }, "desired dtype=ember.int32", ErrorKind::Type);
}

TEST(ModuleTree, CycleInTheModuleGraphRaises) {
  auto outer = std::make_shared<nn::Sequential>(std::make_shared<nn::ReLU>());
  auto inner = std::make_shared<nn::Sequential>(outer);
  outer->append(inner);  // outer -> inner -> outer
  testing::expect_error([&] { outer->train(); }, "maximum recursion depth exceeded");
  testing::expect_error([&] { (void)outer->repr(); }, "maximum recursion depth exceeded");
  testing::expect_error([&] { (void)outer->state_dict(); }, "maximum recursion depth exceeded");
  outer->erase(-1);  // break the cycle, or the two would keep each other alive
  EXPECT_EQ(outer->size(), 1u);
}

}  // namespace
}  // namespace ember
