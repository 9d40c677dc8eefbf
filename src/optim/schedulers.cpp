#include "ember/optim/schedulers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

#include "ember/warning.h"
#include "optim_util.h"

// Python's float arithmetic, one rounding per operation: Note [Python's float arithmetic] in
// lr_scheduler.cpp.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace ember::optim {

using detail::bool_value;
using detail::double_value;
using detail::group_lrs;
using detail::int_value;

namespace {

// torch's int defaults (eta_min=0, min_lr=0) stay ints when zero.
Value number(double v) {
  if (v == 0 && !std::signbit(v)) return Value(int64_t{0});
  return Value(v);
}

// Own keys first (torch's __dict__ order: the subclass sets them before the base's), then base.
ValueDict with_base(ValueDict own, const ValueDict& base) {
  for (const auto& [k, v] : base) own.set(k, v);
  return own;
}

void check_factor(double f, const char* which) {
  EMBER_CHECK_VALUE(0 <= f && f <= 1.0, which,
                    " multiplicative factor expected to be between 0 and 1.");
}

}  // namespace

// ---- ExponentialLR ----

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer, last_epoch, verbose), gamma_(gamma) {
  initialize();
}

std::vector<double> ExponentialLR::compute_lr() {
  std::vector<double> lrs = group_lrs(optimizer_);
  if (last_epoch_ == 0) return lrs;
  for (double& lr : lrs) lr = lr * gamma_;
  return lrs;
}

std::optional<std::vector<double>> ExponentialLR::closed_form_lr() const {
  std::vector<double> lrs;
  for (double base : base_lrs_)
    lrs.push_back(base * std::pow(gamma_, static_cast<double>(last_epoch_)));
  return lrs;
}

ValueDict ExponentialLR::state_dict() const {
  return with_base({{"gamma", gamma_}}, LRScheduler::state_dict());
}

bool ExponentialLR::check_own_key(const std::string& key, const Value& value) const {
  if (key != "gamma") return false;
  double_value(value, "gamma");
  return true;
}

void ExponentialLR::load_own_state(const ValueDict& sd) {
  if (const Value* v = sd.find("gamma")) gamma_ = v->to_double();
}

// ---- ConstantLR ----

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters, int64_t last_epoch,
                       bool verbose)
    : LRScheduler(optimizer, last_epoch, verbose), factor_(factor), total_iters_(total_iters) {
  check_factor(factor, "Constant");
  initialize();
}

std::vector<double> ConstantLR::compute_lr() {
  std::vector<double> lrs = group_lrs(optimizer_);
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr = lr * factor_;
  } else if (last_epoch_ == total_iters_) {
    for (double& lr : lrs) lr = lr * (1.0 / factor_);
  }
  return lrs;
}

std::optional<std::vector<double>> ConstantLR::closed_form_lr() const {
  std::vector<double> lrs;
  const double tail = last_epoch_ >= total_iters_ ? 1 - factor_ : 0.0;  // True * x, False * x
  for (double base : base_lrs_) lrs.push_back(base * (factor_ + tail));
  return lrs;
}

ValueDict ConstantLR::state_dict() const {
  return with_base({{"factor", factor_}, {"total_iters", total_iters_}}, LRScheduler::state_dict());
}

bool ConstantLR::check_own_key(const std::string& key, const Value& value) const {
  if (key == "factor") {
    check_factor(double_value(value, "factor"), "Constant");
    return true;
  }
  if (key != "total_iters") return false;
  int_value(value, "total_iters");
  return true;
}

void ConstantLR::load_own_state(const ValueDict& sd) {
  if (const Value* v = sd.find("factor")) factor_ = v->to_double();
  if (const Value* v = sd.find("total_iters")) total_iters_ = v->to_int();
}

// ---- LinearLR ----

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor,
                   int64_t total_iters, int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer, last_epoch, verbose),
      start_factor_(start_factor),
      end_factor_(end_factor),
      total_iters_(total_iters) {
  check_factor(start_factor, "Starting");
  check_factor(end_factor, "Ending");
  initialize();
}

