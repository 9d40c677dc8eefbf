// torch.ao.quantization.fuse_modules and fuser_method_mappings (quantization-spec § 4): replaces
// runs of modules (conv-bn-relu, linear-relu, ...) named by their dotted paths with one fused
// module. Eval fusion (fuse_modules) folds BatchNorm into the conv / linear weights
// (nn::utils::fuse_conv_bn_eval, bit-identical to PyTorch's); QAT fusion (fuse_modules_qat)
// wraps them in the nn::intrinsic containers that prepare_qat swaps for QAT modules.
//
//   model->eval();
//   auto fused = ember::quantization::fuse_modules(*model, {{"conv", "bn", "relu"},
//                                                            {"fc", "relu2"}});
//   // fused->child("conv") is a ConvReLU2d (conv with bn folded in, relu); "bn", "relu" are
//   // Identity. The original model is unchanged (inplace = true changes it instead).
//
// Any module tree works: C++ models, Python models and Python subclasses of C++ models (they
// are one tree), with no Python in the process for C++ callers.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <typeindex>
#include <vector>

#include "ember/nn/module.h"

namespace ember::quantization {

using ModulePtr = std::shared_ptr<nn::Module>;
/// torch's fuser methods: (is_qat, the modules to fuse) -> the fused module.
using FuserMethod = std::function<ModulePtr(bool is_qat, const std::vector<ModulePtr>& modules)>;
/// A pattern of exact module classes (typeid), as the keys of
/// DEFAULT_OP_LIST_TO_FUSER_METHOD.
using OpList = std::vector<std::type_index>;
using FuserMethodMapping = std::map<OpList, FuserMethod>;
/// A fuser_func: the modules to fuse -> as many modules, the fused one first (fuse_known_modules).
using FuserFn =
    std::function<std::vector<ModulePtr>(const std::vector<ModulePtr>& modules, bool is_qat)>;

/// Conv{1,2}d + BatchNorm{1,2,3}d. Eval: the conv with bn folded in (a deep copy: the conv's
/// hooks come along, as PyTorch's). QAT: nn::intrinsic::ConvBn{1,2}d(conv, bn). Both modules
/// must be in the same mode ("Conv and BN both must be in the same mode (train or eval).");
/// QAT needs bn.num_features == conv.out_channels, affine and track_running_stats.
ModulePtr fuse_conv_bn(bool is_qat, const ModulePtr& conv, const ModulePtr& bn);
/// Conv + BatchNorm + ReLU. Eval: ConvReLU{N}d(folded conv, relu); QAT: ConvBnReLU{N}d.
ModulePtr fuse_conv_bn_relu(bool is_qat, const ModulePtr& conv, const ModulePtr& bn,
                            const ModulePtr& relu);
/// Linear + BatchNorm1d. Eval: the linear with bn folded in; QAT: nn::intrinsic::LinearBn1d.
ModulePtr fuse_linear_bn(bool is_qat, const ModulePtr& linear, const ModulePtr& bn);
/// ConvTranspose + BatchNorm, eval only (QAT: "Fusing ConvTranspose+BatchNorm not yet supported
/// in QAT.").
ModulePtr fuse_convtranspose_bn(bool is_qat, const ModulePtr& convt, const ModulePtr& bn);

/// PyTorch's DEFAULT_OP_LIST_TO_FUSER_METHOD for the classes ember has: (Conv1d|Conv2d, BN),
/// (Conv, BN, ReLU), (Conv, ReLU), (Linear, BatchNorm1d), (Linear, ReLU), (BatchNorm2d|3d,
/// ReLU), (ConvTranspose2d, BatchNorm2d).
const FuserMethodMapping& default_op_list_to_fuser_method();
/// The fuser method for `op_list` (`additional` first, then the default table). Error "did not
/// find fuser method for: (ReLU, Conv2d)" when there is none.
FuserMethod get_fuser_method(const OpList& op_list, const FuserMethodMapping& additional = {});
/// The class names of a pattern, "(Conv2d, ReLU)" (for messages).
std::string op_list_str(const OpList& op_list);

/// Fuses `modules` with the method their exact classes select: returns the fused module
/// followed by an Identity for each other module (training flag copied from the first). The
/// first module's forward pre-hooks and the last one's forward hooks move to the fused module.
std::vector<ModulePtr> fuse_known_modules(const std::vector<ModulePtr>& modules, bool is_qat,
                                          const FuserMethodMapping& additional = {});
/// Moves `first`'s forward pre-hooks and `last`'s forward hooks to `fused` (the C++ ones; a
/// front end moves its own).
void move_fusion_hooks(nn::Module& first, nn::Module& last, nn::Module& fused);

/// The module at a dotted path below `model` ("features.0.1"); AttributeError "'Sequential'
/// object has no attribute 'x'" when a step is missing.
ModulePtr get_submodule_by_path(nn::Module& model, const std::string& path);
/// Replaces the module at a dotted path (the parent's child of that name).
void set_submodule_by_path(nn::Module& model, const std::string& path, ModulePtr module);

/// One group: the modules at `names`, fused by `fuser_func` (default fuse_known_modules), put
/// back in their places.
void fuse_modules_group(nn::Module& model, const std::vector<std::string>& names, bool is_qat,
                        const FuserFn& fuser_func = nullptr);

/// fuse_modules(model, modules_to_fuse, inplace): each group fused in turn, in `model` itself
/// (inplace) or in a deep copy, which is returned.
std::shared_ptr<nn::Module> fuse_modules(nn::Module& model,
                                         const std::vector<std::vector<std::string>>& modules_to_fuse,
                                         bool inplace = false, const FuserFn& fuser_func = nullptr,
                                         bool is_qat = false);
/// fuse_modules with QAT fusion (BatchNorm kept, in nn::intrinsic::ConvBn2d and friends).
std::shared_ptr<nn::Module> fuse_modules_qat(
    nn::Module& model, const std::vector<std::vector<std::string>>& modules_to_fuse,
    bool inplace = false, const FuserFn& fuser_func = nullptr);

}  // namespace ember::quantization
