// nn::functional class-index losses (src/nn/functional/loss_nll.cpp): nll_loss, nll_loss2d,
// nll_loss_nd and cross_entropy_loss. Values printed by PyTorch 1.13 for the same inputs (class
// weights, ignore_index, label smoothing with both, class probabilities, 1-d / 2-d / N-d inputs,
// every reduction), PyTorch's errors, meta and non-contiguous inputs, and gradcheck +
// gradgradcheck in float64.
#include "../autograd/grad_reduce_helpers.h"
#include "ember/dispatch.h"
#include "ember/nn/functional.h"

namespace ember {
namespace {

using namespace grad_testing;
namespace F = nn::functional;
using F::Reduction;
using testing::expect_error;
using testing::expect_values;
using testing::from_values;

constexpr double kTight = 1e-12;
const std::optional<Tensor> kNoWeight = std::nullopt;

Tensor x64() {
  return from_values({0.5, -1.2, 2.0, 0.3, -0.7, 1.1, 0.0, -0.4, 2.2, -1.5, -0.3, 0.8, 1.6, -2.1, 0.9},
                     {3, 5}, kFloat64);
}
Tensor targets() { return from_values({2, 4, 0}, {3}, kInt64); }
Tensor targets_ignored() { return from_values({2, -100, 0}, {3}, kInt64); }
Tensor w64() { return from_values({0.2, 1.0, 0.5, 2.0, 1.5}, {5}, kFloat64); }
// softmax of [[.1 .2 .3 .4 .5], [1 0 0 0 0], [.3 -.2 .5 .1 0]] along dim 1.
Tensor probs64() {
  return from_values({0.1621203478685732, 0.17917069369265445, 0.19801424004056156,
                      0.21883957945767912, 0.24185513894053184, 0.40460967519168967,
                      0.14884758120207758, 0.14884758120207758, 0.14884758120207758,
                      0.14884758120207758, 0.2279211426368638, 0.13824116100599423,
                      0.27838351225968294, 0.1866060487534736, 0.16884813534398546},
                     {3, 5}, kFloat64);
}
// sin(0..23) as [2, 3, 2, 2], targets [2, 2, 2] with one ignored, class weights.
Tensor x4() { return arange(24, kFloat64).reshape({2, 3, 2, 2}).sin(); }
Tensor t4() { return from_values({0, 2, 1, -100, 2, 2, 0, 1}, {2, 2, 2}, kInt64); }
Tensor w3() { return from_values({0.5, 2.0, 1.0}, {3}, kFloat64); }
Tensor meta(IntArrayRef sizes, ScalarType dtype = kFloat32) {
  return empty(sizes, TensorOptions(dtype).device(kMeta));
}

// ---- values ----

TEST(FunctionalNll, CrossEntropyClassIndicesMatchTorch) {
  expect_values(F::cross_entropy(x64(), targets(), kNoWeight, -100, Reduction::None), {3},
                {0.4146107594647507, 4.133515554417418, 2.651513448850684}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), targets()), {}, {2.399879920910951}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), targets(), kNoWeight, -100, Reduction::Sum), {},
                {7.199639762732852}, kTight, kTight);
  // Class weights: the mean divides by the weights of the targets.
  expect_values(F::cross_entropy(x64(), targets(), w64(), -100, Reduction::None), {3},
                {0.20730537973237534, 6.200273331626127, 0.5303026897701368}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), targets(), w64()), {}, {3.153582455058472}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), targets(), w64(), -100, Reduction::Sum), {},
                {6.937881401128639}, kTight, kTight);
  // ignore_index: a zero loss and no weight in the mean.
  expect_values(F::cross_entropy(x64(), targets_ignored(), w64(), -100, Reduction::None), {3},
                {0.20730537973237534, 0.0, 0.5303026897701368}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), targets_ignored(), w64()), {}, {1.0537258135750176}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), targets_ignored(), w64(), -100, Reduction::Sum), {},
                {0.7376080695025122}, kTight, kTight);
}

