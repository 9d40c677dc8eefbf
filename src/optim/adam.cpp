#include "ember/optim/adam.h"

#include <cmath>

#include "ember/ops/factory.h"
#include "ember/ops/pointwise.h"
#include "optim_util.h"

// No fused multiply-adds in this file: see Note [Python's float arithmetic] in lr_scheduler.cpp.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace ember::optim {

namespace {

// PyTorch's weight_decay default is the int 0 for Adam: kept an int when zero (see sgd.cpp).
Value number(double v) {
  if (v == 0 && !std::signbit(v)) return Value(int64_t{0});
  return Value(v);
}

void check_defaults(double lr, const std::array<double, 2>& betas, double eps,
                    double weight_decay) {
  using detail::py_float;
  EMBER_CHECK_VALUE(0.0 <= lr, "Invalid learning rate: ", py_float(lr));
  EMBER_CHECK_VALUE(0.0 <= eps, "Invalid epsilon value: ", py_float(eps));
  EMBER_CHECK_VALUE(0.0 <= betas[0] && betas[0] < 1.0,
                    "Invalid beta parameter at index 0: ", py_float(betas[0]));
  EMBER_CHECK_VALUE(0.0 <= betas[1] && betas[1] < 1.0,
                    "Invalid beta parameter at index 1: ", py_float(betas[1]));
  EMBER_CHECK_VALUE(0.0 <= weight_decay, "Invalid weight_decay value: ", py_float(weight_decay));
}

std::vector<double> pair_value(const std::array<double, 2>& p) { return {p[0], p[1]}; }

// A moment buffer must be a tensor of its parameter's shape on its device.
void check_moment(const char* opt, const Tensor& param, const ValueDict& st, const char* key) {
  const Value& v = st.at(key);
  EMBER_CHECK_TYPE(v.is_tensor() && v.to_tensor().defined(), opt, ": a parameter's '", key,
                   "' must be a Tensor, but got ", v.type_name());
  const Tensor& t = v.to_tensor();
  EMBER_CHECK(t.sizes() == param.sizes(), opt, ": a parameter's ", key, " has shape ",
              size_str(t.sizes()), " but the parameter has shape ", size_str(param.sizes()));
  EMBER_CHECK(t.device() == param.device(), opt, ": a parameter's ", key, " is on ", t.device(),
              " but the parameter is on ", param.device());
}

}  // namespace

// ---- options ----

ValueDict AdamOptions::to_dict() const {
  return {{"lr", lr},
          {"betas", pair_value(betas)},
          {"eps", eps},
          {"weight_decay", number(weight_decay)},
          {"amsgrad", amsgrad},
          {"maximize", maximize},
          {"foreach", Value()},
          {"capturable", false},
          {"differentiable", false},
          {"fused", false}};
}

AdamOptions AdamOptions::from_dict(const ValueDict& d) {
  AdamOptions o;
  o.lr = detail::option_double(d, "lr");
  o.betas = detail::option_pair(d, "betas");
  o.eps = detail::option_double(d, "eps");
  o.weight_decay = detail::option_double(d, "weight_decay");
  o.amsgrad = detail::option_bool(d, "amsgrad");
  o.maximize = detail::option_bool(d, "maximize");
  for (const char* flag : {"foreach", "capturable", "differentiable", "fused"})
    detail::check_single_tensor_flag(d, flag, "Adam");
  return o;
}

ValueDict AdamWOptions::to_dict() const {
  return {{"lr", lr},
          {"betas", pair_value(betas)},
          {"eps", eps},
          {"weight_decay", weight_decay},
          {"amsgrad", amsgrad},
          {"foreach", Value()},
          {"maximize", maximize},
          {"capturable", false}};
}

AdamWOptions AdamWOptions::from_dict(const ValueDict& d) {
  AdamWOptions o;
  o.lr = detail::option_double(d, "lr");
  o.betas = detail::option_pair(d, "betas");
  o.eps = detail::option_double(d, "eps");
  o.weight_decay = detail::option_double(d, "weight_decay");
  o.amsgrad = detail::option_bool(d, "amsgrad");
  o.maximize = detail::option_bool(d, "maximize");
  for (const char* flag : {"foreach", "capturable"})
    detail::check_single_tensor_flag(d, flag, "AdamW");
  return o;
}

// ---- shared state handling ----

void AdamBase::check_state(const ParamGroup& group, const Tensor& param,
                           const ValueDict& st) const {
  if (st.empty()) return;  // created on this step
  const Value& step = st.at("step");
  EMBER_CHECK(step.is_tensor() && step.to_tensor().defined() && step.to_tensor().numel() == 1,
              "API has changed, `state_steps` argument must contain a list of singleton tensors");
  check_moment(name(), param, st, "exp_avg");
  check_moment(name(), param, st, "exp_avg_sq");
  if (detail::option_bool(group.options(), "amsgrad"))
    check_moment(name(), param, st, "max_exp_avg_sq");
}

