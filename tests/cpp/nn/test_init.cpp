// nn::init (src/nn/init.cpp): exact tests of the deterministic fills and of calculate_gain /
// fans (numbers printed by PyTorch 1.13), statistical tests of the random fills on large tensors
// (moments, bounds, the truncated normal's CDF), orthogonality of orthogonal_ and its QR against
// a Householder reference, erfinv against mpmath and torch.erfinv, PyTorch's errors and
// warnings, no autograd history, generators, and meta tensors (checked, never touched).
#include <cmath>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/nn/init.h"
#include "ember/warning.h"
#include "nn/init_math.h"

namespace ember {
namespace {

namespace init = nn::init;
using testing::expect_error;
using testing::expect_values;

struct Moments {
  double mean = 0, std = 0, min = 0, max = 0;
};

Moments moments(const Tensor& t) {
  const auto v = testing::values(t);
  Moments m;
  m.min = *std::min_element(v.begin(), v.end());
  m.max = *std::max_element(v.begin(), v.end());
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.std += (x - m.mean) * (x - m.mean);
  m.std = std::sqrt(m.std / static_cast<double>(v.size() - 1));
  return m;
}

Tensor meta(IntArrayRef sizes) { return empty(sizes, TensorOptions(kFloat32).device(kMeta)); }

// ---- gains and fans ----

TEST(NnInit, CalculateGainMatchesTorch) {
  for (const char* n : {"linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                        "conv_transpose3d", "sigmoid"}) {
    EXPECT_EQ(init::calculate_gain(n), 1.0) << n;
  }
  EXPECT_DOUBLE_EQ(init::calculate_gain("tanh"), 1.6666666666666667);
  EXPECT_DOUBLE_EQ(init::calculate_gain("relu"), 1.4142135623730951);
  EXPECT_DOUBLE_EQ(init::calculate_gain("leaky_relu"), 1.4141428569978354);
  EXPECT_DOUBLE_EQ(init::calculate_gain("leaky_relu", 0.2), 1.3867504905630728);
  EXPECT_DOUBLE_EQ(init::calculate_gain("leaky_relu", 1), 1.0);
  EXPECT_DOUBLE_EQ(init::calculate_gain("leaky_relu", std::sqrt(5.0)), 0.5773502691896257);
  EXPECT_DOUBLE_EQ(init::calculate_gain("selu"), 0.75);
  EXPECT_EQ(init::calculate_gain("relu", 3.0), init::calculate_gain("relu"));  // param ignored
  expect_error([] { init::calculate_gain("foo"); }, "Unsupported nonlinearity foo", ErrorKind::Value);
  expect_error([] { init::calculate_gain("leaky_relu", true); }, "negative_slope True not a valid number",
               ErrorKind::Value);
}

TEST(NnInit, Fans) {
  EXPECT_EQ(init::_calculate_fan_in_and_fan_out(empty({4, 3, 5, 2})), std::make_pair(int64_t{30}, int64_t{40}));
  EXPECT_EQ(init::_calculate_fan_in_and_fan_out(empty({5, 3})), std::make_pair(int64_t{3}, int64_t{5}));
  EXPECT_EQ(init::_calculate_fan_in_and_fan_out(meta({7, 2})), std::make_pair(int64_t{2}, int64_t{7}));
  EXPECT_EQ(init::_calculate_correct_fan(empty({5, 3}), "fan_in"), 3);
  EXPECT_EQ(init::_calculate_correct_fan(empty({5, 3}), "FAN_OUT"), 5);
  expect_error([] { init::_calculate_fan_in_and_fan_out(empty({3})); },
               "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
               ErrorKind::Value);
  expect_error([] { init::_calculate_correct_fan(empty({5, 3}), "FAN_AVG"); },
               "Mode fan_avg not supported, please use one of ['fan_in', 'fan_out']", ErrorKind::Value);
}

// ---- deterministic fills ----

TEST(NnInit, ConstantOnesZerosEye) {
  Tensor t = empty({2, 3});
  EXPECT_EQ(&init::constant_(t, 0.3), &t);
  expect_values(t, {2, 3}, std::vector<double>(6, 0.3), 1e-7, 0);
  init::ones_(t);
  expect_values(t, {2, 3}, std::vector<double>(6, 1.0), 0, 0);
  init::zeros_(t);
  expect_values(t, {2, 3}, std::vector<double>(6, 0.0), 0, 0);
  Tensor e = full({2, 3}, 5.0);
  init::eye_(e);
  expect_values(e, {2, 3}, {1, 0, 0, 0, 1, 0}, 0, 0);
  Tensor tall = full({3, 2}, 7, kInt64);
  init::eye_(tall);
  EXPECT_EQ(tall.dtype(), kInt64);
  expect_values(tall, {3, 2}, {1, 0, 0, 1, 0, 0}, 0, 0);
  // A transposed view and a slice of a bigger buffer: only the tensor's own elements change.
  Tensor base = full({4, 6}, 9.0);
  Tensor view = base.slice(0, 1, 4).slice(1, 0, 6, 2).t();  // [3, 3], strides (2, 6)
  init::eye_(view);
  expect_values(view, {3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1}, 0, 0);
  expect_values(base.select(0, 0), {6}, std::vector<double>(6, 9.0), 0, 0);
  expect_values(base.select(1, 1), {4}, std::vector<double>(4, 9.0), 0, 0);
  Tensor none = empty({0, 3});
  EXPECT_NO_THROW(init::eye_(none));
  expect_error([] { Tensor x = empty({2, 2, 2}); init::eye_(x); }, "Only tensors with 2 dimensions are supported",
               ErrorKind::Value);
}

TEST(NnInit, FillsRecordNoHistory) {
  Tensor w = empty({3, 4}).requires_grad_();
  init::kaiming_uniform_(w, std::sqrt(5.0));
  init::eye_(w);
  init::trunc_normal_(w);
  init::orthogonal_(w);
  EXPECT_TRUE(w.is_leaf());
  EXPECT_TRUE(w.requires_grad());
  EXPECT_EQ(w.grad_fn(), nullptr);
  EXPECT_GE(w.version(), 4u);
  // The weight still trains afterwards.
  (w * 2).sum().backward();
  expect_values(w.grad(), {3, 4}, std::vector<double>(12, 2.0), 0, 0);
}

// ---- random fills ----

TEST(NnInit, UniformAndNormal) {
  Tensor t = empty({400, 500});
  init::uniform_(t, -2.0, 3.0);
  Moments m = moments(t);
  EXPECT_GE(m.min, -2.0);
  EXPECT_LT(m.max, 3.0);
  EXPECT_NEAR(m.mean, 0.5, 0.02);
  EXPECT_NEAR(m.std, 5.0 / std::sqrt(12.0), 0.01);
  init::normal_(t, 1.5, 0.5);
  m = moments(t);
  EXPECT_NEAR(m.mean, 1.5, 0.005);
  EXPECT_NEAR(m.std, 0.5, 0.005);
  // Defaults U(0, 1), N(0, 1); float64 and float16 tensors.
  Tensor d = empty({100000}, kFloat64);
  m = moments(init::uniform_(d));
  EXPECT_NEAR(m.mean, 0.5, 0.01);
  m = moments(init::normal_(d));
  EXPECT_NEAR(m.std, 1.0, 0.01);
  Tensor h = empty({100000}, kFloat16);
  m = moments(init::normal_(h, 0, 2));
  EXPECT_NEAR(m.std, 2.0, 0.03);
  expect_error([] { Tensor i = empty({3}, kInt64); init::uniform_(i); },
               "\"check_uniform_bounds\" not implemented for 'Long'");
  expect_error([] { Tensor i = empty({3}, kInt64); init::normal_(i); },
               "\"normal_kernel_cpu\" not implemented for 'Long'");
}

TEST(NnInit, GeneratorsMakeFillsReproducible) {
  Generator g1, g2;
  g1.manual_seed(7);
  g2.manual_seed(7);
  Tensor a = empty({50, 40}), b = empty({50, 40});
  init::trunc_normal_(a, 0, 1, -2, 2, &g1);
  init::trunc_normal_(b, 0, 1, -2, 2, &g2);
  EXPECT_TRUE(equal(a, b));
  init::orthogonal_(a, 1.0, &g1);
  init::orthogonal_(b, 1.0, &g2);
  EXPECT_TRUE(equal(a, b));
  init::sparse_(a, 0.3, 0.01, &g1);
  init::sparse_(b, 0.3, 0.01, &g2);
  EXPECT_TRUE(equal(a, b));
  manual_seed(3);
  init::kaiming_normal_(a);
  manual_seed(3);
  init::kaiming_normal_(b);
  EXPECT_TRUE(equal(a, b));
}

TEST(NnInit, XavierAndKaiming) {
  Tensor w = empty({300, 200, 3});  // fan_in 600, fan_out 900
  init::xavier_uniform_(w, 2.0);
  const double xa = 2.0 * std::sqrt(6.0 / 1500.0);
  Moments m = moments(w);
  EXPECT_GE(m.min, -xa);
  EXPECT_LE(m.max, xa);
  EXPECT_NEAR(m.std, xa / std::sqrt(3.0), 0.01 * xa);
  init::xavier_normal_(w);
  EXPECT_NEAR(moments(w).std, std::sqrt(2.0 / 1500.0), 0.005 * std::sqrt(2.0 / 1500.0) * 3);
  // nn.Linear's default: kaiming_uniform_(a=sqrt(5)) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
  Tensor lin = empty({500, 400});
  init::kaiming_uniform_(lin, std::sqrt(5.0));
  m = moments(lin);
  EXPECT_GE(m.min, -1 / std::sqrt(400.0));
  EXPECT_LE(m.max, 1 / std::sqrt(400.0));
  EXPECT_NEAR(m.max, 1 / std::sqrt(400.0), 1e-4);
  EXPECT_NEAR(m.std, 1 / std::sqrt(400.0) / std::sqrt(3.0), 3e-4);
  init::kaiming_normal_(lin, 0, "fan_out", "relu");
  m = moments(lin);
  EXPECT_NEAR(m.mean, 0, 1e-3);
  EXPECT_NEAR(m.std, std::sqrt(2.0) / std::sqrt(500.0), 5e-4);
  init::kaiming_uniform_(lin, 0, "fan_in", "relu");
  EXPECT_LE(moments(lin).max, std::sqrt(2.0) * std::sqrt(3.0 / 400.0));
  // Zero elements: PyTorch's warning, nothing else (not even the fan check).
  for (const std::vector<int64_t>& sizes : {std::vector<int64_t>{0}, std::vector<int64_t>{0, 5}}) {
    Tensor z = ember::empty(sizes);
    WarningCapture cap;
    EXPECT_EQ(&init::kaiming_uniform_(z), &z);
    init::kaiming_normal_(z);
    ASSERT_EQ(cap.messages.size(), 2u);
    EXPECT_EQ(cap.messages[0], "Initializing zero-element tensors is a no-op");
  }
  expect_error([] { Tensor v = empty({3}); init::kaiming_uniform_(v); },
               "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
               ErrorKind::Value);
  expect_error([] { Tensor v = empty({3, 2}); init::kaiming_normal_(v, 0, "fan_avg"); },
               "Mode fan_avg not supported, please use one of ['fan_in', 'fan_out']", ErrorKind::Value);
  expect_error([] { Tensor v = empty({3, 2}); init::kaiming_normal_(v, 0, "fan_in", "swish"); },
               "Unsupported nonlinearity swish", ErrorKind::Value);
  expect_error([] { Tensor v = empty({0, 0}); init::xavier_uniform_(v); }, "float division by zero");
}

// The truncated normal's moments and CDF (closed forms), on a standard and a shifted case.
TEST(NnInit, TruncNormalDistribution) {
  const auto phi = [](double x) { return std::exp(-x * x / 2) / std::sqrt(2 * M_PI); };
  const auto Phi = [](double x) { return 0.5 * (1 + std::erf(x / std::sqrt(2.0))); };
  struct Case {
    double mean, std, a, b;
  };
  for (const Case c : {Case{0, 1, -2, 2}, Case{0.5, 2.0, -1.0, 4.0}, Case{0, 0.02, -0.04, 0.04}}) {
    Tensor t = empty({300000}, kFloat64);
    init::trunc_normal_(t, c.mean, c.std, c.a, c.b);
    const double al = (c.a - c.mean) / c.std, be = (c.b - c.mean) / c.std;
    const double z = Phi(be) - Phi(al);
    const double mean = c.mean + c.std * (phi(al) - phi(be)) / z;
    const double var = c.std * c.std *
                       (1 + (al * phi(al) - be * phi(be)) / z - std::pow((phi(al) - phi(be)) / z, 2));
    const Moments m = moments(t);
    EXPECT_GE(m.min, c.a);
    EXPECT_LE(m.max, c.b);
    EXPECT_NEAR(m.mean, mean, 5 * std::sqrt(var / 300000));
    EXPECT_NEAR(m.std, std::sqrt(var), 0.01 * std::sqrt(var));
    // Empirical CDF at a few points against (Phi((x - mean) / std) - Phi(al)) / z.
    const auto v = testing::values(t);
    for (double q : {0.1, 0.3, 0.5, 0.7, 0.9}) {
      const double x = c.a + q * (c.b - c.a);
      const double expected = (Phi((x - c.mean) / c.std) - Phi(al)) / z;
      const double got = static_cast<double>(std::count_if(v.begin(), v.end(), [&](double e) { return e <= x; })) /
                         static_cast<double>(v.size());
      EXPECT_NEAR(got, expected, 0.005) << "x=" << x;
    }
  }
  // float32 and bfloat16 tensors stay in bounds.
  for (ScalarType dt : {kFloat32, kBFloat16}) {
    Tensor t = empty({20000}, dt);
    init::trunc_normal_(t, 0, 1, -1.5, 0.5);
    const Moments m = moments(t);
    EXPECT_GE(m.min, -1.5);
    EXPECT_LE(m.max, 0.5);
  }
}

TEST(NnInit, TruncNormalWarningsAndErrors) {
  Tensor t = empty({10});
  {
    WarningCapture cap;
    init::trunc_normal_(t, 5.0, 1.0, -2, 2);
    ASSERT_EQ(cap.messages.size(), 1u);
    EXPECT_EQ(cap.messages[0],
              "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of "
              "values may be incorrect.");
    const Moments m = moments(t);
    EXPECT_GE(m.min, -2);
    EXPECT_LE(m.max, 2);
  }
  expect_error([&] { init::trunc_normal_(t, 0, 1, 2, -2); },
               "uniform_ expects to return a [from, to) range, but found from=0.9545 > to=-0.9545");
  expect_error([&] { init::trunc_normal_(t, 0, 0); }, "float division by zero");
  expect_error([] { Tensor i = empty({3}, kInt64); init::trunc_normal_(i); },
               "\"check_uniform_bounds\" not implemented for 'Long'");
}

// ---- erfinv ----

TEST(NnInit, ErfinvMatchesMpmath) {
  // (y, erfinv(y)) by mpmath at 40 digits, rounded to double.
  const std::pair<double, double> table[] = {
      {1e-300, 8.86226925452758e-301},         {1e-20, 8.86226925452758e-21},
      {1e-08, 8.86226925452758e-09},           {0.001, 0.0008862271574665521},
      {0.1, 0.08885599049425769},              {0.25, 0.2253120550121781},
      {0.4, 0.37080715859355795},              {0.5, 0.4769362762044699},
      {0.5000000001, 0.4769362763157284},      {0.6, 0.5951160814499948},
      {0.75, 0.8134198475976185},              {0.9, 1.1630871536766743},
      {0.95, 1.3859038243496777},              {0.99, 1.8213863677184494},
      {0.999, 2.3267537655135246},             {0.999999, 3.458910737275499},
      {0.9999999999, 4.572824958544925},       {0.99999999999999, 5.4725525174145355},
      {0.9999999999999998, 5.805018683193453}, {0.9999999999999999, 5.8635847487551676},
  };
  for (const auto& [y, x] : table) {
    EXPECT_NEAR(init::detail::erfinv(y), x, 4e-16 * x) << "y=" << y;
    EXPECT_NEAR(init::detail::erfinv(-y), -x, 4e-16 * x) << "y=" << -y;
  }
  // torch.erfinv (float64) agrees where it is accurate; in the far tails it is off by up to
  // 6e-5 relative (erfinv(1 - 2^-53) = 5.863948532247121 there), ember keeps full precision.
  EXPECT_NEAR(init::detail::erfinv(0.999), 2.3267537655135153, 1e-14);
  // Special values.
  EXPECT_EQ(init::detail::erfinv(1.0), INFINITY);
  EXPECT_EQ(init::detail::erfinv(-1.0), -INFINITY);
  EXPECT_TRUE(std::isnan(init::detail::erfinv(1.5)));
  EXPECT_TRUE(std::isnan(init::detail::erfinv(-1.0000001)));
  EXPECT_TRUE(std::isnan(init::detail::erfinv(NAN)));
  EXPECT_EQ(init::detail::erfinv(0.0), 0.0);
  EXPECT_TRUE(std::signbit(init::detail::erfinv(-0.0)));
  // Round trip on a dense grid.
  for (int i = -999; i <= 999; ++i) {
    const double y = i / 1000.0;
    EXPECT_NEAR(std::erf(init::detail::erfinv(y)), y, 2e-16) << "y=" << y;
  }
}

// ---- orthogonal_ ----

// max |A A^T - gain^2 I| (rows <= cols) or |A^T A - gain^2 I| over a [rows, cols] matrix.
double orthogonality_error(const Tensor& t, double gain) {
  const Tensor m = t.reshape({t.size(0), -1}).to(kFloat64);
  const bool wide = m.size(0) <= m.size(1);
  const Tensor gram = wide ? m.mm(m.t()) : m.t().mm(m);
  const Tensor id = eye(gram.size(0), kFloat64) * (gain * gain);
  return (gram - id).abs().max().item<double>();
}

TEST(NnInit, OrthogonalIsOrthogonal) {
  const std::vector<std::vector<int64_t>> shapes = {{6, 6}, {10, 4}, {4, 10}, {3, 2, 5}, {1, 7}, {7, 1}};
  for (const auto& sizes : shapes) {
    Tensor t = ember::empty(sizes, kFloat64);
    init::orthogonal_(t);
    EXPECT_LT(orthogonality_error(t, 1.0), 1e-12) << size_str(sizes);
    init::orthogonal_(t, 2.5);
    EXPECT_LT(orthogonality_error(t, 2.5), 1e-11) << size_str(sizes);
  }
  Tensor f = empty({64, 32});
  init::orthogonal_(f, init::calculate_gain("tanh"));
  EXPECT_LT(orthogonality_error(f, 5.0 / 3), 1e-5);
  // A transposed tensor is filled through a view of its own shape.
  Tensor base = empty({5, 8});
  Tensor tr = base.t();
  init::orthogonal_(tr);
  EXPECT_LT(orthogonality_error(tr, 1.0), 1e-5);
  Tensor none = empty({0, 3});
  EXPECT_NO_THROW(init::orthogonal_(none));
  expect_error([] { Tensor v = empty({3}); init::orthogonal_(v); },
               "Only tensors with 2 or more dimensions are supported", ErrorKind::Value);
  expect_error([] { Tensor v = empty({2, 3}, kInt64); init::orthogonal_(v); },
               "\"normal_kernel_cpu\" not implemented for 'Long'");
}

// The sign fix makes the factorisation unique: LAPACK's Q equals the Householder reference's.
TEST(NnInit, QrMatchesHouseholderReference) {
  Generator gen;
  gen.manual_seed(11);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{5, 5}, {9, 4}, {30, 17}, {3, 1}}) {
    const Tensor a = randn({m * n}, kFloat64, &gen);
    const std::vector<double> av(a.data_ptr<double>(), a.data_ptr<double>() + m * n);
    const auto q = init::detail::signed_qr_q(av, m, n);
    const auto q_ref = init::detail::signed_qr_q_ref(av, m, n);
    ASSERT_EQ(q.size(), q_ref.size());
    for (size_t i = 0; i < q.size(); ++i) EXPECT_NEAR(q[i], q_ref[i], 1e-12) << m << "x" << n << " @" << i;
    // Q R = A with R = Q^T A upper triangular with a positive diagonal.
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t k = 0; k < n; ++k) {
        double r = 0;
        for (int64_t i = 0; i < m; ++i) r += q[k * m + i] * av[j * m + i];
        if (k > j) {
          EXPECT_NEAR(r, 0, 1e-12);
        } else if (k == j) {
          EXPECT_GT(r, 0);
        }
      }
    }
  }
}

