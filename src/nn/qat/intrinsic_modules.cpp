// torch.nn.intrinsic.qat: ConvBn / ConvBnReLU (PyTorch's _ConvBnNd), ConvReLU, LinearReLU and
// LinearBn1d. The BN-folding forward keeps PyTorch's expression order (quantization-spec § 3).
#include "ember/nn/intrinsic/qat/modules.h"

#include <cmath>

#include "../modules/module_util.h"
#include "ember/error.h"
#include "ember/grad_mode.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/intrinsic/fused.h"
#include "ember/nn/module_clone.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/utils/fusion.h"
#include "ember/ops/factory.h"
#include "qat_util.h"

namespace ember::nn::intrinsic::qat {

namespace F = nn::functional;
using namespace nn::qat::qat_detail;
namespace qdetail = nn::qat::detail;

namespace {

std::vector<int64_t> channel_shape(int64_t dim, int64_t channel_dim) {
  std::vector<int64_t> shape(static_cast<size_t>(dim), 1);
  shape[static_cast<size_t>(channel_dim)] = -1;
  return shape;
}

// PyTorch's _ConvBnNd._load_from_state_dict: version 1 named the BN entries without "bn.".
void rename_v1_bn_keys(StateDict& state_dict, const std::string& prefix,
                       const LocalMetadata& local_metadata, bool strict,
                       std::vector<std::string>& missing_keys) {
  auto it = local_metadata.find("version");
  if (it != local_metadata.end() && !it->second.is_none() && it->second.to_int() != 1) return;
  const std::pair<const char*, const char*> names[] = {
      {"bn.weight", "gamma"},
      {"bn.bias", "beta"},
      {"bn.running_mean", "running_mean"},
      {"bn.running_var", "running_var"},
      {"bn.num_batches_tracked", "num_batches_tracked"}};
  for (const auto& [v2, v1] : names) {
    if (state_dict.contains(prefix + v1)) {
      state_dict.insert(prefix + v2, state_dict.at(prefix + v1));
      state_dict.erase(prefix + v1);
    } else if (!state_dict.contains(prefix + v2) && strict) {
      missing_keys.push_back(prefix + v2);
    }
  }
}

// The BN statistics' frozen flag set, and the bn's training flag (not the module's).
template <class M>
M& set_bn_frozen(M& m, bool frozen) {
  m.freeze_bn = frozen;
  m.bn().Module::train(!frozen);  // only the bn itself: it has no children
  return m;
}

void init_bn_parameters(nn::BatchNormBase& bn) {
  bn.reset_running_stats();
  NoGradGuard no_grad;
  init::uniform_(bn.weight());
  init::zeros_(bn.bias());
}

// What the BN-folding forward of _ConvBnNd and LinearBn1d shares: the weight scaled by
// gamma / running_std and fake-quantized, `op` run with a zero bias, then scaled back, the
// module's bias added, then the bn.
template <class Op>
Tensor bn_folded_forward(Module& m, nn::BatchNormBase& bn, const Tensor& weight,
                         const Tensor& bias, const Tensor& input, int64_t out_channels,
                         const Op& op) {
  EMBER_CHECK_ASSERTION(bn.running_var().defined(), "");
  const Tensor running_std = (bn.running_var() + bn.eps).sqrt();
  const Tensor scale_factor = bn.weight() / running_std;
  const Tensor scaled_weight = qdetail::fake_quant_weight(
      m, weight * scale_factor.reshape(channel_shape(weight.dim(), 0)));
  const Tensor zero_bias = bias.defined() ? zeros_like(bias, TensorOptions(input.dtype()))
                                          : zeros({out_channels}, TensorOptions(input.dtype()));
  const std::vector<int64_t> bias_shape = channel_shape(weight.dim(), 1);
  Tensor out = op(input, scaled_weight, zero_bias) / scale_factor.reshape(bias_shape);
  if (bias.defined()) out = out + bias.reshape(bias_shape);
  return bn(out);
}

}  // namespace

// ---- ConvBnNd ----

template <class Conv, class Bn>
ConvBnNd<Conv, Bn>::ConvBnNd(std::string type_name, int64_t in, int64_t out,
                             const IntOrTuple& kernel_size, const IntOrTuple& stride,
                             const ConvPadding& padding, const IntOrTuple& dilation,
                             int64_t groups, bool bias, std::string padding_mode, double eps,
                             std::optional<double> momentum, bool freeze, QConfigPtr qconfig,
                             bool relu)
    : Conv(in, out, kernel_size, stride, padding, dilation, groups, false,
           std::move(padding_mode)),
      freeze_bn(false),
      with_relu(relu) {
  this->set_type_name(std::move(type_name));
  EMBER_CHECK_ASSERTION(qconfig != nullptr, "qconfig must be provided for QAT module");
  this->set_qconfig(qconfig);
  freeze_bn = this->is_training() ? freeze : true;
  this->register_module("bn", std::make_shared<Bn>(out, eps, momentum, true, true));
  EMBER_CHECK_VALUE(static_cast<bool>(qconfig->weight), this->type_name(),
                    ": the qconfig has no weight factory (a QAT module fake-quantizes its weight)");
  this->register_module("weight_fake_quant", qconfig->weight());
  if (bias) this->bias() = Parameter(empty({out}));
  reset_bn_parameters();
  if (this->is_training() && !freeze) {
    update_bn_stats();
  } else {
    freeze_bn_stats();
  }
}

template <class Conv, class Bn>
Bn& ConvBnNd<Conv, Bn>::bn() {
  auto* b = dynamic_cast<Bn*>(this->child("bn").get());
  EMBER_CHECK_TYPE(b != nullptr, this->type_name(), ": its bn is not a ",
                   Bn(1).type_name());
  return *b;
}

template <class Conv, class Bn>
void ConvBnNd<Conv, Bn>::reset_running_stats() {
  bn().reset_running_stats();
}

template <class Conv, class Bn>
void ConvBnNd<Conv, Bn>::reset_bn_parameters() {
  init_bn_parameters(bn());
  if (this->bias().defined()) {
    NoGradGuard no_grad;
    const int64_t fan_in = init::_calculate_fan_in_and_fan_out(this->weight()).first;
    const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    init::uniform_(this->bias(), -bound, bound);
  }
}

template <class Conv, class Bn>
ConvBnNd<Conv, Bn>& ConvBnNd<Conv, Bn>::freeze_bn_stats() {
  return set_bn_frozen(*this, true);
}

template <class Conv, class Bn>
ConvBnNd<Conv, Bn>& ConvBnNd<Conv, Bn>::update_bn_stats() {
  return set_bn_frozen(*this, false);
}

template <class Conv, class Bn>
Module& ConvBnNd<Conv, Bn>::train(bool mode) {
  if (freeze_bn) {
    Module::train(mode);
    // Module::train recursed: put the children back (PyTorch sets only self.training).
    bn().Module::train(false);
    return *this;
  }
  return Module::train(mode);
}

template <class Conv, class Bn>
Tensor ConvBnNd<Conv, Bn>::forward(const Tensor& input) {
  Tensor y = _forward(input);
  return with_relu ? F::relu(y) : y;
}

template <class Conv, class Bn>
Tensor ConvBnNd<Conv, Bn>::_forward(const Tensor& input) {
  return enable_slow_path_for_better_numerical_stability ? _forward_slow(input)
                                                         : _forward_approximate(input);
}

template <class Conv, class Bn>
Tensor ConvBnNd<Conv, Bn>::_forward_approximate(const Tensor& input) {
  return bn_folded_forward(*this, bn(), this->weight(), this->bias(), input, this->out_channels,
                           [this](const Tensor& x, const Tensor& w, const Tensor& b) {
                             return this->_conv_forward(x, w, b);
                           });
}

// PyTorch 1.13's _ConvBnNd._forward_slow, op for op (the docstring there derives it).
template <class Conv, class Bn>
Tensor ConvBnNd<Conv, Bn>::_forward_slow(const Tensor& input) {
  Bn& b = bn();
  EMBER_CHECK_ASSERTION(b.running_var().defined(), "");
  EMBER_CHECK_ASSERTION(b.running_mean().defined(), "");
  const Tensor& w = this->weight();
  const Tensor& conv_bias = this->bias();
  const Tensor zero_bias = zeros({this->out_channels}, TensorOptions(input.dtype()));
  const std::vector<int64_t> weight_shape = channel_shape(w.dim(), 0);
  const std::vector<int64_t> bias_shape = channel_shape(w.dim(), 1);
  const bool bn_training = b.is_training();
  Tensor conv_out;
  if (bn_training) {
    // the batch statistics, and the BN running statistics updated from them
    conv_out = this->_conv_forward(input, w, zero_bias);
    NoGradGuard no_grad;
    b(conv_bias.defined() ? conv_out + conv_bias.reshape(bias_shape) : conv_out);
  }
  const Tensor running_std = (b.running_var() + b.eps).sqrt();
  const Tensor scale_factor = b.weight() / running_std;
  const Tensor scaled_weight =
      qdetail::fake_quant_weight(*this, w * scale_factor.reshape(weight_shape));
  Tensor conv_bn = this->_conv_forward(input, scaled_weight, zero_bias);
  Tensor fused_mean, fused_std;
  if (bn_training) {
    std::vector<int64_t> avg_dims{0};
    for (int64_t d = 2; d < w.dim(); ++d) avg_dims.push_back(d);
    const Tensor batch_mean = conv_out.mean(avg_dims);
    const Tensor centered = conv_out - batch_mean.reshape(bias_shape);
    const Tensor batch_var = (centered * centered).mean(avg_dims);  // torch.square: pow(x, 2)
    const Tensor batch_std = (batch_var + b.eps).sqrt();
    conv_bn = conv_bn * (running_std / batch_std).reshape(bias_shape);
    fused_mean = batch_mean;
    fused_std = batch_std;
  } else {
    fused_mean = conv_bias.defined() ? b.running_mean() - conv_bias : b.running_mean() - 0;
    fused_std = running_std;
  }
  const Tensor fused_bias = b.bias() - b.weight() * fused_mean / fused_std;
  conv_bn = conv_bn + fused_bias.reshape(bias_shape);
  // torch: lets the conv bias take part in the loss (DDP requires every parameter to)
  if (conv_bias.defined()) conv_bn = conv_bn + (conv_bias - conv_bias).reshape(bias_shape);
  return conv_bn;
}

template <class Conv, class Bn>
Value ConvBnNd<Conv, Bn>::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(this->type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

template <class Conv, class Bn>
std::shared_ptr<Module> ConvBnNd<Conv, Bn>::to_float() {
  auto conv = float_conv<Conv>(*this);
  Bn& b = bn();
  auto [w, fb] = utils::fuse_conv_bn_weights(
      conv->weight(), nn::detail::optional_tensor(conv->bias()), b.running_mean(),
      b.running_var(), b.eps, nn::detail::optional_tensor(b.weight()),
      nn::detail::optional_tensor(b.bias()));
  conv->weight() = w;
  conv->bias() = fb;
  if (with_relu) {
    std::shared_ptr<Module> relu = std::make_shared<nn::ReLU>();
    std::shared_ptr<Module> fused;
    if constexpr (std::is_same_v<Conv, nn::Conv1d>) {
      fused = std::make_shared<intrinsic::ConvReLU1d>(conv, relu);
    } else if constexpr (std::is_same_v<Conv, nn::Conv2d>) {
      fused = std::make_shared<intrinsic::ConvReLU2d>(conv, relu);
    } else {
      fused = std::make_shared<intrinsic::ConvReLU3d>(conv, relu);
    }
    fused->train(this->is_training());
    return fused;
  }
  conv->train(this->is_training());
  return conv;
}

template <class Conv, class Bn>
void ConvBnNd<Conv, Bn>::_load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                                               LocalMetadata& local_metadata, bool strict,
                                               std::vector<std::string>& missing_keys,
                                               std::vector<std::string>& unexpected_keys,
                                               std::vector<std::string>& error_msgs) {
  rename_v1_bn_keys(state_dict, prefix, local_metadata, strict, missing_keys);
  Conv::_load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs);
}

