#include "ember/warning.h"

#include <cstdio>

namespace ember {
namespace {
struct StderrHandler : WarningHandler {
  void process(const std::string& message) override {
    std::fprintf(stderr, "UserWarning: %s\n", message.c_str());
  }
};
StderrHandler g_default_handler;
thread_local WarningHandler* t_handler = nullptr;
}  // namespace

WarningHandler* warning_handler() { return t_handler ? t_handler : &g_default_handler; }
void set_warning_handler(WarningHandler* h) { t_handler = h; }
void warn(const std::string& message) { warning_handler()->process(message); }

}  // namespace ember