TEST(FunctionalNll, CrossEntropyLabelSmoothingMatchesTorch) {
  expect_values(F::cross_entropy(x64(), targets(), kNoWeight, -100, Reduction::None, 0.1), {3},
                {0.5966107594647507, 3.955515554417418, 2.603513448850684}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), targets(), kNoWeight, -100, Reduction::Mean, 0.1), {},
                {2.385213254244284}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), targets(), kNoWeight, -100, Reduction::Sum, 0.1), {},
                {7.155639762732853}, kTight, kTight);
  // With ignore_index, and with weights and ignore_index together.
  expect_values(F::cross_entropy(x64(), targets_ignored(), kNoWeight, -100, Reduction::None, 0.2),
                {3}, {0.7786107594647507, 0.0, 2.555513448850684}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), targets_ignored(), kNoWeight, -100, Reduction::Mean, 0.2),
                {}, {1.6670621041577176}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), targets_ignored(), kNoWeight, -100, Reduction::Sum, 0.2),
                {}, {3.334124208315435}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), targets_ignored(), w64(), -100, Reduction::None, 0.2), {3},
                {0.6900833417545685, 0.0, 0.9657569491770518}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), targets_ignored(), w64(), -100, Reduction::Mean, 0.2), {},
                {2.365486129902315}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), targets_ignored(), w64(), -100, Reduction::Sum, 0.2), {},
                {1.65584029093162}, kTight, kTight);
  // A negative label_smoothing is no smoothing (PyTorch only checks the upper bound).
  expect_values(F::cross_entropy(x64(), targets(), kNoWeight, -100, Reduction::Mean, -0.5), {},
                {2.399879920910951}, kTight, kTight);
}

TEST(FunctionalNll, CrossEntropyProbabilitiesMatchTorch) {
  expect_values(F::cross_entropy(x64(), probs64(), kNoWeight, -100, Reduction::None), {3},
                {2.2561736613015952, 2.1437906373459357, 2.103792623794163}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), probs64()), {}, {2.1679189741472316}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), probs64(), kNoWeight, -100, Reduction::Sum), {},
                {6.503756922441695}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), probs64(), w64(), -100, Reduction::None, 0.3), {3},
                {2.750704991701363, 1.9471199080555748, 2.540531156725436}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), probs64(), w64(), -100, Reduction::Mean, 0.3), {},
                {2.412785352160791}, kTight, kTight);
  expect_values(F::cross_entropy(x64(), probs64(), w64(), -100, Reduction::Sum, 0.3), {},
                {7.238356056482374}, kTight, kTight);
  // Promotes as PyTorch: a float64 target or weight makes a float64 loss.
  EXPECT_EQ(F::cross_entropy(x64().to(kFloat32), probs64()).dtype(), kFloat64);
  EXPECT_EQ(F::cross_entropy(x64().to(kFloat32), probs64().to(kFloat32), w64()).dtype(), kFloat64);
  EXPECT_TRUE(std::isnan(F::cross_entropy(empty({0, 5}), empty({0, 5})).item<double>()));
  EXPECT_TRUE(std::isnan(F::cross_entropy(empty({0, 5}), empty({0, 5}), ones({5})).item<double>()));
}

