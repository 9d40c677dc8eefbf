// nn::BatchNorm1d/2d and GroupNorm: reprs and state_dict keys as torch 1.13, running-stat
// updates (momentum and momentum None = cumulative average), train / eval, the version-1
// checkpoint path, errors, and outputs against values computed with torch.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/nn.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using testing::from_values;

std::vector<std::string> keys(const nn::StateDict& sd) { return sd.keys(); }

Tensor batch() {
  return from_values({1, 2, 3, 4, 0, -2, 0.5, 1, 7, 2, 2, 2}, {4, 3});
}

TEST(NormLayers, BatchNormReprAndState) {
  EXPECT_EQ(nn::BatchNorm2d(8).repr(),
            "BatchNorm2d(8, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)");
  EXPECT_EQ(nn::BatchNorm1d(4, 1e-5, std::nullopt, false, false).repr(),
            "BatchNorm1d(4, eps=1e-05, momentum=None, affine=False, track_running_stats=False)");
  EXPECT_EQ(nn::BatchNorm2d(3, 1e-3, 0.01).repr(),
            "BatchNorm2d(3, eps=0.001, momentum=0.01, affine=True, track_running_stats=True)");
  nn::BatchNorm2d bn(3);
  EXPECT_EQ(keys(bn.state_dict()), (std::vector<std::string>{"weight", "bias", "running_mean",
                                                             "running_var",
                                                             "num_batches_tracked"}));
  const Tensor nbt = bn.num_batches_tracked();
  EXPECT_EQ(nbt.dtype(), kInt64);
  EXPECT_EQ(nbt.dim(), 0);
  expect_values(bn.running_var(), {3}, {1, 1, 1});
  expect_values(bn.weight(), {3}, {1, 1, 1});
  EXPECT_EQ(keys(nn::BatchNorm2d(3, 1e-5, 0.1, true, false).state_dict()),
            (std::vector<std::string>{"weight", "bias"}));
  EXPECT_EQ(keys(nn::BatchNorm2d(3, 1e-5, 0.1, false).state_dict()),
            (std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"}));
  nn::BatchNorm2d untracked(3, 1e-5, 0.1, true, false);
  EXPECT_TRUE(untracked.has_buffer("running_mean"));  // registered as None
  EXPECT_FALSE(untracked.running_mean().defined());
  // float64 options: the statistics follow, the counter stays int64.
  nn::BatchNorm1d d(2, 1e-5, 0.1, true, true, kFloat64);
  EXPECT_EQ(d.running_mean().dtype(), kFloat64);
  EXPECT_EQ(d.num_batches_tracked().dtype(), kInt64);
}

TEST(NormLayers, BatchNormTrainUpdatesRunningStatsThenEvalUsesThem) {
  nn::BatchNorm1d bn(3);
  bn.weight().detach().copy_(from_values({1, 2, 0.5}, {3}));
  bn.bias().detach().copy_(from_values({0, 1, -1}, {3}));
  expect_values(bn(batch()), {4, 3},
                {-0.65275151, 2.8090549, -0.92191321, 1.5852538, -2.0150914, -1.7027817,
                 -1.0257524, 0.39698172, -0.29721844, 0.093250275, 2.8090549, -1.0780869},
                1e-5, 1e-6);
  // 0.9 * old + 0.1 * batch (the unbiased variance).
  expect_values(bn.running_mean(), {3}, {0.1875, 0.125, 0.25});
  expect_values(bn.running_var(), {3}, {1.1395833, 0.99166667, 2.2666667}, 1e-6);
  EXPECT_EQ(bn.num_batches_tracked().item<int64_t>(), 1);
  bn.eval();
  expect_values(bn(batch()), {4, 3},
                {0.76111168, 4.7657042, -0.086711586, 3.5713704, 0.74895304, -1.7472359,
                 0.29273528, 2.7573287, 1.2417078, 1.6978645, 4.7657042, -0.41881645},
                1e-5, 1e-6);
  EXPECT_EQ(bn.num_batches_tracked().item<int64_t>(), 1);  // eval counts nothing
  expect_values(bn.running_mean(), {3}, {0.1875, 0.125, 0.25});
}

TEST(NormLayers, MomentumNoneIsCumulativeAverage) {
  nn::BatchNorm1d bn(3, 1e-5, std::nullopt);
  bn(batch());
  bn(batch() * 2 + 1);
  // Factors 1/1 then 1/2: the plain mean of the two batches' statistics.
  expect_values(bn.running_mean(), {3}, {3.3125, 2.375, 4.25});
  expect_values(bn.running_var(), {3}, {5.989583, 2.2916667, 34.166668}, 1e-6);
  EXPECT_EQ(bn.num_batches_tracked().item<int64_t>(), 2);
  bn.reset_running_stats();
  expect_values(bn.running_mean(), {3}, {0, 0, 0});
  expect_values(bn.running_var(), {3}, {1, 1, 1});
  EXPECT_EQ(bn.num_batches_tracked().item<int64_t>(), 0);
}

TEST(NormLayers, UntrackedStatsUseTheBatchInBothModes) {
  nn::BatchNorm2d bn(3, 1e-5, 0.1, false, false);
  Tensor x = testing::iota({2, 3, 2, 2}).remainder(5);
  const std::vector<double> want{-1.3750441, -0.64168727, 0.091669559, 0.82502639};
  expect_values(bn(x).select(0, 0).select(0, 0), {2, 2}, want, 1e-5, 1e-6);
  bn.eval();
  expect_values(bn(x).select(0, 0).select(0, 0), {2, 2}, want, 1e-5, 1e-6);
}

TEST(NormLayers, BatchNormErrors) {
  nn::BatchNorm2d bn2(3);
  expect_error([&] { bn2(ones({2, 3, 4})); }, "expected 4D input (got 3D input)",
               ErrorKind::Value);
  nn::BatchNorm1d bn1(3);
  expect_error([&] { bn1(ones({2, 3, 4, 5})); }, "expected 2D or 3D input (got 4D input)",
               ErrorKind::Value);
  expect_error([&] { bn1(ones({1, 3})); },
               "Expected more than 1 value per channel when training, got input size "
               "ember.Size([1, 3])",
               ErrorKind::Value);
  bn1.eval();
  EXPECT_EQ(bn1(ones({1, 3})).sizes().vec(), (std::vector<int64_t>{1, 3}));  // fine in eval
}

TEST(NormLayers, OldCheckpointWithoutCounterLoads) {
  nn::BatchNorm2d src(2);
  nn::StateDict sd = src.state_dict();
  sd.erase("num_batches_tracked");
  // Version 2 (the current one): the counter is missing.
  nn::BatchNorm2d a(2);
  auto res = a.load_state_dict(sd, /*strict=*/false);
  EXPECT_EQ(res.missing_keys, (std::vector<std::string>{"num_batches_tracked"}));
  // Version 1 (or no metadata): PyTorch fills in 0 and the strict load succeeds.
  nn::BatchNorm2d b(2);
  b.num_batches_tracked().fill_(7);
  (*sd.metadata_for(""))["version"] = Value(int64_t{1});
  EXPECT_EQ(b.load_state_dict(sd).to_string(), "<All keys matched successfully>");
  EXPECT_EQ(b.num_batches_tracked().item<int64_t>(), 0);
  nn::StateDict plain;
  for (const auto& [k, v] : sd.items()) plain.insert(k, v);
  EXPECT_EQ(nn::BatchNorm2d(2).load_state_dict(plain).to_string(),
            "<All keys matched successfully>");
  EXPECT_EQ(src.state_dict().metadata->front().second.at("version").to_int(), 2);
}

TEST(NormLayers, GroupNorm) {
  EXPECT_EQ(nn::GroupNorm(2, 4).repr(), "GroupNorm(2, 4, eps=1e-05, affine=True)");
  EXPECT_EQ(nn::GroupNorm(2, 4, 1e-6, false).repr(), "GroupNorm(2, 4, eps=1e-06, affine=False)");
  EXPECT_EQ(keys(nn::GroupNorm(2, 4).state_dict()), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_TRUE(nn::GroupNorm(2, 4, 1e-5, false).state_dict().empty());
  expect_error([] { nn::GroupNorm(3, 4); }, "num_channels must be divisible by num_groups",
               ErrorKind::Value);
  nn::GroupNorm g(2, 4);
  g.weight().detach().copy_(from_values({1, 2, 3, 4}, {4}));
  g.bias().detach().copy_(from_values({0, 0, 1, 1}, {4}));
  Tensor x = testing::iota({2, 4, 2}).remainder(7);
  expect_values(g(x), {2, 4, 2},
                {-1.3416355, -0.4472118, 0.89442372, 2.6832709, 1.3292923, 2.6464622, 4.9515095,
                 -5.5858498, -1.3416355, -0.44721186, 0.8944236, 2.6832709, 3.3533916, 4.5300875,
                 -3.7067838, -2.137856},
                1e-5, 1e-5);
  nn::GroupNorm single(4, 4);
  expect_error([&] { single(ones({1, 4, 1})); },
               "Expected more than 1 value per channel when training, got input size [1, 4, 1]",
               ErrorKind::Value);
}

TEST(NormLayers, FunctionalBatchNormTakesTorchsOrder) {
  namespace F = nn::functional;
  Tensor rm = zeros({3}), rv = ones({3});
  // F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
  Tensor y = F::batch_norm(batch(), rm, rv, std::nullopt, std::nullopt, true, 0.5);
  expect_values(rm, {3}, {0.9375, 0.625, 1.25});
  expect_values(y.mean(std::vector<int64_t>{0}), {3}, {0, 0, 0}, 1e-6, 1e-6);
  // Eval: (x - 0) / sqrt(1 + eps) with the given stats.
  Tensor e = F::batch_norm(batch(), zeros({3}), ones({3}));
  expect_values(e.select(0, 0), {3}, {1 / std::sqrt(1 + 1e-5), 2 / std::sqrt(1 + 1e-5),
                                      3 / std::sqrt(1 + 1e-5)});
}

TEST(NormLayers, MetaBatchNorm) {
  nn::BatchNorm2d bn(4, 1e-5, 0.1, true, true, kMeta);
  EXPECT_TRUE(bn.running_mean().is_meta());
  const Tensor y = bn(empty({2, 4, 3, 3}, kMeta));
  EXPECT_TRUE(y.is_meta());
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{2, 4, 3, 3}));
}

}  // namespace
}  // namespace ember
