// models::MobileNetV2 and InvertedResidual: torchvision 0.14's construction, names, init and
// forward.
#include "ember/models/mobilenetv2.h"

#include <cmath>
#include <sstream>

#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/normalization.h"
#include "../nn/modules/module_util.h"

namespace ember::models {

int64_t _make_divisible(double v, int64_t divisor, std::optional<int64_t> min_value) {
  const int64_t min_v = min_value ? *min_value : divisor;
  // Python: int(v + divisor / 2) // divisor * divisor (int() truncates; v is positive here).
  const auto rounded = static_cast<int64_t>(v + static_cast<double>(divisor) / 2.0);
  int64_t new_v = std::max(min_v, rounded / divisor * divisor);
  // Rounding down must not lose more than 10%.
  if (static_cast<double>(new_v) < 0.9 * v) new_v += divisor;
  return new_v;
}

// ---- InvertedResidual ----

InvertedResidual::InvertedResidual(int64_t inp, int64_t oup, int64_t stride_, double expand_ratio,
                                   NormLayer norm_layer, TensorOptions options)
    : InvertedResidual("InvertedResidual", inp, oup, stride_, expand_ratio, std::move(norm_layer),
                       options) {}

InvertedResidual::InvertedResidual(std::string type_name, int64_t inp, int64_t oup,
                                   int64_t stride_, double expand_ratio, NormLayer norm_layer,
                                   TensorOptions options)
    : nn::Module(std::move(type_name)),
      stride(stride_),
      use_res_connect(stride_ == 1 && inp == oup),
      out_channels(oup),
      _is_cn(stride_ > 1) {
  EMBER_CHECK_VALUE(stride == 1 || stride == 2, "stride should be 1 or 2 instead of ", stride);
  if (!norm_layer) norm_layer = batch_norm2d_layer();
  // Python's int(round(inp * expand_ratio)): round half to even.
  const auto hidden_dim =
      static_cast<int64_t>(std::nearbyint(static_cast<double>(inp) * expand_ratio));
  std::vector<std::shared_ptr<nn::Module>> layers;
  if (expand_ratio != 1.0)
    layers.push_back(std::make_shared<Conv2dNormActivation>(inp, hidden_dim, 1, 1, std::nullopt,
                                                            1, norm_layer, relu6_layer(), 1, true,
                                                            std::nullopt, options));
  layers.push_back(std::make_shared<Conv2dNormActivation>(hidden_dim, hidden_dim, 3, stride,
                                                          std::nullopt, hidden_dim, norm_layer,
                                                          relu6_layer(), 1, true, std::nullopt,
                                                          options));
  layers.push_back(
      std::make_shared<nn::Conv2d>(hidden_dim, oup, 1, 1, 0, 1, 1, false, "zeros", options));
  layers.push_back(norm_layer(oup, options));
  conv = register_module("conv", std::make_shared<nn::Sequential>(layers));
}

Tensor InvertedResidual::forward(const Tensor& x) {
  // The child in the tree, not the constructor's member (Note [One list of children]).
  const auto block_ptr = child("conv");
  EMBER_CHECK_TYPE(block_ptr, "'NoneType' object is not callable");
  nn::Module& block = *block_ptr;
  if (use_res_connect) return x + block(x);
  return block(x);
}

Value InvertedResidual::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"x"});
  return forward(inputs[0].to_tensor());
}

// ---- MobileNetV2 ----

namespace {

std::string py_nested_list(const std::vector<std::vector<int64_t>>& rows) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < rows.size(); ++i) {
    os << (i ? ", " : "") << "[";
    for (size_t j = 0; j < rows[i].size(); ++j) os << (j ? ", " : "") << rows[i][j];
    os << "]";
  }
  os << "]";
  return os.str();
}

}  // namespace

MobileNetV2::MobileNetV2(int64_t num_classes, double width_mult,
                         std::vector<std::vector<int64_t>> setting, int64_t round_nearest,
                         InvertedResidualBlock block, NormLayer norm_layer, double dropout,
                         TensorOptions options)
    : MobileNetV2("MobileNetV2", num_classes, width_mult, std::move(setting), round_nearest,
                  std::move(block), std::move(norm_layer), dropout, options) {}

