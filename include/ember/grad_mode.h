// Grad mode: whether ops record the autograd graph (thread-local, on by default).
//
//   { ember::NoGradGuard g;  auto y = w * 2; }     // y.requires_grad() == false
#pragma once

namespace ember {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

/// Scoped torch.set_grad_enabled(enabled); restores the previous mode on exit.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

/// torch.no_grad().
class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

/// torch.enable_grad(): records again inside a no_grad region.
class EnableGradGuard : public AutoGradMode {
 public:
  EnableGradGuard() : AutoGradMode(true) {}
};

}  // namespace ember
