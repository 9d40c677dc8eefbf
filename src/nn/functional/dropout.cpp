// nn::functional::dropout: F.dropout's check, then aten::dropout (src/ops/random.cpp).
#include "ember/nn/functional.h"
#include "ember/ops/random.h"

namespace ember::nn::functional {

Tensor dropout(const Tensor& input, double p, bool training, bool inplace) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0,
                    "dropout probability has to be between 0 and 1, but got ", p);
  Tensor out = ember::dropout(input, p, training);
  if (!inplace || out.is_same(input)) return out;
  // F.dropout(inplace=True): the input itself holds the result.
  Tensor self = input;
  self.copy_(out);
  return self;
}

}  // namespace ember::nn::functional
