// ember::models in one include: torchvision's MobileNetV2 and ResNets, and their building
// blocks (Conv2dNormActivation, InvertedResidual, BasicBlock, Bottleneck).
//
//   #include <ember/models.h>
//   auto net = ember::models::resnet18();
#pragma once

#include "ember/models/misc.h"
#include "ember/models/mobilenetv2.h"
#include "ember/models/quantization.h"
#include "ember/models/resnet.h"
