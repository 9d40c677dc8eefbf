// nn::functional's parameterised activations (issue 16): F's Python steps over the aten ops of
// src/ops/nn_activation.cpp. The inplace forms compute out of place (on a copy) and copy into
// `input` (ember has no elu_ / leaky_relu_ ops): the values and the in-place checks are
// PyTorch's, the grad_fn is copy_'s rather than the op's own in-place node.
#include "ember/nn/functional.h"
#include "ember/ops/nn_ops.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/warning.h"

namespace ember::nn::functional {

namespace {
Tensor in_place(const Tensor& input, const Tensor& result) {
  Tensor self = input;
  self.copy_(result);
  return self;
}
// The op reads a copy, so the values its backward saved stay intact when `input` is overwritten.
template <class Op>
Tensor maybe_in_place(const Tensor& input, Op op, bool inplace) {
  return inplace ? in_place(input, op(input.clone())) : op(input);
}
}  // namespace

Tensor leaky_relu(const Tensor& input, double negative_slope, bool inplace) {
  if (!inplace) return ember::leaky_relu(input, negative_slope);
  Tensor self = input;
  return ember::leaky_relu_(self, negative_slope);
}
Tensor elu(const Tensor& input, double alpha, bool inplace) {
  if (!inplace) return ember::elu(input, alpha);
  Tensor self = input;
  return ember::elu_(self, alpha);
}
Tensor selu(const Tensor& input, bool inplace) {
  return maybe_in_place(input, [](const Tensor& x) { return ember::selu(x); }, inplace);
}
Tensor celu(const Tensor& input, double alpha, bool inplace) {
  return maybe_in_place(input, [&](const Tensor& x) { return ember::celu(x, alpha); }, inplace);
}
Tensor softplus(const Tensor& input, double beta, double threshold) {
  return ember::softplus(input, beta, threshold);
}
Tensor mish(const Tensor& input, bool inplace) {
  return maybe_in_place(input, [](const Tensor& x) { return ember::mish(x); }, inplace);
}
Tensor glu(const Tensor& input, int64_t dim) {
  EMBER_CHECK(input.dim() != 0, "glu does not support scalars because halving size must be even");
  return ember::glu(input, dim);
}
Tensor logsigmoid(const Tensor& input) { return ember::log_sigmoid(input); }
Tensor softsign(const Tensor& input) { return input / (ember::abs(input) + 1); }
Tensor softshrink(const Tensor& input, double lambd) { return ember::softshrink(input, lambd); }
Tensor hardshrink(const Tensor& input, double lambd) { return ember::hardshrink(input, lambd); }
Tensor tanhshrink(const Tensor& input) { return input - ember::tanh(input); }
Tensor threshold(const Tensor& input, double threshold_, double value, bool inplace) {
  return maybe_in_place(input, [&](const Tensor& x) { return ember::threshold(x, threshold_, value); }, inplace);
}
Tensor softmin(const Tensor& input, std::optional<int64_t> dim, std::optional<ScalarType> dtype) {
  int64_t d;
  if (dim) {
    d = *dim;
  } else {
    EMBER_WARN("Implicit dimension choice for softmin has been deprecated. Change the call to "
               "include dim=X as an argument.");
    const int64_t nd = input.dim();
    d = (nd == 0 || nd == 1 || nd == 3) ? 0 : 1;
  }
  return ember::softmax(-input, d, dtype);
}
Tensor rrelu(const Tensor& input, double lower, double upper, bool training, bool inplace) {
  return maybe_in_place(input, [&](const Tensor& x) { return ember::rrelu(x, lower, upper, training); }, inplace);
}
Tensor prelu(const Tensor& input, const Tensor& weight) { return ember::prelu(input, weight); }

}  // namespace ember::nn::functional