template class ConvBnNd<nn::Conv1d, nn::BatchNorm1d>;
template class ConvBnNd<nn::Conv2d, nn::BatchNorm2d>;
template class ConvBnNd<nn::Conv3d, nn::BatchNorm3d>;

namespace {

// _ConvBnNd.from_float: the conv's and the bn's tensors shared with the new module.
template <class T>
std::shared_ptr<T> conv_bn_from_float(Module& mod, const std::type_info& expected,
                                      const std::string& name) {
  QConfigPtr qconfig = checked_float_qconfig(mod, expected, name, name);
  auto& fused = static_cast<intrinsic::FusedModule&>(mod);
  auto* conv = dynamic_cast<ConvNd*>(fused[0].get());
  auto* bn = dynamic_cast<nn::BatchNormBase*>(fused[1].get());
  EMBER_ASSERT(conv && bn);
  auto out = std::make_shared<T>(conv->in_channels, conv->out_channels, conv->kernel_size,
                                 conv->stride, padding_of(*conv), conv->dilation, conv->groups,
                                 conv->bias().defined(), conv->padding_mode, bn->eps,
                                 bn->momentum, false, qconfig);
  out->weight() = conv->weight();
  out->bias() = conv->bias();
  auto& b = out->bn();
  b.weight() = bn->weight();
  b.bias() = bn->bias();
  b.running_mean() = bn->running_mean();
  b.running_var() = bn->running_var();
  b.num_batches_tracked() = bn->num_batches_tracked();
  return out;
}

}  // namespace

