// What the QAT modules' sources share (modules.cpp, intrinsic_modules.cpp): PyTorch's
// from_float / to_float steps for the conv and linear classes.
#pragma once

#include <memory>
#include <string>
#include <typeinfo>

#include "ember/nn/module.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/linear.h"
#include "ember/quantization/qconfig.h"

namespace ember::nn::qat::qat_detail {

using quantization::QConfigPtr;

ConvPadding padding_of(const ConvNd& conv);
/// PyTorch's from_float asserts: the exact float class ("qat.Conv2d.from_float only works for
/// Conv2d"; prefix "qat." or " qat." as PyTorch's classes spell it), a qconfig attribute, not
/// None. Returns it.
QConfigPtr checked_float_qconfig(Module& mod, const std::type_info& expected,
                                 const std::string& cls_name, const std::string& float_name,
                                 const char* prefix = "qat.");
/// mod[0] for a fused container (ConvReLU2d), else mod.
Module& unfused(Module& mod);
/// mod's qconfig attribute (AttributeError when it has none).
QConfigPtr qconfig_of(Module& mod);
/// A new Parameter over t.detach() (undefined stays undefined).
Tensor detached_parameter(const Tensor& t);

/// The QAT conv class T from a float conv (or a fused container of one), sharing its weight
/// and bias.
template <class T>
std::shared_ptr<T> conv_from_float(Module& mod, const std::type_info& expected,
                                   const std::string& cls_name, const std::string& float_name) {
  checked_float_qconfig(mod, expected, cls_name, float_name);
  Module& inner = unfused(mod);
  auto* conv = dynamic_cast<ConvNd*>(&inner);
  EMBER_CHECK_TYPE(conv != nullptr, "qat.", cls_name, ".from_float: expected a convolution");
  auto out = std::make_shared<T>(conv->in_channels, conv->out_channels, conv->kernel_size,
                                 conv->stride, padding_of(*conv), conv->dilation, conv->groups,
                                 conv->bias().defined(), conv->padding_mode, qconfig_of(inner));
  out->weight() = conv->weight();
  out->bias() = conv->bias();
  return out;
}

/// The QAT linear class T from a Linear (or LinearReLU), sharing its weight and bias.
template <class T>
std::shared_ptr<T> linear_from_float(Module& mod, const std::type_info& expected,
                                     const std::string& cls_name, const std::string& float_name) {
  checked_float_qconfig(mod, expected, cls_name, float_name, " qat.");
  Module& inner = unfused(mod);
  auto* linear = dynamic_cast<nn::Linear*>(&inner);
  EMBER_CHECK_TYPE(linear != nullptr, "qat.", cls_name, ".from_float: expected a Linear");
  auto out = std::make_shared<T>(linear->in_features, linear->out_features,
                                 linear->bias().defined(), qconfig_of(inner));
  out->weight() = linear->weight();
  out->bias() = linear->bias();
  return out;
}

/// A float conv of class F with the hyperparameters of `c` and copies of its weight and bias.
template <class F>
std::shared_ptr<F> float_conv(ConvNd& c) {
  auto conv = std::make_shared<F>(c.in_channels, c.out_channels, c.kernel_size, c.stride,
                                  padding_of(c), c.dilation, c.groups, c.bias().defined(),
                                  c.padding_mode);
  conv->weight() = detached_parameter(c.weight());
  if (c.bias().defined()) conv->bias() = detached_parameter(c.bias());
  return conv;
}

}  // namespace ember::nn::qat::qat_detail
