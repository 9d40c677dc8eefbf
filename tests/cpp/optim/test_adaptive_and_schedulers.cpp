// The C++ API of RMSprop, Adagrad, Adadelta, Adamax, NAdam, RAdam and of the schedulers of
// include/ember/optim/schedulers.h: one step checked against the update written out in double
// (float64 parameters), torch's state layouts, error texts, and the schedulers' rates against
// their formulas. (tests/python/optim/test_adaptive_optimizers.py and test_more_schedulers.py
// compare whole trajectories with torch 1.13.)
#include <cmath>

#include "ember/warning.h"
#include "optim_test_util.h"

namespace ember::optim {
namespace {

using testing::expect_error;

Tensor param(std::vector<double> v) {
  return testing::from_values(v, {static_cast<int64_t>(v.size())}, kFloat64).requires_grad_();
}
void set_grad(const Tensor& p, std::vector<double> g) {
  p.set_grad(testing::from_values(g, {static_cast<int64_t>(g.size())}, kFloat64));
}
std::vector<double> vals(const Tensor& t) { return testing::values(t.detach()); }

TEST(OptimAdaptive, OneStepOfEachEqualsItsFormula) {
  const double p0 = 0.5, g = 0.3;
  struct Case {
    std::function<std::unique_ptr<Optimizer>(Tensor)> make;
    double expected;
  };
  const double lr = 0.1;
  std::vector<Case> cases = {
      {[&](Tensor p) {
         return std::make_unique<RMSprop>(std::vector<Tensor>{p}, RMSpropOptions{.lr = lr});
       },
       p0 - lr * g / (std::sqrt(0.01 * g * g) + 1e-8)},
      {[&](Tensor p) {
         return std::make_unique<Adagrad>(std::vector<Tensor>{p}, AdagradOptions{.lr = lr});
       },
       p0 - lr * g / (std::sqrt(g * g) + 1e-10)},
      {[&](Tensor p) {
         return std::make_unique<Adadelta>(std::vector<Tensor>{p}, AdadeltaOptions{.lr = lr});
       },
       p0 - lr * (std::sqrt(1e-6) / std::sqrt(0.1 * g * g + 1e-6) * g)},
      {[&](Tensor p) {
         return std::make_unique<Adamax>(std::vector<Tensor>{p}, AdamaxOptions{.lr = lr});
       },
       p0 - lr / 0.1 * (0.1 * g) / (g + 1e-8)},
      {[&](Tensor p) {
         return std::make_unique<RAdam>(std::vector<Tensor>{p}, RAdamOptions{.lr = lr});
       },
       p0 - (0.1 * g / 0.1) * lr},  // not rectified on step 1
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    Tensor p = param({p0});
    auto opt = cases[i].make(p);
    set_grad(p, {g});
    opt->step();
    EXPECT_NEAR(vals(p)[0], cases[i].expected, 1e-12) << opt->name();
  }
}

TEST(OptimAdaptive, StateLayoutsAreTorchs) {
  using K = std::vector<std::string>;
  Tensor p = param({1.0, 2.0});
  RMSprop rms({p}, {.momentum = 0.9, .centered = true});
  EXPECT_EQ(rms.param_groups()[0].options().keys(),
            (K{"lr", "momentum", "alpha", "eps", "centered", "weight_decay", "foreach", "maximize",
               "differentiable"}));
  set_grad(p, {0.1, 0.2});
  rms.step();
  EXPECT_EQ(rms.state(p).keys(), (K{"step", "square_avg", "momentum_buffer", "grad_avg"}));
  EXPECT_TRUE(rms.state(p).at("step").is_int());
  // Adagrad's state exists before any step, as torch makes it in the constructor.
  Adagrad ada({p}, {.initial_accumulator_value = 0.5});
  EXPECT_EQ(ada.state(p).keys(), (K{"step", "sum"}));
  EXPECT_EQ(vals(ada.state(p).at("sum").to_tensor()), (std::vector<double>{0.5, 0.5}));
  NAdam nadam({p});
  nadam.step();
  EXPECT_EQ(nadam.state(p).keys(), (K{"step", "mu_product", "exp_avg", "exp_avg_sq"}));
  EXPECT_EQ(nadam.state(p).at("mu_product").to_tensor().dtype(), kFloat32);
  // A state_dict round trip keeps the layout.
  NAdam again({p});
  again.load_state_dict(nadam.state_dict());
  EXPECT_EQ(again.state(p).keys(), (K{"step", "mu_product", "exp_avg", "exp_avg_sq"}));
}

TEST(OptimAdaptive, ErrorsAreTorchs) {
  Tensor p = param({1.0});
  expect_error([&] { RMSprop({p}, {.alpha = -1}); }, "Invalid alpha value: -1.0", ErrorKind::Value);
  expect_error([&] { Adagrad({p}, {.lr_decay = -1}); }, "Invalid lr_decay value: -1.0",
               ErrorKind::Value);
  expect_error([&] { Adadelta({p}, {.rho = 2}); }, "Invalid rho value: 2.0", ErrorKind::Value);
  expect_error(
      [&] {
        Adamax({p}, {.betas = {1.0, 0.5}});
      },
      "Invalid beta parameter at index 0: 1.0", ErrorKind::Value);
  expect_error([&] { NAdam({p}, {.momentum_decay = -1}); }, "Invalid momentum_decay value: -1.0",
               ErrorKind::Value);
  expect_error([&] { RAdam({p}, {.lr = -1}); }, "Invalid learning rate: -1.0", ErrorKind::Value);
}

TEST(OptimSchedulersMore, RatesFollowTheirFormulas) {
  WarningCapture quiet;  // scheduler steps without optimizer steps warn, as torch's
  Tensor p = param({1.0});
  SGD opt({p}, {.lr = 0.1});
  ExponentialLR exp_lr(opt, 0.5);
  exp_lr.step();
  exp_lr.step();
  EXPECT_EQ(exp_lr.get_last_lr(), (std::vector<double>{0.1 * 0.5 * 0.5}));

  SGD opt2({param({1.0})}, {.lr = 1.0});
  CosineAnnealingWarmRestarts cawr(opt2, /*T_0=*/2, /*T_mult=*/2);
  std::vector<double> got;
  for (int i = 0; i < 6; ++i) {
    got.push_back(cawr.get_last_lr()[0]);
    cawr.step();
  }
  // T_cur: 0 1 | 0 1 2 3 (T_i 2 then 4).
  std::vector<double> want = {
      1.0, 0.5, 1.0, (1 + std::cos(M_PI / 4)) / 2, 0.5, (1 + std::cos(3 * M_PI / 4)) / 2};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-15) << i;

  SGD opt3({param({1.0})}, {.lr = 1.0});
  ReduceLROnPlateau plateau(opt3, {.patience = 1});
  for (double m : {1.0, 1.0, 1.0}) plateau.step(m);  // two bad epochs > patience 1
  EXPECT_DOUBLE_EQ(opt3.param_groups()[0].lr(), 0.1);
  EXPECT_EQ(plateau.num_bad_epochs(), 0);
  expect_error([&] { ReduceLROnPlateau(opt3, {.factor = 1.0}); }, "Factor should be < 1.0.",
               ErrorKind::Value);
  expect_error([&] { LinearLR(opt3, 2.0); },
               "Starting multiplicative factor expected to be between 0 and 1.", ErrorKind::Value);
}

}  // namespace
}  // namespace ember::optim