TEST(FunctionalNll, NllLossMatchesTorch) {
  const Tensor lx = x64().log_softmax(1);
  expect_values(F::nll_loss(lx, targets(), kNoWeight, -100, Reduction::None), {3},
                {0.4146107594647507, 4.133515554417418, 2.651513448850684}, kTight, kTight);
  expect_values(F::nll_loss(lx, targets()), {}, {2.399879920910951}, kTight, kTight);
  expect_values(F::nll_loss(lx, targets_ignored(), w64(), -100, Reduction::Mean), {},
                {1.0537258135750176}, kTight, kTight);
  expect_values(F::nll_loss(lx, targets_ignored(), w64(), -100, Reduction::Sum), {},
                {0.7376080695025122}, kTight, kTight);
  // A class index as ignore_index.
  expect_values(F::nll_loss(lx, targets(), kNoWeight, 0, Reduction::None), {3},
                {0.4146107594647507, 4.133515554417418, 0.0}, kTight, kTight);
  expect_values(F::nll_loss(lx, targets(), kNoWeight, 0, Reduction::Mean), {}, {2.274063156941084},
                kTight, kTight);
  expect_values(F::nll_loss(lx, targets(), kNoWeight, 0, Reduction::Sum), {}, {4.548126313882168},
                kTight, kTight);
  // A strided target with a storage offset: the out-of-range 9s between its elements are not
  // its own and must not be read.
  const Tensor strided = from_values({9, 2, 9, 4, 9, 0}, {6}, kInt64).slice(0, 1, 6, 2);
  ASSERT_FALSE(strided.is_contiguous());
  expect_values(F::nll_loss(lx, strided, w64()), {}, {3.153582455058472}, kTight, kTight);
  // uint8 targets are accepted by the 1-d / 2-d op.
  expect_values(nll_loss(lx, targets().to(kUInt8), kNoWeight, 1, -100), {}, {2.399879920910951},
                kTight, kTight);
  // An ignored target whose log-probability is -inf: still 0 (PyTorch skips it).
  Tensor inf_row = from_values({-INFINITY, 1.0}, {1, 2}, kFloat64);
  expect_values(nll_loss(inf_row, from_values({-100}, {1}, kInt64), kNoWeight, 0, -100), {1}, {0.0}, 0, 0);
}

TEST(FunctionalNll, OneDimensionalInput) {
  Tensor x1 = from_values({0.3, -0.2, 1.5, 0.7}, {4}, kFloat64);
  Tensor w = from_values({1., 2., 3., 4.}, {4}, kFloat64);
  expect_values(F::cross_entropy(x1, scalar_tensor(int64_t{2})), {}, {0.6591801267815437}, kTight, kTight);
  expect_values(F::cross_entropy(x1, scalar_tensor(int64_t{2}), w, -100, Reduction::Mean, 0.1), {},
                {0.7131937913351847}, kTight, kTight);
  expect_values(F::cross_entropy(x1, scalar_tensor(int64_t{2}), w, -100, Reduction::None, 0.1), {},
                {2.1395813740055543}, kTight, kTight);
  // nll_loss with an ignored 0-d target: NaN mean, 0 otherwise.
  EXPECT_TRUE(std::isnan(nll_loss(x1, scalar_tensor(int64_t{-100}), kNoWeight, 1, -100).item<double>()));
  EXPECT_EQ(nll_loss(x1, scalar_tensor(int64_t{-100}), kNoWeight, 0, -100).item<double>(), 0.0);
  EXPECT_EQ(nll_loss(x1, scalar_tensor(int64_t{1}), kNoWeight, 0, -100).item<double>(), 0.2);
  // PyTorch 1.13 reads only target[0] of a 1-d target given with a 1-d input of as many classes.
  expect_values(nll_loss(x1, from_values({3, 0, 0, 0}, {4}, kInt64), kNoWeight, 1, -100), {}, {-0.7},
                kTight, kTight);
}

