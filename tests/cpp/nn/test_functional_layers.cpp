// nn::functional beside the losses: layer_norm and bilinear (aten rows; values printed by
// PyTorch 1.13, errors, dtypes, meta, gradcheck + gradgradcheck), and the thin wrappers over
// existing ops (activations with their inplace flags, softmax, linear, flatten, dropout,
// embedding with padding_idx and max_norm).
#include "../autograd/grad_reduce_helpers.h"
#include "ember/dispatch.h"
#include "ember/nn/functional.h"

namespace ember {
namespace {

using namespace grad_testing;
namespace F = nn::functional;
using testing::expect_error;
using testing::expect_values;
using testing::from_values;

constexpr double kTight = 1e-12;

Tensor meta(IntArrayRef sizes, ScalarType dtype = kFloat32) {
  return empty(sizes, TensorOptions(dtype).device(kMeta));
}

// ---- layer_norm ----

Tensor ln_x() {
  return from_values({0.5, -1.2, 2.0, 1.1, 0.0, -0.4, 0.3, 0.3, 0.9, -2.0, 1.0, 4.0}, {2, 2, 3}, kFloat64);
}
Tensor ln_w() { return from_values({1.0, 0.5, -1.0, 2.0, 0.1, 0.3}, {2, 3}, kFloat64); }
Tensor ln_b() { return from_values({0.0, 0.1, 0.2, -0.3, 0.4, 0.5}, {2, 3}, kFloat64); }

TEST(FunctionalLayerNorm, ValuesMatchTorch) {
  expect_values(F::layer_norm(ln_x(), {3}), {2, 2, 3},
                {0.050997696173740725, -1.2494435562566482, 1.1984458600829073, 1.3665126742614304,
                 -0.36790725845500044, -0.9986054158064298, -0.7070625911554957, -0.7070625911554957,
                 1.4141251823109915, -1.2247438507721387, 0.0, 1.2247438507721387},
                1e-10, 1e-12);
  expect_values(F::layer_norm(ln_x(), {2, 3}, ln_w(), ln_b()), {2, 2, 3},
                {0.16145766330994782, -0.64270525122576, -1.4145766330994785, 1.1854105024515202,
                 0.36770846733801044, 0.28687588443086887, -0.255479418380442, -0.027739709190221007,
                 0.11484019387318589, -3.422526224649847, 0.4141933010211357, 1.0535387398242912},
                1e-10, 1e-12);
  expect_values(layer_norm(ln_x(), {3}, std::nullopt, std::nullopt, 0.5, true), {2, 2, 3},
                {0.04485613040162567, -1.0989751948398285, 1.054119064438203, 0.9124211282466755,
                 -0.24565184222025876, -0.6667692860264167, -0.2626128657194451, -0.2626128657194451,
                 0.5252257314388902, -1.1766968108291043, 0.0, 1.1766968108291043},
                1e-10, 1e-12);
  // Constant rows normalise to 0; a negative eps makes them NaN, as in PyTorch.
  expect_values(F::layer_norm(ones({2, 3}), {3}), {2, 3}, {0, 0, 0, 0, 0, 0}, 0, 0);
  EXPECT_TRUE(std::isnan(layer_norm(ones({2, 3}), {3}, std::nullopt, std::nullopt, -1.0, true)[0][0].item<double>()));
  // Non-contiguous input.
  expect_values(F::layer_norm(ln_x().permute({2, 0, 1}).contiguous().permute({1, 2, 0}), {3}), {2, 2, 3},
                {0.050997696173740725, -1.2494435562566482, 1.1984458600829073, 1.3665126742614304,
                 -0.36790725845500044, -0.9986054158064298, -0.7070625911554957, -0.7070625911554957,
                 1.4141251823109915, -1.2247438507721387, 0.0, 1.2247438507721387},
                1e-10, 1e-12);
}

TEST(FunctionalLayerNorm, DtypesShapesAndMeta) {
  for (ScalarType dt : {kFloat32, kFloat16, kBFloat16}) {
    Tensor y = F::layer_norm(ln_x().to(dt), {2, 3}, ln_w().to(dt), ln_b().to(dt));
    EXPECT_EQ(y.dtype(), dt);
    expect_values(y, {2, 2, 3},
                  {0.16145766330994782, -0.64270525122576, -1.4145766330994785, 1.1854105024515202,
                   0.36770846733801044, 0.28687588443086887, -0.255479418380442, -0.027739709190221007,
                   0.11484019387318589, -3.422526224649847, 0.4141933010211357, 1.0535387398242912},
                  dt == kFloat32 ? 1e-5 : 2e-2, dt == kFloat32 ? 1e-6 : 2e-2);
  }
  EXPECT_EQ(F::layer_norm(empty({0, 5}), {5}).sizes(), IntArrayRef({0, 5}));
  EXPECT_EQ(F::layer_norm(empty({3, 0}), {0}).sizes(), IntArrayRef({3, 0}));
  Tensor m = F::layer_norm(meta({4, 2, 3}), {2, 3}, meta({2, 3}), meta({2, 3}));
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.sizes(), IntArrayRef({4, 2, 3}));
}

TEST(FunctionalLayerNorm, Errors) {
  const Tensor x = ones({3, 5});
  expect_error([&] { F::layer_norm(x, {}); },
               "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
               "one element, but got normalized_shape = []");
  expect_error([&] { F::layer_norm(x, {4}); },
               "Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[3, 5]");
  expect_error([&] { F::layer_norm(x, {2, 5}); },
               "Given normalized_shape=[2, 5], expected input with shape [*, 2, 5], but got input of size[3, 5]");
  expect_error([&] { F::layer_norm(x, {1, 3, 5}); },
               "Given normalized_shape=[1, 3, 5], expected input with shape [*, 1, 3, 5], but got "
               "input of size[3, 5]");
  expect_error([&] { F::layer_norm(scalar_tensor(1.0), {1}); },
               "Given normalized_shape=[1], expected input with shape [*, 1], but got input of size[]");
  expect_error([&] { F::layer_norm(x, {5}, ones({4})); },
               "Expected weight to be of same shape as normalized_shape, but got weight of shape [4] "
               "and normalized_shape = [5]");
  expect_error([&] { F::layer_norm(x, {5}, ones({1, 5})); },
               "Expected weight to be of same shape as normalized_shape, but got weight of shape [1, 5] "
               "and normalized_shape = [5]");
  expect_error([&] { F::layer_norm(x, {5}, std::nullopt, ones({4})); },
               "Expected bias to be of same shape as normalized_shape, but got bias of shape [4] and "
               "normalized_shape = [5]");
  expect_error([&] { F::layer_norm(ones({3, 5}, kInt64), {5}); },
               "\"LayerNormKernelImpl\" not implemented for 'Long'");
  expect_error([&] { F::layer_norm(x, {5}, ones({5}, kFloat64)); }, "expected scalar type Float but found Double");
  expect_error([&] { F::layer_norm(x.to(kBFloat16), {5}, ones({5})); },
               "expected scalar type BFloat16 but found Float");
}

TEST(FunctionalLayerNorm, Autograd) {
  auto fn = [](const tensor_list& in) { return tensor_list{F::layer_norm(in[0], {2, 3}, in[1], in[2])}; };
  auto no_affine = [](const tensor_list& in) { return tensor_list{F::layer_norm(in[0], {4}, std::nullopt, std::nullopt, 0.1)}; };
  EXPECT_TRUE(grad_ok(fn, {leaf({4, 2, 3}, 1), leaf({2, 3}, 2), leaf({2, 3}, 3)}));
  EXPECT_TRUE(grad_ok(fn, {leaf_transposed({4, 2, 3}), leaf_strided({2, 3}), leaf({2, 3}, 3)}));
  EXPECT_TRUE(grad_ok(no_affine, {leaf_strided({3, 4})}));
  EXPECT_TRUE(gradgrad_ok(fn, {leaf({3, 2, 3}, 1), leaf({2, 3}, 2), leaf({2, 3}, 3)}));
  EXPECT_TRUE(gradgrad_ok(no_affine, {leaf_transposed({3, 4})}));
  // Gradients printed by torch 1.13 for grad_output cos(0..11).
  Tensor x = ln_x().requires_grad_(), w = ln_w().requires_grad_();
  Tensor go = arange(12, kFloat64).reshape({2, 2, 3}).cos();
  auto g = autograd::grad({F::layer_norm(x, {2, 3}, w)}, {x, w}, {go});
  expect_values(g[0], {2, 2, 3},
                {1.041074980305351, 0.04744503655746002, 0.7283446994239847, -1.7446234522834287,
                 -0.0752841705655748, 0.0030429065622078096, 0.6456591031598133, 0.3145468994888088,
                 0.10236002707115571, -0.6243414478484286, -0.04134589503233205, -0.39687868683901717},
                1e-9, 1e-11);
  expect_values(g[1], {2, 3},
                {-0.08384608306966998, -0.9951772290906399, -0.6842917128978706, 0.6872414425042421,
                 0.09197959541971763, -0.19335152370036138},
                1e-9, 1e-11);
}

// ---- bilinear ----

Tensor bl_x1() { return from_values({0.5, -1.2, 1.1, 0.0, 0.3, 2.0}, {3, 2}, kFloat64); }
Tensor bl_x2() { return from_values({1.0, 0.2, -0.3, 0.4, -1.0, 2.0, 0.0, 0.5, 0.5}, {3, 3}, kFloat64); }
Tensor bl_w() { return arange(24, kFloat64).reshape({4, 2, 3}).cos(); }
Tensor bl_b() { return from_values({0.1, -0.2, 0.3, 0.0}, {4}, kFloat64); }

TEST(FunctionalBilinear, ValuesMatchTorch) {
  expect_values(F::bilinear(bl_x1(), bl_x2(), bl_w(), bl_b()), {3, 4},
                {2.1634361077634483, 1.6736271063464645, 1.8345660437897138, 1.0732623299525101,
                 -0.9698555768586671, -0.9269176280304239, -0.02607383769568533, 0.10074480761152138,
                 -0.25135811500223615, -0.9433854980081979, -0.776195218426277, -1.3232758447280255},
                1e-10, 1e-12);
  expect_values(F::bilinear(bl_x1()[0], bl_x2()[0], bl_w()), {4},
                {2.063436107763448, 1.8736271063464645, 1.5345660437897137, 1.0732623299525101},
                1e-10, 1e-12);
  // Batch dims, non-contiguous operands, empty batches, integers, a float64 bias promotes.
  Tensor x1 = bl_x1().reshape({3, 1, 2}).expand({3, 2, 2});
  Tensor y = F::bilinear(x1, bl_x2().reshape({3, 1, 3}).expand({3, 2, 3}), bl_w().transpose(1, 2).contiguous().transpose(1, 2), bl_b());
  EXPECT_EQ(y.sizes(), IntArrayRef({3, 2, 4}));
  expect_values(y.select(1, 1), {3, 4},
                {2.1634361077634483, 1.6736271063464645, 1.8345660437897138, 1.0732623299525101,
                 -0.9698555768586671, -0.9269176280304239, -0.02607383769568533, 0.10074480761152138,
                 -0.25135811500223615, -0.9433854980081979, -0.776195218426277, -1.3232758447280255},
                1e-10, 1e-12);
  EXPECT_EQ(F::bilinear(empty({0, 3}), empty({0, 4}), ones({5, 3, 4})).sizes(), IntArrayRef({0, 5}));
  expect_values(F::bilinear(ones({2, 3}, kInt64), ones({2, 4}, kInt64), ones({5, 3, 4}, kInt64)), {2, 5},
                std::vector<double>(10, 12.0), 0, 0);
  EXPECT_EQ(F::bilinear(ones({2, 3}), ones({2, 4}), ones({5, 3, 4}), ones({5}, kFloat64)).dtype(), kFloat64);
  Tensor m = F::bilinear(meta({6, 2, 3}), meta({6, 2, 4}), meta({5, 3, 4}), meta({5}));
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.sizes(), IntArrayRef({6, 2, 5}));
}

