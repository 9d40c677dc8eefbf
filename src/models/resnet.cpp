// models::ResNet, BasicBlock, Bottleneck: torchvision 0.14's construction, names, init and
// forward.
#include "ember/models/resnet.h"

#include <functional>

#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/modules/normalization.h"
#include "../nn/modules/conv_bn_eval.h"
#include "../nn/modules/module_util.h"

namespace ember::models {

std::shared_ptr<nn::Conv2d> conv3x3(int64_t in_planes, int64_t out_planes, int64_t stride,
                                    int64_t groups, int64_t dilation, TensorOptions options) {
  return std::make_shared<nn::Conv2d>(in_planes, out_planes, 3, stride, dilation, dilation,
                                      groups, false, "zeros", options);
}

std::shared_ptr<nn::Conv2d> conv1x1(int64_t in_planes, int64_t out_planes, int64_t stride,
                                    TensorOptions options) {
  return std::make_shared<nn::Conv2d>(in_planes, out_planes, 1, stride, 0, 1, 1, false, "zeros",
                                      options);
}

namespace {

// `out += identity; relu(out)` — the residual sum, in place as torchvision writes it.
Tensor add_residual(Tensor out, const Tensor& identity, nn::Module& relu) {
  out.add_(identity);
  return relu(out);
}

// relu(bn(conv(x))): one convolution in eval mode where it can be (Note [Eval-mode
// conv-bn-activation fusion]), the modules' own calls otherwise. `fused` says which ran.
struct Stage {
  Tensor out;
  bool fused;
};
Stage conv_bn_relu(nn::Module& conv, nn::Module& bn, nn::Module& relu, const Tensor& x) {
  if (auto y = nn::detail::conv_bn_act_eval(conv, bn, &relu, x)) return {*y, true};
  return {relu(bn(conv(x))), false};
}

// A block's tail, relu(bn(conv(out)) + shortcut()). After a fused stage the shortcut runs first
// and the sum becomes the convolution's epilogue; otherwise torchvision's order: conv, bn, then
// the shortcut (forward hooks see the modules in that order).
Tensor conv_bn_add_relu(nn::Module& conv, nn::Module& bn, nn::Module& relu, const Tensor& out,
                        const std::function<Tensor()>& shortcut, bool after_fused) {
  if (after_fused) {
    const Tensor identity = shortcut();
    if (auto y = nn::detail::conv_bn_act_eval(conv, bn, &relu, out, identity)) return *y;
    return add_residual(bn(conv(out)), identity, relu);
  }
  Tensor y = bn(conv(out));
  return add_residual(y, shortcut(), relu);
}

// The forwards read their children from the module tree, not from the typed members the
// constructors fill: a child replaced through the tree (Python's `model.fc = nn.Linear(...)`,
// a swapped-in subclass) is the one that runs (Note [One list of children]).
nn::Module& sub(const nn::Module& m, const char* name) {
  const std::shared_ptr<nn::Module> c = m.child(name);
  EMBER_CHECK_TYPE(c, "'NoneType' object is not callable");
  return *c;
}

// An optional child (torchvision's `self.downsample = None`): absent or None gives null.
nn::Module* optional_sub(const nn::Module& m, const char* name) {
  for (const auto& [n, c] : m.named_children()) {
    if (n == name) return c.get();
  }
  return nullptr;
}

}  // namespace

// ---- BasicBlock ----

BasicBlock::BasicBlock(int64_t inplanes, int64_t planes, int64_t stride_,
                       std::shared_ptr<nn::Module> downsample_, int64_t groups,
                       int64_t base_width, int64_t dilation, NormLayer norm_layer,
                       TensorOptions options)
    : BasicBlock("BasicBlock", inplanes, planes, stride_, std::move(downsample_), groups,
                 base_width, dilation, std::move(norm_layer), options) {}

BasicBlock::BasicBlock(std::string type_name, int64_t inplanes, int64_t planes, int64_t stride_,
                       std::shared_ptr<nn::Module> downsample_, int64_t groups,
                       int64_t base_width, int64_t dilation, NormLayer norm_layer,
                       TensorOptions options)
    : nn::Module(std::move(type_name)), stride(stride_) {
  if (!norm_layer) norm_layer = batch_norm2d_layer();
  EMBER_CHECK_VALUE(groups == 1 && base_width == 64,
                    "BasicBlock only supports groups=1 and base_width=64");
  EMBER_CHECK_NOT_IMPLEMENTED(dilation <= 1, "Dilation > 1 not supported in BasicBlock");
  conv1 = register_module("conv1", conv3x3(inplanes, planes, stride, 1, 1, options));
  bn1 = register_module("bn1", norm_layer(planes, options));
  relu = register_module("relu", std::make_shared<nn::ReLU>(true));
  conv2 = register_module("conv2", conv3x3(planes, planes, 1, 1, 1, options));
  bn2 = register_module("bn2", norm_layer(planes, options));
  // Python's `self.downsample = None` sets a plain attribute: no child, nothing in the repr.
  if (downsample_) downsample = register_module("downsample", downsample_);
}

Tensor BasicBlock::forward(const Tensor& x) {
  nn::Module& act = sub(*this, "relu");
  nn::Module* shortcut = optional_sub(*this, "downsample");
  const Stage h = conv_bn_relu(sub(*this, "conv1"), sub(*this, "bn1"), act, x);
  return conv_bn_add_relu(sub(*this, "conv2"), sub(*this, "bn2"), act, h.out,
                          [&] { return shortcut ? (*shortcut)(x) : x; }, h.fused);
}

Value BasicBlock::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"x"});
  return forward(inputs[0].to_tensor());
}