ValueDict AdamBase::load_param_state(const Tensor& param, const ValueDict& saved) const {
  ValueDict st = Optimizer::load_param_state(param, saved);
  // Checkpoints from before torch 1.12 keep "step" as a number; PyTorch's __setstate__ turns it
  // into a float32 tensor.
  if (Value* step = st.find("step"); step && (step->is_int() || step->is_double())) {
    *step = scalar_tensor(step->to_double(), TensorOptions(kFloat32).device(kCPU));
  }
  if (!st.empty()) {
    const Value* step = st.find("step");
    EMBER_CHECK(step && step->is_tensor() && step->to_tensor().numel() == 1, name(),
                ": a loaded parameter state has no one-element 'step' tensor");
    check_moment(name(), param, st, "exp_avg");
    check_moment(name(), param, st, "exp_avg_sq");
    if (st.contains("max_exp_avg_sq")) check_moment(name(), param, st, "max_exp_avg_sq");
  }
  return st;
}

ValueDict& AdamBase::init_state(const Tensor& param, bool amsgrad) {
  ValueDict& st = state(param);
  if (st.empty()) {
    // The step counter is a CPU float32 scalar whatever the parameter's device (as torch's
    // non-capturable Adam), so that meta parameters step too.
    st.set("step", scalar_tensor(0.0, TensorOptions(kFloat32).device(kCPU)));
    st.set("exp_avg", zeros_like(param));
    st.set("exp_avg_sq", zeros_like(param));
    if (amsgrad) st.set("max_exp_avg_sq", zeros_like(param));
  }
  return st;
}

void AdamBase::adam_update(Tensor param, const Tensor& grad, ValueDict& st, double lr, double beta1,
                           double beta2, double eps, bool amsgrad) {
  Tensor exp_avg = st.at("exp_avg").to_tensor();
  Tensor exp_avg_sq = st.at("exp_avg_sq").to_tensor();
  // torch: exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1);
  //        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2), where addcmul computes
  //        self + (value * t1) * t2 — the same order here, in float for 16-bit parameters
  //        (Note [16-bit parameters] in optim_util.h).
  const ScalarType opmath = detail::opmath_dtype(param.dtype());
  exp_avg.mul_(beta1).add_(grad, detail::alpha_for(param, 1 - beta1));
  const bool fused = opmath == param.dtype();  // float32 / float64: torch's in-place ops as they are
  if (fused) {
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, 1 - beta2);
  } else {
    exp_avg_sq.mul_(beta2).add_(grad.to(opmath).mul(1 - beta2).mul_(grad));
  }

  const double step = st.at("step").to_tensor().item<double>();
  const double bias_correction1 = 1 - std::pow(beta1, step);
  const double bias_correction2 = 1 - std::pow(beta2, step);
  const double step_size = lr / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);

  Tensor denom;
  if (amsgrad) {
    Tensor max_sq = st.at("max_exp_avg_sq").to_tensor();
    max_sq.copy_(maximum(max_sq, exp_avg_sq));
    denom = max_sq.sqrt();
  } else {
    denom = exp_avg_sq.sqrt();
  }
  denom.div_(bias_correction2_sqrt).add_(eps);
  // torch: param.addcdiv_(exp_avg, denom, value=-step_size) = param + (value * exp_avg) / denom.
  if (fused) {
    param.addcdiv_(exp_avg, denom, -step_size);
  } else {
    param.add_(exp_avg.to(opmath).mul(-step_size).div_(denom));
  }
}

// ---- Adam ----

Adam::Adam(std::vector<Tensor> params, const AdamOptions& defaults)
    : Adam(single_group(std::move(params)), defaults) {}

Adam::Adam(std::vector<ParamGroup> groups, const AdamOptions& d)
    : AdamBase((check_defaults(d.lr, d.betas, d.eps, d.weight_decay), d.to_dict())) {
  init_param_groups(std::move(groups));
}

void Adam::check_options(const ValueDict& options) const { AdamOptions::from_dict(options); }

void Adam::update(ParamGroup& group) {
  const AdamOptions o = AdamOptions::from_dict(group.options());
  for (Tensor& p : group.params()) {
    const Tensor grad = p.grad();
    if (!grad.defined()) continue;
    ValueDict& st = init_state(p, o.amsgrad);
    Tensor g = o.maximize ? grad.neg() : grad;
    st.at("step").to_tensor().add_(1);
    if (o.weight_decay != 0) g = g.add(p, detail::alpha_for(p, o.weight_decay));
    adam_update(p, g, st, o.lr, o.betas[0], o.betas[1], o.eps, o.amsgrad);
  }
}

// ---- AdamW ----

AdamW::AdamW(std::vector<Tensor> params, const AdamWOptions& defaults)
    : AdamW(single_group(std::move(params)), defaults) {}

AdamW::AdamW(std::vector<ParamGroup> groups, const AdamWOptions& d)
    : AdamBase((check_defaults(d.lr, d.betas, d.eps, d.weight_decay), d.to_dict())) {
  init_param_groups(std::move(groups));
}

void AdamW::check_options(const ValueDict& options) const { AdamWOptions::from_dict(options); }

void AdamW::update(ParamGroup& group) {
  const AdamWOptions o = AdamWOptions::from_dict(group.options());
  for (Tensor& p : group.params()) {
    const Tensor grad = p.grad();
    if (!grad.defined()) continue;
    ValueDict& st = init_state(p, o.amsgrad);
    Tensor g = o.maximize ? grad.neg() : grad;
    st.at("step").to_tensor().add_(1);
    p.mul_(1 - o.lr * o.weight_decay);  // decoupled weight decay
    adam_update(p, g, st, o.lr, o.betas[0], o.betas[1], o.eps, o.amsgrad);
  }
}

}  // namespace ember::optim
