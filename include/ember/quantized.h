// The int8 runtime in one include: quantized tensors, the quantized:: ops and the engines.
//
//   #include <ember/quantized.h>
//   auto q = ember::quantize_per_tensor(ember::rand({2, 3}), 0.1, 10, ember::kQUInt8);
//   auto y = ember::quantized::add(q, q, 0.2, 10);
//
// Quantized modules: <ember/nn/quantized/modules.h> (docs/quantization.md).
#pragma once

#include "ember/custom_class.h"
#include "ember/quantized/activation.h"
#include "ember/quantized/conv_linear.h"
#include "ember/quantized/conv_nd.h"
#include "ember/quantized/norm.h"
#include "ember/quantized/elementwise.h"
#include "ember/quantized/embedding.h"
#include "ember/quantized/prelu.h"
#include "ember/quantized/rnn.h"
#include "ember/quantized/tensor.h"
