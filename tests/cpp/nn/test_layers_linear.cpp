// nn::Linear, Bilinear, Identity: repr and state_dict as torch 1.13, outputs and gradients for
// weights taken from torch, default-init statistics, dtype and meta construction. Also the
// helpers every layer's repr and boxed forward use.
#include <gtest/gtest.h>

#include <cmath>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/nn.h"
#include "ember/warning.h"
#include "nn/modules/module_util.h"

namespace ember {
namespace {

using nn::StateDict;
using testing::expect_error;
using testing::expect_values;
using testing::from_values;

std::vector<std::pair<std::string, std::vector<int64_t>>> keys_and_shapes(const StateDict& sd) {
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  for (const auto& [k, v] : sd.items()) out.emplace_back(k, v.to_tensor().sizes().vec());
  return out;
}
using KS = std::vector<std::pair<std::string, std::vector<int64_t>>>;

TEST(LayersRepr, PythonFloatsTuplesAndArity) {
  using nn::detail::py_float;
  // repr() of the same floats in Python.
  EXPECT_EQ(py_float(0.5), "0.5");
  EXPECT_EQ(py_float(1.0), "1.0");
  EXPECT_EQ(py_float(-1.0), "-1.0");
  EXPECT_EQ(py_float(1e-5), "1e-05");
  EXPECT_EQ(py_float(0.0001), "0.0001");
  EXPECT_EQ(py_float(0.001), "0.001");
  EXPECT_EQ(py_float(1e16), "1e+16");
  EXPECT_EQ(py_float(1e15), "1000000000000000.0");
  EXPECT_EQ(py_float(123456789.0), "123456789.0");
  EXPECT_EQ(py_float(0.1), "0.1");
  EXPECT_EQ(py_float(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(py_float(1e-7), "1e-07");
  EXPECT_EQ(py_float(-0.0), "-0.0");
  EXPECT_EQ(py_float(std::pow(2.0, 70)), "1.1805916207174113e+21");
  EXPECT_EQ(py_float(1.5e300), "1.5e+300");
  EXPECT_EQ(py_float(12345678901234567.0), "1.2345678901234568e+16");
  EXPECT_EQ(py_float(INFINITY), "inf");
  EXPECT_EQ(py_float(-INFINITY), "-inf");
  EXPECT_EQ(py_float(NAN), "nan");
  EXPECT_EQ(nn::detail::py_int_tuple({10}), "(10,)");
  EXPECT_EQ(nn::detail::py_int_tuple({2, 3}), "(2, 3)");
  EXPECT_EQ(nn::detail::py_int_tuple({}), "()");
  // Python's messages for a forward given the wrong number of inputs (torch 1.13, Python 3.11).
  nn::Linear lin(2, 3);
  expect_error([&] { lin.call({ones({2}), ones({2})}); },
               "Linear.forward() takes 2 positional arguments but 3 were given", ErrorKind::Type);
  expect_error([&] { lin.call({}); },
               "Linear.forward() missing 1 required positional argument: 'input'", ErrorKind::Type);
  nn::MSELoss mse;
  expect_error([&] { mse.call({}); },
               "MSELoss.forward() missing 2 required positional arguments: 'input' and 'target'",
               ErrorKind::Type);
  expect_error([&] { mse.call({ones({2})}); },
               "MSELoss.forward() missing 1 required positional argument: 'target'", ErrorKind::Type);
  expect_error([&] { lin.call({Value(2.0)}); }, "expected a value of type Tensor but got float",
               ErrorKind::Type);
}

TEST(LayersLinear, ReprAndStateDictMatchTorch) {
  nn::Linear lin(3, 5);
  EXPECT_EQ(lin.repr(), "Linear(in_features=3, out_features=5, bias=True)");
  EXPECT_EQ(keys_and_shapes(lin.state_dict()), (KS{{"weight", {5, 3}}, {"bias", {5}}}));
  nn::Linear nobias(3, 5, /*bias=*/false);
  EXPECT_EQ(nobias.repr(), "Linear(in_features=3, out_features=5, bias=False)");
  EXPECT_EQ(keys_and_shapes(nobias.state_dict()), (KS{{"weight", {5, 3}}}));
  EXPECT_TRUE(nobias.has_parameter("bias"));  // registered as None, as torch
  EXPECT_FALSE(nobias.bias().defined());
  // A checkpoint with a bias is unexpected for it (torch: unexpected_keys=['bias']).
  EXPECT_EQ(nobias.load_state_dict(lin.state_dict(), /*strict=*/false).to_string(),
            "_IncompatibleKeys(missing_keys=[], unexpected_keys=['bias'])");
  EXPECT_TRUE(lin.weight().is_parameter());
  EXPECT_TRUE(lin.weight().requires_grad());
  EXPECT_EQ(lin.weight().dtype(), kFloat32);
}

// torch: lin.weight = (arange(15)*0.1 - 0.7).reshape(5, 3), bias [0.1, -0.2, 0.3, -0.4, 0.5],
// x = (arange(6)*0.25 - 0.5).reshape(2, 3); y = lin(x); (y*y).sum().backward().
TEST(LayersLinear, ForwardAndGradientsMatchTorch) {
  auto lin = std::make_shared<nn::Linear>(3, 5);
  StateDict sd;
  sd.insert("weight", testing::iota({5, 3}, kFloat32) * 0.1 - 0.7);
  sd.insert("bias", from_values({0.1, -0.2, 0.3, -0.4, 0.5}, {5}));
  lin->load_state_dict(sd);
  Tensor x = testing::iota({2, 3}) * 0.25 - 0.5;
  Tensor y = (*lin)(x);
  expect_values(y, {2, 5},
                {0.6000000238418579, 0.07499997317790985, 0.3499999940395355, -0.5750000476837158,
                 0.09999996423721313, -0.7499999403953552, -0.5999999642372131, 0.3500000238418579,
                 0.1000000536441803, 1.4500000476837158},
                1e-5, 1e-6);
  (y * y).sum().backward();
  expect_values(lin->weight().grad(), {5, 3},
                {-0.9750000238418579, -1.0499999523162842, -1.1249998807907104, -0.3749999403953552,
                 -0.6374999284744263, -0.8999999761581421, -0.17499998211860657, 0.17500002682209015,
                 0.5250000357627869, 0.6250000596046448, 0.3875000774860382, 0.15000008046627045,
                 0.6250000596046448, 1.4000000953674316, 2.1750001907348633},
                1e-5, 1e-6);
  expect_values(lin->bias().grad(), {5},
                {-0.29999983310699463, -1.0499999523162842, 1.4000000953674316, -0.949999988079071,
                 3.0999999046325684},
                1e-5, 1e-6);
  // A batch of higher rank and no bias: x @ W^T only.
  nn::Linear nb(3, 2, false);
  nb.weight().detach().copy_(from_values({1, 0, -1, 2, 1, 0}, {2, 3}));
  expect_values(nb.forward(from_values({1, 2, 3, 4, 5, 6}, {2, 1, 3})), {2, 1, 2}, {-2, 4, -2, 13});
}

TEST(LayersLinear, DefaultInitIsKaimingUniformWithSqrt5) {
  manual_seed(0);
  nn::Linear lin(64, 100);
  const double bound = 1.0 / std::sqrt(64.0);  // kaiming_uniform_(a=sqrt(5)) on fan_in 64
  for (const Tensor& t : {lin.weight(), lin.bias()}) {
    const auto v = testing::values(t);
    double lo = 1e9, hi = -1e9, mean = 0, sq = 0;
    for (double e : v) {
      lo = std::min(lo, e);
      hi = std::max(hi, e);
      mean += e;
      sq += e * e;
    }
    mean /= static_cast<double>(v.size());
    sq /= static_cast<double>(v.size());
    EXPECT_GE(lo, -bound);
    EXPECT_LE(hi, bound);
    if (v.size() > 1000) {  // the weight: 6400 draws of U(-b, b)
      EXPECT_LT(lo, -0.95 * bound);
      EXPECT_GT(hi, 0.95 * bound);
      EXPECT_NEAR(mean, 0.0, 0.005);
      EXPECT_NEAR(sq, bound * bound / 3, 0.0005);  // variance of U(-b, b)
    }
  }
  // Re-drawing changes the values; the bias of a 0-in_features Linear has bound 0.
  const Tensor before = lin.weight().clone();
  lin.reset_parameters();
  EXPECT_FALSE(equal(before, lin.weight()));
  WarningCapture w;  // kaiming_uniform_ on an empty weight warns, as torch
  nn::Linear empty_in(0, 3);
  expect_values(empty_in.bias(), {3}, {0, 0, 0});
  ASSERT_EQ(w.messages.size(), 1u);
  EXPECT_EQ(w.messages[0], "Initializing zero-element tensors is a no-op");
}

TEST(LayersLinear, DtypeOption) {
  nn::Linear lin(3, 2, true, kFloat64);
  EXPECT_EQ(lin.weight().dtype(), kFloat64);
  EXPECT_EQ(lin.bias().dtype(), kFloat64);
  // Values exact in float64: y = x W^T + b computed here.
  lin.weight().detach().copy_(from_values({0.1, 0.2, 0.3, -0.4, 0.5, -0.6}, {2, 3}, kFloat64));
  lin.bias().detach().copy_(from_values({1.0 / 3, -1.0 / 7}, {2}, kFloat64));
  Tensor y = lin(from_values({1, 2, 3}, {1, 3}, kFloat64));
  EXPECT_EQ(y.dtype(), kFloat64);
  expect_values(y, {1, 2}, {0.1 + 0.4 + 0.9 + 1.0 / 3, -0.4 + 1.0 - 1.8 - 1.0 / 7}, 1e-15, 1e-15);
  // A float32 input is refused, as torch does.
  expect_error([&] { lin(ones({1, 3})); }, "mat1 and mat2 must have the same dtype");
  // Integer parameters cannot require grad (torch raises the same when building the Parameter).
  expect_error([&] { nn::Linear(3, 2, true, kInt64); },
               "only Tensors of floating point dtype can require gradients");
}

TEST(LayersLinear, MetaBuildsWithoutMemoryThenMaterialises) {
  // 10^8 parameters: built on meta, nothing allocated and nothing initialised.
  nn::Linear big(10000, 10000, true, kMeta);
  EXPECT_TRUE(big.weight().is_meta());
  EXPECT_TRUE(big.bias().is_meta());
  EXPECT_EQ(big.weight().sizes().vec(), (std::vector<int64_t>{10000, 10000}));
  EXPECT_TRUE(big.weight().requires_grad());
  EXPECT_EQ(big.repr(), "Linear(in_features=10000, out_features=10000, bias=True)");
  big.reset_parameters();  // nothing to do on meta, and no failure
  // A meta forward checks shapes only.
  Tensor y = big(empty({4, 10000}, kMeta));
  EXPECT_TRUE(y.is_meta());
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{4, 10000}));

  auto real = std::make_shared<nn::Linear>(3, 2);
  auto skeleton = std::make_shared<nn::Linear>(3, 2, true, kMeta);
  skeleton->load_state_dict(real->state_dict(), true, /*assign=*/true);
  EXPECT_TRUE(skeleton->weight().is_cpu());
  EXPECT_TRUE(skeleton->weight().is_parameter());
  EXPECT_TRUE(skeleton->weight().requires_grad());
  EXPECT_TRUE(equal(skeleton->forward(ones({1, 3})), real->forward(ones({1, 3}))));

  auto other = std::make_shared<nn::Linear>(3, 2, true, TensorOptions(kFloat64).device(kMeta));
  EXPECT_EQ(other->weight().dtype(), kFloat64);
  other->to_empty(kCPU);
  EXPECT_TRUE(other->weight().is_cpu());
  EXPECT_EQ(other->weight().dtype(), kFloat64);
  other->reset_parameters();  // to_empty leaves garbage; re-initialise as torch users do
  for (double v : testing::values(other->weight())) EXPECT_LE(std::abs(v), 1 / std::sqrt(3.0));
}

TEST(LayersBilinear, MatchesTorch) {
  auto bl = std::make_shared<nn::Bilinear>(2, 3, 2);
  EXPECT_EQ(bl->repr(), "Bilinear(in1_features=2, in2_features=3, out_features=2, bias=True)");
  EXPECT_EQ(keys_and_shapes(bl->state_dict()), (KS{{"weight", {2, 2, 3}}, {"bias", {2}}}));
  EXPECT_EQ(nn::Bilinear(2, 3, 4, false).repr(),
            "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=False)");
  // Default init: U(-1/sqrt(in1), 1/sqrt(in1)) for weight and bias.
  for (const Tensor& t : {bl->weight(), bl->bias()})
    for (double v : testing::values(t)) EXPECT_LE(std::abs(v), 1 / std::sqrt(2.0));
  // torch: weight (arange(12)*0.1 - 0.5).reshape(2, 2, 3), bias [0.25, -0.5].
  StateDict sd;
  sd.insert("weight", testing::iota({2, 2, 3}) * 0.1 - 0.5);
  sd.insert("bias", from_values({0.25, -0.5}, {2}));
  bl->load_state_dict(sd);
  Tensor x1 = from_values({1, 2, -1, 0.5}, {2, 2});
  Tensor x2 = from_values({0.5, -1, 2, 1, 1, -1}, {2, 3});
  Tensor y = (*bl)(x1, x2);
  expect_values(y, {2, 2}, {-0.19999998807907104, 1.75, 0.699999988079071, -0.3499999940395355},
                1e-5, 1e-6);
  (y * y).sum().backward();
  expect_values(bl->weight().grad(), {2, 2, 3},
                {-1.5999999046325684, -1.0, 0.6000000238418579, 0.30000001192092896, 1.5,
                 -2.299999952316284, 2.450000047683716, -2.799999952316284, 6.300000190734863,
                 3.1500000953674316, -7.349999904632568, 14.350000381469727},
                1e-5, 1e-6);
  expect_values(bl->bias().grad(), {2}, {1.0, 2.799999952316284}, 1e-5, 1e-6);
  expect_error([&] { bl->call({x1}); },
               "Bilinear.forward() missing 1 required positional argument: 'input2'", ErrorKind::Type);
  nn::Bilinear meta(4, 5, 6, true, kMeta);
  EXPECT_TRUE(meta.weight().is_meta());
  expect_error([&] { nn::Bilinear(0, 2, 2); }, "float division by zero");
}

TEST(LayersIdentity, PassesAnythingThrough) {
  nn::Identity id;
  EXPECT_EQ(id.repr(), "Identity()");
  Tensor x = ones({2});
  EXPECT_TRUE(id(x).is_same(x));
  EXPECT_EQ(id.call({Value(int64_t{3})}).to_int(), 3);
  EXPECT_TRUE(id.state_dict().empty());
}

// Inputs of every shape a layer meets: no batch dim, an empty batch, non-contiguous views,
// extra leading dims.
TEST(LayersLinear, OneDimEmptyAndNonContiguousInputs) {
  nn::Linear lin(3, 2);
  lin.weight().detach().copy_(from_values({1, 2, 3, -1, 0, 1}, {2, 3}));
  lin.bias().detach().copy_(from_values({0.5, -0.5}, {2}));
  expect_values(lin(from_values({1, 1, 1}, {3})), {2}, {6.5, -0.5});
  Tensor none = lin(empty({0, 3}));
  EXPECT_EQ(none.sizes().vec(), (std::vector<int64_t>{0, 2}));
  // x.t() of a [3, 2] tensor: rows (0, 2, 4) and (1, 3, 5).
  Tensor xt = testing::iota({3, 2}).t();
  ASSERT_FALSE(xt.is_contiguous());
  expect_values(lin(xt), {2, 2}, {16.5, 3.5, 22.5, 3.5});
  // A broadcast (stride-0) input: every row is [1, 2, 3].
  Tensor ex = from_values({1, 2, 3}, {1, 3}).expand({4, 3});
  expect_values(lin(ex), {4, 2}, {14.5, 1.5, 14.5, 1.5, 14.5, 1.5, 14.5, 1.5});
  expect_values(lin(testing::iota({2, 1, 3})), {2, 1, 2}, {8.5, 1.5, 26.5, 1.5});
  expect_error([&] { lin(scalar_tensor(1.0)); }, "both arguments to matmul need to be at least 1D, but they are 0D and 2D");
  // Meta parameters hold no storage.
  nn::Linear meta(4, 4, true, kMeta);
  EXPECT_EQ(meta.weight().data_ptr(), nullptr);
}

}  // namespace
}  // namespace ember
