// Random fills, random factories and dropout. Argument checks and error texts as PyTorch's; the
// values come from src/backends/cpu/random_kernels.cpp (Note [Random streams] there). Every op
// validates before it draws: a failing call leaves the tensor and the generator untouched, and
// meta tensors and empty tensors draw nothing.
#include "ember/ops/random.h"

#include <limits>

#include "../autograd/record.h"
#include "ember/ops/factory.h"
#include "ember/ops/complex.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/view.h"
#include "../backends/cpu/random_kernels.h"
#include "../dispatch/boxing.h"
#include "factory_args.h"
#include "pointwise_helpers.h"
#include "elementwise.h"

namespace ember {

using dispatch::OpId;

namespace {

using ops::OptBool;
using ops::OptDevice;
using ops::OptDtype;
using ops::OptFormat;
using ops::OptLayout;

// The key for one kernel call: the generator's lock is taken once, whatever the size.
uint64_t draw_key(Generator* gen) { return (gen ? *gen : default_generator()).next_u64(); }

bool needs_values(const Tensor& t) { return !t.is_meta() && t.numel() > 0; }

// The C++ type names PyTorch's bounds messages print (its TypeMeta names).
const char* type_meta_name(ScalarType t) {
  switch (t) {
    case kFloat32: return "float";
    case kFloat64: return "double";
    case kFloat16: return "c10::Half";
    case kBFloat16: return "c10::BFloat16";
    case kUInt8: return "unsigned char";
    case kInt8: return "signed char";
    case kInt16: return "short int";
    case kInt32: return "int";
    case kInt64: return "long int";
    case kBool: return "bool";
    default: return scalar_type_name(t);
  }
}

[[noreturn]] void not_implemented(const char* kernel, ScalarType t) {
  EMBER_FAIL("\"", kernel, "\" not implemented for '", scalar_type_name(t), "'");
}

// lowest() and max() of dtype t, as doubles.
std::pair<double, double> dtype_bounds(ScalarType t) {
  return visit_dtype(t, [&]<class T>() -> std::pair<double, double> {
    using O = opmath_t<T>;
    return {static_cast<double>(static_cast<O>(std::numeric_limits<T>::lowest())),
            static_cast<double>(static_cast<O>(std::numeric_limits<T>::max()))};
  }, "random");
}

template <class V>
void check_in_bounds(V value, const char* name, ScalarType t) {
  const auto [lo, hi] = dtype_bounds(t);
  EMBER_CHECK(static_cast<double>(value) >= lo && static_cast<double>(value) <= hi, name,
              " is out of bounds for ", type_meta_name(t));
}

Tensor uniform__impl(const Tensor& self, double from, double to, Generator* gen) {
  if (self.is_complex()) {  // both parts uniform on [from, to), as PyTorch
    uniform__impl(view_as_real(self), from, to, gen);
    return self;
  }
  const ScalarType dt = self.dtype();
  if (!is_floating(dt)) not_implemented("check_uniform_bounds", dt);
  const auto [lo, hi] = dtype_bounds(dt);
  check_in_bounds(from, "from", dt);
  check_in_bounds(to, "to", dt);
  EMBER_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  EMBER_CHECK(to - from <= hi, "uniform_ expects to-from <= std::numeric_limits<",
              scalar_type_name(dt), ">::max(), but found to=", to, " and from=", from,
              " which result in to-from to exceed the limit");
  ops::check_no_internal_overlap("uniform_", self);
  if (needs_values(self)) cpu::uniform_kernel(self, std::max(from, lo), std::min(to, hi), draw_key(gen));
  return ops::mark_written(self);
}

Tensor normal__impl(const Tensor& self, double mean, double std, Generator* gen) {
  EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  if (self.is_complex()) {
    // As PyTorch: the real and imaginary parts each get half the variance.
    normal__impl(view_as_real(self), mean, std / std::sqrt(2.0), gen);
    return self;
  }
  if (!is_floating(self.dtype())) not_implemented("normal_kernel_cpu", self.dtype());
  ops::check_no_internal_overlap("normal_", self);
  if (needs_values(self)) cpu::normal_kernel(self, mean, std, draw_key(gen));
  return ops::mark_written(self);
}

Tensor exponential__impl(const Tensor& self, double lambd, Generator* gen) {
  EMBER_CHECK(lambd >= 0.0, "exponential_ expects lambda >= 0.0, but found lambda=", lambd);
  if (!is_floating(self.dtype())) not_implemented("exponential_cpu", self.dtype());
  ops::check_no_internal_overlap("exponential_", self);
  if (needs_values(self)) cpu::exponential_kernel(self, lambd, draw_key(gen));
  return ops::mark_written(self);
}

Tensor bernoulli__float_impl(const Tensor& self, double p, Generator* gen) {
  EMBER_CHECK(0 <= p && p <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  if (self.is_quantized()) not_implemented("bernoulli_scalar_cpu_", self.dtype());
  ops::check_no_internal_overlap("bernoulli_", self);
  if (needs_values(self)) cpu::bernoulli_scalar_kernel(self, p, draw_key(gen));
  return ops::mark_written(self);
}

Tensor bernoulli_impl(const Tensor& self, Generator* gen) {
  if (!is_floating(self.dtype())) not_implemented("bernoulli_tensor_cpu_p_", self.dtype());
  Tensor out = empty_like(self);
  if (needs_values(self)) {
    cpu::check_probabilities(self);
    cpu::bernoulli_tensor_kernel(out, self, draw_key(gen));
  }
  return out;
}

// Random integers per floating dtype are exact only up to 2^digits.
int float_digits(ScalarType t) {
  return t == kFloat64 ? 53 : t == kFloat32 ? 24 : t == kFloat16 ? 11 : 8;
}

// v rounded to the floating type T and back (c10 converts int64 to Half / BFloat16 via float).
template <class T>
int64_t round_trip(int64_t v) {
  if constexpr (is_reduced_float_v<T>) return static_cast<int64_t>(static_cast<float>(T(static_cast<float>(v))));
  else return static_cast<int64_t>(static_cast<T>(v));
}

// PyTorch's update_from / update_to: a floating dtype rounds large bounds, so the range is
// pulled inward to the nearest bounds that survive the round trip through the dtype.
template <class T>
int64_t update_from(int64_t from) {
  const int64_t from_plus_1 = round_trip<T>(from + 1);
  if (from_plus_1 < from) {
    int64_t from_ = std::abs(from + 1);
    int n = 0;
    while (from_ >>= 1) ++n;
    from = from_plus_1 + (int64_t{1} << (n - float_digits(dtype_of_v<T>) + 1));
  }
  return from;
}

template <class T>
int64_t update_to(int64_t to) {
  const int64_t to_minus_1 = round_trip<T>(to - 1);
  if (to_minus_1 >= to) {
    int64_t to_ = std::abs(to - 1);
    int n = 0;
    while (to_ >>= 1) ++n;
    to = to_minus_1 - (int64_t{1} << (n - float_digits(dtype_of_v<T>) + 1));
  }
  return to;
}

Tensor random__from_impl(const Tensor& self, int64_t from, std::optional<int64_t> to, Generator* gen) {
  const ScalarType dt = self.dtype();
  if (self.is_quantized()) not_implemented("random_from_to_kernel_cpu", dt);
  const bool floating = is_floating(dt);
  uint64_t range = 0;  // 0: all 2^64 int64 values
  if (to) {
    EMBER_CHECK(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from,
                " >= to=", *to);
    int64_t hi = *to;
    if (floating) {
      visit_dtype(dt, [&]<class T>() {
        if constexpr (std::is_floating_point_v<T> || is_reduced_float_v<T>) {
          from = update_from<T>(from);
          hi = update_to<T>(hi);
        }
      });
      EMBER_CHECK(from < hi, "random_ expects 'from' casted to dtype to be less than 'to' casted "
                  "to dtype, but got from=", from, " >= to=", hi);
    }
    check_in_bounds(from, "from", dt);
    check_in_bounds(hi - 1, "to - 1", dt);
    range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(from);
  } else if (from != std::numeric_limits<int64_t>::lowest()) {
    // [from, the dtype's largest value]; floating dtypes stop at 2^digits, where they still
    // hold every integer.
    int64_t to_inc;
    if (floating) {
      to_inc = int64_t{1} << float_digits(dt);
      visit_dtype(dt, [&]<class T>() {
        if constexpr (std::is_floating_point_v<T> || is_reduced_float_v<T>) from = update_from<T>(from);
      });
      EMBER_CHECK(from < to_inc, "random_ expects 'from' casted to dtype to be less than or equal "
                  "to 'to_inc' casted to dtype, but got from=", from, " > to_inc=", to_inc);
    } else {
      to_inc = static_cast<int64_t>(dtype_bounds(dt).second);
      if (dt == kInt64) to_inc = std::numeric_limits<int64_t>::max();  // the double rounds up
    }
    check_in_bounds(from, "from", dt);
    check_in_bounds(to_inc, "to - 1", dt);
    range = static_cast<uint64_t>(to_inc) - static_cast<uint64_t>(from) + 1;
  }
  ops::check_no_internal_overlap("random_", self);
  if (needs_values(self)) cpu::random_from_to_kernel(self, range, from, draw_key(gen));
  return ops::mark_written(self);
}

Tensor& uniform__op(Tensor& self, double from, double to, Generator* gen) {
  dispatch::call<uniform__impl>(OpId::uniform_, self, from, to, gen);
  return self;
}
Tensor& normal__op(Tensor& self, double mean, double std, Generator* gen) {
  dispatch::call<normal__impl>(OpId::normal_, self, mean, std, gen);
  return self;
}
Tensor& exponential__op(Tensor& self, double lambd, Generator* gen) {
  dispatch::call<exponential__impl>(OpId::exponential_, self, lambd, gen);
  return self;
}
Tensor& bernoulli__float_op(Tensor& self, double p, Generator* gen) {
  dispatch::call<bernoulli__float_impl>(OpId::bernoulli__float, self, p, gen);
  return self;
}
Tensor bernoulli_op(const Tensor& self, Generator* gen) {
  return dispatch::call<bernoulli_impl>(OpId::bernoulli, self, gen);
}
Tensor& random__from_op(Tensor& self, int64_t from, std::optional<int64_t> to, Generator* gen) {
  dispatch::call<random__from_impl>(OpId::random__from, self, from, to, gen);
  return self;
}
// random_() and random_(to) are random_(0, None) and random_(0, to), as PyTorch composes them.
Tensor random__impl(const Tensor& self, Generator* gen) {
  Tensor t = self;
  return random__from_op(t, 0, std::nullopt, gen);
}
Tensor random__to_impl(const Tensor& self, int64_t to, Generator* gen) {
  Tensor t = self;
  return random__from_op(t, 0, to, gen);
}
Tensor& random__op(Tensor& self, Generator* gen) {
  dispatch::call<random__impl>(OpId::random_, self, gen);
  return self;
}
Tensor& random__to_op(Tensor& self, int64_t to, Generator* gen) {
  dispatch::call<random__to_impl>(OpId::random__to, self, to, gen);
  return self;
}

// ---- random factories (composites: allocate, then fill in place) ----
TensorOptions factory_options(OptDtype dtype, OptDevice device) {
  return TensorOptions().dtype(dtype).device(device);
}

Tensor rand_impl(IntArrayRef size, OptDtype dtype, OptLayout, OptDevice device, OptBool) {
  Tensor t = empty(size, factory_options(dtype, device));
  return uniform__op(t, 0, 1, nullptr);
}
Tensor randn_impl(IntArrayRef size, OptDtype dtype, OptLayout, OptDevice device, OptBool) {
  Tensor t = empty(size, factory_options(dtype, device));
  return normal__op(t, 0, 1, nullptr);
}
Tensor randint_impl(int64_t low, int64_t high, IntArrayRef size, OptDtype dtype, OptLayout,
                    OptDevice device, OptBool) {
  Tensor t = empty(size, factory_options(dtype.value_or(kInt64), device));
  return random__from_op(t, low, high, nullptr);
}

// The .generator overloads: the same fills, from the given generator.
Tensor rand_generator_impl(IntArrayRef size, Generator* gen, OptDtype dtype, OptLayout,
                           OptDevice device, OptBool) {
  Tensor t = empty(size, factory_options(dtype, device));
  return uniform__op(t, 0, 1, gen);
}
Tensor randn_generator_impl(IntArrayRef size, Generator* gen, OptDtype dtype, OptLayout,
                            OptDevice device, OptBool) {
  Tensor t = empty(size, factory_options(dtype, device));
  return normal__op(t, 0, 1, gen);
}
Tensor randint_low_generator_impl(int64_t low, int64_t high, IntArrayRef size, Generator* gen,
                                  OptDtype dtype, OptLayout, OptDevice device, OptBool) {
  Tensor t = empty(size, factory_options(dtype.value_or(kInt64), device));
  return random__from_op(t, low, high, gen);
}

// randperm: PyTorch's checks that n - 1 fits the dtype (its scalar_tensor(n - 1)) and that a
// floating dtype holds every integer up to n exactly.
Tensor randperm_common(int64_t n, Generator* gen, OptDtype dtype, OptDevice device) {
  const ScalarType dt = dtype.value_or(kInt64);
  EMBER_CHECK(n >= 0, "Trying to create tensor with negative dimension ", n, ": [", n, "]");
  if (dt == kBool || is_quantized(dt)) not_implemented("randperm", dt);
  if (n > 0) ops::check_scalar_fits(Scalar(n - 1), dt);
  EMBER_CHECK(dt != kFloat16 || n <= (int64_t{1} << 11) + 1, "n cannot be greater than 2049 for Half type.");
  EMBER_CHECK(dt != kFloat32 || n <= (int64_t{1} << 24) + 1, "n cannot be greater than 2^24+1 for Float type.");
  EMBER_CHECK(dt != kFloat64 || n <= (int64_t{1} << 53) + 1, "n cannot be greater than 2^53+1 for Double type.");
  Tensor out = empty({n}, factory_options(dt, device));
  if (needs_values(out)) cpu::randperm_kernel(out, n, draw_key(gen));
  return out;
}
Tensor randperm_impl(int64_t n, OptDtype dtype, OptLayout, OptDevice device, OptBool) {
  return randperm_common(n, nullptr, dtype, device);
}
Tensor randperm_generator_impl(int64_t n, Generator* gen, OptDtype dtype, OptLayout, OptDevice device,
                               OptBool) {
  return randperm_common(n, gen, dtype, device);
}

// normal(mean, std): N(0, 1) (or N(0, std)) values in the broadcast shape, scaled and shifted,
// as PyTorch composes them; its std checks.
void check_std_tensor(const Tensor& std) {
  if (std.is_meta() || std.numel() == 0) return;
  EMBER_CHECK(std.min().item().to_double() >= 0.0, "normal expects all elements of std >= 0.0");
}
Tensor normal_Tensor_float_impl(const Tensor& mean, double std, Generator* gen) {
  EMBER_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  Tensor out = empty_like(mean, TensorOptions(), MemoryFormat::Contiguous);
  normal__op(out, 0, std, gen);
  return out.add_(mean);
}
Tensor normal_float_Tensor_impl(double mean, const Tensor& std, Generator* gen) {
  check_std_tensor(std);
  Tensor out = empty_like(std, TensorOptions(), MemoryFormat::Contiguous);
  normal__op(out, 0, 1, gen);
  return out.mul_(std).add_(mean);
}
Tensor normal_Tensor_Tensor_impl(const Tensor& mean, const Tensor& std, Generator* gen) {
  check_std_tensor(std);
  const auto shape = broadcast_shapes(mean.sizes(), std.sizes());
  Tensor out = empty(shape, TensorOptions(result_type(mean, std)).device(mean.device()));
  normal__op(out, 0, 1, gen);
  return out.mul_(std).add_(mean);
}
Tensor normal_float_float_impl(double mean, double std, IntArrayRef size, Generator* gen,
                               OptDtype dtype, OptLayout, OptDevice device, OptBool) {
  Tensor out = empty(size, factory_options(dtype, device));
  return normal__op(out, mean, std, gen);
}

Tensor rand_op(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin) {
  return dispatch::call<rand_impl>(OpId::rand, size, dtype, layout, device, pin);
}
Tensor randn_op(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin) {
  return dispatch::call<randn_impl>(OpId::randn, size, dtype, layout, device, pin);
}
Tensor randint_op(int64_t low, int64_t high, IntArrayRef size, OptDtype dtype, OptLayout layout,
                  OptDevice device, OptBool pin) {
  return dispatch::call<randint_impl>(OpId::randint_low, low, high, size, dtype, layout, device, pin);
}

Tensor rand_generator_op(IntArrayRef size, Generator* gen, OptDtype dtype, OptLayout layout,
                         OptDevice device, OptBool pin) {
  return dispatch::call<rand_generator_impl>(OpId::rand_generator, size, gen, dtype, layout, device, pin);
}
Tensor randn_generator_op(IntArrayRef size, Generator* gen, OptDtype dtype, OptLayout layout,
                          OptDevice device, OptBool pin) {
  return dispatch::call<randn_generator_impl>(OpId::randn_generator, size, gen, dtype, layout, device, pin);
}
Tensor randint_low_generator_op(int64_t low, int64_t high, IntArrayRef size, Generator* gen,
                                OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin) {
  return dispatch::call<randint_low_generator_impl>(OpId::randint_low_generator, low, high, size,
                                                    gen, dtype, layout, device, pin);
}

Tensor randperm_op(int64_t n, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin) {
  return dispatch::call<randperm_impl>(OpId::randperm, n, dtype, layout, device, pin);
}
Tensor randperm_generator_op(int64_t n, Generator* gen, OptDtype dtype, OptLayout layout,
                             OptDevice device, OptBool pin) {
  return dispatch::call<randperm_generator_impl>(OpId::randperm_generator, n, gen, dtype, layout,
                                                 device, pin);
}
Tensor normal_Tensor_float_op(const Tensor& mean, double std, Generator* gen) {
  return dispatch::call<normal_Tensor_float_impl>(OpId::normal_Tensor_float, mean, std, gen);
}
Tensor normal_float_Tensor_op(double mean, const Tensor& std, Generator* gen) {
  return dispatch::call<normal_float_Tensor_impl>(OpId::normal_float_Tensor, mean, std, gen);
}
Tensor normal_Tensor_Tensor_op(const Tensor& mean, const Tensor& std, Generator* gen) {
  return dispatch::call<normal_Tensor_Tensor_impl>(OpId::normal_Tensor_Tensor, mean, std, gen);
}
Tensor normal_float_float_op(double mean, double std, IntArrayRef size, Generator* gen, OptDtype dtype,
                             OptLayout layout, OptDevice device, OptBool pin) {
  return dispatch::call<normal_float_float_impl>(OpId::normal_float_float, mean, std, size, gen,
                                                 dtype, layout, device, pin);
}

// ---- dropout ----
std::tuple<Tensor, Tensor> native_dropout_impl(const Tensor& input, double p, std::optional<bool> train) {
  ops::check_not_quantized("native_dropout", {input});
  // As PyTorch: an empty input comes back as is, with an empty mask of its own dtype.
  if (input.numel() == 0) return {input, empty_like(input)};
  if (train.has_value() && !*train) return {clone(input), ones_like(input, kBool)};
  const double p1m = 1. - p;
  EMBER_CHECK(0 <= p1m && p1m <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", p1m);
  // input.mul(mask).mul_(scale) with a float scale: only floating inputs can hold the result.
  EMBER_CHECK(is_floating(input.dtype()), "result type Float can't be cast to the desired output type ",
              scalar_type_name(input.dtype()));
  const double scale = p1m == 0 ? 0. : 1. / p1m;  // p == 1 zeroes everything (NaN stays NaN)
  Tensor out = empty_like(input);
  Tensor mask = empty_like(input, kBool);
  if (!out.is_meta()) cpu::dropout_kernel(out, mask, input, p, scale, draw_key(nullptr));
  return {out, mask};
}

std::tuple<Tensor, Tensor> native_dropout_op(const Tensor& input, double p, std::optional<bool> train) {
  return dispatch::call<native_dropout_impl>(OpId::native_dropout, input, p, train);
}

// ---- autograd ----
// NativeDropoutBackward0: d out = grad * mask * scale, the scale the forward used (1 in eval
// mode). The mask (output 1) is not differentiable and gets no history.
std::tuple<Tensor, Tensor> native_dropout_autograd(const Tensor& input, const double& p,
                                                   const std::optional<bool>& train) {
  autograd::Recorder r("NativeDropoutBackward0", input);
  auto [out, mask] = r.forward(
      [&] { return dispatch::call<native_dropout_impl>(OpId::native_dropout, input, p, train); });
  if (!r) return {out, mask};
  // An empty input comes back as itself; recording must not rewrite the input's own history
  // (PyTorch 1.13 does, turning a leaf into a non-leaf): the output gets an impl of its own.
  if (out.is_same(input)) out = input.variable_data();
  const bool eval = train.has_value() && !*train;
  const double scale = eval ? 1. : p == 1 ? 0. : 1. / (1. - p);
  const size_t mask_ = r.save(mask, "result1");  // the mask is output 1 (no history)
  r.values("p", p);  // (PyTorch 1.13 shows no `train`)
  r.finish(out, [=](autograd::OpNode& n, const autograd::tensor_list& g) {
    const Tensor m = n.saved(mask_);
    return autograd::tensor_list{g[0] * (m.to(g[0].dtype()) * scale)};
  });
  return {out, mask};
}

Tensor dropout_impl(const Tensor& input, double p, bool train) {
  EMBER_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if (p == 0 || !train || input.numel() == 0) return input;
  // PyTorch multiplies by zeros here, which integer inputs survive (native_dropout refuses them).
  if (p == 1 && !is_floating(input.dtype())) return zeros_like(input);
  return std::get<0>(native_dropout_op(input, p, train));
}

Tensor dropout_op(const Tensor& input, double p, bool train) {
  return dispatch::call<dropout_impl>(OpId::dropout, input, p, train);
}

}  // namespace

Tensor& uniform_(Tensor& self, double from, double to, Generator* gen) {
  return uniform__op(self, from, to, gen);
}
Tensor& normal_(Tensor& self, double mean, double std, Generator* gen) {
  return normal__op(self, mean, std, gen);
}
Tensor& bernoulli_(Tensor& self, double p, Generator* gen) { return bernoulli__float_op(self, p, gen); }
Tensor bernoulli(const Tensor& self, Generator* gen) { return bernoulli_op(self, gen); }
Tensor& random_(Tensor& self, int64_t from, std::optional<int64_t> to, Generator* gen) {
  return random__from_op(self, from, to, gen);
}
Tensor& random_(Tensor& self, int64_t to) { return random__to_op(self, to, nullptr); }
Tensor& random_(Tensor& self) { return random__op(self, nullptr); }

// With a generator the factories are PyTorch's .generator overloads.
Tensor rand(IntArrayRef sizes, TensorOptions o, Generator* gen) {
  if (!gen) return detail::apply_requires_grad(rand_op(sizes, o.dtype_, std::nullopt, o.device_, std::nullopt), o);
  return detail::apply_requires_grad(rand_generator_op(sizes, gen, o.dtype_, std::nullopt, o.device_, std::nullopt), o);
}
Tensor randn(IntArrayRef sizes, TensorOptions o, Generator* gen) {
  if (!gen) return detail::apply_requires_grad(randn_op(sizes, o.dtype_, std::nullopt, o.device_, std::nullopt), o);
  return detail::apply_requires_grad(randn_generator_op(sizes, gen, o.dtype_, std::nullopt, o.device_, std::nullopt), o);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, TensorOptions o, Generator* gen) {
  if (!gen) return detail::apply_requires_grad(randint_op(low, high, sizes, o.dtype_, std::nullopt, o.device_, std::nullopt), o);
  return detail::apply_requires_grad(randint_low_generator_op(low, high, sizes, gen, o.dtype_, std::nullopt, o.device_,
                                  std::nullopt), o);
}
Tensor randint(int64_t high, IntArrayRef sizes, TensorOptions o, Generator* gen) {
  return detail::apply_requires_grad(randint(0, high, sizes, o, gen), o);
}

Tensor& exponential_(Tensor& self, double lambd, Generator* gen) {
  return exponential__op(self, lambd, gen);
}
Tensor randperm(int64_t n, TensorOptions o, Generator* gen) {
  if (!gen) return detail::apply_requires_grad(randperm_op(n, o.dtype_, std::nullopt, o.device_, std::nullopt), o);
  return detail::apply_requires_grad(randperm_generator_op(n, gen, o.dtype_, std::nullopt, o.device_, std::nullopt), o);
}
Tensor normal(const Tensor& mean, double std, Generator* gen) {
  return normal_Tensor_float_op(mean, std, gen);
}
Tensor normal(double mean, const Tensor& std, Generator* gen) {
  return normal_float_Tensor_op(mean, std, gen);
}
Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen) {
  return normal_Tensor_Tensor_op(mean, std, gen);
}
Tensor normal(double mean, double std, IntArrayRef size, TensorOptions o, Generator* gen) {
  return detail::apply_requires_grad(normal_float_float_op(mean, std, size, gen, o.dtype_, std::nullopt, o.device_, std::nullopt), o);
}

std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train) {
  return native_dropout_op(input, p, train);
}
Tensor dropout(const Tensor& input, double p, bool train) { return dropout_op(input, p, train); }

EMBER_REGISTER_OP(uniform_, &uniform__op);
EMBER_REGISTER_OP(normal_, &normal__op);
EMBER_REGISTER_OP(bernoulli__float, &bernoulli__float_op);
EMBER_REGISTER_OP(bernoulli, &bernoulli_op);
EMBER_REGISTER_OP(random__from, &random__from_op);
EMBER_REGISTER_OP(random__to, &random__to_op);
EMBER_REGISTER_OP(random_, &random__op);
EMBER_REGISTER_OP(rand_generator, &rand_generator_op);
EMBER_REGISTER_OP(randperm, &randperm_op);
EMBER_REGISTER_OP(randperm_generator, &randperm_generator_op);
EMBER_REGISTER_OP(exponential_, &exponential__op);
EMBER_REGISTER_OP(normal_Tensor_float, &normal_Tensor_float_op);
EMBER_REGISTER_OP(normal_float_Tensor, &normal_float_Tensor_op);
EMBER_REGISTER_OP(normal_Tensor_Tensor, &normal_Tensor_Tensor_op);
EMBER_REGISTER_OP(normal_float_float, &normal_float_float_op);
EMBER_REGISTER_OP(randn_generator, &randn_generator_op);
EMBER_REGISTER_OP(randint_low_generator, &randint_low_generator_op);
EMBER_REGISTER_OP(rand, &rand_op);
EMBER_REGISTER_OP(randn, &randn_op);
EMBER_REGISTER_OP(randint_low, &randint_op);
EMBER_REGISTER_OP(native_dropout, &native_dropout_op);
EMBER_REGISTER_OP(dropout, &dropout_op);
EMBER_REGISTER_AUTOGRAD(native_dropout, &native_dropout_autograd);  // dropout is a composite

// ---- Tensor methods ----
Tensor& Tensor::uniform_(double from, double to, Generator* gen) { return ember::uniform_(*this, from, to, gen); }
Tensor& Tensor::normal_(double mean, double std, Generator* gen) { return ember::normal_(*this, mean, std, gen); }
Tensor& Tensor::bernoulli_(double p, Generator* gen) { return ember::bernoulli_(*this, p, gen); }

}  // namespace ember
