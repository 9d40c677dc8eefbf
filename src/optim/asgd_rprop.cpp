#include "ember/optim/asgd_rprop.h"

#include <algorithm>
#include <cmath>

#include "ember/ops/complex.h"
#include "ember/ops/factory.h"
#include "ember/ops/pointwise.h"
#include "optim_util.h"

// No fused multiply-adds: the step sizes are Python float arithmetic in torch (Note [Python's
// float arithmetic] in lr_scheduler.cpp).
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace ember::optim {

namespace {

using detail::check_lr;
using detail::check_weight_decay;
using detail::cpu_scalar;
using detail::number;
using detail::optional_bool;
using detail::py_float;

void check_etas(const std::array<double, 2>& etas) {
  EMBER_CHECK_VALUE(0.0 < etas[0] && etas[0] < 1.0 && 1.0 < etas[1], "Invalid eta values: ",
                    py_float(etas[0]), ", ", py_float(etas[1]));
}

// torch updates a complex parameter (and its gradient and state) through its real view.
Tensor real_view(const Tensor& t) { return t.is_complex() ? view_as_real(t) : t; }

}  // namespace

ValueDict ASGDOptions::to_dict() const {
  return {{"lr", lr},
          {"lambd", lambd},
          {"alpha", alpha},
          {"t0", t0},
          {"weight_decay", number(weight_decay)},
          {"foreach", optional_bool(foreach)},
          {"maximize", maximize}};
}

ValueDict RpropOptions::to_dict() const {
  return {{"lr", lr},
          {"etas", std::vector<double>{etas[0], etas[1]}},
          {"step_sizes", std::vector<double>{step_sizes[0], step_sizes[1]}},
          {"foreach", optional_bool(foreach)},
          {"maximize", maximize}};
}

// ---- ASGD ----

ASGD::ASGD(std::vector<Tensor> params, const ASGDOptions& d)
    : ASGD(single_group(std::move(params)), d) {}

ASGD::ASGD(std::vector<ParamGroup> groups, const ASGDOptions& d)
    : AdaptiveOptimizer(
          (check_lr(d.lr), check_weight_decay(d.weight_decay), d.to_dict()),
          {"ax"}, {"step", "eta", "mu"}) {
  init_param_groups(std::move(groups));
}

void ASGD::check_options(const ValueDict& o) const { check_common(o); }

void ASGD::update(ParamGroup& group) {
  const ValueDict& o = group.options();
  const double lr = detail::option_double(o, "lr"), lambd = detail::option_double(o, "lambd");
  const double alpha = detail::option_double(o, "alpha"), t0 = detail::option_double(o, "t0");
  const double wd = detail::option_double(o, "weight_decay");
  const bool maximize = detail::option_bool(o, "maximize");
  for (Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    ValueDict& st = state(p);
    if (st.empty()) {
      st.set("step", cpu_scalar(0.0));
      st.set("eta", cpu_scalar(lr));
      st.set("mu", cpu_scalar(1.0));
      st.set("ax", zeros_like(p));
    }
    Tensor step_t = st.at("step").to_tensor();
    Tensor eta = st.at("eta").to_tensor();
    Tensor mu = st.at("mu").to_tensor();
    Tensor ax = real_view(st.at("ax").to_tensor());
    Tensor param = real_view(p);
    Tensor grad = real_view(maximize ? p.grad().neg() : p.grad());
    step_t.add_(1);
    const double step = step_t.item<double>();
    if (wd != 0) grad = grad.add(param, detail::alpha_for(param, wd));
    const double eta_now = eta.item<double>();
    param.mul_(1 - lambd * eta_now);
    param.add_(grad, detail::alpha_for(param, -eta_now));
    if (mu.item<double>() != 1) {
      ax.add_(param.sub(ax).mul(mu));
    } else {
      ax.copy_(param);
    }
    eta.copy_(cpu_scalar(lr / std::pow(1 + lambd * lr * step, alpha)));
    mu.copy_(cpu_scalar(1 / std::max(1.0, step - t0)));
  }
}

// ---- Rprop ----

Rprop::Rprop(std::vector<Tensor> params, const RpropOptions& d)
    : Rprop(single_group(std::move(params)), d) {}

Rprop::Rprop(std::vector<ParamGroup> groups, const RpropOptions& d)
    : AdaptiveOptimizer((check_lr(d.lr), check_etas(d.etas), d.to_dict()),
                        {"prev", "step_size"}, {}) {
  init_param_groups(std::move(groups));
}

void Rprop::check_options(const ValueDict& o) const {
  check_common(o);
  detail::option_pair(o, "etas");
  detail::option_pair(o, "step_sizes");
}

void Rprop::update(ParamGroup& group) {
  const ValueDict& o = group.options();
  const double lr = detail::option_double(o, "lr");
  const auto etas = detail::option_pair(o, "etas");
  const auto sizes = detail::option_pair(o, "step_sizes");
  const double etaminus = etas[0], etaplus = etas[1];
  const bool maximize = detail::option_bool(o, "maximize");
  for (Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    ValueDict& st = state(p);
    if (st.empty()) {
      st.set("step", int64_t{0});
      st.set("prev", zeros_like(p));
      // torch: grad.new().resize_as_(grad).fill_(lr): contiguous, of the gradient's dtype.
      Tensor step_size = empty(p.grad().sizes(), p.grad().options());
      if (p.is_complex()) {
        step_size.fill_(Scalar(std::complex<double>(lr, lr)));
      } else {
        step_size.fill_(lr);
      }
      st.set("step_size", step_size);
    }
    st.set("step", st.at("step").to_int() + 1);
    Tensor grad = real_view(maximize ? p.grad().neg() : p.grad());
    Tensor prev = real_view(st.at("prev").to_tensor());
    Tensor step_size = real_view(st.at("step_size").to_tensor());
    Tensor param = real_view(p);
    // The sign of grad * prev becomes the step-size factor, in torch's order of assignments.
    Tensor sign = grad.mul(prev).sign();
    sign.masked_fill_(sign.gt(0), etaplus);
    sign.masked_fill_(sign.lt(0), etaminus);
    sign.masked_fill_(sign.eq(0), 1);
    step_size.mul_(sign).clamp_(sizes[0], sizes[1]);
    // Where the gradient changed sign, this step does not move and forgets it.
    grad = grad.clone();
    grad.masked_fill_(sign.eq(etaminus), 0);
    param.addcmul_(grad.sign(), step_size, -1);
    prev.copy_(grad);
  }
}

}  // namespace ember::optim
