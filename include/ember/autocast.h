// Automatic mixed precision on the CPU, as PyTorch 1.13's AutocastCPU does it (docs/amp.md).
// While CPU autocast is on for a thread, the ops on its lists run in a chosen dtype: matmuls,
// convolutions and linear in the lower precision dtype (bfloat16), losses, linalg, fft and a few
// reductions in float32, stack and index_copy in the widest floating dtype of their inputs.
// Only floating CPU tensors other than float64 are cast; every other op runs unchanged. The casts
// are ordinary `to` calls above autograd, so gradients come back in the parameters' dtype.
//
//   ember::nn::Linear fc(4, 2);
//   {
//     ember::autocast::AutocastGuard guard;          // with torch.autocast("cpu"):
//     auto y = fc(ember::randn({3, 4}));             // y.dtype() == kBFloat16
//   }                                                // cast cache cleared here
//
// The state is thread-local, like PyTorch's: enabled, the CPU dtype, whether casts of weights
// are cached, and the nesting depth of autocast regions (the cache is cleared when the outermost
// region exits). The CUDA flag and dtype exist for PyTorch's API (is_enabled, the GPU dtype) and
// cast nothing: ember has no CUDA device.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ember/dtype.h"
#include "ember/tensor.h"

namespace ember::autocast {

/// How an op on the lists treats its arguments (PyTorch's at::autocast::CastPolicy).
enum class CastPolicy : uint8_t {
  lower_precision_fp,  // cast to the CPU autocast dtype
  fp32,                // cast to float32
  promote,             // cast to the widest floating dtype among the arguments
  // aten::cat: on 1.13's promote list, but its kernel's Tensor-list argument type has no cast
  // overload there, so its arguments pass through uncast; the op just runs below autocast.
  promote_uncast,
};

/// CPU autocast on this thread (torch.is_autocast_cpu_enabled). False inside an op's autocast
/// kernel and inside torch_dispatch handlers, as in PyTorch.
bool is_cpu_enabled();
void set_cpu_enabled(bool enabled);
/// The lower precision dtype of CPU autocast: bfloat16 (the only one PyTorch 1.13 accepts).
ScalarType get_autocast_cpu_dtype();
/// Throws for any dtype other than bfloat16, with PyTorch's message.
void set_autocast_cpu_dtype(ScalarType dtype);

/// CUDA autocast's flag and dtype (torch.is_autocast_enabled, get_autocast_gpu_dtype): state only.
bool is_enabled();
void set_enabled(bool enabled);
ScalarType get_autocast_gpu_dtype();
void set_autocast_gpu_dtype(ScalarType dtype);

/// Whether lower precision casts of float32 leaf tensors that require grad (weights) are cached
/// and reused within an autocast region.
bool is_autocast_cache_enabled();
void set_autocast_cache_enabled(bool enabled);
/// Drops the cached casts (done when the outermost autocast region exits).
void clear_cache();
/// The nesting depth of autocast regions on this thread, after the change.
int increment_nesting();
int decrement_nesting();

/// True if `t` is one autocast casts: defined, on the CPU, floating point and not float64.
bool is_eligible(const Tensor& t);
/// `arg` cast to `to_type` if it is eligible and of another dtype (through the cache for weights).
Tensor cached_cast(ScalarType to_type, const Tensor& arg);

/// The ops on CPU autocast's lists: aten name with overload ("conv2d", "conv2d.padding") and
/// policy, in PyTorch 1.13's order.
const std::vector<std::pair<std::string, CastPolicy>>& cpu_ops();
/// "lower_precision_fp", "fp32", "promote" or "promote_uncast".
const char* policy_name(CastPolicy policy);

/// Tensor._autocast_to_reduced_precision / _autocast_to_full_precision (what TorchScript's
/// autocast pass inserts): a float32 CPU tensor to cpu_dtype when cpu_enabled, a float16 or
/// bfloat16 CPU tensor to float32 when cpu_enabled; otherwise `self` itself. The flags are
/// arguments, not the thread's state, as in PyTorch.
Tensor to_reduced_precision(const Tensor& self, bool cuda_enabled, bool cpu_enabled,
                            ScalarType cuda_dtype, ScalarType cpu_dtype);
Tensor to_full_precision(const Tensor& self, bool cuda_enabled, bool cpu_enabled);

/// A CPU autocast region: `with torch.autocast("cpu", dtype=dtype, enabled=enabled,
/// cache_enabled=cache_enabled):`. The constructor saves the state and sets it (and increments
/// the nesting); the destructor restores it, clearing the cache when the outermost region exits.
class AutocastGuard {
 public:
  explicit AutocastGuard(bool enabled = true, ScalarType dtype = kBFloat16,
                         bool cache_enabled = true);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

 private:
  bool prev_enabled_;
  ScalarType prev_dtype_;
  bool prev_cache_enabled_;
};

}  // namespace ember::autocast
