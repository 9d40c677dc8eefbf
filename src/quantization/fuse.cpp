// fuse_modules and the fuser methods (quantization-spec § 4.1). The checks and their order are
// PyTorch 1.13's (fuser_method_mappings.py), so the same inputs fail the same way.
#include "ember/quantization/fuse.h"

#include <cxxabi.h>

#include <cstdlib>
#include <typeinfo>

#include "ember/error.h"
#include "ember/nn/intrinsic/fused.h"
#include "ember/nn/module_clone.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/utils/fusion.h"

namespace ember::quantization {

namespace nni = nn::intrinsic;

namespace {

template <class T>
T& as(const ModulePtr& m, const char* what) {
  auto* p = dynamic_cast<T*>(m.get());
  EMBER_CHECK_TYPE(p != nullptr, "fusion: expected ", what, ", got ",
                   m ? m->type_name() : std::string("None"));
  return *p;
}

bool is_exactly(const ModulePtr& m, const std::type_info& t) {
  return m && typeid(*m) == t;
}

// PyTorch's QAT checks (its texts say BatchNorm2d / Conv2d whatever the dims are).
void check_qat_bn(const nn::BatchNormBase& bn, int64_t out_channels, bool conv_bn_only) {
  EMBER_CHECK_ASSERTION(bn.num_features == out_channels,
              conv_bn_only ? "Output channel of Conv2d must match num_features of BatchNorm2d"
                           : "Output channel of Conv must match num_features of BatchNorm");
  EMBER_CHECK_ASSERTION(bn.affine, conv_bn_only ? "Only support fusing BatchNorm2d with affine set to True"
                                      : "Only support fusing BatchNorm with affine set to True");
  EMBER_CHECK_ASSERTION(bn.track_running_stats,
              conv_bn_only
                  ? "Only support fusing BatchNorm2d with tracking_running_stats set to True"
                  : "Only support fusing BatchNorm with tracking_running_stats set to True");
}

std::string modules_str(const std::vector<ModulePtr>& mods) {
  std::string out = "(";
  for (size_t i = 0; i < mods.size(); ++i) {
    out += (i ? ", " : "") + (mods[i] ? mods[i]->repr() : std::string("None"));
  }
  return out + (mods.size() == 1 ? ",)" : ")");
}

// Fuser methods that ignore is_qat and put the modules in a container (sequential_wrapper2).
template <class Fused>
FuserMethod wrap2() {
  return [](bool, const std::vector<ModulePtr>& m) -> ModulePtr {
    return std::make_shared<Fused>(m.at(0), m.at(1));
  };
}

FuserMethod method2(ModulePtr (*f)(bool, const ModulePtr&, const ModulePtr&)) {
  return [f](bool is_qat, const std::vector<ModulePtr>& m) { return f(is_qat, m.at(0), m.at(1)); };
}

}  // namespace

ModulePtr fuse_conv_bn(bool is_qat, const ModulePtr& conv, const ModulePtr& bn) {
  auto& c = as<nn::ConvNd>(conv, "a convolution");
  auto& b = as<nn::BatchNormBase>(bn, "a BatchNorm");
  EMBER_CHECK_ASSERTION(c.is_training() == b.is_training(),
              "Conv and BN both must be in the same mode (train or eval).");
  if (is_qat) {
    check_qat_bn(b, c.out_channels, true);
    if (is_exactly(conv, typeid(nn::Conv1d))) return std::make_shared<nni::ConvBn1d>(conv, bn);
    if (is_exactly(conv, typeid(nn::Conv2d))) return std::make_shared<nni::ConvBn2d>(conv, bn);
    if (is_exactly(conv, typeid(nn::Conv3d))) return std::make_shared<nni::ConvBn3d>(conv, bn);
    EMBER_FAIL_KIND(ErrorKind::NotImplemented, "Cannot fuse train modules: ",
                    modules_str({conv, bn}));
  }
  return nn::utils::fuse_conv_bn_eval(c, b);
}

ModulePtr fuse_conv_bn_relu(bool is_qat, const ModulePtr& conv, const ModulePtr& bn,
                            const ModulePtr& relu) {
  auto& c = as<nn::ConvNd>(conv, "a convolution");
  auto& b = as<nn::BatchNormBase>(bn, "a BatchNorm");
  EMBER_CHECK_TYPE(relu != nullptr, "fusion: expected a ReLU, got None");
  EMBER_CHECK_ASSERTION(c.is_training() == b.is_training() && b.is_training() == relu->is_training(),
              "Conv and BN both must be in the same mode (train or eval).");
  if (is_qat) {
    check_qat_bn(b, c.out_channels, false);
    if (is_exactly(conv, typeid(nn::Conv1d)))
      return std::make_shared<nni::ConvBnReLU1d>(conv, bn, relu);
    if (is_exactly(conv, typeid(nn::Conv2d)))
      return std::make_shared<nni::ConvBnReLU2d>(conv, bn, relu);
    if (is_exactly(conv, typeid(nn::Conv3d)))
      return std::make_shared<nni::ConvBnReLU3d>(conv, bn, relu);
    EMBER_FAIL_KIND(ErrorKind::NotImplemented, "Cannot fuse train modules: ",
                    modules_str({conv, bn, relu}));
  }
  if (is_exactly(conv, typeid(nn::Conv1d)))
    return std::make_shared<nni::ConvReLU1d>(nn::utils::fuse_conv_bn_eval(c, b), relu);
  if (is_exactly(conv, typeid(nn::Conv2d)))
    return std::make_shared<nni::ConvReLU2d>(nn::utils::fuse_conv_bn_eval(c, b), relu);
  if (is_exactly(conv, typeid(nn::Conv3d)))
    return std::make_shared<nni::ConvReLU3d>(nn::utils::fuse_conv_bn_eval(c, b), relu);
  EMBER_FAIL_KIND(ErrorKind::NotImplemented, "Cannot fuse eval modules: ",
                  modules_str({conv, bn, relu}));
}

ModulePtr fuse_linear_bn(bool is_qat, const ModulePtr& linear, const ModulePtr& bn) {
  auto& l = as<nn::Linear>(linear, "a Linear");
  auto& b = as<nn::BatchNormBase>(bn, "a BatchNorm");
  EMBER_CHECK_ASSERTION(l.is_training() == b.is_training(),
              "Linear and BN both must be in the same mode (train or eval).");
  if (is_qat) {
    EMBER_CHECK_ASSERTION(b.num_features == l.out_features,
                "Output features of Linear must match num_features of BatchNorm1d");
    EMBER_CHECK_ASSERTION(b.affine, "Only support fusing BatchNorm1d with affine set to True");
    EMBER_CHECK_ASSERTION(b.track_running_stats,
                "Only support fusing BatchNorm1d with tracking_running_stats set to True");
    return std::make_shared<nni::LinearBn1d>(linear, bn);
  }
  return nn::utils::fuse_linear_bn_eval(l, b);
}

ModulePtr fuse_convtranspose_bn(bool is_qat, const ModulePtr& convt, const ModulePtr& bn) {
  auto& c = as<nn::ConvNd>(convt, "a transposed convolution");
  auto& b = as<nn::BatchNormBase>(bn, "a BatchNorm");
  EMBER_CHECK_ASSERTION(c.is_training() == b.is_training(),
              "ConvTranspose and BN both must be in the same mode (train or eval).");
  EMBER_CHECK(!is_qat, "Fusing ConvTranspose+BatchNorm not yet supported in QAT.");
  return nn::utils::fuse_conv_bn_eval(c, b, /*transpose=*/true);
}

const FuserMethodMapping& default_op_list_to_fuser_method() {
  using std::type_index;
  static const FuserMethodMapping table = [] {
    FuserMethodMapping t;
    const FuserMethod conv_bn_relu = [](bool is_qat, const std::vector<ModulePtr>& m) {
      return fuse_conv_bn_relu(is_qat, m.at(0), m.at(1), m.at(2));
    };
    t[{typeid(nn::Conv1d), typeid(nn::BatchNorm1d)}] = method2(fuse_conv_bn);
    t[{typeid(nn::Conv1d), typeid(nn::BatchNorm1d), typeid(nn::ReLU)}] = conv_bn_relu;
    t[{typeid(nn::Conv2d), typeid(nn::BatchNorm2d)}] = method2(fuse_conv_bn);
    t[{typeid(nn::Conv2d), typeid(nn::BatchNorm2d), typeid(nn::ReLU)}] = conv_bn_relu;
    t[{typeid(nn::Conv3d), typeid(nn::BatchNorm3d)}] = method2(fuse_conv_bn);
    t[{typeid(nn::Conv3d), typeid(nn::BatchNorm3d), typeid(nn::ReLU)}] = conv_bn_relu;
    t[{typeid(nn::Conv1d), typeid(nn::ReLU)}] = wrap2<nni::ConvReLU1d>();
    t[{typeid(nn::Conv2d), typeid(nn::ReLU)}] = wrap2<nni::ConvReLU2d>();
    t[{typeid(nn::Conv3d), typeid(nn::ReLU)}] = wrap2<nni::ConvReLU3d>();
    t[{typeid(nn::Linear), typeid(nn::BatchNorm1d)}] = method2(fuse_linear_bn);
    t[{typeid(nn::Linear), typeid(nn::ReLU)}] = wrap2<nni::LinearReLU>();
    t[{typeid(nn::BatchNorm2d), typeid(nn::ReLU)}] = wrap2<nni::BNReLU2d>();
    t[{typeid(nn::BatchNorm3d), typeid(nn::ReLU)}] = wrap2<nni::BNReLU3d>();
    t[{typeid(nn::ConvTranspose1d), typeid(nn::BatchNorm1d)}] = method2(fuse_convtranspose_bn);
    t[{typeid(nn::ConvTranspose2d), typeid(nn::BatchNorm2d)}] = method2(fuse_convtranspose_bn);
    t[{typeid(nn::ConvTranspose3d), typeid(nn::BatchNorm3d)}] = method2(fuse_convtranspose_bn);
    return t;
  }();
  return table;
}

std::string op_list_str(const OpList& op_list) {
  std::string out = "(";
  for (size_t i = 0; i < op_list.size(); ++i) {
    int status = 0;
    char* demangled = abi::__cxa_demangle(op_list[i].name(), nullptr, nullptr, &status);
    std::string name = status == 0 && demangled ? demangled : op_list[i].name();
    std::free(demangled);
    // "ember::nn::Conv2d" -> "Conv2d", as the class names PyTorch prints end.
    const auto colon = name.rfind("::");
    if (colon != std::string::npos && name.find('<') == std::string::npos) name = name.substr(colon + 2);
    out += (i ? ", " : "") + name;
  }
  return out + (op_list.size() == 1 ? ",)" : ")");
}

FuserMethod get_fuser_method(const OpList& op_list, const FuserMethodMapping& additional) {
  // get_combined_dict: the additional mapping's entries win.
  if (auto it = additional.find(op_list); it != additional.end()) return it->second;
  const FuserMethodMapping& table = default_op_list_to_fuser_method();
  auto it = table.find(op_list);
  EMBER_CHECK_ASSERTION(it != table.end(), "did not find fuser method for: ", op_list_str(op_list), " ");
  return it->second;
}

void move_fusion_hooks(nn::Module& first, nn::Module& last, nn::Module& fused) {
  // Taken before registering: `fused` may be `first` itself (a container wrapping it keeps
  // it as a child, but a fuser method may also return its argument).
  auto pre_hooks = first.take_forward_pre_hooks();
  auto hooks = last.take_forward_hooks();
  for (auto& h : pre_hooks) fused.register_forward_pre_hook(std::move(h));
  for (auto& h : hooks) fused.register_forward_hook(std::move(h));
}

std::vector<ModulePtr> fuse_known_modules(const std::vector<ModulePtr>& modules, bool is_qat,
                                          const FuserMethodMapping& additional) {
  EMBER_CHECK_VALUE(!modules.empty(), "fuse_known_modules: no modules to fuse");
  OpList types;
  for (const auto& m : modules) {
    EMBER_CHECK_TYPE(m != nullptr, "fuse_known_modules: a module to fuse is None");
    types.emplace_back(typeid(*m));
  }
  const FuserMethod method = get_fuser_method(types, additional);
  ModulePtr fused = method(is_qat, modules);
  EMBER_CHECK_TYPE(fused != nullptr, "fuser method for ", op_list_str(types), " returned None");
  move_fusion_hooks(*modules.front(), *modules.back(), *fused);
  std::vector<ModulePtr> out{fused};
  for (size_t i = 1; i < modules.size(); ++i) {
    auto identity = std::make_shared<nn::Identity>();
    identity->train(modules.front()->is_training());
    out.push_back(identity);
  }
  return out;
}

ModulePtr get_submodule_by_path(nn::Module& model, const std::string& path) {
  // Python's getattr chain: a missing name is an AttributeError naming the class; a child
  // registered as None is returned as null (the fuser then refuses it), or fails the next step.
  ModulePtr cur = nullptr;
  std::string cur_class = model.type_name();
  nn::Module* parent = &model;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string token =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    EMBER_CHECK_KIND(ErrorKind::Attribute, parent != nullptr, "'", cur_class,
                     "' object has no attribute '", token, "'");
    bool present = false;
    for (const auto& [name, child] : parent->named_children()) {
      if (name == token) {
        cur = child;
        present = true;
        break;
      }
    }
    EMBER_CHECK_KIND(ErrorKind::Attribute, present, "'", cur_class,
                     "' object has no attribute '", token, "'");
    if (dot == std::string::npos) return cur;
    parent = cur.get();
    cur_class = cur ? cur->type_name() : "NoneType";
    start = dot + 1;
  }
}

