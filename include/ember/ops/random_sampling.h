// Random permutations and categorical sampling. `gen` nullptr = default_generator().
//
//   auto p = ember::randperm(10);                                   // int64, a permutation of 0..9
//   auto i = ember::multinomial(ember::tensor({1., 3.}), 4, true);   // 4 draws, 1 three times as likely
#pragma once

#include "ember/generator.h"
#include "ember/tensor.h"

namespace ember {

/// A random permutation of 0..n-1 (dtype int64 unless given).
Tensor randperm(int64_t n, TensorOptions options = {}, Generator* gen = nullptr);
/// num_samples category indices per row of `self` (1-d or 2-d non-negative weights, not
/// necessarily normalised); without replacement each row's draws are distinct.
Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement = false,
                   Generator* gen = nullptr);

}  // namespace ember
