// The saved values of built-in nodes (Note [Saved values of built-in nodes] in
// src/autograd/record.h): named saved tensors and non-tensor values on OpNode, what survives
// release_variables, and per-tensor saved-tensor hooks (SavedVariable::register_hooks).
#include <gtest/gtest.h>

#include <string>

#include "../testing.h"
#include "autograd/record.h"
#include "ember/ember.h"

namespace ember {
namespace {

using autograd::OpNode;

std::shared_ptr<OpNode> op_node(const Tensor& t) {
  auto node = std::dynamic_pointer_cast<OpNode>(t.grad_fn());
  EXPECT_NE(node, nullptr);
  return node;
}

// The index of the saved slot named `name` (fails when there is none).
size_t slot_named(OpNode& n, const std::string& name) {
  auto& slots = n.saved_slots();
  for (size_t i = 0; i < slots.size(); ++i)
    if (slots[i].name && name == slots[i].name) return i;
  ADD_FAILURE() << "no saved tensor named " << name;
  return 0;
}

template <class F>
std::string error_text(F&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

const Value& value_named(const OpNode& n, const std::string& name) {
  for (const auto& v : n.values())
    if (name == v.name) return v.value;
  static const Value none;
  ADD_FAILURE() << "no saved value named " << name;
  return none;
}

TEST(SavedAttrs, PowSavesSelfAndTheExponent) {
  Tensor x = randn({4}).requires_grad_();
  Tensor y = x.pow(2);
  auto n = op_node(y);
  EXPECT_EQ(n->name(), "PowBackward0");
  EXPECT_TRUE(n->saved(slot_named(*n, "self")).is_same(x));  // the input itself
  const auto& e = n->values();
  ASSERT_EQ(e.size(), 1u);
  EXPECT_STREQ(e[0].name, "exponent");
  EXPECT_TRUE(e[0].scalar);  // a Scalar: Python shows it signed
  EXPECT_EQ(e[0].value.to_int(), 2);
}

TEST(SavedAttrs, ExpSavesItsResultAsANewTensor) {
  Tensor x = randn({3}).requires_grad_();
  Tensor y = x.exp();
  auto n = op_node(y);
  Tensor r = n->saved(slot_named(*n, "result"));
  EXPECT_FALSE(r.is_same(y));
  EXPECT_TRUE(equal(r, y));
  EXPECT_EQ(r.grad_fn(), y.grad_fn());
}

TEST(SavedAttrs, ValuesOutliveTheSavedTensors) {
  Tensor x = randn({3, 2}).requires_grad_();
  Tensor s = x.sum(std::vector<int64_t>{-1}, true);
  auto n = op_node(s);
  s.sum().backward();  // frees the graph's saved tensors
  EXPECT_EQ(value_named(*n, "dim").to_int_list(), std::vector<int64_t>{-1});  // as given
  EXPECT_TRUE(value_named(*n, "keepdim").to_bool());
  EXPECT_EQ(value_named(*n, "self_sym_sizes").to_int_list(), (std::vector<int64_t>{3, 2}));
  EXPECT_FALSE(n->values()[0].scalar);
  Tensor y = x.sin();
  auto m = op_node(y);
  y.sum().backward();
  EXPECT_THROW(m->saved(slot_named(*m, "self")), Error);
}

TEST(SavedAttrs, UnsavedSideIsAnUndefinedSlot) {
  Tensor a = randn({3}).requires_grad_();
  Tensor m = a * randn({3});
  auto n = op_node(m);
  EXPECT_FALSE(n->saved(slot_named(*n, "self")).defined());  // other needs no grad
  EXPECT_TRUE(n->saved(slot_named(*n, "other")).defined());
}

TEST(SavedAttrs, IndicesAreOneListAttribute) {
  Tensor x = randn({3, 4}).requires_grad_();
  Tensor i = testing::from_values({0, 2}, {2}, kInt64);
  Tensor y = ember::index(x, {std::nullopt, i});
  auto n = op_node(y);
  auto& slots = n->saved_slots();
  ASSERT_EQ(slots.size(), 2u);
  for (const auto& s : slots) {
    EXPECT_STREQ(s.name, "indices");
    EXPECT_TRUE(s.in_list);
  }
  EXPECT_FALSE(n->saved(0).defined());  // the None index
  EXPECT_TRUE(n->saved(1).is_same(i));
  EXPECT_EQ(value_named(*n, "self_sizes").to_int_list(), (std::vector<int64_t>{3, 4}));
}

struct CountingHooks final : autograd::SavedTensorHooks {
  int packs = 0, unpacks = 0;
  bool packed_requires_grad = true;
  std::shared_ptr<void> pack(const Tensor& t) override {
    ++packs;
    packed_requires_grad = t.requires_grad();
    return std::make_shared<Tensor>(t * 10);
  }
  Tensor unpack(const std::shared_ptr<void>& p) override {
    ++unpacks;
    return *static_cast<Tensor*>(p.get());
  }
};

TEST(SavedAttrs, RegisterHooksPacksNowAndUnpacksInBackward) {
  Tensor x = testing::from_values({1.0, 2.0, 3.0}, {3}, kFloat32).requires_grad_();
  Tensor y = x * x;
  auto n = op_node(y);
  auto hooks = std::make_shared<CountingHooks>();
  n->saved_slots()[slot_named(*n, "self")].var.register_hooks(hooks);
  EXPECT_EQ(hooks->packs, 1);
  EXPECT_FALSE(hooks->packed_requires_grad);  // pack sees the input detached
  y.sum().backward();
  EXPECT_EQ(hooks->unpacks, 1);
  // other's gradient reads the packed self (10 x); self's reads the unhooked other (x)
  EXPECT_TRUE(equal(x.grad(), testing::from_values({11.0, 22.0, 33.0}, {3}, kFloat32)));
}

TEST(SavedAttrs, RegisterHooksRefusals) {
  Tensor x = randn({3}).requires_grad_();
  Tensor y = x.cos();
  auto n = op_node(y);
  auto& var = n->saved_slots()[slot_named(*n, "self")].var;
  var.register_hooks(std::make_shared<CountingHooks>());
  EXPECT_EQ(error_text([&] { var.register_hooks(std::make_shared<CountingHooks>()); }),
      "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one pair "
      "of hooks is allowed at a time.");
  Tensor m = x * randn({3});
  auto mn = op_node(m);
  EXPECT_EQ(error_text([&] {
              mn->saved_slots()[slot_named(*mn, "self")].var.register_hooks(std::make_shared<CountingHooks>());
            }),
            "Calling register_hooks on a saved tensor with value None is forbidden");
  Tensor z = x.sin();
  auto zn = op_node(z);
  z.sum().backward();
  EXPECT_THROW(zn->saved_slots()[slot_named(*zn, "self")].var.register_hooks(std::make_shared<CountingHooks>()),
               Error);
}

}  // namespace
}  // namespace ember
