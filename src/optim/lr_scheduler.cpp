#include "ember/optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "ember/warning.h"
#include "optim_util.h"

// Note [Python's float arithmetic]: the learning rates and step sizes are computed as torch.optim
// computes them in Python, one rounding per operation. GCC contracts a * b + c into a fused
// multiply-add in C++ by default (-ffp-contract=fast) on an FMA target, which rounds once and
// would move the last bit of, say, CosineAnnealingLR's rates; contraction is off in this file.
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

namespace detail {
const char* const kEpochDeprecationWarning =
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if "
    "epoch is different from None, the closed form is used instead of the new chainable form, "
    "where available. Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose.";
}  // namespace detail
using detail::kEpochDeprecationWarning;

// ---- LRScheduler ----

LRScheduler::LRScheduler(Optimizer& optimizer, int64_t last_epoch, bool verbose)
    : optimizer_(optimizer), last_epoch_(last_epoch), verbose_(verbose) {}

void LRScheduler::initialize() {
  std::vector<ParamGroup>& groups = optimizer_.param_groups();
  if (last_epoch_ == -1) {
    for (ParamGroup& g : groups) g.options().setdefault("initial_lr", g.options().at("lr"));
  } else {
    for (size_t i = 0; i < groups.size(); ++i) {
      EMBER_CHECK_KIND(ErrorKind::Key, groups[i].options().contains("initial_lr"),
                       "param 'initial_lr' is not specified in param_groups[", i,
                       "] when resuming an optimizer");
    }
  }
  base_lrs_.clear();
  for (const ParamGroup& g : groups)
    base_lrs_.push_back(detail::option_double(g.options(), "initial_lr"));
  initial_step();
}

void LRScheduler::initial_step() {
  // PyTorch's _initial_step: count optimizer steps from here, then take the first step.
  optimizer_.set_step_count(0);
  step_count_ = 0;
  step();
}

void LRScheduler::step() { step_impl(std::nullopt); }

void LRScheduler::step(int64_t epoch) { step_impl(epoch); }

void LRScheduler::step_impl(std::optional<int64_t> epoch) {
  if (step_count_ == 1 && optimizer_.step_count() < 1) {
    warn(
        "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and "
        "later, you should call them in the opposite order: `optimizer.step()` before "
        "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the first "
        "value of the learning rate schedule. See more details at "
        "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate");
  }
  // The counters move before the formula runs (CosineAnnealingLR reads _step_count), and move
  // back if it throws (OneCycleLR past total_steps), so a failed step changes nothing.
  const int64_t prev_epoch = last_epoch_;
  ++step_count_;
  get_lr_called_within_step_ = true;
  std::vector<double> values;
  try {
    if (!epoch) {
      ++last_epoch_;
      values = compute_lr();
    } else {
      warn(kEpochDeprecationWarning);
      last_epoch_ = *epoch;
      std::optional<std::vector<double>> closed = closed_form_lr();
      values = closed ? std::move(*closed) : compute_lr();
    }
  } catch (...) {
    get_lr_called_within_step_ = false;
    --step_count_;
    last_epoch_ = prev_epoch;
    throw;
  }
  get_lr_called_within_step_ = false;

  std::vector<ParamGroup>& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size() && i < values.size(); ++i) {
    groups[i].set_lr(values[i]);
    if (verbose_) {
      if (epoch) {
        std::printf("Epoch %.5lld: adjusting learning rate of group %zu to %.4e.\n",
                    static_cast<long long>(*epoch), i, values[i]);
      } else {
        std::printf("Adjusting learning rate of group %zu to %.4e.\n", i, values[i]);
      }
    }
  }
  last_lr_ = group_lrs(optimizer_);
}

std::vector<double> LRScheduler::get_lr() {
  if (!get_lr_called_within_step_) {
    warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.");
  }
  return compute_lr();
}

ValueDict LRScheduler::base_state() const {
  return {{"base_lrs", base_lrs_},
          {"last_epoch", last_epoch_},
          {"verbose", verbose_},
          {"_step_count", step_count_},
          {"_get_lr_called_within_step", get_lr_called_within_step_},
          {"_last_lr", last_lr_}};
}

ValueDict LRScheduler::state_dict() const { return base_state(); }

bool LRScheduler::check_own_key(const std::string&, const Value&) const { return false; }

