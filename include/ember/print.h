// Printing, exactly as PyTorch's Python repr with "ember." where PyTorch writes "torch.".
//
//   std::cout << ember::arange(3);            // tensor([0, 1, 2])
//   ember::to_string(ember::ones({2}, ember::kBFloat16));   // tensor([1., 1.], dtype=ember.bfloat16)
#pragma once

#include <string>

#include "ember/tensor.h"

namespace ember {

std::string to_string(const Tensor& t);

/// torch.set_printoptions: precision (4), threshold (1000), edgeitems (3), linewidth (80),
/// sci_mode (nullopt = automatic).
struct PrintOptions {
  int precision = 4;
  int64_t threshold = 1000;
  int64_t edgeitems = 3;
  int64_t linewidth = 80;
  std::optional<bool> sci_mode;
};
PrintOptions& print_options();

}  // namespace ember
