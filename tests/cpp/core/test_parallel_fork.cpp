// Note [Thread pool after fork]: a forked child runs parallel regions on a pool of its own and
// can exit normally (static destructors included) without waiting for the parent's workers.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

#include "ember/parallel.h"

namespace {

// Distinct threads that ran a chunk of a 2-chunk region.
int threads_in_region() {
  std::set<std::thread::id> ids;
  std::mutex mu;
  std::atomic<int> chunks{0};
  ember::parallel_for(0, 2, 1, [&](int64_t, int64_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let both threads take one
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
    chunks.fetch_add(1);
  });
  return chunks.load() == 2 ? static_cast<int>(ids.size()) : -1;
}

TEST(ParallelFork, ChildGetsItsOwnPoolAndExitsCleanly) {
  const int saved = ember::get_num_threads();
  ember::set_num_threads(2);
  ASSERT_EQ(threads_in_region(), 2);  // the parent's pool has a worker
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(20);  // a deadlock fails the test instead of hanging it
    int ok = threads_in_region() == 2 && threads_in_region() == 2;
    std::exit(ok ? 0 : 3);  // std::exit runs the pool's destructor: it must not join ghosts
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(threads_in_region(), 2);  // the parent's pool is untouched
  ember::set_num_threads(saved);
}

}  // namespace