void LRScheduler::load_state_dict(const ValueDict& sd) {
  for (const auto& [key, value] : sd) {
    if (key == "base_lrs" || key == "_last_lr") {
      detail::to_double_list(value, ("state_dict['" + key + "']").c_str());
    } else if (key == "last_epoch" || key == "_step_count") {
      int_value(value, key.c_str());
    } else if (key == "verbose" || key == "_get_lr_called_within_step") {
      bool_value(value, key.c_str());
    } else {
      EMBER_CHECK_KIND(ErrorKind::Key, check_own_key(key, value), name(),
                       ".load_state_dict: unexpected key '", key, "'");
    }
  }
  check_loaded(sd);
  for (const auto& [key, value] : sd) {
    if (key == "base_lrs")
      base_lrs_ = detail::to_double_list(value, "base_lrs");
    else if (key == "_last_lr")
      last_lr_ = detail::to_double_list(value, "_last_lr");
    else if (key == "last_epoch")
      last_epoch_ = value.to_int();
    else if (key == "_step_count")
      step_count_ = value.to_int();
    else if (key == "verbose")
      verbose_ = value.to_bool();
    else if (key == "_get_lr_called_within_step")
      get_lr_called_within_step_ = value.to_bool();
  }
  load_own_state(sd);
}

// ---- StepLR ----

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma, int64_t last_epoch,
               bool verbose)
    : LRScheduler(optimizer, last_epoch, verbose), step_size_(step_size), gamma_(gamma) {
  // Python would raise ZeroDivisionError on the second step; here it is refused up front.
  EMBER_CHECK_VALUE(step_size != 0, "StepLR: step_size must not be 0");
  initialize();
}

std::vector<double> StepLR::compute_lr() {
  std::vector<double> lrs = group_lrs(optimizer_);
  if (last_epoch_ == 0 || last_epoch_ % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr = lr * gamma_;
  return lrs;
}

std::optional<std::vector<double>> StepLR::closed_form_lr() const {
  std::vector<double> lrs;
  const double factor =
      std::pow(gamma_, static_cast<double>(detail::py_floordiv(last_epoch_, step_size_)));
  for (double base : base_lrs_) lrs.push_back(base * factor);
  return lrs;
}

ValueDict StepLR::state_dict() const {
  ValueDict d{{"step_size", step_size_}, {"gamma", gamma_}};
  for (const auto& [k, v] : LRScheduler::state_dict()) d.set(k, v);
  return d;
}

bool StepLR::check_own_key(const std::string& key, const Value& value) const {
  if (key == "step_size") {
    EMBER_CHECK_VALUE(int_value(value, "step_size") != 0, "StepLR: step_size must not be 0");
    return true;
  }
  if (key != "gamma") return false;
  double_value(value, "gamma");
  return true;
}

void StepLR::load_own_state(const ValueDict& sd) {
  if (const Value* v = sd.find("step_size")) step_size_ = v->to_int();
  if (const Value* v = sd.find("gamma")) gamma_ = v->to_double();
}

// ---- MultiStepLR ----

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma,
                         int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer, last_epoch, verbose),
      milestones_(std::move(milestones)),
      gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
  initialize();
}

std::vector<double> MultiStepLR::compute_lr() {
  std::vector<double> lrs = group_lrs(optimizer_);
  const auto hits = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  if (hits == 0) return lrs;
  const double factor = std::pow(gamma_, static_cast<double>(hits));
  for (double& lr : lrs) lr = lr * factor;
  return lrs;
}

std::optional<std::vector<double>> MultiStepLR::closed_form_lr() const {
  // bisect_right: how many milestones are <= last_epoch.
  const auto passed =
      std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  const double factor = std::pow(gamma_, static_cast<double>(passed));
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * factor);
  return lrs;
}

ValueDict MultiStepLR::state_dict() const {
  ValueDict d{{"milestones", milestones_}, {"gamma", gamma_}};
  for (const auto& [k, v] : LRScheduler::state_dict()) d.set(k, v);
  return d;
}

bool MultiStepLR::check_own_key(const std::string& key, const Value& value) const {
  if (key == "milestones") {
    EMBER_CHECK_TYPE(value.is_int_list(),
                     "state_dict['milestones'] must be a list of ints, but got ",
                     value.type_name());
    return true;
  }
  if (key != "gamma") return false;
  double_value(value, "gamma");
  return true;
}

void MultiStepLR::load_own_state(const ValueDict& sd) {
  if (const Value* v = sd.find("milestones")) {
    milestones_ = v->to_int_list();
    std::sort(milestones_.begin(), milestones_.end());
  }
  if (const Value* v = sd.find("gamma")) gamma_ = v->to_double();
}

