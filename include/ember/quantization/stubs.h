// torch.ao.quantization.stubs: QuantStub and DeQuantStub mark where a model's tensors become
// quantized and float again (identities until convert swaps them for nn::quantized::Quantize /
// DeQuantize), and QuantWrapper puts a module between the two.
//
//   auto wrapped = std::make_shared<ember::quantization::QuantWrapper>(model);
//   // QuantWrapper(
//   //   (quant): QuantStub()
//   //   (dequant): DeQuantStub()
//   //   (module): ...
//   // )   forward: dequant(module(quant(x)))
#pragma once

#include <memory>
#include <vector>

#include "ember/nn/module.h"
#include "ember/quantization/qconfig.h"

namespace ember::quantization {

/// Before convert, the identity (forward returns its input, whatever it is). A qconfig given
/// here is the stub's own (otherwise propagate_qconfig_ gives it its parent's).
class QuantStub : public nn::Module {
 public:
  explicit QuantStub(QConfigPtr qconfig = nullptr);
  Tensor forward(const Tensor& x) { return x; }
  Value forward(const std::vector<Value>& inputs) override;
};

/// The identity before convert; DeQuantize after.
class DeQuantStub : public nn::Module {
 public:
  explicit DeQuantStub(QConfigPtr qconfig = nullptr);
  Tensor forward(const Tensor& x) { return x; }
  Value forward(const std::vector<Value>& inputs) override;
};

/// Children "quant" (QuantStub), "dequant" (DeQuantStub) and "module"; the stubs get the
/// module's qconfig, the wrapper its training mode. forward: dequant(module(quant(x))), each
/// through its call (hooks fire), read from the module tree (a replaced child is the one used).
class QuantWrapper : public nn::Module {
 public:
  explicit QuantWrapper(std::shared_ptr<nn::Module> module);
  Tensor forward(const Tensor& x);
  Value forward(const std::vector<Value>& inputs) override;
};

}  // namespace ember::quantization
