#include "ember/parallel.h"

#include "ember/error.h"

#include <immintrin.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <memory>
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
//
// A parallel region is one Job: the range is cut into one chunk per thread, and the caller and
// the workers take chunks until none is left. Workers spin briefly (~50 us) on the job counter
// before sleeping, because waking a sleeping thread costs tens of microseconds — as much as a
// whole 1M-element add — and kernels tend to come in bursts.
//
// Note [Thread pool after fork]
// A forked child (a DataLoader worker) has only the thread that forked: the pool's workers are
// gone, and a mutex another thread held at the fork stays locked for ever. A pthread_atfork
// child handler makes the child forget the parent's pool (the thread handles are set aside, never
// joined: joining a thread of another process would wait for ever) and reset the locks; the
// child's first parallel region starts a pool of its own, as PyTorch's child handler arranges.

namespace {

constexpr auto kSpin = std::chrono::microseconds(50);

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

struct Job {
  const std::function<void(int64_t, int64_t)>* fn;
  int64_t begin, end, chunk, nchunks;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  std::mutex error_mu;
  std::exception_ptr error;

  // Takes chunks until none is left.
  void run_chunks() {
    for (int64_t c; (c = next.fetch_add(1, std::memory_order_relaxed)) < nchunks;) {
      int64_t b = begin + c * chunk, e = std::min(end, b + chunk);
      try {
        (*fn)(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = std::current_exception();
      }
      done.fetch_add(1, std::memory_order_release);
    }
  }
};

// Spins until pred() holds or the spin budget is spent; returns pred().
template <class Pred>
bool spin_until(Pred pred) {
  auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (int i = 0;; ++i) {
    if (pred()) return true;
    _mm_pause();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > deadline) return pred();
  }
}

class ThreadPool {
 public:
  explicit ThreadPool(int workers) { resize(workers); }
  ~ThreadPool() { stop_all(); }

  void resize(int workers) {
    stop_all();
    stop_ = false;
    // A worker counts jobs from the generation at its spawn: reading it once running would let
    // a job posted right after the spawn (a forked child's first region) pass it by.
    const uint64_t start = generation_.load();
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this, start] { work(start); });
  }
  int workers() const { return static_cast<int>(threads_.size()); }

  // In a forked child (Note [Thread pool after fork]): none of threads_ exists here.
  void forget_after_fork() {
    // The handles are kept, never joined or destroyed, in a list reachable for ever (a leak
    // checker sees it as live memory, not a leak).
    static auto* orphans = new std::vector<std::thread>();
    for (auto& t : threads_) orphans->push_back(std::move(t));
    threads_.clear();
    new (&mu_) std::mutex();
    new (&cv_) std::condition_variable();
    current_.reset();
    stop_ = false;
  }

  void run(const std::shared_ptr<Job>& job) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      current_ = job;
      generation_.fetch_add(1, std::memory_order_release);
    }
    cv_.notify_all();
    t_in_parallel = true;
    job->run_chunks();
    t_in_parallel = false;
    // The other chunks finish about when ours does: spin, then yield.
    auto all_done = [&] { return job->done.load(std::memory_order_acquire) == job->nchunks; };
    while (!spin_until(all_done)) std::this_thread::yield();
    std::lock_guard<std::mutex> lock(mu_);
    current_.reset();
  }

 private:
  void stop_all() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      generation_.fetch_add(1);
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

  void work(uint64_t seen) {
    t_in_parallel = true;
    for (;;) {
      auto changed = [&] { return generation_.load(std::memory_order_acquire) != seen; };
      std::shared_ptr<Job> job;
      if (!spin_until(changed)) {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || changed(); });
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stop_) return;
        seen = generation_.load();
        job = current_;  // shared: the job outlives the caller's wait if we are late
      }
      if (job) job->run_chunks();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<uint64_t> generation_{0};
  std::shared_ptr<Job> current_;
  bool stop_ = false;
};

std::atomic<int> g_num_threads{0};
std::mutex g_pool_mu;  // one parallel region (or resize) at a time from outside the pool

ThreadPool& pool() {
  static ThreadPool p(get_num_threads() - 1);
  static const bool fork_handler = [] {
    pthread_atfork(nullptr, nullptr, [] {
      new (&g_pool_mu) std::mutex();
      pool().forget_after_fork();
    });
    return true;
  }();
  (void)fork_handler;
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
  // From inside a task this would wait for the pool it runs on (a deadlock): refuse instead.
  EMBER_CHECK(!in_parallel_region(), "set_num_threads: cannot be called from inside a parallel region");
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
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->begin = begin;
  job->end = end;
  job->chunk = (range + chunks - 1) / chunks;
  job->nchunks = (range + job->chunk - 1) / job->chunk;
  {
    std::lock_guard<std::mutex> lock(g_pool_mu);
    ThreadPool& p = pool();
    // A forked child starts with no workers (Note [Thread pool after fork]).
    if (p.workers() != get_num_threads() - 1) p.resize(get_num_threads() - 1);
    p.run(job);
  }
  if (job->error) std::rethrow_exception(job->error);
}

}  // namespace detail
}  // namespace ember