// ---- CosineAnnealingLR ----

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min,
                                     int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer, last_epoch, verbose), T_max_(T_max), eta_min_(eta_min) {
  // Python would raise ZeroDivisionError on the second step; here it is refused up front.
  EMBER_CHECK_VALUE(T_max != 0, "CosineAnnealingLR: T_max must not be 0");
  initialize();
}

std::vector<double> CosineAnnealingLR::compute_lr() {
  // PyTorch's recursive form, each expression evaluated in Python's order so that the rates
  // agree with torch's to the last bit, also past T_max (where the cosine climbs back).
  constexpr double pi = std::numbers::pi;
  const double e = static_cast<double>(last_epoch_);
  const double T = static_cast<double>(T_max_);
  std::vector<double> lrs = group_lrs(optimizer_);
  if (last_epoch_ == 0) return lrs;
  // Python zips base_lrs with the groups: a group added after the scheduler gets no new rate.
  if (step_count_ == 1 && last_epoch_ > 0) {
    lrs.resize(std::min(lrs.size(), base_lrs_.size()));
    for (size_t i = 0; i < lrs.size(); ++i)
      lrs[i] = eta_min_ + (base_lrs_[i] - eta_min_) * (1 + std::cos(e * pi / T)) / 2;
    return lrs;
  }
  if (detail::py_mod(last_epoch_ - 1 - T_max_, 2 * T_max_) == 0) {
    lrs.resize(std::min(lrs.size(), base_lrs_.size()));
    for (size_t i = 0; i < lrs.size(); ++i)
      lrs[i] = lrs[i] + (base_lrs_[i] - eta_min_) * (1 - std::cos(pi / T)) / 2;
    return lrs;
  }
  for (double& lr : lrs)
    lr = (1 + std::cos(pi * e / T)) / (1 + std::cos(pi * (e - 1) / T)) * (lr - eta_min_) + eta_min_;
  return lrs;
}

std::optional<std::vector<double>> CosineAnnealingLR::closed_form_lr() const {
  constexpr double pi = std::numbers::pi;
  std::vector<double> lrs;
  for (double base : base_lrs_)
    lrs.push_back(eta_min_ + (base - eta_min_) *
                                 (1 + std::cos(pi * static_cast<double>(last_epoch_) /
                                               static_cast<double>(T_max_))) /
                                 2);
  return lrs;
}

ValueDict CosineAnnealingLR::state_dict() const {
  ValueDict d{{"T_max", T_max_}, {"eta_min", eta_min_}};
  for (const auto& [k, v] : LRScheduler::state_dict()) d.set(k, v);
  return d;
}

bool CosineAnnealingLR::check_own_key(const std::string& key, const Value& value) const {
  if (key == "T_max") {
    EMBER_CHECK_VALUE(int_value(value, "T_max") != 0, "CosineAnnealingLR: T_max must not be 0");
    return true;
  }
  if (key != "eta_min") return false;
  double_value(value, "eta_min");
  return true;
}

void CosineAnnealingLR::load_own_state(const ValueDict& sd) {
  if (const Value* v = sd.find("T_max")) T_max_ = v->to_int();
  if (const Value* v = sd.find("eta_min")) eta_min_ = v->to_double();
}

// ---- LambdaLR ----

LambdaLR::LambdaLR(Optimizer& optimizer, LrLambda lr_lambda, int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer, last_epoch, verbose),
      lr_lambdas_(optimizer.param_groups().size(), std::move(lr_lambda)) {
  initialize();
}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas, int64_t last_epoch,
                   bool verbose)
    : LRScheduler(optimizer, last_epoch, verbose), lr_lambdas_(std::move(lr_lambdas)) {
  EMBER_CHECK_VALUE(lr_lambdas_.size() == optimizer.param_groups().size(), "Expected ",
                    optimizer.param_groups().size(), " lr_lambdas, but got ", lr_lambdas_.size());
  initialize();
}

std::vector<double> LambdaLR::compute_lr() {
  std::vector<double> lrs;
  for (size_t i = 0; i < base_lrs_.size() && i < lr_lambdas_.size(); ++i)
    lrs.push_back(base_lrs_[i] * lr_lambdas_[i](last_epoch_));
  return lrs;
}

// ---- OneCycleLR ----