std::vector<double> LinearLR::compute_lr() {
  std::vector<double> lrs = group_lrs(optimizer_);
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr = lr * start_factor_;
    return lrs;
  }
  if (last_epoch_ > total_iters_) return lrs;
  const double span = end_factor_ - start_factor_;
  const double denom = static_cast<double>(total_iters_) * start_factor_ +
                       static_cast<double>(last_epoch_ - 1) * span;
  for (double& lr : lrs) lr = lr * (1. + span / denom);
  return lrs;
}

std::optional<std::vector<double>> LinearLR::closed_form_lr() const {
  std::vector<double> lrs;
  const double done = static_cast<double>(std::min(total_iters_, last_epoch_));
  for (double base : base_lrs_)
    lrs.push_back(base * (start_factor_ + (end_factor_ - start_factor_) * done /
                                              static_cast<double>(total_iters_)));
  return lrs;
}

ValueDict LinearLR::state_dict() const {
  return with_base(
      {{"start_factor", start_factor_}, {"end_factor", end_factor_}, {"total_iters", total_iters_}},
      LRScheduler::state_dict());
}

bool LinearLR::check_own_key(const std::string& key, const Value& value) const {
  if (key == "start_factor" || key == "end_factor") {
    check_factor(double_value(value, key.c_str()), key == "start_factor" ? "Starting" : "Ending");
    return true;
  }
  if (key != "total_iters") return false;
  int_value(value, "total_iters");
  return true;
}

void LinearLR::load_own_state(const ValueDict& sd) {
  if (const Value* v = sd.find("start_factor")) start_factor_ = v->to_double();
  if (const Value* v = sd.find("end_factor")) end_factor_ = v->to_double();
  if (const Value* v = sd.find("total_iters")) total_iters_ = v->to_int();
}

// ---- MultiplicativeLR ----

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, LrLambda lr_lambda, int64_t last_epoch,
                                   bool verbose)
    : LRScheduler(optimizer, last_epoch, verbose),
      lr_lambdas_(optimizer.param_groups().size(), std::move(lr_lambda)) {
  initialize();
}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas,
                                   int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer, last_epoch, verbose), lr_lambdas_(std::move(lr_lambdas)) {
  EMBER_CHECK_VALUE(lr_lambdas_.size() == optimizer.param_groups().size(), "Expected ",
                    optimizer.param_groups().size(), " lr_lambdas, but got ", lr_lambdas_.size());
  initialize();
}

std::vector<double> MultiplicativeLR::compute_lr() {
  std::vector<double> lrs = group_lrs(optimizer_);
  if (last_epoch_ <= 0) return lrs;
  lrs.resize(std::min(lrs.size(), lr_lambdas_.size()));  // Python's zip
  for (size_t i = 0; i < lrs.size(); ++i) lrs[i] = lrs[i] * lr_lambdas_[i](last_epoch_);
  return lrs;
}

// ---- PolynomialLR ----

PolynomialLR::PolynomialLR(Optimizer& optimizer, int64_t total_iters, double power,
                           int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer, last_epoch, verbose), total_iters_(total_iters), power_(power) {
  // Python would raise ZeroDivisionError on the first step; refused up front.
  EMBER_CHECK_VALUE(total_iters != 0, "PolynomialLR: total_iters must not be 0");
  initialize();
}

std::vector<double> PolynomialLR::compute_lr() {
  std::vector<double> lrs = group_lrs(optimizer_);
  if (last_epoch_ == 0 || last_epoch_ > total_iters_) return lrs;
  const double T = static_cast<double>(total_iters_), e = static_cast<double>(last_epoch_);
  const double decay = std::pow((1.0 - e / T) / (1.0 - (e - 1) / T), power_);
  for (double& lr : lrs) lr = lr * decay;
  return lrs;
}

std::optional<std::vector<double>> PolynomialLR::closed_form_lr() const {
  std::vector<double> lrs;
  const double T = static_cast<double>(total_iters_);
  const double done = static_cast<double>(std::min(total_iters_, last_epoch_));
  for (double base : base_lrs_) lrs.push_back(base * std::pow(1.0 - done / T, power_));
  return lrs;
}

