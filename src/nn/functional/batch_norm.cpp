// nn::functional::batch_norm and group_norm: F's argument order and its batch-size check in
// front of the aten ops (ember/ops/normalization.h).
#include <sstream>

#include "ember/nn/functional.h"

namespace ember::nn::functional {
namespace {

// F._verify_batch_size: training statistics over a single value per channel are meaningless
// (the variance is 0), so PyTorch refuses them before the op runs. `shown` is what Python
// formats: input.size() (a torch.Size) for batch_norm, a plain list for group_norm.
void verify_batch_size(IntArrayRef sizes, const std::string& shown) {
  int64_t prod = sizes.empty() ? 1 : sizes[0];
  for (size_t i = 2; i < sizes.size(); ++i) prod *= sizes[i];
  EMBER_CHECK_VALUE(prod != 1, "Expected more than 1 value per channel when training, got input "
                    "size ", shown);
}

std::string format_list(IntArrayRef sizes) {
  std::ostringstream os;
  os << sizes;
  return os.str();
}

}  // namespace

Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& running_mean,
                  const std::optional<Tensor>& running_var, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, bool training, double momentum, double eps) {
  if (training && input.dim() >= 1)
    verify_batch_size(input.sizes(), "ember.Size(" + format_list(input.sizes()) + ")");
  return ember::batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
                           eps);
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps) {
  // F.group_norm checks [N * C / G, G, *spatial] whatever the mode: a group of one value has
  // no variance either. Shapes the op rejects anyway (fewer than 2 dims, G <= 0) go to it.
  if (input.dim() >= 2 && num_groups > 0) {
    std::vector<int64_t> grouped{input.size(0) * input.size(1) / num_groups, num_groups};
    for (int64_t d = 2; d < input.dim(); ++d) grouped.push_back(input.size(d));
    verify_batch_size(grouped, format_list(grouped));
  }
  return ember::group_norm(input, num_groups, weight, bias, eps);
}

}  // namespace ember::nn::functional