TEST(FunctionalBilinear, Errors) {
  const Tensor w = ones({5, 3, 4});
  expect_error([&] { F::bilinear(ones({2, 3}), ones({1, 2, 4}), w); },
               "bilinear(): input dimensions do not match: got 2 and 3");
  expect_error([&] { F::bilinear(ones({2, 3}), ones({3, 4}), w); },
               "bilinear(): input batch dimensions do not match at dim 0: got 2 and 3");
  expect_error([&] { F::bilinear(ones({2, 2}), ones({2, 4}), w); },
               "bilinear(): input1 size does not match weight size: got 2 but expected 3");
  expect_error([&] { F::bilinear(ones({2, 3}), ones({2, 2}), w); },
               "bilinear(): input2 size does not match weight size: got 2 but expected 4");
  expect_error([&] { F::bilinear(ones({2, 3}), ones({2, 4}), w, ones({4})); },
               "bilinear(): bias size does not match weight size: got 4 but expected 5");
  expect_error([&] { F::bilinear(ones({2, 3}), ones({2, 4}), w, scalar_tensor(1.0)); },
               "Dimension specified as 0 but tensor has no dimensions", ErrorKind::Index);
  expect_error([&] { F::bilinear(scalar_tensor(1.0), scalar_tensor(1.0), ones({5, 1, 1})); },
               "Dimension specified as -1 but tensor has no dimensions", ErrorKind::Index);
  expect_error([&] { F::bilinear(ones({2, 4}), ones({2, 4}), ones({5, 4})); },
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)", ErrorKind::Index);
  expect_error([&] { F::bilinear(ones({2, 3}), ones({2, 4}, kFloat64), w); },
               "expected scalar type Float but found Double");
  expect_error([&] { F::bilinear(ones({2, 3}, kFloat64), ones({2, 4}), w); },
               "expected scalar type Double but found Float");
  expect_error([&] { F::bilinear(ones({2, 3}), ones({2, 4}), ones({5, 3, 4}, kFloat64)); },
               "expected scalar type Float but found Double");
  expect_error([&] { F::bilinear(ones({2, 3}, kBool), ones({2, 4}, kBool), ones({5, 3, 4}, kBool)); },
               "\"bmm\" not implemented for 'Bool'");
}

