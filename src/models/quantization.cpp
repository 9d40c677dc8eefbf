// torchvision 0.14's quantizable MobileNetV2 and ResNets (models/quantization.h). The forwards
// read their children from the tree (fusion and convert replace them) and call them through
// Module::call, so observers' hooks run (Note [Observer hooks]).
#include "ember/models/quantization.h"

#include "ember/models/misc.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/quantized/modules.h"
#include "ember/ops/factory.h"
#include "ember/ops/random.h"
#include "ember/quantization/fuse.h"
#include "ember/quantization/observer.h"
#include "ember/quantization/qconfig.h"
#include "ember/quantization/quantize.h"
#include "ember/quantization/stubs.h"
#include "ember/quantized/tensor.h"
#include "../nn/modules/module_util.h"

namespace ember::models::quantization {

namespace quant = ember::quantization;
namespace nnq = ember::nn::quantized;

namespace {

nn::Module& sub(nn::Module& m, const char* name) {
  auto c = m.child(name);
  EMBER_CHECK_TYPE(c, "'NoneType' object is not callable");
  return *c;
}

nn::Module* optional_sub(nn::Module& m, const char* name) {
  for (const auto& [n, c] : m.named_children())
    if (n == name) return c.get();
  return nullptr;
}

/// The residual op of a FloatFunctional child, or of the QFunctional convert made of it.
Tensor functional_add(nn::Module& f, const Tensor& x, const Tensor& y, bool relu) {
  if (auto* ff = dynamic_cast<nnq::FloatFunctional*>(&f)) {
    return relu ? ff->add_relu(x, y) : ff->add(x, y);
  }
  if (auto* qf = dynamic_cast<nnq::QFunctional*>(&f)) {
    return relu ? qf->add_relu(x, y) : qf->add(x, y);
  }
  EMBER_FAIL_KIND(ErrorKind::Attribute, "'", f.type_name(), "' object has no attribute '",
                  relu ? "add_relu" : "add", "'");
}

Tensor quant_dequant(nn::Module& net, const Tensor& x,
                     const std::function<Tensor(const Tensor&)>& body) {
  Tensor y = sub(net, "quant")(x);
  y = body(y);
  return sub(net, "dequant")(y);
}

}  // namespace

// ---- MobileNetV2 ----

QuantizableInvertedResidual::QuantizableInvertedResidual(int64_t inp, int64_t oup, int64_t stride,
                                                         double expand_ratio, NormLayer norm_layer,
                                                         TensorOptions options)
    : QuantizableInvertedResidual("QuantizableInvertedResidual", inp, oup, stride, expand_ratio,
                                  std::move(norm_layer), options) {}

QuantizableInvertedResidual::QuantizableInvertedResidual(std::string type_name, int64_t inp,
                                                         int64_t oup, int64_t stride,
                                                         double expand_ratio, NormLayer norm_layer,
                                                         TensorOptions options)
    : InvertedResidual(std::move(type_name), inp, oup, stride, expand_ratio, std::move(norm_layer),
                       options) {
  register_module("skip_add", std::make_shared<nnq::FloatFunctional>());
}

Tensor QuantizableInvertedResidual::forward(const Tensor& x) {
  nn::Module& block = sub(*this, "conv");
  if (use_res_connect) return functional_add(sub(*this, "skip_add"), x, block(x), false);
  return block(x);
}

Value QuantizableInvertedResidual::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"x"});
  return forward(inputs[0].to_tensor());
}

void QuantizableInvertedResidual::fuse_model(std::optional<bool> is_qat) {
  auto block = child("conv");
  const auto children = block->named_children();
  for (size_t idx = 0; idx < children.size(); ++idx) {
    if (typeid(*children[idx].value()) == typeid(nn::Conv2d)) {
      _fuse_modules(*block, {{std::to_string(idx), std::to_string(idx + 1)}}, is_qat);
    }
  }
}

QuantizableMobileNetV2::QuantizableMobileNetV2(
    int64_t num_classes, double width_mult, std::vector<std::vector<int64_t>> setting,
    int64_t round_nearest, InvertedResidualBlock block, NormLayer norm_layer, double dropout,
    TensorOptions options)
    : QuantizableMobileNetV2("QuantizableMobileNetV2", num_classes, width_mult, std::move(setting),
                             round_nearest, std::move(block), std::move(norm_layer), dropout,
                             options) {}