// ---- Bottleneck ----

Bottleneck::Bottleneck(int64_t inplanes, int64_t planes, int64_t stride_,
                       std::shared_ptr<nn::Module> downsample_, int64_t groups,
                       int64_t base_width, int64_t dilation, NormLayer norm_layer,
                       TensorOptions options)
    : Bottleneck("Bottleneck", inplanes, planes, stride_, std::move(downsample_), groups,
                 base_width, dilation, std::move(norm_layer), options) {}

Bottleneck::Bottleneck(std::string type_name, int64_t inplanes, int64_t planes, int64_t stride_,
                       std::shared_ptr<nn::Module> downsample_, int64_t groups,
                       int64_t base_width, int64_t dilation, NormLayer norm_layer,
                       TensorOptions options)
    : nn::Module(std::move(type_name)), stride(stride_) {
  if (!norm_layer) norm_layer = batch_norm2d_layer();
  // int(planes * (base_width / 64.0)) * groups
  const int64_t width = static_cast<int64_t>(static_cast<double>(planes) *
                                             (static_cast<double>(base_width) / 64.0)) *
                        groups;
  conv1 = register_module("conv1", conv1x1(inplanes, width, 1, options));
  bn1 = register_module("bn1", norm_layer(width, options));
  conv2 = register_module("conv2", conv3x3(width, width, stride, groups, dilation, options));
  bn2 = register_module("bn2", norm_layer(width, options));
  conv3 = register_module("conv3", conv1x1(width, planes * expansion, 1, options));
  bn3 = register_module("bn3", norm_layer(planes * expansion, options));
  relu = register_module("relu", std::make_shared<nn::ReLU>(true));
  if (downsample_) downsample = register_module("downsample", downsample_);
}

Tensor Bottleneck::forward(const Tensor& x) {
  nn::Module& act = sub(*this, "relu");
  nn::Module* shortcut = optional_sub(*this, "downsample");
  const Stage h1 = conv_bn_relu(sub(*this, "conv1"), sub(*this, "bn1"), act, x);
  const Stage h2 = conv_bn_relu(sub(*this, "conv2"), sub(*this, "bn2"), act, h1.out);
  return conv_bn_add_relu(sub(*this, "conv3"), sub(*this, "bn3"), act, h2.out,
                          [&] { return shortcut ? (*shortcut)(x) : x; }, h2.fused);
}

Value Bottleneck::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"x"});
  return forward(inputs[0].to_tensor());
}

ResNetBlock ResNetBlock::basic() {
  return {BasicBlock::expansion,
          [](int64_t inplanes, int64_t planes, int64_t stride, std::shared_ptr<nn::Module> ds,
             int64_t groups, int64_t base_width, int64_t dilation, const NormLayer& norm,
             TensorOptions options) -> std::shared_ptr<nn::Module> {
            return std::make_shared<BasicBlock>(inplanes, planes, stride, std::move(ds), groups,
                                                base_width, dilation, norm, options);
          }};
}

