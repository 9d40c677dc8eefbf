// ember::nn::init — torch.nn.init: fill a tensor in place, without recording autograd history
// (every function runs under NoGradGuard), and return it. Argument names, defaults, warnings and
// errors are PyTorch's (ValueError where Python raises one). Random fills take an optional
// generator (nullptr: the default one, seeded by ember::manual_seed). A meta tensor is checked
// and returned untouched.
//
//   namespace init = ember::nn::init;
//   init::kaiming_uniform_(weight, std::sqrt(5.0));          // nn.Linear's default
//   init::trunc_normal_(w, 0., 0.02, -0.04, 0.04);
//   init::orthogonal_(rnn_weight, init::calculate_gain("tanh"));
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "ember/generator.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::nn::init {

/// The recommended gain for a nonlinearity: 1 for "linear", "conv1d/2d/3d",
/// "conv_transpose1d/2d/3d" and "sigmoid"; 5/3 for "tanh"; sqrt(2) for "relu";
/// sqrt(2 / (1 + slope^2)) for "leaky_relu" (param = negative slope, default 0.01; a bool or
/// non-number is a ValueError); 3/4 for "selu". Others: ValueError "Unsupported nonlinearity x".
double calculate_gain(const std::string& nonlinearity,
                      const std::optional<Scalar>& param = std::nullopt);

/// (fan_in, fan_out) = (size(1), size(0)) times the product of the trailing sizes. Fewer than 2
/// dims: ValueError.
std::pair<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);
/// fan_in or fan_out by `mode` (case-insensitive "fan_in" / "fan_out").
int64_t _calculate_correct_fan(const Tensor& tensor, const std::string& mode);

Tensor& uniform_(Tensor& tensor, double a = 0., double b = 1., Generator* generator = nullptr);
Tensor& normal_(Tensor& tensor, double mean = 0., double std = 1., Generator* generator = nullptr);
/// Normal(mean, std^2) restricted to [a, b], by PyTorch's inverse-CDF method: uniform draws in
/// [2 Φ(a') - 1, 2 Φ(b') - 1], erfinv, scale and shift, clamp. Warns when mean is more than
/// 2 std outside [a, b].
Tensor& trunc_normal_(Tensor& tensor, double mean = 0., double std = 1., double a = -2.,
                      double b = 2., Generator* generator = nullptr);
Tensor& constant_(Tensor& tensor, const Scalar& val);
Tensor& ones_(Tensor& tensor);
Tensor& zeros_(Tensor& tensor);
/// The identity matrix (1 on the main diagonal of a 2-d tensor of any shape).
Tensor& eye_(Tensor& tensor);
/// U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out)).
Tensor& xavier_uniform_(Tensor& tensor, double gain = 1., Generator* generator = nullptr);
/// N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out)).
Tensor& xavier_normal_(Tensor& tensor, double gain = 1., Generator* generator = nullptr);
/// U(-bound, bound) with bound = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a).
/// A tensor with no elements is left alone with PyTorch's warning.
Tensor& kaiming_uniform_(Tensor& tensor, double a = 0., const std::string& mode = "fan_in",
                         const std::string& nonlinearity = "leaky_relu",
                         Generator* generator = nullptr);
/// N(0, std^2) with std = gain / sqrt(fan).
Tensor& kaiming_normal_(Tensor& tensor, double a = 0., const std::string& mode = "fan_in",
                        const std::string& nonlinearity = "leaky_relu",
                        Generator* generator = nullptr);
/// A (semi-)orthogonal matrix times gain, trailing dims flattened: Q of the QR decomposition of a
/// normal matrix, columns signed by diag(R) so that Q is Haar-distributed (Mezzadri 2007).
Tensor& orthogonal_(Tensor& tensor, double gain = 1., Generator* generator = nullptr);
/// A 2-d tensor N(0, std^2) with ceil(sparsity * rows) zeros in each column, at random rows.
Tensor& sparse_(Tensor& tensor, double sparsity, double std = 0.01, Generator* generator = nullptr);

}  // namespace ember::nn::init
