// Note [Autocast layer]
// PyTorch 1.13's CPU autocast is a dispatch key (AutocastCPU) above autograd with a kernel for
// each op on its lists and a fallthrough for every other op. ember does the same with one boxed
// kernel for all listed ops, chosen by a per-op policy table:
//   - The switch is a thread-local key (kAutocastKey in LocalState::included), so that
//     while autocast is off the fast path is untouched, and while it is on every call takes the
//     slow path, where call_slow runs this layer after the function layer (torch_function sees
//     the op with its original arguments, as PyTorch's Python layer does) and before the
//     composite / autograd / torch_dispatch layers (so casts are recorded and torch_dispatch
//     sees `_to_copy` then the op on the cast tensors, as in PyTorch).
//   - The kernel turns the key off for its duration, as PyTorch's ExcludeDispatchKeyGuard does:
//     the casts and the op's own body (a composite's inner calls) run without autocast, and
//     is_cpu_enabled() answers false there. torch_dispatch handlers run with it off too (PyTorch
//     excludes every key above Python while its handler runs).
//   - Only floating CPU tensors other than float64 are cast (at::autocast::is_eligible); tensors
//     inside Tensor[] and Tensor? arguments too. The promote policy picks the widest dtype with
//     1.13's rules (prioritize): float64 arguments are ignored, float32 wins over the lower
//     precision dtype, and any other floating dtype (float16) is an error. 1.13 registers cat
//     with the promote policy, but its argument (ITensorListRef) has no cast overload there, so
//     cat runs uncast: promote_uncast reproduces that.
//   - Weight cache: a cast of a float32 leaf that requires grad to the lower precision dtype is
//     kept until the outermost autocast region exits (clear_cache), so a weight used by several
//     ops in one forward pass is cast once. The entry holds the source tensor, so its address
//     cannot be reused while cached (PyTorch holds a weak reference for the same reason).
#include "ember/autocast.h"

#include <array>
#include <unordered_map>

#include "dispatcher.h"

