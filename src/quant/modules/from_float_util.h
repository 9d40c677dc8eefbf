// from_float.cpp's observer helpers for the from_float of modules defined in other files (the
// dynamic recurrent modules): torch's `observer.dtype` and _quantize_weight.
#pragma once

#include "ember/nn/module.h"
#include "ember/tensor.h"

namespace ember::nn::quantized::from_float_util {

/// The dtype an observer or fake-quantize module (C++ or from the front end) produces.
ScalarType weight_observer_dtype(Module& observer);
/// torch's _quantize_weight(float_wt, observer): the observer's qparams, codes clamped to its range.
Tensor quantize_with_observer(const Tensor& float_wt, Module& observer);

}  // namespace ember::nn::quantized::from_float_util