TEST(FunctionalBilinear, AutogradAndDispatch) {
  auto fn = [](const tensor_list& in) { return tensor_list{F::bilinear(in[0], in[1], in[2], in[3])}; };
  EXPECT_TRUE(grad_ok(fn, {leaf({3, 2}, 1), leaf({3, 3}, 2), leaf({4, 2, 3}, 3), leaf({4}, 4)}));
  EXPECT_TRUE(grad_ok(fn, {leaf_transposed({2, 2, 2}), leaf_strided({2, 2, 3}), leaf_transposed({4, 2, 3}), leaf({4}, 4)}));
  EXPECT_TRUE(gradgrad_ok(fn, {leaf({3, 2}, 1), leaf({3, 3}, 2), leaf({4, 2, 3}, 3), leaf({4}, 4)}));
  EXPECT_TRUE(find_op("aten::bilinear").is_composite());
  EXPECT_TRUE(find_op("aten::layer_norm").is_composite());
  Stack out = find_op("aten::layer_norm").call({ln_x(), std::vector<int64_t>{3}});
  EXPECT_EQ(out[0].to_tensor().sizes(), IntArrayRef({2, 2, 3}));
}

// ---- thin wrappers ----

TEST(FunctionalWrappers, Activations) {
  const Tensor x = from_values({-7.0, -2.5, -0.5, 0.0, 0.5, 2.5, 7.0}, {7});
  EXPECT_TRUE(equal(F::relu(x), relu(x)));
  EXPECT_TRUE(equal(F::relu6(x), hardtanh(x, 0, 6)));
  EXPECT_TRUE(equal(F::hardtanh(x, -2., 2.), hardtanh(x, -2, 2)));
  EXPECT_TRUE(equal(F::hardswish(x), hardswish(x)));
  EXPECT_TRUE(equal(F::hardsigmoid(x), hardsigmoid(x)));
  EXPECT_TRUE(equal(F::sigmoid(x), sigmoid(x)));
  EXPECT_TRUE(equal(F::tanh(x), tanh(x)));
  EXPECT_TRUE(equal(F::gelu(x, "tanh"), gelu(x, "tanh")));
  EXPECT_TRUE(equal(F::silu(x), silu(x)));
  expect_values(F::relu6(x), {7}, {0, 0, 0, 0, 0.5, 2.5, 6}, 0, 0);
  // inplace: the input itself comes back, written (version bumped), with the same values.
  using InplaceFn = Tensor (*)(const Tensor&, bool);
  for (InplaceFn fn : {InplaceFn(&F::relu), InplaceFn(&F::relu6), InplaceFn(&F::hardswish),
                       InplaceFn(&F::hardsigmoid), InplaceFn(&F::silu)}) {
    Tensor y = x.clone();
    const uint32_t v = y.version();
    Tensor r = fn(y, true);
    EXPECT_TRUE(r.is_same(y));
    EXPECT_GT(y.version(), v);
    EXPECT_TRUE(equal(y, fn(x, false)));
  }
  Tensor y = x.clone();
  EXPECT_TRUE(F::hardtanh(y, -1., 1., true).is_same(y));
  expect_values(y, {7}, {-1, -1, -0.5, 0, 0.5, 1, 1}, 0, 0);
  expect_error([&] { F::gelu(x, "Tanh"); }, "approximate argument must be either none or tanh.");
}

