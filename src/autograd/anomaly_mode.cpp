// Note [Anomaly mode] (include/ember/autograd/anomaly_mode.h).
#include "ember/autograd/anomaly_mode.h"

#include <atomic>
#include <mutex>

#include "ember/warning.h"

namespace ember::autograd {

namespace {
std::atomic<bool> g_enabled{false};
std::atomic<bool> g_check_nan{true};
std::mutex g_capture_mutex;
ForwardTraceCapture& capture_fn() {
  static ForwardTraceCapture fn;
  return fn;
}
}  // namespace

bool AnomalyMode::is_enabled() { return g_enabled.load(std::memory_order_relaxed); }
bool AnomalyMode::should_check_nan() { return g_check_nan.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool enabled, bool check_nan) {
  g_enabled.store(enabled);
  g_check_nan.store(check_nan);
}

DetectAnomalyGuard::DetectAnomalyGuard(bool check_nan)
    : prev_(AnomalyMode::is_enabled()), prev_check_nan_(AnomalyMode::should_check_nan()) {
  warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
       "enabled for debugging.");
  AnomalyMode::set_enabled(true, check_nan);
}

DetectAnomalyGuard::~DetectAnomalyGuard() { AnomalyMode::set_enabled(prev_, prev_check_nan_); }

void set_forward_trace_capture(ForwardTraceCapture capture) {
  std::lock_guard<std::mutex> lock(g_capture_mutex);
  capture_fn() = std::move(capture);
}

std::shared_ptr<const std::string> capture_forward_trace() {
  if (!AnomalyMode::is_enabled()) return nullptr;
  ForwardTraceCapture fn;
  {
    std::lock_guard<std::mutex> lock(g_capture_mutex);
    fn = capture_fn();
  }
  return std::make_shared<const std::string>(fn ? fn() : std::string());
}

}  // namespace ember::autograd
