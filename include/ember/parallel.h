// ember's one intra-op thread pool. Kernels split work with parallel_for; the GEMM and
// convolution libraries are configured to use the same thread count, so nothing
// oversubscribes the machine (see Note [One thread pool] in src/core/parallel.cpp).
//
//   ember::parallel_for(0, n, 32768, [&](int64_t begin, int64_t end) { ... });
//   ember::set_num_threads(1);
#pragma once

#include <cstdint>
#include <functional>

namespace ember {

/// Threads used by ember's kernels (default: EMBER_NUM_THREADS, else OMP_NUM_THREADS, else the
/// number of cores).
int get_num_threads();
void set_num_threads(int n);
/// Whether the caller runs inside a parallel_for task (nested calls run inline).
bool in_parallel_region();

namespace detail {
void parallel_run(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t, int64_t)>& fn);
}

/// Calls fn(b, e) on disjoint chunks covering [begin, end), each at least `grain` long (except
/// the last); runs inline when the range is small, when there is one thread, or when nested.
template <class F>
inline void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& fn) {
  if (end - begin <= grain || get_num_threads() == 1 || in_parallel_region()) {
    if (begin < end) fn(begin, end);
    return;
  }
  detail::parallel_run(begin, end, grain, fn);
}

}  // namespace ember
