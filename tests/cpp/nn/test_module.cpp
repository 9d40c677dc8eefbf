// nn::Module core: registration, traversal, repr, hooks, state_dict / load_state_dict (PyTorch's
// messages, all-or-nothing), conversion paths (swap / set-data / overwrite), swap_tensors.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/ember.h"
#include "ember/nn/module.h"
#include "ember/swap_tensors.h"
#include "ember/warning.h"

namespace ember {
namespace {

using nn::Module;
using nn::StateDict;

// A minimal Linear for these tests (the real layers live in nn/linear).
struct Lin : Module {
  Lin(int64_t in, int64_t out, Device device = kCPU) : Module("Linear") {
    register_parameter("weight", ones({out, in}, TensorOptions(kFloat32).device(device)));
    register_parameter("bias", zeros({out}, TensorOptions(kFloat32).device(device)));
  }
  Value forward(const std::vector<Value>& in) override {
    return linear(in.at(0).to_tensor(), parameter("weight"), parameter("bias"));
  }
  std::string extra_repr() const override { return "in_features=2, out_features=3, bias=True"; }
};

struct M : Module {
  M() : Module("M") {
    lin = register_module("lin", std::make_shared<Lin>(2, 3));
    register_buffer("b", zeros({2}));
    register_buffer("np", zeros({1}), /*persistent=*/false);
    register_buffer("none", Tensor());
    register_buffer("count", zeros({}, kInt64));
  }
  std::shared_ptr<Lin> lin;
};

struct FlagGuard {
  FlagGuard(bool swap, bool overwrite) {
    nn::set_swap_module_params_on_conversion(swap);
    nn::set_overwrite_module_params_on_conversion(overwrite);
  }
  ~FlagGuard() {
    nn::set_swap_module_params_on_conversion(false);
    nn::set_overwrite_module_params_on_conversion(false);
  }
};

std::vector<std::string> names(const nn::Module::NamedTensors& v) {
  std::vector<std::string> out;
  for (const auto& [n, t] : v) out.push_back(n);
  return out;
}

TEST(Module, RegistrationAndErrors) {
  Module m("Net");
  Tensor& w = m.register_parameter("w", ones({2}));
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_parameter());
  EXPECT_TRUE(w.is_leaf());
  m.register_parameter("bias", Tensor());  // registered as None
  EXPECT_TRUE(m.has_parameter("bias"));
  EXPECT_EQ(names(m.named_parameters()), (std::vector<std::string>{"w"}));
  testing::expect_error([&] { m.register_parameter("a.b", ones({1})); },
                        "Parameter name must not contain a dot (got 'a.b')");
  testing::expect_error([&] { m.register_parameter("", ones({1})); }, "Parameter name must not be empty");
  testing::expect_error([&] { m.register_parameter("w", ones({1})); }, "Parameter 'w' already defined");
  testing::expect_error([&] { m.register_buffer("w", ones({1})); }, "attribute 'w' already exists",
                        ErrorKind::Key);
  Tensor leaf = ones({2}).requires_grad_();
  testing::expect_error([&] { m.register_parameter("nl", leaf * 2.0); },
                        "Cannot assign non-leaf Tensor to parameter 'nl'.", ErrorKind::Value);
  EXPECT_EQ(w.to_string(), "Parameter containing:\ntensor([1., 1.], requires_grad=True)");
}

TEST(Module, TraversalReprAndModes) {
  auto m = std::make_shared<M>();
  auto shared = m->lin;
  m->register_module("again", shared);  // the same child under two names
  EXPECT_EQ(names(m->named_parameters()), (std::vector<std::string>{"lin.weight", "lin.bias"}));
  EXPECT_EQ(names(m->named_parameters("", true, false)),
            (std::vector<std::string>{"lin.weight", "lin.bias", "again.weight", "again.bias"}));
  EXPECT_EQ(names(m->named_buffers()), (std::vector<std::string>{"b", "np", "count"}));
  EXPECT_EQ(m->named_modules().size(), 2u);
  EXPECT_EQ(m->children().size(), 1u);
  EXPECT_EQ(m->repr(),
            "M(\n  (lin): Linear(in_features=2, out_features=3, bias=True)\n"
            "  (again): Linear(in_features=2, out_features=3, bias=True)\n)");
  m->eval();
  EXPECT_FALSE(m->lin->is_training());
  m->train();
  EXPECT_TRUE(m->lin->is_training());
  int visited = 0;
  m->apply([&](Module&) { ++visited; });
  EXPECT_EQ(visited, 2);  // children are de-duplicated, then the module itself
  Module plain("Plain");
  testing::expect_error([&] { plain.named_modules(); }, "It looks like you attempted to retrieve");
}

TEST(Module, ForwardHooksAndZeroGrad) {
  auto lin = std::make_shared<Lin>(2, 3);
  std::vector<std::string> seen;
  lin->register_forward_pre_hook([&](Module&, const std::vector<Value>& in) {
    seen.push_back("pre");
    return std::optional<std::vector<Value>>{{in[0].to_tensor() * 2.0}};
  });
  unsigned id = lin->register_forward_hook([&](Module&, const std::vector<Value>&, const Value& out) {
    seen.push_back("post");
    return std::optional<Value>{out.to_tensor() + 1.0};
  });
  Tensor y = (*lin)(ones({1, 2}));
  testing::expect_values(y, {1, 3}, {5, 5, 5});
  EXPECT_EQ(seen, (std::vector<std::string>{"pre", "post"}));
  lin->remove_hook(id);
  y = (*lin)(ones({1, 2}));
  testing::expect_values(y, {1, 3}, {4, 4, 4});
  y.sum().backward();
  EXPECT_TRUE(lin->parameter("weight").grad().defined());
  lin->zero_grad(false);
  testing::expect_values(lin->parameter("weight").grad(), {3, 2}, {0, 0, 0, 0, 0, 0});
  lin->zero_grad();
  EXPECT_FALSE(lin->parameter("weight").grad().defined());
  Module bare("Bare");
  testing::expect_error([&] { bare.call({}); },
                        "Module [Bare] is missing the required \"forward\" function",
                        ErrorKind::NotImplemented);
}

TEST(Module, StateDictKeysMetadataAndValues) {
  auto m = std::make_shared<M>();
  StateDict sd = m->state_dict();
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"b", "count", "lin.weight", "lin.bias"}));
  ASSERT_TRUE(sd.metadata.has_value());
  ASSERT_EQ(sd.metadata->size(), 2u);
  EXPECT_EQ((*sd.metadata)[0].first, "");
  EXPECT_EQ((*sd.metadata)[1].first, "lin");
  EXPECT_EQ((*sd.metadata)[1].second.at("version").to_int(), 1);
  const Tensor w = sd.at("lin.weight").to_tensor();
  EXPECT_FALSE(w.requires_grad());
  EXPECT_EQ(w.data_ptr(), m->lin->parameter("weight").data_ptr());
  EXPECT_TRUE(m->state_dict("", true).at("lin.weight").to_tensor().is_same(m->lin->parameter("weight")));
  StateDict pre = m->state_dict("pre.");
  EXPECT_EQ((*pre.metadata)[1].first, "pre.lin");
}

