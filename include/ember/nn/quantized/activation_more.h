// torch.ao.nn.quantized.LeakyReLU, ELU, Sigmoid and Softmax: quantized activations with output
// quantization parameters (quantized::leaky_relu, elu, sigmoid, softmax).
//
//   ember::nn::quantized::LeakyReLU act(0.05, 128, /*negative_slope=*/0.1);
//   ember::Tensor y = act(qx);   // QuantizedLeakyReLU(negative_slope=0.1)
//
// As in PyTorch: LeakyReLU keeps its scale and zero_point as buffers (in its state_dict), ELU,
// Sigmoid and Softmax as plain attributes; Sigmoid's name is "Sigmoid" (PyTorch 1.13 gives it
// no _get_name of its own).
#pragma once

#include <optional>
#include <string>

#include "ember/nn/module.h"
#include "ember/tensor_options.h"

namespace ember::nn::quantized {

class LeakyReLU : public Module {
 public:
  LeakyReLU(double scale, int64_t zero_point, double negative_slope = 0.01, bool inplace = false,
            TensorOptions options = {});
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<LeakyReLU> from_float(Module& observed);
  std::string extra_repr() const override;
  double negative_slope;
  bool inplace;
};

class ELU : public Module {
 public:
  ELU(double scale, int64_t zero_point, double alpha = 1.0);
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<ELU> from_float(Module& observed);
  std::string extra_repr() const override;
  double alpha;
  bool inplace = false;
  double scale;
  int64_t zero_point;
};

class Sigmoid : public Module {
 public:
  Sigmoid(double output_scale, int64_t output_zero_point);
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<Sigmoid> from_float(Module& observed);
  double output_scale;
  int64_t output_zero_point;
};

class Softmax : public Module {
 public:
  explicit Softmax(std::optional<int64_t> dim = std::nullopt, double scale = 1.0,
                   int64_t zero_point = 0);
  /// Without dim, PyTorch's implicit choice (0 for 0-, 1- and 3-d inputs, else 1) with its
  /// deprecation warning.
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<Softmax> from_float(Module& observed);
  std::string extra_repr() const override;
  std::optional<int64_t> dim;
  double scale;
  int64_t zero_point;
};

}  // namespace ember::nn::quantized
