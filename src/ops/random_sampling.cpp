// randperm and multinomial: the sampling ops behind ember.utils.data's samplers and
// random_split. Checks and error texts as PyTorch 1.13's; the values come from the generator's
// engine under one lock per call (so a call's draws are one contiguous run of the stream).
#include "ember/ops/random_sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>
#include <vector>

#include "../dispatch/boxing.h"
#include "ember/ops/factory.h"
#include "factory_args.h"

namespace ember {

using dispatch::OpId;

namespace {

using ops::OptBool;
using ops::OptDevice;
using ops::OptDtype;
using ops::OptLayout;

// A uniform double in [0, 1) from the raw engine (the caller holds the generator's lock).
double uniform01(std::mt19937_64& engine) { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }

template <class T>
const char* int_type_name() {
  if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
  if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
  if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
  if constexpr (std::is_same_v<T, int32_t>) return "int";
  return "int64_t";
}

Tensor randperm_impl(int64_t n, Generator* gen, OptDtype dtype, OptLayout, OptDevice device, OptBool) {
  EMBER_CHECK(n >= 0, "Trying to create tensor with negative dimension ", n, ": [", n, "]");
  const ScalarType dt = dtype.value_or(kInt64);
  Tensor out = empty({n}, TensorOptions().dtype(dt).device(device));
  visit_dtype(dt, [&]<class T>() {
    if constexpr (std::is_same_v<T, bool>) {
      EMBER_FAIL("\"randperm\" not implemented for 'Bool'");
    } else {
      // PyTorch's limits: floating types up to the last exactly representable count (BFloat16
      // is not checked there either), integer types must hold n - 1.
      if constexpr (std::is_same_v<T, Half>) {
        EMBER_CHECK(n <= 2049, "n cannot be greater than 2049 for Half type.");
      } else if constexpr (std::is_same_v<T, float>) {
        EMBER_CHECK(n <= (int64_t{1} << 24) + 1, "n cannot be greater than 2^24+1 for Float type.");
      } else if constexpr (std::is_same_v<T, double>) {
        EMBER_CHECK(n <= (int64_t{1} << 53) + 1, "n cannot be greater than 2^53+1 for Double type.");
      } else if constexpr (std::is_integral_v<T>) {
        EMBER_CHECK(n == 0 || n - 1 <= static_cast<int64_t>(std::numeric_limits<T>::max()),
                    "value cannot be converted to type ", int_type_name<T>(), " without overflow");
      }
      if (out.is_meta() || n == 0) return;
      std::vector<int64_t> perm(static_cast<size_t>(n));
      std::iota(perm.begin(), perm.end(), int64_t{0});
      Generator& g = gen ? *gen : default_generator();
      {
        std::lock_guard<std::mutex> lock(g.mutex());
        // Fisher-Yates, front to back, as PyTorch's CPU randperm.
        for (int64_t i = 0; i + 1 < n; ++i) {
          const auto j = i + static_cast<int64_t>(g.engine()() % static_cast<uint64_t>(n - i));
          std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(j)]);
        }
      }
      T* data = out.data_ptr<T>();
      for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(perm[static_cast<size_t>(i)]);
    }
  }, "randperm");
  return out;
}

