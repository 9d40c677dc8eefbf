// The 1-d and 3-d pools of torch.nn (issue 16): MaxPool1d / 3d, AvgPool1d / 3d,
// AdaptiveAvgPool1d / 3d, AdaptiveMaxPool1d / 3d, LPPool1d / 2d and MaxUnpool1d / 2d / 3d. Sizes
// are kept as PyTorch keeps them (MaxPool3d(2) prints "kernel_size=2"; AvgPool1d and the unpools
// store tuples: "AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))").
//
//   ember::nn::MaxPool3d pool(2);
//   ember::nn::AdaptiveAvgPool1d gap(1);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/modules/activation_more.h"
#include "ember/nn/modules/pooling.h"
#include "ember/nn/modules/utils.h"

namespace ember::nn {

/// MaxPool1d and MaxPool3d (MaxPool2d is pooling.h's).
class MaxPoolNd : public Module {
 public:
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
  size_t spatial;

 protected:
  MaxPoolNd(std::string type_name, size_t spatial, IntOrTuple kernel_size,
            std::optional<IntOrTuple> stride, IntOrTuple padding, IntOrTuple dilation,
            bool return_indices, bool ceil_mode);
};

class MaxPool1d : public MaxPoolNd {
 public:
  MaxPool1d(IntOrTuple kernel_size, std::optional<IntOrTuple> stride = std::nullopt,
            IntOrTuple padding = 0, IntOrTuple dilation = 1, bool return_indices = false,
            bool ceil_mode = false)
      : MaxPoolNd("MaxPool1d", 1, kernel_size, stride, padding, dilation, return_indices, ceil_mode) {}
  explicit MaxPool1d(const MaxPool1dOptions& o)
      : MaxPool1d(o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.return_indices(),
                  o.ceil_mode()) {}
};

class MaxPool3d : public MaxPoolNd {
 public:
  MaxPool3d(IntOrTuple kernel_size, std::optional<IntOrTuple> stride = std::nullopt,
            IntOrTuple padding = 0, IntOrTuple dilation = 1, bool return_indices = false,
            bool ceil_mode = false)
      : MaxPoolNd("MaxPool3d", 3, kernel_size, stride, padding, dilation, return_indices, ceil_mode) {}
  explicit MaxPool3d(const MaxPool3dOptions& o)
      : MaxPool3d(o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.return_indices(),
                  o.ceil_mode()) {}
};

/// AvgPool1d (sizes stored as 1-tuples, as PyTorch's _single) and AvgPool3d.
class AvgPoolNd : public Module {
 public:
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "kernel_size=2, stride=2, padding=0".
  std::string extra_repr() const override;
  IntOrTuple kernel_size;
  IntOrTuple stride;
  IntOrTuple padding;
  bool ceil_mode;
  bool count_include_pad;
  std::optional<int64_t> divisor_override;
  size_t spatial;

 protected:
  AvgPoolNd(std::string type_name, size_t spatial, IntOrTuple kernel_size,
            std::optional<IntOrTuple> stride, IntOrTuple padding, bool ceil_mode,
            bool count_include_pad, std::optional<int64_t> divisor_override);
};

class AvgPool1d : public AvgPoolNd {
 public:
  AvgPool1d(IntOrTuple kernel_size, std::optional<IntOrTuple> stride = std::nullopt,
            IntOrTuple padding = 0, bool ceil_mode = false, bool count_include_pad = true);
  explicit AvgPool1d(const AvgPool1dOptions& o)
      : AvgPool1d(o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad()) {}
};

class AvgPool3d : public AvgPoolNd {
 public:
  AvgPool3d(IntOrTuple kernel_size, std::optional<IntOrTuple> stride = std::nullopt,
            IntOrTuple padding = 0, bool ceil_mode = false, bool count_include_pad = true,
            std::optional<int64_t> divisor_override = std::nullopt)
      : AvgPoolNd("AvgPool3d", 3, kernel_size, stride, padding, ceil_mode, count_include_pad,
                  divisor_override) {}
  explicit AvgPool3d(const AvgPool3dOptions& o)
      : AvgPool3d(o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad(),
                  o.divisor_override()) {}
};

/// AdaptiveAvgPool1d / 3d and AdaptiveMaxPool1d / 3d (`max` picks the kind).
class AdaptivePoolNd : public Module {
 public:
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "output_size=3", "output_size=(1, None, 2)".
  std::string extra_repr() const override;
  AdaptiveOutputSize output_size;
  bool return_indices;
  size_t spatial;
  bool max;

