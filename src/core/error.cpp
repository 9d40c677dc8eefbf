#include "ember/error.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace ember {

namespace {
// Note [Recording error texts] (error.h). The flag starts from the environment, so a test
// harness (the Python suite's conftest) turns recording on before ember is loaded.
std::atomic<bool>& recording() {
  static std::atomic<bool> on{[] {
    const char* v = std::getenv("EMBER_RECORD_ERRORS");
    return v != nullptr && v[0] != '\0' && v[0] != '0';
  }()};
  return on;
}
std::mutex& recorded_mutex() {
  static std::mutex m;
  return m;
}
std::vector<std::string>& recorded() {
  static std::vector<std::string> texts;
  return texts;
}
}  // namespace

Error::Error(std::string msg, ErrorKind kind) : msg_(std::move(msg)), kind_(kind) {
  if (recording().load(std::memory_order_relaxed)) {
    std::lock_guard<std::mutex> lock(recorded_mutex());
    recorded().push_back(msg_);
  }
}

namespace detail {

void set_error_recording(bool on) { recording().store(on, std::memory_order_relaxed); }

std::vector<std::string> take_recorded_errors() {
  std::lock_guard<std::mutex> lock(recorded_mutex());
  return std::exchange(recorded(), {});
}

// Invariants are bugs in ember, not user errors: say where, then abort so a debugger or the
// sanitizers stop right there instead of unwinding through half-updated state.
void assert_fail(const char* cond, const char* file, int line, const std::string& msg) {
  std::fprintf(stderr, "ember internal assertion failed: %s at %s:%d%s%s\n", cond, file, line,
               msg.empty() ? "" : ": ", msg.c_str());
  std::abort();
}

}  // namespace detail
}  // namespace ember
