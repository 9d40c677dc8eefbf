// Linear maps: aten::bilinear (a Composite row of ops.def) and the nn::functional forms of
// linear, bilinear and flatten.
#include "../../dispatch/boxing.h"
#include "ember/nn/functional.h"
#include "ember/ops/linalg.h"
#include "ember/ops/view.h"

namespace ember {

using dispatch::OpId;

namespace {

// As PyTorch 1.13's bilinear: the shape checks with its texts, then the trilinear product. PyTorch
// calls _trilinear (a sum of bmm products); here one mm contracts input1 with the weight laid out
// as [I, O * J], and a multiply-and-sum contracts input2:
//   tmp[b, o, j] = sum_i x1[b, i] W[o, i, j];   out[b, o] = sum_j tmp[b, o, j] x2[b, j].
Tensor bilinear_impl(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                     const std::optional<Tensor>& bias) {
  EMBER_CHECK(input1.dim() == input2.dim(), "bilinear(): input dimensions do not match: got ",
              input1.dim(), " and ", input2.dim());
  for (int64_t i = 0; i < input1.dim() - 1; ++i) {
    EMBER_CHECK(input1.size(i) == input2.size(i),
                "bilinear(): input batch dimensions do not match at dim ", i, ": got ",
                input1.size(i), " and ", input2.size(i));
  }
  EMBER_CHECK(input1.size(input1.dim() - 1) == weight.size(1),
              "bilinear(): input1 size does not match weight size: got ",
              input1.size(input1.dim() - 1), " but expected ", weight.size(1));
  EMBER_CHECK(input2.size(input2.dim() - 1) == weight.size(2),
              "bilinear(): input2 size does not match weight size: got ",
              input2.size(input2.dim() - 1), " but expected ", weight.size(2));
  const bool has_bias = bias.has_value() && bias->defined();
  EMBER_CHECK(!has_bias || bias->size(0) == weight.size(0),
              "bilinear(): bias size does not match weight size: got ", bias->size(0),
              " but expected ", weight.size(0));
  // _trilinear's products read every operand as input1's element type.
  for (const Tensor* t : {&input2, &weight}) {
    EMBER_CHECK(t->dtype() == input1.dtype(), "expected scalar type ",
                scalar_type_name(input1.dtype()), " but found ", scalar_type_name(t->dtype()));
  }
  EMBER_CHECK(input1.dtype() != kBool, "\"bmm\" not implemented for 'Bool'");

  const int64_t out_features = weight.size(0), in1 = weight.size(1), in2 = weight.size(2);
  DimVector output_size(input1.sizes().begin(), input1.sizes().end() - 1);
  output_size.push_back(out_features);
  const Tensor x1 = input1.reshape({-1, in1});
  const Tensor x2 = input2.reshape({-1, in2});
  const Tensor w = weight.permute({1, 0, 2}).reshape({in1, out_features * in2});
  const Tensor tmp = x1.mm(w).view({x1.size(0), out_features, in2});
  Tensor output = (tmp * x2.unsqueeze(1)).sum({2}).reshape(output_size);
  return has_bias ? output + *bias : output;
}

}  // namespace

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const std::optional<Tensor>& bias) {
  return dispatch::call<bilinear_impl>(OpId::bilinear, input1, input2, weight, bias);
}

EMBER_REGISTER_OP(bilinear, &bilinear);

namespace nn::functional {

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  return ember::linear(input, weight, bias);
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const std::optional<Tensor>& bias) {
  return ember::bilinear(input1, input2, weight, bias);
}

Tensor flatten(const Tensor& input, int64_t start_dim, int64_t end_dim) {
  return ember::flatten(input, start_dim, end_dim);
}

}  // namespace nn::functional

}  // namespace ember