Tensor multinomial_impl(const Tensor& self, int64_t num_samples, bool replacement, Generator* gen) {
  EMBER_CHECK(is_floating(self.dtype()), "multinomial only supports floating-point dtypes for input, got: ",
              scalar_type_name(self.dtype()));
  EMBER_CHECK(self.dim() > 0 && self.dim() <= 2, "prob_dist must be 1 or 2 dim");
  const int64_t categories = self.size(-1);
  EMBER_CHECK(replacement || num_samples <= categories,
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  EMBER_CHECK(num_samples > 0, "cannot sample n_sample <= 0 samples");
  const int64_t rows = self.dim() == 1 ? 1 : self.size(0);
  Tensor out = self.dim() == 1
                   ? empty({num_samples}, TensorOptions().dtype(kInt64).device(self.device()))
                   : empty({rows, num_samples}, TensorOptions().dtype(kInt64).device(self.device()));
  if (self.is_meta() || rows == 0) return out;

  // The weights as doubles, row-major, whatever the input's strides.
  std::vector<double> w(static_cast<size_t>(rows * categories));
  const Tensor probs = self.to(kFloat64).contiguous();
  std::copy_n(probs.data_ptr<double>(), w.size(), w.begin());
  // PyTorch 1.13 checks in two places with two texts: the draw without replacement checks the
  // whole tensor first, the kernel with replacement checks entry by entry (a NaN fails its
  // ">= 0" test first).
  for (int64_t r = 0; r < rows; ++r) {
    double total = 0;
    for (int64_t c = 0; c < categories; ++c) {
      const double v = w[static_cast<size_t>(r * categories + c)];
      if (replacement) {
        EMBER_CHECK(v >= 0, "invalid multinomial distribution (encountering probability entry < 0)");
        EMBER_CHECK(std::isfinite(v),
                    "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
      } else {
        EMBER_CHECK(std::isfinite(v) && v >= 0, "probability tensor contains either `inf`, `nan` or element < 0");
      }
      total += v;
    }
    EMBER_CHECK(total > 0, "invalid multinomial distribution (sum of probabilities <= 0)");
  }

  int64_t* result = out.data_ptr<int64_t>();
  Generator& g = gen ? *gen : default_generator();
  std::lock_guard<std::mutex> lock(g.mutex());
  std::vector<double> cumulative(static_cast<size_t>(categories));
  std::vector<std::pair<double, int64_t>> keys(static_cast<size_t>(categories));
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = w.data() + r * categories;
    int64_t* dst = result + r * num_samples;
    if (replacement || num_samples == 1) {
      // Inverse CDF: a uniform point in [0, total) and the first category whose running sum
      // passes it (zero-weight categories are never chosen).
      std::partial_sum(row, row + categories, cumulative.begin());
      const double total = cumulative.back();
      for (int64_t s = 0; s < num_samples; ++s) {
        const double u = uniform01(g.engine()) * total;
        auto it = std::upper_bound(cumulative.begin(), cumulative.end(), u);
        int64_t c = std::min<int64_t>(it - cumulative.begin(), categories - 1);
        while (row[c] == 0 && c > 0) --c;  // u landed on a boundary beside empty categories
        dst[s] = c;
      }
    } else {
      // Without replacement, as PyTorch 1.13: the num_samples largest keys w / E with E ~ Exp(1)
      // (an ordered weighted sample); zero weights come last, in index order.
      for (int64_t c = 0; c < categories; ++c) {
        const double e = -std::log1p(-uniform01(g.engine()));
        keys[static_cast<size_t>(c)] = {row[c] / e, c};
      }
      std::partial_sort(keys.begin(), keys.begin() + num_samples, keys.end(),
                        [](const auto& a, const auto& b) {
                          return a.first > b.first || (a.first == b.first && a.second < b.second);
                        });
      for (int64_t s = 0; s < num_samples; ++s) dst[s] = keys[static_cast<size_t>(s)].second;
    }
  }
  return out;
}

Tensor randperm_op(int64_t n, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin) {
  return dispatch::call<randperm_impl>(OpId::randperm, n, static_cast<Generator*>(nullptr), dtype,
                                       layout, device, pin);
}
Tensor randperm_generator_op(int64_t n, Generator* gen, OptDtype dtype, OptLayout layout,
                             OptDevice device, OptBool pin) {
  return dispatch::call<randperm_impl>(OpId::randperm_generator, n, gen, dtype, layout, device, pin);
}
Tensor multinomial_op(const Tensor& self, int64_t num_samples, bool replacement, Generator* gen) {
  return dispatch::call<multinomial_impl>(OpId::multinomial, self, num_samples, replacement, gen);
}

}  // namespace

Tensor randperm(int64_t n, TensorOptions options, Generator* gen) {
  return randperm_generator_op(n, gen, options.dtype_.value_or(kInt64), std::nullopt,
                               options.device_, std::nullopt);
}

Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement, Generator* gen) {
  return multinomial_op(self, num_samples, replacement, gen);
}

EMBER_REGISTER_OP(randperm, &randperm_op);
EMBER_REGISTER_OP(randperm_generator, &randperm_generator_op);
EMBER_REGISTER_OP(multinomial, &multinomial_op);

}  // namespace ember
