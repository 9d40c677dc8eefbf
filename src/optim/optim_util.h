// Helpers shared by the optimizers and schedulers: Python's formatting of numbers (PyTorch's
// messages print them with str()), and typed reads of group options that name the option.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim::detail {

/// repr(float) / str(float) in Python: the shortest digits that round-trip, "0.1", "1.0",
/// "1e-08", "1e+16".
std::string py_float(double v);
/// str(value) as Python prints the same value: None, True, 3, 0.5, (0.9, 0.999), [1, 2], text.
std::string py_str(const Value& v);

/// torch's int defaults (weight_decay=0, momentum=0, ...) stay ints when zero, so state_dict()
/// and repr print what torch prints for an untouched option (see sgd.cpp).
Value number(double v);
/// foreach=None / True / False as the group keeps it.
Value optional_bool(const std::optional<bool>& b);
/// torch.tensor(python float): a 0-d float32 CPU tensor (the optimizers' "step", "eta", ...).
Tensor cpu_scalar(double v);
/// torch's "Invalid learning rate: <lr>" / "Invalid weight_decay value: <wd>" ValueErrors.
void check_lr(double lr);
void check_weight_decay(double wd);

/// A float option: a float or an int (Python's lr=1), never a bool.
double option_double(const ValueDict& options, const char* name);
bool option_bool(const ValueDict& options, const char* name);
/// betas: two numbers.
std::array<double, 2> option_pair(const ValueDict& options, const char* name);
/// Options PyTorch has for other implementations (foreach, capturable, differentiable, fused):
/// present for its layout, accepted only as None/False.
void check_single_tensor_flag(const ValueDict& options, const char* name, const char* optimizer);

/// A float list from a float or int list (Python's [1, 2] for base_lrs).
std::vector<double> to_double_list(const Value& v, const char* what);

/// Note [16-bit parameters]: torch 1.13's kernels, which the optimizers must agree with, treat
/// bfloat16 and float16 tensors in two ways that ember's composed ops do not reproduce by
/// themselves:
///  - add(other, alpha) rounds alpha to the tensor's dtype before computing in float; ember's add
///    kernel (src/backends/cpu/binary_kernels.cpp, add_kernel: `alpha.to<M>()`) keeps it a
///    float. alpha_for() rounds it here, so SGD's -lr and Adam's 1 - beta1 are torch's.
///  - addcmul / addcdiv compute self + value * t1 (* or /) t2 in float and round once; composed
///    from 16-bit ops every intermediate would round. The optimizers compose them in
///    opmath_dtype() (float for 16-bit tensors) and round once when adding into the tensor.
/// For float32 and float64 both helpers change nothing.
double alpha_for(const Tensor& t, double alpha);
ScalarType opmath_dtype(ScalarType dtype);

/// The optimizer's current group["lr"]s.
std::vector<double> group_lrs(const Optimizer& opt);
/// A scheduler state_dict entry of the expected type ("state_dict['<key>'] must be ...").
int64_t int_value(const Value& v, const char* key);
double double_value(const Value& v, const char* key);
bool bool_value(const Value& v, const char* key);
/// PyTorch's deprecation warning for scheduler.step(epoch).
extern const char* const kEpochDeprecationWarning;

/// Python's a % b and a // b for ints (the sign follows the divisor).
inline int64_t py_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
inline int64_t py_floordiv(int64_t a, int64_t b) { return (a - py_mod(a, b)) / b; }

}  // namespace ember::optim::detail