ResNetBlock ResNetBlock::bottleneck() {
  return {Bottleneck::expansion,
          [](int64_t inplanes, int64_t planes, int64_t stride, std::shared_ptr<nn::Module> ds,
             int64_t groups, int64_t base_width, int64_t dilation, const NormLayer& norm,
             TensorOptions options) -> std::shared_ptr<nn::Module> {
            return std::make_shared<Bottleneck>(inplanes, planes, stride, std::move(ds), groups,
                                                base_width, dilation, norm, options);
          }};
}

// ---- ResNet ----

namespace {

std::string py_bool_list(const std::vector<bool>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::string(nn::detail::py_bool(v[i]));
  return s + "]";
}

}  // namespace

ResNet::ResNet(ResNetBlock block, std::vector<int64_t> layers, int64_t num_classes,
               bool zero_init_residual, int64_t groups, int64_t width_per_group,
               std::vector<bool> replace_stride_with_dilation, NormLayer norm_layer,
               TensorOptions options)
    : ResNet("ResNet", std::move(block), std::move(layers), num_classes, zero_init_residual,
             groups, width_per_group, std::move(replace_stride_with_dilation),
             std::move(norm_layer), options) {}

ResNet::ResNet(std::string type_name, ResNetBlock block, std::vector<int64_t> layers,
               int64_t num_classes, bool zero_init_residual, int64_t groups,
               int64_t width_per_group, std::vector<bool> replace_stride_with_dilation,
               NormLayer norm_layer, TensorOptions options)
    : nn::Module(std::move(type_name)),
      norm_layer_(norm_layer ? std::move(norm_layer) : batch_norm2d_layer()),
      groups_(groups),
      base_width_(width_per_group) {
  if (replace_stride_with_dilation.empty()) replace_stride_with_dilation = {false, false, false};
  EMBER_CHECK_VALUE(replace_stride_with_dilation.size() == 3,
                    "replace_stride_with_dilation should be None or a 3-element tuple, got ",
                    py_bool_list(replace_stride_with_dilation));
  EMBER_CHECK_INDEX(layers.size() >= 4, "list index out of range (ResNet needs 4 layer counts, "
                    "got ", layers.size(), ")");
  conv1 = register_module("conv1", std::make_shared<nn::Conv2d>(3, inplanes_, 7, 2, 3, 1, 1,
                                                                false, "zeros", options));
  bn1 = register_module("bn1", norm_layer_(inplanes_, options));
  relu = register_module("relu", std::make_shared<nn::ReLU>(true));
  maxpool = register_module("maxpool", std::make_shared<nn::MaxPool2d>(3, 2, 1));
  layer1 = register_module("layer1", make_layer(block, 64, layers[0], 1, false, options));
  layer2 = register_module(
      "layer2", make_layer(block, 128, layers[1], 2, replace_stride_with_dilation[0], options));
  layer3 = register_module(
      "layer3", make_layer(block, 256, layers[2], 2, replace_stride_with_dilation[1], options));
  layer4 = register_module(
      "layer4", make_layer(block, 512, layers[3], 2, replace_stride_with_dilation[2], options));
  avgpool = register_module("avgpool",
                            std::make_shared<nn::AdaptiveAvgPool2d>(nn::AdaptiveOutputSize{1, 1}));
  fc = register_module("fc", std::make_shared<nn::Linear>(512 * block.expansion, num_classes,
                                                          true, options));

  for_each_descendant(*this, [](nn::Module& mod) {
    nn::Module* m = &mod;
    if (auto* conv = dynamic_cast<nn::Conv2d*>(m)) {
      nn::init::kaiming_normal_(conv->weight(), 0.0, "fan_out", "relu");
    } else if (auto* bn = dynamic_cast<nn::BatchNorm2d*>(m)) {
      nn::init::constant_(bn->weight(), 1);
      nn::init::constant_(bn->bias(), 0);
    } else if (auto* gn = dynamic_cast<nn::GroupNorm*>(m)) {
      nn::init::constant_(gn->weight(), 1);
      nn::init::constant_(gn->bias(), 0);
    }
  });
  if (zero_init_residual) {
    // The last norm of each residual branch starts at zero: each block starts as the identity.
    for_each_descendant(*this, [](nn::Module& mod) {
      nn::Module* m = &mod;
      std::shared_ptr<nn::Module> last;
      if (auto* b = dynamic_cast<Bottleneck*>(m)) last = b->bn3;
      else if (auto* b2 = dynamic_cast<BasicBlock*>(m)) last = b2->bn2;
      if (last && last->has_parameter("weight") && last->parameter("weight").defined())
        nn::init::constant_(last->parameter("weight"), 0);
    });
  }
}

