#include "ember/error.h"

#include <cstdio>
#include <cstdlib>

namespace ember::detail {

// Invariants are bugs in ember, not user errors: say where, then abort so a debugger or the
// sanitizers stop right there instead of unwinding through half-updated state.
void assert_fail(const char* cond, const char* file, int line, const std::string& msg) {
  std::fprintf(stderr, "ember internal assertion failed: %s at %s:%d%s%s\n", cond, file, line,
               msg.empty() ? "" : ": ", msg.c_str());
  std::abort();
}

}  // namespace ember::detail