namespace ember::autocast {

using dispatch::OpId;
using dispatch::kAutocastKey;
using P = CastPolicy;

namespace {

// PyTorch 1.13's TORCH_LIBRARY_IMPL(aten, AutocastCPU, m), in its order, for the rows ember's op
// table has. max_unpool2d / 3d, multi_margin_loss and multilabel_margin_loss are functions in
// ember, which apply the fp32 policy themselves (autocast_region.h); _convolution.deprecated,
// _grid_sampler_2d_cpu_fallback, multilabel_margin_loss_forward and the Dimname overloads
// index_copy.dimname, prod.dim_Dimname have no counterpart.
constexpr std::pair<OpId, CastPolicy> kCpuOps[] = {
    // lower_precision_fp
    {OpId::conv1d, P::lower_precision_fp},
    {OpId::conv1d_padding, P::lower_precision_fp},
    {OpId::conv2d, P::lower_precision_fp},
    {OpId::conv2d_padding, P::lower_precision_fp},
    {OpId::conv3d, P::lower_precision_fp},
    {OpId::conv3d_padding, P::lower_precision_fp},
    {OpId::bmm, P::lower_precision_fp},
    {OpId::mm, P::lower_precision_fp},
    {OpId::baddbmm, P::lower_precision_fp},
    {OpId::addmm, P::lower_precision_fp},
    {OpId::addbmm, P::lower_precision_fp},
    {OpId::linear, P::lower_precision_fp},
    {OpId::matmul, P::lower_precision_fp},
    {OpId::conv_tbc, P::lower_precision_fp},
    // fp32 (1.13 has the transposed convolutions here; later versions moved them up)
    {OpId::conv_transpose1d, P::fp32},
    {OpId::conv_transpose2d_input, P::fp32},
    {OpId::conv_transpose3d_input, P::fp32},
    {OpId::avg_pool3d, P::fp32},
    {OpId::binary_cross_entropy, P::fp32},
    {OpId::grid_sampler, P::fp32},
    {OpId::polar, P::fp32},
    {OpId::prod, P::fp32},
    {OpId::prod_dim_int, P::fp32},
    {OpId::quantile, P::fp32},
    {OpId::quantile_scalar, P::fp32},
    {OpId::nanquantile, P::fp32},
    {OpId::nanquantile_scalar, P::fp32},
    {OpId::stft, P::fp32},
    {OpId::stft_center, P::fp32},
    {OpId::cdist, P::fp32},
    {OpId::grid_sampler_2d, P::fp32},
    {OpId::grid_sampler_3d, P::fp32},
    {OpId::trace, P::fp32},
    {OpId::view_as_complex, P::fp32},
    {OpId::cholesky, P::fp32},
    {OpId::cholesky_inverse, P::fp32},
    {OpId::cholesky_solve, P::fp32},
    {OpId::inverse, P::fp32},
    {OpId::lu_solve, P::fp32},
    {OpId::orgqr, P::fp32},
    {OpId::ormqr, P::fp32},
    {OpId::pinverse, P::fp32},
    {OpId::max_pool3d, P::fp32},
    {OpId::adaptive_avg_pool3d, P::fp32},
    {OpId::reflection_pad1d, P::fp32},
    {OpId::reflection_pad2d, P::fp32},
    {OpId::replication_pad1d, P::fp32},
    {OpId::replication_pad2d, P::fp32},
    {OpId::replication_pad3d, P::fp32},
    {OpId::mse_loss, P::fp32},
    {OpId::cosine_embedding_loss, P::fp32},
    {OpId::nll_loss, P::fp32},
    {OpId::nll_loss2d, P::fp32},
    {OpId::hinge_embedding_loss, P::fp32},
    {OpId::poisson_nll_loss, P::fp32},
    {OpId::smooth_l1_loss, P::fp32},
    {OpId::cross_entropy_loss, P::fp32},
    {OpId::l1_loss, P::fp32},
    {OpId::huber_loss, P::fp32},
    {OpId::margin_ranking_loss, P::fp32},
    {OpId::soft_margin_loss, P::fp32},
    {OpId::triplet_margin_loss, P::fp32},
    {OpId::ctc_loss_IntList, P::fp32},
    {OpId::ctc_loss_Tensor, P::fp32},
    {OpId::kl_div, P::fp32},
    {OpId::binary_cross_entropy_with_logits, P::fp32},
    {OpId::fft_fft, P::fp32},
    {OpId::fft_ifft, P::fp32},
    {OpId::fft_fft2, P::fp32},
    {OpId::fft_ifft2, P::fp32},
    {OpId::fft_fftn, P::fp32},
    {OpId::fft_ifftn, P::fp32},
    {OpId::fft_rfft, P::fp32},
    {OpId::fft_irfft, P::fp32},
    {OpId::fft_rfft2, P::fp32},
    {OpId::fft_irfft2, P::fp32},
    {OpId::fft_rfftn, P::fp32},
    {OpId::fft_irfftn, P::fp32},
    {OpId::fft_hfft, P::fp32},
    {OpId::fft_ihfft, P::fp32},
    {OpId::fake_quantize_per_tensor_affine, P::fp32},
    {OpId::linalg_cond, P::fp32},
    {OpId::linalg_cond_p_str, P::fp32},
    {OpId::linalg_matrix_rank, P::fp32},
    {OpId::linalg_matrix_rank_tol_tensor, P::fp32},
    {OpId::linalg_matrix_rank_atol_rtol_tensor, P::fp32},
    {OpId::linalg_matrix_rank_atol_rtol_float, P::fp32},
    {OpId::linalg_solve, P::fp32},
    {OpId::linalg_cholesky, P::fp32},
    {OpId::linalg_svdvals, P::fp32},
    {OpId::linalg_eigvals, P::fp32},
    {OpId::linalg_eigvalsh, P::fp32},
    {OpId::linalg_inv, P::fp32},
    {OpId::linalg_householder_product, P::fp32},
    {OpId::linalg_tensorinv, P::fp32},
    {OpId::linalg_tensorsolve, P::fp32},
    {OpId::linalg_matrix_norm, P::fp32},
    {OpId::linalg_matrix_norm_str_ord, P::fp32},
    // fp32, ops with several results
    {OpId::_lu_with_info, P::fp32},
    {OpId::qr, P::fp32},
    {OpId::svd, P::fp32},
    {OpId::symeig, P::fp32},
    {OpId::triangular_solve, P::fp32},
    {OpId::fractional_max_pool2d, P::fp32},
    {OpId::fractional_max_pool3d, P::fp32},
    {OpId::adaptive_max_pool3d, P::fp32},
    {OpId::linalg_qr, P::fp32},
    {OpId::linalg_cholesky_ex, P::fp32},
    {OpId::linalg_svd, P::fp32},
    {OpId::linalg_eig, P::fp32},
    {OpId::linalg_eigh, P::fp32},
    {OpId::linalg_lstsq, P::fp32},
    {OpId::linalg_inv_ex, P::fp32},
    {OpId::geqrf, P::fp32},
    // promote
    {OpId::stack, P::promote},
    {OpId::cat, P::promote_uncast},
    {OpId::index_copy, P::promote},
};

// Not on the lists, but computed by PyTorch in a kernel of their own while ember composes them
// from listed ops (matrix_exp from mm): they run with autocast off and nothing cast, so that they
// stay in their inputs' dtype as in PyTorch instead of taking their parts' casts.
constexpr OpId kOwnKernelOps[] = {OpId::matrix_exp};

constexpr uint8_t kNone = 0xff;
constexpr uint8_t kOwnKernel = 0xfe;

const std::array<uint8_t, dispatch::kNumOps>& policy_table() {
  static const auto table = [] {
    std::array<uint8_t, dispatch::kNumOps> t;
    t.fill(kNone);
    for (const auto& [op, policy] : kCpuOps) t[static_cast<size_t>(op)] = static_cast<uint8_t>(policy);
    for (OpId op : kOwnKernelOps) t[static_cast<size_t>(op)] = kOwnKernel;
    return t;
  }();
  return table;
}

// The thread's state besides the on/off switch, which is kAutocastKey in
// LocalState::included (Note [Autocast layer]).
thread_local ScalarType t_cpu_dtype = kBFloat16;
thread_local bool t_gpu_enabled = false;
thread_local ScalarType t_gpu_dtype = kFloat16;
thread_local bool t_cache_enabled = true;
thread_local int t_nesting = 0;
// Source TensorImpl -> (the source, its cast).
thread_local std::unordered_map<const TensorImpl*, std::pair<Tensor, Tensor>> t_cached_casts;

// Turns the Autocast key off for a scope and puts back what was there (PyTorch's
// ExcludeDispatchKeyGuard on AutocastCPU).
class AutocastOff {
 public:
  AutocastOff() : was_on_(is_cpu_enabled()) { set_cpu_enabled(false); }
  ~AutocastOff() { set_cpu_enabled(was_on_); }
  AutocastOff(const AutocastOff&) = delete;
  AutocastOff& operator=(const AutocastOff&) = delete;

