// torch.nn.MaxPool2d, AvgPool2d, AdaptiveAvgPool2d and AdaptiveMaxPool2d over [N, C, H, W] (or
// [C, H, W]) inputs. Sizes are kept as given (an int or a tuple) and printed as PyTorch prints
// them: MaxPool2d(2) is "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1,
// ceil_mode=False)".
//
//   ember::nn::MaxPool2d pool(3, 2, 1);          // ResNet's stem pooling
//   ember::nn::AdaptiveAvgPool2d gap({1, 1});    // AdaptiveAvgPool2d(output_size=(1, 1))
//   ember::nn::AdaptiveAvgPool2d rows({std::nullopt, 3});   // None keeps the input's size
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/modules/utils.h"

namespace ember::nn {

/// stride nullopt: kernel_size (PyTorch's stride=None). With return_indices the boxed forward
/// returns [values, indices] (PyTorch's tuple); the typed one returns the values only, and
/// forward_with_indices both.
class MaxPool2d : public Module {
 public:
  MaxPool2d(IntOrTuple kernel_size, std::optional<IntOrTuple> stride = std::nullopt,
            IntOrTuple padding = 0, IntOrTuple dilation = 1, bool return_indices = false,
            bool ceil_mode = false);
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False".
  std::string extra_repr() const override;

  IntOrTuple kernel_size;
  IntOrTuple stride;
  IntOrTuple padding;
  IntOrTuple dilation;
  bool return_indices;
  bool ceil_mode;
};

class AvgPool2d : public Module {
 public:
  AvgPool2d(IntOrTuple kernel_size, std::optional<IntOrTuple> stride = std::nullopt,
            IntOrTuple padding = 0, bool ceil_mode = false, bool count_include_pad = true,
            std::optional<int64_t> divisor_override = std::nullopt);
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "kernel_size=2, stride=2, padding=0" (PyTorch prints only these three).
  std::string extra_repr() const override;

  IntOrTuple kernel_size;
  IntOrTuple stride;
  IntOrTuple padding;
  bool ceil_mode;
  bool count_include_pad;
  std::optional<int64_t> divisor_override;
};

/// An adaptive pool's output size: an int, or a tuple whose None entries keep the input's size.
class AdaptiveOutputSize {
 public:
  AdaptiveOutputSize(int64_t v) : values_{v}, is_int_(true) {}  // NOLINT
  AdaptiveOutputSize(int v) : AdaptiveOutputSize(int64_t{v}) {}  // NOLINT
  AdaptiveOutputSize(std::initializer_list<std::optional<int64_t>> v) : values_(v) {}
  AdaptiveOutputSize(std::vector<std::optional<int64_t>> v) : values_(std::move(v)) {}  // NOLINT
  AdaptiveOutputSize(const std::vector<int64_t>& v) : values_(v.begin(), v.end()) {}  // NOLINT
  /// (H, W) for `input`: an int repeated, None replaced by the input's size (torch's
  /// _list_with_default).
  std::vector<int64_t> resolve(const Tensor& input, size_t spatial = 2) const;
  /// "7", "(1, 1)", "(None, 3)".
  std::string repr() const;
  const std::vector<std::optional<int64_t>>& values() const { return values_; }

 private:
  std::vector<std::optional<int64_t>> values_;
  bool is_int_ = false;
};

class AdaptiveAvgPool2d : public Module {
 public:
  explicit AdaptiveAvgPool2d(AdaptiveOutputSize output_size);
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "output_size=(1, 1)".
  std::string extra_repr() const override;
  AdaptiveOutputSize output_size;
};

/// With return_indices the boxed forward returns [values, indices].
class AdaptiveMaxPool2d : public Module {
 public:
  explicit AdaptiveMaxPool2d(AdaptiveOutputSize output_size, bool return_indices = false);
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "output_size=2".
  std::string extra_repr() const override;
  AdaptiveOutputSize output_size;
  bool return_indices;
};

}  // namespace ember::nn
