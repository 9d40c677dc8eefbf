// torch.optim.lr_scheduler: StepLR, MultiStepLR, CosineAnnealingLR, LambdaLR, OneCycleLR.
//
//   ember::optim::SGD opt(params, {.lr = 0.1, .momentum = 0.9});
//   ember::optim::StepLR sched(opt, /*step_size=*/30, /*gamma=*/0.1);
//   for (int epoch = 0; epoch < 100; ++epoch) { train(opt); sched.step(); }
//   sched.get_last_lr();   // {0.1 * 0.1^(epoch/30)} per group
//
// Each scheduler writes group["lr"] of the optimizer it holds (by reference: it must outlive
// the scheduler). Construction performs the first step (last_epoch -1 -> 0), as PyTorch's does;
// the formulas are PyTorch's chainable ones, computed in the same order in double, so the
// learning rates equal torch's bit for bit (CosineAnnealingLR's recursive form included).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  /// PyTorch's class name ("StepLR", ...).
  virtual const char* name() const = 0;

  /// Advances one epoch and writes the new learning rates into the optimizer's groups. Warns
  /// once, as PyTorch does, when called before the optimizer's first step().
  virtual void step();
  /// Deprecated form: jumps to `epoch`, using the closed form where the scheduler has one
  /// (warns with PyTorch's deprecation text).
  virtual void step(int64_t epoch);

  /// The learning rates the last step() set, one per group.
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  /// The chainable formula's next values; called outside step() it warns, as PyTorch does,
  /// that get_last_lr() is what gives the current rates.
  std::vector<double> get_lr();

  int64_t last_epoch() const { return last_epoch_; }
  /// scheduler.last_epoch = n (SequentialLR moves its schedulers back one epoch).
  void set_last_epoch(int64_t n) { last_epoch_ = n; }
  /// PyTorch's _initial_step(): resets the step counters (the optimizer's too) and steps once.
  void initial_step();
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  Optimizer& optimizer() const { return optimizer_; }

  /// The scheduler's attributes as PyTorch's state_dict has them (base_lrs, last_epoch,
  /// verbose, _step_count, _get_lr_called_within_step, _last_lr and the scheduler's own).
  virtual ValueDict state_dict() const;
  /// Restores the attributes a state_dict() names; unknown keys or mistyped values are errors,
  /// checked before anything changes.
  void load_state_dict(const ValueDict& state_dict);

 protected:
  LRScheduler(Optimizer& optimizer, int64_t last_epoch, bool verbose);
  /// PyTorch's _LRScheduler.__init__ tail: initial_lr per group (required when resuming, i.e.
  /// last_epoch != -1), base_lrs, and the first step. Derived constructors call it last.
  void initialize();

  virtual std::vector<double> compute_lr() = 0;
  virtual std::optional<std::vector<double>> closed_form_lr() const { return std::nullopt; }
  /// Applies the derived scheduler's own keys of a state dict (called after all are checked).
  virtual void load_own_state(const ValueDict&) {}
  /// Checks one key of a loaded state dict; returns false for a key the scheduler does not know.
  virtual bool check_own_key(const std::string& key, const Value& value) const;
  /// Checks that a loaded state dict's keys agree with each other (after each key is checked).
  virtual void check_loaded(const ValueDict&) const {}

  Optimizer& optimizer_;
  int64_t last_epoch_;
  bool verbose_;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;
  int64_t step_count_ = 0;
  bool get_lr_called_within_step_ = false;

 private:
  void step_impl(std::optional<int64_t> epoch);
  ValueDict base_state() const;
};

/// lr = previous lr * gamma every step_size epochs.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1, int64_t last_epoch = -1,
         bool verbose = false);
  const char* name() const override { return "StepLR"; }
  ValueDict state_dict() const override;

 protected:
  std::vector<double> compute_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  bool check_own_key(const std::string& key, const Value& value) const override;
  void load_own_state(const ValueDict& sd) override;

 private:
  int64_t step_size_;
  double gamma_;
};

