// The float fused modules (torch.ao.nn.intrinsic.modules.fused): containers whose constructors
// only check their arguments' exact classes.
#include "ember/nn/intrinsic/fused.h"

#include <typeinfo>

#include "ember/error.h"
#include "ember/nn/module_clone.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/linear.h"

namespace ember::nn::intrinsic {

namespace {

std::string names_of(const std::vector<std::string>& names) {
  std::string out = "(";
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + ")";
}

// The class name C++ code sees for a type_info: the layers' own names.
std::string layer_name(const std::type_info& t) {
  if (t == typeid(Conv1d)) return "Conv1d";
  if (t == typeid(Conv2d)) return "Conv2d";
  if (t == typeid(Conv3d)) return "Conv3d";
  if (t == typeid(Linear)) return "Linear";
  if (t == typeid(ReLU)) return "ReLU";
  if (t == typeid(BatchNorm1d)) return "BatchNorm1d";
  if (t == typeid(BatchNorm2d)) return "BatchNorm2d";
  if (t == typeid(BatchNorm3d)) return "BatchNorm3d";
  return t.name();
}

const std::vector<std::shared_ptr<Module>>& checked(
    const std::string& type_name, const std::vector<std::shared_ptr<Module>>& modules,
    const std::vector<const std::type_info*>& types) {
  EMBER_ASSERT(modules.size() == types.size());
  bool ok = true;
  std::vector<std::string> expected, got;
  for (size_t i = 0; i < modules.size(); ++i) {
    const Module* m = modules[i].get();
    ok = ok && m != nullptr && typeid(*m) == *types[i];
    expected.push_back(layer_name(*types[i]));
    got.push_back(m ? m->type_name() : "None");
  }
  EMBER_CHECK_ASSERTION(ok, type_name, ": incorrect types for input modules: expected ",
                   names_of(expected), ", got ", names_of(got));
  return modules;
}

}  // namespace

FusedModule::FusedModule(std::string type_name, const std::vector<std::shared_ptr<Module>>& modules,
                         const std::vector<const std::type_info*>& types)
    : Sequential(type_name, checked(type_name, modules, types)) {}

ConvReLU1d::ConvReLU1d(std::shared_ptr<Module> conv, std::shared_ptr<Module> relu)
    : FusedModule("ConvReLU1d", {std::move(conv), std::move(relu)},
                  {&typeid(Conv1d), &typeid(ReLU)}) {}

ConvReLU2d::ConvReLU2d(std::shared_ptr<Module> conv, std::shared_ptr<Module> relu)
    : FusedModule("ConvReLU2d", {std::move(conv), std::move(relu)},
                  {&typeid(Conv2d), &typeid(ReLU)}) {}

ConvReLU3d::ConvReLU3d(std::shared_ptr<Module> conv, std::shared_ptr<Module> relu)
    : FusedModule("ConvReLU3d", {std::move(conv), std::move(relu)},
                  {&typeid(Conv3d), &typeid(ReLU)}) {}

LinearReLU::LinearReLU(std::shared_ptr<Module> linear, std::shared_ptr<Module> relu)
    : FusedModule("LinearReLU", {std::move(linear), std::move(relu)},
                  {&typeid(Linear), &typeid(ReLU)}) {}

ConvBn1d::ConvBn1d(std::shared_ptr<Module> conv, std::shared_ptr<Module> bn)
    : FusedModule("ConvBn1d", {std::move(conv), std::move(bn)},
                  {&typeid(Conv1d), &typeid(BatchNorm1d)}) {}

ConvBn2d::ConvBn2d(std::shared_ptr<Module> conv, std::shared_ptr<Module> bn)
    : FusedModule("ConvBn2d", {std::move(conv), std::move(bn)},
                  {&typeid(Conv2d), &typeid(BatchNorm2d)}) {}

ConvBn3d::ConvBn3d(std::shared_ptr<Module> conv, std::shared_ptr<Module> bn)
    : FusedModule("ConvBn3d", {std::move(conv), std::move(bn)},
                  {&typeid(Conv3d), &typeid(BatchNorm3d)}) {}

ConvBnReLU1d::ConvBnReLU1d(std::shared_ptr<Module> conv, std::shared_ptr<Module> bn,
                           std::shared_ptr<Module> relu)
    : FusedModule("ConvBnReLU1d", {std::move(conv), std::move(bn), std::move(relu)},
                  {&typeid(Conv1d), &typeid(BatchNorm1d), &typeid(ReLU)}) {}

ConvBnReLU2d::ConvBnReLU2d(std::shared_ptr<Module> conv, std::shared_ptr<Module> bn,
                           std::shared_ptr<Module> relu)
    : FusedModule("ConvBnReLU2d", {std::move(conv), std::move(bn), std::move(relu)},
                  {&typeid(Conv2d), &typeid(BatchNorm2d), &typeid(ReLU)}) {}

ConvBnReLU3d::ConvBnReLU3d(std::shared_ptr<Module> conv, std::shared_ptr<Module> bn,
                           std::shared_ptr<Module> relu)
    : FusedModule("ConvBnReLU3d", {std::move(conv), std::move(bn), std::move(relu)},
                  {&typeid(Conv3d), &typeid(BatchNorm3d), &typeid(ReLU)}) {}

BNReLU2d::BNReLU2d(std::shared_ptr<Module> batch_norm, std::shared_ptr<Module> relu)
    : FusedModule("BNReLU2d", {std::move(batch_norm), std::move(relu)},
                  {&typeid(BatchNorm2d), &typeid(ReLU)}) {}

BNReLU3d::BNReLU3d(std::shared_ptr<Module> batch_norm, std::shared_ptr<Module> relu)
    : FusedModule("BNReLU3d", {std::move(batch_norm), std::move(relu)},
                  {&typeid(BatchNorm3d), &typeid(ReLU)}) {}

LinearBn1d::LinearBn1d(std::shared_ptr<Module> linear, std::shared_ptr<Module> bn)
    : FusedModule("LinearBn1d", {std::move(linear), std::move(bn)},
                  {&typeid(Linear), &typeid(BatchNorm1d)}) {}

namespace {
const bool registered = [] {
  register_cloneable<ConvReLU1d>();
  register_cloneable<ConvReLU2d>();
  register_cloneable<ConvReLU3d>();
  register_cloneable<ConvBn3d>();
  register_cloneable<ConvBnReLU3d>();
  register_cloneable<LinearReLU>();
  register_cloneable<ConvBn1d>();
  register_cloneable<ConvBn2d>();
  register_cloneable<ConvBnReLU1d>();
  register_cloneable<ConvBnReLU2d>();
  register_cloneable<BNReLU2d>();
  register_cloneable<BNReLU3d>();
  register_cloneable<LinearBn1d>();
  return true;
}();
}  // namespace

}  // namespace ember::nn::intrinsic