TEST(FunctionalWrappers, SoftmaxLinearFlatten) {
  const Tensor x = from_values({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_TRUE(equal(F::softmax(x, 1), x.softmax(1)));
  EXPECT_TRUE(equal(F::log_softmax(x, 0), x.log_softmax(0)));
  EXPECT_EQ(F::softmax(x, -1, kFloat64).dtype(), kFloat64);
  const Tensor w = from_values({1, 0, -1, 0.5, 0.5, 0.5}, {2, 3});
  expect_values(F::linear(x, w, from_values({0.1, 0.2}, {2})), {2, 2}, {-1.9, 3.2, -1.9, 7.7}, 1e-6, 1e-6);
  expect_values(F::linear(x, w), {2, 2}, {-2, 3, -2, 7.5}, 1e-6, 1e-6);
  EXPECT_EQ(F::flatten(ones({2, 3, 4})).sizes(), IntArrayRef({24}));
  EXPECT_EQ(F::flatten(ones({2, 3, 4}), 1).sizes(), IntArrayRef({2, 12}));
  EXPECT_EQ(F::flatten(ones({2, 3, 4}), 0, 1).sizes(), IntArrayRef({6, 4}));
}

TEST(FunctionalWrappers, Dropout) {
  const Tensor x = ones({1000});
  manual_seed(0);
  Tensor y = F::dropout(x, 0.3);
  const auto v = testing::values(y);
  int64_t zeros_seen = 0;
  for (double e : v) {
    if (e == 0) {
      ++zeros_seen;
    } else {
      EXPECT_NEAR(e, 1 / 0.7, 1e-6);
    }
  }
  EXPECT_NEAR(static_cast<double>(zeros_seen) / 1000, 0.3, 0.06);
  EXPECT_TRUE(F::dropout(x, 0.3, /*training=*/false).is_same(x));
  EXPECT_TRUE(equal(F::dropout(x, 1.0), zeros({1000})));
  Tensor z = x.clone();
  EXPECT_TRUE(F::dropout(z, 0.5, true, /*inplace=*/true).is_same(z));
  EXPECT_FALSE(equal(z, x));
  expect_error([&] { F::dropout(x, 1.5); }, "dropout probability has to be between 0 and 1, but got 1.5",
               ErrorKind::Value);
  expect_error([&] { F::dropout(x, -0.1, false); }, "dropout probability has to be between 0 and 1",
               ErrorKind::Value);
  EXPECT_TRUE(F::dropout(meta({3, 4}), 0.5).is_meta());
}

TEST(FunctionalWrappers, Embedding) {
  const Tensor w = from_values({3., 4., 0.3, 0.4, 1., 0., 6., 8.}, {4, 2}, kFloat64);
  const Tensor ids = from_values({0, 3, 0, 1}, {2, 2}, kInt64);
  expect_values(F::embedding(ids, w), {2, 2, 2}, {3, 4, 6, 8, 3, 4, 0.3, 0.4}, 0, 0);
  // padding_idx: the row gets no gradient; negative counts from the end.
  Tensor wl = w.clone().requires_grad_();
  Tensor g = grad_of(F::embedding(ids, wl, -1).sum(), wl);
  expect_values(g, {4, 2}, {2, 2, 1, 1, 0, 0, 0, 0}, 0, 0);
  g = grad_of(F::embedding(ids, wl, 0).sum(), wl);
  expect_values(g, {4, 2}, {0, 0, 1, 1, 0, 0, 1, 1}, 0, 0);
  expect_error([&] { F::embedding(ids, w, 4); }, "Padding_idx must be within num_embeddings");
  expect_error([&] { F::embedding(ids, w, -5); }, "Padding_idx must be within num_embeddings");
  // max_norm renormalises the rows looked up, in place, as torch 1.13 does.
  Tensor wr = w.clone();
  expect_values(F::embedding(ids, wr, std::nullopt, 2.0), {2, 2, 2},
                {1.1999999760000004, 1.5999999680000005, 1.1999999880000003, 1.5999999840000003,
                 1.1999999760000004, 1.5999999680000005, 0.3, 0.4},
                1e-12, 0);
  expect_values(wr, {4, 2},
                {1.1999999760000004, 1.5999999680000005, 0.3, 0.4, 1.0, 0.0, 1.1999999880000003,
                 1.5999999840000003},
                1e-12, 0);
  wr = w.clone();
  F::embedding(from_values({0, 3}, {2}, kInt64), wr, std::nullopt, 5.0, 1.0);
  expect_values(wr, {4, 2},
                {2.142857112244898, 2.857142816326531, 0.3, 0.4, 1.0, 0.0, 2.1428571275510206,
                 2.857142836734694},
                1e-12, 0);
  // max_norm does not record history on the weight, even one that requires grad.
  Tensor wg = w.clone().requires_grad_();
  Tensor out = F::embedding(ids, wg, std::nullopt, 2.0);
  EXPECT_TRUE(wg.is_leaf());
  EXPECT_EQ(out.grad_fn()->name(), "EmbeddingBackward0");
}

}  // namespace
}  // namespace ember