MobileNetV2::MobileNetV2(std::string type_name, int64_t num_classes, double width_mult,
                         std::vector<std::vector<int64_t>> setting, int64_t round_nearest,
                         InvertedResidualBlock block, NormLayer norm_layer, double dropout,
                         TensorOptions options)
    : nn::Module(std::move(type_name)) {
  if (!block) {
    block = [](int64_t inp, int64_t oup, int64_t stride, double t, const NormLayer& norm,
               TensorOptions opts) -> std::shared_ptr<nn::Module> {
      return std::make_shared<InvertedResidual>(inp, oup, stride, t, norm, opts);
    };
  }
  if (!norm_layer) norm_layer = batch_norm2d_layer();
  if (setting.empty()) {
    setting = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
               {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  }
  // torchvision checks only the first row's length.
  EMBER_CHECK_VALUE(setting[0].size() == 4,
                    "inverted_residual_setting should be non-empty or a 4-element list, got ",
                    py_nested_list(setting));

  int64_t input_channel = _make_divisible(32 * width_mult, round_nearest);
  last_channel = _make_divisible(1280 * std::max(1.0, width_mult), round_nearest);
  std::vector<std::shared_ptr<nn::Module>> layers;
  layers.push_back(std::make_shared<Conv2dNormActivation>(3, input_channel, 3, 2, std::nullopt, 1,
                                                          norm_layer, relu6_layer(), 1, true,
                                                          std::nullopt, options));
  for (const auto& row : setting) {
    EMBER_CHECK_VALUE(row.size() == 4, "inverted_residual_setting rows are (t, c, n, s), got ",
                      py_nested_list({row}));
    const int64_t t = row[0], c = row[1], n = row[2], s = row[3];
    const int64_t output_channel =
        _make_divisible(static_cast<double>(c) * width_mult, round_nearest);
    for (int64_t i = 0; i < n; ++i) {
      layers.push_back(block(input_channel, output_channel, i == 0 ? s : 1,
                             static_cast<double>(t), norm_layer, options));
      input_channel = output_channel;
    }
  }
  layers.push_back(std::make_shared<Conv2dNormActivation>(input_channel, last_channel, 1, 1,
                                                          std::nullopt, 1, norm_layer,
                                                          relu6_layer(), 1, true, std::nullopt,
                                                          options));
  features = register_module("features", std::make_shared<nn::Sequential>(layers));
  classifier = register_module(
      "classifier",
      std::make_shared<nn::Sequential>(std::make_shared<nn::Dropout>(dropout),
                                       std::make_shared<nn::Linear>(last_channel, num_classes,
                                                                    true, options)));

  // torchvision's weight initialisation.
  for_each_descendant(*this, [](nn::Module& mod) {
    nn::Module* m = &mod;
    if (auto* conv = dynamic_cast<nn::Conv2d*>(m)) {
      nn::init::kaiming_normal_(conv->weight(), 0.0, "fan_out");
      if (conv->bias().defined()) nn::init::zeros_(conv->bias());
    } else if (auto* bn = dynamic_cast<nn::BatchNorm2d*>(m)) {
      nn::init::ones_(bn->weight());
      nn::init::zeros_(bn->bias());
    } else if (auto* gn = dynamic_cast<nn::GroupNorm*>(m)) {
      nn::init::ones_(gn->weight());
      nn::init::zeros_(gn->bias());
    } else if (auto* lin = dynamic_cast<nn::Linear*>(m)) {
      nn::init::normal_(lin->weight(), 0.0, 0.01);
      nn::init::zeros_(lin->bias());
    }
  });
}

Tensor MobileNetV2::forward_impl(const Tensor& x) {
  // The tree's children, not the constructor's members (Note [One list of children]).
  const auto features_m = child("features"), classifier_m = child("classifier");
  EMBER_CHECK_TYPE(features_m && classifier_m, "'NoneType' object is not callable");
  Tensor y = (*features_m)(x);
  const std::vector<int64_t> one{1, 1};
  y = nn::functional::adaptive_avg_pool2d(y, one);
  y = nn::functional::flatten(y, 1);
  return (*classifier_m)(y);
}

Tensor MobileNetV2::forward(const Tensor& x) { return forward_impl(x); }

Value MobileNetV2::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"x"});
  return forward(inputs[0].to_tensor());
}

std::shared_ptr<MobileNetV2> mobilenet_v2(int64_t num_classes, double width_mult,
                                          TensorOptions options) {
  return std::make_shared<MobileNetV2>(num_classes, width_mult,
                                       std::vector<std::vector<int64_t>>{}, 8, nullptr, nullptr,
                                       0.2, options);
}

}  // namespace ember::models