TEST(Module, LoadStateDictMessagesAndResult) {
  auto m = std::make_shared<M>();
  EXPECT_EQ(m->load_state_dict(m->state_dict()).to_string(), "<All keys matched successfully>");
  StateDict sd = m->state_dict();
  sd.erase("b");
  sd.insert("extra", ones({1}));
  sd.insert("zz.q", ones({1}));
  sd.insert("lin.extra", ones({1}));
  sd.insert("np", ones({1}));  // non-persistent buffer: unexpected
  testing::expect_error([&] { m->load_state_dict(sd); },
                        "Error(s) in loading state_dict for M:\n\tMissing key(s) in state_dict: \"b\". "
                        "\n\tUnexpected key(s) in state_dict: \"extra\", \"zz.q\", \"np\", \"lin.extra\". ");
  nn::IncompatibleKeys keys = m->load_state_dict(sd, /*strict=*/false);
  EXPECT_EQ(keys.to_string(),
            "_IncompatibleKeys(missing_keys=['b'], unexpected_keys=['extra', 'zz.q', 'np', 'lin.extra'])");
  StateDict bad = m->state_dict();
  bad.insert("lin.weight", ones({4, 4}));
  testing::expect_error([&] { m->load_state_dict(bad, false); },
                        "Error(s) in loading state_dict for M:\n\tsize mismatch for lin.weight: copying "
                        "a param with shape ember.Size([4, 4]) from checkpoint, the shape in current "
                        "model is ember.Size([3, 2]).");
  StateDict wrong_type = m->state_dict();
  wrong_type.insert("lin.weight", Value(int64_t{3}));
  testing::expect_error([&] { m->load_state_dict(wrong_type); },
                        "While copying the parameter named \"lin.weight\", expected ember.Tensor or "
                        "Tensor-like object from checkpoint but received <class 'int'>");
}