TEST(FunctionalNll, SpatialInputsMatchTorch) {
  expect_values(F::nll_loss(x4(), t4(), w3(), -100, Reduction::None), {2, 2, 2},
                {-0.0, -0.4121184852417566, 0.5588309963978517, 0.0, -0.9129452507276277,
                 -0.8366556385360561, -0.4953036778474352, -0.2997544193259047},
                1e-12, 1e-12);
  expect_values(F::nll_loss(x4(), t4(), w3()), {}, {-0.29974330941011607}, 1e-12, 1e-12);
  expect_values(F::nll_loss(x4(), t4(), w3(), -100, Reduction::Sum), {}, {-2.3979464752809285}, 1e-12, 1e-12);
  expect_values(F::cross_entropy(x4(), t4(), w3(), -100, Reduction::None, 0.15), {2, 2, 2},
                {0.881329827653307, 1.1781015253286005, 3.0199997386202546, 0.0, 0.5959817597168673,
                 0.8068252456917006, 0.48449371631057936, 2.108853991852506},
                1e-12, 1e-12);
  expect_values(F::cross_entropy(x4(), t4(), w3(), -100, Reduction::Mean, 0.15), {},
                {1.134448225646727}, 1e-12, 1e-12);
  expect_values(F::cross_entropy(x4(), t4(), w3(), -100, Reduction::Sum, 0.15), {},
                {9.075585805173816}, 1e-12, 1e-12);
  // 3-d and 5-d go through nll_loss2d as [N, C, 1, -1] images.
  const Tensor x3 = x4().reshape({2, 3, 4}), t3 = t4().reshape({2, 4});
  expect_values(F::nll_loss(x3, t3, kNoWeight, -100, Reduction::None), {2, 4},
                {-0.0, -0.4121184852417566, 0.27941549819892586, 0.0, -0.9129452507276277,
                 -0.8366556385360561, -0.9906073556948704, -0.14987720966295234},
                1e-12, 1e-12);
  expect_values(F::cross_entropy(x3, t3), {}, {0.9485722936937846}, 1e-12, 1e-12);
  expect_values(F::cross_entropy(x4().reshape({2, 3, 1, 2, 2}), t4().reshape({2, 1, 2, 2}), w3(), -100,
                                 Reduction::None),
                {2, 1, 2, 2},
                {0.7125979087114028, 1.0260790847095265, 3.2389197665187712, 0.0, 0.4289355597652648,
                 0.6015685049828331, 0.21696776901221748, 2.2096633353844846},
                1e-12, 1e-12);
  // Non-contiguous N-d input (a permuted view holding the same values).
  const Tensor permuted = x4().permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
  ASSERT_FALSE(permuted.is_contiguous());
  expect_values(F::nll_loss(permuted, t4(), w3()), {}, {-0.29974330941011607}, 1e-12, 1e-12);
  // Empty batches.
  EXPECT_TRUE(std::isnan(nll_loss_nd(empty({0, 3, 2}), empty({0, 2}, kInt64), kNoWeight, 1, -100).item<double>()));
  EXPECT_EQ(nll_loss_nd(empty({0, 3, 2}), empty({0, 2}, kInt64), kNoWeight, 0, -100).sizes(),
            IntArrayRef({0, 2}));
  EXPECT_EQ(nll_loss_nd(empty({2, 3, 0}), empty({2, 0}, kInt64), kNoWeight, 2, -100).item<double>(), 0.0);
  EXPECT_EQ(nll_loss2d(empty({0, 5, 2, 2}), empty({0, 2, 2}, kInt64), kNoWeight, 0, -100).sizes(),
            IntArrayRef({0, 2, 2}));
  EXPECT_TRUE(std::isnan(nll_loss(empty({0, 5}), empty({0}, kInt64), kNoWeight, 1, -100).item<double>()));
  EXPECT_TRUE(std::isnan(
      nll_loss(x64(), from_values({-100, -100, -100}, {3}, kInt64), w64(), 1, -100).item<double>()));
}

TEST(FunctionalNll, FloatDtypes) {
  for (ScalarType dt : {kFloat32, kFloat16, kBFloat16}) {
    const double tol = dt == kFloat32 ? 1e-6 : 2e-2;
    Tensor l = F::cross_entropy(x64().to(dt), targets_ignored(), w64().to(dt), -100, Reduction::Mean, 0.2);
    EXPECT_EQ(l.dtype(), dt);
    expect_values(l, {}, {2.365486129902315}, tol, tol);
    expect_values(F::cross_entropy(x64().to(dt), probs64().to(dt)), {}, {2.1679189741472316}, tol, tol);
  }
}