// ---- sparse_ ----

TEST(NnInit, Sparse) {
  Tensor t = empty({50, 400});
  init::sparse_(t, 0.1);
  const Tensor zeros_per_column = (t == 0).sum({0});
  expect_values(zeros_per_column, {400}, std::vector<double>(400, 5.0), 0, 0);
  const Moments m = moments(t.flatten().index({t.flatten() != 0}));
  EXPECT_NEAR(m.std, 0.01, 3e-4);
  init::sparse_(t, 0.95, 1.0);  // ceil(47.5) = 48 zeros per column
  expect_values((t == 0).sum({0}), {400}, std::vector<double>(400, 48.0), 0, 0);
  init::sparse_(t, 2.0);  // more than the rows: every row
  EXPECT_EQ((t == 0).sum().item<int64_t>(), 50 * 400);
  init::sparse_(t, -0.04);  // Python's randperm(rows)[:-2]: all but two rows
  expect_values((t == 0).sum({0}), {400}, std::vector<double>(400, 48.0), 0, 0);
  expect_error([] { Tensor v = empty({3, 2, 2}); init::sparse_(v, 0.5); },
               "Only tensors with 2 dimensions are supported", ErrorKind::Value);
}

// ---- meta ----

TEST(NnInit, MetaTensorsAreCheckedNotTouched) {
  Tensor t = meta({300, 200});
  EXPECT_EQ(&init::uniform_(t), &t);
  init::normal_(t);
  init::trunc_normal_(t, 0, 0.02, -0.04, 0.04);
  init::constant_(t, 2);
  init::ones_(t);
  init::zeros_(t);
  init::eye_(t);
  init::xavier_uniform_(t);
  init::xavier_normal_(t);
  init::kaiming_uniform_(t, std::sqrt(5.0));
  init::kaiming_normal_(t, 0, "fan_out", "relu");
  init::orthogonal_(t, 2.0);
  init::sparse_(t, 0.5);
  EXPECT_TRUE(t.is_meta());
  EXPECT_EQ(t.sizes(), IntArrayRef({300, 200}));
  Tensor conv = meta({8, 4, 3, 3});
  EXPECT_NO_THROW(init::orthogonal_(conv));
  EXPECT_NO_THROW(init::kaiming_uniform_(conv));
  // Errors still fire on meta tensors.
  expect_error([] { Tensor v = meta({3}); init::xavier_uniform_(v); },
               "Fan in and fan out can not be computed", ErrorKind::Value);
}

}  // namespace
}  // namespace ember