ValueDict PolynomialLR::state_dict() const {
  return with_base({{"total_iters", total_iters_}, {"power", power_}}, LRScheduler::state_dict());
}

bool PolynomialLR::check_own_key(const std::string& key, const Value& value) const {
  if (key == "total_iters") {
    EMBER_CHECK_VALUE(int_value(value, "total_iters") != 0,
                      "PolynomialLR: total_iters must not be 0");
    return true;
  }
  if (key != "power") return false;
  double_value(value, "power");
  return true;
}

void PolynomialLR::load_own_state(const ValueDict& sd) {
  if (const Value* v = sd.find("total_iters")) total_iters_ = v->to_int();
  if (const Value* v = sd.find("power")) power_ = v->to_double();
}

// ---- CosineAnnealingWarmRestarts ----

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0,
                                                         int64_t T_mult, double eta_min,
                                                         int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer, last_epoch, verbose),
      T_0_(T_0),
      T_i_(T_0),
      T_mult_(T_mult),
      eta_min_(eta_min),
      T_cur_(static_cast<double>(last_epoch)) {
  EMBER_CHECK_VALUE(T_0 > 0, "Expected positive integer T_0, but got ", T_0);
  EMBER_CHECK_VALUE(T_mult >= 1, "Expected integer T_mult >= 1, but got ", T_mult);
  initialize();
}

std::vector<double> CosineAnnealingWarmRestarts::compute_lr() {
  constexpr double pi = std::numbers::pi;
  std::vector<double> lrs;
  for (double base : base_lrs_)
    lrs.push_back(eta_min_ +
                  (base - eta_min_) * (1 + std::cos(pi * T_cur_ / static_cast<double>(T_i_))) / 2);
  return lrs;
}

void CosineAnnealingWarmRestarts::step() { step_to(std::nullopt, false); }

void CosineAnnealingWarmRestarts::step_to(std::optional<double> epoch, bool fractional) {
  // torch's override of step(): no call-order warning, no _step_count.
  if (!epoch && last_epoch_ < 0) epoch = 0.0;
  double e;
  if (!epoch) {
    e = static_cast<double>(last_epoch_ + 1);
    T_cur_ = T_cur_ + 1;
    if (T_cur_ >= static_cast<double>(T_i_)) {
      T_cur_ = T_cur_ - static_cast<double>(T_i_);
      T_i_ = T_i_ * T_mult_;
    }
  } else {
    e = *epoch;
    EMBER_CHECK_VALUE(e >= 0, "Expected non-negative epoch, but got ",
                      fractional ? detail::py_float(e) : std::to_string(static_cast<int64_t>(e)));
    const double T0 = static_cast<double>(T_0_);
    if (e >= T0) {
      if (T_mult_ == 1) {
        T_cur_ = std::fmod(e, T0);  // Python's %, both non-negative
        T_cur_is_float_ = fractional;
      } else {
        const double m = static_cast<double>(T_mult_);
        const auto n = static_cast<int64_t>(std::log(e / T0 * (m - 1) + 1) / std::log(m));
        // T_mult ** n in Python is an int; T_0 * (that - 1) / (T_mult - 1) a true division.
        int64_t mult_n = 1;
        for (int64_t k = 0; k < n; ++k) mult_n *= T_mult_;
        T_cur_ = e - static_cast<double>(T_0_ * (mult_n - 1)) / static_cast<double>(T_mult_ - 1);
        T_cur_is_float_ = true;
        T_i_ = T_0_ * mult_n;
      }
    } else {
      T_i_ = T_0_;
      T_cur_ = e;
      T_cur_is_float_ = fractional;
    }
  }
  last_epoch_ = static_cast<int64_t>(std::floor(e));
  get_lr_called_within_step_ = true;
  std::vector<double> lrs = compute_lr();
  get_lr_called_within_step_ = false;
  std::vector<ParamGroup>& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size() && i < lrs.size(); ++i) {
    groups[i].set_lr(lrs[i]);
    if (verbose_) {
      if (fractional) {
        std::printf("Epoch %.2f: adjusting learning rate of group %zu to %.4e.\n", e, i, lrs[i]);
      } else {
        std::printf("Epoch %.5lld: adjusting learning rate of group %zu to %.4e.\n",
                    static_cast<long long>(e), i, lrs[i]);
      }
    }
  }
  last_lr_ = group_lrs(optimizer_);
}

