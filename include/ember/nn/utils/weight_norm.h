// torch.nn.utils.weight_norm / spectral_norm (the hook-based forms) and their removal.
//
//   auto lin = std::make_shared<nn::Linear>(20, 40);
//   nn::utils::weight_norm(*lin);          // parameters weight_g (40, 1) and weight_v (40, 20)
//   nn::utils::spectral_norm(*conv);       // weight_orig, buffers weight_u / weight_v
//   nn::utils::remove_weight_norm(*lin);   // a plain `weight` parameter again
//
// As PyTorch's: the parameter `name` is removed, the new parameters (and buffers) are
// registered after the module's others, a forward pre-hook recomputes `name` before each
// forward and the layer reads it through `parameter(name)` (Note [Tensor attributes]).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ember/nn/module.h"

namespace ember::nn::utils {

/// w = g * v / ||v||, the norm over every dim but `dim` (nullopt: over the whole tensor, torch's
/// dim=None). RuntimeError "Cannot register two weight_norm hooks on the same parameter weight".
Module& weight_norm(Module& module, const std::string& name = "weight",
                    std::optional<int64_t> dim = 0);
/// ValueError "weight_norm of 'weight' not found in <repr>" when not applied.
Module& remove_weight_norm(Module& module, const std::string& name = "weight");

/// w = w_orig / sigma, sigma by `n_power_iterations` steps of power iteration per training
/// forward (u, v updated in place; eval reuses them). dim: torch's default (1 for
/// ConvTranspose1d/2d/3d, else 0) when nullopt. u and v start as normalize(normal_(0, 1)) drawn
/// from the default generator, u first, as torch's.
Module& spectral_norm(Module& module, const std::string& name = "weight",
                      int64_t n_power_iterations = 1, double eps = 1e-12,
                      std::optional<int64_t> dim = std::nullopt);
/// ValueError "spectral_norm of 'weight' not found in <repr>" when not applied.
Module& remove_spectral_norm(Module& module, const std::string& name = "weight");

}  // namespace ember::nn::utils