namespace {

std::vector<double> per_group(const PerGroup& v, const char* name, size_t groups) {
  if (const double* d = std::get_if<double>(&v)) return std::vector<double>(groups, *d);
  const auto& l = std::get<std::vector<double>>(v);
  EMBER_CHECK_VALUE(l.size() == groups, "expected ", groups, " values for ", name, ", got ",
                    l.size());
  return l;
}

std::string opt_int_str(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : std::string("None");
}

// The option names each phase anneals between: {start_lr, end_lr, start_momentum, end_momentum}.
using PhaseKeys = std::array<const char*, 4>;
constexpr PhaseKeys kTwoPhase[] = {{"initial_lr", "max_lr", "max_momentum", "base_momentum"},
                                   {"max_lr", "min_lr", "base_momentum", "max_momentum"}};
constexpr PhaseKeys kThreePhase[] = {{"initial_lr", "max_lr", "max_momentum", "base_momentum"},
                                     {"max_lr", "initial_lr", "base_momentum", "max_momentum"},
                                     {"initial_lr", "min_lr", "max_momentum", "max_momentum"}};

}  // namespace

OneCycleLR::OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& o)
    : LRScheduler(optimizer, o.last_epoch, o.verbose) {
  // Every check runs before any group changes (PyTorch writes max_lr before checking momentum).
  if (!o.total_steps && !o.epochs && !o.steps_per_epoch) {
    EMBER_FAIL_KIND(ErrorKind::Value,
                    "You must define either total_steps OR (epochs AND steps_per_epoch)");
  } else if (o.total_steps) {
    EMBER_CHECK_VALUE(*o.total_steps > 0, "Expected positive integer total_steps, but got ",
                      *o.total_steps);
    total_steps_ = *o.total_steps;
  } else {
    EMBER_CHECK_VALUE(o.epochs && *o.epochs > 0, "Expected positive integer epochs, but got ",
                      opt_int_str(o.epochs));
    EMBER_CHECK_VALUE(o.steps_per_epoch && *o.steps_per_epoch > 0,
                      "Expected positive integer steps_per_epoch, but got ",
                      opt_int_str(o.steps_per_epoch));
    total_steps_ = *o.epochs * *o.steps_per_epoch;
  }
  const double total = static_cast<double>(total_steps_);
  three_phase_ = o.three_phase;
  if (three_phase_) {
    phase_end_steps_ = {o.pct_start * total - 1, 2 * o.pct_start * total - 2, total - 1};
  } else {
    phase_end_steps_ = {o.pct_start * total - 1, total - 1};
  }
  EMBER_CHECK_VALUE(!(o.pct_start < 0 || o.pct_start > 1),
                    "Expected float between 0 and 1 pct_start, but got ",
                    detail::py_float(o.pct_start));
  EMBER_CHECK_VALUE(o.anneal_strategy == "cos" || o.anneal_strategy == "linear",
                    "anneal_strategy must by one of 'cos' or 'linear', instead got ",
                    o.anneal_strategy);
  anneal_strategy_ = o.anneal_strategy;

  std::vector<ParamGroup>& groups = optimizer.param_groups();
  const std::vector<double> max_lrs = per_group(o.max_lr, "max_lr", groups.size());
  cycle_momentum_ = o.cycle_momentum;
  std::vector<double> max_momentums, base_momentums;
  if (cycle_momentum_) {
    const ValueDict& defaults = optimizer.defaults();
    EMBER_CHECK_VALUE(defaults.contains("momentum") || defaults.contains("betas"),
                      "optimizer must support momentum with `cycle_momentum` option enabled");
    use_beta1_ = defaults.contains("betas");
    max_momentums = per_group(o.max_momentum, "max_momentum", groups.size());
    base_momentums = per_group(o.base_momentum, "base_momentum", groups.size());
    if (o.last_epoch == -1 && use_beta1_) {
      for (const ParamGroup& g : groups) detail::option_pair(g.options(), "betas");
    }
  }

  if (o.last_epoch == -1) {
    for (size_t i = 0; i < groups.size(); ++i) {
      ValueDict& g = groups[i].options();
      const double initial_lr = max_lrs[i] / o.div_factor;
      g.set("initial_lr", initial_lr);
      g.set("max_lr", max_lrs[i]);
      g.set("min_lr", initial_lr / o.final_div_factor);
      if (cycle_momentum_) {
        if (use_beta1_) {
          g.set("betas", std::vector<double>{max_momentums[i], detail::option_pair(g, "betas")[1]});
        } else {
          g.set("momentum", max_momentums[i]);
        }
        g.set("max_momentum", max_momentums[i]);
        g.set("base_momentum", base_momentums[i]);
      }
    }
  }
  initialize();
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (anneal_strategy_ == "cos") {
    const double cos_out = std::cos(std::numbers::pi * pct) + 1;
    return end + (start - end) / 2.0 * cos_out;
  }
  return (end - start) * pct + start;
}