void set_submodule_by_path(nn::Module& model, const std::string& path, ModulePtr module) {
  const size_t dot = path.rfind('.');
  nn::Module* parent = &model;
  ModulePtr parent_holder;
  if (dot != std::string::npos) {
    parent_holder = get_submodule_by_path(model, path.substr(0, dot));
    EMBER_CHECK_KIND(ErrorKind::Attribute, parent_holder != nullptr,
                     "'NoneType' object has no attribute '", path.substr(dot + 1), "'");
    parent = parent_holder.get();
  }
  const std::string name = dot == std::string::npos ? path : path.substr(dot + 1);
  for (const auto& [n, c] : parent->named_children()) {
    if (n == name) {
      parent->replace_module(name, std::move(module));
      return;
    }
  }
  parent->register_module(name, std::move(module));
}

void fuse_modules_group(nn::Module& model, const std::vector<std::string>& names, bool is_qat,
                        const FuserFn& fuser_func) {
  std::vector<ModulePtr> mods;
  for (const auto& name : names) mods.push_back(get_submodule_by_path(model, name));
  std::vector<ModulePtr> fused =
      fuser_func ? fuser_func(mods, is_qat) : fuse_known_modules(mods, is_qat);
  EMBER_CHECK_VALUE(fused.size() == names.size(), "fuser_func returned ", fused.size(),
                    " modules for ", names.size(), " names");
  for (size_t i = 0; i < names.size(); ++i) set_submodule_by_path(model, names[i], fused[i]);
}

std::shared_ptr<nn::Module> fuse_modules(nn::Module& model,
                                         const std::vector<std::vector<std::string>>& modules_to_fuse,
                                         bool inplace, const FuserFn& fuser_func, bool is_qat) {
  std::shared_ptr<nn::Module> target = model.weak_from_this().lock();
  EMBER_CHECK(target != nullptr,
              "fuse_modules: the model must be held by a std::shared_ptr (it is returned)");
  if (!inplace) target = model.clone();
  for (const auto& group : modules_to_fuse) fuse_modules_group(*target, group, is_qat, fuser_func);
  return target;
}

std::shared_ptr<nn::Module> fuse_modules_qat(
    nn::Module& model, const std::vector<std::vector<std::string>>& modules_to_fuse, bool inplace,
    const FuserFn& fuser_func) {
  return fuse_modules(model, modules_to_fuse, inplace, fuser_func, /*is_qat=*/true);
}

}  // namespace ember::quantization
