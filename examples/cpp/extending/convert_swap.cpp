// Extension point 4: module conversion, and what the swap flag changes.
//
// Module::to(dtype) gives each parameter its converted value one of three ways (docs/modules.md,
// "Conversion"): by default the same tensor gets new data (set-data); with
// set_overwrite_module_params_on_conversion(true) the module gets NEW Parameters and handles
// held elsewhere go stale; with set_swap_module_params_on_conversion(true) the old and new
// tensors swap their contents (swap_tensors), so every handle - an optimizer's too - sees the
// converted tensor, and a parameter a live autograd graph saved is refused before anything moves.
#include <ember/ember.h>

#include <cstdio>
#include <memory>

using ember::Tensor;
namespace nn = ember::nn;

int main() {
  ember::manual_seed(0);
  Tensor x64 = ember::randn({3, 4}, ember::kFloat64);

  // 1. Overwrite: the module holds new Parameters; a handle taken before is stale.
  auto a = std::make_shared<nn::Linear>(4, 2);
  Tensor held_a = a->weight();
  nn::set_overwrite_module_params_on_conversion(true);
  a->to(ember::kFloat64);
  nn::set_overwrite_module_params_on_conversion(false);
  std::printf("overwrite: module weight %s, old handle %s\n", ember::dtype_name(a->weight().dtype()),
              ember::dtype_name(held_a.dtype()));
  const bool stale = held_a.dtype() == ember::kFloat32 && !held_a.is_same(a->weight());

  // 2. Swap: the handle (and an optimizer holding it) sees the converted parameter.
  auto b = std::make_shared<nn::Linear>(4, 2);
  ember::optim::SGD opt(b->parameters(), {.lr = 0.1});  // holds the parameters' handles
  Tensor held_b = b->weight();
  nn::set_swap_module_params_on_conversion(true);

  // A live graph saved the weight (pow keeps its input for backward): the swap is refused,
  // and all-or-nothing: no parameter of the module was converted.
  Tensor out = b->weight().pow(2).sum();
  bool refused = false;
  try {
    b->to(ember::kFloat64);
  } catch (const ember::Error& e) {
    std::printf("refused while a graph holds the weight: %.60s...\n", e.what());
    refused = b->weight().dtype() == ember::kFloat32 && b->bias().dtype() == ember::kFloat32;
  }
  out = Tensor();  // the graph is gone: nothing saves the weight any more

  b->to(ember::kFloat64);
  nn::set_swap_module_params_on_conversion(false);
  std::printf("swap: module weight %s, old handle %s, same tensor: %s\n",
              ember::dtype_name(b->weight().dtype()), ember::dtype_name(held_b.dtype()),
              held_b.is_same(b->weight()) ? "yes" : "no");
  const bool swapped = held_b.dtype() == ember::kFloat64 && held_b.is_same(b->weight());

  // The optimizer made before the conversion trains the converted module.
  const Tensor before = b->weight().detach().clone();
  opt.zero_grad();
  (*b)(x64).sum().backward();
  opt.step();
  const bool trained = !b->weight().detach().equal(before);
  std::printf("optimizer step after the swap changed the float64 weight: %s\n", trained ? "yes" : "no");

  const bool ok = stale && refused && swapped && trained;
  std::printf("convert_swap: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
