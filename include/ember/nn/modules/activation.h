// The activation layers of torch.nn: ReLU, ReLU6, Hardtanh, Hardswish, Sigmoid, Tanh, GELU,
// SiLU, Softmax, LogSoftmax. Each holds only its options (public, as PyTorch's attributes) and
// calls nn::functional; repr is PyTorch's ("ReLU(inplace=True)", "Softmax(dim=1)").
//
//   ember::nn::GELU gelu("tanh");
//   ember::Tensor y = gelu(x);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

class ReLU : public Module {
 public:
  explicit ReLU(bool inplace = false) : Module("ReLU"), inplace(inplace) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  bool inplace;
};

/// Clamps to [min_val, max_val]; max_val must exceed min_val.
class Hardtanh : public Module {
 public:
  explicit Hardtanh(double min_val = -1.0, double max_val = 1.0, bool inplace = false)
      : Hardtanh("Hardtanh", min_val, max_val, inplace) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "min_val=-1.0, max_val=1.0" (+ ", inplace=True").
  std::string extra_repr() const override;
  double min_val;
  double max_val;
  bool inplace;

 protected:
  Hardtanh(std::string type_name, double min_val, double max_val, bool inplace);
};

/// Hardtanh(0, 6), as in PyTorch (a subclass printing only its inplace flag).
class ReLU6 : public Hardtanh {
 public:
  explicit ReLU6(bool inplace = false) : Hardtanh("ReLU6", 0.0, 6.0, inplace) {}
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
};

/// x * relu6(x + 3) / 6. PyTorch's repr does not show inplace ("Hardswish()").
class Hardswish : public Module {
 public:
  explicit Hardswish(bool inplace = false) : Module("Hardswish"), inplace(inplace) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  bool inplace;
};

class Sigmoid : public Module {
 public:
  Sigmoid() : Module("Sigmoid") {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
};

class Tanh : public Module {
 public:
  Tanh() : Module("Tanh") {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
};

/// approximate: "none" (erf) or "tanh" (checked when forward runs, as in PyTorch).
class GELU : public Module {
 public:
  explicit GELU(std::string approximate = "none") : Module("GELU"), approximate(std::move(approximate)) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "approximate='none'".
  std::string extra_repr() const override { return "approximate='" + approximate + "'"; }
  std::string approximate;
};

class SiLU : public Module {
 public:
  explicit SiLU(bool inplace = false) : Module("SiLU"), inplace(inplace) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  bool inplace;
};

/// softmax over `dim`. Without a dim, PyTorch's deprecated implicit choice (with its warning):
/// dim 0 for 0-, 1- and 3-d inputs, else 1.
class Softmax : public Module {
 public:
  explicit Softmax(std::optional<int64_t> dim = std::nullopt) : Module("Softmax"), dim(dim) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "dim=1" or "dim=None".
  std::string extra_repr() const override;
  std::optional<int64_t> dim;
};

class LogSoftmax : public Module {
 public:
  explicit LogSoftmax(std::optional<int64_t> dim = std::nullopt) : Module("LogSoftmax"), dim(dim) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  std::string extra_repr() const override;
  std::optional<int64_t> dim;
};

}  // namespace ember::nn
