// torch.optim.lr_scheduler.CyclicLR (torch 1.13's formulas, evaluated in Python's order).
#include <cmath>

#include "ember/optim/schedulers.h"
#include "optim_util.h"

// Python's float arithmetic: Note [Python's float arithmetic] in lr_scheduler.cpp.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace ember::optim {

namespace {

std::vector<double> per_group_values(const char* name, const Optimizer& opt, const PerGroup& v) {
  const size_t n = opt.param_groups().size();
  if (const auto* list = std::get_if<std::vector<double>>(&v)) {
    EMBER_CHECK_VALUE(list->size() == n, "expected ", n, " values for ", name, ", got ",
                      list->size());
    return *list;
  }
  return std::vector<double>(n, std::get<double>(v));
}

// torch sets group["lr"] = base_lr (and momentum) before its base __init__ when starting fresh.
Optimizer& prepared(Optimizer& opt, const CyclicLROptions& o) {
  const std::vector<double> base_lrs = per_group_values("base_lr", opt, o.base_lr);
  if (o.last_epoch == -1)
    for (size_t i = 0; i < base_lrs.size(); ++i) opt.param_groups()[i].set_lr(base_lrs[i]);
  return opt;
}

}  // namespace

CyclicLR::CyclicLR(Optimizer& optimizer, const CyclicLROptions& o)
    : LRScheduler(prepared(optimizer, o), o.last_epoch, o.verbose),
      max_lrs_(per_group_values("max_lr", optimizer, o.max_lr)),
      mode_(o.mode),
      gamma_(o.gamma),
      scale_fn_(o.scale_fn),
      cycle_momentum_(o.cycle_momentum) {
  const double up = o.step_size_up;
  const double down = o.step_size_down ? *o.step_size_down : up;
  total_size_ = up + down;
  step_ratio_ = up / total_size_;
  EMBER_CHECK_VALUE(
      scale_fn_ || mode_ == "triangular" || mode_ == "triangular2" || mode_ == "exp_range",
      "mode is invalid and scale_fn is None");
  scale_mode_ = scale_fn_ ? o.scale_mode : (mode_ == "exp_range" ? "iterations" : "cycle");
  const std::vector<double> base_lrs = per_group_values("base_lr", optimizer, o.base_lr);
  if (cycle_momentum_) {
    EMBER_CHECK_VALUE(optimizer.defaults().contains("momentum"),
                      "optimizer must support momentum with `cycle_momentum` option enabled");
    const std::vector<double> base_m =
        per_group_values("base_momentum", optimizer, o.base_momentum);
    if (o.last_epoch == -1)
      for (size_t i = 0; i < base_m.size(); ++i)
        optimizer.param_groups()[i].options().set("momentum", base_m[i]);
    for (const ParamGroup& g : optimizer.param_groups())
      base_momentums_.push_back(detail::option_double(g.options(), "momentum"));
    max_momentums_ = per_group_values("max_momentum", optimizer, o.max_momentum);
  }
  initialize();
  base_lrs_ = base_lrs;
}

double CyclicLR::scale(double x) const {
  if (scale_fn_) return scale_fn_(x);
  if (mode_ == "triangular") return 1.;
  if (mode_ == "triangular2") return 1 / std::pow(2., x - 1);
  return std::pow(gamma_, x);  // exp_range
}

std::vector<double> CyclicLR::compute_lr() {
  const double e = static_cast<double>(last_epoch_);
  const double cycle = std::floor(1 + e / total_size_);
  const double x = 1. + e / total_size_ - cycle;
  const double scale_factor = x <= step_ratio_ ? x / step_ratio_ : (x - 1) / (step_ratio_ - 1);
  const double s = scale(scale_mode_ == "cycle" ? cycle : e);
  std::vector<double> lrs;
  for (size_t i = 0; i < base_lrs_.size() && i < max_lrs_.size(); ++i) {
    const double base_height = (max_lrs_[i] - base_lrs_[i]) * scale_factor;
    lrs.push_back(base_lrs_[i] + base_height * s);
  }
  if (cycle_momentum_) {
    std::vector<ParamGroup>& groups = optimizer_.param_groups();
    for (size_t i = 0; i < base_momentums_.size() && i < max_momentums_.size() && i < groups.size();
         ++i) {
      const double base_height = (max_momentums_[i] - base_momentums_[i]) * scale_factor;
      groups[i].options().set("momentum", max_momentums_[i] - base_height * s);
    }
  }
  return lrs;
}

ValueDict CyclicLR::state_dict() const {
  ValueDict d{{"max_lrs", max_lrs_},
              {"total_size", total_size_},
              {"step_ratio", step_ratio_},
              {"mode", mode_},
              {"gamma", gamma_},
              {"_scale_fn_custom", Value()},
              {"_scale_fn_ref", Value()},
              {"scale_mode", scale_mode_},
              {"cycle_momentum", cycle_momentum_}};
  if (cycle_momentum_) {
    d.set("base_momentums", base_momentums_);
    d.set("max_momentums", max_momentums_);
  }
  for (const auto& [k, v] : LRScheduler::state_dict()) d.set(k, v);
  return d;
}

bool CyclicLR::check_own_key(const std::string& key, const Value& value) const {
  if (key == "max_lrs" || key == "base_momentums" || key == "max_momentums") {
    detail::to_double_list(value, ("state_dict['" + key + "']").c_str());
  } else if (key == "total_size" || key == "step_ratio" || key == "gamma") {
    detail::double_value(value, key.c_str());
  } else if (key == "mode" || key == "scale_mode") {
    EMBER_CHECK_TYPE(value.is_string(), "state_dict['", key, "'] must be a str, but got ",
                     value.type_name());
  } else if (key == "cycle_momentum") {
    detail::bool_value(value, "cycle_momentum");
  } else if (key != "_scale_fn_custom" && key != "_scale_fn_ref") {
    return false;  // functions in torch: not restored (the scheduler keeps its own)
  }
  return true;
}

void CyclicLR::load_own_state(const ValueDict& sd) {
  if (const Value* v = sd.find("max_lrs")) max_lrs_ = detail::to_double_list(*v, "max_lrs");
  if (const Value* v = sd.find("base_momentums"))
    base_momentums_ = detail::to_double_list(*v, "base_momentums");
  if (const Value* v = sd.find("max_momentums"))
    max_momentums_ = detail::to_double_list(*v, "max_momentums");
  if (const Value* v = sd.find("total_size")) total_size_ = v->to_double();
  if (const Value* v = sd.find("step_ratio")) step_ratio_ = v->to_double();
  if (const Value* v = sd.find("gamma")) gamma_ = v->to_double();
  if (const Value* v = sd.find("mode")) mode_ = v->to_string_value();
  if (const Value* v = sd.find("scale_mode")) scale_mode_ = v->to_string_value();
  if (const Value* v = sd.find("cycle_momentum")) cycle_momentum_ = v->to_bool();
}

}  // namespace ember::optim
