// Shared by the benchmark programs: timing ember beside libtorch in the same run, and one JSON
// line per figure. See bench_core.cpp's header for the method.
#pragma once

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "ember/ember.h"

namespace bench {

using Clock = std::chrono::steady_clock;

struct Timing {
  double ember, pytorch;  // median seconds per op
};

enum class Timer { Wall, ThreadCpu };

inline double now(Timer timer) {
  if (timer == Timer::Wall) {
    return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
  }
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Times `rounds` rounds of `iters` calls for each library: first all of ember's rounds, then all
// of libtorch's, each block after a warm-up and a pause. Blocks, not interleaved rounds: on 2 cores
// a thread pool that is still spinning after its library's last parallel region (libgomp, which
// libtorch uses, spins for 10-20 ms here) steals a core from the other library's next round.
// Measured with interleaved rounds: ember's 2-thread add read 31-49 GB/s, 59 with torch's pool
// made passive.
inline Timing compare(Timer timer, int iters, int rounds, const std::function<void()>& ember_op,
               const std::function<void()>& torch_op) {
  auto median_of_block = [&](const std::function<void()>& op) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (int i = 0; i < iters; ++i) op();  // warm-up: allocator caches, JIT kernels, thread pools
    std::vector<double> times;
    for (int r = 0; r < rounds; ++r) {
      const double t0 = now(timer);
      for (int i = 0; i < iters; ++i) op();
      times.push_back((now(timer) - t0) / iters);
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    return times[times.size() / 2];
  };
  const double e = median_of_block(ember_op);
  const double t = median_of_block(torch_op);
  return {e, t};
}

inline void report(const std::string& bench, const char* unit, double ember, double pytorch,
            bool lower_is_better) {
  std::printf(
      "{\"bench\": \"%s\", \"unit\": \"%s\", \"ember\": %.4g, \"pytorch\": %.4g, \"ratio\": %.3g, "
      "\"lower_is_better\": %s}\n",
      bench.c_str(), unit, ember, pytorch, ember / pytorch, lower_is_better ? "true" : "false");
  std::fflush(stdout);
}

inline void set_threads(int n) {
  at::set_num_threads(n);
  ember::set_num_threads(n);
}

// Deterministic values in [-1, 1) for both libraries' inputs.
inline std::vector<float> filler(int64_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t x = seed;
  for (auto& f : v) {
    x = x * 1664525u + 1013904223u;
    f = static_cast<float>(x >> 8) / static_cast<float>(1 << 24) * 2.f - 1.f;
  }
  return v;
}

inline ember::Tensor ember_tensor(std::vector<float>& data, ember::IntArrayRef sizes) {
  return ember::from_blob(data.data(), sizes, ember::kFloat32).clone();
}
inline at::Tensor torch_tensor(std::vector<float>& data, at::IntArrayRef sizes) {
  return at::from_blob(data.data(), sizes, at::kFloat).clone();
}

}  // namespace bench
