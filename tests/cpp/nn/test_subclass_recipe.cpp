// The recipe "Extension points in nn.Module for load_state_dict and tensor subclasses", in C++:
// a wrapper subclass holding its payload (`elem`, `scale`) in its own fields, as a Linear's
// weight, converted with and without the swap flag, and loaded through module_load.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/dispatch.h"
#include "ember/ember.h"
#include "ember/nn.h"

namespace ember {
namespace {

struct MyQuantizedLinearWeight : TensorSubclass {
  MyQuantizedLinearWeight(Tensor e, double s) : elem(std::move(e)), scale(s) {}
  std::string name() const override { return "MyQuantizedLinearWeight"; }
  bool has_torch_dispatch() const override { return true; }

  static Tensor make(const Tensor& elem, double scale) {
    return make_wrapper_tensor(elem.sizes(), elem.strides(), elem.dtype(), elem.device(),
                               make_intrusive<MyQuantizedLinearWeight>(elem, scale));
  }
  static MyQuantizedLinearWeight& of(const Tensor& t) {
    return *static_cast<MyQuantizedLinearWeight*>(t.impl()->subclass());
  }

  // detach and _to_copy apply to elem and rewrap; everything else is unsupported, as in the recipe.
  std::optional<Stack> torch_dispatch(const OpHandle& op, const Stack& args) override {
    if (op.full_name() == "aten::detach" || op.full_name() == "aten::_to_copy") {
      Stack inner = args;
      inner[0] = Value(of(args[0].to_tensor()).elem);
      Stack out = op.call(inner);
      return Stack{Value(make(out[0].to_tensor(), scale))};
    }
    EMBER_FAIL_KIND(ErrorKind::NotImplemented, "Unsupported function ", op.full_name());
  }

  Tensor elem;
  double scale;
};

struct SwapFlag {
  explicit SwapFlag(bool on) { nn::set_swap_module_params_on_conversion(on); }
  ~SwapFlag() { nn::set_swap_module_params_on_conversion(false); }
};

TEST(SubclassRecipe, WithoutSwapTheElemStaysFloat32) {
  nn::Linear m(3, 5);
  m.weight() = nn::Parameter(MyQuantizedLinearWeight::make(m.weight(), 0.5));
  const Tensor weight = m.weight(), bias = m.bias();
  m.bfloat16();
  // set_data took the converted metadata, but the payload lives in the subclass object, which
  // set_data does not touch: the broken state the recipe shows.
  EXPECT_TRUE(m.weight().is_same(weight));
  EXPECT_EQ(m.weight().dtype(), kBFloat16);
  EXPECT_EQ(MyQuantizedLinearWeight::of(m.weight()).elem.dtype(), kFloat32);
  EXPECT_TRUE(m.bias().is_same(bias));
  EXPECT_EQ(m.bias().dtype(), kBFloat16);
}

TEST(SubclassRecipe, WithSwapTheElemConvertsAndIdentityIsKept) {
  SwapFlag swap(true);
  nn::Linear m(3, 5);
  m.weight() = nn::Parameter(MyQuantizedLinearWeight::make(m.weight(), 0.5));
  const Tensor weight = m.weight(), bias = m.bias();
  m.bfloat16();
  EXPECT_TRUE(m.weight().is_same(weight));
  EXPECT_TRUE(m.bias().is_same(bias));
  EXPECT_EQ(m.weight().dtype(), kBFloat16);
  EXPECT_EQ(MyQuantizedLinearWeight::of(m.weight()).elem.dtype(), kBFloat16);
  EXPECT_EQ(MyQuantizedLinearWeight::of(m.weight()).scale, 0.5);
  EXPECT_TRUE(m.weight().is_parameter());
  EXPECT_TRUE(m.weight().requires_grad());
}

// A subclass whose module_load (reached through torch_function) quantizes what is loaded.
struct LoadsQuantized : TensorSubclass {
  std::string name() const override { return "LoadsQuantized"; }
  bool has_torch_function() const override { return true; }
  std::optional<Stack> torch_function(const OpHandle& op, const Stack& args) override {
    if (op.full_name() != "ember::module_load") return op.redispatch(args);  // the default behaviour
    Tensor other = args[1].to_tensor();
    ++calls;
    return Stack{Value((other * 2.0).detach())};  // "transform each value on load"
  }
  int calls = 0;
};

TEST(SubclassRecipe, ModuleLoadTransformsValuesOnLoadWithSwap) {
  SwapFlag swap(true);
  nn::Linear m(2, 2);
  auto hooks = make_intrusive<LoadsQuantized>();
  set_subclass(m.weight(), hooks);
  const Tensor weight = m.weight();
  nn::StateDict sd = m.state_dict();
  sd.insert("weight", ones({2, 2}));
  m.load_state_dict(sd);
  EXPECT_EQ(hooks->calls, 1);
  EXPECT_TRUE(m.weight().is_same(weight));
  testing::expect_values(m.weight(), {2, 2}, {2, 2, 2, 2});
}

}  // namespace
}  // namespace ember