QuantizableMobileNetV2::QuantizableMobileNetV2(
    std::string type_name, int64_t num_classes, double width_mult,
    std::vector<std::vector<int64_t>> setting, int64_t round_nearest, InvertedResidualBlock block,
    NormLayer norm_layer, double dropout, TensorOptions options)
    : MobileNetV2(std::move(type_name), num_classes, width_mult, std::move(setting), round_nearest,
                  block ? std::move(block)
                        : InvertedResidualBlock([](int64_t inp, int64_t oup, int64_t stride,
                                                   double t, const NormLayer& norm,
                                                   TensorOptions o) -> std::shared_ptr<nn::Module> {
                            return std::make_shared<QuantizableInvertedResidual>(inp, oup, stride,
                                                                                 t, norm, o);
                          }),
                  std::move(norm_layer), dropout, options) {
  register_module("quant", std::make_shared<quant::QuantStub>());
  register_module("dequant", std::make_shared<quant::DeQuantStub>());
}

Tensor QuantizableMobileNetV2::forward(const Tensor& x) {
  return quant_dequant(*this, x, [this](const Tensor& y) { return forward_impl(y); });
}

Value QuantizableMobileNetV2::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"x"});
  return forward(inputs[0].to_tensor());
}

void QuantizableMobileNetV2::fuse_model(std::optional<bool> is_qat) {
  for (const auto& m : modules()) {
    if (typeid(*m) == typeid(Conv2dNormActivation)) _fuse_modules(*m, {{"0", "1", "2"}}, is_qat);
    if (auto* block = dynamic_cast<QuantizableInvertedResidual*>(m.get());
        block && typeid(*m) == typeid(QuantizableInvertedResidual)) {
      block->fuse_model(is_qat);
    }
  }
}

// ---- ResNet ----

QuantizableBasicBlock::QuantizableBasicBlock(int64_t inplanes, int64_t planes, int64_t stride,
                                             std::shared_ptr<nn::Module> downsample,
                                             int64_t groups, int64_t base_width, int64_t dilation,
                                             NormLayer norm_layer, TensorOptions options)
    : QuantizableBasicBlock("QuantizableBasicBlock", inplanes, planes, stride,
                            std::move(downsample), groups, base_width, dilation,
                            std::move(norm_layer), options) {}

QuantizableBasicBlock::QuantizableBasicBlock(std::string type_name, int64_t inplanes,
                                             int64_t planes, int64_t stride,
                                             std::shared_ptr<nn::Module> downsample,
                                             int64_t groups, int64_t base_width, int64_t dilation,
                                             NormLayer norm_layer, TensorOptions options)
    : BasicBlock(std::move(type_name), inplanes, planes, stride, std::move(downsample), groups,
                 base_width, dilation, std::move(norm_layer), options) {
  register_module("add_relu", std::make_shared<nnq::FloatFunctional>());
}

Tensor QuantizableBasicBlock::forward(const Tensor& x) {
  Tensor out = sub(*this, "conv1")(x);
  out = sub(*this, "bn1")(out);
  out = sub(*this, "relu")(out);
  out = sub(*this, "conv2")(out);
  out = sub(*this, "bn2")(out);
  nn::Module* shortcut = optional_sub(*this, "downsample");
  const Tensor identity = shortcut ? (*shortcut)(x) : x;
  return functional_add(sub(*this, "add_relu"), out, identity, true);
}

Value QuantizableBasicBlock::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"x"});
  return forward(inputs[0].to_tensor());
}

void QuantizableBasicBlock::fuse_model(std::optional<bool> is_qat) {
  _fuse_modules(*this, {{"conv1", "bn1", "relu"}, {"conv2", "bn2"}}, is_qat);
  if (nn::Module* ds = optional_sub(*this, "downsample")) _fuse_modules(*ds, {{"0", "1"}}, is_qat);
}

QuantizableBottleneck::QuantizableBottleneck(int64_t inplanes, int64_t planes, int64_t stride,
                                             std::shared_ptr<nn::Module> downsample,
                                             int64_t groups, int64_t base_width, int64_t dilation,
                                             NormLayer norm_layer, TensorOptions options)
    : QuantizableBottleneck("QuantizableBottleneck", inplanes, planes, stride,
                            std::move(downsample), groups, base_width, dilation,
                            std::move(norm_layer), options) {}

