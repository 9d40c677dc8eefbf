// multinomial: the categorical sampling op behind ember.utils.data's WeightedRandomSampler
// (randperm is in random.cpp). Checks and error texts as PyTorch 1.13's; the values come from
// the generator's engine under one lock per call (so a call's draws are one contiguous run).
#include "ember/ops/random_sampling.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>
#include <vector>

#include "../dispatch/boxing.h"
#include "ember/ops/factory.h"

namespace ember {

using dispatch::OpId;

namespace {

// A uniform double in [0, 1) from the raw engine (the caller holds the generator's lock).
double uniform01(std::mt19937_64& engine) { return static_cast<double>(engine() >> 11) * 0x1.0p-53; }

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

Tensor multinomial_op(const Tensor& self, int64_t num_samples, bool replacement, Generator* gen) {
  return dispatch::call<multinomial_impl>(OpId::multinomial, self, num_samples, replacement, gen);
}

}  // namespace

Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement, Generator* gen) {
  return multinomial_op(self, num_samples, replacement, gen);
}

EMBER_REGISTER_OP(multinomial, &multinomial_op);

}  // namespace ember