ValueDict CosineAnnealingWarmRestarts::state_dict() const {
  Value t_cur = T_cur_is_float_ ? Value(T_cur_) : Value(static_cast<int64_t>(T_cur_));
  return with_base({{"T_0", T_0_},
                    {"T_i", T_i_},
                    {"T_mult", T_mult_},
                    {"eta_min", number(eta_min_)},
                    {"T_cur", t_cur}},
                   LRScheduler::state_dict());
}

bool CosineAnnealingWarmRestarts::check_own_key(const std::string& key, const Value& value) const {
  if (key == "T_0" || key == "T_i" || key == "T_mult") {
    EMBER_CHECK_VALUE(int_value(value, key.c_str()) >= 1, "state_dict['", key, "'] must be >= 1");
    return true;
  }
  if (key != "eta_min" && key != "T_cur") return false;
  double_value(value, key.c_str());
  return true;
}

void CosineAnnealingWarmRestarts::load_own_state(const ValueDict& sd) {
  if (const Value* v = sd.find("T_0")) T_0_ = v->to_int();
  if (const Value* v = sd.find("T_i")) T_i_ = v->to_int();
  if (const Value* v = sd.find("T_mult")) T_mult_ = v->to_int();
  if (const Value* v = sd.find("eta_min")) eta_min_ = v->to_double();
  if (const Value* v = sd.find("T_cur")) {
    T_cur_ = v->to_double();
    T_cur_is_float_ = v->is_double();
  }
}

// ---- SequentialLR ----

SequentialLR::SequentialLR(Optimizer& optimizer,
                           std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones, int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer, last_epoch + 1, verbose),
      schedulers_(std::move(schedulers)),
      milestones_(std::move(milestones)) {
  for (size_t i = 0; i < schedulers_.size(); ++i) {
    EMBER_CHECK_VALUE(
        schedulers_[i] && &schedulers_[i]->optimizer() == &optimizer,
        "Sequential Schedulers expects all schedulers to belong to the same optimizer, "
        "but got schedulers at index ",
        i, " to be different than the optimizer passed in.");
  }
  EMBER_CHECK_VALUE(
      milestones_.size() + 1 == schedulers_.size(),
      "Sequential Schedulers expects number of schedulers provided to be one more than "
      "the number of milestone points, but got number of schedulers ",
      schedulers_.size(), " and the number of milestones to be equal to ", milestones_.size());
  for (ParamGroup& g : optimizer.param_groups())
    g.set_lr(detail::option_double(g.options(), "initial_lr"));
  for (auto& s : schedulers_) s->set_last_epoch(s->last_epoch() - 1);
  schedulers_[0]->initial_step();
  last_lr_ = schedulers_[0]->get_last_lr();
}

void SequentialLR::step() {
  last_epoch_ += 1;
  // bisect_right(milestones, last_epoch)
  const size_t idx = static_cast<size_t>(
      std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin());
  LRScheduler& s = *schedulers_[idx];
  if (idx > 0 && milestones_[idx - 1] == last_epoch_) {
    s.step(0);
  } else {
    s.step();
  }
  last_lr_ = s.get_last_lr();
}

void SequentialLR::step(int64_t) {
  EMBER_FAIL_KIND(ErrorKind::Type, "step() takes 1 positional argument but 2 were given");
}

ValueDict SequentialLR::state_dict() const {
  return {{"_milestones", milestones_}, {"last_epoch", last_epoch_}, {"_last_lr", last_lr_}};
}

bool SequentialLR::check_own_key(const std::string& key, const Value& value) const {
  if (key != "_milestones") return false;
  EMBER_CHECK_TYPE(value.is_int_list(),
                   "state_dict['_milestones'] must be a list of ints, but got ", value.type_name());
  return true;
}

