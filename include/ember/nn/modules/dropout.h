// torch.nn.Dropout: zeroes each element with probability p and scales the others by 1/(1-p)
// while training; the identity in eval mode. torch.nn.Dropout2d: the same for whole channels
// (input[n, c] of an [N, C, H, W] input).
//
//   ember::nn::Dropout drop(0.25);
//   drop.eval();   // now drop(x) is x
#pragma once

#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/options.h"

namespace ember::nn {

/// Dropout / Dropout2d's arguments (libtorch's DropoutOptions).
struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT
  EMBER_ARG(double, p);
  EMBER_ARG(bool, inplace) = false;
};
using Dropout1dOptions = DropoutOptions;
using Dropout2dOptions = DropoutOptions;
using Dropout3dOptions = DropoutOptions;

class Dropout : public Module {
 public:
  /// p outside [0, 1]: ValueError "dropout probability has to be between 0 and 1, but got 1.5".
  explicit Dropout(double p = 0.5, bool inplace = false);
  explicit Dropout(const DropoutOptions& o) : Dropout(o.p(), o.inplace()) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "p=0.5, inplace=False".
  std::string extra_repr() const override;
  double p;
  bool inplace;
};

class Dropout2d : public Module {
 public:
  /// p outside [0, 1]: ValueError, as Dropout.
  explicit Dropout2d(double p = 0.5, bool inplace = false);
  explicit Dropout2d(const DropoutOptions& o) : Dropout2d(o.p(), o.inplace()) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// "p=0.5, inplace=False".
  std::string extra_repr() const override;
  double p;
  bool inplace;
};

}  // namespace ember::nn
