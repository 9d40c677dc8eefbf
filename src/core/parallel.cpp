#include "ember/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "../backends/cpu/gemm.h"

namespace ember {

// Note [One thread pool]
// ember runs its kernels on one pool of (num_threads - 1) workers plus the calling thread.
// The GEMM and convolution libraries get the same thread count (set_num_threads forwards it),
// and a parallel_for inside a parallel_for runs inline. On a 2-core machine, letting each
// library spawn its own pool made PyTorch 3-6x slower in a measured case; one pool avoids it.

namespace {

int default_num_threads() {
  for (const char* var : {"EMBER_NUM_THREADS", "OMP_NUM_THREADS"}) {
    if (const char* v = std::getenv(var)) {
      int n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

thread_local bool t_in_parallel = false;

class ThreadPool {
 public:
  explicit ThreadPool(int workers) { resize(workers); }
  ~ThreadPool() { stop_all(); }

  void resize(int workers) {
    stop_all();
    stop_ = false;
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
  }
  int workers() const { return static_cast<int>(threads_.size()); }

  void submit(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      tasks_.push_back(std::move(task));
    }
    cv_.notify_one();
  }

 private:
  void stop_all() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }
  void work() {
    t_in_parallel = true;
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
        if (stop_ && tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
    }
  }

  std::vector<std::thread> threads_;
  std::deque<std::function<void()>> tasks_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
};

std::atomic<int> g_num_threads{0};
std::mutex g_pool_mu;

ThreadPool& pool() {
  static ThreadPool p(get_num_threads() - 1);
  return p;
}

}  // namespace

int get_num_threads() {
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    int expected = 0;
    g_num_threads.compare_exchange_strong(expected, default_num_threads());
    n = g_num_threads.load();
  }
  return n;
}

void set_num_threads(int n) {
  if (n < 1) n = 1;
  std::lock_guard<std::mutex> lock(g_pool_mu);
  g_num_threads.store(n);
  if (pool().workers() != n - 1) pool().resize(n - 1);
  cpu::set_gemm_num_threads(n);  // the GEMM libraries' own thread pools (Note [One thread pool])
}

bool in_parallel_region() { return t_in_parallel; }

namespace detail {

void parallel_run(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t, int64_t)>& fn) {
  int64_t range = end - begin;
  int64_t chunks = std::min<int64_t>(get_num_threads(), (range + grain - 1) / std::max<int64_t>(grain, 1));
  if (chunks <= 1) {
    fn(begin, end);
    return;
  }
  int64_t chunk = (range + chunks - 1) / chunks;
  std::atomic<int64_t> remaining{chunks - 1};
  std::mutex done_mu;
  std::condition_variable done_cv;
  std::exception_ptr error;
  std::mutex error_mu;
  auto run = [&](int64_t b, int64_t e) {
    try {
      fn(b, e);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      if (!error) error = std::current_exception();
    }
  };
  for (int64_t c = 1; c < chunks; ++c) {
    int64_t b = begin + c * chunk, e = std::min(end, b + chunk);
    pool().submit([&, b, e] {
      run(b, e);
      if (remaining.fetch_sub(1) == 1) {
        std::lock_guard<std::mutex> lock(done_mu);
        done_cv.notify_one();
      }
    });
  }
  t_in_parallel = true;
  run(begin, std::min(end, begin + chunk));
  t_in_parallel = false;
  {
    std::unique_lock<std::mutex> lock(done_mu);
    done_cv.wait(lock, [&] { return remaining.load() == 0; });
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace detail
}  // namespace ember