// ---- errors (PyTorch 1.13's texts and kinds) ----

TEST(FunctionalNll, NllErrors) {
  const Tensor x = ones({3, 5});
  const Tensor t = zeros({3}, kInt64);
  expect_error([&] { nll_loss(ones({2, 3, 4}), zeros({2, 4}, kInt64), kNoWeight, 1, -100); },
               "input tensor should be 1D or 2D");
  expect_error([&] { nll_loss(scalar_tensor(1.0), scalar_tensor(int64_t{0}), kNoWeight, 1, -100); },
               "input tensor should be 1D or 2D");
  expect_error([&] { nll_loss(x, zeros({3, 1}, kInt64), kNoWeight, 1, -100); },
               "0D or 1D target tensor expected, multi-target not supported");
  expect_error([&] { nll_loss(x, zeros({2}, kInt64), kNoWeight, 1, -100); },
               "size mismatch (got input: [3, 5], target: [2])");
  expect_error([&] { nll_loss(ones({5}), zeros({1}, kInt64), kNoWeight, 1, -100); },
               "size mismatch (got input: [5], target: [1])");
  expect_error([&] { nll_loss(ones({1, 5}), scalar_tensor(int64_t{0}), kNoWeight, 1, -100); },
               "Dimension specified as 0 but tensor has no dimensions", ErrorKind::Index);
  expect_error([&] { nll_loss(x, t, ones({3}), 1, -100); },
               "weight tensor should be defined either for all 5 classes or no classes but got "
               "weight tensor of shape: [3]");
  expect_error([&] { nll_loss(x, t, ones({1, 5}), 1, -100); },
               "weight tensor should be defined either for all 5 classes or no classes but got "
               "weight tensor of shape: [1, 5]");
  expect_error([&] { nll_loss(x, t, ones({5}, kFloat64), 1, -100); },
               "expected scalar type Float but found Double");
  expect_error([&] { nll_loss(x.to(kBFloat16), t, ones({5}), 1, -100); },
               "expected scalar type BFloat16 but found Float");
  expect_error([&] { nll_loss(x, zeros({3}, kInt32), kNoWeight, 1, -100); },
               "expected scalar type Long but found Int");
  expect_error([&] { nll_loss(x, zeros({3}), kNoWeight, 1, -100); },
               "expected scalar type Long but found Float");
  expect_error([&] { nll_loss(ones({3, 5}, kInt64), t, kNoWeight, 1, -100); },
               "\"nll_loss_out_frame\" not implemented for 'Long'");
  expect_error([&] { nll_loss(x, from_values({0, 7, 1}, {3}, kInt64), kNoWeight, 1, -100); },
               "Target 7 is out of bounds.", ErrorKind::Index);
  expect_error([&] { nll_loss(x, from_values({0, -1, 1}, {3}, kInt64), kNoWeight, 0, -100); },
               "Target -1 is out of bounds.", ErrorKind::Index);
  expect_error([&] { nll_loss(ones({2, 0}), zeros({2}, kInt64), kNoWeight, 1, -100); },
               "Target 0 is out of bounds.", ErrorKind::Index);
  // An out-of-range value that is the ignore_index is fine.
  EXPECT_NO_THROW(nll_loss(x, from_values({0, 7, 1}, {3}, kInt64), kNoWeight, 1, 7));
}

