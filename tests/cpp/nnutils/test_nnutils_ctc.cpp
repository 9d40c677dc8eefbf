// CTC loss against a brute-force reference (every alignment of a short input enumerated,
// collapsed and compared with the target), for padded and concatenated targets, repeated
// labels, empty targets, input lengths shorter than the tensor, the reductions and
// zero_infinity; gradients by gradcheck; torch's error texts.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "../testing.h"
#include "ember/autograd/gradcheck.h"
#include "ember/ember.h"
#include "ember/nn/modules/ctc_loss.h"
#include "ember/ops/nnutils.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::values;

// -log sum over the alignments of length T (labels 0..C-1) that collapse to `target`.
double brute_force_nll(const std::vector<double>& lp, int64_t T, int64_t C,
                       const std::vector<int64_t>& target, int64_t blank) {
  double total = 0;
  std::vector<int64_t> path(static_cast<size_t>(T), 0);
  std::function<void(int64_t)> rec = [&](int64_t t) {
    if (t == T) {
      std::vector<int64_t> out;
      int64_t prev = -1;
      for (int64_t c : path) {
        if (c != prev && c != blank) out.push_back(c);
        prev = c;
      }
      if (out == target) {
        double lsum = 0;
        for (int64_t s = 0; s < T; ++s) lsum += lp[static_cast<size_t>(s * C + path[static_cast<size_t>(s)])];
        total += std::exp(lsum);
      }
      return;
    }
    for (int64_t c = 0; c < C; ++c) {
      path[static_cast<size_t>(t)] = c;
      rec(t + 1);
    }
  };
  rec(0);
  return -std::log(total);
}

// log_probs (T, N, C) float64.
Tensor make_log_probs(int64_t T, int64_t N, int64_t C) {
  manual_seed(3);
  return randn({T, N, C}, kFloat64).log_softmax(2);
}

std::vector<double> column(const Tensor& lp, int64_t b) {
  return values(lp.select(1, b).contiguous());
}

TEST(NnutilsCtc, MatchesBruteForcePaddedAndConcatenated) {
  const int64_t T = 5, N = 3, C = 3;
  const Tensor lp = make_log_probs(T, N, C);
  const std::vector<std::vector<int64_t>> targets = {{1, 1}, {2, 1, 2}, {}};
  const std::vector<int64_t> in_len = {5, 4, 3}, tg_len = {2, 3, 0};
  const Tensor padded = testing::from_values({1, 1, 0, 2, 1, 2, 0, 0, 0}, {3, 3}, kInt64);
  const Tensor concat = testing::from_values({1, 1, 2, 1, 2}, {5}, kInt64);
  for (const Tensor& tg : {padded, concat}) {
    const Tensor nll = std::get<0>(_ctc_loss(lp, tg, in_len, tg_len, 0, false));
    for (int64_t b = 0; b < N; ++b) {
      const double ref = brute_force_nll(column(lp, b), in_len[static_cast<size_t>(b)], C,
                                         targets[static_cast<size_t>(b)], 0);
      EXPECT_NEAR(values(nll)[static_cast<size_t>(b)], ref, 1e-12) << "batch " << b;
    }
    // Reductions: mean divides by the target lengths (clamped to 1), then averages.
    const auto v = values(nll);
    EXPECT_NEAR(values(ctc_loss(lp, tg, in_len, tg_len, 0, 2))[0], v[0] + v[1] + v[2], 1e-12);
    EXPECT_NEAR(values(ctc_loss(lp, tg, in_len, tg_len, 0, 1))[0],
                (v[0] / 2 + v[1] / 3 + v[2] / 1) / 3, 1e-12);
  }
}

TEST(NnutilsCtc, ImpossibleAlignmentAndZeroInfinity) {
  const Tensor lp = make_log_probs(2, 1, 3);
  // Two repeated labels need a blank between them: three steps at least.
  const Tensor tg = testing::from_values({1, 1}, {1, 2}, kInt64);
  const Tensor loss = ctc_loss(lp, tg, std::vector<int64_t>{2}, std::vector<int64_t>{2}, 0, 0);
  EXPECT_TRUE(std::isinf(values(loss)[0]));
  const Tensor x = lp.detach().requires_grad_();
  const Tensor z = ctc_loss(x, tg, std::vector<int64_t>{2}, std::vector<int64_t>{2}, 0, 2, true);
  EXPECT_EQ(values(z)[0], 0.0);
  z.backward();
  for (double g : values(x.grad())) EXPECT_EQ(g, 0.0);
}

