// Activation checkpointing from C++ (torch.utils.checkpoint with use_reentrant=False): run a
// function keeping none of the tensors its ops save for backward, and recompute them when the
// backward needs them. Trades one extra forward of `fn` for the memory of its activations.
//
//   auto block = [&](const ember::autograd::tensor_list& in) -> ember::autograd::tensor_list {
//     return {mlp->forward(in[0]).tanh()};
//   };
//   ember::Tensor y = ember::utils::checkpoint(block, {x})[0];
//   y.sum().backward();  // re-runs `block` once, then backpropagates through it
//
// Note [Non-reentrant checkpoint] (python/ember/utils/checkpoint.py has the same algorithm):
// fn runs once with grad recording under saved-tensor hooks whose pack keeps an empty
// placeholder; the first unpack re-runs fn from the forward's RNG state (with
// `preserve_rng_state`) under inner hooks that fill the placeholders, in save order, with the
// recomputed tensors. The graph is fn's own: parameters fn uses get gradients, and `fn` must be
// deterministic given the RNG state (the recomputation must save the same tensors in the same
// order).
#pragma once

#include <functional>

#include "ember/autograd/node.h"

namespace ember::utils {

using CheckpointFn = std::function<autograd::tensor_list(const autograd::tensor_list&)>;

/// fn(inputs), with its saved tensors recomputed in backward instead of kept.
autograd::tensor_list checkpoint(const CheckpointFn& fn, const autograd::tensor_list& inputs,
                                 bool preserve_rng_state = true);

}  // namespace ember::utils
