// Reverse-mode automatic differentiation: torch.autograd's functions.
//
//   auto w = ember::randn({3}).requires_grad_();
//   auto loss = (w * w).sum();
//   loss.backward();                                   // w.grad() == 2 * w
//   auto [g] = ember::autograd::grad({loss2}, {w});    // without touching w.grad()
#pragma once

#include <optional>
#include <vector>

#include "ember/autograd/node.h"
#include "ember/grad_mode.h"

namespace ember::autograd {

/// Accumulates d(outputs)/d(leaf) into the .grad of every leaf the outputs depend on (or only of
/// `inputs`, when given). `grad_outputs` may be empty for scalar outputs (ones are implied).
/// `retain_graph` defaults to `create_graph`.
void backward(const tensor_list& outputs, const tensor_list& grad_outputs = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const tensor_list& inputs = {});

/// Returns d(outputs)/d(inputs) without touching any .grad. With `allow_unused`, an input the
/// outputs do not depend on gets an undefined Tensor; without it, that is an error.
tensor_list grad(const tensor_list& outputs, const tensor_list& inputs,
                 const tensor_list& grad_outputs = {}, std::optional<bool> retain_graph = std::nullopt,
                 bool create_graph = false, bool allow_unused = false);

}  // namespace ember::autograd
