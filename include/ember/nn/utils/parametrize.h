// The C++ side of torch.nn.utils.parametrize: the parametrized tensor is a computed tensor
// attribute of the module (Note [Tensor attributes]) that evaluates the child
// `parametrizations.<name>` (a ParametrizationList), and the process-wide cache of
// parametrize.cached(). Registration itself (register_parametrization, right_inverse, the
// Parametrized<Class> subclass) is Python, as PyTorch's; C++ layers see the result because
// their accessors read `parameter(name)`.
//
//   {
//     nn::utils::parametrize::Cached cache;   // parametrize.cached(): each value computed once
//     y1 = (*model)(x1); y2 = (*model)(x2);
//   }
#pragma once

#include <string>

#include "ember/nn/module.h"

namespace ember::nn::utils::parametrize {

/// Makes `name` a computed attribute of `module`, read from its child
/// `parametrizations.<name>` (called with no inputs), through the cache when it is on.
void attach(Module& module, const std::string& name);
/// The parametrized value of `name` (what `module.name` reads).
Tensor value(Module& module, const std::string& name);
/// Whether `name` (or, with an empty name, any tensor) of `module` is parametrized.
bool is_parametrized(Module& module, const std::string& name = "");

/// parametrize.cached(): while one is alive (they nest), each parametrized tensor is computed
/// once and reused; the cache is cleared when the last one ends.
class Cached {
 public:
  Cached();
  ~Cached();
  Cached(const Cached&) = delete;
  Cached& operator=(const Cached&) = delete;
};
void enter_cache();
void exit_cache();
bool cache_enabled();

}  // namespace ember::nn::utils::parametrize
