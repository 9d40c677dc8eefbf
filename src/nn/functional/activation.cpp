// nn::functional activations: thin calls to the ops of src/ops/unary.cpp, activation.cpp and
// softmax.cpp, with F's inplace flags (the in-place op, returning the input).
#include "ember/nn/functional.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"

namespace ember::nn::functional {

Tensor relu(const Tensor& input, bool inplace) {
  if (!inplace) return ember::relu(input);
  Tensor self = input;
  return ember::relu_(self);
}

// relu6 is hardtanh(0, 6); its in-place form is hardtanh_'s (aten::relu6_ is not an ember op).
Tensor relu6(const Tensor& input, bool inplace) {
  if (!inplace) return ember::relu6(input);
  Tensor self = input;
  return ember::hardtanh_(self, 0, 6);
}

Tensor hardtanh(const Tensor& input, double min_val, double max_val, bool inplace) {
  if (!inplace) return ember::hardtanh(input, min_val, max_val);
  Tensor self = input;
  return ember::hardtanh_(self, min_val, max_val);
}

Tensor hardswish(const Tensor& input, bool inplace) {
  if (!inplace) return ember::hardswish(input);
  Tensor self = input;
  return ember::hardswish_(self);
}

Tensor hardsigmoid(const Tensor& input, bool inplace) {
  if (!inplace) return ember::hardsigmoid(input);
  Tensor self = input;
  return ember::hardsigmoid_(self);
}

Tensor sigmoid(const Tensor& input) { return ember::sigmoid(input); }

Tensor tanh(const Tensor& input) { return ember::tanh(input); }

Tensor gelu(const Tensor& input, const std::string& approximate) {
  return ember::gelu(input, approximate);
}

Tensor silu(const Tensor& input, bool inplace) {
  if (!inplace) return ember::silu(input);
  Tensor self = input;
  return ember::silu_(self);
}

Tensor softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return ember::softmax(input, dim, dtype);
}

Tensor log_softmax(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return ember::log_softmax(input, dim, dtype);
}

}  // namespace ember::nn::functional