/// lr *= gamma^(how often the epoch appears in milestones) when an epoch is a milestone.
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1,
              int64_t last_epoch = -1, bool verbose = false);
  const char* name() const override { return "MultiStepLR"; }
  /// "milestones" is saved as the sorted list of the Counter's elements ([2, 2, 5]).
  ValueDict state_dict() const override;

 protected:
  std::vector<double> compute_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  bool check_own_key(const std::string& key, const Value& value) const override;
  void load_own_state(const ValueDict& sd) override;

 private:
  std::vector<int64_t> milestones_;  // sorted, with repeats
  double gamma_;
};

/// Cosine annealing from each group's lr down to eta_min over T_max epochs (and back up after
/// it), in PyTorch's recursive form.
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0,
                    int64_t last_epoch = -1, bool verbose = false);
  const char* name() const override { return "CosineAnnealingLR"; }
  ValueDict state_dict() const override;

 protected:
  std::vector<double> compute_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  bool check_own_key(const std::string& key, const Value& value) const override;
  void load_own_state(const ValueDict& sd) override;

 private:
  int64_t T_max_;
  double eta_min_;
};

/// lr = base_lr * lr_lambda(epoch); one function for all groups or one per group.
class LambdaLR : public LRScheduler {
 public:
  using LrLambda = std::function<double(int64_t)>;
  LambdaLR(Optimizer& optimizer, LrLambda lr_lambda, int64_t last_epoch = -1, bool verbose = false);
  /// "Expected 2 lr_lambdas, but got 1" unless there is one per group.
  LambdaLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas, int64_t last_epoch = -1,
           bool verbose = false);
  const char* name() const override { return "LambdaLR"; }
  /// The functions, one per group (a front end saves the state of callable objects among them).
  const std::vector<LrLambda>& lr_lambdas() const { return lr_lambdas_; }

 protected:
  std::vector<double> compute_lr() override;

 private:
  std::vector<LrLambda> lr_lambdas_;
};

/// One value for every group, or one per group (PyTorch's float-or-list arguments).
using PerGroup = std::variant<double, std::vector<double>>;

struct OneCycleLROptions {
  PerGroup max_lr = 0.0;
  /// total_steps, or epochs and steps_per_epoch.
  std::optional<int64_t> total_steps = std::nullopt;
  std::optional<int64_t> epochs = std::nullopt;
  std::optional<int64_t> steps_per_epoch = std::nullopt;
  double pct_start = 0.3;
  std::string anneal_strategy = "cos";  // or "linear"
  bool cycle_momentum = true;
  PerGroup base_momentum = 0.85;
  PerGroup max_momentum = 0.95;
  double div_factor = 25.0;
  double final_div_factor = 1e4;
  bool three_phase = false;
  int64_t last_epoch = -1;
  bool verbose = false;
};

/// The 1cycle policy: lr from max_lr / div_factor up to max_lr, then down to
/// initial_lr / final_div_factor (with three_phase: back to initial_lr first), annealed by
/// cosine or linearly; with cycle_momentum, SGD's momentum or Adam's beta1 moves the other way
/// between max_momentum and base_momentum. Writes initial_lr, max_lr, min_lr (and
/// max_momentum, base_momentum) into each group, as PyTorch does.
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, const OneCycleLROptions& options);
  const char* name() const override { return "OneCycleLR"; }
  int64_t total_steps() const { return total_steps_; }
  /// PyTorch's attributes, except that the schedule's phases (a list of dicts) and the bound
  /// anneal function are saved as "_schedule_phase_end_steps", "three_phase" and
  /// "anneal_strategy", from which they are rebuilt.
  ValueDict state_dict() const override;

 protected:
  std::vector<double> compute_lr() override;
  bool check_own_key(const std::string& key, const Value& value) const override;
  void check_loaded(const ValueDict& sd) const override;
  void load_own_state(const ValueDict& sd) override;

 private:
  double anneal(double start, double end, double pct) const;

  int64_t total_steps_ = 0;
  std::vector<double> phase_end_steps_;
  bool three_phase_ = false;
  std::string anneal_strategy_;
  bool cycle_momentum_ = false;
  bool use_beta1_ = false;
};

}  // namespace ember::optim
