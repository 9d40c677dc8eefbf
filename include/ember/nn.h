// ember::nn in one include: Module and Parameter, the layers and losses, nn::functional and
// nn::init.
//
//   #include <ember/nn.h>
//   namespace nn = ember::nn;
//   auto net = std::make_shared<nn::Sequential>(std::make_shared<nn::Linear>(64, 32),
//                                               std::make_shared<nn::ReLU>(),
//                                               std::make_shared<nn::Linear>(32, 10));
//   ember::Tensor loss = nn::CrossEntropyLoss()((*net)(x), labels);
#pragma once

#include "ember/nn/functional.h"
#include "ember/nn/functional_attention.h"
#include "ember/nn/functional_embedding_bag.h"
#include "ember/nn/init.h"
#include "ember/nn/module.h"
#include "ember/nn/module_base.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/activation_more.h"
#include "ember/nn/modules/attention.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/embedding.h"
#include "ember/nn/modules/embedding_bag.h"
#include "ember/nn/modules/flatten.h"
#include "ember/nn/modules/layers_more.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/loss.h"
#include "ember/nn/modules/loss_more.h"
#include "ember/nn/modules/normalization.h"
#include "ember/nn/modules/padding.h"
#include "ember/nn/modules/parameter_container.h"
#include "ember/nn/modules/pooling.h"
#include "ember/nn/modules/pooling_more.h"
#include "ember/nn/modules/rnn.h"
#include "ember/nn/modules/transformer.h"
#include "ember/nn/modules/upsampling.h"
#include "ember/nn/state_dict.h"
#include "ember/nn/utils/clip_grad.h"
#include "ember/nn/utils/rnn.h"
