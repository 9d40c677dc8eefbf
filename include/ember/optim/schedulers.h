// torch.optim.lr_scheduler's other schedulers: ExponentialLR, ConstantLR, LinearLR,
// MultiplicativeLR, PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR, SequentialLR,
// ChainedScheduler and ReduceLROnPlateau.
//
//   ember::optim::SGD opt(params, {.lr = 0.1});
//   ember::optim::LinearLR warmup(opt, /*start_factor=*/0.1, /*end_factor=*/1.0,
//   /*total_iters=*/5); ember::optim::ReduceLROnPlateau plateau(opt, {.patience = 2});
//   plateau.step(val_loss);
//
// Each computes its rates as torch 1.13's Python does (chainable form on step(), closed form on
// the deprecated step(epoch) where torch has one), in double, in the same order, so that the
// rates equal torch's bit for bit; state_dict() holds torch's keys in torch's order.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/optim/lr_scheduler.h"

namespace ember::optim {

/// lr *= gamma every epoch.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch = -1, bool verbose = false);
  const char* name() const override { return "ExponentialLR"; }
  ValueDict state_dict() const override;

 protected:
  std::vector<double> compute_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  bool check_own_key(const std::string& key, const Value& value) const override;
  void load_own_state(const ValueDict& sd) override;

 private:
  double gamma_;
};

/// lr = base_lr * factor until epoch total_iters, then base_lr. ValueError unless 0 <= factor <= 1.
class ConstantLR : public LRScheduler {
 public:
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5,
             int64_t last_epoch = -1, bool verbose = false);
  const char* name() const override { return "ConstantLR"; }
  ValueDict state_dict() const override;

 protected:
  std::vector<double> compute_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  bool check_own_key(const std::string& key, const Value& value) const override;
  void load_own_state(const ValueDict& sd) override;

 private:
  double factor_;
  int64_t total_iters_;
};

/// The factor moves linearly from start_factor to end_factor over total_iters epochs.
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
           int64_t total_iters = 5, int64_t last_epoch = -1, bool verbose = false);
  const char* name() const override { return "LinearLR"; }
  ValueDict state_dict() const override;

 protected:
  std::vector<double> compute_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  bool check_own_key(const std::string& key, const Value& value) const override;
  void load_own_state(const ValueDict& sd) override;

 private:
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

/// lr *= lr_lambda(epoch) from the first epoch on; one function for all groups or one per group.
class MultiplicativeLR : public LRScheduler {
 public:
  using LrLambda = std::function<double(int64_t)>;
  MultiplicativeLR(Optimizer& optimizer, LrLambda lr_lambda, int64_t last_epoch = -1,
                   bool verbose = false);
  /// "Expected 2 lr_lambdas, but got 1" unless there is one per group.
  MultiplicativeLR(Optimizer& optimizer, std::vector<LrLambda> lr_lambdas, int64_t last_epoch = -1,
                   bool verbose = false);
  const char* name() const override { return "MultiplicativeLR"; }
  size_t lambda_count() const { return lr_lambdas_.size(); }

 protected:
  std::vector<double> compute_lr() override;

 private:
  std::vector<LrLambda> lr_lambdas_;
};

/// lr = base_lr * (1 - epoch / total_iters)^power, reaching 0 at total_iters.
class PolynomialLR : public LRScheduler {
 public:
  PolynomialLR(Optimizer& optimizer, int64_t total_iters = 5, double power = 1.0,
               int64_t last_epoch = -1, bool verbose = false);
  const char* name() const override { return "PolynomialLR"; }
  ValueDict state_dict() const override;

 protected:
  std::vector<double> compute_lr() override;
  std::optional<std::vector<double>> closed_form_lr() const override;
  bool check_own_key(const std::string& key, const Value& value) const override;
  void load_own_state(const ValueDict& sd) override;

 private:
  int64_t total_iters_;
  double power_;
};