// PyTorch's CTC gradient takes log_probs to be log-softmax outputs (its exp(lp) term is the
// softmax's part), so it is checked through log_softmax, as PyTorch's own tests do.
TEST(NnutilsCtc, Gradcheck) {
  const Tensor lp = make_log_probs(6, 2, 4).detach().requires_grad_();
  const Tensor tg = testing::from_values({1, 2, 2, 3, 1, 0}, {2, 3}, kInt64);
  auto f = [&](const autograd::tensor_list& in) {
    return autograd::tensor_list{ctc_loss(in[0].log_softmax(2), tg, std::vector<int64_t>{6, 5},
                                          std::vector<int64_t>{3, 2}, 0, 0)};
  };
  EXPECT_TRUE(autograd::gradcheck(f, {lp}));
  const Tensor y = std::get<0>(_ctc_loss(lp, tg, std::vector<int64_t>{6, 5},
                                         std::vector<int64_t>{3, 2}));
  EXPECT_EQ(y.grad_fn()->name(), "CtcLossBackward0");
}

TEST(NnutilsCtc, ModuleAndTensorLengths) {
  const Tensor lp = make_log_probs(4, 2, 3);
  const Tensor tg = testing::from_values({1, 2, 2, 0}, {2, 2}, kInt64);
  nn::CTCLoss ctc;
  EXPECT_EQ(ctc.repr(), "CTCLoss()");
  const Tensor a = ctc(lp, tg, testing::from_values({4, 3}, {2}, kInt64),
                       testing::from_values({2, 1}, {2}, kInt64));
  const Tensor b = nn::functional::ctc_loss(lp, tg, std::vector<int64_t>{4, 3},
                                            std::vector<int64_t>{2, 1});
  EXPECT_EQ(values(a), values(b));
  // An unbatched (T, C) input gives a 0-d loss with reduction none.
  const Tensor u = ctc_loss(lp.select(1, 0), tg.select(0, 0), std::vector<int64_t>{4},
                            std::vector<int64_t>{2}, 0, 0);
  EXPECT_EQ(u.dim(), 0);
  EXPECT_NEAR(values(u)[0], values(std::get<0>(_ctc_loss(lp, tg, std::vector<int64_t>{4, 3},
                                                          std::vector<int64_t>{2, 1})))[0], 1e-12);
}

TEST(NnutilsCtc, Errors) {
  const Tensor lp = make_log_probs(5, 2, 4);
  const Tensor tg = ones({2, 3}, kInt64);
  const std::vector<int64_t> il = {5, 5}, tl = {3, 3};
  expect_error([&] { _ctc_loss(lp, ones({2, 3}), il, tl); },
               "Expected tensor for argument #2 'targets' to have scalar type Int; but got "
               "ember.FloatTensor instead (while checking arguments for ctc_loss_cpu)");
  expect_error([&] { _ctc_loss(lp.select(1, 0), tg, il, tl); },
               "Expected 3-dimensional tensor, but got 2-dimensional tensor for argument #1 "
               "'log_probs' (while checking arguments for ctc_loss_cpu)");
  expect_error([&] { _ctc_loss(lp, tg, il, std::vector<int64_t>{3, 4}); },
               "Expected tensor to have size at least 4 at dimension 1, but got size 3 for "
               "argument #2 'targets' (while checking arguments for ctc_loss_cpu)");
  expect_error([&] { _ctc_loss(lp, tg, std::vector<int64_t>{5, 6}, tl); },
               "Expected input_lengths to have value at most 5, but got value 6 (while checking "
               "arguments for ctc_loss_cpu)");
  expect_error([&] { _ctc_loss(lp, ones({7}, kInt64), il, tl); },
               "Expected tensor to have size 6 at dimension 0, but got size 7 for argument #2 "
               "'targets' (while checking arguments for ctc_loss_cpu)");
  expect_error([&] { _ctc_loss(lp, tg, std::vector<int64_t>{5, 5, 5}, tl); },
               "input_lengths must be of size batch_size");
  expect_error([&] { _ctc_loss(lp, tg, il, tl, 4); }, "blank must be in label range");
  expect_error([&] { ctc_loss(lp, tg, ones({2}), ones({2}, kInt64)); },
               "input_lengths must be integral");
}

}  // namespace
}  // namespace ember
