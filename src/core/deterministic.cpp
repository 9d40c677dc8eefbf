#include "ember/deterministic.h"

#include <atomic>

namespace ember {
namespace {
std::atomic<bool> g_enabled{false}, g_warn_only{false};
}  // namespace

void use_deterministic_algorithms(bool enabled, bool warn_only) {
  g_enabled.store(enabled);
  g_warn_only.store(warn_only);
}
bool deterministic_algorithms_enabled() { return g_enabled.load(); }
bool deterministic_algorithms_warn_only() { return g_warn_only.load(); }

}  // namespace ember
