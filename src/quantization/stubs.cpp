// QuantStub, DeQuantStub and QuantWrapper (torch.ao.quantization.stubs).
#include "ember/quantization/stubs.h"

#include "../nn/modules/module_util.h"
#include "ember/error.h"
#include "ember/nn/module_clone.h"

namespace ember::quantization {

namespace {

Value identity_forward(const std::string& type_name, const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name, inputs, {"x"});
  return inputs[0];
}

// torch: `if qconfig: self.qconfig = qconfig` (no attribute at all otherwise).
void maybe_set_qconfig(nn::Module& m, QConfigPtr qconfig) {
  if (qconfig) m.set_qconfig(std::move(qconfig));
}

nn::Module& child_of(nn::Module& m, const char* name) {
  std::shared_ptr<nn::Module> c = m.child(name);
  EMBER_CHECK_TYPE(c != nullptr, "'NoneType' object is not callable");
  return *c;
}

}  // namespace

QuantStub::QuantStub(QConfigPtr qconfig) : Module("QuantStub") {
  maybe_set_qconfig(*this, std::move(qconfig));
}

Value QuantStub::forward(const std::vector<Value>& inputs) {
  return identity_forward(type_name(), inputs);
}

DeQuantStub::DeQuantStub(QConfigPtr qconfig) : Module("DeQuantStub") {
  maybe_set_qconfig(*this, std::move(qconfig));
}

Value DeQuantStub::forward(const std::vector<Value>& inputs) {
  return identity_forward(type_name(), inputs);
}

QuantWrapper::QuantWrapper(std::shared_ptr<nn::Module> module) : Module("QuantWrapper") {
  EMBER_CHECK_TYPE(module != nullptr, "QuantWrapper: expected a module, got None");
  QConfigPtr qconfig = module->has_qconfig() ? module->qconfig() : nullptr;
  register_module("quant", std::make_shared<QuantStub>(qconfig));
  register_module("dequant", std::make_shared<DeQuantStub>(qconfig));
  const bool training = module->is_training();
  register_module("module", std::move(module));
  train(training);
}

Tensor QuantWrapper::forward(const Tensor& x) {
  return forward(std::vector<Value>{x}).to_tensor();
}

Value QuantWrapper::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"X"});
  Value x = child_of(*this, "quant").call({inputs[0]});
  x = child_of(*this, "module").call({x});
  return child_of(*this, "dequant").call({x});
}

namespace {
const bool registered = [] {
  nn::register_cloneable<QuantStub>();
  nn::register_cloneable<DeQuantStub>();
  nn::register_cloneable<QuantWrapper>();
  return true;
}();
}  // namespace

}  // namespace ember::quantization