/// SGDR: cosine annealing from base_lr to eta_min over T_i epochs, restarting with
/// T_i *= T_mult. step(epoch) takes fractional epochs (epoch + i / iters), as torch's.
class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  /// ValueErrors: "Expected positive integer T_0, but got 0", "Expected integer T_mult >= 1, but
  /// got 0".
  CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult = 1,
                              double eta_min = 0, int64_t last_epoch = -1, bool verbose = false);
  const char* name() const override { return "CosineAnnealingWarmRestarts"; }
  void step() override;
  void step(int64_t epoch) override { step_to(static_cast<double>(epoch), false); }
  /// A fractional epoch ("Expected non-negative epoch, but got -1" when negative).
  void step(double epoch) { step_to(epoch, true); }
  double T_cur() const { return T_cur_; }
  int64_t T_i() const { return T_i_; }
  ValueDict state_dict() const override;

 protected:
  std::vector<double> compute_lr() override;
  bool check_own_key(const std::string& key, const Value& value) const override;
  void load_own_state(const ValueDict& sd) override;

 private:
  void step_to(std::optional<double> epoch, bool fractional);
  int64_t T_0_, T_i_, T_mult_;
  double eta_min_;
  double T_cur_;
  bool T_cur_is_float_ = false;  // Python's T_cur turns float once a float epoch reaches it
};

/// Runs schedulers[0] until milestones[0], schedulers[1] until milestones[1], ... (each later
/// one restarted with step(0) at its milestone). All must drive `optimizer`.
class SequentialLR : public LRScheduler {
 public:
  /// ValueErrors as torch's: a scheduler of another optimizer, or milestones.size() !=
  /// schedulers.size() - 1.
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<int64_t> milestones, int64_t last_epoch = -1, bool verbose = false);
  const char* name() const override { return "SequentialLR"; }
  void step() override;
  /// torch's SequentialLR.step() takes no epoch: an error here.
  void step(int64_t epoch) override;
  const std::vector<std::shared_ptr<LRScheduler>>& schedulers() const { return schedulers_; }
  /// _milestones, last_epoch, _last_lr (torch's keys; the schedulers' own state_dicts, which
  /// torch adds as "_schedulers", are the caller's to add: each is its own scheduler's).
  ValueDict state_dict() const override;

 protected:
  std::vector<double> compute_lr() override { return last_lr_; }
  bool check_own_key(const std::string& key, const Value& value) const override;
  void load_own_state(const ValueDict& sd) override;

 private:
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

/// Steps every scheduler on each step(), chaining their multiplicative changes.
class ChainedScheduler : public LRScheduler {
 public:
  /// ValueError when the schedulers drive different optimizers.
  explicit ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers);
  const char* name() const override { return "ChainedScheduler"; }
  void step() override;
  void step(int64_t epoch) override;
  const std::vector<std::shared_ptr<LRScheduler>>& schedulers() const { return schedulers_; }
  /// _last_lr (torch adds "_schedulers", the schedulers' own state_dicts).
  ValueDict state_dict() const override;

 protected:
  std::vector<double> compute_lr() override { return last_lr_; }

 private:
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
};

struct CyclicLROptions {
  PerGroup base_lr = 0.0;
  PerGroup max_lr = 0.0;
  double step_size_up = 2000;
  std::optional<double> step_size_down = std::nullopt;  // step_size_up when absent
  std::string mode = "triangular";                      // "triangular2", "exp_range"
  double gamma = 1.0;
  /// A custom scale function of the cycle number or of the iteration (scale_mode).
  std::function<double(double)> scale_fn = nullptr;
  std::string scale_mode = "cycle";  // or "iterations"; used with scale_fn only
  bool cycle_momentum = true;
  PerGroup base_momentum = 0.8;
  PerGroup max_momentum = 0.9;
  int64_t last_epoch = -1;
  bool verbose = false;
};

