// LR schedulers against torch 1.13: the learning rates (and OneCycleLR's momenta) after every
// step, pasted from torch (tests/python/optim/make_cpp_references.py), compared exactly.
#include <cmath>

#include "ember/warning.h"
#include "optim_test_util.h"

namespace ember::optim {
namespace {

using testing::expect_error;

// clang-format off
const std::vector<std::vector<double>> kStepLR = {
    {0.1, 0.02},
    {0.1, 0.02},
    {0.1, 0.02},
    {0.05, 0.01},
    {0.05, 0.01},
    {0.05, 0.01},
    {0.025, 0.005},
    {0.025, 0.005},
    {0.025, 0.005},
    {0.0125, 0.0025},
    {0.0125, 0.0025},
};
const std::vector<std::vector<double>> kMultiStepLR = {
    {0.1, 0.02},
    {0.1, 0.02},
    {0.009, 0.0018},
    {0.009, 0.0018},
    {0.009, 0.0018},
    {0.0026999999999999997, 0.00054},
    {0.0026999999999999997, 0.00054},
    {0.0026999999999999997, 0.00054},
    {0.0026999999999999997, 0.00054},
};
const std::vector<std::vector<double>> kCosine = {
    {0.1, 0.02},
    {0.09757729755661011, 0.01953503690480396},
    {0.0905463412215599, 0.018185661446562},
    {0.07959536998847742, 0.016083959896778494},
    {0.0657963412215599, 0.013435661446561997},
    {0.0505, 0.010499999999999995},
    {0.03520365877844011, 0.007564338553437996},
    {0.02140463001152259, 0.004916040103221504},
    {0.010453658778440109, 0.0028143385534379994},
    {0.0034227024433899004, 0.0014649630951960413},
    {0.001, 0.001},
    {0.0034227024433899004, 0.0014649630951960415},
    {0.01045365877844014, 0.002814338553438007},
    {0.02140463001152267, 0.0049160401032215225},
    {0.035203658778440255, 0.007564338553438029},
    {0.05050000000000022, 0.010500000000000044},
    {0.06579634122156018, 0.013435661446562056},
    {0.07959536998847777, 0.016083959896778563},
    {0.09054634122156031, 0.01818566144656208},
    {0.09757729755661054, 0.019535036904804046},
    {0.10000000000000045, 0.020000000000000087},
    {0.09757729755661054, 0.019535036904804046},
    {0.09054634122156033, 0.018185661446562088},
    {0.07959536998847778, 0.016083959896778566},
    {0.0657963412215602, 0.01343566144656206},
    {0.050500000000000225, 0.010500000000000044},
    {0.03520365877844027, 0.007564338553438031},
    {0.021404630011522683, 0.004916040103221525},
    {0.010453658778440154, 0.0028143385534380094},
    {0.003422702443389916, 0.0014649630951960445},
    {0.001, 0.001},
    {0.0034227024433899004, 0.0014649630951960415},
    {0.010453658778440112, 0.0028143385534380016},
    {0.021404630011522607, 0.004916040103221511},
    {0.03520365877844015, 0.00756433855343801},
    {0.050500000000000086, 0.010500000000000016},
};
const std::vector<std::vector<double>> kLambda = {
    {0.1, 0.02},
    {0.05, 0.018000000000000002},
    {0.03333333333333333, 0.016200000000000003},
    {0.025, 0.014580000000000003},
    {0.020000000000000004, 0.013122},
    {0.016666666666666666, 0.011809800000000002},
    {0.014285714285714285, 0.01062882},
};
const std::vector<std::vector<double>> kOneCycleCos = {
    {0.040000000000000036, 0.040000000000000036},
    {0.52, 0.52},
    {1.0, 1.0},
    {0.9504846320134737, 0.9504846320134737},
    {0.8117456539497631, 0.8117456539497631},
    {0.6112620219362893, 0.6112620219362893},
    {0.38874197806371075, 0.38874197806371075},
    {0.18825834605023697, 0.18825834605023697},
    {0.049519367986526286, 0.049519367986526286},
    {4e-06, 4e-06},
    {0.04951936798652623, 0.04951936798652623},
};
const std::vector<std::vector<double>> kOneCycleCos_momentum = {
    {0.95, 0.95},
    {0.8999999999999999, 0.8999999999999999},
    {0.85, 0.85},
    {0.854951556604879, 0.854951556604879},
    {0.8688255099070633, 0.8688255099070633},
    {0.8888739533021842, 0.8888739533021842},
    {0.9111260466978157, 0.9111260466978157},
    {0.9311744900929366, 0.9311744900929366},
    {0.945048443395121, 0.945048443395121},
    {0.95, 0.95},
    {0.945048443395121, 0.945048443395121},
};
const std::vector<std::vector<double>> kOneCycleLinear3 = {
    {0.05, 0.02},
    {0.35, 0.14},
    {0.35, 0.14},
    {0.04999999999999999, 0.01999999999999999},
    {0.04175, 0.0167},
    {0.0335, 0.0134},
    {0.02525, 0.0101},
    {0.017, 0.0068000000000000005},
    {0.00875, 0.0034999999999999996},
    {0.0005000000000000004, 0.0001999999999999988},
    {-0.007750000000000007, -0.003100000000000002},
};
const std::vector<std::vector<double>> kOneCycleLinear3_momentum = {
    {0.9, 0.95},
    {0.8333333333333334, 0.85},
    {0.8333333333333334, 0.85},
    {0.9, 0.95},
    {0.9, 0.95},
    {0.9, 0.95},
    {0.9, 0.95},
    {0.9, 0.95},
    {0.9, 0.95},
    {0.9, 0.95},
    {0.9, 0.95},
};
const std::vector<double> kCosineClosed = {0.07959536998847742, 0.07959536998847741, 0.05050000000000002};
// clang-format on

// The optimizers the references use: two groups (lr 0.1 and 0.02).
struct Rig {
  Tensor w, b;
  std::unique_ptr<Optimizer> opt;
};
Rig sgd() {
  auto [w, b] = ref_params();
  auto opt = std::make_unique<SGD>(
      std::vector<ParamGroup>{ParamGroup({w}), ParamGroup({b}, {{"lr", 0.02}})},
      SGDOptions{.lr = 0.1, .momentum = 0.9});
  return {w, b, std::move(opt)};
}
Rig adam() {
  auto [w, b] = ref_params();
  auto opt = std::make_unique<Adam>(
      std::vector<ParamGroup>{ParamGroup({w}), ParamGroup({b}, {{"lr", 0.02}})},
      AdamOptions{.lr = 0.1});
  return {w, b, std::move(opt)};
}

double group_momentum(const ParamGroup& g) {
  const ValueDict& o = g.options();
  return o.contains("momentum") ? o.at("momentum").to_double() : o.at("betas").to_double_list()[0];
}

void step_both(Rig& s, LRScheduler& sched, int n) {
  for (int i = 0; i < n; ++i) {
    s.opt->step();
    sched.step();
  }
}

/// Steps optimizer and scheduler as the reference did; the rates must equal torch's bit for bit.
void expect_schedule(Rig& s, LRScheduler& sched, const std::vector<std::vector<double>>& lrs,
                     const std::vector<std::vector<double>>* momenta = nullptr) {
  for (size_t i = 0; i < lrs.size(); ++i) {
    SCOPED_TRACE("after " + std::to_string(i) + " steps");
    if (i > 0) {
      set_ref_grads(s.w, s.b, static_cast<int>(i));
      s.opt->step();
      sched.step();
    }
    EXPECT_EQ(sched.get_last_lr(), lrs[i]);
    for (size_t g = 0; g < lrs[i].size(); ++g) EXPECT_EQ(s.opt->param_groups()[g].lr(), lrs[i][g]);
    if (momenta) {
      for (size_t g = 0; g < lrs[i].size(); ++g)
        EXPECT_EQ(group_momentum(s.opt->param_groups()[g]), (*momenta)[i][g]) << "group " << g;
    }
  }
}

TEST(OptimLRScheduler, StepLRMatchesTorch) {
  Rig s = sgd();
  StepLR sched(*s.opt, 3, 0.5);
  expect_schedule(s, sched, kStepLR);
  EXPECT_EQ(sched.last_epoch(), 10);
  EXPECT_EQ(sched.base_lrs(), (std::vector<double>{0.1, 0.02}));
  EXPECT_EQ(s.opt->param_groups()[0].options().at("initial_lr").to_double(), 0.1);
}

TEST(OptimLRScheduler, MultiStepLRWithARepeatedMilestoneMatchesTorch) {
  Rig s = sgd();
  MultiStepLR sched(*s.opt, {5, 2, 2}, 0.3);
  expect_schedule(s, sched, kMultiStepLR);
}

TEST(OptimLRScheduler, CosineAnnealingLRMatchesTorchPastTMax) {
  Rig s = sgd();
  CosineAnnealingLR sched(*s.opt, 10, 0.001);
  expect_schedule(s, sched, kCosine);  // 35 epochs: down, up, down again
}

TEST(OptimLRScheduler, CosineAnnealingClosedFormMatchesTorch) {
  Rig s = sgd();
  CosineAnnealingLR sched(*s.opt, 10, 0.001);
  WarningCapture warnings;
  std::vector<double> got;
  for (int64_t e : {3, 17, 25}) {
    sched.step(e);
    got.push_back(sched.get_last_lr()[0]);
  }
  EXPECT_EQ(got, kCosineClosed);
  EXPECT_EQ(sched.last_epoch(), 25);
  ASSERT_GE(warnings.messages.size(), 3u);
  EXPECT_NE(
      warnings.messages.back().find("The epoch parameter in `scheduler.step()` was not necessary"),
      std::string::npos);
}

TEST(OptimLRScheduler, LambdaLRPerGroupMatchesTorch) {
  Rig s = sgd();
  LambdaLR sched(*s.opt, std::vector<LambdaLR::LrLambda>{
                             [](int64_t e) { return 1.0 / static_cast<double>(e + 1); },
                             [](int64_t e) { return std::pow(0.9, static_cast<double>(e)); }});
  expect_schedule(s, sched, kLambda);

  Rig t = sgd();
  LambdaLR one(*t.opt, [](int64_t e) { return e < 2 ? 1.0 : 0.5; });
  step_both(t, one, 3);
  EXPECT_EQ(one.get_last_lr(), (std::vector<double>{0.05, 0.01}));
  expect_error(
      [&] { LambdaLR(*t.opt, std::vector<LambdaLR::LrLambda>{[](int64_t) { return 1.0; }}); },
      "Expected 2 lr_lambdas, but got 1", ErrorKind::Value);
}

TEST(OptimLRScheduler, OneCycleLRCosWithSGDMomentumMatchesTorch) {
  Rig s = sgd();
  OneCycleLR sched(*s.opt, {.max_lr = 1.0, .total_steps = 10});
  expect_schedule(s, sched, kOneCycleCos, &kOneCycleCos_momentum);
  // PyTorch writes its bookkeeping into the groups.
  const ValueDict& g = s.opt->param_groups()[0].options();
  EXPECT_EQ(g.at("initial_lr").to_double(), 1.0 / 25.0);
  EXPECT_EQ(g.at("max_lr").to_double(), 1.0);
  EXPECT_EQ(g.at("min_lr").to_double(), 1.0 / 25.0 / 1e4);
  EXPECT_EQ(g.at("max_momentum").to_double(), 0.95);
  EXPECT_EQ(g.at("base_momentum").to_double(), 0.85);
  // Stepping past total_steps fails as in PyTorch, and leaves the scheduler where it was.
  const std::vector<double> last = sched.get_last_lr();
  expect_error([&] { sched.step(); },
               "Tried to step 12 times. The specified number of total steps is 10",
               ErrorKind::Value);
  EXPECT_EQ(sched.last_epoch(), 10);
  EXPECT_EQ(sched.get_last_lr(), last);
}

TEST(OptimLRScheduler, OneCycleLRLinearThreePhaseWithAdamBeta1MatchesTorch) {
  Rig s = adam();
  OneCycleLR sched(*s.opt, {.max_lr = std::vector<double>{0.5, 0.2},
                            .epochs = 2,
                            .steps_per_epoch = 5,
                            .pct_start = 0.25,
                            .anneal_strategy = "linear",
                            .base_momentum = 0.8,
                            .max_momentum = std::vector<double>{0.9, 0.95},
                            .div_factor = 10.0,
                            .final_div_factor = 100.0,
                            .three_phase = true});
  EXPECT_EQ(sched.total_steps(), 10);
  expect_schedule(s, sched, kOneCycleLinear3, &kOneCycleLinear3_momentum);
  // beta2 is untouched.
  EXPECT_EQ(s.opt->param_groups()[1].options().at("betas").to_double_list()[1], 0.999);
}

TEST(OptimLRScheduler, OneCycleLRErrorsAreTorchsAndChangeNoGroup) {
  Rig s = sgd();
  auto value = ErrorKind::Value;
  auto keys = s.opt->param_groups()[0].options().keys();
  expect_error([&] { OneCycleLR(*s.opt, {.max_lr = 0.1}); },
               "You must define either total_steps OR (epochs AND steps_per_epoch)", value);
  expect_error([&] { OneCycleLR(*s.opt, {.max_lr = 0.1, .total_steps = 0}); },
               "Expected positive integer total_steps, but got 0", value);
  expect_error([&] { OneCycleLR(*s.opt, {.max_lr = 0.1, .epochs = 3}); },
               "Expected positive integer steps_per_epoch, but got None", value);
  expect_error([&] { OneCycleLR(*s.opt, {.max_lr = 0.1, .epochs = -1, .steps_per_epoch = 3}); },
               "Expected positive integer epochs, but got -1", value);
  expect_error([&] { OneCycleLR(*s.opt, {.max_lr = 0.1, .total_steps = 10, .pct_start = 1.5}); },
               "Expected float between 0 and 1 pct_start, but got 1.5", value);
  expect_error(
      [&] { OneCycleLR(*s.opt, {.max_lr = 0.1, .total_steps = 10, .anneal_strategy = "exp"}); },
      "anneal_strategy must by one of 'cos' or 'linear', instead got exp", value);
  expect_error([&] { OneCycleLR(*s.opt, {.max_lr = std::vector<double>{0.1}, .total_steps = 10}); },
               "expected 2 values for max_lr, got 1", value);
  expect_error(
      [&] {
        OneCycleLR(
            *s.opt,
            {.max_lr = 0.1, .total_steps = 10, .max_momentum = std::vector<double>{1, 2, 3}});
      },
      "expected 2 values for max_momentum, got 3", value);
  EXPECT_EQ(s.opt->param_groups()[0].options().keys(), keys);  // nothing was written
  EXPECT_EQ(s.opt->param_groups()[0].lr(), 0.1);
}

TEST(OptimLRScheduler, ResumingNeedsInitialLr) {
  Rig s = sgd();
  expect_error([&] { StepLR(*s.opt, 3, 0.5, /*last_epoch=*/4); },
               "param 'initial_lr' is not specified in param_groups[0] when resuming an optimizer",
               ErrorKind::Key);
  for (ParamGroup& g : s.opt->param_groups()) g.options().set("initial_lr", g.lr() * 2);
  // As PyTorch: constructing takes a step, so last_epoch 5 becomes 6, and the first rate comes
  // from the chainable form (epoch 6 is a multiple of 3: lr * gamma).
  StepLR sched(*s.opt, 3, 0.5, 5);
  EXPECT_EQ(sched.last_epoch(), 6);
  EXPECT_EQ(sched.base_lrs(), (std::vector<double>{0.2, 0.04}));
  EXPECT_EQ(sched.get_last_lr(), (std::vector<double>{0.05, 0.01}));
}

TEST(OptimLRScheduler, WarnsWhenSteppedBeforeTheOptimizerOrAskedForGetLr) {
  Rig s = sgd();
  StepLR sched(*s.opt, 3, 0.5);
  WarningCapture warnings;
  sched.step();
  ASSERT_EQ(warnings.messages.size(), 1u);
  EXPECT_EQ(warnings.messages[0].rfind(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`.", 0),
            0u);
  s.opt->step();
  sched.step();  // only the first scheduler step is checked
  EXPECT_EQ(warnings.messages.size(), 1u);
  sched.get_lr();
  ASSERT_EQ(warnings.messages.size(), 2u);
  EXPECT_EQ(warnings.messages[1],
            "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.");
}

TEST(OptimLRScheduler, StateDictRoundTrip) {
  Rig a = sgd();
  CosineAnnealingLR first(*a.opt, 10, 0.001);
  step_both(a, first, 13);
  ValueDict sd = first.state_dict();
  EXPECT_EQ(sd.keys(),
            (std::vector<std::string>{"T_max", "eta_min", "base_lrs", "last_epoch", "verbose",
                                      "_step_count", "_get_lr_called_within_step", "_last_lr"}));
  EXPECT_EQ(sd.at("last_epoch").to_int(), 13);
  EXPECT_EQ(sd.at("_step_count").to_int(), 14);
  OptimizerStateDict osd = a.opt->state_dict();

  // Resume: a new optimizer and scheduler, then load both; the rates go on as torch's do.
  Rig b = sgd();
  CosineAnnealingLR second(*b.opt, 10, 0.001);
  b.opt->load_state_dict(osd);
  second.load_state_dict(sd);
  EXPECT_EQ(second.get_last_lr(), kCosine[13]);
  for (size_t i = 14; i < kCosine.size(); ++i) {
    step_both(b, second, 1);
    EXPECT_EQ(second.get_last_lr(), kCosine[i]) << "epoch " << i;
  }

  Rig c = sgd();
  OneCycleLR one(*c.opt, {.max_lr = 1.0, .total_steps = 10});
  step_both(c, one, 4);
  ValueDict osd1 = one.state_dict();
  OptimizerStateDict copt = c.opt->state_dict();
  Rig d = sgd();
  OneCycleLR two(
      *d.opt, {.max_lr = 0.3, .total_steps = 50, .anneal_strategy = "linear", .three_phase = true});
  d.opt->load_state_dict(copt);
  two.load_state_dict(osd1);
  EXPECT_EQ(two.total_steps(), 10);
  for (size_t i = 5; i < kOneCycleCos.size(); ++i) {
    step_both(d, two, 1);
    EXPECT_EQ(two.get_last_lr(), kOneCycleCos[i]);
    EXPECT_EQ(group_momentum(d.opt->param_groups()[0]), kOneCycleCos_momentum[i][0]);
  }
}

TEST(OptimLRScheduler, LoadStateDictChecksEverythingFirst) {
  Rig s = sgd();
  MultiStepLR sched(*s.opt, {4, 2}, 0.5);
  ValueDict bad = sched.state_dict();
  bad.set("last_epoch", 7);
  bad.set("gamma", "half");
  expect_error([&] { sched.load_state_dict(bad); },
               "state_dict['gamma'] must be a float, but got str", ErrorKind::Type);
  EXPECT_EQ(sched.last_epoch(), 0);
  bad = sched.state_dict();
  bad.set("last_epoch", 7);
  bad.set("mystery", 1);
  expect_error([&] { sched.load_state_dict(bad); },
               "MultiStepLR.load_state_dict: unexpected key 'mystery'", ErrorKind::Key);
  EXPECT_EQ(sched.last_epoch(), 0);
  EXPECT_EQ(sched.state_dict().at("milestones").to_int_list(), (std::vector<int64_t>{2, 4}));

  Rig t = sgd();
  OneCycleLR one(*t.opt, {.max_lr = 1.0, .total_steps = 10});
  ValueDict osd = one.state_dict();
  osd.set("three_phase", true);
  expect_error(
      [&] { one.load_state_dict(osd); },
      "OneCycleLR.load_state_dict: a three-phase schedule needs 3 phase end steps, but got 2",
      ErrorKind::Value);
}

TEST(OptimLRScheduler, AGroupAddedAfterTheSchedulerFollowsTorch) {
  // The recursive form scales every group's rate; the branch that needs base_lrs skips a group
  // the scheduler never saw (torch zips base_lrs with the groups). Values from torch 1.13.
  Tensor w = zeros({1}).requires_grad_(), b = zeros({1}).requires_grad_();
  SGD opt({w}, {.lr = 0.1});
  CosineAnnealingLR sched(opt, 2);
  opt.add_param_group(ParamGroup({b}, {{"lr", 0.5}}));
  const std::vector<std::vector<double>> expected = {
      {0.05, 0.25}, {0.0, 0.0}, {0.049999999999999996, 0.0}, {0.10000000000000002, 0.0}};
  for (const auto& e : expected) {
    opt.step();
    sched.step();
    EXPECT_EQ(sched.get_last_lr(), e);
  }
}

TEST(OptimLRScheduler, ZeroPeriodsAreRefused) {
  Rig s = sgd();
  expect_error([&] { StepLR(*s.opt, 0); }, "StepLR: step_size must not be 0", ErrorKind::Value);
  expect_error([&] { CosineAnnealingLR(*s.opt, 0); }, "CosineAnnealingLR: T_max must not be 0",
               ErrorKind::Value);
  EXPECT_FALSE(s.opt->param_groups()[0].options().contains("initial_lr"));
}

}  // namespace
}  // namespace ember::optim
