// nn::Dropout, Flatten, Embedding, LayerNorm: reprs and state_dicts as torch 1.13, outputs and
// gradients against torch's, train/eval, initialisation, meta construction.
#include <gtest/gtest.h>

#include <cmath>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/nn.h"
#include "ember/warning.h"

namespace ember {
namespace {

using nn::StateDict;
using testing::expect_error;
using testing::expect_values;
using testing::from_values;

TEST(LayersDropout, ReprCheckAndTrainEval) {
  EXPECT_EQ(nn::Dropout().repr(), "Dropout(p=0.5, inplace=False)");
  EXPECT_EQ(nn::Dropout(0.25, true).repr(), "Dropout(p=0.25, inplace=True)");
  EXPECT_EQ(nn::Dropout(0.0).repr(), "Dropout(p=0.0, inplace=False)");
  expect_error([&] { nn::Dropout(1.5); },
               "dropout probability has to be between 0 and 1, but got 1.5", ErrorKind::Value);
  expect_error([&] { nn::Dropout(-0.1); },
               "dropout probability has to be between 0 and 1, but got -0.1", ErrorKind::Value);

  manual_seed(1);
  nn::Dropout drop(0.5);
  Tensor x = ones({10000});
  Tensor y = drop(x);
  int64_t zeros_seen = 0;
  for (double v : testing::values(y)) {
    EXPECT_TRUE(v == 0.0 || v == 2.0) << v;  // kept values scaled by 1 / (1 - p)
    zeros_seen += v == 0.0;
  }
  EXPECT_NEAR(static_cast<double>(zeros_seen) / 10000, 0.5, 0.03);
  drop.eval();
  EXPECT_TRUE(equal(drop(x), x));  // identity in eval
  drop.train();
  expect_values(nn::Dropout(1.0)(ones({3})), {3}, {0, 0, 0});
  expect_values(nn::Dropout(0.0)(ones({3})), {3}, {1, 1, 1});

  // inplace: the input holds the result; gradients still flow through the mask.
  nn::Dropout inplace(0.5, true);
  Tensor z = ones({8});
  Tensor r = inplace(z);
  EXPECT_TRUE(r.is_same(z));
  Tensor leaf = ones({1000}).requires_grad_();
  Tensor out = drop(leaf);
  out.sum().backward();
  EXPECT_TRUE(equal(leaf.grad(), out.detach()));  // d(out)/d(leaf) is the scaled mask
  EXPECT_TRUE(drop(empty({2, 3}, kMeta)).is_meta());
}

TEST(LayersFlatten, ReprAndShapes) {
  EXPECT_EQ(nn::Flatten().repr(), "Flatten(start_dim=1, end_dim=-1)");
  EXPECT_EQ(nn::Flatten(0, 2).repr(), "Flatten(start_dim=0, end_dim=2)");
  Tensor x = testing::iota({2, 3, 4, 5});
  EXPECT_EQ(nn::Flatten()(x).sizes().vec(), (std::vector<int64_t>{2, 60}));
  EXPECT_EQ(nn::Flatten(0, 2)(x).sizes().vec(), (std::vector<int64_t>{24, 5}));
  EXPECT_EQ(nn::Flatten(1, 2)(x).sizes().vec(), (std::vector<int64_t>{2, 12, 5}));
  // A non-contiguous input flattens to the same values in logical order.
  Tensor t = testing::iota({3, 2}).t();
  expect_values(nn::Flatten(0)(t), {6}, {0, 2, 4, 1, 3, 5});
  expect_error([&] { nn::Flatten(2, 1)(x); }, "flatten() has invalid args: start_dim cannot come after end_dim");
}

TEST(LayersEmbedding, ReprStateDictAndInit) {
  manual_seed(0);
  nn::Embedding e(10, 3);
  EXPECT_EQ(e.repr(), "Embedding(10, 3)");
  EXPECT_EQ(e.state_dict().keys(), (std::vector<std::string>{"weight"}));
  EXPECT_EQ(nn::Embedding(10, 3, -2, 1.5, 1.0, true, true).repr(),
            "Embedding(10, 3, padding_idx=8, max_norm=1.5, norm_type=1.0, scale_grad_by_freq=True, "
            "sparse=True)");
  EXPECT_EQ(nn::Embedding(10, 3, 0).repr(), "Embedding(10, 3, padding_idx=0)");
  // N(0, 1) draws with the padding row zeroed.
  nn::Embedding big(2000, 10, 5);
  const auto v = testing::values(big.weight());
  double mean = 0, sq = 0;
  for (double x : v) mean += x, sq += x * x;
  mean /= static_cast<double>(v.size());
  sq /= static_cast<double>(v.size());
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(sq, 1.0, 0.05);
  expect_values(big.weight().select(0, 5), {10}, std::vector<double>(10, 0.0));
  expect_error([&] { nn::Embedding(4, 2, 4); }, "Padding_idx must be within num_embeddings");
  expect_error([&] { nn::Embedding(4, 2, -5); }, "Padding_idx must be within num_embeddings");
  expect_error([&] { nn::Embedding(4, 2, std::nullopt, std::nullopt, 2.0, false, false, ones({3, 2})); },
               "Shape of weight does not match num_embeddings and embedding_dim");
  // On meta: the normal_ draw and the padding fill do nothing and do not fail.
  nn::Embedding meta(1000000, 64, 3, std::nullopt, 2.0, false, false, Tensor(), kMeta);
  EXPECT_TRUE(meta.weight().is_meta());
  meta.reset_parameters();
  Tensor looked_up = meta(zeros({2, 5}, TensorOptions(kInt64).device(kMeta)));
  EXPECT_EQ(looked_up.sizes().vec(), (std::vector<int64_t>{2, 5, 64}));
  nn::Embedding f64(3, 2, std::nullopt, std::nullopt, 2.0, false, false, Tensor(), kFloat64);
  EXPECT_EQ(f64.weight().dtype(), kFloat64);
}

// torch: Embedding(4, 3, padding_idx=1, max_norm=1.0) with the weight below, looked up at
// [[0, 1], [3, 0]], then (y * arange(12).reshape(2, 2, 3)).sum().backward().
TEST(LayersEmbedding, LookupMaxNormAndPaddingGradMatchTorch) {
  nn::Embedding e(4, 3, 1, 1.0);
  StateDict sd;
  sd.insert("weight", from_values({1, 2, 2, 0, 0, 0, 0.3, 0.4, 0, -2, 0, 0}, {4, 3}));
  e.load_state_dict(sd);
  Tensor idx = from_values({0, 1, 3, 0}, {2, 2}, kInt64);
  Tensor y = e(idx);
  expect_values(y, {2, 2, 3},
                {0.3333333134651184, 0.6666666269302368, 0.6666666269302368, 0.0, 0.0, 0.0,
                 -0.9999999403953552, 0.0, 0.0, 0.3333333134651184, 0.6666666269302368,
                 0.6666666269302368});
  // The looked-up rows over max_norm were renormalised in the weight itself; row 2 was not.
  expect_values(e.weight(), {4, 3},
                {0.3333333134651184, 0.6666666269302368, 0.6666666269302368, 0.0, 0.0, 0.0,
                 0.30000001192092896, 0.4000000059604645, 0.0, -0.9999999403953552, 0.0, 0.0});
  (y * testing::iota({2, 2, 3})).sum().backward();
  expect_values(e.weight().grad(), {4, 3}, {9, 11, 13, 0, 0, 0, 0, 0, 0, 6, 7, 8});
}

TEST(LayersEmbedding, FromPretrained) {
  Tensor w = from_values({1, 2.3, 3, 4, 5.1, 6.3}, {2, 3});
  auto e = nn::Embedding::from_pretrained(w);
  EXPECT_EQ(e->repr(), "Embedding(2, 3)");
  EXPECT_FALSE(e->weight().requires_grad());  // frozen
  EXPECT_EQ(e->weight().data_ptr(), w.data_ptr());  // shares the tensor's storage
  expect_values((*e)(from_values({1}, {1}, kInt64)), {1, 3}, {4, 5.1, 6.3});
  auto trainable = nn::Embedding::from_pretrained(w, false, 0);
  EXPECT_TRUE(trainable->weight().requires_grad());
  EXPECT_EQ(trainable->repr(), "Embedding(2, 3, padding_idx=0)");
  expect_values(trainable->weight().select(0, 0), {3}, {1, 2.3, 3});  // not zeroed, as torch
  expect_error([&] { nn::Embedding::from_pretrained(ones({3})); },
               "Embeddings parameter is expected to be 2-dimensional");
}

TEST(LayersLayerNorm, ReprStateDictAndInit) {
  nn::LayerNorm ln(10);
  EXPECT_EQ(ln.repr(), "LayerNorm((10,), eps=1e-05, elementwise_affine=True)");
  EXPECT_EQ(ln.state_dict().keys(), (std::vector<std::string>{"weight", "bias"}));
  expect_values(ln.weight(), {10}, std::vector<double>(10, 1.0));
  expect_values(ln.bias(), {10}, std::vector<double>(10, 0.0));
  nn::LayerNorm plain({2, 3}, 1e-3, false);
  EXPECT_EQ(plain.repr(), "LayerNorm((2, 3), eps=0.001, elementwise_affine=False)");
  EXPECT_TRUE(plain.state_dict().empty());
  EXPECT_TRUE(plain.has_parameter("weight"));  // registered as None
  EXPECT_FALSE(plain.weight().defined());
  EXPECT_EQ(nn::LayerNorm(std::vector<int64_t>{4}, 0.1).repr(),
            "LayerNorm((4,), eps=0.1, elementwise_affine=True)");
  nn::LayerNorm meta({512, 512}, 1e-5, true, kMeta);
  EXPECT_TRUE(meta.weight().is_meta());
  meta.to_empty(kCPU);
  meta.reset_parameters();
  EXPECT_TRUE(equal(meta.weight(), ones({512, 512})));
  nn::LayerNorm f64(3, 1e-5, true, kFloat64);
  EXPECT_EQ(f64.bias().dtype(), kFloat64);
}

// torch: LayerNorm(3) with weight [1, 2, 0.5], bias [0, 1, -1] on [[1, 2, 3], [-1, 0, 4]],
// then (y * y).sum().backward(); LayerNorm([2, 3], eps=1e-3, elementwise_affine=False).
TEST(LayersLayerNorm, ValuesAndGradientsMatchTorch) {
  nn::LayerNorm ln(3);
  StateDict sd;
  sd.insert("weight", from_values({1, 2, 0.5}, {3}));
  sd.insert("bias", from_values({0, 1, -1}, {3}));
  ln.load_state_dict(sd);
  Tensor s = from_values({1, 2, 3, -1, 0, 4}, {2, 3});
  Tensor y = ln(s);
  expect_values(y, {2, 3},
                {-1.2247356176376343, 1.0, -0.38763219118118286, -0.9258190989494324,
                 0.07418090105056763, -0.3056356906890869},
                1e-5, 1e-6);
  (y * y).sum().backward();
  expect_values(ln.weight().grad(), {3}, {4.714236736297607, -0.06867809593677521, -1.7983839511871338},
                1e-5, 1e-5);
  expect_values(ln.bias().grad(), {3}, {-4.301109313964844, 2.1483616828918457, -1.3865357637405396},
                1e-5, 1e-5);
  nn::LayerNorm ln2({2, 3}, 1e-3, false);
  expect_values(ln2(s.unsqueeze(0)), {1, 2, 3},
                {-0.29271984100341797, 0.29271984100341797, 0.8781595230102539, -1.4635992050170898,
                 -0.8781595230102539, 1.4635992050170898},
                1e-5, 1e-6);
}

}  // namespace
}  // namespace ember
