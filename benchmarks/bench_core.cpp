// Core figures, ember beside libtorch (Debian's 1.13) in the same process and run:
//   add_1elem_cpp     per-op overhead of add on two 1-element float32 tensors, 1 thread, us/op
//   add_1M_f32_<n>t   add of two 2^20-element float32 tensors, n = 1 and 2 threads, GB/s
//                     (3 * 4 MiB of traffic per op: two reads and one write)
//   sgemm_1024_1t     1024^3 float32 mm, 1 thread, GFLOP/s
//   bmm_b<B>_<n>_2t   B products of n x n x n float32 in one bmm, 2 threads, GFLOP/s: 64 of 64^3
//                     and 16 of 128^3 (how bmm spreads a batch over threads: Note [bmm threads]
//                     in src/backends/cpu/matmul_kernels.cpp)
// One JSON line per figure:
//   {"bench": "add_1elem_cpp", "unit": "us/op", "ember": 0.12, "pytorch": 0.54, "ratio": 0.22,
//    "lower_is_better": true}
//
// Method: both libraries get the same thread count, set explicitly (ember::set_num_threads,
// at::set_num_threads; the GEMM libraries follow, and both share the process's OpenBLAS and
// oneDNN). Rounds alternate between the libraries so that drift on a shared machine hits both
// alike; each figure is the median over rounds. A short pause separates the libraries, so
// libgomp workers still spinning after a libtorch round do not steal ember's cores (and the
// other way round). Single-threaded figures are timed by the calling thread's CPU time, which
// is all the work there is (both libraries run inline at one thread) and which time slices
// lost to other processes on a shared 2-core machine do not inflate; multi-threaded figures
// are timed by the wall clock.
#include <utility>

#include "bench_common.h"

namespace {

using namespace bench;

void bench_add_1elem() {
  set_threads(1);
  std::vector<float> x = filler(1, 1), y = filler(1, 2);
  ember::Tensor ea = ember_tensor(x, {1}), eb = ember_tensor(y, {1});
  at::Tensor ta = torch_tensor(x, {1}), tb = torch_tensor(y, {1});
  Timing t = compare(Timer::ThreadCpu, 20000, 41, [&] { ember::add(ea, eb); },
                     [&] { at::add(ta, tb); });
  report("add_1elem_cpp", "us/op", t.ember * 1e6, t.pytorch * 1e6, true);
}

void bench_add_1m(int threads) {
  set_threads(threads);
  const int64_t n = int64_t{1} << 20;
  std::vector<float> x = filler(n, 3), y = filler(n, 4);
  ember::Tensor ea = ember_tensor(x, {n}), eb = ember_tensor(y, {n});
  at::Tensor ta = torch_tensor(x, {n}), tb = torch_tensor(y, {n});
  Timing t = compare(threads == 1 ? Timer::ThreadCpu : Timer::Wall, 20, 41,
                     [&] { ember::add(ea, eb); }, [&] { at::add(ta, tb); });
  const double bytes = 3.0 * 4.0 * static_cast<double>(n);
  report("add_1M_f32_" + std::to_string(threads) + "t", "GB/s", bytes / t.ember * 1e-9,
         bytes / t.pytorch * 1e-9, false);
}

void bench_sgemm_1024() {
  set_threads(1);
  const int64_t n = 1024;
  std::vector<float> x = filler(n * n, 5), y = filler(n * n, 6);
  ember::Tensor ea = ember_tensor(x, {n, n}), eb = ember_tensor(y, {n, n});
  at::Tensor ta = torch_tensor(x, {n, n}), tb = torch_tensor(y, {n, n});
  Timing t = compare(Timer::ThreadCpu, 1, 21, [&] { ember::mm(ea, eb); }, [&] { at::mm(ta, tb); });
  const double flops = 2.0 * n * n * n;
  report("sgemm_1024_1t", "GFLOP/s", flops / t.ember * 1e-9, flops / t.pytorch * 1e-9, false);
}

void bench_bmm(int64_t b, int64_t n, int threads) {
  set_threads(threads);
  std::vector<float> x = filler(b * n * n, 7), y = filler(b * n * n, 8);
  ember::Tensor ea = ember_tensor(x, {b, n, n}), eb = ember_tensor(y, {b, n, n});
  at::Tensor ta = torch_tensor(x, {b, n, n}), tb = torch_tensor(y, {b, n, n});
  const double flops = 2.0 * b * n * n * n;
  const int iters = std::max<int>(1, static_cast<int>(2e8 / flops));  // about 2 ms of work
  Timing t = compare(threads == 1 ? Timer::ThreadCpu : Timer::Wall, iters, 31,
                     [&] { ember::bmm(ea, eb); }, [&] { at::bmm(ta, tb); });
  report("bmm_b" + std::to_string(b) + "_" + std::to_string(n) + "_" + std::to_string(threads) + "t",
         "GFLOP/s", flops / t.ember * 1e-9, flops / t.pytorch * 1e-9, false);
}

}  // namespace

// Usage: bench_core [substring]  -- runs the figures whose name contains it (default: all).
int main(int argc, char** argv) {
  at::init_num_threads();
  const std::string only = argc > 1 ? argv[1] : "";
  const std::vector<std::pair<std::string, std::function<void()>>> figures = {
      {"add_1elem_cpp", bench_add_1elem},
      {"add_1M_f32_1t", [] { bench_add_1m(1); }},
      {"add_1M_f32_2t", [] { bench_add_1m(2); }},
      {"sgemm_1024_1t", bench_sgemm_1024},
      {"bmm_b64_64_2t", [] { bench_bmm(64, 64, 2); }},
      {"bmm_b16_128_2t", [] { bench_bmm(16, 128, 2); }},
  };
  for (const auto& [name, run] : figures) {
    if (name.find(only) != std::string::npos) run();
  }
  return 0;
}
