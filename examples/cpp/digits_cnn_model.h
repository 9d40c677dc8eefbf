// The small CNN that examples/cpp/digits_cnn trains on scikit-learn's 8x8 digits, shared with
// benchmarks/bench_models.cpp (whose libtorch twin is built layer for layer the same):
//
//   [N, 1, 8, 8] -> Conv2d(1, 32, 3, padding=1, bias=False) - BatchNorm2d(32) - ReLU(inplace)
//                -> Conv2d(32, 64, 3, padding=1, bias=False) - BatchNorm2d(64) - ReLU(inplace)
//                -> MaxPool2d(2)                                           [N, 64, 4, 4]
//                -> Conv2d(64, 64, 3, padding=1, bias=False) - BatchNorm2d(64) - ReLU(inplace)
//                -> MaxPool2d(2) - Flatten - Linear(256, 10)                [N, 10]
//
// No bias on the convolutions: the batch norm after each would cancel it (torchvision's rule).
#pragma once

#include <cstdint>
#include <memory>

#include "ember/nn.h"

namespace examples {

inline constexpr int64_t kCnnWidth1 = 32;
inline constexpr int64_t kCnnWidth2 = 64;

inline std::shared_ptr<ember::nn::Sequential> make_digits_cnn(ember::TensorOptions options = {}) {
  namespace nn = ember::nn;
  auto conv = [&](int64_t in, int64_t out) {
    return std::make_shared<nn::Conv2d>(in, out, 3, 1, 1, 1, 1, /*bias=*/false, "zeros", options);
  };
  auto bn = [&](int64_t c) {
    return std::make_shared<nn::BatchNorm2d>(c, 1e-5, 0.1, true, true, options);
  };
  return std::make_shared<nn::Sequential>(
      conv(1, kCnnWidth1), bn(kCnnWidth1), std::make_shared<nn::ReLU>(true),
      conv(kCnnWidth1, kCnnWidth2), bn(kCnnWidth2), std::make_shared<nn::ReLU>(true),
      std::make_shared<nn::MaxPool2d>(2),
      conv(kCnnWidth2, kCnnWidth2), bn(kCnnWidth2), std::make_shared<nn::ReLU>(true),
      std::make_shared<nn::MaxPool2d>(2), std::make_shared<nn::Flatten>(),
      std::make_shared<nn::Linear>(kCnnWidth2 * 2 * 2, 10, true, options));
}

}  // namespace examples