TEST(Module, FailedLoadChangesNothing) {
  auto m = std::make_shared<M>();
  const Tensor weight = m->lin->parameter("weight");
  StateDict sd = m->state_dict();
  sd.insert("b", full({2}, 7.0));                 // valid, comes first
  sd.insert("lin.bias", ones({5}));               // invalid: size mismatch, comes later
  testing::expect_error([&] { m->load_state_dict(sd); }, "size mismatch for lin.bias");
  testing::expect_values(m->buffer("b"), {2}, {0, 0});  // PyTorch would have written 7s
  EXPECT_TRUE(m->lin->parameter("weight").is_same(weight));
  sd.insert("lin.bias", full({3}, 2.0));
  m->load_state_dict(sd);
  testing::expect_values(m->buffer("b"), {2}, {7, 7});
  testing::expect_values(m->lin->parameter("bias"), {3}, {2, 2, 2});
}

TEST(Module, LoadCopiesAssignsAndHandlesZeroDim) {
  auto m = std::make_shared<M>();
  const Tensor weight = m->lin->parameter("weight");
  StateDict sd = m->state_dict();
  sd.insert("lin.weight", full({3, 2}, 3.0, kFloat64));
  sd.insert("count", full({1}, 5, kInt64));  // 0-d buffer from a 1-element 1-d checkpoint
  m->load_state_dict(sd);
  EXPECT_TRUE(m->lin->parameter("weight").is_same(weight));
  EXPECT_EQ(weight.dtype(), kFloat32);
  testing::expect_values(weight, {3, 2}, {3, 3, 3, 3, 3, 3});
  EXPECT_EQ(m->buffer("count").item<int64_t>(), 5);
  // assign: the module takes the checkpoint's tensor; requires_grad comes from the module.
  Tensor ckpt = full({3, 2}, 4.0, kFloat64);
  sd.insert("lin.weight", ckpt);
  m->load_state_dict(sd, true, /*assign=*/true);
  const Tensor assigned = m->lin->parameter("weight");
  EXPECT_EQ(assigned.dtype(), kFloat64);
  EXPECT_EQ(assigned.data_ptr(), ckpt.data_ptr());
  EXPECT_TRUE(assigned.requires_grad());
  EXPECT_TRUE(assigned.is_parameter());
}

TEST(Module, MetaSkeletonLoads) {
  auto real = std::make_shared<Lin>(2, 3);
  {
    NoGradGuard g;
    real->parameter("weight").fill_(2.0);
  }
  auto meta = std::make_shared<Lin>(2, 3, kMeta);
  {
    WarningCapture warnings;
    meta->load_state_dict(real->state_dict());
    ASSERT_EQ(warnings.messages.size(), 2u);
    EXPECT_EQ(warnings.messages[0].rfind("for weight: copying from a non-meta parameter in the "
                                         "checkpoint to a meta parameter in the current model, "
                                         "which is a no-op.", 0), 0u);
  }
  EXPECT_TRUE(meta->parameter("weight").is_meta());
  meta->load_state_dict(real->state_dict(), true, /*assign=*/true);
  EXPECT_TRUE(meta->parameter("weight").is_cpu());
  testing::expect_values(meta->parameter("weight"), {3, 2}, {2, 2, 2, 2, 2, 2});
  auto skeleton = std::make_shared<Lin>(2, 3, kMeta);
  testing::expect_error([&] { skeleton->to(kCPU); },
                        "Cannot copy out of meta tensor; no data! Please use ember.nn.Module.to_empty() "
                        "instead of ember.nn.Module.to() when moving module from meta to a different device.",
                        ErrorKind::NotImplemented);
  skeleton->to_empty(kCPU);
  EXPECT_TRUE(skeleton->parameter("weight").is_cpu());
  EXPECT_TRUE(skeleton->parameter("weight").requires_grad());
}

TEST(Module, LoadHooks) {
  auto m = std::make_shared<Lin>(2, 3);
  bool strict_seen = false;
  m->register_load_state_dict_pre_hook([&](Module&, StateDict&, const std::string&,
                                           nn::LocalMetadata&, bool strict,
                                           std::vector<std::string>&, std::vector<std::string>&,
                                           std::vector<std::string>&) { strict_seen = strict; });
  m->register_load_state_dict_post_hook([](Module&, nn::IncompatibleKeys& k) {
    k.missing_keys.clear();  // suppresses the strict error, as in PyTorch
  });
  StateDict sd = m->state_dict();
  sd.erase("bias");
  m->load_state_dict(sd, /*strict=*/false);
  EXPECT_TRUE(strict_seen);  // always true, as PyTorch passes
  EXPECT_NO_THROW(m->load_state_dict(sd));
}

