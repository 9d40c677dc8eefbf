// torch.nn.utils.parameters_to_vector / vector_to_parameters.
#include "ember/nn/utils/convert_parameters.h"

#include <optional>

#include "ember/error.h"
#include "ember/ops/index_ops.h"

namespace ember::nn::utils {
namespace {

// torch's _check_param_device: every parameter on the first one's device.
void check_param_device(const Tensor& param, std::optional<Device>& device) {
  if (!device) {
    device = param.device();
    return;
  }
  EMBER_CHECK_TYPE(param.device() == *device,
                   "Found two parameters on different devices, this is currently not supported.");
}

}  // namespace

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  std::optional<Device> device;
  std::vector<Tensor> flat;
  flat.reserve(parameters.size());
  for (const Tensor& p : parameters) {
    check_param_device(p, device);
    flat.push_back(p.view({-1}));
  }
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  std::optional<Device> device;
  int64_t pointer = 0;
  for (const Tensor& p : parameters) {
    check_param_device(p, device);
    const int64_t n = p.numel();
    // `.data` in PyTorch: the new value carries no autograd history into the parameter.
    p.set_data(vec.slice(0, pointer, pointer + n).view_as(p).detach());
    pointer += n;
  }
}

}  // namespace ember::nn::utils