void SequentialLR::load_own_state(const ValueDict& sd) {
  if (const Value* v = sd.find("_milestones")) milestones_ = v->to_int_list();
}

// ---- ChainedScheduler ----

namespace {
Optimizer& first_optimizer(const std::vector<std::shared_ptr<LRScheduler>>& schedulers) {
  EMBER_CHECK_INDEX(!schedulers.empty() && schedulers[0], "list index out of range");
  return schedulers[0]->optimizer();
}
}  // namespace

ChainedScheduler::ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers)
    : LRScheduler(first_optimizer(schedulers), 0, false), schedulers_(std::move(schedulers)) {
  for (size_t i = 1; i < schedulers_.size(); ++i) {
    EMBER_CHECK_VALUE(
        schedulers_[i] && &schedulers_[i]->optimizer() == &schedulers_[0]->optimizer(),
        "ChainedScheduler expects all schedulers to belong to the same optimizer, but "
        "got schedulers at index 0 and ",
        i, " to be different");
  }
  last_lr_ = group_lrs(schedulers_.back()->optimizer());
}

void ChainedScheduler::step() {
  for (auto& s : schedulers_) s->step();
  last_lr_ = group_lrs(schedulers_.back()->optimizer());
}

void ChainedScheduler::step(int64_t) {
  EMBER_FAIL_KIND(ErrorKind::Type, "step() takes 1 positional argument but 2 were given");
}

ValueDict ChainedScheduler::state_dict() const { return {{"_last_lr", last_lr_}}; }

// ---- ReduceLROnPlateau ----

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, const ReduceLROnPlateauOptions& o)
    : optimizer_(optimizer),
      factor_(o.factor),
      patience_(o.patience),
      verbose_(o.verbose),
      cooldown_(o.cooldown),
      threshold_(o.threshold),
      eps_(o.eps) {
  EMBER_CHECK_VALUE(o.factor < 1.0, "Factor should be < 1.0.");
  const size_t n = optimizer.param_groups().size();
  if (const auto* list = std::get_if<std::vector<double>>(&o.min_lr)) {
    EMBER_CHECK_VALUE(list->size() == n, "expected ", n, " min_lrs, got ", list->size());
    min_lrs_ = *list;
  } else {
    min_lrs_.assign(n, std::get<double>(o.min_lr));
  }
  init_is_better(o.mode, o.threshold_mode);
  best_ = mode_worse_;
}

void ReduceLROnPlateau::init_is_better(const std::string& mode, const std::string& threshold_mode) {
  EMBER_CHECK_VALUE(mode == "min" || mode == "max", "mode ", mode, " is unknown!");
  EMBER_CHECK_VALUE(threshold_mode == "rel" || threshold_mode == "abs", "threshold mode ",
                    threshold_mode, " is unknown!");
  mode_worse_ = mode == "min" ? std::numeric_limits<double>::infinity()
                              : -std::numeric_limits<double>::infinity();
  mode_ = mode;
  threshold_mode_ = threshold_mode;
}

bool ReduceLROnPlateau::is_better(double a, double best) const {
  if (mode_ == "min" && threshold_mode_ == "rel") return a < best * (1. - threshold_);
  if (mode_ == "min") return a < best - threshold_;
  if (threshold_mode_ == "rel") return a > best * (threshold_ + 1.);
  return a > best + threshold_;
}

void ReduceLROnPlateau::step(double current, std::optional<int64_t> epoch) {
  if (epoch) warn(detail::kEpochDeprecationWarning);
  const int64_t e = epoch ? *epoch : last_epoch_ + 1;
  last_epoch_ = e;
  if (is_better(current, best_)) {
    best_ = current;
    num_bad_epochs_ = 0;
  } else {
    num_bad_epochs_ += 1;
  }
  if (in_cooldown()) {
    cooldown_counter_ -= 1;
    num_bad_epochs_ = 0;  // bad epochs in cooldown do not count
  }
  if (num_bad_epochs_ > patience_) {
    std::vector<ParamGroup>& groups = optimizer_.param_groups();
    for (size_t i = 0; i < groups.size(); ++i) {
      const double old_lr = groups[i].lr();
      const double new_lr = std::max(old_lr * factor_, i < min_lrs_.size() ? min_lrs_[i] : 0.0);
      if (old_lr - new_lr > eps_) {
        groups[i].set_lr(new_lr);
        if (verbose_) {
          std::printf("Epoch %.5lld: reducing learning rate of group %zu to %.4e.\n",
                      static_cast<long long>(e), i, new_lr);
        }
      }
    }
    cooldown_counter_ = cooldown_;
    num_bad_epochs_ = 0;
  }
  last_lr_ = group_lrs(optimizer_);
}