TEST(FunctionalNll, NllNdAnd2dErrors) {
  expect_error([&] { nll_loss_nd(scalar_tensor(1.0), scalar_tensor(int64_t{0}), kNoWeight, 1, -100); },
               "Expected 1 or more dimensions (got 0)", ErrorKind::Value);
  expect_error([&] { F::nll_loss(ones({3, 5, 2}), zeros({2, 2}, kInt64)); },
               "Expected input batch_size (3) to match target batch_size (2).", ErrorKind::Value);
  expect_error([&] { F::cross_entropy(ones({3, 5}), zeros({2}, kInt64)); },
               "Expected input batch_size (3) to match target batch_size (2).", ErrorKind::Value);
  expect_error([&] { F::nll_loss(ones({1, 5}), scalar_tensor(int64_t{0})); },
               "Expected input batch_size (1) to match target batch_size (0).", ErrorKind::Value);
  expect_error([&] { F::nll_loss(ones({3, 5, 2}), zeros({3, 3}, kInt64)); },
               "Expected target size [3, 2], got [3, 3]");
  expect_error([&] { F::nll_loss(ones({3, 5, 2}), zeros({3}, kInt64)); },
               "Expected target size [3, 2], got [3]");
  expect_error([&] { F::nll_loss(ones({3, 5}), zeros({3, 2}, kInt64)); },
               "0D or 1D target tensor expected, multi-target not supported");
  expect_error([&] { F::nll_loss(ones({3, 5, 2, 2}), zeros({3, 2}, kInt64)); },
               "only batches of spatial targets supported (3D tensors) but got targets of dimension: 2");
  expect_error([&] { nll_loss2d(ones({3, 5, 2}), zeros({3, 2, 2}, kInt64), kNoWeight, 1, -100); },
               "only batches of spatial inputs supported (4D tensors), but got input of dimension: 3");
  expect_error([&] { F::nll_loss(ones({3, 5, 2, 2}), zeros({3, 2, 3}, kInt64)); },
               "size mismatch (got input: [3, 5, 2, 2] , target: [3, 2, 3]");
  expect_error([&] { F::nll_loss(ones({3, 5, 2, 2}), zeros({3, 2, 2}, kInt64), ones({3})); },
               "weight tensor should be defined either for all or no classes");
  expect_error([&] { F::nll_loss(ones({3, 5, 2}), zeros({3, 2}, kInt64), ones({4})); },
               "weight tensor should be defined either for all or no classes");
  expect_error([&] { F::nll_loss(ones({3, 5, 2, 2}), zeros({3, 2, 2}, kUInt8)); },
               "expected scalar type Long but found Byte");
  expect_error([&] { F::nll_loss(ones({3, 5, 2, 2}, kInt64), zeros({3, 2, 2}, kInt64)); },
               "\"nll_loss2d_forward_out_frame\" not implemented for 'Long'");
  expect_error([&] { F::nll_loss(ones({2, 3, 1, 1, 1}), full({2, 1, 1, 1}, 5)); },
               "Target 5 is out of bounds.", ErrorKind::Index);
  // nll_loss2d reads a 2-d weight of C elements as its values.
  expect_values(nll_loss2d(x4(), t4(), w3().view({1, 3}), 1, -100), {}, {-0.29974330941011607}, 1e-12, 1e-12);
}

