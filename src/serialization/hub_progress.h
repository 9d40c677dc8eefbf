// The download progress bar: tqdm's format for torch.hub's settings (unit "B", unit_scale,
// unit_divisor 1024, ten-cell bar, redrawn at most every 0.1 s, a newline when closed):
//    45%|████▌     | 1.00M/2.22M [00:00<00:01, 10.5MB/s]
//   1.00M [00:00, 10.5MB/s]                                  (no Content-Length)
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace ember::hub {

/// Writes to the stderr sink (ember/hub.h's set_stderr_sink).
void write_stderr(std::string_view text);

/// tqdm.format_sizeof(num, divisor=1024): "0.00", "9.99k", "10.5M", "100G".
std::string format_sizeof(double num);
/// tqdm.format_interval: "00:07", "1:02:03".
std::string format_interval(double seconds);
/// One line of the bar (without the leading "\r").
std::string format_meter(uint64_t n, std::optional<uint64_t> total, double elapsed, bool finished = false);

class ProgressBar {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ProgressBar(std::function<void(std::string_view)> out) : out_(std::move(out)), start_(Clock::now()) {}
  void set_total(uint64_t total) { total_ = total; }
  void update(uint64_t n);
  /// Final redraw and newline (once).
  void close();

 private:
  void draw(bool finished);
  std::function<void(std::string_view)> out_;
  Clock::time_point start_;
  std::optional<Clock::time_point> last_draw_;
  std::optional<uint64_t> total_;
  uint64_t n_ = 0;
  size_t last_len_ = 0;
  bool closed_ = false;
};

}  // namespace ember::hub
