// Warnings: what PyTorch reports with TORCH_WARN / Python's UserWarning.
//
// ember::warn(msg) hands the message to the thread's current handler. The default prints
// "UserWarning: <msg>" to stderr; the Python front end installs one that raises a Python
// UserWarning; tests capture them with WarningCapture.
#pragma once

#include <string>
#include <vector>

#include "ember/error.h"

namespace ember {

struct WarningHandler {
  virtual ~WarningHandler() = default;
  virtual void process(const std::string& message) = 0;
};

/// The handler for this thread (never null).
WarningHandler* warning_handler();
/// Installs `h` for this thread (nullptr: the default, which prints to stderr).
void set_warning_handler(WarningHandler* h);

void warn(const std::string& message);

/// Collects the warnings raised on this thread while it lives (and does not print them).
class WarningCapture : public WarningHandler {
 public:
  WarningCapture() : prev_(warning_handler()) { set_warning_handler(this); }
  ~WarningCapture() override { set_warning_handler(prev_); }
  WarningCapture(const WarningCapture&) = delete;
  WarningCapture& operator=(const WarningCapture&) = delete;
  void process(const std::string& message) override { messages.push_back(message); }
  std::vector<std::string> messages;

 private:
  WarningHandler* prev_;
};

}  // namespace ember

#define EMBER_WARN(...) ::ember::warn(::ember::detail::str_cat(__VA_ARGS__))
