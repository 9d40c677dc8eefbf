// The CPU allocator behind Storage::allocate.
//
// Note [CPU block cache]
// Small blocks come from malloc. Large blocks (kLargeBlockBytes and up) are mapped pages, and a
// freed large block is kept in a cache and handed to the next request of about its size instead
// of going back to the kernel. Inference and training loops allocate the same activation sizes
// every iteration; without the cache every large block is fresh memory that page-faults (and,
// with transparent huge pages, is zeroed 2 MiB at a time) on first touch: a quarter of
// MobileNetV2's batch-1 time went there. PyTorch's CPU path pays that cost; its GPU allocator
// caches for the same reason.
//
// A cached block is reused for a request at most 1/8 smaller than it, so little memory is
// wasted. The cache holds at most cache_limit() bytes (default 1 GiB, or
// EMBER_CPU_CACHE_LIMIT_MB); a block freed beyond it goes back to the kernel, largest cached
// blocks first. empty_cache() returns every cached block. Thread-safe (one mutex, taken only for
// large blocks). Under AddressSanitizer the default limit is 0, so large blocks are plain
// malloc'ed memory that ASan and LeakSanitizer track; tests that set a limit get cached blocks
// poisoned while they sit in the cache.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ember::cpu_allocator {

inline constexpr size_t kLargeBlockBytes = size_t{128} << 10;

struct Stats {
  size_t cached_bytes = 0;   // held in the cache, ready for reuse
  size_t cached_blocks = 0;
  uint64_t hits = 0;         // large requests served from the cache
  uint64_t misses = 0;       // large requests that mapped fresh pages
};

/// Counters since the start of the process (or the last reset_counters()).
Stats stats();
void reset_counters();
/// Returns every cached block to the kernel.
void empty_cache();
size_t cache_limit();
/// Changes the limit; blocks cached beyond the new limit are returned at once.
void set_cache_limit(size_t bytes);

/// A block from allocate(): ptr is 64-byte aligned; mapped_bytes is the size of a cacheable
/// block of mapped pages, or 0 for malloc'ed memory.
struct Block {
  void* ptr = nullptr;
  size_t mapped_bytes = 0;
};
/// At least nbytes (> 0) of uninitialised memory; throws when the system has none to give.
Block allocate(size_t nbytes);
/// Gives a block from allocate() back (to the cache or the system).
void release(const Block& block);

}  // namespace ember::cpu_allocator
