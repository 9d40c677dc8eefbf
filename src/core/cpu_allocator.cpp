// Note [CPU block cache] (include/ember/cpu_allocator.h).
#include "ember/cpu_allocator.h"

#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "ember/error.h"

#if defined(__SANITIZE_ADDRESS__)
#define EMBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMBER_ASAN 1
#endif
#endif
#ifdef EMBER_ASAN
#include <sanitizer/asan_interface.h>
#define EMBER_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define EMBER_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define EMBER_POISON(p, n) ((void)(p), (void)(n))
#define EMBER_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace ember::cpu_allocator {
namespace {

// 64 bytes: a cache line and an AVX-512 vector, so kernels may use aligned loads on fresh memory.
constexpr size_t kAlignment = 64;
constexpr size_t kPage = 4096;

size_t default_limit() {
#ifdef EMBER_ASAN
  size_t limit = 0;
#else
  size_t limit = size_t{1} << 30;
#endif
  if (const char* env = std::getenv("EMBER_CPU_CACHE_LIMIT_MB"); env && *env) {
    limit = static_cast<size_t>(std::strtoull(env, nullptr, 10)) << 20;
  }
  return limit;
}

struct State {
  std::mutex mu;
  std::multimap<size_t, void*> free_blocks;  // size -> mapping, best fit by lower_bound
  size_t cached_bytes = 0;
  std::atomic<size_t> limit{default_limit()};
  uint64_t hits = 0, misses = 0;
};

// Never destroyed: storages may be released by other static destructors at exit.
State& state() {
  static State* s = new State();
  return *s;
}

void unmap_all(const std::vector<std::pair<void*, size_t>>& blocks) {
  for (const auto& [p, n] : blocks) {
    EMBER_UNPOISON(p, n);
    munmap(p, n);
  }
}

// Takes cached blocks out (largest first) until `incoming` more bytes fit under the limit.
void evict_for(State& s, size_t incoming, std::vector<std::pair<void*, size_t>>& out) {
  const size_t limit = s.limit.load(std::memory_order_relaxed);
  while (!s.free_blocks.empty() && s.cached_bytes + incoming > limit) {
    auto last = std::prev(s.free_blocks.end());
    out.emplace_back(last->second, last->first);
    s.cached_bytes -= last->first;
    s.free_blocks.erase(last);
  }
}

[[noreturn]] void out_of_memory(size_t nbytes) {
  // c10's OutOfMemoryError; a RuntimeError in Python, as torch 1.13's CPU allocator raises.
  throw OutOfMemoryError(detail::str_cat(
      "DefaultCPUAllocator: not enough memory: you tried to allocate ", nbytes, " bytes."));
}

// malloc'ed memory, aligned by hand: the distance back to malloc's pointer sits in the byte
// before the aligned address (1..64), so release needs nothing else. (glibc's aligned_alloc
// costs three times malloc on a 1-element add; callgrind.)
Block allocate_small(size_t nbytes) {
  auto* raw = static_cast<unsigned char*>(std::malloc(nbytes + kAlignment));
  if (raw == nullptr) out_of_memory(nbytes);
  auto addr = (reinterpret_cast<uintptr_t>(raw) + kAlignment) & ~uintptr_t{kAlignment - 1};
  auto* aligned = reinterpret_cast<unsigned char*>(addr);
  aligned[-1] = static_cast<unsigned char>(aligned - raw);
  return {aligned, 0};
}

void release_small(void* ptr) {
  auto* aligned = static_cast<unsigned char*>(ptr);
  std::free(aligned - aligned[-1]);
}

void* map_pages(size_t bytes) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

}  // namespace

Block allocate(size_t nbytes) {
  State& s = state();
  if (nbytes < kLargeBlockBytes || s.limit.load(std::memory_order_relaxed) == 0) {
    return allocate_small(nbytes);
  }
  const size_t bytes = (nbytes + kPage - 1) / kPage * kPage;
  {
    std::lock_guard<std::mutex> g(s.mu);
    auto it = s.free_blocks.lower_bound(bytes);
    if (it != s.free_blocks.end() && it->first - bytes <= it->first / 8) {
      Block b{it->second, it->first};
      s.cached_bytes -= it->first;
      s.free_blocks.erase(it);
      ++s.hits;
      EMBER_UNPOISON(b.ptr, b.mapped_bytes);
      return b;
    }
    ++s.misses;
  }
  void* p = map_pages(bytes);
  if (p == nullptr) {  // the cache may be what holds the memory
    empty_cache();
    p = map_pages(bytes);
    if (p == nullptr) out_of_memory(nbytes);
  }
  return {p, bytes};
}

void release(const Block& b) {
  if (b.ptr == nullptr) return;
  if (b.mapped_bytes == 0) return release_small(b.ptr);
  State& s = state();
  std::vector<std::pair<void*, size_t>> unmap;
  {
    std::lock_guard<std::mutex> g(s.mu);
    if (b.mapped_bytes > s.limit.load(std::memory_order_relaxed)) {
      unmap.emplace_back(b.ptr, b.mapped_bytes);
    } else {
      evict_for(s, b.mapped_bytes, unmap);
      s.free_blocks.emplace(b.mapped_bytes, b.ptr);
      s.cached_bytes += b.mapped_bytes;
      EMBER_POISON(b.ptr, b.mapped_bytes);
    }
  }
  unmap_all(unmap);
}

Stats stats() {
  State& s = state();
  std::lock_guard<std::mutex> g(s.mu);
  return {s.cached_bytes, s.free_blocks.size(), s.hits, s.misses};
}

void reset_counters() {
  State& s = state();
  std::lock_guard<std::mutex> g(s.mu);
  s.hits = s.misses = 0;
}

void empty_cache() {
  State& s = state();
  std::vector<std::pair<void*, size_t>> unmap;
  {
    std::lock_guard<std::mutex> g(s.mu);
    for (const auto& [n, p] : s.free_blocks) unmap.emplace_back(p, n);
    s.free_blocks.clear();
    s.cached_bytes = 0;
  }
  unmap_all(unmap);
}

size_t cache_limit() { return state().limit.load(); }

void set_cache_limit(size_t bytes) {
  State& s = state();
  std::vector<std::pair<void*, size_t>> unmap;
  {
    std::lock_guard<std::mutex> g(s.mu);
    s.limit.store(bytes);
    evict_for(s, 0, unmap);
  }
  unmap_all(unmap);
}

}  // namespace ember::cpu_allocator
