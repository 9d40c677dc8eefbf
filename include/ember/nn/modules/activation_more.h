// The remaining activation layers of torch.nn (issue 16): LeakyReLU, PReLU, ELU, SELU, CELU,
// GLU, Softplus, Softsign, Softshrink, Hardshrink, Tanhshrink, Mish, LogSigmoid, Hardsigmoid,
// Threshold, Softmin, Softmax2d, RReLU. Options are public members under PyTorch's attribute
// names; numbers PyTorch keeps as the user gave them (an int or a float) are nn::Number, so that
// repr prints "Softplus(beta=1, threshold=20)" and "ELU(alpha=1.0)" as PyTorch does.
//
//   ember::nn::LeakyReLU act(0.2);      // LeakyReLU(negative_slope=0.2)
//   ember::nn::PReLU prelu(16);          // a learnable slope per channel, init 0.25
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/tensor_options.h"

namespace ember::nn {

/// A hyperparameter as given: an int or a float (Python's repr of either).
class Number {
 public:
  Number(double v) : value_(v) {}                                             // NOLINT
  Number(int v) : value_(static_cast<double>(v)), is_int_(true) {}            // NOLINT
  Number(int64_t v) : value_(static_cast<double>(v)), is_int_(true) {}        // NOLINT
  double value() const { return value_; }
  bool is_int() const { return is_int_; }
  /// "1" for an int, Python's float repr ("0.01", "1.0") otherwise.
  std::string repr() const;
  operator double() const { return value_; }  // NOLINT: used where a double is expected

 private:
  double value_;
  bool is_int_ = false;
};

#define EMBER_UNARY_LAYER_DECLS                                      \
  Tensor forward(const Tensor& input);                               \
  Value forward(const std::vector<Value>& inputs) override;

class LeakyReLU : public Module {
 public:
  explicit LeakyReLU(Number negative_slope = 0.01, bool inplace = false)
      : Module("LeakyReLU"), negative_slope(negative_slope), inplace(inplace) {}
  EMBER_UNARY_LAYER_DECLS
  std::string extra_repr() const override;
  Number negative_slope;
  bool inplace;
};

/// A learnable negative slope: one (num_parameters = 1) or one per channel, initialised to init.
class PReLU : public Module {
 public:
  explicit PReLU(int64_t num_parameters = 1, double init = 0.25, TensorOptions options = {});
  EMBER_UNARY_LAYER_DECLS
  void reset_parameters();
  std::string extra_repr() const override;
  Tensor& weight() { return parameter("weight"); }
  int64_t num_parameters;
  double init;
};

class ELU : public Module {
 public:
  explicit ELU(Number alpha = 1.0, bool inplace = false) : Module("ELU"), alpha(alpha), inplace(inplace) {}
  EMBER_UNARY_LAYER_DECLS
  std::string extra_repr() const override;
  Number alpha;
  bool inplace;
};

class SELU : public Module {
 public:
  explicit SELU(bool inplace = false) : Module("SELU"), inplace(inplace) {}
  EMBER_UNARY_LAYER_DECLS
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  bool inplace;
};

class CELU : public Module {
 public:
  explicit CELU(Number alpha = 1.0, bool inplace = false) : Module("CELU"), alpha(alpha), inplace(inplace) {}
  EMBER_UNARY_LAYER_DECLS
  std::string extra_repr() const override;
  Number alpha;
  bool inplace;
};

/// a * sigmoid(b) for the two halves of `dim`.
class GLU : public Module {
 public:
  explicit GLU(int64_t dim = -1) : Module("GLU"), dim(dim) {}
  EMBER_UNARY_LAYER_DECLS
  std::string extra_repr() const override { return "dim=" + std::to_string(dim); }
  int64_t dim;
};

class Softplus : public Module {
 public:
  explicit Softplus(Number beta = 1, Number threshold = 20)
      : Module("Softplus"), beta(beta), threshold(threshold) {}
  EMBER_UNARY_LAYER_DECLS
  std::string extra_repr() const override;
  Number beta;
  Number threshold;
};

class Softsign : public Module {
 public:
  Softsign() : Module("Softsign") {}
  EMBER_UNARY_LAYER_DECLS
};

/// repr prints the bare lambda ("Softshrink(0.5)"), as PyTorch.
class Softshrink : public Module {
 public:
  explicit Softshrink(Number lambd = 0.5) : Module("Softshrink"), lambd(lambd) {}
  EMBER_UNARY_LAYER_DECLS
  std::string extra_repr() const override { return lambd.repr(); }
  Number lambd;
};

class Hardshrink : public Module {
 public:
  explicit Hardshrink(Number lambd = 0.5) : Module("Hardshrink"), lambd(lambd) {}
  EMBER_UNARY_LAYER_DECLS
  std::string extra_repr() const override { return lambd.repr(); }
  Number lambd;
};

class Tanhshrink : public Module {
 public:
  Tanhshrink() : Module("Tanhshrink") {}
  EMBER_UNARY_LAYER_DECLS
};

class Mish : public Module {
 public:
  explicit Mish(bool inplace = false) : Module("Mish"), inplace(inplace) {}
  EMBER_UNARY_LAYER_DECLS
  std::string extra_repr() const override { return inplace ? "inplace=True" : ""; }
  bool inplace;
};

class LogSigmoid : public Module {
 public:
  LogSigmoid() : Module("LogSigmoid") {}
  EMBER_UNARY_LAYER_DECLS
};

/// relu6(x + 3) / 6. PyTorch's repr does not show inplace ("Hardsigmoid()").
class Hardsigmoid : public Module {
 public:
  explicit Hardsigmoid(bool inplace = false) : Module("Hardsigmoid"), inplace(inplace) {}
  EMBER_UNARY_LAYER_DECLS
  bool inplace;
};

/// x where x > threshold, else value.
class Threshold : public Module {
 public:
  Threshold(Number threshold, Number value, bool inplace = false)
      : Module("Threshold"), threshold(threshold), value(value), inplace(inplace) {}
  EMBER_UNARY_LAYER_DECLS
  std::string extra_repr() const override;
  Number threshold;
  Number value;
  bool inplace;
};

/// softmax(-x) over dim (PyTorch's implicit dim, with its warning, when none is given).
class Softmin : public Module {
 public:
  explicit Softmin(std::optional<int64_t> dim = std::nullopt) : Module("Softmin"), dim(dim) {}
  EMBER_UNARY_LAYER_DECLS
  std::string extra_repr() const override;
  std::optional<int64_t> dim;
};

/// softmax over the channels (dim -3) of a 3-d or 4-d input.
class Softmax2d : public Module {
 public:
  Softmax2d() : Module("Softmax2d") {}
  EMBER_UNARY_LAYER_DECLS
};

/// Leaky ReLU with a random slope in [lower, upper] while training, their mean in eval.
class RReLU : public Module {
 public:
  explicit RReLU(Number lower = 1.0 / 8, Number upper = 1.0 / 3, bool inplace = false)
      : Module("RReLU"), lower(lower), upper(upper), inplace(inplace) {}
  EMBER_UNARY_LAYER_DECLS
  std::string extra_repr() const override;
  Number lower;
  Number upper;
  bool inplace;
};

#undef EMBER_UNARY_LAYER_DECLS

}  // namespace ember::nn