TEST(Module, ConversionKeepsIdentityBySetData) {
  auto m = std::make_shared<M>();
  Tensor w = m->lin->parameter("weight");
  w.set_grad(ones({3, 2}));
  Tensor g = w.grad();
  Tensor b = m->buffer("b");
  m->float_();
  EXPECT_TRUE(m->buffer("b").is_same(b));  // already float: same buffer object
  m->double_();
  EXPECT_TRUE(m->lin->parameter("weight").is_same(w));
  EXPECT_EQ(w.dtype(), kFloat64);
  EXPECT_TRUE(w.grad().is_same(g));
  EXPECT_EQ(g.dtype(), kFloat64);
  EXPECT_FALSE(m->buffer("b").is_same(b));  // buffers are replaced
  EXPECT_EQ(m->buffer("count").dtype(), kInt64);  // integers stay
  testing::expect_error([&] { m->to(kInt32); },
                        "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                        "dtype=ember.int32",
                        ErrorKind::Type);
}

TEST(Module, OverwriteFlagMakesNewParameters) {
  FlagGuard flags(false, true);
  auto lin = std::make_shared<Lin>(2, 3);
  Tensor w = lin->parameter("weight");
  lin->double_();
  EXPECT_FALSE(lin->parameter("weight").is_same(w));
  EXPECT_TRUE(lin->parameter("weight").requires_grad());
  EXPECT_EQ(w.dtype(), kFloat32);
}

TEST(Module, SwapFlagKeepsIdentityAndPoisonsOldGraphs) {
  FlagGuard flags(true, false);
  auto lin = std::make_shared<Lin>(2, 3);
  Tensor w = lin->parameter("weight");
  std::vector<Tensor> optimizer_view = lin->parameters();  // what an optimizer holds
  w.set_grad(ones({3, 2}));
  Tensor g = w.grad();
  lin->half();
  EXPECT_TRUE(lin->parameter("weight").is_same(w));
  EXPECT_EQ(optimizer_view[0].dtype(), kFloat16);
  EXPECT_TRUE(w.grad().is_same(g));
  EXPECT_EQ(g.dtype(), kFloat16);
  EXPECT_TRUE(w.is_parameter());
  lin->float_();
  // forward, convert, backward: the old graph's AccumulateGrad was poisoned.
  Tensor loss = (*lin)(ones({1, 2})).sum();
  lin->double_();
  testing::expect_error([&] { loss.backward(); },
                        "Trying to execute AccumulateGrad node that was poisoned by swap_tensors");
  // A forward after the conversion works.
  (*lin)(ones({1, 2}, kFloat64)).sum().backward();
  EXPECT_EQ(w.grad().dtype(), kFloat64);
}

TEST(SwapTensors, ExchangesEverythingAndRefusesSavedTensors) {
  Tensor a = ones({2});
  Tensor b = zeros({3}, kInt64);
  Tensor a_handle = a;
  utils::swap_tensors(a, b);
  EXPECT_EQ(a_handle.dtype(), kInt64);
  EXPECT_EQ(a.sizes(), IntArrayRef({3}));
  testing::expect_values(b, {2}, {1, 1});
  Tensor leaf = ones({2}).requires_grad_();
  Tensor out = leaf * leaf;  // saves leaf
  testing::expect_error([&] { utils::swap_tensors(leaf, zeros({2})); },
                        "Expected use_count of t1 to be 1 or 2 with an AccumulateGrad node but got 4 "
                        "make sure you are not holding references to the tensor in other places.");
  Tensor leaf2 = ones({2}).requires_grad_();
  Tensor out2 = leaf2 * 2.0;  // does not save leaf2
  utils::swap_tensors(leaf2, zeros({2}).requires_grad_());
  testing::expect_error([&] { out2.sum().backward(); },
                        "Trying to execute AccumulateGrad node that was poisoned by swap_tensors");
}

}  // namespace
}  // namespace ember

#include "ember/optim.h"

namespace ember {
namespace {
// Reference preservation: which conversions an optimizer built before them sees.
TEST(Module, OptimizerSeesConversionsThatKeepIdentity) {
  for (int mode = 0; mode < 3; ++mode) {  // 0: default (set-data), 1: swap, 2: overwrite
    FlagGuard flags(mode == 1, mode == 2);
    auto lin = std::make_shared<Lin>(2, 3);
    optim::SGD opt(lin->parameters(), {.lr = 0.1});
    lin->double_();
    const Tensor& held = opt.param_groups()[0].params()[0];
    SCOPED_TRACE(mode);
    EXPECT_EQ(held.is_same(lin->parameter("weight")), mode != 2);
    EXPECT_EQ(held.dtype(), mode == 2 ? kFloat32 : kFloat64);
    // A step through the optimizer moves the module's weight unless it was replaced.
    (*lin)(ones({1, 2}, kFloat64)).sum().backward();
    opt.step();
    EXPECT_EQ(lin->parameter("weight").select(0, 0).select(0, 0).item<double>() != 1.0, mode != 2);
  }
}
}  // namespace
}  // namespace ember

