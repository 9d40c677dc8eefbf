// torch.ao.nn.intrinsic: the float fused modules that fuse_modules makes and that prepare /
// convert map to QAT and quantized modules. Each is a Sequential of the modules it fuses,
// registered as "0", "1" (, "2"), so repr, forward and state_dict keys ("0.weight",
// "1.running_mean") are PyTorch's. The constructors check the exact classes of their arguments,
// as PyTorch's do (a subclass of Conv2d is not a Conv2d here).
//
//   auto conv = std::make_shared<ember::nn::Conv2d>(3, 8, 3);
//   auto fused = std::make_shared<ember::nn::intrinsic::ConvReLU2d>(
//       conv, std::make_shared<ember::nn::ReLU>());
//   // ConvReLU2d(
//   //   (0): Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))
//   //   (1): ReLU()
//   // )
#pragma once

#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

#include "ember/nn/modules/container.h"

namespace ember::nn::intrinsic {

/// PyTorch's _FusedModule: what every fused container is (prepare and convert test for it).
class FusedModule : public Sequential {
 protected:
  /// Checks that `modules` are exactly of `types` (Assertion "ConvReLU2d: incorrect types for
  /// input modules: expected (Conv2d, ReLU), got (Conv1d, ReLU)"), then holds them as "0", ...
  FusedModule(std::string type_name, const std::vector<std::shared_ptr<Module>>& modules,
              const std::vector<const std::type_info*>& types);
};

/// Conv1d, ReLU.
class ConvReLU1d : public FusedModule {
 public:
  ConvReLU1d(std::shared_ptr<Module> conv, std::shared_ptr<Module> relu);
};
/// Conv2d, ReLU.
class ConvReLU2d : public FusedModule {
 public:
  ConvReLU2d(std::shared_ptr<Module> conv, std::shared_ptr<Module> relu);
};
/// Conv3d, ReLU.
class ConvReLU3d : public FusedModule {
 public:
  ConvReLU3d(std::shared_ptr<Module> conv, std::shared_ptr<Module> relu);
};
/// Linear, ReLU.
class LinearReLU : public FusedModule {
 public:
  LinearReLU(std::shared_ptr<Module> linear, std::shared_ptr<Module> relu);
};
/// Conv1d, BatchNorm1d.
class ConvBn1d : public FusedModule {
 public:
  ConvBn1d(std::shared_ptr<Module> conv, std::shared_ptr<Module> bn);
};
/// Conv2d, BatchNorm2d.
class ConvBn2d : public FusedModule {
 public:
  ConvBn2d(std::shared_ptr<Module> conv, std::shared_ptr<Module> bn);
};
/// Conv3d, BatchNorm3d.
class ConvBn3d : public FusedModule {
 public:
  ConvBn3d(std::shared_ptr<Module> conv, std::shared_ptr<Module> bn);
};
/// Conv1d, BatchNorm1d, ReLU.
class ConvBnReLU1d : public FusedModule {
 public:
  ConvBnReLU1d(std::shared_ptr<Module> conv, std::shared_ptr<Module> bn,
               std::shared_ptr<Module> relu);
};
/// Conv2d, BatchNorm2d, ReLU.
class ConvBnReLU2d : public FusedModule {
 public:
  ConvBnReLU2d(std::shared_ptr<Module> conv, std::shared_ptr<Module> bn,
               std::shared_ptr<Module> relu);
};
/// Conv3d, BatchNorm3d, ReLU.
class ConvBnReLU3d : public FusedModule {
 public:
  ConvBnReLU3d(std::shared_ptr<Module> conv, std::shared_ptr<Module> bn,
               std::shared_ptr<Module> relu);
};
/// BatchNorm2d, ReLU.
class BNReLU2d : public FusedModule {
 public:
  BNReLU2d(std::shared_ptr<Module> batch_norm, std::shared_ptr<Module> relu);
};
/// BatchNorm3d, ReLU.
class BNReLU3d : public FusedModule {
 public:
  BNReLU3d(std::shared_ptr<Module> batch_norm, std::shared_ptr<Module> relu);
};
/// Linear, BatchNorm1d.
class LinearBn1d : public FusedModule {
 public:
  LinearBn1d(std::shared_ptr<Module> linear, std::shared_ptr<Module> bn);
};

/// Whether `m` is one of PyTorch's _FusedModule classes: a FusedModule above, or a fused QAT
/// module (nn::intrinsic::qat ConvBn / ConvBnReLU / ConvReLU 1d-2d, LinearReLU, LinearBn1d),
/// which PyTorch also derives from _FusedModule and C++ cannot (they are convolutions /
/// linears). prepare and convert treat them as leaves: they do not look inside.
bool is_fused_module(const Module& m);

}  // namespace ember::nn::intrinsic
