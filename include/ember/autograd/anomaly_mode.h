// Anomaly detection for the autograd engine (torch.autograd.detect_anomaly /
// set_detect_anomaly; libtorch's DetectAnomalyGuard).
//
// Note [Anomaly mode]
// While enabled (process-wide, as PyTorch's flag):
// - every node created records where its forward ran: the Python traceback when the forward
//   came from Python (the front end installs the capture), nothing for a C++ caller;
// - when a node's backward raises, the engine warns "Error detected in <Node>. Traceback of
//   forward call that caused the error: ..." (or that no forward information was recorded)
//   before the error propagates;
// - with check_nan, a node whose gradient has a NaN raises "Function '<Node>' returned nan
//   values in its <i>th output.".
// It costs one flag load per node when off, a traceback per node and a NaN scan per gradient
// when on: for debugging only.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace ember::autograd {

struct AnomalyMode {
  static bool is_enabled();
  static bool should_check_nan();
  static void set_enabled(bool enabled, bool check_nan = true);
};

/// Enables anomaly mode (with NaN checks) for its lifetime, warning as PyTorch does that this
/// slows the program down; the previous state comes back on destruction.
class DetectAnomalyGuard {
 public:
  explicit DetectAnomalyGuard(bool check_nan = true);
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool prev_, prev_check_nan_;
};

/// How a node records its forward call site in anomaly mode: returns the formatted trace, or
/// an empty string when there is none. The Python front end installs one that formats the
/// Python stack; the default records nothing.
using ForwardTraceCapture = std::function<std::string()>;
void set_forward_trace_capture(ForwardTraceCapture capture);
/// The trace of the forward call being recorded now (empty when anomaly mode is off).
std::shared_ptr<const std::string> capture_forward_trace();

}  // namespace ember::autograd