TEST(FunctionalNll, CrossEntropyErrors) {
  const Tensor x = ones({3, 5});
  expect_error([&] { F::cross_entropy(x, ones({3, 5}, kInt64)); },
               "Expected floating point type for target with class probabilities, got Long");
  expect_error([&] { F::cross_entropy(scalar_tensor(1.0), scalar_tensor(int64_t{0})); },
               "Expected floating point type for target with class probabilities, got Long");
  expect_error([&] { F::cross_entropy(scalar_tensor(1.0), scalar_tensor(0.5)); },
               "Dimension specified as 1 but tensor has no dimensions", ErrorKind::Index);
  expect_error([&] { F::cross_entropy(x, ones({3, 5}), kNoWeight, 1); },
               "ignore_index is not supported for floating point target");
  expect_error([&] { F::cross_entropy(x, zeros({3}, kInt64), kNoWeight, -100, Reduction::Mean, 1.5); },
               "label_smoothing must be between 0.0 and 1.0. Got: 1.5");
  expect_error([&] { F::cross_entropy(x, ones({3, 5}), kNoWeight, -100, Reduction::Mean, 1.5); },
               "label_smoothing must be between 0.0 and 1.0. Got: 1.5");
  expect_error([&] { F::cross_entropy(x, ones({3, 5}), ones({3})); },
               "cross_entropy: weight tensor should be defined either for all 5 classes or no "
               "classes but got weight tensor of shape: [3]");
  expect_error([&] { F::cross_entropy(x, zeros({3}, kInt64), ones({3}), -100, Reduction::Mean, 0.1); },
               "weight tensor should be defined either for all 5 classes or no classes");
  expect_error([&] { F::cross_entropy(x, ones({3})); }, "expected scalar type Long but found Float");
  expect_error([&] { F::cross_entropy(x, ones({3, 4})); },
               "0D or 1D target tensor expected, multi-target not supported");
  expect_error([&] { F::cross_entropy(ones({3, 5}, kInt64), zeros({3}, kInt64)); },
               "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'");
  expect_error([&] { F::cross_entropy(x, from_values({0, 9, 1}, {3}, kInt64), ones({5}), -100,
                                      Reduction::None, 0.1); },
               "Target 9 is out of bounds.", ErrorKind::Index);
  expect_error([&] { cross_entropy_loss(x, ones({3, 5}), kNoWeight, 3, -100, 0.0); },
               "Invalid reduction type encountered in cross_entropy: 3");
  expect_error([&] { cross_entropy_loss(x, zeros({3}, kInt64), kNoWeight, 3, -100, 0.1); },
               "Invalid reduction type encountered in cross_entropy: 3");
  // Without smoothing an unknown reduction sums, as nll_loss's kernel.
  expect_values(cross_entropy_loss(x64(), targets(), kNoWeight, 3, -100, 0.0), {}, {7.199639762732852},
                kTight, kTight);
}

// ---- meta, dispatch ----

TEST(FunctionalNll, MetaTensors) {
  const Tensor t = empty({4}, TensorOptions(kInt64).device(kMeta));
  for (int64_t red : {0, 1, 2}) {
    const std::vector<int64_t> none_shape = red == 0 ? std::vector<int64_t>{4} : std::vector<int64_t>{};
    Tensor l = cross_entropy_loss(meta({4, 5}), t, meta({5}), red, -100, 0.1);
    EXPECT_TRUE(l.is_meta());
    EXPECT_EQ(l.sizes().vec(), none_shape);
    EXPECT_EQ(cross_entropy_loss(meta({4, 5}), meta({4, 5}), std::nullopt, red, -100, 0.2).sizes().vec(), none_shape);
    EXPECT_EQ(nll_loss_nd(meta({4, 5, 3}), empty({4, 3}, TensorOptions(kInt64).device(kMeta)), meta({5}), red,
                          -100).sizes(),
              red == 0 ? IntArrayRef({4, 3}) : IntArrayRef({}));
  }
}

struct RecordingMode : FunctionMode {
  std::vector<std::string> seen;
  std::optional<Stack> torch_function(const OpHandle& op, const Stack& args) override {
    seen.push_back(op.full_name());
    return op.call(args);  // the op itself, below this mode
  }
};

TEST(FunctionalNll, AtenRows) {
  for (const char* name : {"aten::nll_loss", "aten::nll_loss2d", "aten::nll_loss_nd", "aten::cross_entropy_loss"}) {
    EXPECT_TRUE(find_op(name).is_composite()) << name;
  }
  Stack out = find_op("aten::cross_entropy_loss").call({x64(), targets()});
  expect_values(out[0].to_tensor(), {}, {2.399879920910951}, kTight, kTight);
  out = find_op("aten::nll_loss_nd").call({x4(), t4(), w3(), int64_t{2}});
  expect_values(out[0].to_tensor(), {}, {-2.3979464752809285}, 1e-12, 1e-12);
  const Tensor x = x64(), t = targets();
  auto mode = make_intrusive<RecordingMode>();
  Tensor l;
  {
    FunctionModeGuard g(mode);
    l = F::cross_entropy(x, t);
    F::nll_loss(x, t);
  }
  expect_values(l, {}, {2.399879920910951}, kTight, kTight);
  EXPECT_EQ(mode->seen, (std::vector<std::string>{"aten::cross_entropy_loss", "aten::nll_loss_nd"}));
}

