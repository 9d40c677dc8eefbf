// The torch.* functional forms of include/ember/ops/nn_functional_forms.h: Composite rows over
// ember's ops (dropout through F's _dropout_impl, conv_tbc through conv1d, the batch norm steps
// through reductions), so autograd records their pieces. Texts are PyTorch 1.13's.
#include "ember/ops/nn_functional_forms.h"

#include <algorithm>
#include <cmath>

#include "../dispatch/boxing.h"
#include "../nn/functional/dropout_common.h"
#include "elementwise.h"
#include "ember/ops/conv.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/indexing.h"
#include "ember/ops/math.h"
#include "ember/ops/nn_ops.h"
#include "ember/ops/overloads.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/quantized/elementwise.h"
#include "ember/quantized/norm.h"

namespace ember {

using dispatch::OpId;

namespace {

namespace Fd = nn::functional::detail;

void check_p(double p) {
  EMBER_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
}

template <bool Feature, bool Alpha>
Tensor dropout_form(const Tensor& input, double p, bool train) {
  check_p(p);
  return Fd::dropout_impl(input, p, train, /*inplace=*/false, Feature, Alpha);
}
template <bool Feature, bool Alpha>
Tensor dropout_form_(const Tensor& self, double p, bool train) {
  check_p(p);
  Fd::dropout_impl(self, p, train, /*inplace=*/true, Feature, Alpha);
  return self;
}

// PyTorch's kernel itself (no dimension checks: any [N, C, *] input); a group count that does
// not divide C is refused here where PyTorch's kernel reads garbage or divides by zero.
Tensor native_channel_shuffle_impl(const Tensor& self, int64_t groups) {
  EMBER_CHECK(self.dim() >= 2, "native_channel_shuffle: expected an input with at least 2 dimensions, got ",
              self.dim());
  const int64_t b = self.size(0), c = self.size(1);
  EMBER_CHECK(groups > 0, "Number of groups to divide channels in must be positive. Value of groups:", groups);
  EMBER_CHECK(c % groups == 0, "Number of channels must be divisible by groups. Got ", c, " channels and ",
              groups, " groups.");
  if (self.numel() == 0) return self.clone();
  return self.reshape({b, groups, c / groups, -1}).transpose(1, 2).reshape(self.sizes()).contiguous();
}

Tensor native_norm_impl(const Tensor& self, const Scalar& p) { return norm(self, p); }

Tensor native_norm_dim_impl(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim,
                            bool keepdim, std::optional<ScalarType> dtype) {
  if (dtype) return norm(self, p, dim, keepdim, *dtype);
  return norm(self, p, dim, keepdim);
}

Tensor conv_tbc_impl(const Tensor& self, const Tensor& weight, const Tensor& bias, int64_t pad) {
  EMBER_CHECK(self.dim() == 3, "Input must have 3 dims: time, batch, in_channel");
  // (PyTorch's first step on a quantized input is a copy its quantized copy refuses)
  EMBER_CHECK(!self.is_quantized(), "Quantized copy only works with contiguous and NHWC Tensors");
  EMBER_CHECK(weight.dim() == 3, "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.");
  EMBER_CHECK(bias.dim() == 1, "Bias must be 1-D");
  EMBER_CHECK(self.size(2) == weight.size(1), "Input dim 2 (input channels) is not == dim 1 in the weight tensor");
  EMBER_CHECK(weight.size(2) == bias.size(0), "Bias size must equal dim 2 in the weight tensor (output channels).");
  // (time, batch, in) -> (batch, in, time); weight (kw, in, out) -> (out, in, kw)
  const Tensor out = conv1d(self.permute({1, 2, 0}), weight.permute({2, 1, 0}), bias, {1}, {pad});
  return out.permute({2, 0, 1}).contiguous();
}

// ---- the synchronized batch norm steps ----

// PyTorch has no QuantizedCPU kernel for these: the error names the op itself.
void refuse_quantized(OpId op, const Tensor& input) {
  if (input.is_quantized()) dispatch::no_kernel_error(op, "QuantizedCPU");
}

std::vector<int64_t> reduce_dims(const Tensor& input) {
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  return dims;
}

// [C] -> [1, C, 1, ...] for broadcasting against input.
Tensor per_channel(const Tensor& v, const Tensor& input) {
  std::vector<int64_t> shape(static_cast<size_t>(input.dim()), 1);
  shape[1] = v.numel();
  return v.reshape(shape);
}

std::tuple<Tensor, Tensor> batch_norm_stats_impl(const Tensor& input, double eps) {
  refuse_quantized(OpId::batch_norm_stats, input);
  EMBER_CHECK(input.dim() >= 2, "batch_norm_stats: expected an input with at least 2 dimensions, got ", input.dim());
  auto [var, mean] = var_mean(input, reduce_dims(input), Scalar(int64_t{0}), false);
  return {mean, rsqrt(add(var, eps))};
}

Tensor batch_norm_elemt_impl(const Tensor& input, const std::optional<Tensor>& weight,
                             const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& invstd,
                             double eps) {
  (void)eps;  // invstd already holds it
  refuse_quantized(OpId::batch_norm_elemt, input);
  Tensor out = (input - per_channel(mean, input)) * per_channel(invstd, input);
  if (weight) out = out * per_channel(*weight, input);
  if (bias) out = out + per_channel(*bias, input);
  return out;
}

// Merges per-process (mean, invstd) over counts n_i: the total mean, the biased total variance
// sum n_i (var_i + (mean_i - mean)^2) / N, and the running statistics with the unbiased one.
std::tuple<Tensor, Tensor> gather_stats(const Tensor& mean, const Tensor& invstd,
                                        const std::optional<Tensor>& running_mean,
                                        const std::optional<Tensor>& running_var, double momentum,
                                        double eps, const Tensor& counts) {
  const Tensor n = counts.to(mean.dtype()).reshape({-1, 1});
  const Tensor total = n.sum();
  const Tensor g_mean = (mean * n).sum(std::vector<int64_t>{0}) / total;
  const Tensor var_i = sub(reciprocal(invstd * invstd), eps);
  const Tensor diff = mean - g_mean;
  const Tensor g_var = ((var_i + diff * diff) * n).sum(std::vector<int64_t>{0}) / total;
  NoGradGuard no_grad;
  if (running_mean && running_mean->defined()) {
    Tensor rm = *running_mean;
    rm.copy_(rm * (1 - momentum) + g_mean * momentum);
  }
  if (running_var && running_var->defined()) {
    Tensor rv = *running_var;
    rv.copy_(rv * (1 - momentum) + g_var * total / sub(total, 1) * momentum);
  }
  return {g_mean, rsqrt(add(g_var, eps))};
}

std::tuple<Tensor, Tensor> gather_stats_impl(const Tensor& input, const Tensor& mean, const Tensor& invstd,
                                             const std::optional<Tensor>& running_mean,
                                             const std::optional<Tensor>& running_var, double momentum,
                                             double eps, int64_t count) {
  refuse_quantized(OpId::batch_norm_gather_stats, input);
  const Tensor counts = full({mean.size(0)}, Scalar(count), TensorOptions(mean.dtype()).device(input.device()));
  return gather_stats(mean, invstd, running_mean, running_var, momentum, eps, counts);
}

std::tuple<Tensor, Tensor> gather_stats_counts_impl(const Tensor& input, const Tensor& mean,
                                                    const Tensor& invstd,
                                                    const std::optional<Tensor>& running_mean,
                                                    const std::optional<Tensor>& running_var,
                                                    double momentum, double eps, const Tensor& counts) {
  refuse_quantized(OpId::batch_norm_gather_stats_with_counts, input);
  return gather_stats(mean, invstd, running_mean, running_var, momentum, eps, counts);
}

std::tuple<Tensor, Tensor> update_stats_impl(const Tensor& input, const std::optional<Tensor>& running_mean,
                                             const std::optional<Tensor>& running_var, double momentum) {
  refuse_quantized(OpId::batch_norm_update_stats, input);
  // (mean, biased var) out; the running variance takes the unbiased one
  auto [var, mean] = var_mean(input, reduce_dims(input), Scalar(int64_t{0}), false);
  const double n = static_cast<double>(input.numel() / std::max<int64_t>(input.size(1), 1));
  NoGradGuard no_grad;
  if (running_mean && running_mean->defined()) {
    Tensor rm = *running_mean;
    rm.copy_(rm * (1 - momentum) + mean * momentum);
  }
  if (running_var && running_var->defined()) {
    Tensor rv = *running_var;
    rv.copy_(rv * (1 - momentum) + var * (n / std::max(n - 1, 1.0)) * momentum);
  }
  return {mean, var};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> backward_reduce_impl(
    const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& invstd,
    const std::optional<Tensor>& weight, bool input_g, bool weight_g, bool bias_g) {
  (void)weight;
  refuse_quantized(OpId::batch_norm_backward_reduce, input);
  const std::vector<int64_t> dims = reduce_dims(input);
  const Tensor sum_dy = grad_out.sum(dims);
  const Tensor sum_dy_xmu = (grad_out * (input - per_channel(mean, input))).sum(dims);
  return {input_g ? sum_dy : Tensor(), input_g ? sum_dy_xmu : Tensor(),
          weight_g ? sum_dy_xmu * invstd : Tensor(), bias_g ? sum_dy : Tensor()};
}

Tensor backward_elemt_impl(const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                           const Tensor& invstd, const std::optional<Tensor>& weight,
                           const Tensor& sum_dy, const Tensor& sum_dy_xmu, const Tensor& count) {
  // PyTorch 1.13 passes the sums (the schema's names are older): divided by the total count.
  refuse_quantized(OpId::batch_norm_backward_elemt, grad_out);
  refuse_quantized(OpId::batch_norm_backward_elemt, input);
  const Tensor total = count.to(input.dtype()).sum();
  const Tensor mean_dy = sum_dy / total, mean_dy_xmu = sum_dy_xmu / total;
  const Tensor xmu = input - per_channel(mean, input);
  Tensor g = grad_out - per_channel(mean_dy, input) -
             xmu * per_channel(invstd * invstd * mean_dy_xmu, input);
  g = g * per_channel(invstd, input);
  if (weight) g = g * per_channel(*weight, input);
  return g;
}

Tensor quantized_batch_norm_impl(const Tensor& input, const std::optional<Tensor>& weight,
                                 const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                                 double eps, double output_scale, int64_t output_zero_point) {
  EMBER_CHECK(weight && weight->defined(), "Weight must be provided");
  EMBER_CHECK(bias && bias->defined(), "Bias must be provided");
  return quantized::batch_norm(input, weight, bias, mean, var, eps, output_scale, output_zero_point);
}

std::vector<int64_t> with_one(IntArrayRef v, int64_t one) {
  std::vector<int64_t> out{one};
  out.insert(out.end(), v.begin(), v.end());
  return out;
}

Tensor quantized_max_pool1d_impl(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                 IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  EMBER_CHECK(self.dim() == 2 || self.dim() == 3, "quantized_max_pool1d(): Expected 2D or 3D input, but got ",
              self.dim(), "D");
  EMBER_CHECK(kernel_size.size() == 1, "quantized_max_pool1d(): Expected kernel_size to be 1-dimensional: got ",
              kernel_size.size());
  const std::vector<int64_t> k = with_one(kernel_size, 1);
  const std::vector<int64_t> s = stride.empty() ? k : with_one(stride, 1);
  const Tensor out = quantized_max_pool2d(self.unsqueeze(-2), k, s, with_one(padding, 0),
                                          with_one(dilation, 1), ceil_mode);
  return out.squeeze(-2);
}

std::tuple<Tensor, Tensor> rowwise_prune_impl(const Tensor& weight, const Tensor& mask,
                                              ScalarType compressed_indices_dtype) {
  EMBER_CHECK(weight.dim() == 2, "'weight' should be a 2-dimensional tensor, but got ", weight.dim(), " dimensions");
  EMBER_CHECK(mask.dim() == 1 && mask.numel() == weight.size(0),
              "'mask' should be a 1-dimensional tensor of length weight.size(0)");
  EMBER_CHECK(mask.dtype() == kBool, "'mask' should be a bool tensor");
  EMBER_CHECK(compressed_indices_dtype == kInt32 || compressed_indices_dtype == kInt64,
              "_rowwise_prune expects either int32 or int64 indices.");
  const Tensor keep = mask.to(kInt64);
  // The running count of kept rows before each row; -1 where the row is pruned.
  const Tensor position = sub(cumsum(keep, 0), 1);
  const Tensor index = where(mask, position, full({}, Scalar(int64_t{-1}), TensorOptions(kInt64).device(mask.device())));
  return {index_select(weight, 0, nonzero(mask).reshape({-1})), index.to(compressed_indices_dtype)};
}

}  // namespace

Tensor alpha_dropout(const Tensor& input, double p, bool train) {
  return dispatch::call<dropout_form<false, true>>(OpId::alpha_dropout, input, p, train);
}
Tensor& alpha_dropout_(Tensor& self, double p, bool train) {
  dispatch::call<dropout_form_<false, true>>(OpId::alpha_dropout_, self, p, train);
  return self;
}
Tensor feature_alpha_dropout(const Tensor& input, double p, bool train) {
  return dispatch::call<dropout_form<true, true>>(OpId::feature_alpha_dropout, input, p, train);
}
Tensor& feature_alpha_dropout_(Tensor& self, double p, bool train) {
  dispatch::call<dropout_form_<true, true>>(OpId::feature_alpha_dropout_, self, p, train);
  return self;
}
Tensor feature_dropout(const Tensor& input, double p, bool train) {
  return dispatch::call<dropout_form<true, false>>(OpId::feature_dropout, input, p, train);
}
Tensor& feature_dropout_(Tensor& self, double p, bool train) {
  dispatch::call<dropout_form_<true, false>>(OpId::feature_dropout_, self, p, train);
  return self;
}
Tensor native_channel_shuffle(const Tensor& self, int64_t groups) {
  return dispatch::call<native_channel_shuffle_impl>(OpId::native_channel_shuffle, self, groups);
}
Tensor native_norm(const Tensor& self, const Scalar& p) {
  return dispatch::call<native_norm_impl>(OpId::native_norm, self, p);
}
Tensor native_norm(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  return dispatch::call<native_norm_dim_impl>(OpId::native_norm_ScalarOpt_dim_dtype, self, p, dim, keepdim, dtype);
}
Tensor conv_tbc(const Tensor& self, const Tensor& weight, const Tensor& bias, int64_t pad) {
  return dispatch::call<conv_tbc_impl>(OpId::conv_tbc, self, weight, bias, pad);
}
std::tuple<Tensor, Tensor> batch_norm_stats(const Tensor& input, double eps) {
  return dispatch::call<batch_norm_stats_impl>(OpId::batch_norm_stats, input, eps);
}
Tensor batch_norm_elemt(const Tensor& input, const std::optional<Tensor>& weight,
                        const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& invstd,
                        double eps) {
  return dispatch::call<batch_norm_elemt_impl>(OpId::batch_norm_elemt, input, weight, bias, mean, invstd, eps);
}
std::tuple<Tensor, Tensor> batch_norm_gather_stats(const Tensor& input, const Tensor& mean,
                                                   const Tensor& invstd,
                                                   const std::optional<Tensor>& running_mean,
                                                   const std::optional<Tensor>& running_var,
                                                   double momentum, double eps, int64_t count) {
  return dispatch::call<gather_stats_impl>(OpId::batch_norm_gather_stats, input, mean, invstd,
                                           running_mean, running_var, momentum, eps, count);
}
std::tuple<Tensor, Tensor> batch_norm_gather_stats_with_counts(
    const Tensor& input, const Tensor& mean, const Tensor& invstd,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    double momentum, double eps, const Tensor& counts) {
  return dispatch::call<gather_stats_counts_impl>(OpId::batch_norm_gather_stats_with_counts, input,
                                                  mean, invstd, running_mean, running_var, momentum,
                                                  eps, counts);
}
std::tuple<Tensor, Tensor> batch_norm_update_stats(const Tensor& input,
                                                   const std::optional<Tensor>& running_mean,
                                                   const std::optional<Tensor>& running_var,
                                                   double momentum) {
  return dispatch::call<update_stats_impl>(OpId::batch_norm_update_stats, input, running_mean,
                                           running_var, momentum);
}
std::tuple<Tensor, Tensor, Tensor, Tensor> batch_norm_backward_reduce(
    const Tensor& grad_out, const Tensor& input, const Tensor& mean, const Tensor& invstd,
    const std::optional<Tensor>& weight, bool input_g, bool weight_g, bool bias_g) {
  return dispatch::call<backward_reduce_impl>(OpId::batch_norm_backward_reduce, grad_out, input,
                                              mean, invstd, weight, input_g, weight_g, bias_g);
}
Tensor batch_norm_backward_elemt(const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                                 const Tensor& invstd, const std::optional<Tensor>& weight,
                                 const Tensor& mean_dy, const Tensor& mean_dy_xmu, const Tensor& count) {
  return dispatch::call<backward_elemt_impl>(OpId::batch_norm_backward_elemt, grad_out, input, mean,
                                             invstd, weight, mean_dy, mean_dy_xmu, count);
}
Tensor quantized_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                            const std::optional<Tensor>& bias, const Tensor& mean, const Tensor& var,
                            double eps, double output_scale, int64_t output_zero_point) {
  return dispatch::call<quantized_batch_norm_impl>(OpId::quantized_batch_norm_aten, input, weight, bias,
                                                   mean, var, eps, output_scale, output_zero_point);
}
Tensor quantized_max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                            IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return dispatch::call<quantized_max_pool1d_impl>(OpId::quantized_max_pool1d, self, kernel_size,
                                                   stride, padding, dilation, ceil_mode);
}
std::tuple<Tensor, Tensor> _rowwise_prune(const Tensor& weight, const Tensor& mask,
                                          ScalarType compressed_indices_dtype) {
  return dispatch::call<rowwise_prune_impl>(OpId::_rowwise_prune, weight, mask, compressed_indices_dtype);
}

