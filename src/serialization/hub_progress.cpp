// tqdm's meter, reproduced for the settings torch.hub uses (see hub_progress.h).
#include "serialization/hub_progress.h"

#include <cmath>
#include <cstdio>

namespace ember::hub {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// Code points, for padding over a longer previous line.
size_t display_len(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

std::string format_sizeof(double num) {
  for (const char* unit : {"", "k", "M", "G", "T", "P", "E", "Z"}) {
    if (std::fabs(num) < 999.5) {
      if (std::fabs(num) < 99.95) {
        if (std::fabs(num) < 9.995) return fmt("%1.2f", num) + unit;
        return fmt("%2.1f", num) + unit;
      }
      return fmt("%3.0f", num) + unit;
    }
    num /= 1024;
  }
  return fmt("%3.1f", num) + "Y";
}

std::string format_interval(double seconds) {
  const long t = static_cast<long>(seconds);
  const long mins = t / 60, s = t % 60, h = mins / 60, m = mins % 60;
  char buf[48];
  if (h)
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", h, m, s);
  else
    std::snprintf(buf, sizeof buf, "%02ld:%02ld", m, s);
  return buf;
}

std::string format_meter(uint64_t n, std::optional<uint64_t> total, double elapsed, bool finished) {
  (void)finished;
  const double rate = elapsed > 0 ? static_cast<double>(n) / elapsed : 0.0;
  const std::string rate_fmt = (rate > 0 ? format_sizeof(rate) : std::string("?")) + "B/s";
  const std::string n_fmt = format_sizeof(static_cast<double>(n));
  if (!total || *total == 0) return n_fmt + " [" + format_interval(elapsed) + ", " + rate_fmt + "]";
  const double frac = std::min(1.0, static_cast<double>(n) / static_cast<double>(*total));
  // tqdm's Bar: 10 cells of "█", the last partial one from 1/8 steps.
  static const char* const kSyms[] = {" ", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"};
  constexpr int kBars = 10, kSteps = 8;
  const int eighths = static_cast<int>(frac * kBars * kSteps);
  const int full = eighths / kSteps, part = eighths % kSteps;
  std::string bar;
  for (int i = 0; i < full; ++i) bar += kSyms[8];
  if (full < kBars) {
    bar += kSyms[part];
    for (int i = 0; i < kBars - full - 1; ++i) bar += " ";
  }
  const std::string remaining =
      rate > 0 ? format_interval(static_cast<double>(*total - std::min(n, *total)) / rate) : "?";
  return fmt("%3.0f", frac * 100) + "%|" + bar + "| " + n_fmt + "/" + format_sizeof(static_cast<double>(*total)) +
         " [" + format_interval(elapsed) + "<" + remaining + ", " + rate_fmt + "]";
}

void ProgressBar::update(uint64_t n) {
  n_ += n;
  const auto now = Clock::now();
  if (!last_draw_ || now - *last_draw_ >= std::chrono::milliseconds(100)) draw(false);
}

void ProgressBar::draw(bool finished) {
  last_draw_ = Clock::now();
  const double elapsed = std::chrono::duration<double>(*last_draw_ - start_).count();
  std::string line = format_meter(n_, total_, elapsed, finished);
  const size_t len = display_len(line);
  if (last_len_ > len) line.append(last_len_ - len, ' ');
  last_len_ = len;
  out_("\r" + line);
}

void ProgressBar::close() {
  if (closed_) return;
  closed_ = true;
  draw(true);
  out_("\n");
}

}  // namespace ember::hub
