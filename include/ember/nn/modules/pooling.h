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
#include "ember/nn/options.h"
#include "ember/nn/modules/utils.h"

namespace ember::nn {

/// MaxPool1d / 2d / 3d's arguments (libtorch's MaxPoolOptions<D>): stride nullopt is
/// kernel_size (PyTorch's stride=None). return_indices is PyTorch's constructor argument.
template <size_t D>
struct MaxPoolOptions {
  MaxPoolOptions(IntOrTuple kernel_size) : kernel_size_(std::move(kernel_size)) {}  // NOLINT
  EMBER_ARG(IntOrTuple, kernel_size);
  EMBER_ARG(std::optional<IntOrTuple>, stride) = std::nullopt;

 public:
  /// .stride({2, 1}) (a braced tuple; .stride(2) takes the optional).
  auto stride(std::initializer_list<int64_t> s) -> decltype(*this) {
    stride_ = IntOrTuple(s);
    return *this;
  }
  EMBER_ARG(IntOrTuple, padding) = 0;
  EMBER_ARG(IntOrTuple, dilation) = 1;
  EMBER_ARG(bool, return_indices) = false;
  EMBER_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;
using MaxPool3dOptions = MaxPoolOptions<3>;

/// AvgPool1d / 2d / 3d's arguments (libtorch's AvgPoolOptions<D>; divisor_override is
/// AvgPool2d / 3d's only).
template <size_t D>
struct AvgPoolOptions {
  AvgPoolOptions(IntOrTuple kernel_size) : kernel_size_(std::move(kernel_size)) {}  // NOLINT
  EMBER_ARG(IntOrTuple, kernel_size);
  EMBER_ARG(std::optional<IntOrTuple>, stride) = std::nullopt;

 public:
  /// .stride({2, 1}) (a braced tuple; .stride(2) takes the optional).
  auto stride(std::initializer_list<int64_t> s) -> decltype(*this) {
    stride_ = IntOrTuple(s);
    return *this;
  }
  EMBER_ARG(IntOrTuple, padding) = 0;
  EMBER_ARG(bool, ceil_mode) = false;
  EMBER_ARG(bool, count_include_pad) = true;
  EMBER_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;
using AvgPool3dOptions = AvgPoolOptions<3>;

/// stride nullopt: kernel_size (PyTorch's stride=None). With return_indices the boxed forward
/// returns [values, indices] (PyTorch's tuple); the typed one returns the values only, and
/// forward_with_indices both.
class MaxPool2d : public Module {
 public:
  MaxPool2d(IntOrTuple kernel_size, std::optional<IntOrTuple> stride = std::nullopt,
            IntOrTuple padding = 0, IntOrTuple dilation = 1, bool return_indices = false,
            bool ceil_mode = false);
  explicit MaxPool2d(const MaxPool2dOptions& o)
      : MaxPool2d(o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.return_indices(),
                  o.ceil_mode()) {}
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
  explicit AvgPool2d(const AvgPool2dOptions& o)
      : AvgPool2d(o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad(),
                  o.divisor_override()) {}
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

/// AdaptiveAvgPool1d / 2d / 3d's arguments (libtorch's AdaptiveAvgPoolOptions<D>).
template <size_t D>
struct AdaptiveAvgPoolOptions {
  AdaptiveAvgPoolOptions(AdaptiveOutputSize output_size)  // NOLINT
      : output_size_(std::move(output_size)) {}
  EMBER_ARG(AdaptiveOutputSize, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<1>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<2>;
using AdaptiveAvgPool3dOptions = AdaptiveAvgPoolOptions<3>;

/// AdaptiveMaxPool1d / 2d / 3d's arguments (libtorch's AdaptiveMaxPoolOptions<D>, with
/// PyTorch's return_indices).
template <size_t D>
struct AdaptiveMaxPoolOptions {
  AdaptiveMaxPoolOptions(AdaptiveOutputSize output_size)  // NOLINT
      : output_size_(std::move(output_size)) {}
  EMBER_ARG(AdaptiveOutputSize, output_size);
  EMBER_ARG(bool, return_indices) = false;
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<1>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<2>;
using AdaptiveMaxPool3dOptions = AdaptiveMaxPoolOptions<3>;

class AdaptiveAvgPool2d : public Module {
 public:
  explicit AdaptiveAvgPool2d(AdaptiveOutputSize output_size);
  explicit AdaptiveAvgPool2d(const AdaptiveAvgPool2dOptions& o)
      : AdaptiveAvgPool2d(o.output_size()) {}
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
  explicit AdaptiveMaxPool2d(const AdaptiveMaxPool2dOptions& o)
      : AdaptiveMaxPool2d(o.output_size(), o.return_indices()) {}
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "output_size=2".
  std::string extra_repr() const override;
  AdaptiveOutputSize output_size;
  bool return_indices;
};

}  // namespace ember::nn
