#include "ember/optim/adaptive.h"

#include <cmath>

#include "ember/ops/factory.h"
#include "ember/ops/pointwise.h"
#include "optim_util.h"

// No fused multiply-adds in this file: see Note [Python's float arithmetic] in lr_scheduler.cpp
// (step sizes are computed as torch computes them in Python, one rounding per operation).
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace ember::optim {

namespace {

using detail::check_weight_decay;
using detail::cpu_scalar;
using detail::number;
using detail::optional_bool;
using detail::py_float;

std::vector<double> pair_value(const std::array<double, 2>& p) { return {p[0], p[1]}; }

void check_lr_eps(double lr, double eps) {
  detail::check_lr(lr);
  EMBER_CHECK_VALUE(0.0 <= eps, "Invalid epsilon value: ", py_float(eps));
}

void check_betas(const std::array<double, 2>& betas) {
  EMBER_CHECK_VALUE(0.0 <= betas[0] && betas[0] < 1.0,
                    "Invalid beta parameter at index 0: ", py_float(betas[0]));
  EMBER_CHECK_VALUE(0.0 <= betas[1] && betas[1] < 1.0,
                    "Invalid beta parameter at index 1: ", py_float(betas[1]));
}

// torch's "Invalid <what> value: <v>" for an argument outside [lo, hi].
void check_range(double v, const char* what, double lo, double hi = INFINITY) {
  EMBER_CHECK_VALUE(lo <= v && v <= hi, "Invalid ", what, " value: ", py_float(v));
}

// state["step"] as torch 1.13 keeps it for RMSprop / Adadelta: a Python int.
int64_t bump_int_step(ValueDict& st) {
  const int64_t step = st.at("step").to_int() + 1;
  st.set("step", step);
  return step;
}

// state["step"] as a 0-d float32 tensor (Adagrad, Adamax, NAdam, RAdam): step_t += 1; .item().
double bump_tensor_step(ValueDict& st) {
  Tensor t = st.at("step").to_tensor();
  t.add_(1);
  return t.item<double>();
}

// g = maximize ? -grad : grad; g = g + weight_decay * p (out of place, as torch).
Tensor effective_grad(const Tensor& p, bool maximize, double weight_decay) {
  Tensor g = maximize ? p.grad().neg() : p.grad();
  if (weight_decay != 0) g = g.add(p, detail::alpha_for(p, weight_decay));
  return g;
}

// The loop the Adam-family updates share (Adamax, NAdam, RAdam): every parameter with a
// gradient, its state made on first use as torch's (a float32 0-d "step", NAdam's
// "mu_product", the zeroed moments), the step bumped; `fn(p, state, step)` is the optimizer's
// own arithmetic.
template <class Fn>
void for_each_adam_param(Optimizer& opt, ParamGroup& group,
                         std::initializer_list<const char*> moments, bool with_mu_product,
                         Fn&& fn) {
  for (Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    ValueDict& st = opt.state(p);
    if (st.empty()) {
      st.set("step", cpu_scalar(0.0));
      if (with_mu_product) st.set("mu_product", cpu_scalar(1.0));
      for (const char* m : moments) st.set(m, zeros_like(p));
    }
    fn(p, st, bump_tensor_step(st));
  }
}

}  // namespace

// ---- options as torch's group dicts ----

ValueDict RMSpropOptions::to_dict() const {
  return {{"lr", lr},
          {"momentum", number(momentum)},
          {"alpha", alpha},
          {"eps", eps},
          {"centered", centered},
          {"weight_decay", number(weight_decay)},
          {"foreach", optional_bool(foreach)},
          {"maximize", maximize},
          {"differentiable", false}};
}

ValueDict AdagradOptions::to_dict() const {
  return {{"lr", lr},
          {"lr_decay", number(lr_decay)},
          {"eps", eps},
          {"weight_decay", number(weight_decay)},
          {"initial_accumulator_value", number(initial_accumulator_value)},
          {"foreach", optional_bool(foreach)},
          {"maximize", maximize}};
}

ValueDict AdadeltaOptions::to_dict() const {
  return {{"lr", lr},
          {"rho", rho},
          {"eps", eps},
          {"weight_decay", number(weight_decay)},
          {"maximize", maximize},
          {"foreach", optional_bool(foreach)}};
}

ValueDict AdamaxOptions::to_dict() const {
  return {{"lr", lr},
          {"betas", pair_value(betas)},
          {"eps", eps},
          {"weight_decay", number(weight_decay)},
          {"foreach", optional_bool(foreach)},
          {"maximize", maximize}};
}

ValueDict NAdamOptions::to_dict() const {
  return {{"lr", lr},
          {"betas", pair_value(betas)},
          {"eps", eps},
          {"weight_decay", number(weight_decay)},
          {"momentum_decay", momentum_decay},
          {"foreach", optional_bool(foreach)}};
}

ValueDict RAdamOptions::to_dict() const {
  return {{"lr", lr},
          {"betas", pair_value(betas)},
          {"eps", eps},
          {"weight_decay", number(weight_decay)},
          {"foreach", optional_bool(foreach)}};
}

// ---- shared ----

AdaptiveOptimizer::AdaptiveOptimizer(ValueDict defaults, std::vector<std::string> tensor_keys,
                                     std::vector<std::string> tensor_scalars)
    : Optimizer(std::move(defaults)),
      tensor_keys_(std::move(tensor_keys)),
      tensor_scalars_(std::move(tensor_scalars)) {}

void AdaptiveOptimizer::check_common(const ValueDict& o) const {
  for (const auto& [key, value] : o) {
    if (key == "betas") {
      detail::option_pair(o, "betas");
    } else if (key == "centered" || key == "maximize") {
      detail::option_bool(o, key.c_str());
    } else if (key == "foreach") {
      EMBER_CHECK_TYPE(value.is_none() || value.is_bool(),
                       "param group option 'foreach' must be a bool or None, but got ",
                       value.type_name());
    } else if (key == "differentiable") {
      detail::check_single_tensor_flag(o, "differentiable", name());
    } else if (key != "initial_lr" && (value.is_double() || value.is_int() || value.is_bool())) {
      detail::option_double(o, key.c_str());  // refuses bools
    }
  }
}

void AdaptiveOptimizer::check_state(const ParamGroup&, const Tensor& param,
                                    const ValueDict& st) const {
  check_param_state(param, st);
}

void AdaptiveOptimizer::check_param_state(const Tensor& param, const ValueDict& st) const {
  if (st.empty()) return;
  for (const std::string& key : tensor_scalars_) {
    const Value* v = st.find(key);
    EMBER_CHECK(v && v->is_tensor() && v->to_tensor().defined() && v->to_tensor().numel() == 1,
                name(), ": a parameter's '", key, "' must be a one-element tensor");
  }
  if (const Value* step = st.find("step"); step && tensor_scalars_.empty()) {
    EMBER_CHECK_TYPE(step->is_int(), name(), ": a parameter's 'step' must be an int, but got ",
                     step->type_name());
  }
  for (const std::string& key : tensor_keys_) {
    const Value* v = st.find(key);
    if (v == nullptr) continue;  // optional buffers (momentum_buffer, grad_avg) made on demand
    EMBER_CHECK_TYPE(v->is_tensor() && v->to_tensor().defined(), name(), ": a parameter's '", key,
                     "' must be a Tensor, but got ", v->type_name());
    const Tensor& t = v->to_tensor();
    EMBER_CHECK(t.sizes() == param.sizes(), name(), ": a parameter's ", key, " has shape ",
                size_str(t.sizes()), " but the parameter has shape ", size_str(param.sizes()));
    EMBER_CHECK(t.device() == param.device(), name(), ": a parameter's ", key, " is on ",
                t.device(), " but the parameter is on ", param.device());
  }
}

ValueDict AdaptiveOptimizer::load_param_state(const Tensor& param, const ValueDict& saved) const {
  ValueDict st = Optimizer::load_param_state(param, saved);
  // Older checkpoints keep these as numbers; torch's __setstate__ makes them tensors.
  for (const std::string& key : tensor_scalars_) {
    if (Value* v = st.find(key); v && (v->is_int() || v->is_double()))
      *v = cpu_scalar(v->to_double());
  }
  check_param_state(param, st);
  return st;
}

// ---- RMSprop ----

RMSprop::RMSprop(std::vector<Tensor> params, const RMSpropOptions& d)
    : RMSprop(single_group(std::move(params)), d) {}

RMSprop::RMSprop(std::vector<ParamGroup> groups, const RMSpropOptions& d)
    : AdaptiveOptimizer(
          (check_lr_eps(d.lr, d.eps), check_range(d.momentum, "momentum", 0.0),
           check_weight_decay(d.weight_decay), check_range(d.alpha, "alpha", 0.0), d.to_dict()),
          {"square_avg", "momentum_buffer", "grad_avg"}, {}) {
  init_param_groups(std::move(groups));
}

void RMSprop::check_options(const ValueDict& o) const { check_common(o); }

void RMSprop::update(ParamGroup& group) {
  const ValueDict& o = group.options();
  const double lr = detail::option_double(o, "lr"), alpha = detail::option_double(o, "alpha");
  const double eps = detail::option_double(o, "eps"), wd = detail::option_double(o, "weight_decay");
  const double momentum = detail::option_double(o, "momentum");
  const bool centered = detail::option_bool(o, "centered");
  const bool maximize = detail::option_bool(o, "maximize");
  for (Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    ValueDict& st = state(p);
    if (st.empty()) {
      st.set("step", int64_t{0});
      st.set("square_avg", zeros_like(p));
      if (momentum > 0) st.set("momentum_buffer", zeros_like(p));
      if (centered) st.set("grad_avg", zeros_like(p));
    }
    bump_int_step(st);
    const Tensor grad = effective_grad(p, maximize, wd);
    Tensor square_avg = st.at("square_avg").to_tensor();
    square_avg.mul_(alpha).addcmul_(grad, grad, 1 - alpha);
    Tensor avg;
    if (centered) {
      Tensor grad_avg = st.setdefault("grad_avg", zeros_like(p)).to_tensor();
      grad_avg.mul_(alpha).add_(grad, detail::alpha_for(p, 1 - alpha));
      avg = square_avg.addcmul(grad_avg, grad_avg, -1).sqrt_();
    } else {
      avg = square_avg.sqrt();
    }
    avg.add_(eps);
    if (momentum > 0) {
      Tensor buf = st.setdefault("momentum_buffer", zeros_like(p)).to_tensor();
      buf.mul_(momentum).addcdiv_(grad, avg);
      p.add_(buf, detail::alpha_for(p, -lr));
    } else {
      p.addcdiv_(grad, avg, -lr);
    }
  }
}

// ---- Adagrad ----

Adagrad::Adagrad(std::vector<Tensor> params, const AdagradOptions& d)
    : Adagrad(single_group(std::move(params)), d) {}

Adagrad::Adagrad(std::vector<ParamGroup> groups, const AdagradOptions& d)
    : AdaptiveOptimizer((check_lr_eps(d.lr, 0.0), check_range(d.lr_decay, "lr_decay", 0.0),
                         check_weight_decay(d.weight_decay),
                         check_range(d.initial_accumulator_value, "initial_accumulator_value", 0.0),
                         check_lr_eps(0.0, d.eps), d.to_dict()),
                        {"sum"}, {"step"}) {
  init_param_groups(std::move(groups));
  // torch makes every parameter's state at construction.
  for (const ParamGroup& g : param_groups())
    for (const Tensor& p : g.params()) init_state(g, p);
}

void Adagrad::init_state(const ParamGroup& group, const Tensor& p) {
  ValueDict& st = state(p);
  if (!st.empty()) return;
  st.set("step", cpu_scalar(0.0));
  // torch fills every sum with the constructor's initial_accumulator_value, not the group's.
  (void)group;
  st.set("sum", full_like(p, detail::option_double(defaults(), "initial_accumulator_value")));
}

void Adagrad::check_options(const ValueDict& o) const { check_common(o); }

void Adagrad::update(ParamGroup& group) {
  const ValueDict& o = group.options();
  const double lr = detail::option_double(o, "lr"), lr_decay = detail::option_double(o, "lr_decay");
  const double eps = detail::option_double(o, "eps"), wd = detail::option_double(o, "weight_decay");
  const bool maximize = detail::option_bool(o, "maximize");
  for (Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    init_state(group, p);  // a group added after construction
    ValueDict& st = state(p);
    const double step = bump_tensor_step(st);
    const Tensor grad = effective_grad(p, maximize, wd);
    const double clr = lr / (1 + (step - 1) * lr_decay);
    Tensor sum = st.at("sum").to_tensor();
    sum.addcmul_(grad, grad, 1);
    Tensor std = sum.sqrt().add_(eps);
    p.addcdiv_(grad, std, -clr);
  }
}

// ---- Adadelta ----

Adadelta::Adadelta(std::vector<Tensor> params, const AdadeltaOptions& d)
    : Adadelta(single_group(std::move(params)), d) {}

Adadelta::Adadelta(std::vector<ParamGroup> groups, const AdadeltaOptions& d)
    : AdaptiveOptimizer((check_lr_eps(d.lr, 0.0), check_range(d.rho, "rho", 0.0, 1.0),
                         check_lr_eps(0.0, d.eps), check_weight_decay(d.weight_decay), d.to_dict()),
                        {"square_avg", "acc_delta"}, {}) {
  init_param_groups(std::move(groups));
}

void Adadelta::check_options(const ValueDict& o) const { check_common(o); }

void Adadelta::update(ParamGroup& group) {
  const ValueDict& o = group.options();
  const double lr = detail::option_double(o, "lr"), rho = detail::option_double(o, "rho");
  const double eps = detail::option_double(o, "eps"), wd = detail::option_double(o, "weight_decay");
  const bool maximize = detail::option_bool(o, "maximize");
  for (Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    ValueDict& st = state(p);
    if (st.empty()) {
      st.set("step", int64_t{0});
      st.set("square_avg", zeros_like(p));
      st.set("acc_delta", zeros_like(p));
    }
    bump_int_step(st);
    const Tensor grad = effective_grad(p, maximize, wd);
    Tensor square_avg = st.at("square_avg").to_tensor();
    Tensor acc_delta = st.at("acc_delta").to_tensor();
    square_avg.mul_(rho).addcmul_(grad, grad, 1 - rho);
    Tensor std = square_avg.add(eps).sqrt_();
    Tensor delta = acc_delta.add(eps).sqrt_();
    delta.div_(std).mul_(grad);
    acc_delta.mul_(rho).addcmul_(delta, delta, 1 - rho);
    p.add_(delta, detail::alpha_for(p, -lr));
  }
}

// ---- Adamax ----

Adamax::Adamax(std::vector<Tensor> params, const AdamaxOptions& d)
    : Adamax(single_group(std::move(params)), d) {}

Adamax::Adamax(std::vector<ParamGroup> groups, const AdamaxOptions& d)
    : AdaptiveOptimizer((check_lr_eps(d.lr, d.eps), check_betas(d.betas),
                         check_weight_decay(d.weight_decay), d.to_dict()),
                        {"exp_avg", "exp_inf"}, {"step"}) {
  init_param_groups(std::move(groups));
}

void Adamax::check_options(const ValueDict& o) const { check_common(o); }

void Adamax::update(ParamGroup& group) {
  const ValueDict& o = group.options();
  const double lr = detail::option_double(o, "lr"), eps = detail::option_double(o, "eps");
  const double wd = detail::option_double(o, "weight_decay");
  const auto betas = detail::option_pair(o, "betas");
  const bool maximize = detail::option_bool(o, "maximize");
  for_each_adam_param(*this, group, {"exp_avg", "exp_inf"}, false,
                      [&](Tensor& p, ValueDict& st, double step) {
    const Tensor grad = effective_grad(p, maximize, wd);
    Tensor exp_avg = st.at("exp_avg").to_tensor();
    Tensor exp_inf = st.at("exp_inf").to_tensor();
    exp_avg.mul_(betas[0]).add_(grad, detail::alpha_for(p, 1 - betas[0]));
    // torch: amax(cat([exp_inf * beta2, |grad| + eps]), 0): the elementwise maximum (NaN wins).
    exp_inf.mul_(betas[1]);
    exp_inf.copy_(maximum(exp_inf, grad.abs().add_(eps)));
    const double clr = lr / (1 - std::pow(betas[0], step));
    p.addcdiv_(exp_avg, exp_inf, -clr);
  });
}

// ---- NAdam ----

NAdam::NAdam(std::vector<Tensor> params, const NAdamOptions& d)
    : NAdam(single_group(std::move(params)), d) {}

NAdam::NAdam(std::vector<ParamGroup> groups, const NAdamOptions& d)
    : AdaptiveOptimizer(
          (check_lr_eps(d.lr, d.eps), check_betas(d.betas), check_weight_decay(d.weight_decay),
           check_range(d.momentum_decay, "momentum_decay", 0.0), d.to_dict()),
          {"exp_avg", "exp_avg_sq"}, {"step", "mu_product"}) {
  init_param_groups(std::move(groups));
}

void NAdam::check_options(const ValueDict& o) const { check_common(o); }

void NAdam::update(ParamGroup& group) {
  const ValueDict& o = group.options();
  const double lr = detail::option_double(o, "lr"), eps = detail::option_double(o, "eps");
  const double wd = detail::option_double(o, "weight_decay");
  const double momentum_decay = detail::option_double(o, "momentum_decay");
  const auto betas = detail::option_pair(o, "betas");
  const double beta1 = betas[0], beta2 = betas[1];
  for_each_adam_param(*this, group, {"exp_avg", "exp_avg_sq"}, true,
                      [&](Tensor& p, ValueDict& st, double step) {
    const double bias_correction2 = 1 - std::pow(beta2, step);
    const Tensor grad = effective_grad(p, false, wd);
    const double mu = beta1 * (1. - 0.5 * std::pow(0.96, step * momentum_decay));
    const double mu_next = beta1 * (1. - 0.5 * std::pow(0.96, (step + 1) * momentum_decay));
    // mu_product is a float32 tensor: its products round to float, as torch's.
    Tensor mu_product = st.at("mu_product").to_tensor();
    mu_product.mul_(mu);
    const double mu_product_next = mu_product.mul(mu).mul_(mu_next).item<double>();
    Tensor exp_avg = st.at("exp_avg").to_tensor();
    Tensor exp_avg_sq = st.at("exp_avg_sq").to_tensor();
    exp_avg.mul_(beta1).add_(grad, detail::alpha_for(p, 1 - beta1));
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
    Tensor denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps);
    p.addcdiv_(grad, denom, -lr * (1. - mu) / (1. - mu_product.item<double>()));
    p.addcdiv_(exp_avg, denom, -lr * mu_next / (1. - mu_product_next));
  });
}

