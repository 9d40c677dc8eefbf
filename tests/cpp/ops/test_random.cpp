// Random fills, random factories and dropout. Statistics are computed here from the raw data
// (no reductions), with tolerances of 5 standard errors from the central limit theorem; every
// test seeds its generator, so the outcomes are fixed, not flaky.
#include <cmath>
#include <cstring>
#include <map>

#include "backends/cpu/random_kernels.h"
#include "ops/elementwise.h"
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;

std::vector<double> raw(const Tensor& t) { return testing::values(t); }

struct Moments {
  double mean = 0, var = 0;
};
Moments moments(const std::vector<double>& v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= static_cast<double>(v.size() - 1);
  return m;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.data_ptr(), b.data_ptr(), a.nbytes()) == 0;
}

// Restores the thread count after tests that change it.
struct ThreadsGuard {
  int prev = get_num_threads();
  explicit ThreadsGuard(int n) { set_num_threads(n); }
  ~ThreadsGuard() { set_num_threads(prev); }
};

constexpr int64_t kN = 100000;

// ---- the bit source ----

TEST(Random, PhiloxKnownAnswers) {
  // Random123's published known-answer vectors for Philox4x32-10.
  using A4 = std::array<uint32_t, 4>;
  EXPECT_EQ(cpu::philox4x32_10({0, 0, 0, 0}, {0, 0}), (A4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(cpu::philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (A4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(cpu::philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (A4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

// ---- seeding ----

TEST(Random, SameSeedSameNumbers) {
  manual_seed(123);
  Tensor a = rand({1000});
  Tensor b = randn({1000});
  manual_seed(123);
  Tensor a2 = rand({1000});
  Tensor b2 = randn({1000});
  EXPECT_TRUE(same_bytes(a, a2));
  EXPECT_TRUE(same_bytes(b, b2));
  manual_seed(124);
  EXPECT_FALSE(same_bytes(a, rand({1000})));
  // Consecutive calls draw different numbers.
  manual_seed(123);
  Tensor c = rand({1000});
  EXPECT_FALSE(same_bytes(c, rand({1000})));
  EXPECT_EQ(default_generator().initial_seed(), 123u);
}

TEST(Random, ShorterDrawIsAPrefix) {
  manual_seed(5);
  auto five = raw(rand({5}, kFloat64));
  manual_seed(5);
  auto three = raw(rand({3}, kFloat64));
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(three[i], five[i]);
}

TEST(Random, OwnGeneratorLeavesTheDefaultAlone) {
  Generator g(42);
  Generator h;
  h.manual_seed(42);
  EXPECT_TRUE(same_bytes(randn({64}, {}, &g), randn({64}, {}, &h)));
  manual_seed(9);
  Tensor x = rand({16});
  manual_seed(9);
  randint(0, 10, {100}, {}, &g);  // draws from g only
  Tensor t = empty({8});
  uniform_(t, 0, 1, &g);
  normal_(t, 0, 1, &g);
  bernoulli_(t, 0.5, &g);
  EXPECT_TRUE(same_bytes(x, rand({16})));
}

TEST(Random, SameNumbersForAnyThreadCount) {
  // Sizes well above the loop's grain (32768), so two threads really split the work; the last
  // cases are non-contiguous and odd-sized.
  auto draw_all = [] {
    manual_seed(2024);
    std::vector<Tensor> r;
    r.push_back(rand({300001}));
    r.push_back(randn({300001}, kFloat64));
    r.push_back(randint(-5, 1000, {200000}));
    Tensor b = empty({200000}, kBool);
    r.push_back(bernoulli_(b, 0.3));
    r.push_back(bernoulli(rand({200000})));
    r.push_back(std::get<1>(native_dropout(ones({250000}), 0.4, true)));
    Tensor strided = empty_strided({400, 500}, {1, 400});  // transposed layout
    r.push_back(normal_(strided, 1, 2));
    Tensor h = empty({99999}, kFloat16);
    r.push_back(uniform_(h, -2, 2));
    return r;
  };
  std::vector<Tensor> one, two;
  {
    ThreadsGuard g(1);
    one = draw_all();
  }
  {
    ThreadsGuard g(2);
    two = draw_all();
  }
  ASSERT_EQ(one.size(), two.size());
  for (size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(same_bytes(one[i], two[i])) << "draw " << i;
}

// ---- uniform ----

TEST(Uniform, RangeAndMoments) {
  manual_seed(1);
  for (ScalarType dt : {kFloat32, kFloat64}) {
    Tensor t = empty({kN}, dt);
    uniform_(t, -3, 5);
    auto v = raw(t);
    for (double x : v) ASSERT_TRUE(x >= -3 && x < 5) << x;
    // U(a, b): mean (a+b)/2, variance (b-a)^2/12; the sample variance's standard error is
    // sqrt((mu4 - sigma^4) / n) with mu4 = (b-a)^4 / 80.
    const double w = 8, var = w * w / 12, mu4 = std::pow(w, 4) / 80;
    Moments m = moments(v);
    EXPECT_NEAR(m.mean, 1.0, 5 * std::sqrt(var / kN));
    EXPECT_NEAR(m.var, var, 5 * std::sqrt((mu4 - var * var) / kN));
  }
  Tensor r = rand({kN});
  EXPECT_EQ(r.dtype(), kFloat32);
  auto v = raw(r);
  for (double x : v) ASSERT_TRUE(x >= 0 && x < 1);
  EXPECT_NEAR(moments(v).mean, 0.5, 5 * std::sqrt(1.0 / 12 / kN));
  // Deciles each hold a tenth of the samples (binomial standard error).
  std::vector<int> bins(10);
  for (double x : v) ++bins[static_cast<size_t>(x * 10)];
  for (int c : bins) EXPECT_NEAR(c, kN / 10, 5 * std::sqrt(kN * 0.1 * 0.9));
}

TEST(Uniform, ReducedPrecisionStaysBelowTo) {
  manual_seed(2);
  for (ScalarType dt : {kFloat16, kBFloat16}) {
    Tensor t = rand({kN}, dt);
    EXPECT_EQ(t.dtype(), dt);
    auto v = raw(t);
    // Drawn with as many bits as the dtype's mantissa holds, so 1.0 never appears.
    for (double x : v) ASSERT_TRUE(x >= 0 && x < 1) << x;
    EXPECT_NEAR(moments(v).mean, 0.5, 5 * std::sqrt(1.0 / 12 / kN) + 1e-3);
    std::map<double, int> distinct;
    for (double x : v) ++distinct[x];
    EXPECT_EQ(static_cast<int>(distinct.size()), dt == kFloat16 ? 2048 : 256);
  }
}

TEST(Uniform, Errors) {
  Tensor t = zeros({3});
  expect_error([&] { uniform_(t, 2, 1); }, "uniform_ expects to return a [from, to) range, but found from=2 > to=1");
  Tensor l = zeros({3}, kInt64);
  expect_error([&] { uniform_(l); }, "\"check_uniform_bounds\" not implemented for 'Long'");
  Tensor b = zeros({3}, kBool);
  expect_error([&] { uniform_(b); }, "\"check_uniform_bounds\" not implemented for 'Bool'");
  Tensor h = zeros({3}, kFloat16);
  expect_error([&] { uniform_(h, -1e6, 1e6); }, "from is out of bounds for c10::Half");
  expect_error([&] { uniform_(h, -6e4, 6e4); },
               "uniform_ expects to-from <= std::numeric_limits<Half>::max(), but found to=60000 and "
               "from=-60000 which result in to-from to exceed the limit");
  expect_error([&] { uniform_(t, -3e38, 3e38); },
               "uniform_ expects to-from <= std::numeric_limits<Float>::max(), but found to=3e+38 and "
               "from=-3e+38 which result in to-from to exceed the limit");
  expect_error([&] { uniform_(t, -INFINITY, 0); }, "from is out of bounds for float");
  expect_error([&] { uniform_(t, 0, NAN); }, "to is out of bounds for float");
  Tensor bf = zeros({3}, kBFloat16);
  expect_error([&] { uniform_(bf, -1e39, 0); }, "from is out of bounds for c10::BFloat16");
  Tensor d = zeros({3}, kFloat64);
  expect_error([&] { uniform_(d, -INFINITY, 0); }, "from is out of bounds for double");
  Tensor expanded = zeros({3}).expand({2, 3});
  expect_error([&] { uniform_(expanded); }, "more than one element of the written-to tensor refers to a single memory location");
  expect_error([] { rand({2}, kInt64); }, "\"check_uniform_bounds\" not implemented for 'Long'");
  testing::expect_values(t, {3}, {0, 0, 0});  // failed calls wrote nothing
}

// ---- normal ----

TEST(Normal, Moments) {
  manual_seed(3);
  for (ScalarType dt : {kFloat32, kFloat64}) {
    Tensor t = empty({kN}, dt);
    normal_(t, 2, 3);
    Moments m = moments(raw(t));
    // N(mu, s^2): the mean's standard error is s / sqrt(n), the variance's s^2 sqrt(2 / n).
    EXPECT_NEAR(m.mean, 2, 5 * 3 / std::sqrt(kN));
    EXPECT_NEAR(m.var, 9, 5 * 9 * std::sqrt(2.0 / kN));
  }
  auto v = raw(randn({kN}));
  Moments m = moments(v);
  EXPECT_NEAR(m.mean, 0, 5 / std::sqrt(kN));
  EXPECT_NEAR(m.var, 1, 5 * std::sqrt(2.0 / kN));
  // Shape, not only moments: P(|z| < 1) = 0.682689, P(|z| < 2) = 0.954500.
  double within1 = 0, within2 = 0;
  for (double x : v) {
    within1 += std::abs(x) < 1;
    within2 += std::abs(x) < 2;
  }
  EXPECT_NEAR(within1 / kN, 0.682689, 5 * std::sqrt(0.682689 * 0.317311 / kN));
  EXPECT_NEAR(within2 / kN, 0.954500, 5 * std::sqrt(0.9545 * 0.0455 / kN));
  // Neighbouring elements (the two halves of one Box-Muller pair) are uncorrelated.
  double cov = 0;
  for (int64_t i = 0; i + 1 < kN; i += 2) cov += v[static_cast<size_t>(i)] * v[static_cast<size_t>(i + 1)];
  EXPECT_NEAR(cov / (kN / 2), 0, 5 / std::sqrt(kN / 2));
}

TEST(Normal, ReducedPrecisionAndZeroStd) {
  manual_seed(4);
  for (ScalarType dt : {kFloat16, kBFloat16}) {
    Tensor t = randn({kN}, dt);
    EXPECT_EQ(t.dtype(), dt);
    Moments m = moments(raw(t));
    EXPECT_NEAR(m.mean, 0, 5 / std::sqrt(kN));
    EXPECT_NEAR(m.var, 1, 5 * std::sqrt(2.0 / kN) + 0.01);
  }
  Tensor c = empty({5});
  normal_(c, 1.5, 0);
  testing::expect_values(c, {5}, {1.5, 1.5, 1.5, 1.5, 1.5});
}

TEST(Normal, Errors) {
  Tensor t = zeros({3});
  expect_error([&] { normal_(t, 0, -1); }, "normal expects std >= 0.0, but found std -1");
  expect_error([&] { normal_(t, 0, NAN); }, "normal expects std >= 0.0, but found std nan");
  Tensor l = zeros({3}, kInt64);
  expect_error([&] { normal_(l); }, "\"normal_kernel_cpu\" not implemented for 'Long'");
  expect_error([&] { normal_(l, 0, -1); }, "normal expects std >= 0.0, but found std -1");  // std first
  expect_error([] { randn({3}, kBool); }, "\"normal_kernel_cpu\" not implemented for 'Bool'");
  testing::expect_values(t, {3}, {0, 0, 0});
}

// ---- bernoulli ----

TEST(Bernoulli, ScalarFrequencyEveryDtype) {
  manual_seed(5);
  for (ScalarType dt : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt8, kUInt8, kBool}) {
    Tensor t = empty({kN}, dt);
    Tensor& r = bernoulli_(t, 0.3);
    EXPECT_TRUE(r.is_same(t));
    double ones = 0;
    for (double x : raw(t)) {
      ASSERT_TRUE(x == 0 || x == 1) << x;
      ones += x;
    }
    EXPECT_NEAR(ones / kN, 0.3, 5 * std::sqrt(0.3 * 0.7 / kN)) << dtype_name(dt);
  }
  Tensor t = empty({1000});
  for (double x : raw(bernoulli_(t, 1))) ASSERT_EQ(x, 1);
  for (double x : raw(bernoulli_(t, 0))) ASSERT_EQ(x, 0);
  Tensor m = empty({7}, kInt32);
  EXPECT_EQ(m.bernoulli_(0.5).dtype(), kInt32);  // the method form
}

TEST(Bernoulli, FromProbabilities) {
  manual_seed(6);
  // Probabilities 0, 1, 0.25 repeating: exact where p is 0 or 1, a frequency where it is 0.25.
  const int64_t n = 3 * kN;
  std::vector<double> p(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) p[static_cast<size_t>(i)] = i % 3 == 0 ? 0 : i % 3 == 1 ? 1 : 0.25;
  for (ScalarType dt : {kFloat64, kFloat32, kFloat16, kBFloat16}) {
    Tensor probs = from_blob(p.data(), {n}, kFloat64).to(dt);
    Tensor out = bernoulli(probs);
    EXPECT_EQ(out.dtype(), dt);
    auto v = raw(out);
    double hits = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double x = v[static_cast<size_t>(i)];
      if (i % 3 == 0) {
        ASSERT_EQ(x, 0);
      } else if (i % 3 == 1) {
        ASSERT_EQ(x, 1);
      } else {
        hits += x;
      }
    }
    EXPECT_NEAR(hits / kN, 0.25, 5 * std::sqrt(0.25 * 0.75 / kN));
  }
  // Non-contiguous probabilities: a transposed view of a [2, 3] block.
  std::vector<float> block{0, 1, 0, 1, 0, 1};
  Tensor tp = from_blob(block.data(), {3, 2}, {1, 3}, kFloat32);
  testing::expect_values(bernoulli(tp), {3, 2}, {0, 1, 1, 0, 0, 1});
}

TEST(Bernoulli, Errors) {
  Tensor t = zeros({3});
  expect_error([&] { bernoulli_(t, 1.5); }, "bernoulli_ expects p to be in [0, 1], but got p=1.5");
  expect_error([&] { bernoulli_(t, -0.5); }, "bernoulli_ expects p to be in [0, 1], but got p=-0.5");
  expect_error([] { bernoulli(tensor({0.5, 1.5})); }, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
  expect_error([] { bernoulli(tensor({0.5, -0.5})); }, "found -0.5");
  expect_error([] { bernoulli(tensor({0.5, NAN})); }, "Expected p_in >= 0 && p_in <= 1 to be true");
  expect_error([] { bernoulli(tensor({1, 0})); }, "\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'");
  expect_error([] { bernoulli(tensor({true})); }, "\"bernoulli_tensor_cpu_p_\" not implemented for 'Bool'");
  Tensor expanded = zeros({1}).expand({4});
  expect_error([&] { bernoulli_(expanded, 0.5); }, "more than one element of the written-to tensor");
  testing::expect_values(t, {3}, {0, 0, 0});
}

// ---- random_ and randint ----

TEST(RandomInt, RangeAndUniformCounts) {
  manual_seed(7);
  Tensor r = randint(-3, 7, {kN});
  EXPECT_EQ(r.dtype(), kInt64);
  std::vector<int> counts(10);
  for (double x : raw(r)) {
    ASSERT_TRUE(x >= -3 && x < 7) << x;
    ++counts[static_cast<size_t>(x + 3)];
  }
  for (int c : counts) EXPECT_NEAR(c, kN / 10, 5 * std::sqrt(kN * 0.1 * 0.9));
  Tensor hi = randint(5, {1000});
  for (double x : raw(hi)) ASSERT_TRUE(x >= 0 && x < 5);
  Tensor in_place = empty({1000}, kInt16);
  EXPECT_TRUE(random_(in_place, 7).is_same(in_place));  // [0, 7)
  for (double x : raw(in_place)) ASSERT_TRUE(x >= 0 && x < 7);
  // A range that does not divide 2^64 (rejection sampling keeps it unbiased) and a huge one.
  Tensor big = randint(0, (int64_t{1} << 62) + 12345, {kN});
  double mean = moments(raw(big)).mean;
  const double range = std::ldexp(1.0, 62);
  EXPECT_NEAR(mean / range, 0.5, 5 * std::sqrt(1.0 / 12 / kN));
}

TEST(RandomInt, NoModuloBias) {
  // [0, 3 * 2^30): a plain `bits % range` over 32 bits would put half of the draws below 2^30.
  manual_seed(19);
  Tensor t = randint(0, int64_t{3} << 30, {kN});
  double low = 0;
  for (int64_t i = 0; i < kN; ++i) low += t.data_ptr<int64_t>()[i] < (int64_t{1} << 30);
  EXPECT_NEAR(low / kN, 1.0 / 3, 5 * std::sqrt(2.0 / 9 / kN));
  // The same in 64-bit units: [0, 3 * 2^62) is beyond int64, so shift it: [-2^62, 2^63).
  Tensor w = empty({kN}, kInt64);
  random_(w, -(int64_t{1} << 62), std::nullopt);  // 3 * 2^62 values
  low = 0;
  for (int64_t i = 0; i < kN; ++i) low += w.data_ptr<int64_t>()[i] < 0;
  EXPECT_NEAR(low / kN, 1.0 / 3, 5 * std::sqrt(2.0 / 9 / kN));
}

TEST(RandomInt, EveryDtype) {
  manual_seed(8);
  for (ScalarType dt : {kUInt8, kInt8, kInt16, kInt32, kInt64, kFloat32, kFloat64, kFloat16, kBFloat16}) {
    Tensor t = randint(-1 * is_signed(dt), 100, {20000}, dt);
    EXPECT_EQ(t.dtype(), dt);
    std::map<double, int> seen;
    for (double x : raw(t)) {
      ASSERT_EQ(x, std::floor(x));
      ASSERT_TRUE(x >= -1 && x < 100) << x;
      ++seen[x];
    }
    EXPECT_EQ(static_cast<int>(seen.size()), is_signed(dt) ? 101 : 100) << dtype_name(dt);
  }
  Tensor b = empty({1000}, kBool);
  random_(b, 0, 2);
  double ones = 0;
  for (double x : raw(b)) ones += x;
  EXPECT_NEAR(ones / 1000, 0.5, 5 * std::sqrt(0.25 / 1000));
}

TEST(RandomInt, FloatingBoundsRoundInward) {
  // Values PyTorch 1.13 produced for the same calls (its update_from / update_to).
  manual_seed(18);
  auto distinct = [](const Tensor& t) {
    std::map<double, int> m;
    for (double x : raw(t)) ++m[x];
    std::vector<double> keys;
    for (auto& [k, c] : m) keys.push_back(k);
    return keys;
  };
  Tensor f = empty({1000});
  random_(f, (int64_t{1} << 25) + 1, (int64_t{1} << 25) + 13);
  EXPECT_EQ(distinct(f), (std::vector<double>{33554436, 33554440, 33554444}));
  Tensor b = empty({1000}, kBFloat16);
  random_(b, -1001, -990);
  EXPECT_EQ(distinct(b), (std::vector<double>{-1000, -996, -992}));
  expect_error([&] { random_(f, (int64_t{1} << 25) + 1, (int64_t{1} << 25) + 7); },
               "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got "
               "from=33554436 >= to=33554436");
}

TEST(RandomInt, OpenEndedRanges) {
  manual_seed(9);
  Tensor i8 = empty({kN}, kInt8);
  random_(i8, 5, std::nullopt);  // [5, 127]
  std::map<double, int> seen;
  for (double x : raw(i8)) {
    ASSERT_TRUE(x >= 5 && x <= 127);
    ++seen[x];
  }
  EXPECT_EQ(seen.size(), 123u);
  Tensor h = empty({kN}, kFloat16);
  random_(h, 0, std::nullopt);  // [0, 2^11]: every value half still holds exactly
  for (double x : raw(h)) ASSERT_TRUE(x >= 0 && x <= 2048 && x == std::floor(x));
  Tensor all = empty({kN}, kInt64);
  random_(all, std::numeric_limits<int64_t>::lowest(), std::nullopt);  // every int64
  double negative = 0;
  for (int64_t i = 0; i < kN; ++i) negative += all.data_ptr<int64_t>()[i] < 0;
  EXPECT_NEAR(negative / kN, 0.5, 5 * std::sqrt(0.25 / kN));
  Tensor b = empty({64}, kBool);
  random_(b, 0, std::nullopt);
  for (double x : raw(b)) ASSERT_TRUE(x == 0 || x == 1);
}

TEST(RandomInt, Errors) {
  expect_error([] { randint(5, 5, {3}); }, "random_ expects 'from' to be less than 'to', but got from=5 >= to=5");
  expect_error([] { randint(0, 300, {3}, kUInt8); }, "to - 1 is out of bounds for unsigned char");
  expect_error([] { randint(-1, 3, {3}, kUInt8); }, "from is out of bounds for unsigned char");
  expect_error([] { randint(0, 3, {3}, kBool); }, "to - 1 is out of bounds for bool");
  expect_error([] { randint(0, int64_t{1} << 40, {3}, kInt32); }, "to - 1 is out of bounds for int");
  expect_error([] { randint(0, int64_t{1} << 30, {3}, kFloat16); }, "to - 1 is out of bounds for c10::Half");
  expect_error([] { randint(-40000, 0, {3}, kInt16); }, "from is out of bounds for short int");
  Tensor i8 = zeros({3}, kInt8);
  expect_error([&] { random_(i8, -200, 3); }, "from is out of bounds for signed char");
  expect_error([&] { random_(i8, 200, std::nullopt); }, "from is out of bounds for signed char");
  Tensor f = zeros({3});
  expect_error([&] { random_(f, int64_t{1} << 25, std::nullopt); },
               "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to "
               "dtype, but got from=33554432 > to_inc=16777216");
  Tensor h = zeros({3}, kFloat16);
  expect_error([&] { random_(h, std::numeric_limits<int64_t>::lowest(), 2); }, "from is out of bounds for c10::Half");
  Tensor d = zeros({1000}, kFloat64);  // double holds that bound: values spread over [-2^63, 2)
  random_(d, std::numeric_limits<int64_t>::lowest(), 2);
  for (double x : raw(d)) ASSERT_TRUE(x >= -0x1p63 && x < 2);
  Tensor expanded = zeros({1}, kInt64).expand({4});
  expect_error([&] { random_(expanded, 0, 3); }, "more than one element of the written-to tensor");
  testing::expect_values(i8, {3}, {0, 0, 0});
}

// ---- dropout ----

TEST(Dropout, EvalAndZeroProbabilityReturnTheInput) {
  Tensor x = rand({10});
  EXPECT_TRUE(dropout(x, 0.5, false).is_same(x));
  EXPECT_TRUE(dropout(x, 0, true).is_same(x));
  Tensor e = empty({0});
  EXPECT_TRUE(dropout(e, 0.5, true).is_same(e));
  expect_error([&] { dropout(x, 1.5, false); }, "dropout probability has to be between 0 and 1, but got 1.5");
  expect_error([&] { dropout(x, -0.1, true); }, "dropout probability has to be between 0 and 1, but got -0.1");
}

TEST(Dropout, ScalesKeptElementsAndMatchesTheMask) {
  manual_seed(10);
  for (ScalarType dt : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    Tensor x = randn({kN}, dt);
    auto [out, mask] = native_dropout(x, 0.3, true);
    EXPECT_EQ(out.dtype(), dt);
    EXPECT_EQ(mask.dtype(), kBool);
    auto xv = raw(x), ov = raw(out), mv = raw(mask);
    const double scale = static_cast<double>(static_cast<float>(1 / 0.7));
    double kept = 0;
    for (size_t i = 0; i < xv.size(); ++i) {
      if (mv[i] == 0) {
        ASSERT_EQ(ov[i], 0) << i;
      } else {
        const double expected = dt == kFloat64 ? xv[i] / 0.7 : xv[i] * scale;
        ASSERT_NEAR(ov[i], expected, std::abs(expected) * (dt == kFloat32 || dt == kFloat64 ? 1e-6 : 1e-2)) << i;
        kept += 1;
      }
    }
    EXPECT_NEAR(kept / kN, 0.7, 5 * std::sqrt(0.21 / kN));
  }
  // dropout draws the same mask as native_dropout from the same seed.
  Tensor x = randn({1000});
  manual_seed(11);
  Tensor y = dropout(x, 0.5, true);
  manual_seed(11);
  auto [y2, m2] = native_dropout(x, 0.5, true);
  EXPECT_TRUE(same_bytes(y, y2));
  for (double v : raw(y)) EXPECT_TRUE(v == 0 || std::abs(v) > 0);
}

TEST(Dropout, NonContiguousInputKeepsItsLayout) {
  manual_seed(12);
  Tensor x = empty_strided({300, 200}, {1, 300});
  normal_(x);
  auto [out, mask] = native_dropout(x, 0.5, true);
  EXPECT_EQ(out.strides().vec(), x.strides().vec());
  auto xv = raw(x), ov = raw(out), mv = raw(mask);
  for (size_t i = 0; i < xv.size(); ++i) ASSERT_FLOAT_EQ(ov[i], mv[i] ? xv[i] * 2 : 0) << i;
}

TEST(Dropout, EdgeCases) {
  const double nan = std::nan("");
  // p = 1 zeroes everything, but NaN * 0 stays NaN (as PyTorch).
  auto v = raw(dropout(tensor({nan, 1.0, -2.0}), 1.0, true));
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 0);
  EXPECT_EQ(v[2], 0);
  auto [o1, m1] = native_dropout(tensor({nan, 1.0}), 1.0, true);
  EXPECT_TRUE(std::isnan(raw(o1)[0]));
  testing::expect_values(m1, {2}, {0, 0});
  // Integer inputs: p = 1 multiplies by zero (fine), anything else needs a float result.
  Tensor ints = ones({3}, kInt64);
  Tensor z = dropout(ints, 1.0, true);
  EXPECT_EQ(z.dtype(), kInt64);
  testing::expect_values(z, {3}, {0, 0, 0});
  expect_error([&] { dropout(ints, 0.5, true); }, "result type Float can't be cast to the desired output type Long");
  expect_error([&] { native_dropout(ints, 0.5, true); }, "result type Float can't be cast to the desired output type Long");
  // Eval mode: a copy and an all-true mask; train unset means training.
  auto [c, m] = native_dropout(ints, 0.5, false);
  EXPECT_FALSE(c.is_same(ints));
  testing::expect_values(c, {3}, {1, 1, 1});
  testing::expect_values(m, {3}, {1, 1, 1});
  EXPECT_EQ(m.dtype(), kBool);
  auto [t, tm] = native_dropout(ones({4}), 0.0, std::nullopt);
  testing::expect_values(t, {4}, {1, 1, 1, 1});
  testing::expect_values(tm, {4}, {1, 1, 1, 1});
  // Empty: the input itself and an empty mask of the input's dtype.
  Tensor e = empty({0, 3});
  auto [eo, em] = native_dropout(e, 0.5, true);
  EXPECT_TRUE(eo.is_same(e));
  EXPECT_EQ(em.dtype(), kFloat32);
  EXPECT_EQ(em.sizes().vec(), (std::vector<int64_t>{0, 3}));
  expect_error([] { native_dropout(ones({3}), 1.5, true); }, "bernoulli_ expects p to be in [0, 1], but got p=-0.5");
}

// ---- layouts, 0-d, empty, meta ----

TEST(Random, FastKernelsMatchReferenceOnStridedTensors) {
  // A [40, 30] view with gaps (every other column of a [40, 60] block), and a transposed one.
  for (bool transposed : {false, true}) {
    for (ScalarType dt : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
      auto make = [&] {
        Tensor block = zeros({40 * 60}, dt);
        std::vector<int64_t> sizes{40, 30}, strides{60, 2};
        if (transposed) sizes = {30, 40}, strides = {2, 60};
        return ops::make_view(block, sizes, strides, 0);
      };
      Tensor a = make(), b = make();
      cpu::uniform_kernel(a, -1, 3, 77);
      cpu::uniform_kernel_ref(b, -1, 3, 77);
      EXPECT_TRUE(raw(a) == raw(b)) << "uniform " << dtype_name(dt);
      cpu::normal_kernel(a, 1, 2, 78);
      cpu::normal_kernel_ref(b, 1, 2, 78);
      EXPECT_TRUE(raw(a) == raw(b)) << "normal " << dtype_name(dt);
      cpu::bernoulli_scalar_kernel(a, 0.4, 79);
      cpu::bernoulli_scalar_kernel_ref(b, 0.4, 79);
      EXPECT_TRUE(raw(a) == raw(b)) << "bernoulli " << dtype_name(dt);
      // 32-bit and 64-bit units, with and without many rejections.
      for (uint64_t range : {uint64_t{1000}, (uint64_t{1} << 31) + 1, (uint64_t{1} << 40) + 7, (uint64_t{1} << 63) + 1}) {
        cpu::random_from_to_kernel(a, range, -500, 80);
        cpu::random_from_to_kernel_ref(b, range, -500, 80);
        EXPECT_TRUE(raw(a) == raw(b)) << "random " << range << " " << dtype_name(dt);
      }
      Tensor probs = make();
      cpu::uniform_kernel(probs, 0, 1, 81);
      cpu::bernoulli_tensor_kernel(a, probs, 82);
      cpu::bernoulli_tensor_kernel_ref(b, probs, 82);
      EXPECT_TRUE(raw(a) == raw(b)) << "bernoulli(probs) " << dtype_name(dt);
    }
  }
  // Large and contiguous, so that the fast kernel runs in parallel chunks with its caches.
  Tensor a = empty({200001}, kFloat64), b = empty({200001}, kFloat64);
  cpu::normal_kernel(a, 0, 1, 5);
  cpu::normal_kernel_ref(b, 0, 1, 5);
  EXPECT_TRUE(same_bytes(a, b));
  Tensor i = empty({200001}, kInt64), j = empty({200001}, kInt64);
  cpu::random_from_to_kernel(i, 0, 0, 6);  // range 0: all 2^64 values
  cpu::random_from_to_kernel_ref(j, 0, 0, 6);
  EXPECT_TRUE(same_bytes(i, j));
}

TEST(Random, GapsInStridedOutputsStayUntouched) {
  std::vector<float> buf(20, -7.f);
  Tensor every_other = from_blob(buf.data(), {10}, {2}, kFloat32);
  manual_seed(13);
  uniform_(every_other, 0, 1);
  for (size_t k = 0; k < 20; ++k) {
    if (k % 2) {
      EXPECT_EQ(buf[k], -7.f) << k;
    } else {
      EXPECT_TRUE(buf[k] >= 0 && buf[k] < 1) << k;
    }
  }
}

TEST(Random, ZeroDimEmptyAndMeta) {
  manual_seed(14);
  Tensor s = rand({});
  EXPECT_EQ(s.dim(), 0);
  const double v = s.item<double>();
  EXPECT_TRUE(v >= 0 && v < 1);
  // Empty and meta tensors draw nothing: the generator is where it was.
  manual_seed(15);
  Tensor expected = rand({8});
  manual_seed(15);
  Tensor e = rand({0, 4});
  EXPECT_EQ(e.sizes().vec(), (std::vector<int64_t>{0, 4}));
  Tensor m = randn({5, 2}, TensorOptions().device(kMeta));
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.sizes().vec(), (std::vector<int64_t>{5, 2}));
  {
    DeviceGuard g(kMeta);
    EXPECT_TRUE(rand({3}).is_meta());
    Tensor ri = randint(0, 10, {4});
    EXPECT_TRUE(ri.is_meta());
    EXPECT_EQ(ri.dtype(), kInt64);
    Tensor b = bernoulli(empty({6}));
    EXPECT_TRUE(b.is_meta());
    auto [o, mask] = native_dropout(empty({2, 3}), 0.5, true);
    EXPECT_TRUE(o.is_meta());
    EXPECT_TRUE(mask.is_meta());
    EXPECT_EQ(mask.dtype(), kBool);
    EXPECT_EQ(mask.sizes().vec(), (std::vector<int64_t>{2, 3}));
    EXPECT_TRUE(dropout(empty({4}), 0.5, true).is_meta());
    Tensor t = empty({3});
    expect_error([&] { uniform_(t, 3, 1); }, "uniform_ expects to return a [from, to) range, but found from=3 > to=1");
    expect_error([&] { normal_(t, 0, -1); }, "normal expects std >= 0.0, but found std -1");
    expect_error([] { randint(5, 1, {3}); }, "random_ expects 'from' to be less than 'to', but got from=5 >= to=1");
  }
  EXPECT_TRUE(same_bytes(rand({8}), expected));
}

TEST(Random, FailedCallsLeaveTheGeneratorAlone) {
  manual_seed(16);
  Tensor expected = rand({8});
  manual_seed(16);
  Tensor t = empty({4});
  expect_error([&] { uniform_(t, 1, 0); }, "uniform_ expects");
  expect_error([] { bernoulli(tensor({2.0})); }, "Expected p_in");
  expect_error([] { randint(3, 3, {2}); }, "random_ expects");
  EXPECT_TRUE(same_bytes(rand({8}), expected));
}

TEST(Random, InplaceOpsBumpTheVersion) {
  Tensor t = empty({4});
  uint32_t v = t.version();
  t.uniform_();
  t.normal_();
  t.bernoulli_();
  EXPECT_EQ(t.version(), v + 3);
}

TEST(Random, BoxedCalls) {
  manual_seed(17);
  Stack out = find_op("aten::randint", "low").call({Value(int64_t{0}), Value(int64_t{4}), Value(std::vector<int64_t>{6})});
  ASSERT_EQ(out.size(), 1u);
  Tensor r = out[0].to_tensor();
  EXPECT_EQ(r.dtype(), kInt64);  // the schema's default dtype=long
  for (double x : raw(r)) EXPECT_TRUE(x >= 0 && x < 4);
  Tensor t = zeros({5});
  out = find_op("aten::uniform_").call({Value(t), Value(2.0), Value(3.0)});
  for (double x : raw(t)) EXPECT_TRUE(x >= 2 && x < 3);
  out = find_op("aten::native_dropout").call({Value(ones({4})), Value(0.5), Value(true)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].to_tensor().dtype(), kBool);
}

}  // namespace
}  // namespace ember