// ---- autograd ----

TEST(FunctionalNll, Gradcheck) {
  const Tensor tgt = targets_ignored();
  for (int64_t red : {0, 1, 2}) {
    for (double ls : {0.0, 0.25}) {
      auto ce = [&, red, ls](const tensor_list& in) {
        return tensor_list{cross_entropy_loss(in[0], tgt, w64(), red, -100, ls)};
      };
      auto ce4 = [&, red, ls](const tensor_list& in) {
        return tensor_list{cross_entropy_loss(in[0], t4(), std::nullopt, red, -100, ls)};
      };
      auto prob = [red, ls](const tensor_list& in) {
        return tensor_list{cross_entropy_loss(in[0], in[1], in[2], red, -100, ls)};
      };
      EXPECT_TRUE(grad_ok(ce, {leaf({3, 5}, 1)}));
      EXPECT_TRUE(grad_ok(ce, {leaf_transposed({3, 5})}));
      EXPECT_TRUE(grad_ok(ce4, {leaf_strided({2, 3, 2, 2})}));
      EXPECT_TRUE(grad_ok(prob, {leaf({3, 5}, 1), leaf({3, 5}, 2), random64({5}, 3).abs()}));
      EXPECT_TRUE(gradgrad_ok(ce, {leaf({3, 5}, 1)}));
      EXPECT_TRUE(gradgrad_ok(ce4, {leaf({2, 3, 2, 2}, 4)}));
      EXPECT_TRUE(gradgrad_ok(prob, {leaf_transposed({3, 5}), leaf({3, 5}, 2), random64({5}, 3).abs()}));
    }
    auto nll = [red](const tensor_list& in) {
      return tensor_list{nll_loss_nd(in[0], t4().reshape({2, 4}), in[1], red, -100)};
    };
    EXPECT_TRUE(grad_ok(nll, {leaf({2, 3, 4}, 5), random64({3}, 6).abs()}));
    EXPECT_TRUE(gradgrad_ok(nll, {leaf_transposed({2, 3, 4}), random64({3}, 6).abs()}));
  }
  // 1-d input.
  auto one_d = [](const tensor_list& in) {
    return tensor_list{cross_entropy_loss(in[0], scalar_tensor(int64_t{2}), in[1], 1, -100, 0.1)};
  };
  EXPECT_TRUE(grad_ok(one_d, {leaf({4}, 1), random64({4}, 2).abs()}));
  EXPECT_TRUE(gradgrad_ok(one_d, {leaf({4}, 1), random64({4}, 2).abs()}));
}

TEST(FunctionalNll, GradientValuesMatchTorch) {
  Tensor x = x64().requires_grad_();
  expect_values(grad_of(F::cross_entropy(x, targets_ignored(), w64(), -100, Reduction::Mean, 0.2), x),
                {3, 5},
                {0.11659815808455436, -0.03375448302245308, -0.026224005629896373,
                 -0.009466293617321698, -0.04715337581488313, 0.0, 0.0, 0.0, 0.0, 0.0,
                 -0.20291381852471163, 0.05427018920311594, 0.21938286603956272,
                 -0.10815540971946512, 0.03741617300149805},
                1e-10, 1e-12);
  // An ignored row whose log-probability is -inf gets a zero gradient, not NaN.
  Tensor y = leaf_of({-INFINITY, 1.0, 0.5, 0.25}, {2, 2});
  expect_values(grad_of(nll_loss(y, from_values({-100, 1}, {2}, kInt64), kNoWeight, 2, -100), y), {2, 2},
                {0, 0, 0, -1}, 0, 0);
}

}  // namespace
}  // namespace ember
