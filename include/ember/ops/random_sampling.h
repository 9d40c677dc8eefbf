// Categorical sampling (randperm is in ember/ops/random.h). `gen` nullptr = default_generator().
//
//   auto i = ember::multinomial(ember::tensor({1., 3.}), 4, true);   // 4 draws, 1 three times as likely
#pragma once

#include "ember/generator.h"
#include "ember/tensor.h"

namespace ember {

/// num_samples category indices per row of `self` (1-d or 2-d non-negative weights, not
/// necessarily normalised); without replacement each row's draws are distinct.
Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement = false,
                   Generator* gen = nullptr);

}  // namespace ember