ValueDict ReduceLROnPlateau::state_dict() const {
  ValueDict d{{"factor", factor_},
              {"min_lrs", min_lrs_},
              {"patience", patience_},
              {"verbose", verbose_},
              {"cooldown", cooldown_},
              {"cooldown_counter", cooldown_counter_},
              {"mode", mode_},
              {"threshold", threshold_},
              {"threshold_mode", threshold_mode_},
              {"best", best_},
              {"num_bad_epochs", num_bad_epochs_},
              {"mode_worse", mode_worse_},
              {"eps", eps_},
              {"last_epoch", last_epoch_}};
  if (!last_lr_.empty()) d.set("_last_lr", last_lr_);
  return d;
}

void ReduceLROnPlateau::load_state_dict(const ValueDict& sd) {
  auto str = [](const Value& v, const char* key) {
    EMBER_CHECK_TYPE(v.is_string(), "state_dict['", key, "'] must be a str, but got ",
                     v.type_name());
    return v.to_string_value();
  };
  std::string mode = mode_, threshold_mode = threshold_mode_;
  for (const auto& [key, v] : sd) {
    if (key == "factor" || key == "threshold" || key == "best" || key == "mode_worse" ||
        key == "eps")
      double_value(v, key.c_str());
    else if (key == "min_lrs" || key == "_last_lr")
      detail::to_double_list(v, ("state_dict['" + key + "']").c_str());
    else if (key == "patience" || key == "cooldown" || key == "cooldown_counter" ||
             key == "num_bad_epochs" || key == "last_epoch")
      int_value(v, key.c_str());
    else if (key == "verbose")
      bool_value(v, "verbose");
    else if (key == "mode")
      mode = str(v, "mode");
    else if (key == "threshold_mode")
      threshold_mode = str(v, "threshold_mode");
    else
      EMBER_FAIL_KIND(ErrorKind::Key, "ReduceLROnPlateau.load_state_dict: unexpected key '", key,
                      "'");
  }
  {  // torch re-runs _init_is_better on the loaded mode: check it before anything changes
    EMBER_CHECK_VALUE(mode == "min" || mode == "max", "mode ", mode, " is unknown!");
    EMBER_CHECK_VALUE(threshold_mode == "rel" || threshold_mode == "abs", "threshold mode ",
                      threshold_mode, " is unknown!");
  }
  for (const auto& [key, v] : sd) {
    if (key == "factor")
      factor_ = v.to_double();
    else if (key == "threshold")
      threshold_ = v.to_double();
    else if (key == "best")
      best_ = v.to_double();
    else if (key == "eps")
      eps_ = v.to_double();
    else if (key == "min_lrs")
      min_lrs_ = detail::to_double_list(v, "min_lrs");
    else if (key == "_last_lr")
      last_lr_ = detail::to_double_list(v, "_last_lr");
    else if (key == "patience")
      patience_ = v.to_int();
    else if (key == "cooldown")
      cooldown_ = v.to_int();
    else if (key == "cooldown_counter")
      cooldown_counter_ = v.to_int();
    else if (key == "num_bad_epochs")
      num_bad_epochs_ = v.to_int();
    else if (key == "last_epoch")
      last_epoch_ = v.to_int();
    else if (key == "verbose")
      verbose_ = v.to_bool();
  }
  init_is_better(mode, threshold_mode);  // sets mode_worse from the mode, as torch's
}

}  // namespace ember::optim