QuantizableBottleneck::QuantizableBottleneck(std::string type_name, int64_t inplanes,
                                             int64_t planes, int64_t stride,
                                             std::shared_ptr<nn::Module> downsample,
                                             int64_t groups, int64_t base_width, int64_t dilation,
                                             NormLayer norm_layer, TensorOptions options)
    : Bottleneck(std::move(type_name), inplanes, planes, stride, std::move(downsample), groups,
                 base_width, dilation, std::move(norm_layer), options) {
  register_module("skip_add_relu", std::make_shared<nnq::FloatFunctional>());
  register_module("relu1", std::make_shared<nn::ReLU>(false));
  register_module("relu2", std::make_shared<nn::ReLU>(false));
}

Tensor QuantizableBottleneck::forward(const Tensor& x) {
  Tensor out = sub(*this, "conv1")(x);
  out = sub(*this, "bn1")(out);
  out = sub(*this, "relu1")(out);
  out = sub(*this, "conv2")(out);
  out = sub(*this, "bn2")(out);
  out = sub(*this, "relu2")(out);
  out = sub(*this, "conv3")(out);
  out = sub(*this, "bn3")(out);
  nn::Module* shortcut = optional_sub(*this, "downsample");
  const Tensor identity = shortcut ? (*shortcut)(x) : x;
  return functional_add(sub(*this, "skip_add_relu"), out, identity, true);
}

Value QuantizableBottleneck::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"x"});
  return forward(inputs[0].to_tensor());
}

void QuantizableBottleneck::fuse_model(std::optional<bool> is_qat) {
  _fuse_modules(*this, {{"conv1", "bn1", "relu1"}, {"conv2", "bn2", "relu2"}, {"conv3", "bn3"}},
                is_qat);
  if (nn::Module* ds = optional_sub(*this, "downsample")) _fuse_modules(*ds, {{"0", "1"}}, is_qat);
}

ResNetBlock quantizable_basic_block() {
  return {QuantizableBasicBlock::expansion,
          [](int64_t inplanes, int64_t planes, int64_t stride, std::shared_ptr<nn::Module> ds,
             int64_t groups, int64_t base_width, int64_t dilation, const NormLayer& norm,
             TensorOptions o) -> std::shared_ptr<nn::Module> {
            return std::make_shared<QuantizableBasicBlock>(inplanes, planes, stride, std::move(ds),
                                                           groups, base_width, dilation, norm, o);
          }};
}

ResNetBlock quantizable_bottleneck() {
  return {QuantizableBottleneck::expansion,
          [](int64_t inplanes, int64_t planes, int64_t stride, std::shared_ptr<nn::Module> ds,
             int64_t groups, int64_t base_width, int64_t dilation, const NormLayer& norm,
             TensorOptions o) -> std::shared_ptr<nn::Module> {
            return std::make_shared<QuantizableBottleneck>(inplanes, planes, stride, std::move(ds),
                                                           groups, base_width, dilation, norm, o);
          }};
}

QuantizableResNet::QuantizableResNet(ResNetBlock block, std::vector<int64_t> layers,
                                     int64_t num_classes, bool zero_init_residual, int64_t groups,
                                     int64_t width_per_group,
                                     std::vector<bool> replace_stride_with_dilation,
                                     NormLayer norm_layer, TensorOptions options)
    : QuantizableResNet("QuantizableResNet", std::move(block), std::move(layers), num_classes,
                        zero_init_residual, groups, width_per_group,
                        std::move(replace_stride_with_dilation), std::move(norm_layer), options) {}

QuantizableResNet::QuantizableResNet(std::string type_name, ResNetBlock block,
                                     std::vector<int64_t> layers, int64_t num_classes,
                                     bool zero_init_residual, int64_t groups,
                                     int64_t width_per_group,
                                     std::vector<bool> replace_stride_with_dilation,
                                     NormLayer norm_layer, TensorOptions options)
    : ResNet(std::move(type_name), std::move(block), std::move(layers), num_classes,
             zero_init_residual, groups, width_per_group, std::move(replace_stride_with_dilation),
             std::move(norm_layer), options) {
  register_module("quant", std::make_shared<quant::QuantStub>());
  register_module("dequant", std::make_shared<quant::DeQuantStub>());
}

Tensor QuantizableResNet::forward(const Tensor& x) {
  return quant_dequant(*this, x, [this](const Tensor& y) { return forward_impl(y); });
}

Value QuantizableResNet::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"x"});
  return forward(inputs[0].to_tensor());
}