 protected:
  AdaptivePoolNd(std::string type_name, size_t spatial, bool max, AdaptiveOutputSize output_size,
                 bool return_indices);
  std::vector<int64_t> resolved(const Tensor& input) const;
};

class AdaptiveAvgPool1d : public AdaptivePoolNd {
 public:
  explicit AdaptiveAvgPool1d(AdaptiveOutputSize output_size)
      : AdaptivePoolNd("AdaptiveAvgPool1d", 1, false, std::move(output_size), false) {}
  explicit AdaptiveAvgPool1d(const AdaptiveAvgPool1dOptions& o)
      : AdaptiveAvgPool1d(o.output_size()) {}
};
class AdaptiveAvgPool3d : public AdaptivePoolNd {
 public:
  explicit AdaptiveAvgPool3d(AdaptiveOutputSize output_size)
      : AdaptivePoolNd("AdaptiveAvgPool3d", 3, false, std::move(output_size), false) {}
  explicit AdaptiveAvgPool3d(const AdaptiveAvgPool3dOptions& o)
      : AdaptiveAvgPool3d(o.output_size()) {}
};
class AdaptiveMaxPool1d : public AdaptivePoolNd {
 public:
  explicit AdaptiveMaxPool1d(AdaptiveOutputSize output_size, bool return_indices = false)
      : AdaptivePoolNd("AdaptiveMaxPool1d", 1, true, std::move(output_size), return_indices) {}
  explicit AdaptiveMaxPool1d(const AdaptiveMaxPool1dOptions& o)
      : AdaptiveMaxPool1d(o.output_size(), o.return_indices()) {}
};
class AdaptiveMaxPool3d : public AdaptivePoolNd {
 public:
  explicit AdaptiveMaxPool3d(AdaptiveOutputSize output_size, bool return_indices = false)
      : AdaptivePoolNd("AdaptiveMaxPool3d", 3, true, std::move(output_size), return_indices) {}
  explicit AdaptiveMaxPool3d(const AdaptiveMaxPool3dOptions& o)
      : AdaptiveMaxPool3d(o.output_size(), o.return_indices()) {}
};

/// LPPool1d / 2d: (sum over each window of x^p)^(1/p).
class LPPoolNd : public Module {
 public:
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "norm_type=2, kernel_size=3, stride=None, ceil_mode=False".
  std::string extra_repr() const override;
  Number norm_type;
  IntOrTuple kernel_size;
  std::optional<IntOrTuple> stride;
  bool ceil_mode;
  size_t spatial;

 protected:
  LPPoolNd(std::string type_name, size_t spatial, Number norm_type, IntOrTuple kernel_size,
           std::optional<IntOrTuple> stride, bool ceil_mode);
};

class LPPool1d : public LPPoolNd {
 public:
  LPPool1d(Number norm_type, IntOrTuple kernel_size, std::optional<IntOrTuple> stride = std::nullopt,
           bool ceil_mode = false)
      : LPPoolNd("LPPool1d", 1, norm_type, std::move(kernel_size), std::move(stride), ceil_mode) {}
};
class LPPool2d : public LPPoolNd {
 public:
  LPPool2d(Number norm_type, IntOrTuple kernel_size, std::optional<IntOrTuple> stride = std::nullopt,
           bool ceil_mode = false)
      : LPPoolNd("LPPool2d", 2, norm_type, std::move(kernel_size), std::move(stride), ceil_mode) {}
};

/// MaxUnpool1d / 2d / 3d: the values of a max pool put back at their indices (zeros elsewhere).
class MaxUnpoolNd : public Module {
 public:
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
  /// input, indices, optionally output_size.
  Value forward(const std::vector<Value>& inputs) override;
  /// "kernel_size=(2, 2), stride=(2, 2), padding=(0, 0)".
  std::string extra_repr() const override;
  std::vector<int64_t> kernel_size;
  std::vector<int64_t> stride;
  std::vector<int64_t> padding;

 protected:
  MaxUnpoolNd(std::string type_name, size_t spatial, const IntOrTuple& kernel_size,
              const std::optional<IntOrTuple>& stride, const IntOrTuple& padding);
};

class MaxUnpool1d : public MaxUnpoolNd {
 public:
  MaxUnpool1d(const IntOrTuple& kernel_size, const std::optional<IntOrTuple>& stride = std::nullopt,
              const IntOrTuple& padding = 0)
      : MaxUnpoolNd("MaxUnpool1d", 1, kernel_size, stride, padding) {}
};
class MaxUnpool2d : public MaxUnpoolNd {
 public:
  MaxUnpool2d(const IntOrTuple& kernel_size, const std::optional<IntOrTuple>& stride = std::nullopt,
              const IntOrTuple& padding = 0)
      : MaxUnpoolNd("MaxUnpool2d", 2, kernel_size, stride, padding) {}
};
class MaxUnpool3d : public MaxUnpoolNd {
 public:
  MaxUnpool3d(const IntOrTuple& kernel_size, const std::optional<IntOrTuple>& stride = std::nullopt,
              const IntOrTuple& padding = 0)
      : MaxUnpoolNd("MaxUnpool3d", 3, kernel_size, stride, padding) {}
};

}  // namespace ember::nn
