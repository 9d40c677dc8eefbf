// Extension point 2: a custom Module with a typed forward (nn::ModuleBase<Self>).
//
// Derive from ember::nn::ModuleBase<Self> and declare ONE typed `forward`; ember derives the
// boxed forward that Sequential, hooks and Python call from it. Parameters registered with
// register_parameter_ref stay valid after load_state_dict(assign=true) and conversions.
#include <ember/ember.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

using ember::Tensor;
namespace nn = ember::nn;

// A residual MLP block: y = x + fc2(relu(fc1(x))) * gate, with an optional extra input.
struct ResidualBlock : nn::ModuleBase<ResidualBlock> {
  explicit ResidualBlock(int64_t dim) {
    fc1 = register_module("fc1", std::make_shared<nn::Linear>(nn::LinearOptions(dim, 2 * dim)));
    fc2 = register_module("fc2", std::make_shared<nn::Linear>(nn::LinearOptions(2 * dim, dim).bias(false)));
    gate = register_parameter_ref("gate", ember::ones({dim}));
  }
  // Trailing std::optional parameters may be left out by callers (boxed or typed).
  Tensor forward(const Tensor& x, std::optional<Tensor> extra = std::nullopt) {
    Tensor y = x + (*fc2)((*fc1)(x).relu()) * gate;
    return extra ? y + *extra : y;
  }
  std::shared_ptr<nn::Linear> fc1, fc2;
  nn::ParameterRef gate;  // reads the registered slot on every use
};

int main() {
  ember::manual_seed(0);
  auto block = std::make_shared<ResidualBlock>(4);
  std::cout << *block << "\n";  // printed with its C++ class name: "ResidualBlock(...)"

  Tensor x = ember::randn({2, 4});
  Tensor y1 = (*block)(x);                        // hooks + forward, typed result
  Tensor y2 = block->forward(x, ember::ones({4}));  // the plain member function
  std::cout << "typed calls: " << y1.sizes() << " and " << y2.sizes() << "\n";

  // The same module inside a Sequential (which calls the boxed forward), with a forward hook.
  auto seq = std::make_shared<nn::Sequential>(block, std::make_shared<nn::Tanh>());
  int hook_calls = 0;
  block->register_forward_hook([&](nn::Module&, const std::vector<ember::Value>&, const ember::Value&) {
    ++hook_calls;
    return std::optional<ember::Value>();
  });
  Tensor z = seq->forward(x);
  std::cout << "Sequential output " << z.sizes() << ", hook ran " << hook_calls << " time(s)\n";

  // A wrong call is a TypeError naming the module and the signature.
  bool type_error = false;
  try {
    block->call({x, x, x});
  } catch (const ember::TypeError& e) {
    std::printf("TypeError: %s\n", e.what());
    type_error = true;
  }

  // Parameters in declaration order, through libtorch's OrderedDict API.
  for (const auto& [name, p] : block->named_parameters()) std::cout << "  " << name << " " << p.sizes() << "\n";

  const bool ok = hook_calls == 1 && type_error && block->named_parameters().size() == 4 &&
                  y1.allclose(block->forward(x));
  std::printf("custom_module: %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
