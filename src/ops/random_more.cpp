// More distributions: cauchy_, geometric_, log_normal_ (in-place fills), poisson and binomial
// (elementwise samplers) and randint_like. Checks and texts are PyTorch 1.13's; values come
// from ember's Generator (src/backends/cpu/random_more_kernels.cpp), so manual_seed reproduces
// them. Every op validates before it draws: a failing call leaves the generator untouched.
#include "ember/ops/random_more.h"

#include "ember/generator.h"
#include "ember/ops/factory.h"
#include "ember/ops/math.h"
#include "ember/ops/random.h"

#include "../autograd/record.h"
#include "../backends/cpu/random_more_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "factory_args.h"

namespace ember {

using dispatch::OpId;

namespace {

uint64_t draw_key(Generator* gen) { return (gen ? *gen : default_generator()).next_u64(); }
bool needs_values(const Tensor& t) { return !t.is_meta() && t.numel() > 0; }

void require_floating(const Tensor& t, const char* kernel) {
  EMBER_CHECK(is_floating(t.dtype()), "\"", kernel, "\" not implemented for '", scalar_type_name(t.dtype()), "'");
}

Tensor cauchy__impl(const Tensor& self, double median, double sigma, Generator* gen) {
  require_floating(self, "cauchy_cpu");
  ops::check_no_internal_overlap("cauchy_", self);
  if (needs_values(self)) cpu::cauchy_kernel(self, median, sigma, draw_key(gen));
  return ops::mark_written(self);
}

Tensor log_normal__impl(const Tensor& self, double mean, double std, Generator* gen) {
  EMBER_CHECK(std > 0.0, "log_normal_ expects std > 0.0, but found std=", std);
  require_floating(self, "log_normal_cpu");
  ops::check_no_internal_overlap("log_normal_", self);
  if (needs_values(self)) cpu::log_normal_kernel(self, mean, std, draw_key(gen));
  return ops::mark_written(self);
}

Tensor geometric__impl(const Tensor& self, double p, Generator* gen) {
  EMBER_CHECK(0 < p && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  EMBER_CHECK(self.dtype() != kBool && !self.is_quantized() && !self.is_complex(), "\"geometric_cpu\" not implemented for '",
              scalar_type_name(self.dtype()), "'");
  ops::check_no_internal_overlap("geometric_", self);
  if (needs_values(self)) cpu::geometric_kernel(self, p, draw_key(gen));
  return ops::mark_written(self);
}

Tensor poisson_impl(const Tensor& self, Generator* gen) {
  EMBER_CHECK(self.dtype() == kFloat32 || self.dtype() == kFloat64 || self.dtype() == kBFloat16,
              "\"poisson_cpu\" not implemented for '", scalar_type_name(self.dtype()), "'");
  Tensor out = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  if (needs_values(self)) {
    EMBER_CHECK(!ember::lt(self, Scalar(0)).any().item<bool>(), "invalid Poisson rate, expected rate to be non-negative");
    cpu::poisson_kernel(out, self, draw_key(gen));
  }
  return out;
}

Tensor binomial_impl(const Tensor& count, const Tensor& prob, Generator* gen) {
  EMBER_CHECK(count.dtype() == prob.dtype(), "Found dtype ", scalar_type_name(prob.dtype()), " but expected ",
              scalar_type_name(count.dtype()));
  EMBER_CHECK(count.dtype() == kFloat32 || count.dtype() == kFloat64 || count.dtype() == kBFloat16,
              "\"binomial_cpu\" not implemented for '", scalar_type_name(count.dtype()), "'");
  const Device device = ops::common_device("binomial", {count, prob});
  const DimVector shape = broadcast_shapes(count.sizes(), prob.sizes());
  Tensor out = empty(shape, TensorOptions(count.dtype()).device(device));
  if (needs_values(out)) cpu::binomial_kernel(out, count.expand(shape), prob.expand(shape), draw_key(gen));
  return out;
}

// randint_like: PyTorch's composite, empty_like then random_(low, high).
Tensor randint_like_low_impl(const Tensor& self, int64_t low, int64_t high, ops::OptDtype dtype, ops::OptLayout layout,
                             ops::OptDevice device, ops::OptBool pin_memory, ops::OptFormat memory_format) {
  TensorOptions opts = TensorOptions(dtype.value_or(self.dtype())).device(device.value_or(self.device()));
  (void)layout;
  (void)pin_memory;
  Tensor out = memory_format ? empty_like(self, opts, memory_format_from_int(*memory_format)) : empty_like(self, opts);
  return random_(out, low, high);
}
Tensor randint_like_impl(const Tensor& self, int64_t high, ops::OptDtype dtype, ops::OptLayout layout,
                         ops::OptDevice device, ops::OptBool pin_memory, ops::OptFormat memory_format) {
  return randint_like_low_impl(self, 0, high, dtype, layout, device, pin_memory, memory_format);
}

// ---- autograd ----
// The samples have zero gradient (PyTorch's PoissonBackward0 / CauchyBackward0 / ...: zeros);
// binomial has none at all.
using autograd::OpNode;
using autograd::tensor_list;

template <auto Impl, OpId Id, class... A>
Tensor random_fill_autograd(const char* name, const Tensor& self, const A&... args) {
  autograd::Recorder r(name, self);
  autograd::check_inplace_if(r, self);
  r.forward([&] { return dispatch::call<Impl>(Id, self, args...); });
  if (!r) return self;
  r.finish_inplace(self, [](OpNode&, const tensor_list& g) { return tensor_list{zeros_like(g[0])}; });
  return self;
}

Tensor cauchy__autograd(const Tensor& self, const double& median, const double& sigma, Generator* const& gen) {
  return random_fill_autograd<cauchy__impl, OpId::cauchy_>("CauchyBackward0", self, median, sigma, gen);
}
Tensor log_normal__autograd(const Tensor& self, const double& mean, const double& std, Generator* const& gen) {
  return random_fill_autograd<log_normal__impl, OpId::log_normal_>("LogNormalBackward0", self, mean, std, gen);
}
Tensor geometric__autograd(const Tensor& self, const double& p, Generator* const& gen) {
  return random_fill_autograd<geometric__impl, OpId::geometric_>("GeometricBackward0", self, p, gen);
}
Tensor poisson_autograd(const Tensor& self, Generator* const& gen) {
  autograd::Recorder r("PoissonBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<poisson_impl>(OpId::poisson, self, gen); });
  if (!r) return out;
  return r.finish(out, [](OpNode&, const tensor_list& g) { return tensor_list{zeros_like(g[0])}; });
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(cauchy_, &cauchy__autograd);
EMBER_REGISTER_AUTOGRAD(log_normal_, &log_normal__autograd);
EMBER_REGISTER_AUTOGRAD(geometric_, &geometric__autograd);
EMBER_REGISTER_AUTOGRAD(poisson, &poisson_autograd);

Tensor& cauchy_(Tensor& self, double median, double sigma, Generator* gen) {
  dispatch::call<cauchy__impl>(OpId::cauchy_, self, median, sigma, gen);
  return self;
}
Tensor& log_normal_(Tensor& self, double mean, double std, Generator* gen) {
  dispatch::call<log_normal__impl>(OpId::log_normal_, self, mean, std, gen);
  return self;
}
Tensor& geometric_(Tensor& self, double p, Generator* gen) {
  dispatch::call<geometric__impl>(OpId::geometric_, self, p, gen);
  return self;
}
Tensor poisson(const Tensor& self, Generator* gen) { return dispatch::call<poisson_impl>(OpId::poisson, self, gen); }
Tensor binomial(const Tensor& count, const Tensor& prob, Generator* gen) {
  return dispatch::call<binomial_impl>(OpId::binomial, count, prob, gen);
}
namespace {
Tensor randint_like_op(const Tensor& self, int64_t high, ops::OptDtype dtype, ops::OptLayout layout, ops::OptDevice device,
                       ops::OptBool pin_memory, ops::OptFormat memory_format) {
  return dispatch::call<randint_like_impl>(OpId::randint_like, self, high, dtype, layout, device, pin_memory,
                                           memory_format);
}
Tensor randint_like_low_op(const Tensor& self, int64_t low, int64_t high, ops::OptDtype dtype, ops::OptLayout layout,
                           ops::OptDevice device, ops::OptBool pin_memory, ops::OptFormat memory_format) {
  return dispatch::call<randint_like_low_impl>(OpId::randint_like_low_dtype, self, low, high, dtype, layout, device,
                                               pin_memory, memory_format);
}
}  // namespace
Tensor randint_like(const Tensor& self, int64_t high, std::optional<ScalarType> dtype) {
  return randint_like_op(self, high, dtype, std::nullopt, std::nullopt, std::nullopt, std::nullopt);
}
Tensor randint_like(const Tensor& self, int64_t low, int64_t high, std::optional<ScalarType> dtype) {
  return randint_like_low_op(self, low, high, dtype, std::nullopt, std::nullopt, std::nullopt, std::nullopt);
}

EMBER_REGISTER_OP(cauchy_, &cauchy_);
EMBER_REGISTER_OP(log_normal_, &log_normal_);
EMBER_REGISTER_OP(geometric_, &geometric_);
EMBER_REGISTER_OP(poisson, &poisson);
EMBER_REGISTER_OP(binomial, &binomial);
EMBER_REGISTER_OP(randint_like, &randint_like_op);
EMBER_REGISTER_OP(randint_like_low_dtype, &randint_like_low_op);

}  // namespace ember
