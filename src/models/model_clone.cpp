// The models' entries in the module copy registry (Note [Cloning modules] in
// ember/nn/module_clone.h): their copy constructors, and fixups that point the members naming
// their children (`fc`, `features`, `conv`, ...) at the children's copies.
#include "ember/models.h"
#include "ember/models/quantization.h"
#include "ember/nn/module_clone.h"

namespace ember::models {

namespace {

using nn::CloneMemo;
using nn::remap_child;

void fix_inverted_residual(nn::Module& m, CloneMemo& memo) {
  remap_child(static_cast<InvertedResidual&>(m).conv, memo);
}

void fix_mobilenet(nn::Module& m, CloneMemo& memo) {
  auto& net = static_cast<MobileNetV2&>(m);
  remap_child(net.features, memo);
  remap_child(net.classifier, memo);
}

template <class Block>
void fix_block(nn::Module& m, CloneMemo& memo) {
  auto& b = static_cast<Block&>(m);
  remap_child(b.conv1, memo);
  remap_child(b.bn1, memo);
  remap_child(b.relu, memo);
  remap_child(b.conv2, memo);
  remap_child(b.bn2, memo);
  remap_child(b.downsample, memo);
  if constexpr (std::is_same_v<Block, Bottleneck>) {
    remap_child(b.conv3, memo);
    remap_child(b.bn3, memo);
  }
}

void fix_resnet(nn::Module& m, CloneMemo& memo) {
  auto& net = static_cast<ResNet&>(m);
  remap_child(net.conv1, memo);
  remap_child(net.bn1, memo);
  remap_child(net.relu, memo);
  remap_child(net.maxpool, memo);
  remap_child(net.layer1, memo);
  remap_child(net.layer2, memo);
  remap_child(net.layer3, memo);
  remap_child(net.layer4, memo);
  remap_child(net.avgpool, memo);
  remap_child(net.fc, memo);
}

const bool registered = [] {
  nn::register_cloneable<Conv2dNormActivation>();
  nn::register_cloneable<InvertedResidual>();
  nn::register_cloneable<MobileNetV2>();
  nn::register_cloneable<BasicBlock>();
  nn::register_cloneable<Bottleneck>();
  nn::register_cloneable<ResNet>();
  nn::detail::register_fixup(typeid(InvertedResidual), fix_inverted_residual);
  nn::detail::register_fixup(typeid(MobileNetV2), fix_mobilenet);
  nn::detail::register_fixup(typeid(BasicBlock), fix_block<BasicBlock>);
  nn::detail::register_fixup(typeid(Bottleneck), fix_block<Bottleneck>);
  nn::detail::register_fixup(typeid(ResNet), fix_resnet);
  // torchvision.models.quantization's subclasses: their bases' members, their own children
  // only in the tree.
  namespace qm = quantization;
  nn::register_cloneable<qm::QuantizableInvertedResidual>();
  nn::register_cloneable<qm::QuantizableMobileNetV2>();
  nn::register_cloneable<qm::QuantizableBasicBlock>();
  nn::register_cloneable<qm::QuantizableBottleneck>();
  nn::register_cloneable<qm::QuantizableResNet>();
  nn::detail::register_fixup(typeid(qm::QuantizableInvertedResidual), fix_inverted_residual);
  nn::detail::register_fixup(typeid(qm::QuantizableMobileNetV2), fix_mobilenet);
  nn::detail::register_fixup(typeid(qm::QuantizableBasicBlock), fix_block<BasicBlock>);
  nn::detail::register_fixup(typeid(qm::QuantizableBottleneck), fix_block<Bottleneck>);
  nn::detail::register_fixup(typeid(qm::QuantizableResNet), fix_resnet);
  return true;
}();

}  // namespace

}  // namespace ember::models