std::vector<double> OneCycleLR::compute_lr() {
  const int64_t step_num = last_epoch_;
  EMBER_CHECK_VALUE(step_num <= total_steps_, "Tried to step ", step_num + 1,
                    " times. The specified number of total steps is ", total_steps_);
  const PhaseKeys* phases = three_phase_ ? kThreePhase : kTwoPhase;
  const size_t n = phase_end_steps_.size();
  std::vector<double> lrs;
  for (ParamGroup& group : optimizer_.param_groups()) {
    ValueDict& g = group.options();
    double start_step = 0, lr = 0, momentum = 0;
    for (size_t i = 0; i < n; ++i) {
      const double end_step = phase_end_steps_[i];
      if (static_cast<double>(step_num) <= end_step || i == n - 1) {
        // Python raises ZeroDivisionError for a phase of no steps (pct_start * total_steps == 1).
        EMBER_CHECK(end_step != start_step, "float division by zero");
        const double pct = (static_cast<double>(step_num) - start_step) / (end_step - start_step);
        lr = anneal(detail::option_double(g, phases[i][0]), detail::option_double(g, phases[i][1]),
                    pct);
        if (cycle_momentum_) {
          momentum = anneal(detail::option_double(g, phases[i][2]),
                            detail::option_double(g, phases[i][3]), pct);
        }
        break;
      }
      start_step = end_step;
    }
    lrs.push_back(lr);
    if (cycle_momentum_) {
      if (use_beta1_) {
        g.set("betas", std::vector<double>{momentum, detail::option_pair(g, "betas")[1]});
      } else {
        g.set("momentum", momentum);
      }
    }
  }
  return lrs;
}

ValueDict OneCycleLR::state_dict() const {
  ValueDict d{{"total_steps", total_steps_},       {"_schedule_phase_end_steps", phase_end_steps_},
              {"three_phase", three_phase_},       {"anneal_strategy", anneal_strategy_},
              {"cycle_momentum", cycle_momentum_}, {"use_beta1", use_beta1_}};
  for (const auto& [k, v] : LRScheduler::state_dict()) d.set(k, v);
  return d;
}

bool OneCycleLR::check_own_key(const std::string& key, const Value& value) const {
  if (key == "total_steps") {
    EMBER_CHECK_VALUE(int_value(value, "total_steps") > 0,
                      "Expected positive integer total_steps, but got ", value.to_int());
  } else if (key == "_schedule_phase_end_steps") {
    detail::to_double_list(value, "state_dict['_schedule_phase_end_steps']");
  } else if (key == "three_phase" || key == "cycle_momentum" || key == "use_beta1") {
    bool_value(value, key.c_str());
  } else if (key == "anneal_strategy") {
    EMBER_CHECK_VALUE(value.is_string() &&
                          (value.to_string_value() == "cos" || value.to_string_value() == "linear"),
                      "anneal_strategy must by one of 'cos' or 'linear', instead got ",
                      detail::py_str(value));
  } else {
    return false;
  }
  return true;
}

void OneCycleLR::check_loaded(const ValueDict& sd) const {
  const Value* tp = sd.find("three_phase");
  const Value* ends = sd.find("_schedule_phase_end_steps");
  const bool three = tp ? tp->to_bool() : three_phase_;
  const size_t n = ends ? detail::to_double_list(*ends, "_schedule_phase_end_steps").size()
                        : phase_end_steps_.size();
  EMBER_CHECK_VALUE(n == (three ? 3u : 2u), "OneCycleLR.load_state_dict: a ",
                    three ? "three" : "two", "-phase schedule needs ", three ? 3 : 2,
                    " phase end steps, but got ", n);
}

void OneCycleLR::load_own_state(const ValueDict& sd) {
  if (const Value* v = sd.find("total_steps")) total_steps_ = v->to_int();
  if (const Value* v = sd.find("three_phase")) three_phase_ = v->to_bool();
  if (const Value* v = sd.find("_schedule_phase_end_steps")) {
    phase_end_steps_ = detail::to_double_list(*v, "_schedule_phase_end_steps");
  }
  if (const Value* v = sd.find("anneal_strategy")) anneal_strategy_ = v->to_string_value();
  if (const Value* v = sd.find("cycle_momentum")) cycle_momentum_ = v->to_bool();
  if (const Value* v = sd.find("use_beta1")) use_beta1_ = v->to_bool();
}

}  // namespace ember::optim
