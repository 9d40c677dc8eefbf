// Random number generators. Ops that draw random numbers take an optional Generator*; nullptr
// means the process-wide default generator (seeded by ember::manual_seed). A random op takes one
// next_u64() per call, under one lock, as the key of its counter-based stream, so its values do
// not depend on the thread count (Note [Random streams] in src/backends/cpu/random_kernels.cpp).
//
//   ember::manual_seed(0);   auto a = ember::rand({3});
//   ember::Generator g;  g.manual_seed(42);  auto b = ember::randn({2, 2}, {}, &g);
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <random>

namespace ember {

class Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ull);  // PyTorch's default seed
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  void manual_seed(uint64_t seed);
  uint64_t initial_seed() const { return seed_; }
  /// Raw 64 random bits. Thread-safe (a generator may be shared by parallel kernels).
  uint64_t next_u64();
  /// Uniform double in [0, 1) with 53 random bits.
  double next_double();
  /// Uniform float in [0, 1) with 24 random bits.
  float next_float();
  /// Standard normal (Box-Muller; consumes two uniforms and caches the second value).
  double next_normal();
  /// The engine itself, for kernels that draw many numbers under one lock.
  std::mutex& mutex() { return mutex_; }
  std::mt19937_64& engine() { return engine_; }

 private:
  uint64_t seed_;
  std::mt19937_64 engine_;
  std::mutex mutex_;
  bool has_cached_normal_ = false;
  double cached_normal_ = 0;
};

/// The process-wide default generator.
Generator& default_generator();
/// Seeds the default generator (torch.manual_seed).
void manual_seed(uint64_t seed);

}  // namespace ember