using DropoutFn = Tensor (*)(const Tensor&, double, bool);
using DropoutFn_ = Tensor& (*)(Tensor&, double, bool);
EMBER_REGISTER_OP(alpha_dropout, static_cast<DropoutFn>(&ember::alpha_dropout));
EMBER_REGISTER_OP(alpha_dropout_, static_cast<DropoutFn_>(&ember::alpha_dropout_));
EMBER_REGISTER_OP(feature_alpha_dropout, static_cast<DropoutFn>(&ember::feature_alpha_dropout));
EMBER_REGISTER_OP(feature_alpha_dropout_, static_cast<DropoutFn_>(&ember::feature_alpha_dropout_));
EMBER_REGISTER_OP(feature_dropout, static_cast<DropoutFn>(&ember::feature_dropout));
EMBER_REGISTER_OP(feature_dropout_, static_cast<DropoutFn_>(&ember::feature_dropout_));
EMBER_REGISTER_OP(native_channel_shuffle, &ember::native_channel_shuffle);
EMBER_REGISTER_OP(native_norm, static_cast<Tensor (*)(const Tensor&, const Scalar&)>(&ember::native_norm));
EMBER_REGISTER_OP(native_norm_ScalarOpt_dim_dtype,
                  static_cast<Tensor (*)(const Tensor&, const std::optional<Scalar>&, IntArrayRef, bool,
                                         std::optional<ScalarType>)>(&ember::native_norm));
EMBER_REGISTER_OP(conv_tbc, &ember::conv_tbc);
EMBER_REGISTER_OP(batch_norm_stats, &ember::batch_norm_stats);
EMBER_REGISTER_OP(batch_norm_elemt, &ember::batch_norm_elemt);
EMBER_REGISTER_OP(batch_norm_gather_stats, &ember::batch_norm_gather_stats);
EMBER_REGISTER_OP(batch_norm_gather_stats_with_counts, &ember::batch_norm_gather_stats_with_counts);
EMBER_REGISTER_OP(batch_norm_update_stats, &ember::batch_norm_update_stats);
EMBER_REGISTER_OP(batch_norm_backward_reduce, &ember::batch_norm_backward_reduce);
EMBER_REGISTER_OP(batch_norm_backward_elemt, &ember::batch_norm_backward_elemt);
EMBER_REGISTER_OP(quantized_batch_norm_aten, &ember::quantized_batch_norm);
EMBER_REGISTER_OP(quantized_max_pool1d, &ember::quantized_max_pool1d);
EMBER_REGISTER_OP(_rowwise_prune, &ember::_rowwise_prune);

}  // namespace ember