void QuantizableResNet::fuse_model(std::optional<bool> is_qat) {
  _fuse_modules(*this, {{"conv1", "bn1", "relu"}}, is_qat);
  for (const auto& m : modules()) {
    if (typeid(*m) == typeid(QuantizableBottleneck)) {
      static_cast<QuantizableBottleneck&>(*m).fuse_model(is_qat);
    } else if (typeid(*m) == typeid(QuantizableBasicBlock)) {
      static_cast<QuantizableBasicBlock&>(*m).fuse_model(is_qat);
    }
  }
}

// ---- utils ----

void _fuse_modules(nn::Module& model, const std::vector<std::vector<std::string>>& modules_to_fuse,
                   std::optional<bool> is_qat) {
  const bool qat = is_qat.value_or(model.is_training());
  if (qat) {
    quant::fuse_modules_qat(model, modules_to_fuse, /*inplace=*/true);
  } else {
    quant::fuse_modules(model, modules_to_fuse, /*inplace=*/true);
  }
}

void _replace_relu(nn::Module& module) {
  std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>> reassign;
  for (const auto& [name, mod] : module.named_children()) {
    _replace_relu(*mod);
    // The exact classes, not subclasses.
    if (typeid(*mod) == typeid(nn::ReLU) || typeid(*mod) == typeid(nn::ReLU6)) {
      reassign.emplace_back(name, std::make_shared<nn::ReLU>(false));
    }
  }
  for (const auto& [name, value] : reassign) module.replace_module(name, value);
}

void quantize_model(nn::Module& model, const std::string& backend,
                    const std::function<void(nn::Module&, bool)>& fuse) {
  // Note [quantize_model and fuse_model(is_qat)]: torchvision calls `model.fuse_model()`, whose
  // default is_qat=None resolves to the model's mode, eval after `model.eval()`; the notebook's
  // fuse_model has no default, so ember passes the value it resolves to: false.
  const Tensor dummy = ember::rand({1, 3, 299, 299});
  QEngine engine = QEngine::NoQEngine;
  bool supported = false;
  for (QEngine e : supported_quantized_engines()) {
    std::string name = qengine_name(e);
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == backend) {
      engine = e;
      supported = true;
    }
  }
  EMBER_CHECK(supported, "Quantized backend not supported ");
  set_quantized_engine(engine);
  model.eval();
  if (backend == "fbgemm") {
    model.set_qconfig(quant::default_per_channel_qconfig());
  } else if (backend == "qnnpack") {
    model.set_qconfig(quant::default_qconfig());
  }
  if (fuse) {
    fuse(model, false);
  } else if (auto* mnv2 = dynamic_cast<QuantizableMobileNetV2*>(&model)) {
    mnv2->fuse_model(false);
  } else if (auto* rn = dynamic_cast<QuantizableResNet*>(&model)) {
    rn->fuse_model(false);
  } else {
    EMBER_FAIL_KIND(ErrorKind::Type, "quantize_model: '", model.type_name(),
                    "' has no fuse_model (expected a QuantizableMobileNetV2 or QuantizableResNet)");
  }
  // The shared_ptr the workflow takes: the model is owned by its caller.
  auto self = model.shared_from_this();
  quant::prepare(self, /*inplace=*/true);
  model(dummy);
  quant::convert(self, nullptr, /*inplace=*/true);
}

std::shared_ptr<QuantizableMobileNetV2> mobilenet_v2(bool quantize, const std::string& backend,
                                                     int64_t num_classes, double width_mult) {
  auto model = std::make_shared<QuantizableMobileNetV2>(num_classes, width_mult);
  _replace_relu(*model);
  if (quantize) quantize_model(*model, backend);
  return model;
}

namespace {
std::shared_ptr<QuantizableResNet> make_resnet(ResNetBlock block, std::vector<int64_t> layers,
                                               bool quantize, const std::string& backend,
                                               int64_t num_classes) {
  auto model =
      std::make_shared<QuantizableResNet>(std::move(block), std::move(layers), num_classes);
  _replace_relu(*model);
  if (quantize) quantize_model(*model, backend);
  return model;
}
}  // namespace

std::shared_ptr<QuantizableResNet> resnet18(bool quantize, const std::string& backend,
                                            int64_t num_classes) {
  return make_resnet(quantizable_basic_block(), {2, 2, 2, 2}, quantize, backend, num_classes);
}

std::shared_ptr<QuantizableResNet> resnet50(bool quantize, const std::string& backend,
                                            int64_t num_classes) {
  return make_resnet(quantizable_bottleneck(), {3, 4, 6, 3}, quantize, backend, num_classes);
}

}  // namespace ember::models::quantization
