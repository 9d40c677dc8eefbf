// More distributions (src/ops/random_more.cpp), drawn from ember's Generator streams (the
// default generator, or the one given): manual_seed reproduces them.
//
//   x.cauchy_(0, 1);  x.geometric_(0.3);  x.log_normal_(1, 2);
//   auto k = ember::poisson(rates);                 // Poisson(rate) per element
//   auto n = ember::binomial(counts, probs);        // Binomial(count, prob) per element
//   auto r = ember::randint_like(x, 0, 10);         // integers in [0, 10), x's shape and dtype
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember {

class Generator;

Tensor& cauchy_(Tensor& self, double median = 0, double sigma = 1, Generator* gen = nullptr);
Tensor& geometric_(Tensor& self, double p, Generator* gen = nullptr);
Tensor& log_normal_(Tensor& self, double mean = 1, double std = 2, Generator* gen = nullptr);
Tensor binomial(const Tensor& count, const Tensor& prob, Generator* gen = nullptr);
Tensor poisson(const Tensor& self, Generator* gen = nullptr);
Tensor randint_like(const Tensor& self, int64_t high, std::optional<ScalarType> dtype = std::nullopt);
Tensor randint_like(const Tensor& self, int64_t low, int64_t high,
                    std::optional<ScalarType> dtype = std::nullopt);

}  // namespace ember
