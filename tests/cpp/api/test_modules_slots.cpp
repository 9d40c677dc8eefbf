// The stale-handle trap (issue 17): a Tensor copy of a registered parameter keeps the old tensor
// after load_state_dict(assign=true) or an overwriting conversion; a ParameterRef / BufferRef
// reads the module's slot and sees the new one (Note [Slot handles]).
#include "testing.h"

#include "ember/nn/module_clone.h"

namespace ember {
namespace {

namespace nn = ember::nn;

struct FlagGuard {
  ~FlagGuard() {
    nn::set_overwrite_module_params_on_conversion(false);
    nn::set_swap_module_params_on_conversion(false);
  }
};

struct Affine : nn::ModuleBase<Affine> {
  Affine() {
    stale = register_parameter("w", ones({2}));  // the trap: a copy of today's handle
    w = parameter_ref("w");
    b = register_parameter_ref("b", zeros({2}));
    steps = register_buffer_ref("steps", zeros({}, kInt64));
    absent = register_parameter_ref("absent", Tensor());
  }
  Tensor forward(const Tensor& x) { return x * w + *b; }
  nn::ParameterRef w, b, absent;
  nn::BufferRef steps;
  Tensor stale;
};

TEST(ModulesSlots, AssignLoadIsSeenThroughTheHandle) {
  Affine m;
  nn::StateDict sd;
  Tensor w2 = full({2}, 3.0), b2 = full({2}, 1.0), s2 = full({}, 5, kInt64);
  sd.insert("w", w2);
  sd.insert("b", b2);
  sd.insert("steps", s2);
  m.load_state_dict(sd, /*strict=*/true, /*assign=*/true);
  // The module holds the checkpoint's tensors; the Tensor copy still holds the old one.
  EXPECT_TRUE(m.parameter("w").is_same(w2) || m.parameter("w").data_ptr() == w2.data_ptr());
  EXPECT_FALSE(m.stale.is_same(m.parameter("w")));
  EXPECT_EQ(m.stale.sum().item<float>(), 2.0f);
  // The handles see the new tensors.
  EXPECT_TRUE(m.w.get().is_same(m.parameter("w")));
  EXPECT_TRUE(m.b->is_same(m.parameter("b")));
  EXPECT_EQ(m.steps->item<int64_t>(), 5);
  testing::expect_values(m(ones({2})), {2}, {4.0, 4.0});
  EXPECT_FALSE(m.absent.defined());
  EXPECT_TRUE(m.w.defined());
}

TEST(ModulesSlots, OverwritingConversionIsSeenThroughTheHandle) {
  FlagGuard guard;
  nn::set_overwrite_module_params_on_conversion(true);
  Affine m;
  m.to(kFloat64);
  EXPECT_EQ(m.stale.dtype(), kFloat32);  // the trap
  EXPECT_EQ(m.w->dtype(), kFloat64);
  EXPECT_EQ(Tensor(m.b).dtype(), kFloat64);
  EXPECT_EQ(m.steps->dtype(), kInt64);  // integer buffers are not converted
  EXPECT_EQ(m(ones({2}, kFloat64)).dtype(), kFloat64);
}

TEST(ModulesSlots, SwapAndSetDataConversionsKeepTheHandleValid) {
  FlagGuard guard;
  Affine m;
  m.bfloat16();  // set-data: the same tensor object, new dtype
  EXPECT_EQ(m.w->dtype(), kBFloat16);
  nn::set_swap_module_params_on_conversion(true);
  m.to(kFloat64);  // swap: contents exchanged
  EXPECT_EQ(m.w->dtype(), kFloat64);
  EXPECT_TRUE(m.w->is_parameter());
}

TEST(ModulesSlots, CloneRebindsMemberHandlesLocalCopiesKeepTheirModule) {
  nn::register_cloneable<Affine>();
  auto m = std::make_shared<Affine>();
  auto copy = std::dynamic_pointer_cast<Affine>(m->clone());
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->w.module(), copy.get());
  EXPECT_EQ(copy->steps.module(), copy.get());
  EXPECT_TRUE(copy->w->is_same(copy->parameter("w")));
  EXPECT_FALSE(copy->w->is_same(m->parameter("w")));
  {
    NoGradGuard no_grad;
    copy->w->fill_(7.0);
  }
  EXPECT_EQ(m->w->sum().item<float>(), 2.0f);  // the original is untouched
  nn::ParameterRef local = m->w;                 // a plain copy names the same module
  EXPECT_EQ(local.module(), m.get());
  nn::ParameterRef assigned;
  assigned = copy->w;
  EXPECT_EQ(assigned.module(), copy.get());
}

TEST(ModulesSlots, Errors) {
  Affine m;
  testing::expect_error([&] { m.parameter_ref("nope"); }, "'Affine' object has no parameter 'nope'",
                        ErrorKind::Attribute);
  testing::expect_error([&] { m.buffer_ref("w"); }, "'Affine' object has no buffer 'w'",
                        ErrorKind::Attribute);
  nn::ParameterRef unbound;
  EXPECT_FALSE(unbound.defined());
  testing::expect_error([&] { unbound.get(); }, "ParameterRef is not bound to a module");
  testing::expect_error([&] { m.register_parameter_ref("w", ones({1})); },
                        "Parameter 'w' already defined");
}

TEST(ModulesSlots, ExamplesPattern) {
  // The pattern docs/modules.md shows: a ParameterRef passes wherever a Tensor is expected.
  Affine m;
  Tensor x = ones({2});
  Tensor y = x.mul(m.w);
  EXPECT_EQ(y.sum().item<float>(), 2.0f);
  const Tensor& ref = m.w;
  EXPECT_TRUE(ref.is_same(m.parameter("w")));
}

}  // namespace
}  // namespace ember