// ---- RAdam ----

RAdam::RAdam(std::vector<Tensor> params, const RAdamOptions& d)
    : RAdam(single_group(std::move(params)), d) {}

RAdam::RAdam(std::vector<ParamGroup> groups, const RAdamOptions& d)
    : AdaptiveOptimizer((check_lr_eps(d.lr, d.eps), check_betas(d.betas),
                         check_weight_decay(d.weight_decay), d.to_dict()),
                        {"exp_avg", "exp_avg_sq"}, {"step"}) {
  init_param_groups(std::move(groups));
}

void RAdam::check_options(const ValueDict& o) const { check_common(o); }

void RAdam::update(ParamGroup& group) {
  const ValueDict& o = group.options();
  const double lr = detail::option_double(o, "lr"), eps = detail::option_double(o, "eps");
  const double wd = detail::option_double(o, "weight_decay");
  const auto betas = detail::option_pair(o, "betas");
  const double beta1 = betas[0], beta2 = betas[1];
  for_each_adam_param(*this, group, {"exp_avg", "exp_avg_sq"}, false,
                      [&](Tensor& p, ValueDict& st, double step) {
    const double bias_correction1 = 1 - std::pow(beta1, step);
    const double bias_correction2 = 1 - std::pow(beta2, step);
    const Tensor grad = effective_grad(p, false, wd);
    Tensor exp_avg = st.at("exp_avg").to_tensor();
    Tensor exp_avg_sq = st.at("exp_avg_sq").to_tensor();
    exp_avg.mul_(beta1).add_(grad, detail::alpha_for(p, 1 - beta1));
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
    Tensor bias_corrected_exp_avg = exp_avg.div(bias_correction1);
    const double rho_inf = 2 / (1 - beta2) - 1;
    const double rho_t = rho_inf - 2 * step * std::pow(beta2, step) / bias_correction2;
    if (rho_t > 5.) {
      const double rect =
          std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
      // torch: math.sqrt(bc2) / tensor is tensor.reciprocal() * math.sqrt(bc2).
      Tensor denom = exp_avg_sq.sqrt().add_(eps);
      Tensor adaptive_lr = full_like(denom, 1).div_(denom).mul_(std::sqrt(bias_correction2));
      p.add_(bias_corrected_exp_avg.mul(lr).mul_(adaptive_lr).mul_(rect), -1.0);
    } else {
      p.add_(bias_corrected_exp_avg.mul(lr), -1.0);
    }
  });
}

}  // namespace ember::optim
