// torch.ao.nn.qat's Conv1d / Conv2d / Linear: the float layers with a weight fake-quantizer.
// from_float's checks and texts are PyTorch's (Python asserts: ErrorKind::Assertion).
#include "ember/nn/qat/modules.h"

#include "../modules/module_util.h"
#include "ember/error.h"
#include "ember/nn/functional.h"
#include "ember/nn/intrinsic/fused.h"
#include "ember/nn/module_clone.h"
#include "qat_util.h"

namespace ember::nn::qat {

namespace detail {

void attach_weight_fake_quant(Module& m, const QConfigPtr& qconfig, const char* message) {
  EMBER_CHECK_ASSERTION(qconfig != nullptr, message);
  EMBER_CHECK_VALUE(static_cast<bool>(qconfig->weight), m.type_name(),
                    ": the qconfig has no weight factory (a QAT module fake-quantizes its weight)");
  m.set_qconfig(qconfig);
  m.register_module("weight_fake_quant", qconfig->weight());
}

Tensor fake_quant_weight(Module& m, const Tensor& weight) {
  std::shared_ptr<Module> fq = m.child("weight_fake_quant");
  EMBER_CHECK_TYPE(fq != nullptr, "'NoneType' object is not callable");
  return fq->call({weight}).to_tensor();
}

}  // namespace detail

namespace qat_detail {

ConvPadding padding_of(const ConvNd& conv) {
  return conv.padding_string.empty() ? ConvPadding(conv.padding) : ConvPadding(conv.padding_string);
}

QConfigPtr checked_float_qconfig(Module& mod, const std::type_info& expected,
                                 const std::string& cls_name, const std::string& float_name,
                                 const char* prefix) {
  EMBER_CHECK_ASSERTION(typeid(mod) == expected, prefix, cls_name, ".from_float only works for ",
                        float_name);
  EMBER_CHECK_ASSERTION(mod.has_qconfig(), "Input float module must have qconfig defined");
  EMBER_CHECK_ASSERTION(mod.qconfig() != nullptr, "Input float module must have a valid qconfig");
  return mod.qconfig();
}

Module& unfused(Module& mod) {
  if (auto* fused = dynamic_cast<intrinsic::FusedModule*>(&mod)) return *(*fused)[0];
  return mod;
}

QConfigPtr qconfig_of(Module& mod) {
  // PyTorch reads `mod.qconfig` of the module it unwrapped (the conv inside a ConvReLU2d).
  EMBER_CHECK_KIND(ErrorKind::Attribute, mod.has_qconfig(), "'", mod.type_name(),
                   "' object has no attribute 'qconfig'");
  return mod.qconfig();
}

Tensor detached_parameter(const Tensor& t) { return t.defined() ? Parameter(t.detach()) : t; }

}  // namespace qat_detail

namespace F = nn::functional;
using namespace qat_detail;

// ---- Conv1d / Conv2d ----

Conv1d::Conv1d(int64_t in, int64_t out, const IntOrTuple& kernel_size, const IntOrTuple& stride,
               const ConvPadding& padding, const IntOrTuple& dilation, int64_t groups, bool bias,
               std::string padding_mode, QConfigPtr qconfig, TensorOptions options)
    : nn::Conv1d(in, out, kernel_size, stride, padding, dilation, groups, bias,
                 std::move(padding_mode), options) {
  detail::attach_weight_fake_quant(*this, qconfig);
}

Tensor Conv1d::forward(const Tensor& input) {
  return _conv_forward(input, detail::fake_quant_weight(*this, weight()),
                       nn::detail::optional_tensor(bias()));
}

Value Conv1d::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::shared_ptr<Conv1d> Conv1d::from_float(Module& mod) {
  return conv_from_float<Conv1d>(mod, typeid(nn::Conv1d), "Conv1d", "Conv1d");
}

std::shared_ptr<Module> Conv1d::to_float() { return float_conv<nn::Conv1d>(*this); }

Conv2d::Conv2d(int64_t in, int64_t out, const IntOrTuple& kernel_size, const IntOrTuple& stride,
               const ConvPadding& padding, const IntOrTuple& dilation, int64_t groups, bool bias,
               std::string padding_mode, QConfigPtr qconfig, TensorOptions options)
    : nn::Conv2d(in, out, kernel_size, stride, padding, dilation, groups, bias,
                 std::move(padding_mode), options) {
  detail::attach_weight_fake_quant(*this, qconfig);
}

Tensor Conv2d::forward(const Tensor& input) {
  return _conv_forward(input, detail::fake_quant_weight(*this, weight()),
                       nn::detail::optional_tensor(bias()));
}

Value Conv2d::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::shared_ptr<Conv2d> Conv2d::from_float(Module& mod) {
  return conv_from_float<Conv2d>(mod, typeid(nn::Conv2d), "Conv2d", "Conv2d");
}

std::shared_ptr<Module> Conv2d::to_float() { return float_conv<nn::Conv2d>(*this); }

Conv3d::Conv3d(int64_t in, int64_t out, const IntOrTuple& kernel_size, const IntOrTuple& stride,
               const ConvPadding& padding, const IntOrTuple& dilation, int64_t groups, bool bias,
               std::string padding_mode, QConfigPtr qconfig, TensorOptions options)
    : nn::Conv3d(in, out, kernel_size, stride, padding, dilation, groups, bias,
                 std::move(padding_mode), options) {
  detail::attach_weight_fake_quant(*this, qconfig);
}

Tensor Conv3d::forward(const Tensor& input) {
  return _conv_forward(input, detail::fake_quant_weight(*this, weight()),
                       nn::detail::optional_tensor(bias()));
}

Value Conv3d::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::shared_ptr<Conv3d> Conv3d::from_float(Module& mod) {
  return conv_from_float<Conv3d>(mod, typeid(nn::Conv3d), "Conv3d", "Conv3d");
}

std::shared_ptr<Module> Conv3d::to_float() { return float_conv<nn::Conv3d>(*this); }

// ---- Linear ----

Linear::Linear(int64_t in, int64_t out, bool bias, QConfigPtr qconfig, TensorOptions options)
    : nn::Linear(in, out, bias, options) {
  detail::attach_weight_fake_quant(*this, qconfig);
}

Tensor Linear::forward(const Tensor& input) {
  return F::linear(input, detail::fake_quant_weight(*this, weight()),
                   nn::detail::optional_tensor(bias()));
}

Value Linear::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::shared_ptr<Linear> Linear::from_float(Module& mod) {
  return linear_from_float<Linear>(mod, typeid(nn::Linear), "Linear", "Linear");
}

std::shared_ptr<Module> Linear::to_float() {
  auto linear = std::make_shared<nn::Linear>(in_features, out_features, bias().defined());
  linear->weight() = detached_parameter(weight());
  if (bias().defined()) linear->bias() = detached_parameter(bias());
  linear->train(is_training());
  return linear;
}

namespace {
const bool registered = [] {
  register_cloneable<Conv1d>();
  register_cloneable<Conv2d>();
  register_cloneable<Conv3d>();
  register_cloneable<Linear>();
  return true;
}();
}  // namespace

}  // namespace ember::nn::qat
