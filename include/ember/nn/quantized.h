// ember::nn::quantized: the quantized modules (torch.ao.nn.quantized, its intrinsic and dynamic
// parts). Quantized tensors: ember/quantized/tensor.h; the ops: ember/quantized/*.h.
#pragma once

#include "ember/nn/quantized/activation_more.h"
#include "ember/nn/quantized/conv.h"
#include "ember/nn/quantized/conv_more.h"
#include "ember/nn/quantized/linear.h"
#include "ember/nn/quantized/linear_relu_dynamic.h"
#include "ember/nn/quantized/modules.h"
#include "ember/nn/quantized/norm_more.h"
#include "ember/nn/quantized/prelu.h"
#include "ember/nn/quantized/rnn.h"
#include "ember/nn/quantized/utils.h"