std::shared_ptr<nn::Sequential> ResNet::make_layer(const ResNetBlock& block, int64_t planes,
                                                   int64_t blocks, int64_t stride, bool dilate,
                                                   TensorOptions options) {
  std::shared_ptr<nn::Module> downsample;
  const int64_t previous_dilation = dilation_;
  if (dilate) {
    dilation_ *= stride;
    stride = 1;
  }
  if (stride != 1 || inplanes_ != planes * block.expansion) {
    downsample = std::make_shared<nn::Sequential>(
        conv1x1(inplanes_, planes * block.expansion, stride, options),
        norm_layer_(planes * block.expansion, options));
  }
  std::vector<std::shared_ptr<nn::Module>> layers;
  layers.push_back(block.make(inplanes_, planes, stride, downsample, groups_, base_width_,
                              previous_dilation, norm_layer_, options));
  inplanes_ = planes * block.expansion;
  for (int64_t i = 1; i < blocks; ++i)
    layers.push_back(block.make(inplanes_, planes, 1, nullptr, groups_, base_width_, dilation_,
                                norm_layer_, options));
  return std::make_shared<nn::Sequential>(layers);
}

Tensor ResNet::forward_impl(const Tensor& x) {
  Tensor y = sub(*this, "maxpool")(
      conv_bn_relu(sub(*this, "conv1"), sub(*this, "bn1"), sub(*this, "relu"), x).out);
  for (const char* layer : {"layer1", "layer2", "layer3", "layer4"}) y = sub(*this, layer)(y);
  y = nn::functional::flatten(sub(*this, "avgpool")(y), 1);
  return sub(*this, "fc")(y);
}

Tensor ResNet::forward(const Tensor& x) { return forward_impl(x); }

Value ResNet::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"x"});
  return forward(inputs[0].to_tensor());
}

std::shared_ptr<ResNet> resnet18(int64_t num_classes, TensorOptions options) {
  return std::make_shared<ResNet>(ResNetBlock::basic(), std::vector<int64_t>{2, 2, 2, 2},
                                  num_classes, false, 1, 64, std::vector<bool>{}, nullptr,
                                  options);
}

std::shared_ptr<ResNet> resnet34(int64_t num_classes, TensorOptions options) {
  return std::make_shared<ResNet>(ResNetBlock::basic(), std::vector<int64_t>{3, 4, 6, 3},
                                  num_classes, false, 1, 64, std::vector<bool>{}, nullptr,
                                  options);
}

std::shared_ptr<ResNet> resnet50(int64_t num_classes, TensorOptions options) {
  return std::make_shared<ResNet>(ResNetBlock::bottleneck(), std::vector<int64_t>{3, 4, 6, 3},
                                  num_classes, false, 1, 64, std::vector<bool>{}, nullptr,
                                  options);
}

std::shared_ptr<ResNet> resnet101(int64_t num_classes, TensorOptions options) {
  return std::make_shared<ResNet>(ResNetBlock::bottleneck(), std::vector<int64_t>{3, 4, 23, 3},
                                  num_classes, false, 1, 64, std::vector<bool>{}, nullptr,
                                  options);
}

std::shared_ptr<ResNet> resnet152(int64_t num_classes, TensorOptions options) {
  return std::make_shared<ResNet>(ResNetBlock::bottleneck(), std::vector<int64_t>{3, 8, 36, 3},
                                  num_classes, false, 1, 64, std::vector<bool>{}, nullptr,
                                  options);
}

}  // namespace ember::models