namespace ember {
namespace {
struct WithExtra : Module {
  WithExtra() : Module("WithExtra") { register_buffer("b", zeros({1})); }
  bool has_extra_state() const override { return true; }
  Value get_extra_state() const override { return Value(std::string("v") + std::to_string(counter)); }
  void set_extra_state(const Value& v) override { loaded = v.to_string_value(); }
  int counter = 3;
  std::string loaded;
};

TEST(Module, ExtraStateIsSavedAndLoaded) {
  auto m = std::make_shared<WithExtra>();
  StateDict sd = m->state_dict();
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"b", "_extra_state"}));
  m->load_state_dict(sd);
  EXPECT_EQ(m->loaded, "v3");
  sd.erase("_extra_state");
  testing::expect_error([&] { m->load_state_dict(sd); }, "Missing key(s) in state_dict: \"_extra_state\".");
  auto plain = std::make_shared<Lin>(2, 3);
  StateDict psd = plain->state_dict();
  psd.insert("_extra_state", Value(int64_t{1}));
  testing::expect_error([&] { plain->load_state_dict(psd); },
                        "Unexpected key(s) in state_dict: \"_extra_state\".");
}
}  // namespace
}  // namespace ember

namespace ember {
namespace {
// The per-module steps are overridable: a module that stores its weight scaled in checkpoints
// (a derived key) and reads it back, delegating the rest to the default step.
struct Scaled : Module {
  Scaled() : Module("Scaled") { register_parameter("w", full({2}, 3.0)); }
  void _save_to_state_dict(StateDict& d, const std::string& prefix, bool keep_vars) override {
    Module::_save_to_state_dict(d, prefix, keep_vars);
    d.insert(prefix + "w_half", (parameter("w") * 0.5).detach());
    d.erase(prefix + "w");
  }
  void _load_from_state_dict(StateDict& sd, const std::string& prefix, nn::LocalMetadata& md,
                             bool strict, std::vector<std::string>& missing,
                             std::vector<std::string>& unexpected,
                             std::vector<std::string>& errors) override {
    if (const Value* half = sd.find(prefix + "w_half")) {
      sd.insert(prefix + "w", half->to_tensor() * 2.0);
      sd.erase(prefix + "w_half");
    }
    Module::_load_from_state_dict(sd, prefix, md, strict, missing, unexpected, errors);
  }
};

TEST(Module, OverriddenPerModuleStepsSaveAndReadADerivedKey) {
  auto outer = std::make_shared<Module>("Outer");
  auto inner = outer->register_module("inner", std::make_shared<Scaled>());
  StateDict sd = outer->state_dict();
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"inner.w_half"}));
  testing::expect_values(sd.at("inner.w_half").to_tensor(), {2}, {1.5, 1.5});
  sd.insert("inner.w_half", full({2}, 5.0));
  EXPECT_EQ(outer->load_state_dict(sd).to_string(), "<All keys matched successfully>");
  testing::expect_values(inner->parameter("w"), {2}, {10, 10});
}
}  // namespace
}  // namespace ember

namespace ember {
namespace {
TEST(Module, StateDictHooks) {
  auto lin = std::make_shared<Lin>(2, 3);
  std::vector<std::string> seen;
  lin->register_state_dict_pre_hook([&](Module&, const std::string& prefix, bool keep_vars) {
    seen.push_back("pre " + prefix + (keep_vars ? " keep" : ""));
  });
  lin->register_state_dict_post_hook(
      [&](Module&, StateDict& d, const std::string& prefix, nn::LocalMetadata& local) {
        seen.push_back("post " + prefix + " " + std::to_string(d.size()) + " v" +
                       std::to_string(local.at("version").to_int()));
        local["note"] = Value(std::string("kept"));  // what the hook leaves is saved
      });
  auto outer = std::make_shared<Module>("Outer");
  outer->register_module("lin", lin);
  StateDict sd = outer->state_dict("", true);
  EXPECT_EQ(seen, (std::vector<std::string>{"pre lin. keep", "post lin. 2 v1"}));
  ASSERT_NE(sd.metadata_for("lin"), nullptr);
  EXPECT_EQ(sd.metadata_for("lin")->at("note").to_string_value(), "kept");
}
}  // namespace
}  // namespace ember
