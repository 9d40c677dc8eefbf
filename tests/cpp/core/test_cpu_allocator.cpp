// Note [CPU block cache]: large blocks are reused for requests of about their size, the cache
// respects its limit and empties on request, every block is 64-byte aligned, and the cache is
// safe to use from several threads.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "../testing.h"
#include "ember/cpu_allocator.h"

namespace ember {
namespace {

namespace ca = cpu_allocator;

// Sets a known limit for one test (the default is 0 under AddressSanitizer) and restores it.
class CpuAllocator : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = ca::cache_limit();
    ca::set_cache_limit(size_t{64} << 20);
    ca::empty_cache();
    ca::reset_counters();
  }
  void TearDown() override {
    ca::empty_cache();
    ca::set_cache_limit(saved_);
  }
  size_t saved_ = 0;
};

constexpr size_t kMiB = size_t{1} << 20;

bool aligned64(const void* p) { return reinterpret_cast<uintptr_t>(p) % 64 == 0; }

TEST_F(CpuAllocator, ReusesAFreedLargeBlock) {
  const ca::Block a = ca::allocate(3 * kMiB);
  EXPECT_GE(a.mapped_bytes, 3 * kMiB);
  static_cast<char*>(a.ptr)[3 * kMiB - 1] = 1;  // the whole request is usable
  ca::release(a);
  EXPECT_EQ(ca::stats().cached_blocks, 1u);
  EXPECT_EQ(ca::stats().cached_bytes, a.mapped_bytes);
  const ca::Block b = ca::allocate(3 * kMiB);
  EXPECT_EQ(b.ptr, a.ptr);
  EXPECT_EQ(ca::stats().hits, 1u);
  EXPECT_EQ(ca::stats().misses, 1u);
  EXPECT_EQ(ca::stats().cached_bytes, 0u);
  ca::release(b);
}

TEST_F(CpuAllocator, BestFitWithinAnEighth) {
  const ca::Block big = ca::allocate(4 * kMiB);
  ca::release(big);
  // a request under 7/8 of the cached block maps fresh pages rather than waste the rest
  const ca::Block half = ca::allocate(2 * kMiB);
  EXPECT_NE(half.ptr, big.ptr);
  EXPECT_EQ(ca::stats().hits, 0u);
  // one within an eighth takes it
  const ca::Block close = ca::allocate(4 * kMiB - 256 * 1024);
  EXPECT_EQ(close.ptr, big.ptr);
  EXPECT_EQ(close.mapped_bytes, big.mapped_bytes);
  ca::release(half);
  ca::release(close);
  EXPECT_EQ(ca::stats().cached_blocks, 2u);
}

TEST_F(CpuAllocator, LimitAndEmptyCache) {
  ca::set_cache_limit(5 * kMiB);
  const ca::Block a = ca::allocate(2 * kMiB), b = ca::allocate(2 * kMiB), c = ca::allocate(2 * kMiB);
  ca::release(a);
  ca::release(b);
  ca::release(c);  // a third would pass 5 MiB: the largest cached block goes back first
  EXPECT_EQ(ca::stats().cached_blocks, 2u);
  EXPECT_LE(ca::stats().cached_bytes, 5 * kMiB);
  const ca::Block huge = ca::allocate(8 * kMiB);  // larger than the limit: never cached
  ca::release(huge);
  EXPECT_EQ(ca::stats().cached_blocks, 2u);
  ca::set_cache_limit(2 * kMiB);  // lowering the limit returns what no longer fits
  EXPECT_EQ(ca::stats().cached_blocks, 1u);
  ca::empty_cache();
  EXPECT_EQ(ca::stats().cached_blocks, 0u);
  EXPECT_EQ(ca::stats().cached_bytes, 0u);
  ca::set_cache_limit(0);  // 0: large blocks are malloc'ed, nothing is cached
  const ca::Block m = ca::allocate(2 * kMiB);
  EXPECT_EQ(m.mapped_bytes, 0u);
  EXPECT_TRUE(aligned64(m.ptr));
  ca::release(m);
  EXPECT_EQ(ca::stats().cached_blocks, 0u);
}

TEST_F(CpuAllocator, SmallBlocksAreAlignedMalloc) {
  std::vector<ca::Block> blocks;
  for (size_t n : {1, 3, 63, 64, 65, 1000, 100000}) {
    blocks.push_back(ca::allocate(n));
    EXPECT_EQ(blocks.back().mapped_bytes, 0u) << n;
    EXPECT_TRUE(aligned64(blocks.back().ptr)) << n;
    std::memset(blocks.back().ptr, 0xab, n);
  }
  for (const auto& b : blocks) ca::release(b);
  EXPECT_EQ(ca::stats().hits + ca::stats().misses, 0u);
}

TEST_F(CpuAllocator, TensorsReuseFreedStorage) {
  const void* first = nullptr;
  {
    Tensor t = empty({512, 1024});  // 2 MiB
    first = t.data_ptr();
    EXPECT_TRUE(aligned64(first));
  }
  Tensor u = zeros({512, 1024});
  EXPECT_EQ(u.data_ptr(), first);
  EXPECT_EQ(u.sum().item<float>(), 0.f);  // reused memory is still filled as asked
}

TEST_F(CpuAllocator, ManyThreads) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 200; ++i) {
        const size_t n = (size_t(1 + (i + t) % 5)) * 256 * 1024;
        ca::Block b = ca::allocate(n);
        static_cast<char*>(b.ptr)[0] = static_cast<char>(i);
        static_cast<char*>(b.ptr)[n - 1] = static_cast<char>(t);
        ca::release(b);
      }
    });
  }
  for (auto& th : threads) th.join();
  const ca::Stats s = ca::stats();
  EXPECT_EQ(s.hits + s.misses, 800u);
  EXPECT_LE(s.cached_bytes, ca::cache_limit());
}

}  // namespace
}  // namespace ember
