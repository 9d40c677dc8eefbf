// Range factories: arange, linspace, eye. Sizes, dtypes and errors as PyTorch's; values from
// src/backends/cpu/range_kernels.cpp (meta tensors stop after allocation).
#include <cmath>

#include "../backends/cpu/range_kernels.h"
#include "../dispatch/boxing.h"
#include "factory_args.h"
#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "scalar_convert.h"

namespace ember {

using dispatch::OpId;

namespace {

using ops::OptBool;
using ops::OptDevice;
using ops::OptDtype;
using ops::OptFormat;
using ops::OptLayout;

// arange and linspace have no bool (or quantized) kernel in PyTorch.
void check_range_dtype(ScalarType dt, const char* kernel) {
  EMBER_CHECK(dt != kBool && !is_quantized(dt), "\"", kernel, "\" not implemented for '",
              scalar_type_name(dt), "'");
}

// The number of elements of arange(start, end, step) in dtype T, with PyTorch's checks in its
// order. Floating and narrow integer dtypes size the range in double (so every device agrees);
// int64 uses exact integer ceil-division, which double would round for large bounds.
template <class T>
int64_t arange_size(const Scalar& start, const Scalar& end, const Scalar& step) {
  using Acc = cpu::range_acc_t<T>;
  const Acc xstart = ops::checked_to<Acc>(start), xend = ops::checked_to<Acc>(end),
            xstep = ops::checked_to<Acc>(step);
  EMBER_CHECK(xstep > 0 || xstep < 0, "step must be nonzero");
  EMBER_CHECK(std::isfinite(static_cast<double>(xstart)) && std::isfinite(static_cast<double>(xend)),
              "unsupported range: ", xstart, " -> ", xend);
  EMBER_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart),
              "upper bound and larger bound inconsistent with step sign");
  double size_d;
  if constexpr (std::is_same_v<T, int64_t>) {
    // (end - start + step - sign) / step, wrapping like PyTorch's int64 arithmetic: a range
    // too wide for int64 comes out negative and is refused below.
    const int64_t sgn = xstep > 0 ? 1 : -1;
    const auto wide = static_cast<int64_t>(static_cast<uint64_t>(xend) - static_cast<uint64_t>(xstart) +
                                           static_cast<uint64_t>(xstep) - static_cast<uint64_t>(sgn));
    size_d = static_cast<double>(wide / xstep);
  } else {
    size_d = std::ceil((end.to_double() - start.to_double()) / step.to_double());
  }
  EMBER_CHECK(size_d >= 0 && size_d <= static_cast<double>(std::numeric_limits<int64_t>::max()),
              "invalid size, possible overflow?");
  return static_cast<int64_t>(size_d);
}

bool integral_like(const Scalar& s) { return s.is_integral() || s.is_bool(); }

Tensor arange_impl(const Scalar& start, const Scalar& end, const Scalar& step, OptDtype dtype,
                   OptLayout, OptDevice device, OptBool) {
  // Bools count as integers here, as in PyTorch: arange(True, 3) is int64.
  const bool all_integral = integral_like(start) && integral_like(end) && integral_like(step);
  const ScalarType dt = dtype ? *dtype : all_integral ? kInt64 : default_dtype();
  check_range_dtype(dt, "arange_cpu");
  const int64_t size = visit_dtype(dt, [&]<class T>() -> int64_t {
    if constexpr (std::is_same_v<T, bool>) return 0;  // refused above
    else return arange_size<T>(start, end, step);
  }, "arange_cpu");
  Tensor out = empty({size}, TensorOptions(dt).device(device.value_or(default_device())));
  if (!out.is_meta()) cpu::arange_kernel(out, start, step);
  return out;
}

Tensor linspace_impl(const Scalar& start, const Scalar& end, int64_t steps, OptDtype dtype,
                     OptLayout, OptDevice device, OptBool) {
  EMBER_CHECK(steps >= 0, "number of steps must be non-negative");
  const ScalarType dt = dtype.value_or(default_dtype());
  Tensor out = empty({steps}, TensorOptions(dt).device(device.value_or(default_device())));
  if (steps == 0) return out;
  if (steps == 1) return fill_(out, start);  // as PyTorch: any dtype, bool included
  check_range_dtype(dt, "linspace_cpu");
  visit_dtype(dt, [&]<class T>() {
    ops::checked_to<T>(start);
    ops::checked_to<T>(end);
  }, "linspace_cpu");
  if (!out.is_meta()) cpu::linspace_kernel(out, start, end);
  return out;
}

Tensor eye_impl(int64_t n, int64_t m, OptDtype dtype, OptLayout, OptDevice device, OptBool) {
  EMBER_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  EMBER_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  Tensor out = empty({n, m}, TensorOptions(dtype.value_or(default_dtype()))
                                 .device(device.value_or(default_device())));
  if (!out.is_meta() && out.numel() > 0) cpu::eye_kernel(out);
  return out;
}

// Schema-shaped frontends (argument order as in ops.def).
Tensor arange_op(const Scalar& start, const Scalar& end, const Scalar& step, OptDtype dtype,
                 OptLayout layout, OptDevice device, OptBool pin) {
  return dispatch::call<arange_impl>(OpId::arange_start_step, start, end, step, dtype, layout,
                                     device, pin);
}
Tensor linspace_op(const Scalar& start, const Scalar& end, int64_t steps, OptDtype dtype,
                   OptLayout layout, OptDevice device, OptBool pin) {
  return dispatch::call<linspace_impl>(OpId::linspace, start, end, steps, dtype, layout, device, pin);
}
Tensor eye_op(int64_t n, int64_t m, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin) {
  return dispatch::call<eye_impl>(OpId::eye_m, n, m, dtype, layout, device, pin);
}

}  // namespace

Tensor arange(const Scalar& end, TensorOptions o) { return detail::apply_requires_grad(arange(0, end, 1, o), o); }
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, TensorOptions o) {
  return detail::apply_requires_grad(arange_op(start, end, step, o.dtype_, std::nullopt, o.device_, std::nullopt), o);
}
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions o) {
  return detail::apply_requires_grad(linspace_op(start, end, steps, o.dtype_, std::nullopt, o.device_, std::nullopt), o);
}
Tensor eye(int64_t n, TensorOptions o) { return detail::apply_requires_grad(eye(n, n, o), o); }
Tensor eye(int64_t n, int64_t m, TensorOptions o) {
  return detail::apply_requires_grad(eye_op(n, m, o.dtype_, std::nullopt, o.device_, std::nullopt), o);
}

EMBER_REGISTER_OP(arange_start_step, &arange_op);
EMBER_REGISTER_OP(linspace, &linspace_op);
EMBER_REGISTER_OP(eye_m, &eye_op);

}  // namespace ember