 private:
  bool was_on_;
};

// PyTorch 1.13's at::autocast::prioritize for one argument.
ScalarType prioritize(ScalarType current, const Tensor& next_arg, ScalarType lower) {
  EMBER_CHECK(current != kFloat64, "promote type is double in at::autocast::prioritize");
  if (!next_arg.defined() || !next_arg.is_cpu() || !is_floating(next_arg.dtype())) return current;
  const ScalarType next = next_arg.dtype();
  if (next == kFloat64) return current;  // float64 arguments are ignored
  if (current == kFloat32 || next == kFloat32) return kFloat32;
  EMBER_CHECK(current == lower && next == lower,
              "Unexpected floating ScalarType in at::autocast::prioritize");
  return lower;
}

// Calls f on each defined tensor argument, in argument order, also inside Tensor[] and Tensor?[]
// lists, and stores back what f leaves in it.
template <class F>
void for_each_arg_tensor(Stack& args, F&& f) {
  for (auto& v : args) {
    if (v.is_tensor()) {
      if (v.to_tensor().defined()) f(v.to_tensor());
    } else if (v.is_tensor_list()) {
      std::vector<Tensor> list = v.to_tensor_list();
      for (auto& t : list)
        if (t.defined()) f(t);
      v = Value(std::move(list));
    } else if (v.is_optional_tensor_list()) {
      Value::OptionalTensorList list = v.to_optional_tensor_list();
      for (auto& t : list)
        if (t && t->defined()) f(*t);
      v = Value(std::move(list));
    }
  }
}

}  // namespace

bool is_cpu_enabled() {
  return dispatch::local_state().included.has(kAutocastKey);
}

void set_cpu_enabled(bool enabled) {
  KeySet& included = dispatch::local_state().included;
  included = enabled ? included | kAutocastKey : included - kAutocastKey;
}

ScalarType get_autocast_cpu_dtype() { return t_cpu_dtype; }

void set_autocast_cpu_dtype(ScalarType dtype) {
  EMBER_CHECK(dtype == kBFloat16,
              "Currently, AutocastCPU only support Bfloat16 as the autocast_cpu_dtype");
  t_cpu_dtype = dtype;
}

bool is_enabled() { return t_gpu_enabled; }
void set_enabled(bool enabled) { t_gpu_enabled = enabled; }
ScalarType get_autocast_gpu_dtype() { return t_gpu_dtype; }
void set_autocast_gpu_dtype(ScalarType dtype) { t_gpu_dtype = dtype; }

bool is_autocast_cache_enabled() { return t_cache_enabled; }
void set_autocast_cache_enabled(bool enabled) { t_cache_enabled = enabled; }

void clear_cache() {
  // Moved out first: dropping a cast can run a Python destructor that re-enters autocast.
  auto dropped = std::move(t_cached_casts);
  t_cached_casts.clear();
}

int increment_nesting() { return ++t_nesting; }
int decrement_nesting() { return --t_nesting; }

bool is_eligible(const Tensor& t) {
  return t.defined() && t.is_cpu() && is_floating(t.dtype()) && t.dtype() != kFloat64;
}

Tensor cached_cast(ScalarType to_type, const Tensor& arg) {
  if (!is_eligible(arg) || arg.dtype() == to_type) return arg;
  // Apex's heuristic, as PyTorch: cache lower precision casts of float32 weights (leaves).
  const bool can_try_cache = to_type == t_cpu_dtype && arg.dtype() == kFloat32 &&
                             arg.requires_grad() && arg.is_leaf() && !arg.is_view() &&
                             t_cache_enabled;
  if (!can_try_cache) return arg.to(to_type);
  auto it = t_cached_casts.find(arg.impl());
  if (it != t_cached_casts.end()) return it->second.second;
  Tensor cast = arg.to(to_type);
  t_cached_casts.emplace(arg.impl(), std::make_pair(arg, cast));
  return cast;
}

const std::vector<std::pair<std::string, CastPolicy>>& cpu_ops() {
  static const auto ops = [] {
    std::vector<std::pair<std::string, CastPolicy>> r;
    for (const auto& [op, policy] : kCpuOps) {
      const std::string& full = dispatch::op_handle(op).full_name();
      r.emplace_back(full.substr(full.find("::") + 2), policy);
    }
    return r;
  }();
  return ops;
}

const char* policy_name(CastPolicy policy) {
  switch (policy) {
    case P::lower_precision_fp: return "lower_precision_fp";
    case P::fp32: return "fp32";
    case P::promote: return "promote";
    case P::promote_uncast: return "promote_uncast";
  }
  return "?";
}

Tensor to_reduced_precision(const Tensor& self, bool /*cuda_enabled*/, bool cpu_enabled,
                            ScalarType /*cuda_dtype*/, ScalarType cpu_dtype) {
  // The CUDA flags select nothing: ember has no CUDA tensor.
  if (self.dtype() == kFloat32 && self.is_cpu() && cpu_enabled) return self.to(cpu_dtype);
  return self;
}

Tensor to_full_precision(const Tensor& self, bool /*cuda_enabled*/, bool cpu_enabled) {
  if ((self.dtype() == kFloat16 || self.dtype() == kBFloat16) && self.is_cpu() && cpu_enabled) {
    return self.to(kFloat32);
  }
  return self;
}

AutocastGuard::AutocastGuard(bool enabled, ScalarType dtype, bool cache_enabled)
    : prev_enabled_(is_cpu_enabled()),
      prev_dtype_(get_autocast_cpu_dtype()),
      prev_cache_enabled_(is_autocast_cache_enabled()) {
  set_autocast_cpu_dtype(dtype);  // throws for an unsupported dtype, before any change
  set_cpu_enabled(enabled);
  increment_nesting();
  set_autocast_cache_enabled(cache_enabled);
}

AutocastGuard::~AutocastGuard() {
  if (decrement_nesting() == 0) clear_cache();
  set_cpu_enabled(prev_enabled_);
  t_cpu_dtype = prev_dtype_;
  set_autocast_cache_enabled(prev_cache_enabled_);
}

}  // namespace ember::autocast

namespace ember::dispatch {

bool has_autocast_kernel(OpId op) {
  return autocast::policy_table()[static_cast<size_t>(op)] != autocast::kNone;
}

Stack run_autocast(OpId op, Stack&& args) {
  using namespace autocast;
  const uint8_t entry = policy_table()[static_cast<size_t>(op)];
  const auto policy = static_cast<CastPolicy>(entry);
  AutocastOff off;
  if (entry != kOwnKernel && policy != P::promote_uncast) {
    const ScalarType lower = get_autocast_cpu_dtype();
    ScalarType to_type = policy == P::fp32 ? kFloat32 : lower;
    if (policy == P::promote) {
      for_each_arg_tensor(args, [&](const Tensor& t) { to_type = prioritize(to_type, t, lower); });
    }
    for_each_arg_tensor(args, [&](Tensor& t) { t = cached_cast(to_type, t); });
  }
  return boxed_fn(op)(args);
}

}  // namespace ember::dispatch
