// torch.nn.utils.parameters_to_vector / vector_to_parameters: all parameters as one flat
// vector and back (what flat-vector optimisers and the fusion tests use).
//
//   ember::Tensor v = ember::nn::utils::parameters_to_vector(model->parameters());
//   ember::nn::utils::vector_to_parameters(v * 0.5, model->parameters());
#pragma once

#include <vector>

#include "ember/tensor.h"

namespace ember::nn::utils {

/// The parameters flattened and concatenated, in order (one new tensor; differentiable). All on
/// one device, else TypeError "Found two parameters on different devices, this is currently
/// not supported.".
Tensor parameters_to_vector(const std::vector<Tensor>& parameters);
/// Points each parameter's data at the next numel() elements of `vec` (viewed as the
/// parameter's shape), as `param.data = vec[pointer:pointer + n].view_as(param).data`: the
/// parameters then share `vec`'s storage. A `vec` too short fails as the view does
/// ("shape '[2, 2]' is invalid for input of size 2").
void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace ember::nn::utils
