// optim::LBFGS against torch 1.13's numbers (generated with torch.optim.LBFGS on the same
// problems, float64): the Rosenbrock function from (-1.5, 2) with and without the strong-Wolfe
// line search, three steps of max_iter 20, history 10; the state's counters; least squares.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/ember.h"
#include "ember/optim/lbfgs.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::values;

struct LbfgsRun {
  std::vector<double> x;
  std::vector<double> losses;
  int64_t func_evals, n_iter;
};

LbfgsRun rosenbrock(std::optional<std::string> line_search) {
  Tensor x = testing::from_values({-1.5, 2.0}, {2}, kFloat64).requires_grad_();
  optim::LBFGS opt({x}, {.lr = 1, .max_iter = 20, .history_size = 10,
                         .line_search_fn = line_search});
  auto closure = [&] {
    opt.zero_grad();
    const Tensor a = 1.0 - x.select(0, 0);
    const Tensor b = x.select(0, 1) - x.select(0, 0) * x.select(0, 0);
    Tensor l = a * a + 100.0 * b * b;
    l.backward();
    return l;
  };
  LbfgsRun r;
  for (int i = 0; i < 3; ++i) r.losses.push_back(opt.step(closure).item<double>());
  r.x = values(x.detach());
  const auto& st = opt.state(x);
  r.func_evals = st.at("func_evals").to_int();
  r.n_iter = st.at("n_iter").to_int();
  return r;
}

TEST(NnutilsLbfgs, RosenbrockAsTorch) {
  const LbfgsRun plain = rosenbrock(std::nullopt);
  // torch 1.13's figures; 60 iterations amplify a last-bit difference (one ulp appears at the
  // 12th), so the end point agrees to 1e-6.
  EXPECT_NEAR(plain.x[0], 0.7139294949755264, 1e-6);
  EXPECT_NEAR(plain.x[1], 0.5121569314433083, 1e-6);
  EXPECT_NEAR(plain.losses[1], 3.175496489521593, 1e-6);
  EXPECT_NEAR(plain.losses[2], 0.7251948915366268, 1e-6);
  EXPECT_EQ(plain.func_evals, 60);
  EXPECT_EQ(plain.n_iter, 60);
  const LbfgsRun wolfe = rosenbrock(std::string("strong_wolfe"));
  EXPECT_NEAR(wolfe.x[0], 0.9999834179205033, 1e-9);
  EXPECT_NEAR(wolfe.x[1], 0.9999669023989197, 1e-9);
  EXPECT_NEAR(wolfe.losses[1], 1.3079683882675088, 1e-9);
  EXPECT_EQ(wolfe.func_evals, 52);
  EXPECT_EQ(wolfe.n_iter, 40);
}

TEST(NnutilsLbfgs, LeastSquaresConverges) {
  manual_seed(0);
  const Tensor A = randn({20, 3}, kFloat64);
  const Tensor w_true = testing::from_values({1.0, -2.0, 0.5}, {3, 1}, kFloat64);
  const Tensor y = matmul(A, w_true);
  Tensor w = zeros({3, 1}, kFloat64).requires_grad_();
  optim::LBFGS opt({w}, {.line_search_fn = "strong_wolfe"});
  auto closure = [&] {
    opt.zero_grad();
    Tensor l = (matmul(A, w) - y).pow(2).mean();
    l.backward();
    return l;
  };
  opt.step(closure);
  const auto got = values(w.detach());
  EXPECT_NEAR(got[0], 1.0, 1e-5);
  EXPECT_NEAR(got[1], -2.0, 1e-5);
  EXPECT_NEAR(got[2], 0.5, 1e-5);
}

TEST(NnutilsLbfgs, OptionsAndErrors) {
  Tensor x = zeros({2}).requires_grad_();
  optim::LBFGS opt({x});
  const auto& o = opt.param_groups()[0].options();
  EXPECT_EQ(o.keys(), (std::vector<std::string>{"lr", "max_iter", "max_eval", "tolerance_grad",
                                                 "tolerance_change", "history_size",
                                                 "line_search_fn"}));
  EXPECT_EQ(o.at("lr").to_int(), 1);
  EXPECT_EQ(o.at("max_eval").to_int(), 25);
  EXPECT_TRUE(o.at("line_search_fn").is_none());
  optim::LBFGS bad({x}, {.line_search_fn = "armijo"});
  auto closure = [&] {
    bad.zero_grad();
    Tensor l = (x - 1.0).pow(2).sum();
    l.backward();
    return l;
  };
  expect_error([&] { bad.step(closure); }, "only 'strong_wolfe' is supported");
  Tensor y = zeros({2}).requires_grad_();
  expect_error([&] { optim::LBFGS two({optim::ParamGroup({x}), optim::ParamGroup({y})}); },
               "LBFGS doesn't support per-parameter options (parameter groups)", ErrorKind::Value);
  expect_error([&] { opt.step(nullptr); }, "missing 1 required positional argument: 'closure'",
               ErrorKind::Type);
}

}  // namespace
}  // namespace ember