#define EMBER_CONV_BN_CTOR(Name, Conv, Bn, relu)                                               \
  Name::Name(int64_t in, int64_t out, const IntOrTuple& kernel_size, const IntOrTuple& stride,  \
             const ConvPadding& padding, const IntOrTuple& dilation, int64_t groups, bool bias, \
             std::string padding_mode, double eps, std::optional<double> momentum,            \
             bool freeze, QConfigPtr qconfig)                                                   \
      : ConvBnNd<Conv, Bn>(#Name, in, out, kernel_size, stride, padding, dilation, groups,     \
                           bias, std::move(padding_mode), eps, momentum, freeze,                \
                           std::move(qconfig), relu) {}                                         \
  std::shared_ptr<Name> Name::from_float(Module& mod) {                                        \
    return conv_bn_from_float<Name>(mod, typeid(intrinsic::Name), #Name);                      \
  }

EMBER_CONV_BN_CTOR(ConvBn1d, nn::Conv1d, nn::BatchNorm1d, false)
EMBER_CONV_BN_CTOR(ConvBnReLU1d, nn::Conv1d, nn::BatchNorm1d, true)
EMBER_CONV_BN_CTOR(ConvBn2d, nn::Conv2d, nn::BatchNorm2d, false)
EMBER_CONV_BN_CTOR(ConvBnReLU2d, nn::Conv2d, nn::BatchNorm2d, true)
EMBER_CONV_BN_CTOR(ConvBn3d, nn::Conv3d, nn::BatchNorm3d, false)
EMBER_CONV_BN_CTOR(ConvBnReLU3d, nn::Conv3d, nn::BatchNorm3d, true)
#undef EMBER_CONV_BN_CTOR

// ---- ConvReLU1d / ConvReLU2d: the QAT conv, then relu ----

#define EMBER_CONV_RELU(Name, QatConv, FloatConv)                                               \
  Name::Name(int64_t in, int64_t out, const IntOrTuple& kernel_size, const IntOrTuple& stride,  \
             const ConvPadding& padding, const IntOrTuple& dilation, int64_t groups, bool bias, \
             std::string padding_mode, QConfigPtr qconfig)                                      \
      : QatConv(in, out, kernel_size, stride, padding, dilation, groups, bias,                  \
                std::move(padding_mode), std::move(qconfig)) {                                  \
    set_type_name(#Name);                                                                       \
  }                                                                                             \
  Tensor Name::forward(const Tensor& input) { return F::relu(QatConv::forward(input)); }       \
  Value Name::forward(const std::vector<Value>& inputs) {                                       \
    nn::detail::check_forward_inputs(type_name(), inputs, {"input"});                           \
    return forward(inputs[0].to_tensor());                                                      \
  }                                                                                             \
  std::shared_ptr<Name> Name::from_float(Module& mod) {                                        \
    return conv_from_float<Name>(mod, typeid(intrinsic::Name), #Name, #Name);                  \
  }                                                                                             \
  std::shared_ptr<Module> Name::to_float() {                                                    \
    auto fused = std::make_shared<intrinsic::Name>(float_conv<FloatConv>(*this),               \
                                                   std::make_shared<nn::ReLU>());               \
    fused->train(is_training());                                                                \
    return fused;                                                                               \
  }

EMBER_CONV_RELU(ConvReLU1d, nn::qat::Conv1d, nn::Conv1d)
EMBER_CONV_RELU(ConvReLU2d, nn::qat::Conv2d, nn::Conv2d)
EMBER_CONV_RELU(ConvReLU3d, nn::qat::Conv3d, nn::Conv3d)
#undef EMBER_CONV_RELU

// ---- LinearReLU ----

LinearReLU::LinearReLU(int64_t in, int64_t out, bool bias, QConfigPtr qconfig)
    : nn::qat::Linear(in, out, bias, std::move(qconfig)) {
  set_type_name("LinearReLU");
}

Tensor LinearReLU::forward(const Tensor& input) { return F::relu(nn::qat::Linear::forward(input)); }

Value LinearReLU::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::shared_ptr<LinearReLU> LinearReLU::from_float(Module& mod) {
  return linear_from_float<LinearReLU>(mod, typeid(intrinsic::LinearReLU), "LinearReLU",
                                       "LinearReLU");
}

std::shared_ptr<Module> LinearReLU::to_float() {
  auto linear = std::make_shared<nn::Linear>(in_features, out_features, bias().defined());
  linear->weight() = detached_parameter(weight());
  if (bias().defined()) linear->bias() = detached_parameter(bias());
  return std::make_shared<intrinsic::LinearReLU>(linear, std::make_shared<nn::ReLU>());
}

// ---- LinearBn1d ----

LinearBn1d::LinearBn1d(int64_t in, int64_t out, bool bias, double eps,
                       std::optional<double> momentum, bool freeze, QConfigPtr qconfig)
    : nn::Linear(in, out, bias), freeze_bn(false) {
  set_type_name("LinearBn1d");
  EMBER_CHECK_ASSERTION(qconfig != nullptr, "qconfig must be provded for QAT module");
  set_qconfig(qconfig);
  freeze_bn = is_training() ? freeze : true;
  register_module("bn", std::make_shared<nn::BatchNorm1d>(out, eps, momentum, true, true));
  EMBER_CHECK_VALUE(static_cast<bool>(qconfig->weight), type_name(),
                    ": the qconfig has no weight factory (a QAT module fake-quantizes its weight)");
  register_module("weight_fake_quant", qconfig->weight());
  if (bias) this->bias() = Parameter(empty({out}));
  reset_bn_parameters();
  if (is_training() && !freeze) {
    update_bn_stats();
  } else {
    freeze_bn_stats();
  }
}

nn::BatchNorm1d& LinearBn1d::bn() {
  auto* b = dynamic_cast<nn::BatchNorm1d*>(child("bn").get());
  EMBER_CHECK_TYPE(b != nullptr, "LinearBn1d: its bn is not a BatchNorm1d");
  return *b;
}

void LinearBn1d::reset_running_stats() { bn().reset_running_stats(); }
void LinearBn1d::reset_bn_parameters() { init_bn_parameters(bn()); }
LinearBn1d& LinearBn1d::freeze_bn_stats() { return set_bn_frozen(*this, true); }
LinearBn1d& LinearBn1d::update_bn_stats() { return set_bn_frozen(*this, false); }

Module& LinearBn1d::train(bool mode) {
  if (freeze_bn) {
    Module::train(mode);
    bn().Module::train(false);
    return *this;
  }
  return Module::train(mode);
}

Tensor LinearBn1d::forward(const Tensor& input) {
  return bn_folded_forward(*this, bn(), weight(), bias(), input, out_features,
                           [](const Tensor& x, const Tensor& w, const Tensor& b) {
                             return F::linear(x, w, b);
                           });
}

Value LinearBn1d::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::shared_ptr<LinearBn1d> LinearBn1d::from_float(Module& mod) {
  EMBER_CHECK_ASSERTION(typeid(mod) == typeid(intrinsic::LinearBn1d),
                        "qat.LinearBn1d.from_float only works for LinearBn1d");
  EMBER_CHECK_ASSERTION(mod.has_qconfig(), "Input float module must have qconfig defined");
  EMBER_CHECK_ASSERTION(mod.qconfig() != nullptr, "Input float module must have a valid config");
  auto& fused = static_cast<intrinsic::FusedModule&>(mod);
  auto* linear = dynamic_cast<nn::Linear*>(fused[0].get());
  auto* bn = dynamic_cast<nn::BatchNormBase*>(fused[1].get());
  EMBER_ASSERT(linear && bn);
  auto out = std::make_shared<LinearBn1d>(linear->in_features, linear->out_features,
                                          linear->bias().defined(), bn->eps, bn->momentum,
                                          false, mod.qconfig());
  out->weight() = linear->weight();
  out->bias() = linear->bias();
  auto& b = out->bn();
  b.weight() = bn->weight();
  b.bias() = bn->bias();
  b.running_mean() = bn->running_mean();
  b.running_var() = bn->running_var();
  b.num_batches_tracked() = bn->num_batches_tracked();
  return out;
}

std::shared_ptr<Module> LinearBn1d::to_float() {
  auto linear = std::make_shared<nn::Linear>(in_features, out_features);
  auto& b = bn();
  auto [w, fb] = utils::fuse_linear_bn_weights(weight(), nn::detail::optional_tensor(bias()),
                                               b.running_mean(), b.running_var(), b.eps,
                                               b.weight(), b.bias());
  linear->weight() = w;
  linear->bias() = fb;
  return linear;
}

// ---- module functions ----

}  // namespace ember::nn::intrinsic::qat

namespace ember::nn::intrinsic {

bool is_fused_module(const Module& m) {
  if (dynamic_cast<const FusedModule*>(&m)) return true;
  return dynamic_cast<const qat::ConvBnNd<nn::Conv1d, nn::BatchNorm1d>*>(&m) ||
         dynamic_cast<const qat::ConvBnNd<nn::Conv2d, nn::BatchNorm2d>*>(&m) ||
         dynamic_cast<const qat::ConvBnNd<nn::Conv3d, nn::BatchNorm3d>*>(&m) ||
         dynamic_cast<const qat::ConvReLU1d*>(&m) || dynamic_cast<const qat::ConvReLU2d*>(&m) ||
         dynamic_cast<const qat::ConvReLU3d*>(&m) ||
         dynamic_cast<const qat::LinearReLU*>(&m) || dynamic_cast<const qat::LinearBn1d*>(&m);
}

}  // namespace ember::nn::intrinsic

namespace ember::nn::intrinsic::qat {

namespace {
template <class F>
void on_conv_bn(Module& mod, F&& f) {
  if (auto* m = dynamic_cast<ConvBnNd<nn::Conv1d, nn::BatchNorm1d>*>(&mod)) {
    if (typeid(mod) == typeid(ConvBn1d) || typeid(mod) == typeid(ConvBnReLU1d)) f(*m);
  } else if (auto* m2 = dynamic_cast<ConvBnNd<nn::Conv2d, nn::BatchNorm2d>*>(&mod)) {
    if (typeid(mod) == typeid(ConvBn2d) || typeid(mod) == typeid(ConvBnReLU2d)) f(*m2);
  } else if (auto* m3 = dynamic_cast<ConvBnNd<nn::Conv3d, nn::BatchNorm3d>*>(&mod)) {
    if (typeid(mod) == typeid(ConvBn3d) || typeid(mod) == typeid(ConvBnReLU3d)) f(*m3);
  }
}
}  // namespace

void freeze_bn_stats(Module& mod) {
  on_conv_bn(mod, [](auto& m) { m.freeze_bn_stats(); });
}

void update_bn_stats(Module& mod) {
  on_conv_bn(mod, [](auto& m) { m.update_bn_stats(); });
}

namespace {
const bool registered = [] {
  register_cloneable<ConvBn1d>();
  register_cloneable<ConvBnReLU1d>();
  register_cloneable<ConvBn2d>();
  register_cloneable<ConvBnReLU2d>();
  register_cloneable<ConvReLU1d>();
  register_cloneable<ConvReLU2d>();
  register_cloneable<ConvBn3d>();
  register_cloneable<ConvBnReLU3d>();
  register_cloneable<ConvReLU3d>();
  register_cloneable<LinearReLU>();
  register_cloneable<LinearBn1d>();
  return true;
}();
}  // namespace

}  // namespace ember::nn::intrinsic::qat
