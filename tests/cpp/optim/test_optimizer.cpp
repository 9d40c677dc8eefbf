// Optimizer's base behaviour: groups and identity, options, zero_grad, step(closure),
// state_dict / load_state_dict, errors and the unchanged-on-failure guarantee.
#include "ember/warning.h"
#include "optim_test_util.h"

namespace ember::optim {
namespace {

using testing::expect_error;

std::vector<double> vals(const Tensor& t) { return testing::values(t.detach()); }

TEST(OptimOptimizer, GroupsHoldTheVeryTensorsAndStateIsKeyedByImpl) {
  auto [w, b] = ref_params();
  SGD opt({w, b}, {.lr = 0.1, .momentum = 0.9});
  ASSERT_EQ(opt.param_groups().size(), 1u);
  EXPECT_TRUE(opt.param_groups()[0].params()[0].is_same(w));
  EXPECT_TRUE(opt.param_groups()[0].params()[1].is_same(b));
  set_ref_grads(w, b, 0);
  opt.step();
  ASSERT_EQ(opt.state().size(), 2u);
  EXPECT_TRUE(opt.state().count(w.impl()));
  // Stepping changes the tensors in place: the handles the caller holds see the new values.
  EXPECT_TRUE(opt.param_groups()[0].params()[0].is_same(w));
  EXPECT_NE(vals(w)[0], 0.5);
}

TEST(OptimOptimizer, GroupOptionsAreFilledFromDefaultsInTorchsOrder) {
  auto [w, b] = ref_params();
  SGD opt({ParamGroup({w}), ParamGroup({b}, {{"momentum", 0.5}, {"note", "mine"}})},
          {.lr = 0.1, .momentum = 0.9});
  using K = std::vector<std::string>;
  EXPECT_EQ(opt.param_groups()[0].options().keys(),
            (K{"lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "foreach",
               "differentiable"}));
  // The group's own keys come first, then the defaults it lacks (PyTorch's setdefault); keys
  // the optimizer does not know are kept, as in a Python dict.
  EXPECT_EQ(opt.param_groups()[1].options().keys(),
            (K{"momentum", "note", "lr", "dampening", "weight_decay", "nesterov", "maximize",
               "foreach", "differentiable"}));
  EXPECT_EQ(opt.param_groups()[1].options().at("momentum").to_double(), 0.5);
  EXPECT_EQ(opt.param_groups()[1].lr(), 0.1);
  // PyTorch's int defaults stay ints (torch prints "dampening: 0").
  EXPECT_TRUE(opt.param_groups()[0].options().at("dampening").is_int());
  EXPECT_TRUE(opt.param_groups()[0].options().at("foreach").is_none());
  EXPECT_EQ(opt.defaults().keys().front(), "lr");
}

TEST(OptimOptimizer, ReprMatchesTorch) {
  auto [w, b] = ref_params();
  SGD sgd({ParamGroup({w}), ParamGroup({b}, {{"lr", 0.02}})}, {.lr = 0.1, .momentum = 0.9});
  EXPECT_EQ(
      sgd.repr(),
      "SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n    foreach: None\n"
      "    lr: 0.1\n    maximize: False\n    momentum: 0.9\n    nesterov: False\n    weight_decay: "
      "0\n"
      "\nParameter Group 1\n    dampening: 0\n    differentiable: False\n    foreach: None\n"
      "    lr: 0.02\n    maximize: False\n    momentum: 0.9\n    nesterov: False\n    "
      "weight_decay: 0\n)");
  Adam adam({w}, {.lr = 0.1});
  EXPECT_EQ(adam.repr(),
            "Adam (\nParameter Group 0\n    amsgrad: False\n    betas: (0.9, 0.999)\n    "
            "capturable: False\n"
            "    differentiable: False\n    eps: 1e-08\n    foreach: None\n    fused: False\n    "
            "lr: 0.1\n"
            "    maximize: False\n    weight_decay: 0\n)");
}

TEST(OptimOptimizer, AddParamGroupChecksAndChangesNothingOnError) {
  auto [w, b] = ref_params();
  SGD opt({w}, {.lr = 0.1});
  auto value = ErrorKind::Value;
  expect_error(
      [&] {
        opt.add_param_group(ParamGroup({b, w}));
      },
      "some parameters appear in more than one parameter group", value);
  Tensor nonleaf = b * 2;
  expect_error([&] { opt.add_param_group(ParamGroup({nonleaf})); },
               "can't optimize a non-leaf Tensor", value);
  expect_error([&] { opt.add_param_group(ParamGroup({Tensor()})); },
               "optimizer can only optimize Tensors, but one of the params is NoneType",
               ErrorKind::Type);
  expect_error(
      [&] {
        opt.add_param_group(ParamGroup({b}, {{"lr", "fast"}}));
      },
      "param group option 'lr' must be a float, but got str", ErrorKind::Type);
  expect_error(
      [&] {
        opt.add_param_group(ParamGroup({b}, {{"foreach", true}}));
      },
      "SGD: foreach=True is not supported", ErrorKind::NotImplemented);
  ASSERT_EQ(opt.param_groups().size(), 1u);

  // A non-leaf that retains its grad is accepted, as in PyTorch.
  Tensor kept = b * 2;
  kept.retain_grad();
  opt.add_param_group(ParamGroup({b}, {{"lr", 0.5}}));
  opt.add_param_group(ParamGroup({kept}));
  ASSERT_EQ(opt.param_groups().size(), 3u);
  EXPECT_EQ(opt.param_groups()[1].lr(), 0.5);
  EXPECT_EQ(opt.param_groups()[2].lr(), 0.1);
}

TEST(OptimOptimizer, EmptyParamsAndDuplicates) {
  expect_error([] { SGD(std::vector<Tensor>{}, {.lr = 0.1}); },
               "optimizer got an empty parameter list", ErrorKind::Value);
  expect_error([] { Adam(std::vector<ParamGroup>{}); }, "optimizer got an empty parameter list",
               ErrorKind::Value);
  Tensor w = zeros({2}).requires_grad_();
  WarningCapture warnings;
  SGD opt({w, w}, {.lr = 0.1});
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_EQ(warnings.messages[0],
            "optimizer contains a parameter group with duplicate parameters; in future, this will "
            "cause an "
            "error; see github.com/pytorch/pytorch/issues/40967 for more information");
  // An empty group is allowed once the optimizer has one.
  opt.add_param_group(ParamGroup(std::vector<Tensor>{}));
  EXPECT_EQ(opt.param_groups().size(), 2u);
}

TEST(OptimOptimizer, ZeroGradSetToNoneOrZeroed) {
  auto [w, b] = ref_params();
  SGD opt({w, b}, {.lr = 0.1});
  set_ref_grads(w, b, 0);
  opt.zero_grad();  // default set_to_none = true
  EXPECT_FALSE(w.grad().defined());
  EXPECT_FALSE(b.grad().defined());

  set_ref_grads(w, b, 0);
  Tensor g = w.grad();
  const uint32_t v = g.version();
  opt.zero_grad(/*set_to_none=*/false);
  EXPECT_TRUE(w.grad().is_same(g));  // zeroed in place
  EXPECT_GT(g.version(), v);
  testing::expect_values(g, {3}, {0, 0, 0}, 0, 0);
  // A parameter without grad is left alone; a step then skips it.
  b.set_grad(Tensor());
  opt.zero_grad(false);
  EXPECT_FALSE(b.grad().defined());
  std::vector<double> before = vals(b);
  opt.step();
  EXPECT_EQ(vals(b), before);
}

TEST(OptimOptimizer, ZeroGradDetachesAGradWithHistory) {
  // create_graph leaves a .grad with a grad_fn: zero_grad(false) detaches it before zeroing.
  Tensor w = testing::from_values({1, 2}, {2}).requires_grad_();
  (w * w).sum().backward({}, std::nullopt, /*create_graph=*/true);
  ASSERT_TRUE(w.grad().grad_fn() != nullptr);
  SGD opt({w}, {.lr = 0.1});
  opt.zero_grad(false);
  EXPECT_EQ(w.grad().grad_fn(), nullptr);
  EXPECT_FALSE(w.grad().requires_grad());
  testing::expect_values(w.grad(), {2}, {0, 0}, 0, 0);
}

TEST(OptimOptimizer, StepWithClosureRunsItWithGradAndReturnsTheLoss) {
  Tensor w = testing::from_values({1, -2}, {2}).requires_grad_();
  SGD opt({w}, {.lr = 0.25});
  int calls = 0;
  auto closure = [&] {
    ++calls;
    EXPECT_TRUE(GradMode::is_enabled());
    opt.zero_grad();
    Tensor loss = (w * w).sum();
    loss.backward();
    return loss;
  };
  NoGradGuard no_grad;  // the closure still records: step turns grad mode on for it
  Tensor loss = opt.step(closure);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(loss.item<double>(), 5.0);
  testing::expect_values(w, {2}, {0.5, -1.0}, 0, 0);  // w - 0.25 * 2w
  EXPECT_FALSE(opt.step().defined());
  EXPECT_EQ(opt.step_count(), 2);
}

TEST(OptimOptimizer, StepRunsWithGradModeOff) {
  Tensor w = testing::from_values({1, -2}, {2}).requires_grad_();
  SGD opt({w}, {.lr = 0.1, .momentum = 0.9});
  w.set_grad(ones({2}));
  opt.step();  // an in-place update of a leaf that requires grad: allowed only without grad mode
  EXPECT_TRUE(w.is_leaf());
  EXPECT_EQ(w.grad_fn(), nullptr);
  EXPECT_FALSE(opt.state(w).at("momentum_buffer").to_tensor().requires_grad());
}

TEST(OptimOptimizer, StateDictHasTorchsLayout) {
  auto [w, b] = ref_params();
  Tensor c = zeros({2}).requires_grad_();
  SGD opt({ParamGroup({w, b}), ParamGroup({c}, {{"lr", 0.5}})}, {.lr = 0.1, .momentum = 0.9});
  set_ref_grads(w, b, 0);  // c has no grad: no state
  opt.step();
  OptimizerStateDict sd = opt.state_dict();
  ASSERT_EQ(sd.param_groups.size(), 2u);
  EXPECT_EQ(sd.param_groups[0].keys().back(), "params");
  EXPECT_EQ(sd.param_groups[0].at("params").to_int_list(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(sd.param_groups[1].at("params").to_int_list(), (std::vector<int64_t>{2}));
  EXPECT_EQ(sd.param_groups[1].at("lr").to_double(), 0.5);
  ASSERT_EQ(sd.state.size(), 2u);
  EXPECT_EQ(sd.state.count(2), 0u);
  // The state's tensors are the optimizer's own (PyTorch's state_dict does not copy).
  EXPECT_TRUE(sd.state.at(1)
                  .at("momentum_buffer")
                  .to_tensor()
                  .is_same(opt.state(b).at("momentum_buffer").to_tensor()));
  // The groups themselves have no "params" key: the tensors are the group's params.
  EXPECT_FALSE(opt.param_groups()[0].options().contains("params"));
}

template <class Make>
void expect_round_trip_continues_like_uninterrupted(Make make) {
  auto [w1, b1] = ref_params();
  auto [w2, b2] = ref_params();
  auto uninterrupted = make(w1, b1);
  auto first = make(w2, b2);
  for (int s = 0; s < 3; ++s) {
    set_ref_grads(w1, b1, s);
    uninterrupted->step();
    set_ref_grads(w2, b2, s);
    first->step();
  }
  OptimizerStateDict sd = first->state_dict();
  first.reset();
  auto resumed = make(w2, b2);
  resumed->load_state_dict(sd);
  for (int s = 3; s < 7; ++s) {
    set_ref_grads(w1, b1, s);
    uninterrupted->step();
    set_ref_grads(w2, b2, s);
    resumed->step();
  }
  EXPECT_EQ(vals(w1), vals(w2));
  EXPECT_EQ(vals(b1), vals(b2));
}

TEST(OptimOptimizer, StateDictRoundTripContinuesExactlyAsUninterrupted) {
  expect_round_trip_continues_like_uninterrupted([](const Tensor& w, const Tensor& b) {
    return std::make_unique<SGD>(
        std::vector<ParamGroup>{ParamGroup({w}), ParamGroup({b}, {{"lr", 0.03}})},
        SGDOptions{.lr = 0.1, .momentum = 0.9, .nesterov = true});
  });
  expect_round_trip_continues_like_uninterrupted([](const Tensor& w, const Tensor& b) {
    return std::make_unique<Adam>(std::vector<Tensor>{w, b},
                                  AdamOptions{.lr = 0.05, .amsgrad = true});
  });
  expect_round_trip_continues_like_uninterrupted([](const Tensor& w, const Tensor& b) {
    return std::make_unique<AdamW>(std::vector<Tensor>{w, b},
                                   AdamWOptions{.lr = 0.05, .maximize = true});
  });
}

TEST(OptimOptimizer, LoadStateDictCopiesTakesSavedOptionsAndCasts) {
  auto [w, b] = ref_params(kFloat64);
  Adam src({w, b}, {.lr = 0.05});
  set_ref_grads(w, b, 0);
  src.step();
  OptimizerStateDict sd = src.state_dict();
  sd.param_groups[0].set("lr", 0.125);
  sd.param_groups[0].set("initial_lr", 0.5);  // a scheduler's key travels with the group

  auto [w32, b32] = ref_params(kFloat32);
  Adam dst({w32, b32}, {.lr = 0.001});
  dst.load_state_dict(sd);
  EXPECT_EQ(dst.param_groups()[0].lr(), 0.125);
  EXPECT_EQ(dst.param_groups()[0].options().at("initial_lr").to_double(), 0.5);
  EXPECT_TRUE(dst.param_groups()[0].params()[0].is_same(w32));
  const ValueDict& st = dst.state(w32);
  // Moments are cast to the parameter's dtype; "step" keeps its own.
  EXPECT_EQ(st.at("exp_avg").to_tensor().dtype(), kFloat32);
  EXPECT_EQ(st.at("step").to_tensor().dtype(), kFloat32);
  // Copies: stepping the source does not move the loaded state.
  Tensor loaded = st.at("step").to_tensor();
  set_ref_grads(w, b, 1);
  src.step();
  EXPECT_EQ(loaded.item<double>(), 1.0);
  EXPECT_FALSE(loaded.is_same(src.state(w).at("step").to_tensor()));
}

TEST(OptimOptimizer, LoadStateDictAcceptsAnOldIntegerStep) {
  Tensor w = testing::from_values({1, 2}, {2}).requires_grad_();
  Adam opt({w});
  OptimizerStateDict sd = opt.state_dict();
  sd.state[0] =
      ValueDict{{"step", int64_t{4}}, {"exp_avg", zeros({2})}, {"exp_avg_sq", zeros({2})}};
  opt.load_state_dict(sd);
  const Tensor& step = opt.state(w).at("step").to_tensor();
  EXPECT_EQ(step.dtype(), kFloat32);
  EXPECT_EQ(step.item<double>(), 4.0);
}

TEST(OptimOptimizer, LoadStateDictErrorsLeaveTheOptimizerUnchanged) {
  auto [w, b] = ref_params();
  SGD opt({ParamGroup({w}), ParamGroup({b}, {{"lr", 0.02}})}, {.lr = 0.1, .momentum = 0.9});
  set_ref_grads(w, b, 0);
  opt.step();
  const OptimizerStateDict good = opt.state_dict();
  Tensor buf = opt.state(w).at("momentum_buffer").to_tensor();
  auto expect_unchanged = [&] {
    EXPECT_EQ(opt.param_groups()[0].lr(), 0.1);
    EXPECT_EQ(opt.param_groups()[1].lr(), 0.02);
    EXPECT_TRUE(opt.state(w).at("momentum_buffer").to_tensor().is_same(buf));
    EXPECT_EQ(opt.state().size(), 2u);
  };
  auto value = ErrorKind::Value;

  OptimizerStateDict sd = good;
  sd.param_groups.pop_back();
  expect_error([&] { opt.load_state_dict(sd); },
               "loaded state dict has a different number of parameter groups", value);
  expect_unchanged();

  sd = good;
  sd.param_groups[1].set("params", std::vector<int64_t>{1, 2});
  expect_error([&] { opt.load_state_dict(sd); },
               "loaded state dict contains a parameter group that doesn't match the size of "
               "optimizer's group",
               value);
  expect_unchanged();

  // A bad option in the second group: the first group's options are not replaced either.
  sd = good;
  sd.param_groups[0].set("lr", 0.7);
  sd.param_groups[1].set("momentum", "high");
  expect_error([&] { opt.load_state_dict(sd); },
               "param group option 'momentum' must be a float, but got str", ErrorKind::Type);
  expect_unchanged();

  // A state tensor of the wrong shape is refused before anything changes.
  sd = good;
  sd.param_groups[0].set("lr", 0.7);
  sd.state[1].set("momentum_buffer", zeros({5}));
  expect_error(
      [&] { opt.load_state_dict(sd); },
      "SGD: a parameter's momentum_buffer has shape ember.Size([5]) but the parameter has shape "
      "ember.Size([2, 3])");
  expect_unchanged();

  sd = good;
  sd.state[7] = ValueDict{{"momentum_buffer", Value()}};
  expect_error([&] { opt.load_state_dict(sd); },
               "loaded state dict has state for parameter 7, which none of its param_groups lists",
               value);
  expect_unchanged();

  opt.load_state_dict(good);  // and the good one still loads
  EXPECT_FALSE(opt.state(w).at("momentum_buffer").to_tensor().is_same(buf));
  EXPECT_EQ(vals(opt.state(w).at("momentum_buffer").to_tensor()), vals(buf));
}

TEST(OptimOptimizer, AStepThatFailsChangesNoGroup) {
  // The second group's options are broken (as a Python user may set them): the check runs
  // before the first group is updated.
  auto [w, b] = ref_params();
  SGD opt({ParamGroup({w}), ParamGroup({b})}, {.lr = 0.1});
  opt.param_groups()[1].options().set("lr", Value());
  set_ref_grads(w, b, 0);
  std::vector<double> before = vals(w);
  expect_error([&] { opt.step(); }, "param group option 'lr' must be a float, but got None",
               ErrorKind::Type);
  EXPECT_EQ(vals(w), before);
  EXPECT_EQ(opt.step_count(), 0);
}

TEST(OptimOptimizer, ValueDictBehavesAsAPythonDict) {
  ValueDict d{{"a", 1}, {"b", 2.5}, {"a", 3}};
  EXPECT_EQ(d.keys(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(d.at("a").to_int(), 3);
  d.set("a", "x");
  EXPECT_EQ(d.keys(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(d.setdefault("b", 9).to_double(), 2.5);
  EXPECT_EQ(d.setdefault("c", 9).to_int(), 9);
  EXPECT_TRUE(d.erase("a"));
  EXPECT_FALSE(d.erase("a"));
  EXPECT_EQ(d.keys(), (std::vector<std::string>{"b", "c"}));
  expect_error([&] { d.at("zz"); }, "'zz'", ErrorKind::Key);
}

}  // namespace
}  // namespace ember::optim