/// The cyclical learning rate policy (Smith 2017): each group's lr moves between base_lr and
/// max_lr (and SGD's momentum the other way between max_momentum and base_momentum) in cycles
/// of step_size_up + step_size_down iterations, scaled per mode.
class CyclicLR : public LRScheduler {
 public:
  /// ValueErrors as torch: "expected 2 values for max_lr, got 1", "mode is invalid and scale_fn
  /// is None", "optimizer must support momentum with `cycle_momentum` option enabled".
  CyclicLR(Optimizer& optimizer, const CyclicLROptions& options);
  const char* name() const override { return "CyclicLR"; }
  /// torch's keys and order; _scale_fn_custom and _scale_fn_ref (functions in torch) are None.
  ValueDict state_dict() const override;

 protected:
  std::vector<double> compute_lr() override;
  bool check_own_key(const std::string& key, const Value& value) const override;
  void load_own_state(const ValueDict& sd) override;

 private:
  double scale(double x) const;
  std::vector<double> max_lrs_;
  double total_size_, step_ratio_;
  std::string mode_;
  double gamma_;
  std::function<double(double)> scale_fn_;
  std::string scale_mode_;
  bool cycle_momentum_;
  std::vector<double> base_momentums_, max_momentums_;
};

struct ReduceLROnPlateauOptions {
  std::string mode = "min";  // or "max"
  double factor = 0.1;
  int64_t patience = 10;
  double threshold = 1e-4;
  std::string threshold_mode = "rel";  // or "abs"
  int64_t cooldown = 0;
  PerGroup min_lr = 0.0;
  double eps = 1e-8;
  bool verbose = false;
};

/// Cuts every group's lr by `factor` once the metric has not improved for `patience` epochs
/// (by more than `threshold`, relative or absolute), waits `cooldown` epochs, never goes below
/// min_lr, and ignores changes smaller than eps. Not an LRScheduler, as in torch 1.13.
class ReduceLROnPlateau {
 public:
  /// ValueErrors as torch: "Factor should be < 1.0.", "expected 2 min_lrs, got 1",
  /// "mode foo is unknown!", "threshold mode foo is unknown!".
  ReduceLROnPlateau(Optimizer& optimizer, const ReduceLROnPlateauOptions& options = {});
  ReduceLROnPlateau(const ReduceLROnPlateau&) = delete;
  ReduceLROnPlateau& operator=(const ReduceLROnPlateau&) = delete;

  /// One epoch's metric; `epoch` (deprecated, warns) sets last_epoch instead of counting.
  void step(double metrics, std::optional<int64_t> epoch = std::nullopt);
  /// The rates after the last step() (empty before the first, as torch has no _last_lr then).
  const std::vector<double>& last_lr() const { return last_lr_; }
  bool in_cooldown() const { return cooldown_counter_ > 0; }
  bool is_better(double a, double best) const;
  int64_t last_epoch() const { return last_epoch_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }
  double best() const { return best_; }
  Optimizer& optimizer() const { return optimizer_; }

  /// torch's attributes in its order: factor, min_lrs, patience, verbose, cooldown,
  /// cooldown_counter, mode, threshold, threshold_mode, best, num_bad_epochs, mode_worse, eps,
  /// last_epoch (and _last_lr after a step).
  ValueDict state_dict() const;
  /// Restores what state_dict() gives, every value checked before anything changes.
  void load_state_dict(const ValueDict& state_dict);

 private:
  void init_is_better(const std::string& mode, const std::string& threshold_mode);
  Optimizer& optimizer_;
  double factor_;
  std::vector<double> min_lrs_;
  int64_t patience_;
  bool verbose_;
  int64_t cooldown_, cooldown_counter_ = 0;
  std::string mode_;
  double threshold_;
  std::string threshold_mode_;
  double best_, mode_worse_;
  int64_t num_bad_epochs_ = 0;
  double eps_;
  int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace ember::optim
