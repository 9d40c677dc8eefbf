// torch.nn.Identity, Linear and Bilinear. Parameters, names, default initialisation and repr
// are PyTorch 1.13's; `options` gives the parameters' dtype and device (kMeta builds a skeleton
// that holds no memory, to be materialised by to_empty or load_state_dict(sd, true, true)).
//
//   auto fc = std::make_shared<ember::nn::Linear>(3, 5);         // weight [5, 3], bias [5]
//   ember::Tensor y = (*fc)(x);                                   // hooks, then forward
//   auto big = ember::nn::Linear(4096, 4096, true, ember::kMeta); // no data
#pragma once

#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/options.h"
#include "ember/tensor_options.h"

namespace ember::nn {

/// Returns its input (arguments of PyTorch's constructor are ignored there, so none here).
class Identity : public Module {
 public:
  Identity() : Module("Identity") {}
  Tensor forward(const Tensor& input) { return input; }
  Value forward(const std::vector<Value>& inputs) override;
};

/// Linear's arguments: LinearOptions(in, out).bias(false).
struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  EMBER_ARG(int64_t, in_features);
  EMBER_ARG(int64_t, out_features);
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(TensorOptions, options) = {};
};

/// Bilinear's arguments: BilinearOptions(in1, in2, out).bias(false).
struct BilinearOptions {
  BilinearOptions(int64_t in1_features, int64_t in2_features, int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}
  EMBER_ARG(int64_t, in1_features);
  EMBER_ARG(int64_t, in2_features);
  EMBER_ARG(int64_t, out_features);
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(TensorOptions, options) = {};
};

/// y = x W^T + b. weight [out_features, in_features]: kaiming_uniform_(a = sqrt(5)), i.e.
/// U(-1/sqrt(in), 1/sqrt(in)); bias [out_features]: U(-1/sqrt(in), 1/sqrt(in)) (0 bound when
/// in_features is 0). bias=false registers "bias" as None.
class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true, TensorOptions options = {});
  explicit Linear(const LinearOptions& o)
      : Linear(o.in_features(), o.out_features(), o.bias(), o.options()) {}
  /// Re-draws the parameters as the constructor does (nothing happens to meta tensors).
  void reset_parameters();
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "in_features=3, out_features=5, bias=True".
  std::string extra_repr() const override;

  Tensor& weight() { return parameter("weight"); }
  /// Undefined when built with bias=false.
  Tensor& bias() { return parameter("bias"); }

  int64_t in_features;
  int64_t out_features;
};

/// y[..., o] = x1 W[o] x2^T + b[o]. weight [out, in1, in2] and bias [out] both
/// U(-1/sqrt(in1), 1/sqrt(in1)), as PyTorch's Bilinear.reset_parameters (not kaiming).
class Bilinear : public Module {
 public:
  Bilinear(int64_t in1_features, int64_t in2_features, int64_t out_features, bool bias = true,
           TensorOptions options = {});
  explicit Bilinear(const BilinearOptions& o)
      : Bilinear(o.in1_features(), o.in2_features(), o.out_features(), o.bias(), o.options()) {}
  void reset_parameters();
  Tensor forward(const Tensor& input1, const Tensor& input2);
  Value forward(const std::vector<Value>& inputs) override;
  using Module::operator();
  Tensor operator()(const Tensor& input1, const Tensor& input2) {
    return call({input1, input2}).to_tensor();
  }
  /// "in1_features=2, in2_features=3, out_features=4, bias=True".
  std::string extra_repr() const override;

  Tensor& weight() { return parameter("weight"); }
  Tensor& bias() { return parameter("bias"); }

  int64_t in1_features;
  int64_t in2_features;
  int64_t out_features;
};

}  // namespace ember::nn
