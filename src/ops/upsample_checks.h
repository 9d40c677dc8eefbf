// The input checks shared by the 2-d upsampling ops (upsample.cpp's kernels and
// nn_sample.cpp's anti-aliased ones), with PyTorch's texts.
#pragma once

#include <vector>

#include "ember/tensor.h"

namespace ember::detail {

// Checks of PyTorch's upsample_2d_common_check; returns the full output sizes.
inline std::vector<int64_t> upsample_sizes(IntArrayRef input_size, IntArrayRef output_size) {
  EMBER_CHECK(output_size.size() == 2, "It is expected output_size equals to 2, but got size ",
              output_size.size());
  EMBER_CHECK(input_size.size() == 4, "It is expected input_size equals to 4, but got size ",
              input_size.size());
  const int64_t H = input_size[2], W = input_size[3], OH = output_size[0], OW = output_size[1];
  EMBER_CHECK(H > 0 && W > 0 && OH > 0 && OW > 0, "Input and output sizes should be greater than 0,",
              " but got input (H: ", H, ", W: ", W, ") output (H: ", OH, ", W: ", OW, ")");
  return {input_size[0], input_size[1], OH, OW};
}

inline void check_upsample_nonempty_4d(const Tensor& input) {
  EMBER_CHECK(input.dim() == 4 && input.size(1) != 0 && input.size(2) != 0 && input.size(3) != 0,
              "Non-empty 4D data tensor expected but got a tensor with sizes ", input.sizes());
}

inline void check_upsample_input(const char* op, const Tensor& input) {
  check_upsample_nonempty_4d(input);
  EMBER_CHECK(is_floating(input.dtype()), "\"", op, "\" not implemented for '",
              scalar_type_name(input.dtype()), "'");
}

}  // namespace ember::detail
